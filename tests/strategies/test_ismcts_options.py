"""ismcts' search options (issue 14): the old search stays reachable draw for draw, and the new ones work.

tests/data/ismcts_baseline.json holds the decisions (and the PLAY stream state after each) of ismcts as
main played it before the options existed, recorded by tests/data/make_ismcts_baseline.py. Spelled with
the old settings (OLD below), today's ismcts must make every one of them again.
"""

import json
import sys

import numpy as np
import pytest
from conftest import assert_reference_replays_core
from helpers import DATA

from escoba_sim import batch
from escoba_sim.batch import make_player
from escoba_sim.game.cards import mask_of
from escoba_sim.game.engine import play_hand
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import GreedyStrategy, StrategyError, parse_strategy

sys.path.insert(0, str(DATA))
from make_ismcts_baseline import record_hand  # noqa: E402  (the generator's recording: both sides play alike)

pytestmark = pytest.mark.core("ismcts")

# the search as it was (the default until it became iters=950,infer=1): greedy rollouts, no exact solving,
# greedy's blows, uniform deals
OLD = "c=4,rollout=0,exact=0,blows=0,leaf=-1,exploit=0,infer=0,stop=0,prior=0"
BASELINE = json.loads((DATA / "ismcts_baseline.json").read_text())


def old(spec: str | None) -> str:
    """The fixture's seat spec (as main spelled it: a bare `ismcts` was 1000 iterations) with the old
    settings spelled out; None = greedy."""
    if spec is None:
        return "greedy"
    if "iters=" not in spec:
        spec += ("," if ":" in spec else ":") + "iters=1000"
    return spec + "," + OLD


@pytest.mark.parametrize("case", BASELINE["hands"], ids=lambda c: f"{c['rules']}-{c['hand']}")
def test_old_settings_make_mains_decisions_draw_for_draw(case):
    log, total = record_hand(case["rules"], [old(s) for s in case["specs"]], case["seed"], case["hand"])
    assert log == case["decisions"]
    assert total == case["total"]


@pytest.mark.parametrize("case", BASELINE["batches"], ids=lambda c: c["rules"])
def test_old_settings_play_mains_hands_in_the_core_loop(case):
    got = batch.play_hands(parse_rules(case["rules"]), [old(s) if s.startswith("ismcts") else s
                                                        for s in case["specs"]], case["seed"], 0, case["hands"]).hands
    assert sorted(got) == sorted(case["columns"])
    for k, v in case["columns"].items():
        np.testing.assert_array_equal(got[k], np.array(v), err_msg=k)


def test_the_evaluator_which_shares_the_iteration_gives_mains_values():
    # escoba_evaluate.h grows its trees with esc_ismcts_iterate (the search's own iteration, greedy
    # rollouts and blows): its sampled margins must be main's, draw for draw (the generator's own code
    # computes them again here)
    import importlib.util

    path = DATA / "make_ismcts_baseline.py"
    spec = importlib.util.spec_from_file_location("make_ismcts_baseline", path)
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    assert maker.evaluations() == BASELINE["evaluations"]


def test_the_baseline_has_blows_and_several_seat_counts():
    # the fixture exercises what the options change: blow decisions (soplar) and more than two seats
    assert any(d[0] == "blow" for c in BASELINE["hands"] for d in c["decisions"])
    assert {len(c["specs"]) for c in BASELINE["hands"]} >= {2, 3, 4}


# ---------------------------------------------------------------- the options themselves

def test_defaults_and_ranges_parse():
    model = ",temperature=0.75,uniform=0.03"  # infer=2's, not read by these searches
    assert parse_strategy("ismcts:iters=950,c=4,rollout=0,exact=0,infer=1,stop=0,prior=0").canonical == \
        "ismcts:iters=950," + OLD.replace("infer=0", "infer=1") + model  # issue 14's default
    assert parse_strategy("ismcts:iters=1000,c=4,rollout=0,exact=0,infer=0,stop=0,prior=0").canonical == \
        "ismcts:iters=1000," + OLD + model  # the old search
    assert parse_strategy("ismcts:exact=0,blows=1").short == "ismcts:exact=0,blows=1"
    for good in ("ismcts:rollout=1", "ismcts:exact=12", "ismcts:leaf=40", "ismcts:leaf=-1,exact=0"):
        parse_strategy(good)
    for bad in ("ismcts:rollout=2", "ismcts:rollout=-1", "ismcts:exact=13", "ismcts:exact=2.5", "ismcts:blows=2",
                "ismcts:leaf=-2", "ismcts:leaf=41"):
        with pytest.raises(StrategyError):
            parse_strategy(bad)


def test_strategies_lists_the_options_and_the_old_spelling(cli):
    out = cli("strategies")
    assert out.exit_code == 0
    # the entry, its lines wrapped at 80 columns (issue 38) read as one text
    text = " ".join(out.output[out.output.index("ismcts"):out.output.index("oracle")].split())
    for piece in ("iters=2000", "c=8", "rollout=1", "exact=6", "blows=0", "leaf=-1", "exploit=0", "infer=2",
                  "stop=0.25", "prior=16", "temperature=0.75", "uniform=0.03", "settled", "searched blows",
                  "uniform deals", "ismcts:infer=1 is the earlier default",
                  "ismcts:iters=950,c=4,rollout=0,exact=0,infer=1,stop=0,prior=0"):
        assert piece in text, piece


class Checked:
    """ismcts (compiled decisions) that checks each decision made with an empty stock (two players) against
    the reference endgame's exact choice, and that such decisions draw nothing from the PLAY stream."""

    def __init__(self, spec):
        from escoba_sim.strategies import EndgameStrategy

        self.inner, self.exact = make_player(spec), EndgameStrategy(max_cards=6)
        self.checked = self.searched = 0

    def choose_move(self, st, moves, rng):
        before = rng.state
        m = self.inner.choose_move(st, moves, rng)
        if not st.stock:
            assert rng.state == before
            assert m == self.exact.choose_move(st, moves, rng)
            self.checked += 1
        self.searched += rng.state != before
        return m

    def choose_blow(self, st, blows, rng):
        before = rng.state
        m = self.inner.choose_blow(st, blows, rng)
        if not st.stock:
            assert rng.state == before and m == self.exact.choose_blow(st, blows, rng)
            self.checked += 1
        self.searched += rng.state != before
        return m


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "cardgames", "robo"])
def test_exact_plays_the_endgames_move_once_the_stock_is_empty_and_the_core_agrees(rules):
    r = parse_rules(rules)
    spec = "ismcts:iters=60,exact=6"
    players = [Checked(spec), Checked(spec)]
    assert_reference_replays_core(r, spec, 4, 6, players)
    assert sum(p.checked for p in players) > 6 and sum(p.searched for p in players) > 6


@pytest.mark.parametrize("rules", ["tradicional", "tradicional(players=3)", "tradicional(players=4,teams=true)",
                                   "ludoteka"])
@pytest.mark.parametrize("options", ["blows=1", "rollout=1", "leaf=40", "rollout=1,leaf=12,blows=1"])
def test_options_play_legal_moves_and_the_core_hand_is_the_reference_replay(rules, options):
    # every decision (searched blows included) is checked legal by the reference engine, and the compiled
    # hand loop plays the very same hands (same decisions, same PLAY stream)
    assert_reference_replays_core(parse_rules(rules), f"ismcts:iters=40,exact=6,{options}", 12, 4)


def _totals(rules, spec, n=30):
    return batch.play_hands(parse_rules(rules), [spec, "greedy"], 6, 0, n).hands["cards_taken"]


def test_each_option_changes_the_play():
    base = "ismcts:iters=100,exact=0,blows=0"
    assert not np.array_equal(_totals("ludoteka", base), _totals("ludoteka", base + ",rollout=0"))
    assert not np.array_equal(_totals("ludoteka", base), _totals("ludoteka", base + ",prior=0"))
    exact = "ismcts:iters=100,exact=6"
    assert not np.array_equal(_totals("ludoteka", base), _totals("ludoteka", exact))
    assert not np.array_equal(_totals("ludoteka", exact), _totals("ludoteka", exact + ",leaf=40"))
    assert not np.array_equal(_totals("tradicional", base), _totals("tradicional", "ismcts:iters=100,exact=0,blows=1"))


def test_searched_blows_draw_from_the_play_stream_and_greedys_rule_does_not():
    from escoba_sim import _core

    r = parse_rules("tradicional")
    # seat 0 laid the 5 of oros (card 4) on the 10, 6 and 4 of copas (19, 15, 13): seat 1 may blow it
    # with the 10 or with the 6 and the 4, or not at all
    table = (1 << 4) | (1 << 19) | (1 << 15) | (1 << 13)
    hands = [(1 << 20) | (1 << 21), (1 << 30) | (1 << 31) | (1 << 32)]
    view = (_core.Position(hands=hands, table=table, piles=[0, 0], escobas=[0, 0], stock_left=31, dealer=0,
                           last_capturer=-1), 1, 4, 99)
    take, state = _core.decide_blow(r, "ismcts:blows=0", *view)
    assert (take, state) == ((1 << 19) | 0, 99) or (take, state) == ((1 << 15) | (1 << 13), 99)
    take, state = _core.decide_blow(r, "ismcts:iters=200,blows=1", *view)
    assert state != 99 and take in (0, 1 << 19, (1 << 15) | (1 << 13))


class LastDealJudge:
    """Plays the old search; at each of its decisions with an empty stock (two players) it also asks
    `exact=6` (on the old settings) and values both moves by exact minimax (the evaluator's exact method)."""

    def __init__(self):
        from escoba_sim import _core

        # a small budget, so the earlier search does miss best moves sometimes
        self.core, self.old = _core, make_player("ismcts:iters=10," + OLD)
        self.new = make_player("ismcts:iters=10," + OLD.replace("exact=0", "exact=6"))
        self.pairs = []

    def choose_move(self, st, moves, rng):
        if not st.stock and len(moves) > 1:
            state = rng.state
            new = self.new.choose_move(st, moves, rng)
            rng.state = state
            old = self.old.choose_move(st, moves, rng)
            seat = st.to_play
            values = self.core.evaluate_exact(st.rules, seat, self.core.Position(
                hands=[mask_of(h) for h in st.hands], table=mask_of(st.table), piles=list(st.piles),
                escobas=list(st.escobas), last_capturer=st.last_capturer, pending=-1),
                [(m.card, mask_of(m.take)) for m in (new, old)], False)
            self.pairs.append(values)
            return old
        return self.old.choose_move(st, moves, rng)

    def choose_blow(self, st, blows, rng):
        return self.old.choose_blow(st, blows, rng)


def test_exact_never_plays_a_worse_last_deal_move_than_the_search_did():
    # with an empty stock exact=6's move has the best minimax value: the search's move is never better,
    # and (at 10 iterations) sometimes worse
    r = parse_rules("ludoteka")
    judge = LastDealJudge()
    for g in range(40):
        play_hand(r, [judge, GreedyStrategy()] if g % 2 else [GreedyStrategy(), judge], 8, g, 0, dealer=g % 2)
    assert len(judge.pairs) > 40
    assert all(new >= old for new, old in judge.pairs)
    assert any(new > old for new, old in judge.pairs)


@pytest.mark.slow
def test_exact_endgame_is_ahead_of_the_old_default_in_self_play_on_duplicate_deals():
    # the study's own comparison (analysis/search_strength.py, seed 20261129): `exact=6` against the old
    # default (spelled in full, as the study does) on 2000 duplicate deals. The gain is small (few deals
    # differ: only last-deal decisions change), so the claim checked is the study's: the 95% interval lies
    # above zero. (Against greedy it is behind it, docs/ismcts.md, which is why it did not become the default.)
    from escoba_sim.tune import interval, margins

    old_default = "ismcts:iters=1000," + OLD
    m = margins(parse_rules("ludoteka"), old_default.replace("exact=0", "exact=6"), old_default, 20261129, 0, 2000)
    mean, lo, hi = interval(m)
    assert lo > 0, (mean, lo, hi)
    assert 0 < np.count_nonzero(m) < 100  # only the last deal's play changes


class ExploitJudge:
    """`exact=6,exploit=1` (compiled decisions); at each of its decisions with an empty stock it also asks the
    reference endgame's first-best move and values both by exact minimax (the evaluator's exact method)."""

    def __init__(self, spec):
        from escoba_sim import _core
        from escoba_sim.strategies import EndgameStrategy

        self.core, self.inner, self.exact = _core, make_player(spec), EndgameStrategy(max_cards=6)
        self.pairs, self.draws = [], []

    def _value(self, st, options, pending, blow):
        return self.core.evaluate_exact(st.rules, st.to_play, self.core.Position(
            hands=[mask_of(h) for h in st.hands], table=mask_of(st.table), piles=list(st.piles),
            escobas=list(st.escobas), last_capturer=st.last_capturer, pending=pending), options, blow)

    def choose_move(self, st, moves, rng):
        before = rng.state
        m = self.inner.choose_move(st, moves, rng)
        if not st.stock and len(moves) > 1:
            ref = self.exact.choose_move(st, moves, rng)
            values = self._value(st, [(x.card, mask_of(x.take)) for x in moves], -1, False)
            chosen, best = values[moves.index(m)], values[moves.index(ref)]
            self.pairs.append((chosen, best, m != ref))
            self.draws.append((values.count(max(values)) > 1, rng.state != before))
        return m

    def choose_blow(self, st, blows, rng):
        before = rng.state
        m = self.inner.choose_blow(st, blows, rng)
        if not st.stock:
            ref = self.exact.choose_blow(st, blows, rng)
            opts = [(blows[0].card, 0)] + [(b.card, mask_of(b.take)) for b in blows]
            values = self._value(st, opts, blows[0].card, True)
            pick = lambda x: 0 if x is None else 1 + blows.index(x)  # noqa: E731
            self.pairs.append((values[pick(m)], values[pick(ref)], m != ref))
            self.draws.append((values.count(max(values)) > 1, rng.state != before))
        return m


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional"])
def test_exploit_plays_only_minimax_best_moves_and_draws_only_when_it_searches(rules):
    # every last-deal decision of exploit=1 has the reference endgame's value (never a worse one), it
    # differs from the endgame's first-best move in some of them (it chooses among the ties), and it draws
    # from the PLAY stream exactly when two or more options are optimal; the core loop plays the same hands
    r = parse_rules(rules)
    spec = "ismcts:iters=60,exact=6,exploit=1"
    judges = [ExploitJudge(spec), ExploitJudge(spec)]
    assert_reference_replays_core(r, spec, 5, 40, judges)
    pairs = [p for j in judges for p in j.pairs]
    draws = [d for j in judges for d in j.draws]
    assert len(pairs) > 40
    assert all(chosen == best for chosen, best, _ in pairs)
    assert any(differs for _, _, differs in pairs)
    assert all(tied == drew for tied, drew in draws)


def test_exploit_changes_the_play_and_is_nothing_without_exact():
    exact = "ismcts:iters=100,exact=6"
    assert not np.array_equal(_totals("ludoteka", exact), _totals("ludoteka", exact + ",exploit=1"))
    base = "ismcts:iters=100,exact=0"
    assert np.array_equal(_totals("ludoteka", base), _totals("ludoteka", base + ",exploit=1"))
