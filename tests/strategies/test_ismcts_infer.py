"""ismcts' `infer` option: the public voids a seat's lays show (engine.HandState.voids, esc_hand.voids), the
determinizations that respect them, and that the option plays differently but replays identically."""

import numpy as np
import pytest
from conftest import assert_reference_replays_core

from escoba_sim import batch
from escoba_sim.game.cards import mask_of, value
from escoba_sim.game.engine import VOIDS_OFF, capture_values, play_hand
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import GreedyStrategy, RandomStrategy

pytestmark = pytest.mark.core("ismcts")


def card_of(v: int, suit: int = 0) -> int:
    return next(c for c in range(40) if value(c) == v and c // 10 == suit)


def test_capture_values_on_a_constructed_table():
    # a 5 and a 3 on the table: sums 3, 5, 8, so a 10 (with the 5) or a 7 (with the 3 and... 5 + 3) captures
    table = [card_of(5), card_of(3)]
    assert capture_values(table) == (1 << 10) | (1 << 7)
    assert capture_values([]) == 0


class VoidsChecker:
    """Plays `inner`; at each move records the reference state's voids before it and the core's
    esc_note_voids result for it (the voids after it)."""

    def __init__(self, inner, log):
        self.inner, self.log = inner, log

    def choose_move(self, st, moves, rng):
        from escoba_sim import _core

        m = self.inner.choose_move(st, moves, rng)
        draw = st.rules.deal == "draw" and bool(st.stock)
        core = _core.note_voids(st.rules, [mask_of(h) for h in st.hands], mask_of(st.table), st.to_play,
                                list(st.voids), m.card, mask_of(m.take), draw)
        self.log.append((st.to_play, len(st.stock), list(st.voids), core))
        return m

    def choose_blow(self, st, blows, rng):
        return self.inner.choose_blow(st, blows, rng)


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "cardgames", "ludoteka(deal=draw)",
                                   "tradicional(players=3)"])
def test_the_core_notes_the_same_voids_as_the_reference_engine(rules):
    # random seats lay cards that could capture and play values they were read not to hold; greedy seats
    # show voids: the core's voids after each move equal the reference engine's at the next decision
    r = parse_rules(rules)
    pairs = []
    for g in range(12):
        log = []
        inner = [RandomStrategy() if (g + s) % 3 == 0 else GreedyStrategy() for s in range(r.players)]
        play_hand(r, [VoidsChecker(p, log) for p in inner], 3, g, 0, dealer=g % r.players)
        for (seat, stock, _, core), (_, stock_next, ref_next, _) in zip(log, log[1:]):
            if stock_next == stock or r.deal == "draw":  # no refill in between (it resets the refilled seats)
                pairs.append((core, ref_next, stock))
    assert len(pairs) > 100
    assert all(core == ref for core, ref, _ in pairs)
    seen = [v for core, _, _ in pairs for v in core]
    if r.deal == "rounds":
        assert any(v > VOIDS_OFF for v in seen)
        # under capture=any a lay proves the voids (the rules force a capture), so no play contradicts them
        assert (VOIDS_OFF in seen) == (r.capture != "any")
    else:  # deal=draw: a draw forgets the values, so they stand only once the stock is empty
        assert all(v in (0, VOIDS_OFF) for core, _, stock in pairs if stock for v in core)
        assert any(v > VOIDS_OFF for core, _, stock in pairs if not stock for v in core)


def test_voids_on_a_constructed_history():
    from escoba_sim import _core

    r = parse_rules("ludoteka")
    table = mask_of([card_of(5), card_of(3)])
    hands = [mask_of([card_of(1), card_of(2), card_of(4, 1)]), mask_of([card_of(6), card_of(9), card_of(10)])]
    # seat 0 lays its 1 (cannot capture: 1 + 5 + 3 = 9): it holds no 7 and no 10
    v = _core.note_voids(r, hands, table, 0, [0, 0], card_of(1), 0, False)
    assert v == [(1 << 7) | (1 << 10), 0]
    # then it plays a 10 after all: the reading is wrong for it, off until its refill
    v2 = _core.note_voids(r, [hands[0] | mask_of([card_of(10, 2)]), hands[1]], table, 0, v, card_of(10, 2),
                          mask_of([card_of(5)]), False)
    assert v2 == [VOIDS_OFF, 0]
    # a lay under deal=draw forgets the values at once (the drawn card is unknown)
    v3 = _core.note_voids(parse_rules("ludoteka(deal=draw)"), hands, table, 0, [0, 0], card_of(1), 0, True)
    assert v3 == [0, 0]


def test_two_player_determinizations_respect_the_voids_and_are_uniform_over_the_allowed_cards():
    from escoba_sim import _core

    r = parse_rules("ludoteka")
    mine = mask_of([card_of(1), card_of(2), card_of(3)])
    table = mask_of([card_of(4), card_of(6)])
    piles = [mask_of([card_of(5, 1), card_of(10, 1)]), 0]
    voids = [0, (1 << 7) | (1 << 5) | (1 << 9)]
    deals, constrained = _core.inferred_deals(r, 0, _core.Position(hands=[mine, 0b111], table=table, piles=piles, stock_left=33,
                                                                  voids=voids), 4000, 11)
    assert constrained
    known = mine | table | piles[0] | piles[1]
    forbidden = [c for c in range(40) if not known >> c & 1 and voids[1] >> value(c) & 1]
    allowed = [c for c in range(40) if not known >> c & 1 and not voids[1] >> value(c) & 1]
    counts = np.zeros(40)
    for hands in deals:
        assert hands[0] == mine and bin(hands[1]).count("1") == 3
        assert not hands[1] & mask_of(forbidden)
        for c in range(40):
            counts[c] += hands[1] >> c & 1
    # uniform over consistent deals: each allowed card is in the hand with probability 3 / len(allowed)
    p = 3 / len(allowed)
    se = np.sqrt(p * (1 - p) / len(deals))
    assert np.all(np.abs(counts[allowed] / len(deals) - p) < 5 * se)
    # only the three unseen 1s allowed: the hand is exactly them; none allowed: the unconstrained deal
    every = sum(1 << v for v in range(1, 11))
    deals, constrained = _core.inferred_deals(r, 0, _core.Position(hands=[mine, 0b111], table=table, piles=piles, stock_left=33,
                                                                  voids=[0, every & ~2]), 10, 11)
    assert constrained and all(h[1] == mask_of([card_of(1, s) for s in (1, 2, 3)]) for h in deals)
    _, constrained = _core.inferred_deals(r, 0, _core.Position(hands=[mine, 0b111], table=table, piles=piles,
                                                            stock_left=33, voids=[0, every]), 10, 11)
    assert not constrained


def test_more_seats_respect_the_voids_when_they_can():
    from escoba_sim import _core

    r = parse_rules("tradicional(players=3)")
    mine = mask_of([card_of(1), card_of(2), card_of(3)])
    voids = [0, (1 << 7) | (1 << 10), 1 << 4]
    deals, constrained = _core.inferred_deals(r, 0, _core.Position(hands=[mine, 0b111, 0b111], table=0, piles=[0, 0, 0],
                                                                  stock_left=28, voids=voids), 500, 5)
    assert constrained
    for hands in deals:
        assert not any(voids[1] >> value(c) & 1 for c in range(40) if hands[1] >> c & 1)
        assert not any(voids[2] >> value(c) & 1 for c in range(40) if hands[2] >> c & 1)


def _cards(rules, spec, n=40):
    return batch.play_hands(parse_rules(rules), [spec, "greedy"], 6, 0, n).hands["cards_taken"]


def test_infer_changes_the_play():
    base = "ismcts:iters=100,infer=0"
    assert not np.array_equal(_cards("ludoteka", base), _cards("ludoteka", "ismcts:iters=100,infer=1"))
    assert not np.array_equal(_cards("tradicional", base), _cards("tradicional", "ismcts:iters=100,infer=1"))
    # the default reads the other hands (issue 34): a bare budget plays as infer=2, not as infer=1
    assert np.array_equal(_cards("ludoteka", "ismcts:iters=100"), _cards("ludoteka", "ismcts:iters=100,infer=2"))
    assert not np.array_equal(_cards("ludoteka", "ismcts:iters=100"), _cards("ludoteka", "ismcts:iters=100,infer=1"))


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "tradicional(players=3)", "cardgames"])
def test_the_reference_replay_of_infer_is_the_core_hand(rules):
    # the reference engine keeps the voids and hands them to the compiled decision; the core's hand loop
    # keeps its own: the same hands only if both agree at every ismcts decision
    assert_reference_replays_core(parse_rules(rules), "ismcts:iters=60,infer=1", 14, 6)
