# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: thin Cython adapters over the plain-C engine in csrc/.

``play_hands`` and ``play_games`` validate nothing themselves (``batch`` does),
translate the ruleset and strategy names into small C codes, run a ``nogil``
loop of whole hands in C and write the results straight into the arrays that
``game.columns.empty_hands`` / ``empty_games`` allocate, so the returned
``Batch`` is identical to the reference engine's. ``decide_move`` and
``decide_blow`` expose one compiled decision (the reference engine plays the
core-only ismcts through them in ``trace`` and ``play``); ``evaluate_sample``
and ``evaluate_exact`` are the evaluator's searches (csrc/escoba_evaluate.h).
``add_rotation`` and ``deal_moments`` reduce a run's batches to a chunk's sums in
one pass (csrc/escoba_aggregate.h; ``runs.chunk`` calls them, ``runs.aggregates``
holds their NumPy reference). The other functions are test hooks exposing the C RNG and capture tables to
the differential tests.

The loops run in sub-batches and call ``PyErr_CheckSignals`` between them
(with ``ismcts``, whose hands take tens of milliseconds or more, between every
hand), so Ctrl-C and SIGTERM reach the caller's handler promptly instead of
waiting for the whole call; an exception the handler raises ends the call.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from cpython.exc cimport PyErr_CheckSignals

import signal
import threading

import numpy as np

cdef extern from *:
    """
    #include <signal.h>
    #include <string.h>
    /* While a call that may search runs in the main thread, SIGINT and SIGTERM first set esc_stop (every search
     * then ends at once: escoba_tables.h), then do what they did before: Python's handler is called (it trips
     * Python's flag; the Python-level handler runs when the call returns), the default action is taken as it
     * would have been, and an ignored signal stays ignored. */
    static struct sigaction esc_prev_handlers[2];
    static int esc_guard_depth = 0;
    static void esc_on_signal(int sig, siginfo_t *info, void *context) {
        const struct sigaction *prev = &esc_prev_handlers[sig == SIGTERM];
        if (prev->sa_flags & SA_SIGINFO) { /* a handler that takes the details: it gets them */
            esc_stop = 1;
            prev->sa_sigaction(sig, info, context);
            return;
        }
        if (prev->sa_handler == SIG_IGN) return;
        if (prev->sa_handler == SIG_DFL) {
            sigaction(sig, prev, NULL);
            raise(sig);
            return;
        }
        esc_stop = 1;
        prev->sa_handler(sig);
    }
    static void esc_guard_on(void) {
        if (esc_guard_depth++ > 0) return;
        esc_stop = 0;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = esc_on_signal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &esc_prev_handlers[0]);
        sigaction(SIGTERM, &sa, &esc_prev_handlers[1]);
    }
    static void esc_guard_off(void) {
        if (--esc_guard_depth > 0) return;
        sigaction(SIGINT, &esc_prev_handlers[0], NULL);
        sigaction(SIGTERM, &esc_prev_handlers[1], NULL);
    }
    static int esc_stop_take(void) { const int s = esc_stop; esc_stop = 0; return s; }
    """
    void esc_guard_on() noexcept nogil
    void esc_guard_off() noexcept nogil
    int esc_stop_take() noexcept nogil

from .game import engine
from .game import rng as _rng
from .game import columns as result_columns
from .game.rules import CAPTURE, DEAL, LUCKY_DEAL, SEVENS, TIES, Ruleset
from .strategies import BUILTINS, parse_strategy

if esc_init_tables() != 0:
    raise ImportError("escoba_sim._core: capture lookup tables have an unexpected size")

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

# the strategy codes this build of the core plays (StrategyDef.code in strategies.BUILTINS):
# csrc/escoba_tables.h numbers them ESC_RANDOM = 0 .. ESC_N_STRATEGIES - 1; _C_NAMES pins each
# name to its C code so that a code renumbered on one side only is caught at import
_C_NAMES = {"random": 0, "greedy": 1, "maxoros": 2, "sevens": 3, "defensive": 4, "heuristic": 5, "endgame": 6,
           "ismcts": 7, "oracle": 8}
CODES = tuple(range(ESC_N_STRATEGIES))
# hands (or games) played between two checks for a signal: ~1 ms of the core's time; a slow
# strategy (ismcts: tens of ms to minutes per hand) is checked after every hand
CHECK_EVERY_HANDS, CHECK_EVERY_GAMES = 1024, 128
_SLOW_CODES = (_C_NAMES["ismcts"],)
# strategies that search (and check esc_stop): a call with one of them runs under the signal guard
_SEARCH_CODES = (_C_NAMES["endgame"], _C_NAMES["ismcts"], _C_NAMES["oracle"])
if ESC_MAX_PARAMS != 12 or any(n not in BUILTINS or BUILTINS[n].code != c for n, c in _C_NAMES.items()):
    # an ImportError, so batch falls back to the reference engine (or fails loudly when the core is required)
    raise ImportError("escoba_sim._core: C strategy codes or parameter slots are out of step with strategies.BUILTINS")


cdef esc_rules _c_rules(rules: Ruleset) except *:
    cdef esc_rules R
    R.players = rules.players
    R.teams = 1 if rules.teams else 0
    R.n_sides = rules.n_sides
    R.hand_size = rules.hand_size
    R.table_size = rules.table_size
    R.lucky_deal = LUCKY_DEAL.index(rules.lucky_deal)
    R.capture = CAPTURE.index(rules.capture)
    R.soplar = 1 if rules.soplar else 0
    R.deal = DEAL.index(rules.deal)
    R.sevens = SEVENS.index(rules.sevens)
    R.ties = TIES.index(rules.ties)
    R.bonus_all_oros = rules.bonus_all_oros
    R.bonus_all_sevens = rules.bonus_all_sevens
    R.target = rules.target
    return R


cdef bint _guard(const esc_player *strat, int players, bint always=False):
    """Install the stop guard for a call that may search (main thread only); True if installed."""
    cdef int i
    cdef bint searches = always
    for i in range(players):
        searches = searches or strat[i].id in _SEARCH_CODES  # (with `always`, strat is not read)
    if not searches or threading.current_thread() is not threading.main_thread():
        return False
    _python_handlers_first()
    esc_guard_on()
    return True


def _python_handlers_first():
    """Python's own C-level handler for SIGINT and SIGTERM again, where Python set a handler: a library may have
    replaced it (polars installs its own SIGINT handler, which then swallows Ctrl-C), and the guard passes
    each signal on to the handler it finds."""
    for s in (signal.SIGINT, signal.SIGTERM):
        h = signal.getsignal(s)
        if h is not None:
            signal.signal(s, h)


cdef bint _stopped() except -1:
    """After a guarded call: a signal cut its searches short. Its Python handler's exception (KeyboardInterrupt,
    a run's stop) propagates from here; True when none was raised: the caller plays the work again."""
    if esc_stop_take():
        PyErr_CheckSignals()
        return True
    return False


cdef bint _any_slow(const esc_player *strat, int players) noexcept:
    cdef int i
    for i in range(players):
        if strat[i].id in _SLOW_CODES:
            return True
    return False


cdef _c_players(rules, strategies, esc_player *out):
    """Each seat's strategy spec as its C code and parameters (defaults filled, in definition order)."""
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, got {len(strategies)}")
    for i, s in enumerate(strategies):
        spec = parse_strategy(s).for_rules(rules)
        code = spec.core_code
        if code is None or code not in CODES:
            raise ValueError(f"the compiled core has no strategy `{spec}`")
        values = spec.param_values()
        if len(values) > ESC_MAX_PARAMS:
            raise ValueError(f"`{spec}` has more than {ESC_MAX_PARAMS} parameters")
        out[i].id = code
        for k in range(ESC_MAX_PARAMS):
            out[i].p[k] = values[k] if k < len(values) else 0.0


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
    cdef esc_rules R = _c_rules(rules)
    cdef esc_player strat[6]
    _c_players(rules, strategies, strat)
    cdef uint64_t c_seed = seed
    cdef int64_t c_first = first, n = count, i
    cdef int ns = R.n_sides
    cols = result_columns.empty_hands(count, ns, zeroed=False)  # the loop writes every row (no memset first)
    cdef _columns c = _bind_columns(cols, ns)
    cdef esc_hand_result res
    cdef int dealer = <int>(c_first % R.players)  # kept as a counter: a 64-bit division per hand costs ~2%
    cdef int64_t start = 0, end, step = 1 if _any_slow(strat, R.players) else CHECK_EVERY_HANDS
    cdef esc_play_hand_fn play_hand = esc_hand_fn(&R, strat)  # once per batch: the lineup is fixed
    cdef int dealer0
    cdef bint guarded = _guard(strat, R.players)
    try:
        while start < n:
            end = min(n, start + step)
            dealer0 = dealer
            with nogil:
                for i in range(start, end):
                    play_hand(&R, strat, c_seed, <uint64_t>(c_first + i), 0, dealer, &res)
                    _store_hand(&c, i, c_first + i, 0, &res)
                    dealer = 0 if dealer + 1 == R.players else dealer + 1
            if _stopped():  # searches were cut short and no handler stopped us: these hands again
                dealer = dealer0
                continue
            start = end
            PyErr_CheckSignals()  # a Ctrl-C handler's exception propagates from here
    finally:
        if guarded:
            esc_guard_off()
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
    cdef esc_rules R = _c_rules(rules)
    cdef esc_player strat[6]
    _c_players(rules, strategies, strat)
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
    buf.check_each_hand = _any_slow(strat, R.players)
    buf.stopped = False
    cdef int64_t start = 0, end, step = 1 if buf.check_each_hand else CHECK_EVERY_GAMES, n0
    cdef bint guarded = _guard(strat, R.players)
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
            if _stopped():  # searches were cut short and no handler stopped us: these games again
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


# ---------------- a chunk's sums: csrc/escoba_aggregate.h (the NumPy reference: runs.aggregates) ----------------

cdef int64_t _empty[1]

_SUMS_ERRORS = {ESC_AGG_BAD_DEALER: "a hand's dealer is not a seat of the table",
                ESC_AGG_BAD_TOTAL: "a hand's total is negative or beyond the points histogram",
                ESC_AGG_BAD_DEALS: "the batch does not hold one hand (or game) per deal of the chunk",
                ESC_AGG_BAD_GAME: "the batch's games do not tile its hands in game order"}


cdef void *_first(a, dtype, shape, what) except NULL:
    """The data of a C-contiguous array of exactly ``dtype`` and ``shape`` (a fake address when it is empty:
    nothing is read there); anything else is a ValueError naming ``what``."""
    if not isinstance(a, np.ndarray) or a.dtype != dtype or a.shape != tuple(shape) or not a.flags.c_contiguous:
        got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
        raise ValueError(f"{what}: expected a C-contiguous {np.dtype(dtype)} array of shape {tuple(shape)}, got {got}")
    if a.size == 0:
        return <void *>_empty
    return <void *><size_t>a.ctypes.data


def add_rotation(sums, where, hands, games, int r, first, teams):
    """Add rotation ``r``'s batch to a chunk's ``sums`` in one compiled pass: the twin of
    ``runs.aggregates.add_rotation`` (same arguments, same integers; its docstring says what they
    are). Every array's type and shape is checked, every index the batch holds too (a ValueError)."""
    cdef esc_chunk_sums S
    cdef esc_rotation_batch b
    cdef int E = len(where["won"]), K = ESC_AGG_SIDE_COLS, e, q, k, rc
    if not 2 <= E <= ESC_AGG_MAX_SIDES or len(result_columns.SIDE_COLUMNS) != K:
        raise ValueError(f"{E} entrants: the compiled sums take 2 to {ESC_AGG_MAX_SIDES}")
    memset(&S, 0, sizeof(S))
    memset(&b, 0, sizeof(b))
    deal = sums["deal"]
    if not isinstance(deal, np.ndarray) or deal.ndim != 2:
        raise ValueError("sums['deal'] must be a (deals x columns) array")
    S.count, S.width = deal.shape[0], deal.shape[1]
    S.E, S.teams = E, 1 if teams else 0
    S.deal = <int64_t *>_first(deal, np.int64, deal.shape, "sums['deal']")
    table = {name: np.asarray(where[name]) for name in ("hands", "games", "won", "pos_hands", "pos_total", "side")}
    shapes = {"hands": (1,), "games": (1,), "won": (E,), "pos_hands": (E, E), "pos_total": (E, E), "side": (E, K)}
    for name, t in table.items():
        if t.shape != shapes[name] or t.size and not (t.min() >= (-1 if name == "side" else 0) and t.max() < S.width):
            raise ValueError(f"where['{name}'] must be {shapes[name]} columns of a row of {S.width}")
    S.hands_col, S.games_col = table["hands"][0], table["games"][0]
    for e in range(E):
        S.won_col[e] = table["won"][e]
        for q in range(E):
            S.pos_hands_col[e][q] = table["pos_hands"][e, q]
            S.pos_total_col[e][q] = table["pos_total"][e, q]
        for k in range(K):
            S.side_col[e][k] = table["side"][e, k]
    S.pos_points = <int64_t *>_first(sums["pos_points"], np.int64, (E, E, K), "sums['pos_points']")
    S.pos_wdl = <int64_t *>_first(sums["pos_wdl"], np.int64, (E, E, 3), "sums['pos_wdl']")
    S.game_wins = <int64_t *>_first(sums["game_wins"], np.int64, (E,), "sums['game_wins']")
    hist = sums["points_hist"]
    S.points_bins = hist.shape[1] if isinstance(hist, np.ndarray) and hist.ndim == 2 else 0
    S.points_hist = <int64_t *>_first(hist, np.int64, (E, S.points_bins), "sums['points_hist']")
    hist = sums["game_hands_hist"]
    S.game_bins = len(hist) if isinstance(hist, np.ndarray) else 0
    S.game_hist = <int64_t *>_first(hist, np.int64, (S.game_bins,), "sums['game_hands_hist']")
    if "score" in sums:
        S.score = <int64_t *>_first(sums["score"], np.int64, (S.count,), "sums['score']")
    lucky = sums["lucky_hands"]
    _first(lucky, np.int64, (1,), "sums['lucky_hands']")
    b.r, b.first, b.n = r, first, len(hands["game"])
    b.dealer = <int8_t *>_first(hands["dealer"], np.int8, (b.n,), "hands['dealer']")
    b.lucky_deal = <int8_t *>_first(hands["lucky_deal"], np.int8, (b.n,), "hands['lucky_deal']")
    for k, name in enumerate(result_columns.SIDE_COLUMNS):
        b.side[k] = <int16_t *>_first(hands[name], np.int16, (b.n, E), f"hands['{name}']")
    if games is not None:
        b.n_games = len(games["game"])
        b.game = <int64_t *>_first(games["game"], np.int64, (b.n_games,), "games['game']")
        b.game_hands = <int32_t *>_first(games["hands"], np.int32, (b.n_games,), "games['hands']")
        b.winner = <int8_t *>_first(games["winner"], np.int8, (b.n_games,), "games['winner']")
    with nogil:
        rc = esc_add_rotation(&S, &b)
    if rc != ESC_AGG_OK:
        raise ValueError(_SUMS_ERRORS[rc])
    lucky[0] += S.lucky_hands


def deal_moments(deal, int p):
    """``deal_sum`` and ``deal_gram`` of the first ``p`` columns of a chunk's rows (int64, C order), exactly:
    the twin of ``runs.aggregates.deal_moments``; OverflowError when a cross product's sum could pass 2**63 - 1."""
    if not isinstance(deal, np.ndarray) or deal.ndim != 2 or not 0 <= p <= min(deal.shape[1], ESC_MOMENTS_MAX_COLS):
        raise ValueError(f"deal_moments takes a (deals x columns) array and at most {ESC_MOMENTS_MAX_COLS} of its columns")
    cdef const int64_t *d = <int64_t *>_first(deal, np.int64, deal.shape, "deal")
    cdef int64_t count = deal.shape[0]
    cdef int width = deal.shape[1], rc
    cdef uint64_t top = 0
    total, gram = np.zeros(p, np.int64), np.zeros((p, p), np.int64)
    cdef int64_t *s = <int64_t *>_first(total, np.int64, (p,), "sum")
    cdef int64_t *g = <int64_t *>_first(gram, np.int64, (p, p), "gram")
    with nogil:
        rc = esc_deal_moments(d, count, width, p, s, g, &top)
    if rc != 0:
        raise OverflowError(f"a chunk's cross products could pass 2**63 ({count} deals, values up to {top}): "
                            "use a smaller --chunk")
    return total, gram


# ---------------- test hooks: the C RNG and capture tables seen from Python ----------------

def stream_state(seed, game, hand, stream):
    return esc_stream_state(seed, game, hand, stream)


def mix64(x):
    return esc_mix64(x)


def next_values(state, int n):
    """The first ``n`` outputs of a generator whose state is ``state``."""
    cdef esc_rng r
    r.state = state
    return [esc_next(&r) for _ in range(n)]


def below_values(state, bounds):
    """``below(b)`` for each ``b`` in ``bounds``, drawn in order from one generator."""
    cdef esc_rng r
    r.state = state
    return [esc_below(&r, b) for b in bounds]


def shuffled_deck(seed, game, hand):
    cdef esc_rng r
    cdef uint8_t deck[40]
    r.state = esc_stream_state(seed, game, hand, 0)
    esc_shuffle(&r, deck)
    return [deck[i] for i in range(40)]


def shuffled_deck_from_state(state):
    """The shuffle of a DECK stream whose generator state is ``state`` (tests craft rejections)."""
    cdef esc_rng r
    cdef uint8_t deck[40]
    r.state = state
    esc_shuffle(&r, deck)
    return [deck[i] for i in range(40)]


def capture_options(int card, table):
    """Every subset of ``table`` taking ``card`` to 15, ordered by mask, from the C lookup tables."""
    cdef uint64_t mask = 0
    cdef esc_tbl t
    for c in table:
        mask |= (<uint64_t>1) << <int>c
    esc_tbl_init(&t, mask)
    cdef int64_t n = esc_count_options(&t, card), k
    out = []
    cdef uint64_t sub
    for k in range(n):
        sub = esc_kth_option(&t, card, k)
        out.append(tuple(c for c in range(40) if (sub >> c) & 1))
    return out


def reachable_sums(table):
    """The set of sums 0..15 reached by subsets of ``table`` (as a 16-bit integer)."""
    cdef uint64_t mask = 0
    cdef esc_tbl t
    for c in table:
        mask |= (<uint64_t>1) << <int>c
    esc_tbl_init(&t, mask)
    return t.reach


def score_piles(rules, piles, escobas, lucky_escobas):
    """Test hook: esc_score on the given side piles (card masks) and escobas, as
    {SIDE_COLUMNS name: per-side list}, to check the C scoring rules directly."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_hand h
    cdef esc_hand_result res
    memset(&h, 0, sizeof(h))
    memset(&res, 0, sizeof(res))
    h.R = &R
    h.last_capturer = -1
    for i, (p, e, l) in enumerate(zip(piles, escobas, lucky_escobas)):
        h.piles[i] = p
        h.escobas[i] = e
        h.lucky_escobas[i] = l
    esc_score(&h, 0, &res)
    return {name: [res.side[k][s] for s in range(R.n_sides)] for k, name in enumerate(result_columns.SIDE_COLUMNS)}


cdef _stock_view(esc_hand *h, stock):
    """The stock's cards in draw order into the deck after ``h.pos`` (the oracle's view; None leaves it empty)."""
    if stock is None:
        return
    if len(stock) != 40 - h.pos:
        raise ValueError(f"the stock has {40 - h.pos} cards, {len(stock)} given")
    for i, c in enumerate(stock):
        h.deck[h.pos + i] = c


cdef _hand_view(esc_hand *h, esc_rules *R, hands, table, piles, escobas, int stock_left, int dealer,
                int last_capturer, int pending, voids=None):
    """Fill ``h`` from card masks (``hands`` per seat, ``piles``/``escobas`` per side); the stock has only a size;
    ``voids`` per seat (engine.HandState.voids, what ismcts' ``infer`` reads), None = nothing inferred."""
    memset(h, 0, sizeof(esc_hand))
    h.R = R
    for i, m in enumerate(hands):
        h.hands[i] = m
    h.table = table
    h.reach = esc_reach_of(h.table)
    for i, (p, e) in enumerate(zip(piles, escobas)):
        h.piles[i] = p
        h.escobas[i] = e
    h.pos = 40 - stock_left
    h.dealer = dealer
    h.last_capturer = last_capturer
    h.pending = pending
    for i, v in enumerate(voids or ()):
        h.voids[i] = v


def decide_move(rules, strategy, hands, table, piles, escobas, stock_left, dealer, last_capturer, int seat, state,
                stock=None, voids=None):
    """The move the core's ``strategy`` makes for ``seat`` (its turn, any blow settled): the compiled
    decision itself (esc_decide_move), so the reference engine can play a core-only strategy (ismcts)
    step by step and trace it. ``hands`` per seat, ``table`` and ``piles`` (per side) are card masks;
    the stock is only its size, unless ``stock`` gives its cards in draw order (only the cheating oracle
    reads them). ``state`` is the hand's PLAY stream state; ``voids``: the seats' public voids
    (engine.HandState.voids), read by ismcts' ``infer``.
    Returns (card, table mask taken, the stream state after the decision)."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_player pl[6]
    _c_players(rules, [strategy] * rules.players, pl)
    cdef esc_hand h
    cdef esc_tbl t
    cdef esc_rng r
    cdef esc_move mv
    _hand_view(&h, &R, hands, table, piles, escobas, stock_left, dealer, last_capturer, -1, voids)
    _stock_view(&h, stock)
    t.mask = h.table
    t.reach = h.reach
    cdef bint guarded = _guard(pl, 1)
    try:
        while True:
            r.state = state
            mv = esc_decide_move(&pl[0], &h, seat, &t, h.hands[seat], esc_capturing_cards(h.reach, h.hands[seat]), &r)
            if not _stopped():
                break
    finally:
        if guarded:
            esc_guard_off()
    return mv.card, mv.take, r.state


def decide_blow(rules, strategy, hands, table, piles, escobas, stock_left, dealer, last_capturer, int seat,
                int card, state, stock=None, voids=None):
    """The blow the core's ``strategy`` makes for ``seat`` on the laid ``card`` (still on ``table``), as
    decide_move: returns (table mask taken with the card, 0 = no blow; the stream state after it)."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_player pl[6]
    _c_players(rules, [strategy] * rules.players, pl)
    cdef esc_hand h
    cdef esc_tbl t
    cdef esc_rng r
    _hand_view(&h, &R, hands, table, piles, escobas, stock_left, dealer, last_capturer, card, voids)
    _stock_view(&h, stock)
    esc_tbl_init(&t, h.table & ~((<uint64_t>1) << card))
    cdef bint guarded = _guard(pl, 1)
    try:
        while True:
            r.state = state
            take = esc_decide_blow(&pl[0], &h, seat, &t, card, &r)
            if not _stopped():
                break
    finally:
        if guarded:
            esc_guard_off()
    return take, r.state


cdef esc_move *_options(options) except NULL:
    cdef esc_move *opts = <esc_move *> malloc(max(1, len(options)) * sizeof(esc_move))
    if opts == NULL:
        raise MemoryError()
    for i, (card, take) in enumerate(options):
        opts[i].card = card
        opts[i].take = take
    return opts


def evaluate_sample(rules, int seat, hand, table, piles, escobas, sizes, int stock_left, int dealer,
                    int last_capturer, int pending, options, bint blow, int samples, double c, seed, voids=None,
                    int rollout=0, double prior=0.0):
    """The evaluator's determinized search (csrc/escoba_evaluate.h): an int16 array (samples, options)
    of hand margins for ``seat``'s side. Only the decider's view comes in: its ``hand``, the ``table``,
    ``piles``/``escobas`` per side, the other hands' ``sizes`` and the stock's size; ``options`` are
    (card, take mask) pairs (with ``blow``: blows of the laid card ``pending``, take 0 = no blow). ``voids``:
    the seats' public voids (engine.HandState.voids): the deals respect them, as ismcts' ``infer``; None deals
    uniformly. ``rollout`` and ``prior`` are ismcts' options of those names (0: greedy rollouts, no prior)."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_hand h
    # the other hands are placeholders of their public sizes: the search reads only their sizes
    view = [hand if s == seat else (1 << sizes[s]) - 1 for s in range(rules.players)]
    _hand_view(&h, &R, view, table, piles, escobas, stock_left, dealer, last_capturer, pending if blow else -1,
               voids)
    cdef int infer = voids is not None
    cdef int n = len(options), rc
    out = np.zeros((samples, n), dtype=np.int16)
    cdef int16_t[:, ::1] o = out
    cdef esc_move *opts = _options(options)
    cdef uint64_t s = seed
    cdef bint guarded = _guard(NULL, 1, True)
    try:
        while True:
            with nogil:
                rc = esc_eval_sample(&h, seat, blow, opts, n, samples, c, rollout, prior, s, infer, &o[0, 0]) if n and samples else 0
            if not _stopped():
                break
    finally:
        if guarded:
            esc_guard_off()
        free(opts)
    if rc != 0:
        raise MemoryError(f"not enough memory for {samples} samples of {n} options")
    return out


def evaluate_exact(rules, int seat, hands, table, piles, escobas, int last_capturer, int pending, options, bint blow):
    """Exact minimax margins of ``options`` for ``seat`` (two players, no teams, empty stock: ``hands``
    are the decider's and the opponent's, which is every card the decider has not seen)."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_hand h
    _hand_view(&h, &R, hands, table, piles, escobas, 0, 0, last_capturer, pending if blow else -1)
    cdef int n = len(options)
    cdef esc_move *opts = _options(options)
    cdef int *values = <int *> malloc(max(1, n) * sizeof(int))
    try:
        if values == NULL:
            raise MemoryError()
        guarded = _guard(NULL, 1, True)
        try:
            while True:
                with nogil:
                    esc_eval_exact(&h, seat, blow, opts, n, values)
                if not _stopped():
                    break
        finally:
            if guarded:
                esc_guard_off()
        return [values[i] for i in range(n)]
    finally:
        free(opts)
        free(values)


def note_voids(rules, hands, table, int seat, voids, int card, take, bint draw):
    """Test hook: the seats' voids after ``seat`` plays ``card`` taking ``take`` (0 lays) from the position
    (``hands`` per seat, ``table`` as masks; ``voids`` before), by the hand loop's esc_note_voids; ``draw``:
    a card is drawn after the move."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_hand h
    cdef esc_move mv
    _hand_view(&h, &R, hands, table, [0] * rules.n_sides, [0] * rules.n_sides, 1 if draw else 0, 0, -1, -1, voids)
    mv.card = card
    mv.take = take
    esc_note_voids(&h, seat, mv, esc_capturing_cards(h.reach, h.hands[seat]), draw)
    return [h.voids[s] for s in range(rules.players)]


def inferred_deals(rules, int seat, hands, table, piles, int stock_left, voids, int n, seed):
    """Test hook: ``n`` determinizations of ismcts with ``infer`` for ``seat`` (other hands as placeholders of
    their sizes; ``voids`` per seat): the list of per-seat hand masks of each, and whether any seat was
    constrained (esc_ismcts_forbidden)."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_hand h, d
    cdef esc_rng rng
    cdef uint64_t forbid[6]
    cdef uint8_t unseen[40]
    _hand_view(&h, &R, hands, table, piles, [0] * rules.n_sides, stock_left, 0, -1, -1, voids)
    known = hands[seat] | table
    for p in piles:
        known |= p
    cdef int n_unseen = 0
    for c in range(40):
        if not (known >> c) & 1:
            unseen[n_unseen] = c
            n_unseen += 1
    constrained = esc_ismcts_forbidden(&h, seat, ((<uint64_t>1) << 40) - 1 - known, forbid)
    rng.state = seed
    out = []
    for _ in range(n):
        esc_ismcts_determinize_inferred(&d, &h, seat, unseen, n_unseen, forbid, &rng)
        out.append([d.hands[s] for s in range(rules.players)])
    return out, bool(constrained)


def ismcts_turns_hand(rules, strategies, seed, int game):
    """Test hook: hand ``game`` (hand 0, dealer game % players) played through the search's own turn
    functions (esc_ismcts_play; blows by greedy seats through esc_ismcts_blow), so a test can check
    that the simulations inside ismcts follow the core's hand loop. Returns the per-side totals and
    cards taken."""
    cdef esc_rules R = _c_rules(rules)
    cdef esc_player strat[6]
    _c_players(rules, strategies, strat)
    cdef esc_hand h
    cdef esc_rng rng
    cdef esc_tbl t
    cdef esc_hand_result res
    cdef esc_move mv
    cdef uint64_t cap, pbit, take
    cdef int seat, leftovers
    memset(&res, 0, sizeof(res))
    rng.state = esc_stream_state(seed, game, 0, 0)
    esc_shuffle(&rng, h.deck)
    esc_deal(&h, &R, game % R.players)
    rng.state = esc_stream_state(seed, game, 0, 1)
    seat = esc_next_seat(&h, h.dealer)
    while seat >= 0:
        if h.pending >= 0:
            if strat[seat].id == 1:  # ESC_GREEDY: the search's blow
                esc_ismcts_blow(&h, seat)
            else:
                pbit = (<uint64_t>1) << h.pending
                esc_tbl_init(&t, h.table & ~pbit)
                take = esc_decide_blow(&strat[seat], &h, seat, &t, h.pending, &rng)
                if take:
                    h.table &= ~(take | pbit)
                    h.reach = esc_reach_of(h.table)
                    h.piles[seat % 2 if R.teams else seat] |= take | pbit
                    h.last_capturer = seat
                h.pending = -1
        t.mask = h.table
        t.reach = h.reach
        cap = esc_capturing_cards(h.reach, h.hands[seat])
        mv = esc_decide_move(&strat[seat], &h, seat, &t, h.hands[seat], cap, &rng)
        seat = esc_ismcts_play(&h, seat, mv, cap)
    leftovers = 0
    for c in range(40):
        leftovers += (h.table >> c) & 1
    if h.last_capturer >= 0:
        h.piles[h.last_capturer % 2 if R.teams else h.last_capturer] |= h.table
    esc_score(&h, leftovers, &res)
    return [res.side[7][s] for s in range(R.n_sides)], [res.side[8][s] for s in range(R.n_sides)]
