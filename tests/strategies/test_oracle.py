"""oracle (csrc/escoba_oracle.h): it sees every card, is labelled a cheat, plays legal moves, and beats ismcts.

Like ismcts it runs only in the compiled core; its hands are replayed in the
reference engine with the compiled decisions (``batch.make_player``), which
hands it the stock's order: the replay must equal the core's own hand, which
checks both that every move is legal and that the oracle's view of the stock is
the true one.
"""

import json

import numpy as np
import pytest

from escoba_sim import batch
from escoba_sim.batch import make_player
from escoba_sim.game import columns
from escoba_sim.game.engine import play_hand
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import GreedyStrategy, StrategyError, parse_strategy

pytestmark = pytest.mark.core("oracle")

RULES = ["ludoteka", "tradicional", "cardgames", "robo", "ludoteka(players=3)", "ludoteka(players=4,teams=true)"]


def _duplicate_margin(rules, spec, opponent, seed, n):
    r = parse_rules(rules)
    a = batch.play_hands(r, [spec, opponent], seed, 0, n).hands["total"].astype(float)
    b = batch.play_hands(r, [opponent, spec], seed, 0, n).hands["total"].astype(float)
    return ((a[:, 0] - a[:, 1]) + (b[:, 1] - b[:, 0])) / 2


def test_spec_and_cheating_label(cli):
    assert parse_strategy("oracle").canonical == "oracle:exact=18,iters=1000,c=4,sees=0,rollout=0,prior=0,stop=0"
    assert parse_strategy("oracle").cheats and not parse_strategy("ismcts").cheats
    with pytest.raises(StrategyError):
        parse_strategy("oracle:exact=41")
    out = cli("strategies")
    # oracle's description, its lines wrapped at 80 columns (issue 38), up to its first option
    entry = " ".join(out.output[out.output.index("\noracle ") + 1:].split("exact=")[0].split())
    assert entry.startswith("oracle CHEATS") and "cheats]" in entry, entry
    data = json.loads(cli("strategies", "--json").output)
    assert data["oracle"]["cheats"] is True and data["greedy"]["cheats"] is False


def test_the_reference_engine_refuses_the_oracle_clearly():
    with pytest.raises(StrategyError, match="only in the compiled core"):
        parse_strategy("oracle").make()


@pytest.mark.parametrize("rules", RULES)
def test_moves_are_legal_and_the_core_hand_equals_the_reference_replay(rules):
    r = parse_rules(rules)
    spec = "oracle:exact=10,iters=20"
    specs = [spec if s % 2 == 0 else "greedy" for s in range(r.players)]
    oracle = make_player(spec)
    players = [oracle if s % 2 == 0 else GreedyStrategy() for s in range(r.players)]
    got = batch.play_hands(r, specs, 13, 0, 4)
    for i in range(4):
        st = play_hand(r, players, 13, i, 0, dealer=i % r.players)
        for k in columns.SIDE_COLUMNS:
            assert list(got.hands[k][i]) == getattr(st.result, k), (rules, i, k)


def test_the_stock_must_have_its_size():
    from escoba_sim import _core

    r = parse_rules("ludoteka")
    with pytest.raises(ValueError, match="the stock has 30 cards, 2 given"):
        _core.decide_move(r, parse_strategy("oracle"), _core.Position(hands=[0b111, 0b111000], table=1 << 20,
                          piles=[0, 0], escobas=[0, 0], stock_left=30, dealer=0, last_capturer=-1, stock=[1, 2]), 1, 5)


def test_the_exact_threshold_changes_the_play():
    # exact=0 never solves (tree search only); exact=12 solves the last two deals exactly
    a = batch.play_hands(parse_rules("ludoteka"), ["oracle:exact=0,iters=30", "greedy"], 3, 0, 30).hands["total"]
    b = batch.play_hands(parse_rules("ludoteka"), ["oracle:exact=12,iters=30", "greedy"], 3, 0, 30).hands["total"]
    assert not np.array_equal(a, b)


def test_the_oracle_beats_ismcts():
    d = _duplicate_margin("ludoteka", "oracle", "ismcts", 5, 40)
    assert d.mean() - 3 * d.std(ddof=1) / np.sqrt(len(d)) > 0.5, d.mean()


class AgainstTheEndgame:
    """The oracle (compiled decisions) checked, once the stock is empty (two players: nothing is hidden
    then), against the reference endgame's exact move and blow: the oracle's exact phase searches blows
    as endgame does, so both take the first best option."""

    def __init__(self, spec):
        from escoba_sim.strategies import EndgameStrategy

        self.inner, self.exact, self.blows = make_player(spec), EndgameStrategy(max_cards=6), 0

    def choose_move(self, st, moves, rng):
        m = self.inner.choose_move(st, moves, rng)
        if not st.stock:
            assert m == self.exact.choose_move(st, moves, rng)
        return m

    def choose_blow(self, st, blows, rng):
        m = self.inner.choose_blow(st, blows, rng)
        if not st.stock:
            assert m == self.exact.choose_blow(st, blows, rng)
            self.blows += 1
        return m


def test_the_exact_phase_searches_blows_as_the_endgame_does():
    r = parse_rules("tradicional")
    # random lays cards that could capture, so the oracle gets blows to decide
    from escoba_sim.strategies import RandomStrategy

    players = [AgainstTheEndgame("oracle:exact=6,iters=20"), RandomStrategy()]
    got = batch.play_hands(r, ["oracle:exact=6,iters=20", "random"], 21, 0, 40).hands
    for i in range(40):
        st = play_hand(r, players, 21, i, 0, dealer=i % r.players)
        assert list(got["total"][i]) == st.result.total, i
    assert players[0].blows > 0  # the exact phase met blow decisions


def test_sees_1_reads_every_hand_but_not_the_stock_order():
    # oracle:sees=1 (what reading the other hands alone is worth, analysis/stronger_search.py): the same
    # position with the stock in another order gives the same decision; with sees=0 the order matters
    import random

    from escoba_sim import _core
    from escoba_sim.game import engine
    from escoba_sim.game.cards import mask_of
    from escoba_sim.game.rng import shuffled_deck

    r = parse_rules("ludoteka")
    differs = 0
    for seed in range(12):
        st = engine.new_hand(r, shuffled_deck(seed, 0, 0), 0)
        def view(stock):
            return (_core.Position(hands=[mask_of(h) for h in st.hands], table=mask_of(st.table), piles=list(st.piles),
                                   escobas=list(st.escobas), stock_left=len(st.stock), dealer=st.dealer,
                                   last_capturer=st.last_capturer, stock=stock), st.to_play, 777)
        stock = list(st.stock)
        other = stock[:]
        random.Random(seed).shuffle(other)
        for spec in ("oracle:exact=30,iters=300,sees=1", "oracle:exact=0,iters=300,sees=1"):
            assert _core.decide_move(r, spec, *view(stock)) == _core.decide_move(r, spec, *view(other))
        differs += _core.decide_move(r, "oracle:exact=0,iters=300", *view(stock)) != \
            _core.decide_move(r, "oracle:exact=0,iters=300", *view(other))
    assert differs > 0


def test_the_tree_search_takes_ismcts_rollout_prior_and_stop():
    # oracle's tree search with ismcts' options prices what seeing the other hand is worth to ismcts' own search
    # (analysis/hand_reading.py); each option is read
    r = parse_rules("ludoteka")

    def totals(spec):
        return batch.play_hands(r, [spec, "greedy"], 4, 0, 30).hands["total"]

    base = "oracle:exact=0,iters=200,sees=1"
    plain = totals(base)
    for option in ("rollout=1", "prior=16", "stop=0.25"):
        assert not np.array_equal(totals(f"{base},{option}"), plain), option
    assert np.array_equal(totals(f"{base},rollout=0,prior=0,stop=0"), plain)
