"""Reading the other hands (csrc/escoba_reading.h): the opponent model, the posterior, and ismcts' infer = 2."""

import math
from itertools import combinations

import numpy as np
import pytest

from escoba_sim import batch, native
from escoba_sim.batch import make_player
from escoba_sim.game import engine
from escoba_sim.game.cards import mask_of, value
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import parse_strategy

pytestmark = pytest.mark.core
core = native.core


def _positions(rules_text, hands=30, seed=3):
    """Every decision of greedy-vs-greedy hands: (rules, state copy data) with the reader to play."""
    rules = parse_rules(rules_text)
    out = []

    class Watch:
        name = "greedy"

        def __init__(self):
            self.inner = make_player("greedy")

        def choose_move(self, st, moves, rng):
            out.append({"seat": st.to_play, "hands": [mask_of(h) for h in st.hands], "table": mask_of(st.table),
                        "piles": list(st.piles), "stock_left": len(st.stock), "plays": list(st.plays),
                        "moves": list(moves)})
            return self.inner.choose_move(st, moves, rng)

        def choose_blow(self, st, blows, rng):
            return self.inner.choose_blow(st, blows, rng)

    for g in range(hands):
        engine.play_hand(rules, [Watch(), Watch()], seed, game=g)
    return rules, out


def _view(d, reader=None):
    reader = d["seat"] if reader is None else reader
    hands = [h if s == reader else (1 << bin(h).count("1")) - 1 for s, h in enumerate(d["hands"])]
    return core.Position(hands=hands, table=d["table"], piles=d["piles"], stock_left=d["stock_left"],
                         plays=d["plays"])


def _unseen(d):
    return [c for c in range(40) if not (d["hands"][d["seat"]] | d["table"] | sum(d["piles"])) >> c & 1]


def _read(d):
    """The reader's moves of the other seat this round."""
    other = 1 - d["seat"]
    return [p for p in d["plays"] if p[0] == other and p[5] == d["stock_left"]]


def test_move_probabilities_are_a_distribution_over_the_legal_moves():
    rules, decisions = _positions("ludoteka", hands=4)
    checked = 0
    for d in decisions:
        seat, held = d["seat"], d["hands"][d["seat"]]
        seen = sum(d["piles"])
        plays = [(seat, m.card, mask_of(m.take), d["table"], seen, d["stock_left"]) for m in d["moves"]]
        for t, u in ((1.0, 0.03), (0.5, 0.0), (0.0, 0.1)):
            ps = [core.move_probability(rules, p, held, t, u) for p in plays]
            assert sum(ps) == pytest.approx(1.0, abs=1e-12) and min(ps) >= 0
            if u > 0:
                assert min(ps) >= u / len(plays) - 1e-15
        checked += len(plays) > 1
    assert checked > 20


def test_a_move_impossible_with_a_holding_has_probability_zero():
    # capture=any: a lay is legal only if no card of the hand captures, so a holding with a capturing card
    # cannot have laid: the posterior gives it nothing, whatever the model
    rules, decisions = _positions("ludoteka(capture=any)", hands=40)
    found = 0
    for d in decisions:
        laid = [p for p in _read(d) if not p[2]]
        if not laid or not d["hands"][1 - d["seat"]]:
            continue
        p = laid[0]
        # the values that would have captured on the table the lay was made on
        sums = {0}
        for c in range(40):
            if p[3] >> c & 1:
                sums |= {s + value(c) for s in sums if s + value(c) <= 15}
        capturing = {v for v in range(1, 11) if 15 - v in sums}
        if not capturing:
            continue
        _, values, read = core.read_hands(rules, d["seat"], _view(d), 1.0, 0.1)
        assert read
        for v in capturing:
            assert values[1 - d["seat"], v] == 0.0
        found += 1
    assert found >= 3


def test_without_a_move_this_round_the_reading_is_the_uniform_prior():
    rules, decisions = _positions("ludoteka", hands=6)
    n = 0
    for d in decisions:
        if _read(d) or not d["hands"][1 - d["seat"]]:
            continue
        cards, values, read = core.read_hands(rules, d["seat"], _view(d), 1.0, 0.03)
        assert not read
        unseen = _unseen(d)
        k = bin(d["hands"][1 - d["seat"]]).count("1")
        for c in unseen:
            assert cards[1 - d["seat"], c] == pytest.approx(k / len(unseen))
        for v in range(1, 11):
            nv = sum(1 for c in unseen if value(c) == v)
            expect = 1 - math.comb(len(unseen) - nv, k) / math.comb(len(unseen), k)
            assert values[1 - d["seat"], v] == pytest.approx(expect)
        n += 1
    assert n > 10


def test_the_posterior_is_bayes_rule_over_every_holding():
    # an independent posterior: every holding of the unseen cards weighed by the product of the model's
    # probabilities of the seat's moves this round (each made holding the cards it holds now and the ones it
    # played since), normalised; against the core's enumeration and its per-card and per-value marginals
    rules, decisions = _positions("tradicional", hands=8)
    t, u = 0.75, 0.05
    n = 0
    for d in decisions:
        moves = _read(d)
        other = 1 - d["seat"]
        k = bin(d["hands"][other]).count("1")
        if not moves or not k:
            continue
        weights = {}
        for x in combinations(_unseen(d), k):
            hold, w, later = mask_of(x), 1.0, 0
            for p in reversed(moves):
                later |= 1 << p[1]
                w *= core.move_probability(rules, p, hold | later, t, u)
            weights[hold] = w
        total = sum(weights.values())
        view = _view(d)
        for hold in list(weights)[:40]:
            assert core.holding_probability(rules, d["seat"], view, t, u, hold) == \
                pytest.approx(weights[hold] / total, rel=1e-9, abs=1e-15)
        cards, values, read = core.read_hands(rules, d["seat"], view, t, u)
        assert read
        for c in _unseen(d):
            expect = sum(w for h, w in weights.items() if h >> c & 1) / total
            assert cards[other, c] == pytest.approx(expect, abs=1e-12)
        for v in range(1, 11):
            expect = sum(w for h, w in weights.items() if any(h >> c & 1 and value(c) == v for c in range(40))) / total
            assert values[other, v] == pytest.approx(expect, abs=1e-12)
        assert cards[other].sum() == pytest.approx(k)
        n += 1
        if n == 12:
            break
    assert n == 12


def test_the_true_holding_is_more_likely_under_the_posterior_than_uniform():
    # greedy's moves are what the heuristic model expects more often than not: on average the posterior puts
    # more mass on the true holding than uniform deals do (not on every decision)
    rules, decisions = _positions("ludoteka", hands=30, seed=11)
    gains = []
    for d in decisions:
        other = 1 - d["seat"]
        k = bin(d["hands"][other]).count("1")
        if not _read(d) or not k:
            continue
        p = core.holding_probability(rules, d["seat"], _view(d), 1.0, 0.03, d["hands"][other])
        gains.append(math.log(p) + math.log(math.comb(len(_unseen(d)), k)))
    gains = np.array(gains)
    assert len(gains) > 200
    assert gains.mean() - 3 * gains.std(ddof=1) / math.sqrt(len(gains)) > 0


@pytest.mark.parametrize("rules_text", ["ludoteka", "tradicional", "robo", "ludoteka(players=4,teams=true)",
                                        "ludoteka(players=3)", "ludoteka(deal=draw)", "cardgames"])
def test_infer_2_plays_the_same_hands_in_the_core_loop_and_through_the_reference_engine(rules_text):
    # the C hand loop keeps its own log of the moves (esc_plays); the reference engine passes HandState.plays
    rules = parse_rules(rules_text)
    specs = ["ismcts:infer=2,iters=150"] + ["ismcts:infer=2,iters=80,temperature=0.5,uniform=0.3"] * (rules.players - 1)
    fast = batch.play_hands(rules, specs, 5, 0, 12).hands["total"]
    players = [make_player(s) for s in specs]
    ref = np.array([engine.play_hand(rules, players, 5, game=g).result.total for g in range(12)])
    assert np.array_equal(fast, ref)


def test_infer_2_and_its_model_are_honoured():
    r = parse_rules("ludoteka")

    def totals(spec):
        return batch.play_hands(r, [spec, "greedy"], 9, 0, 40).hands["total"]

    base = "ismcts:iters=300"
    assert not np.array_equal(totals(base + ",infer=2"), totals(base + ",infer=1"))
    assert not np.array_equal(totals(base + ",infer=2,temperature=0.25,uniform=0.01"),
                              totals(base + ",infer=2,temperature=4,uniform=0.5"))
    # with infer=1 the model is not read
    assert np.array_equal(totals(base + ",infer=1,temperature=0.25"), totals(base + ",infer=1,temperature=4"))


def test_the_model_options_are_bounded():
    for bad in ("ismcts:infer=3", "ismcts:temperature=-1", "ismcts:uniform=1.5", "ismcts:uniform=-0.1"):
        with pytest.raises(Exception):
            parse_strategy(bad)
