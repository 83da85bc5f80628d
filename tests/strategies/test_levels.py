"""The ladder of levels: the spec, the C twin against the reference hand by hand, the shipped ratings and
the performance rating (an exact case solved here independently, coverage by simulation, and a strategy
played through ``play``'s table against the levels landing on its measured rating)."""

from __future__ import annotations

import math
import random

import pytest
from helpers import compare_games, compare_hands, play_games_at_table, rulesets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escoba_sim import batch
from escoba_sim.game.rng import SplitMix64
from escoba_sim.game.rules import PRESETS, parse_rules
from escoba_sim.strategies import StrategyError, parse_strategy
from escoba_sim.strategies.levels import (
    ANCHOR,
    LEVELS,
    RatingsFileError,
    check_ratings,
    level_label,
    performance_rating,
    rating_of,
    ratings,
    strategy_label,
)

WITH_REFERENCE = [lv.spec for lv in LEVELS if not parse_strategy(lv.spec).core_only]
PAIRINGS = [("level:1", "greedy"), ("random", "level:2"), ("level:4", "level:1"), ("level:3", "heuristic"),
            ("level:2", "level:2")]


def test_the_ladder_has_reference_rungs_and_a_core_only_top():
    assert len(WITH_REFERENCE) >= 4 and parse_strategy(LEVELS[-1].spec).core_only


@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_match_reference(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=20261204, first=0, count=400)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_games_and_more_players_match_reference(preset):
    compare_games(PRESETS[preset], ("level:1", "level:4"), seed=3, first=0, count=4)
    rules = PRESETS[preset].replace(players=4, teams=True)
    compare_hands(rules, ["level:1", "level:2", "level:4", "random"], seed=8, first=0, count=100)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**64 - 1), data=st.data())
def test_random_rulesets_match_reference(rules, seed, data):
    lineup = [data.draw(st.sampled_from(WITH_REFERENCE)) for _ in range(rules.players)]
    compare_hands(rules, lineup, seed=seed, first=0, count=20)


def test_a_level_plays_its_share_of_random_moves():
    # level 1 is greedy with a random share: it must differ from greedy on some moves and not on all
    rules = PRESETS["ludoteka"]
    lv, greedy = batch.make_player("level:1"), batch.make_player("greedy")
    from escoba_sim.game import engine
    from escoba_sim.game.rng import shuffled_deck

    same = differ = 0
    for hand in range(30):
        st_ = engine.new_hand(rules, shuffled_deck(1, 0, hand), hand % 2)
        rng = SplitMix64(hand)
        while not st_.over:
            moves = engine.legal_moves(st_)
            mine = lv.choose_move(st_, moves, rng)
            ref = greedy.choose_move(st_, moves, rng)
            if len(moves) > 1:
                same, differ = same + (mine == ref), differ + (mine != ref)
            engine.apply_move(st_, mine)
    share = LEVELS[0].random_share / 1000
    assert differ > 0 and same > 0
    assert differ / (same + differ) < share + 0.1


def test_the_core_only_rung_is_refused_by_the_reference_engine_clearly():
    with pytest.raises(StrategyError, match="compiled core"):
        parse_strategy(LEVELS[-1].spec).make()


@pytest.mark.parametrize("text,canonical", [("level:3", "level:n=3"), ("level:n=3", "level:n=3"),
                                            (" level:n=1 ", "level:n=1"), ("level:6", "level:n=6")])
def test_level_specs_parse(text, canonical):
    spec = parse_strategy(text)
    assert spec.canonical == canonical and spec.short == canonical


@pytest.mark.parametrize("text,says", [("level", "give `n`"), ("level:0", "between 1 and"), ("level:99", "between 1 and"),
                                      ("level:2.5", "whole number"), ("level:n=x", "number"), ("level:m=2", "unknown"),
                                      ("level:1,2", "key=value"), ("level:tuned", "tuned")])
def test_bad_levels_are_refused(text, says):
    with pytest.raises(StrategyError, match=says):
        parse_strategy(text)


def test_the_shipped_ratings_are_checked_and_complete():
    table = ratings()
    assert "ludoteka" in table
    lud = table["ludoteka"]
    assert lud.ratings[ANCHOR].estimate == 0 and "analysis/levels.py" in lud.command
    est = [lud.ratings[lv.spec].estimate for lv in LEVELS]
    assert est == sorted(est), "the ladder climbs"
    for lv in LEVELS:
        r = rating_of(lv.spec)
        assert r is not None and r.lo <= r.estimate <= r.hi
    assert rating_of("greedy") == rating_of("level:3") and rating_of("heuristic") == rating_of("level:4")
    assert rating_of("maxoros") is None and rating_of("level:2", "robo") is None
    assert rating_of("no such strategy") is None
    assert level_label(LEVELS[2]).startswith("level 3 (≈")
    assert strategy_label("level:3", parse_rules("robo")) == "level 3"
    assert strategy_label("greedy") == "greedy"


def _good():
    rows = {ANCHOR: {"estimate": 0.0, "lo": 0.0, "hi": 0.0}}
    rows |= {lv.spec: {"estimate": 100.0 * lv.n, "lo": 100.0 * lv.n - 10, "hi": 100.0 * lv.n + 10} for lv in LEVELS}
    return {"rules": {"ludoteka": {"command": "python analysis/levels.py", "ratings": rows}}}


def test_a_bad_ratings_file_is_refused():
    check_ratings(_good())
    for spoil in [lambda d: d.pop("rules"),
                  lambda d: d["rules"]["ludoteka"]["ratings"].pop("level:n=2"),
                  lambda d: d["rules"]["ludoteka"]["ratings"][ANCHOR].update(estimate=5.0, hi=6.0),
                  lambda d: d["rules"]["ludoteka"]["ratings"]["level:n=1"].update(lo=500.0),
                  lambda d: d["rules"]["ludoteka"]["ratings"]["level:n=1"].update(hi=math.nan),
                  lambda d: d["rules"]["ludoteka"]["ratings"]["level:n=1"].update(hi="high"),
                  lambda d: d["rules"]["ludoteka"]["ratings"].update({"level:3": {"estimate": 1, "lo": 0, "hi": 2}}),
                  lambda d: d["rules"]["ludoteka"]["ratings"].update({"x.py:C": {"estimate": 1, "lo": 0, "hi": 2}}),
                  lambda d: d["rules"].update({"nonsense": d["rules"]["ludoteka"]}),
                  lambda d: d["rules"]["ludoteka"].pop("command")]:
        data = _good()
        spoil(data)
        with pytest.raises(RatingsFileError):
            check_ratings(data)


# ---------------------------------------------------------------- the performance rating, solved independently

def _ll(r, games):
    # the Elo model written out: P(win) = 1 / (1 + 10^((q - r) / 400))
    return sum(s * math.log(1 / (1 + 10 ** ((q - r) / 400))) + (1 - s) * math.log(1 - 1 / (1 + 10 ** ((q - r) / 400)))
               for q, s in games)


def _bisect(f, lo, hi):
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f(lo) > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _slope(r, games, h=1e-4):
    return (_ll(r + h, games) - _ll(r - h, games)) / (2 * h)


def test_an_exact_small_case():
    games = [(0, 1), (100, 0), (200, 1), (300, 0.5), (-100, 1)]
    best = _bisect(lambda r: _slope(r, games), -2000, 2000)
    top = _ll(best, games)
    lo = _bisect(lambda r: _ll(r, games) - (top - 1.920729), -3000, best)
    hi = _bisect(lambda r: _ll(r, games) - (top - 1.920729), best, 3000)
    got = performance_rating(games)
    assert got.estimate == pytest.approx(best, abs=0.01)
    assert got.lo == pytest.approx(lo, abs=0.01) and got.hi == pytest.approx(hi, abs=0.01)


def test_all_wins_and_all_losses_give_a_one_sided_bound():
    games = [(0, 1), (200, 1), (400, 1)]
    got = performance_rating(games)
    assert got.estimate == math.inf and got.hi is None
    # the log-likelihood tends to 0 as r grows: the bound is where it is 1.35 below (chi-square 2.71 / 2)
    assert _ll(got.lo, games) == pytest.approx(-2.705543 / 2, abs=1e-6)
    lost = performance_rating([(q, 0) for q, _ in games])
    assert lost.estimate == -math.inf and lost.lo is None and _ll(lost.hi, [(q, 0) for q, _ in games]) == \
        pytest.approx(-2.705543 / 2, abs=1e-6)


@pytest.mark.parametrize("games", [[], [(0, 2)], [(0, -0.5)], [(math.nan, 1)]])
def test_bad_games_are_refused(games):
    with pytest.raises(ValueError):
        performance_rating(games)


def test_the_interval_covers_the_true_rating_95_percent_of_the_time():
    rnd = random.Random(20261204)
    true, runs, covered = 350.0, 500, 0
    opponents = [0, 150, 300, 450, 600]
    for _ in range(runs):
        games = []
        for q in opponents * 12:  # 60 games
            p = 1 / (1 + 10 ** ((q - true) / 400))
            games.append((q, 1 if rnd.random() < p else 0))
        r = performance_rating(games)
        covered += (r.lo is None or r.lo <= true) and (r.hi is None or true <= r.hi)
    se = math.sqrt(0.95 * 0.05 / runs)
    assert abs(covered / runs - 0.95) < 3 * se


# ---------------------------------------------------------------- done means: a strategy at the table

def _play_games(opponent: str, person: str, games: int, seed: int, tmp_path) -> list[float]:
    """``person`` (a spec) plays seat 0 through play's own Table against ``opponent``: 1 a game won, 0 lost."""
    return [1.0 if winner == 0 else 0.0
            for _scores, winner in play_games_at_table(PRESETS["ludoteka"], opponent, person, games, seed, tmp_path)]


@pytest.mark.slow
@pytest.mark.core("the ismcts rung, played through the core's decisions")
@pytest.mark.parametrize("person", ["heuristic", "level:2"])
def test_a_strategy_at_the_table_lands_on_its_measured_rating(person, tmp_path):
    # 300 games per level: the performance rating's interval is about +-20, as wide as the measured rating's
    # own; the two are independent estimates, so the check allows both halves (50 games per level, +-45,
    # fell 2.3 standard errors low once and 300 landed on 600 for heuristic's 577 on other deals)
    games = []
    for k, lv in enumerate(LEVELS):
        q = rating_of(lv.spec).estimate
        games += [(q, s) for s in _play_games(lv.spec, person, 300, 7000 + k, tmp_path)]
    got, measured = performance_rating(games), rating_of(person)
    slack = (measured.hi - measured.lo) / 2
    assert got.lo - slack <= measured.estimate <= got.hi + slack, (got, measured)
