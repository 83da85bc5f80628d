# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Searches and single decisions: one compiled decision, and the evaluator's searches.

``decide_move`` and ``decide_blow`` expose one compiled decision (esc_decide_move / esc_decide_blow, which
the hand loop calls): the reference engine plays the core-only ismcts and oracle through them in ``trace``
and ``play`` (strategies.compiled.CoreStrategy). ``evaluate_sample`` and ``evaluate_exact`` are the
evaluator's searches (csrc/escoba_evaluate.h; hands.evaluate calls them); ``read_hands`` is the posterior
over the other hands that ismcts' infer = 2 and the evaluator draw from (csrc/escoba_reading.h;
hands.reading shows it). Each takes its position packed
in one ``Position`` (common.pyx), searches without the GIL (its inputs copied into C structs first) and runs
under the signal guard (guard.pxd): a search cut short by a signal whose handler did not stop the program is
searched again, so no result depends on it. In a thread that runs under a Stop (escoba_sim/stops.py) the search
also reads that Stop's flag: one set before or while it runs ends it and the call raises ``stops.Stopped``
(nothing half-searched is returned).
"""

from libc.stdint cimport uint64_t, int16_t
from libc.stdlib cimport malloc, free

import numpy as np

from .common cimport Position, c_players, c_position, c_rules
from .csrc cimport (esc_capturing_cards, esc_decide_blow, esc_decide_move, esc_eval_exact, esc_eval_sample,
                    esc_hand, esc_init_tables, esc_move, esc_player, esc_read_marginals, esc_read_model, esc_rng,
                    esc_rules, esc_tbl, esc_tbl_init)
from .guard cimport attend, esc_guard_off, esc_stop_bind, esc_stop_flag_set, flag_address, guard, stopped

from ..stops import ATTENTION, Stopped, current_flag
from ..strategies import parse_strategy

if esc_init_tables() != 0:
    raise ImportError("escoba_sim._core: capture lookup tables have an unexpected size")
attend(ATTENTION)


cdef int _decider(rules, strategy, Position position, esc_rules *R, esc_player *pl, esc_hand *h) except -1:
    """What decide_move and decide_blow both need: the rules, ``strategy`` in every seat, the position.
    An oracle that sees the stock's order (``sees=0``) needs it in the position: without it the stock would be
    cards the position does not hold, and the search would deal from them."""
    spec = parse_strategy(strategy)
    if spec.name == "oracle" and dict(spec.params).get("sees", 0) == 0 and position.stock is None \
            and position.stock_left > 0:
        raise ValueError("the oracle (sees=0) sees the stock's order: give the position's stock")
    R[0] = c_rules(rules)
    c_players(rules, [strategy] * rules.players, pl)
    c_position(h, R, position)
    return 0


def decide_move(rules, strategy, Position position, int seat, state):
    """The move the core's ``strategy`` makes for ``seat`` in ``position`` (its turn, any blow settled): the
    compiled decision itself, so the reference engine can play a core-only strategy (ismcts) step by step
    and trace it. ``state`` is the hand's PLAY stream state.
    Returns (card, table mask taken, the stream state after the decision)."""
    cdef esc_rules R
    cdef esc_player pl[6]
    cdef esc_hand h
    cdef esc_tbl t
    cdef esc_rng r
    cdef esc_move mv
    _decider(rules, strategy, position, &R, pl, &h)
    t.mask = h.table
    t.reach = h.reach
    cdef uint64_t hand = h.hands[seat], cap = esc_capturing_cards(h.reach, h.hands[seat])
    flag = current_flag()  # kept referenced while the search reads it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        raise Stopped()
    cdef bint guarded = guard(pl, 1, False)
    cdef const int *prev = esc_stop_bind(fp)  # after the guard, which may raise
    try:
        while True:
            r.state = state
            with nogil:
                mv = esc_decide_move(&pl[0], &h, seat, &t, hand, cap, &r)
            again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
            if esc_stop_flag_set(fp):
                raise Stopped()
            if not again:
                break
    finally:
        if guarded:
            esc_guard_off()
        esc_stop_bind(prev)
    return mv.card, mv.take, r.state


def decide_blow(rules, strategy, Position position, int seat, int card, state):
    """The blow the core's ``strategy`` makes for ``seat`` on the laid ``card`` (still on the position's
    table; it is the position's pending card), as decide_move: returns (table mask taken with the card,
    0 = no blow; the stream state after it)."""
    cdef esc_rules R
    cdef esc_player pl[6]
    cdef esc_hand h
    cdef esc_tbl t
    cdef esc_rng r
    _decider(rules, strategy, position, &R, pl, &h)
    h.pending = card
    esc_tbl_init(&t, h.table & ~((<uint64_t>1) << card))
    cdef uint64_t take
    flag = current_flag()  # kept referenced while the search reads it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        raise Stopped()
    cdef bint guarded = guard(pl, 1, False)
    cdef const int *prev = esc_stop_bind(fp)  # after the guard, which may raise
    try:
        while True:
            r.state = state
            with nogil:
                take = esc_decide_blow(&pl[0], &h, seat, &t, card, &r)
            again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
            if esc_stop_flag_set(fp):
                raise Stopped()
            if not again:
                break
    finally:
        if guarded:
            esc_guard_off()
        esc_stop_bind(prev)
    return take, r.state


cdef esc_move *_options(options) except NULL:
    cdef esc_move *opts = <esc_move *> malloc(max(1, len(options)) * sizeof(esc_move))
    if opts == NULL:
        raise MemoryError()
    for i, (card, take) in enumerate(options):
        opts[i].card = card
        opts[i].take = take
    return opts


def evaluate_sample(rules, int seat, Position position, options, *, bint blow, int samples, double c, seed,
                    int rollout=0, double prior=0.0, model=None):
    """The evaluator's determinized search (csrc/escoba_evaluate.h): an int16 array (samples, options)
    of hand margins for ``seat``'s side. Only the decider's view is read: its own hand, the table, the
    piles and escobas, the other hands' sizes (their cards are never read) and the stock's size;
    ``options`` are (card, take mask) pairs (with ``blow``: blows of the position's pending card, take
    0 = no blow). With the position's ``voids`` the deals respect them, as ismcts' ``infer``; None deals
    uniformly; with ``model`` (temperature, uniform) and the position's ``plays``, they are drawn from the
    posterior over the other hands (read_hands), as ismcts' infer = 2. ``rollout`` and ``prior`` are
    ismcts' options of those names (0: greedy rollouts, no prior)."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    c_position(&h, &R, position)
    if not blow:
        h.pending = -1
    cdef int infer = position.voids is not None
    cdef esc_read_model m
    cdef esc_read_model *mp = NULL
    if model is not None:
        m.temperature, m.uniform = model
        mp = &m
    cdef int n = len(options), rc
    out = np.zeros((samples, n), dtype=np.int16)
    cdef int16_t[:, ::1] o = out
    cdef esc_move *opts = _options(options)
    cdef uint64_t s = seed
    flag = current_flag()  # kept referenced while the search reads it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        free(opts)
        raise Stopped()
    cdef bint guarded = guard(NULL, 1, True)
    cdef const int *prev = esc_stop_bind(fp)  # after the guard, which may raise
    try:
        while True:
            with nogil:
                rc = esc_eval_sample(&h, seat, blow, opts, n, samples, c, rollout, prior, s, infer, mp, &o[0, 0]) if n and samples else 0
            again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
            if esc_stop_flag_set(fp):
                raise Stopped()
            if not again:
                break
    finally:
        if guarded:
            esc_guard_off()
        esc_stop_bind(prev)
        free(opts)
    if rc != 0:
        raise MemoryError(f"not enough memory for {samples} samples of {n} options")
    return out


def evaluate_exact(rules, int seat, Position position, options, bint blow):
    """Exact minimax margins of ``options`` for ``seat`` (two players, no teams, empty stock: the position's
    ``hands`` are the decider's and the opponent's, which is every card the decider has not seen)."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    c_position(&h, &R, position)
    if not blow:
        h.pending = -1
    cdef int n = len(options)
    cdef const int *fp
    cdef const int *prev
    cdef esc_move *opts = _options(options)
    cdef int *values = <int *> malloc(max(1, n) * sizeof(int))
    try:
        if values == NULL:
            raise MemoryError()
        flag = current_flag()  # kept referenced while the search reads it
        fp = flag_address(flag)
        if esc_stop_flag_set(fp):
            raise Stopped()
        guarded = guard(NULL, 1, True)
        prev = esc_stop_bind(fp)  # after the guard, which may raise
        try:
            while True:
                with nogil:
                    esc_eval_exact(&h, seat, blow, opts, n, values)
                again = guarded and stopped()  # (unguarded: the guard's stop is not this call's to take)
                if esc_stop_flag_set(fp):
                    raise Stopped()
                if not again:
                    break
        finally:
            if guarded:
                esc_guard_off()
            esc_stop_bind(prev)
        return [values[i] for i in range(n)]
    finally:
        free(opts)
        free(values)


def read_hands(rules, int seat, Position position, double temperature, double uniform, int upto=-1, seed=0):
    """What ``seat`` may believe of the other hands (csrc/escoba_reading.h, esc_read_marginals): the
    probability that each seat holds each card, (players, 40), and at least one card of each value,
    (players, 11) (column v = value v; column 0 unused), from the position's ``plays`` of this round
    under the opponent model (``temperature``, ``uniform``), each seat's first ``upto`` of them (-1: all,
    0: none, the prior). Only the reader's view is read (the other hands' sizes, never their cards).
    Returns (cards, values, read): read is False when no move was weighed (the prior is shown). ``seed``
    draws the sampled deals (more than two players)."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    cdef esc_read_model m
    m.temperature, m.uniform = temperature, uniform
    c_position(&h, &R, position)
    h.pending = -1
    cards = np.zeros((6, 40), dtype=np.float64)
    values = np.zeros((6, 11), dtype=np.float64)
    cdef double[:, ::1] cv = cards
    cdef double[:, ::1] vv = values
    cdef uint64_t s = seed
    cdef int rc
    flag = current_flag()  # kept referenced while the reading reads it
    cdef const int *fp = flag_address(flag)
    if esc_stop_flag_set(fp):
        raise Stopped()
    cdef const int *prev = esc_stop_bind(fp)
    try:
        with nogil:
            rc = esc_read_marginals(&h, seat, &m, upto, s, &cv[0, 0], &vv[0, 0])
    finally:
        esc_stop_bind(prev)
    if esc_stop_flag_set(fp):
        raise Stopped()
    if rc < 0:
        raise MemoryError("not enough memory to read the other hands")
    return cards[:rules.players], values[:rules.players], rc == 1
