# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Hands and games: the compiled hand and game loops behind ``batch.play_hands`` / ``play_games``.

``play_hands`` and ``play_games`` validate nothing themselves (``batch`` does),
translate the ruleset and strategy names into small C codes (common.pyx), run a
``nogil`` loop of whole hands in C (csrc/escoba_core.h) and write the results
straight into the arrays that ``game.columns.empty_hands`` / ``empty_games``
allocate, so the returned ``Batch`` is identical to the reference engine's.

The loops run in sub-batches and call ``PyErr_CheckSignals`` between them
(with ``ismcts``, whose hands take tens of milliseconds or more, between every
hand), so Ctrl-C and SIGTERM reach the caller's handler promptly instead of
waiting for the whole call; an exception the handler raises ends the call. In a
thread that runs under a Stop (escoba_sim/stops.py) the searches also read it: one
set before or during the call ends it with ``stops.Stopped``.
"""

from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy, memset
from cpython.exc cimport PyErr_CheckSignals

from .common cimport any_slow, c_players, c_rules
from .csrc cimport (ESC_DEAL_STREAM_VERSION, esc_hand_result, esc_impl_name, esc_impls, esc_init_tables,
                    esc_n_impls, esc_play_game, esc_play_hand_fn, esc_hand_fn, esc_player, esc_rules, esc_use_impl)
from .guard cimport attend, esc_guard_off, esc_stop_bind, esc_stop_flag_set, flag_address, guard, stopped

from ..game import engine
from ..game import rng as _rng
from ..game import columns as result_columns
from ..stops import ATTENTION, Stopped, current_flag

if esc_init_tables() != 0:
    raise ImportError("escoba_sim._core: capture lookup tables have an unexpected size")
attend(ATTENTION)

# the deal stream the C shuffle implements (docs/engine.md, Shuffle) must be the reference's
DEAL_STREAM_VERSION = ESC_DEAL_STREAM_VERSION
if DEAL_STREAM_VERSION != _rng.DEAL_STREAM_VERSION:
    raise ImportError(f"escoba_sim._core deals with stream {DEAL_STREAM_VERSION}, escoba_sim.rng with "
                      f"{_rng.DEAL_STREAM_VERSION}: rebuild the core (pip install -e .)")

# the compiled copies of the hand loop this CPU runs, from "baseline" up to "popcnt" and "bmi2"
# (csrc/escoba_core.h), and the one picked for it: the last
IMPLS = tuple(esc_impls[i].name.decode() for i in range(esc_n_impls))
IMPL = esc_impl_name().decode()


def use_impl(name: str) -> str:
    """Play every later hand with the copy ``name`` (one of IMPLS); returns the copy in use before.

    All copies compile from one source and must play the same hands: the tests play each one.
    """
    before = esc_impl_name().decode()
    if esc_use_impl(str(name).encode()) != 0:
        raise ValueError(f"no `{name}` copy of the hand loop on this CPU (it has {', '.join(IMPLS)})")
    return before

# hands (or games) played between two checks for a signal: ~1 ms of the core's time; a slow
# strategy (ismcts: tens of ms to minutes per hand) is checked after every hand
CHECK_EVERY_HANDS, CHECK_EVERY_GAMES = 1024, 128


# The per-hand columns of a Batch as raw pointers: game.columns.empty_hands makes
# C-contiguous arrays, side columns (n, n_sides) in SIDE_COLUMNS order, which
# is the order of esc_hand_result.side. The arrays stay alive in `cols`.
ctypedef struct _columns:
    int64_t *game
    int32_t *hand
    int8_t *dealer
    int8_t *lucky_deal
    int8_t *leftovers
    int8_t *leftover_taker
    int16_t *side[11]
    int ns


cdef _columns _bind_columns(cols, int ns) except *:
    cdef _columns c
    cdef int64_t[::1] game = cols["game"]
    cdef int32_t[::1] hand = cols["hand"]
    cdef int8_t[::1] dealer = cols["dealer"], lucky = cols["lucky_deal"]
    cdef int8_t[::1] left = cols["leftovers"], taker = cols["leftover_taker"]
    cdef int16_t[:, ::1] side
    if len(result_columns.SIDE_COLUMNS) != 11:
        raise ImportError("escoba_sim._core: SIDE_COLUMNS is out of step with esc_hand_result")
    memset(&c, 0, sizeof(c))
    c.ns = ns
    if game.shape[0] == 0:
        return c
    c.game, c.hand, c.dealer = &game[0], &hand[0], &dealer[0]
    c.lucky_deal, c.leftovers, c.leftover_taker = &lucky[0], &left[0], &taker[0]
    for k, name in enumerate(result_columns.SIDE_COLUMNS):
        side = cols[name]
        c.side[k] = &side[0, 0]
    return c


cdef inline void _store_hand(const _columns *c, int64_t i, int64_t game, int32_t hand,
                             const esc_hand_result *r) noexcept nogil:
    cdef int k, s
    c.game[i] = game
    c.hand[i] = hand
    c.dealer[i] = r.dealer
    c.lucky_deal[i] = r.lucky_deal
    c.leftovers[i] = r.leftovers
    c.leftover_taker[i] = r.leftover_taker
    if c.ns == 2:  # two sides (every 2-player preset): one 4-byte copy per column, no inner loop
        for k in range(11):
            memcpy(&c.side[k][i * 2], &r.side[k][0], 2 * sizeof(int16_t))
        return
    for k in range(11):
        for s in range(c.ns):
            c.side[k][i * c.ns + s] = r.side[k][s]


def play_hands(rules, strategies, seed, first, count):
    """Hands ``first .. first+count-1`` (game i, hand 0, dealer i % players) as a Batch."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_player strat[6]
    c_players(rules, strategies, strat)
    cdef uint64_t c_seed = seed
    cdef int64_t c_first = first, n = count, i
    cdef int ns = R.n_sides
    cols = result_columns.empty_hands(count, ns, zeroed=False)  # the loop writes every row (no memset first)
    cdef _columns c = _bind_columns(cols, ns)
    cdef esc_hand_result res
    cdef int dealer = <int>(c_first % R.players)  # kept as a counter: a 64-bit division per hand costs ~2%
    cdef int64_t start = 0, end, step = 1 if any_slow(strat, R.players) else CHECK_EVERY_HANDS
    cdef esc_play_hand_fn play_hand = esc_hand_fn(&R, strat)  # once per batch: the lineup is fixed
    cdef int dealer0
    flag = current_flag()  # kept referenced while the searches read it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        raise Stopped()
    cdef bint guarded = guard(strat, R.players, False)
    cdef const int *prev = esc_stop_bind(fp)  # after the guard, which may raise
    try:
        while start < n:
            end = min(n, start + step)
            dealer0 = dealer
            with nogil:
                for i in range(start, end):
                    play_hand(&R, strat, c_seed, <uint64_t>(c_first + i), 0, dealer, &res)
                    _store_hand(&c, i, c_first + i, 0, &res)
                    dealer = 0 if dealer + 1 == R.players else dealer + 1
            again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
            if esc_stop_flag_set(fp):
                raise Stopped()
            if again:  # searches were cut short and no handler stopped us: these hands again
                dealer = dealer0
                continue
            start = end
            PyErr_CheckSignals()  # a Ctrl-C handler's exception propagates from here
    finally:
        if guarded:
            esc_guard_off()
        esc_stop_bind(prev)
    return result_columns.Batch(cols)


# games have a variable number of hands: results go to a growable C buffer first
ctypedef struct _hand_buf:
    esc_hand_result *res
    int64_t *game
    int32_t *hand
    int64_t n, cap
    int64_t cur_game
    int32_t cur_hand
    bint check_each_hand  # check for signals after every hand (a slow strategy plays)
    bint stopped  # a signal handler raised: the exception waits in _raised


_raised = []  # an exception a signal handler raised inside _push, re-raised by play_games


cdef int _push(void *ctx, const esc_hand_result *r) noexcept nogil:
    cdef _hand_buf *b = <_hand_buf *> ctx
    cdef int64_t new_cap
    cdef void *p
    if b.check_each_hand:
        with gil:
            try:
                PyErr_CheckSignals()
            except BaseException as e:
                _raised.append(e)
                b.stopped = True
                return 0
    if b.n == b.cap:
        new_cap = b.cap * 2 if b.cap else 1024
        p = realloc(b.res, new_cap * sizeof(esc_hand_result))
        if p == NULL:
            return 0
        b.res = <esc_hand_result *> p
        p = realloc(b.game, new_cap * sizeof(int64_t))
        if p == NULL:
            return 0
        b.game = <int64_t *> p
        p = realloc(b.hand, new_cap * sizeof(int32_t))
        if p == NULL:
            return 0
        b.hand = <int32_t *> p
        b.cap = new_cap
    memcpy(&b.res[b.n], r, sizeof(esc_hand_result))
    b.game[b.n] = b.cur_game
    b.hand[b.n] = b.cur_hand
    b.cur_hand += 1
    b.n += 1
    return 1


def play_games(rules, strategies, seed, first, count):
    """Games ``first .. first+count-1``, each to the ruleset's target, as a Batch with games."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_player strat[6]
    c_players(rules, strategies, strat)
    cdef uint64_t c_seed = seed
    cdef int64_t c_first = first, n = count, i, j
    cdef int s, ns = R.n_sides, nh = 0, winner = 0, max_hands = engine.MAX_HANDS_PER_GAME
    cdef int32_t scores[6]
    cdef int64_t failed_game = -1
    games = result_columns.empty_games(count, ns)
    cdef int64_t[:] gg_game = games["game"]
    cdef int8_t[:] gg_dealer = games["first_dealer"]
    cdef int32_t[:] gg_hands = games["hands"]
    cdef int8_t[:] gg_winner = games["winner"]
    cdef int32_t[:, :] gg_score = games["score"]
    cdef _hand_buf buf
    buf.res = NULL
    buf.game = NULL
    buf.hand = NULL
    buf.n = 0
    buf.cap = 0
    buf.check_each_hand = any_slow(strat, R.players)
    buf.stopped = False
    cdef int64_t start = 0, end, step = 1 if buf.check_each_hand else CHECK_EVERY_GAMES, n0
    flag = current_flag()  # kept referenced while the searches read it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        raise Stopped()
    cdef bint guarded = guard(strat, R.players, False)
    cdef const int *prev = esc_stop_bind(fp)  # after the guard, which may raise
    try:
        while start < n and failed_game < 0:
            end = min(n, start + step)
            n0 = buf.n
            with nogil:
                for i in range(start, end):
                    buf.cur_game = c_first + i
                    buf.cur_hand = 0
                    nh = esc_play_game(&R, strat, c_seed, <uint64_t>(c_first + i), max_hands, scores, &winner,
                                       _push, &buf)
                    if nh < 0:
                        failed_game = c_first + i
                        break
                    gg_game[i] = c_first + i
                    gg_dealer[i] = <int8_t>((c_first + i) % R.players)
                    gg_hands[i] = nh
                    gg_winner[i] = <int8_t>winner
                    for s in range(ns):
                        gg_score[i, s] = scores[s]
            if buf.stopped:
                raise _raised.pop()
            again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
            if esc_stop_flag_set(fp):
                raise Stopped()
            if again:  # searches were cut short and no handler stopped us: these games again
                buf.n = n0
                failed_game = -1
                continue
            start = end
            PyErr_CheckSignals()
        if nh == -2:
            raise MemoryError("out of memory while buffering hand results")
        if failed_game >= 0:
            raise RuntimeError(f"game {failed_game} did not end after {max_hands} hands")
        cols = result_columns.empty_hands(buf.n, ns)
        _fill_from_buffer(cols, &buf, ns)
    finally:
        if guarded:
            esc_guard_off()
        esc_stop_bind(prev)
        free(buf.res)
        free(buf.game)
        free(buf.hand)
    return result_columns.Batch(cols, games)


cdef _fill_from_buffer(cols, _hand_buf *b, int ns):
    cdef _columns c = _bind_columns(cols, ns)
    cdef int64_t i
    with nogil:
        for i in range(b.n):
            _store_hand(&c, i, b.game[i], b.hand[i], &b.res[i])
