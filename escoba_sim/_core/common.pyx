# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What the compiled modules share: a ruleset, the seats' strategies and a position as C values.

``c_rules`` and ``c_players`` turn a ``Ruleset`` and strategy specs into the C engine's structs; a
``Position`` is one position of a hand packed for the C engine by ``c_position``, the one place an
adapter's position becomes an ``esc_hand``. The strategy codes and their parameter slots are named
once, in C (csrc/escoba_common.h and each strategy's header); this module checks at import that each
is the code and the parameters of that name in ``strategies.BUILTINS`` (``STRATEGIES``), so a
renumbered code or a reordered parameter on one side only fails the import.
"""

import signal
import threading

from libc.string cimport memset

from .csrc cimport (ESC_ENDGAME, ESC_ISMCTS, ESC_LEVEL, ESC_MAX_PARAMS, ESC_N_STRATEGIES, ESC_ORACLE, esc_hand, esc_param_name, esc_player,
                    esc_reach_of, esc_rules, esc_strategy_name)

from ..game.rules import CAPTURE, DEAL, LUCKY_DEAL, SEVENS, TIES, Ruleset
from ..strategies import BUILTINS, parse_strategy
from ..strategies.levels import LEVEL, level_of

# the parameter slots of esc_player.p (csrc/escoba_strategies.h), which csrc.pxd declares as 12 doubles
MAX_PARAMS = ESC_MAX_PARAMS


def _c_slots(int code):
    names = []
    while esc_param_name(code, len(names)) != NULL:
        names.append(esc_param_name(code, len(names)).decode())
    return tuple(names)


# the strategy codes this build of the core plays, with their parameter slots: {name: (code, slot names)}
STRATEGIES = {esc_strategy_name(c).decode(): (c, _c_slots(c)) for c in range(ESC_N_STRATEGIES)}
CODES = tuple(range(ESC_N_STRATEGIES))
# a level's slots hold its base strategy's parameters (c_players), so its own (n) has none
_REGISTRY = {n: (d.code, () if n == LEVEL else tuple(d.params)) for n, d in BUILTINS.items() if d.code is not None}
if MAX_PARAMS != 12 or STRATEGIES != _REGISTRY or any(len(slots) > MAX_PARAMS for _, slots in STRATEGIES.values()):
    # an ImportError, so batch falls back to the reference engine (or fails loudly when the core is required)
    raise ImportError("escoba_sim._core: C strategy codes or parameter slots are out of step with strategies.BUILTINS")

# strategies that search (and check esc_stop): a call with one of them runs under the signal guard
_SEARCH_CODES = (ESC_ENDGAME, ESC_ISMCTS, ESC_ORACLE)
# strategies slow enough (ismcts: tens of ms to minutes per hand) that a loop checks for signals after every hand
_SLOW_CODES = (ESC_ISMCTS,)


cdef esc_rules c_rules(rules: Ruleset) except *:
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


cdef int c_players(rules, strategies, esc_player *out) except -1:
    """Each seat's strategy spec as its C code and parameters (defaults filled, in definition order)."""
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, got {len(strategies)}")
    for i, s in enumerate(strategies):
        spec = parse_strategy(s).for_rules(rules)
        code = spec.core_code
        if code is None or code not in CODES:
            raise ValueError(f"the compiled core has no strategy `{spec}`")
        out[i].base = out[i].share = 0
        if code == ESC_LEVEL:  # a level plays its base strategy's code and parameters, and a share of random
            level = level_of(spec)
            spec = parse_strategy(level.base)
            out[i].base, out[i].share = spec.core_code, level.random_share
        values = spec.param_values()
        if len(values) > MAX_PARAMS:
            raise ValueError(f"`{spec}` has more than {MAX_PARAMS} parameters")
        out[i].id = code
        for k in range(MAX_PARAMS):
            out[i].p[k] = values[k] if k < len(values) else 0.0
    return 0


cdef class Position:
    """One position of a hand, as the compiled decisions and searches read it (all keyword arguments):
    ``hands`` per seat and ``table`` are card masks, ``piles`` (masks) and ``escobas`` per side (missing
    ones are empty); the stock is only its size ``stock_left``, unless ``stock`` gives its cards in draw
    order (only the cheating oracle reads them); ``pending`` is a laid card awaiting a blow (-1: none);
    ``voids`` per seat are the public voids (engine.HandState.voids) that ismcts' ``infer`` and the
    evaluator read, None = nothing inferred; ``plays`` are the hand's moves so far as the table saw them
    (engine.public_plays: (seat, card, take, table before, pile cards before, stock_left before) each, blows
    apart), which infer = 2 and the hand reading weigh, None = none kept."""

    def __init__(self, *, hands, table, piles=(), escobas=(), int stock_left=0, int dealer=0,
                 int last_capturer=-1, int pending=-1, voids=None, stock=None, plays=None):
        self.hands, self.table, self.piles, self.escobas = hands, table, piles, escobas
        self.stock_left, self.dealer, self.last_capturer, self.pending = stock_left, dealer, last_capturer, pending
        self.voids, self.stock = voids, stock
        self.plays = None if plays is None else tuple(plays)
        if self.plays is not None and len(self.plays) > 40:
            raise ValueError(f"a hand has at most 40 moves, {len(self.plays)} given")
        self.c_plays.n = 0
        for seat, card, take, table_before, seen, left in self.plays or ():
            if not (0 <= seat < 6 and 0 <= card < 40 and 0 <= left <= 40):
                raise ValueError(f"not a move of a hand: {(seat, card, take, table_before, seen, left)}")
            self.c_plays.m[self.c_plays.n].seat = seat
            self.c_plays.m[self.c_plays.n].card = card
            self.c_plays.m[self.c_plays.n].take = take
            self.c_plays.m[self.c_plays.n].table = table_before
            self.c_plays.m[self.c_plays.n].seen = seen
            self.c_plays.m[self.c_plays.n].pos = 40 - left
            self.c_plays.n += 1


cdef int c_position(esc_hand *h, const esc_rules *R, Position position) except -1:
    """Fill ``h`` from ``position`` for the ruleset ``R``."""
    memset(h, 0, sizeof(esc_hand))
    h.R = R
    for i, m in enumerate(position.hands):
        h.hands[i] = m
    h.table = position.table
    h.reach = esc_reach_of(h.table)
    for i, p in enumerate(position.piles):
        h.piles[i] = p
    for i, e in enumerate(position.escobas):
        h.escobas[i] = e
    h.pos = 40 - position.stock_left
    h.dealer = position.dealer
    h.last_capturer = position.last_capturer
    h.pending = position.pending
    for i, v in enumerate(position.voids or ()):
        h.voids[i] = v
    h.plays = &position.c_plays if position.plays is not None else NULL
    stock = position.stock
    if stock is not None:  # the stock's cards in draw order into the deck after h.pos (the oracle's view)
        if len(stock) != 40 - h.pos:
            raise ValueError(f"the stock has {40 - h.pos} cards, {len(stock)} given")
        for i, c in enumerate(stock):
            h.deck[h.pos + i] = c
    return 0


cdef inline int _plays(const esc_player *pl) noexcept:
    """The strategy that decides for a seat: a level's base, else its own."""
    return pl.base if pl.id == ESC_LEVEL else pl.id


cdef bint any_slow(const esc_player *strat, int players) noexcept:
    cdef int i
    for i in range(players):
        if _plays(&strat[i]) in _SLOW_CODES:
            return True
    return False


cdef bint guard_wanted(const esc_player *strat, int players, bint always) except -1:
    """Whether a call with these seats runs under the signal guard (guard.pxd): one that may search, in the
    main thread; Python's own handlers are then put back first."""
    cdef int i
    cdef bint searches = always
    for i in range(players):
        searches = searches or _plays(&strat[i]) in _SEARCH_CODES  # (with `always`, strat is not read)
    if not searches or threading.current_thread() is not threading.main_thread():
        return False
    _python_handlers_first()
    return True


def _python_handlers_first():
    """Python's own C-level handler for SIGINT and SIGTERM again, where Python set a handler: a library may have
    replaced it (polars installs its own SIGINT handler, which then swallows Ctrl-C), and the guard passes
    each signal on to the handler it finds."""
    for s in (signal.SIGINT, signal.SIGTERM):
        h = signal.getsignal(s)
        if h is not None:
            signal.signal(s, h)
