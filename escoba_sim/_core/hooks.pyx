# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Test hooks: the C RNG, capture tables, scoring and ismcts' building blocks seen from Python.

The differential tests (tests/native, tests/strategies) check each against its reference twin in
``game.rng``, ``game.engine`` and the reference strategies; ``capture_options`` also serves
``env.actions`` (the capture options of a card in mask order, from the C lookup tables).
"""

from libc.stdint cimport uint8_t, uint64_t, int64_t
from libc.string cimport memset

from .common cimport Position, c_players, c_position, c_rules
from .csrc cimport (ESC_GREEDY, esc_below, esc_capturing_cards, esc_deal, esc_decide_blow, esc_decide_move,
                    esc_hand, esc_hand_result, esc_init_tables, esc_ismcts_blow, esc_ismcts_determinize_inferred,
                    esc_ismcts_forbidden, esc_ismcts_play, esc_kth_option, esc_count_options, esc_mix64, esc_move,
                    esc_next, esc_next_seat, esc_note_voids, esc_player, esc_reach_of, esc_rng, esc_rules, esc_score,
                    esc_play, esc_read_model, esc_read_move_probability, esc_read_probability, esc_shuffle,
                    esc_stream_state, esc_tbl, esc_tbl_init)

from ..game import columns as result_columns

if esc_init_tables() != 0:
    raise ImportError("escoba_sim._core: capture lookup tables have an unexpected size")


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
    cdef esc_rules R = c_rules(rules)
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


def note_voids(rules, hands, table, int seat, voids, int card, take, bint draw):
    """Test hook: the seats' voids after ``seat`` plays ``card`` taking ``take`` (0 lays) from the position
    (``hands`` per seat, ``table`` as masks; ``voids`` before), by the hand loop's esc_note_voids; ``draw``:
    a card is drawn after the move."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    cdef esc_move mv
    c_position(&h, &R, Position(hands=hands, table=table, piles=[0] * rules.n_sides, escobas=[0] * rules.n_sides,
                                stock_left=1 if draw else 0, voids=voids))
    mv.card = card
    mv.take = take
    esc_note_voids(&h, seat, mv, esc_capturing_cards(h.reach, h.hands[seat]), draw)
    return [h.voids[s] for s in range(rules.players)]


def inferred_deals(rules, int seat, Position position, int n, seed):
    """Test hook: ``n`` determinizations of ismcts with ``infer`` for ``seat`` in ``position`` (other hands as
    placeholders of their sizes; its ``voids`` per seat): the list of per-seat hand masks of each, and whether
    any seat was constrained (esc_ismcts_forbidden)."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h, d
    cdef esc_rng rng
    cdef uint64_t forbid[6]
    cdef uint8_t unseen[40]
    c_position(&h, &R, position)
    hands, table, piles = position.hands, position.table, position.piles
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
    cdef esc_rules R = c_rules(rules)
    cdef esc_player strat[6]
    c_players(rules, strategies, strat)
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
            if strat[seat].id == ESC_GREEDY:  # the search's blow
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


def move_probability(rules, play, held, double temperature, double uniform):
    """The opponent model's probability (csrc/escoba_reading.h) that a seat holding ``held`` (a mask, the
    card played among them) makes ``play``: (seat, card, take, table before, pile cards before, stock
    left), as engine.HandState.plays records it. The fit of the model and the tests read it."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    cdef esc_play p
    cdef esc_read_model m
    memset(&h, 0, sizeof(esc_hand))
    h.R = &R
    seat, card, take, table, seen, left = play
    p.seat, p.card, p.take, p.table, p.seen, p.pos = seat, card, take, table, seen, 40 - left
    m.temperature, m.uniform = temperature, uniform
    return esc_read_move_probability(&h, &p, held, &m)


def holding_probability(rules, int seat, Position position, double temperature, double uniform, holding):
    """Two players: the posterior probability (csrc/escoba_reading.h) that the other seat holds exactly
    ``holding`` (a mask), given the position's ``plays``; None when the holdings are too many to enumerate."""
    cdef esc_rules R = c_rules(rules)
    cdef esc_hand h
    cdef esc_read_model m
    m.temperature, m.uniform = temperature, uniform
    c_position(&h, &R, position)
    h.pending = -1
    cdef double p = esc_read_probability(&h, seat, &m, holding)
    if p == -2.0:
        raise MemoryError("not enough memory to read the other hands")
    return None if p < 0 else p
