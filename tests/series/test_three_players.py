"""tournament and skill under 3 players without teams: each pair (A, B) plays (A, B, B) and (B, A, A) on the same
deals, read as one two-sided pair (series.lineups); equal strategies score exactly 1/2, the ratings are the
tournament's, resume and report work as for two players."""

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import skill_metric

from escoba_sim.cli import main
from escoba_sim.game.columns import SIDE_COLUMNS
from escoba_sim.output.report import write_report
from escoba_sim.runs.aggregates import DealLayout
from escoba_sim.series import lineups
from escoba_sim.series import skill as sk
from escoba_sim.series.resume import open_folder, resume_folder
from escoba_sim.series.tables import read_tables
from escoba_sim.series.tournament import TournamentError, tournament

RULES = "tradicional(players=3)"
LADDER = ["random", "greedy", "maxoros"]


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill3") / "s"
    return out, sk.skill(sk.skill_variants([RULES], []), LADDER, 120, out, seed=5)


def test_two_sided_puts_every_seat_of_a_strategy_on_its_side():
    """Synthetic per-deal vectors of (A, B, B) and (B, A, A): A's side holds entrant 0 of the first and
    entrants 1 and 2 of the second, hands and games add up, the middle seat's position is in no column."""
    three, two = DealLayout(3), DealLayout(2)
    rng = np.random.default_rng(3)
    first, second = (rng.integers(0, 9, size=(5, three.size)) for _ in range(2))
    v = lineups.two_sided([first, second])
    assert v.shape == (5, two.size)
    assert np.array_equal(v[:, two.games], first[:, three.games] + second[:, three.games])
    assert np.array_equal(v[:, two.won(0)], first[:, three.won(0)] + second[:, three.won(1)] + second[:, three.won(2)])
    assert np.array_equal(v[:, two.won(1)], first[:, three.won(1)] + first[:, three.won(2)] + second[:, three.won(0)])
    k = SIDE_COLUMNS.index("escobas")
    assert np.array_equal(v[:, two.points(1, k)], first[:, three.points(1, k)] + first[:, three.points(2, k)]
                          + second[:, three.points(0, k)])
    assert np.array_equal(v[:, two.pos_hands(0, 1)], first[:, three.pos_hands(0, 1)] + second[:, three.pos_hands(1, 1)]
                          + second[:, three.pos_hands(2, 1)])
    assert lineups.two_sided([first]) is first  # a two-sided run is read as it is


def test_pairs_play_both_lineups_on_the_same_deals(ladder):
    out, summary = ladder
    m = json.loads((out / "manifest.json").read_text())
    assert [p["lineup"] for p in m["pairs"][:2]] == [["random", "greedy", "greedy"], ["greedy", "random", "random"]]
    specs = [json.loads((out / p["run"] / "manifest.json").read_text())["spec"] for p in m["pairs"]]
    assert len(specs) == 2 * (3 + len(summary["scorecard"]["runs"])) and {s["seed"] for s in specs} == {m["seed"]} and {s["n"] for s in specs} == {60}
    assert summary["games_per_pair"] == 120 and "three_players" in summary
    pairs = read_tables(out)["skill_pairs"]
    assert set(pairs["games"].to_list()) == {120}  # 60 games of each lineup: -n counts the pair's games


def test_one_strategy_against_itself_shows_no_skill_under_3_players(tmp_path):
    """(random, random, random) twice: A's score against B is exactly 1/2 on every deal (both lineups are the
    same games), so the skill share is 0 and every interval holds 0."""
    s = sk.skill(sk.skill_variants([RULES], []), ["random", "random"], 90, tmp_path / "s", seed=2)
    share = skill_metric(s, RULES, "skill_share")
    assert share["estimate"] == 0 and share["lo"] <= 0 <= share["hi"]
    for r in s["ratings"]:
        assert r["lo"] <= 0 <= r["hi"]
    spread = skill_metric(s, RULES, "rating_spread")
    assert spread["lo"] <= 0 <= spread["hi"]
    (step,) = s["steps"]
    assert step["score"] == 0.5 and step["games_to_win"] is None


def test_a_3_player_ladder_ranks_greedy_above_random(ladder):
    _, summary = ladder
    r = {x["label"]: x for x in summary["ratings"]}
    assert r["greedy"]["lo"] > r["random"]["hi"] and r["maxoros"]["lo"] > r["random"]["hi"]
    share = skill_metric(summary, RULES, "skill_share")
    assert 0 < share["lo"] < share["estimate"] < share["hi"] < 1
    assert skill_metric(summary, RULES, "hands_per_game")["estimate"] > 1
    seat = skill_metric(summary, RULES, "seat_advantage")  # mano minus dealer: defined for 3 players too
    assert seat["lo"] < seat["estimate"] < seat["hi"]
    assert "middle seat" in summary["three_players"]["seat_advantage"]


def test_tournament_and_skill_give_identical_ratings_on_the_same_3_player_deals(ladder, tmp_path):
    _, summary = ladder
    t = tournament(LADDER, 120, tmp_path / "t", rules=RULES, seed=5)
    assert [(r["label"], r["estimate"], r["lo"], r["hi"]) for r in summary["ratings"]] == [
        (r["label"], r["estimate"], r["lo"], r["hi"]) for r in t["ratings"]]
    assert t["games_per_pair"] == 120 and t["three_players"] == summary["three_players"]
    pairs = read_tables(tmp_path / "t")["pairs"]
    for row in pairs.iter_rows(named=True):  # two-sided: the row's score and the column's add to 1
        back = pairs.filter((pairs["row"] == row["col"]) & (pairs["col"] == row["row"])).row(0, named=True)
        assert row["score"] + back["score"] == pytest.approx(1) and row["drawn"] == 0
    cats = read_tables(tmp_path / "t")["categories"]
    oros = {r["label"]: r["points"] for r in cats.iter_rows(named=True) if r["category"] == "oros"}
    assert oros["maxoros"] > oros["greedy"]  # per hand of one seat: at most the one oros point a hand
    assert max(oros.values()) <= 1


def test_resume_finishes_a_3_player_folder_identically_and_report_draws_it(ladder, tmp_path):
    out, want = ladder
    cut = tmp_path / "cut"
    shutil.copytree(out, cut)
    shutil.rmtree(cut / "runs" / "03")  # the second lineup of the second pair
    (cut / "summary.json").unlink()
    assert open_folder(cut).series.runs == 2 * (3 + len(want["scorecard"]["runs"]))  # the scorecard's pairs too
    labels = []
    assert resume_folder(cut, on_run=lambda k, label: labels.append(label)) == want
    assert labels[3] == f"{RULES}: random vs maxoros (maxoros, random, random)"
    page = write_report(cut)
    assert {p.name for p in page.parent.glob("*.png")} == {"skill_share.png", "skill_ladders.png"}


def test_a_3_player_tournament_resumes_and_reports(tmp_path):
    t = tournament(["greedy", "random"], 60, tmp_path / "t", rules=RULES, seed=8)
    (tmp_path / "t" / "summary.json").unlink()
    shutil.rmtree(tmp_path / "t" / "runs" / "01")
    assert open_folder(tmp_path / "t").series.runs == 2
    assert resume_folder(tmp_path / "t") == t
    page = write_report(tmp_path / "t")
    assert "crosstable.png" in {p.name for p in page.parent.glob("*.png")}


@pytest.mark.parametrize("command", [["skill", "--ladder", "random,greedy,endgame"], ["tournament", "random", "greedy"]])
def test_the_3_player_tables_fit_80_columns(tmp_path, command):
    r = CliRunner().invoke(main, [*command, "-r", RULES, "-n", "30", "--seed", "1", "-j", "1",
                                  "--out", str(tmp_path / "o")], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.split("\nresults kept in")[0].splitlines()
    assert max(len(x) for x in lines) <= 80 and any(RULES[:10] in x for x in lines)
    assert "3 players: each pair A-B plays (A, B, B) and (B, A, A)" in r.stdout  # what a score means here


def test_4_players_without_teams_are_still_refused(tmp_path):
    with pytest.raises(sk.SkillError, match="same number of players"):  # e.g. from an edited manifest
        sk.check_rulesets(sk.skill_variants([RULES], []) + sk.skill_variants(["ludoteka"], []))
    with pytest.raises(sk.SkillError, match="2 or 3 players"):
        sk.skill(sk.skill_variants(["ludoteka(players=4)"], []), LADDER, 10, tmp_path / "a")
    with pytest.raises(TournamentError, match="2 or 3 players"):
        tournament(LADDER, 10, tmp_path / "b", rules="ludoteka(players=4)")


@pytest.mark.slow
def test_3_player_skill_intervals_cover_the_large_ladder_value():
    """benchmarks/coverage.py --skill with two 3-player rulesets (its table in benchmarks/COVERAGE.md, "Three
    players"): 300 small ladders, seeds 1..300, against one 50x larger (seed 0); each coverage within 92-98%
    (about 4 binomial se of 95% at 300 runs)."""
    import importlib.util

    from helpers import REPO

    spec = importlib.util.spec_from_file_location("coverage_bench", REPO / "benchmarks" / "coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rules = ("ludoteka(players=3)", RULES)
    _, hits = mod.coverage(runs=300, scale=50,
                           measure=lambda seed, scale, work: mod.skill_quantities(seed, scale, work, rules))
    rates = {k: h / n for k, (h, n, _) in hits.items()}
    assert len(rates) == 6 and f"skill: skill_share, {RULES} - ludoteka(players=3)" in rates, rates
    assert all(0.92 <= r <= 0.98 for r in rates.values()), rates


def test_a_wide_games_to_win_interval_still_fits_80_columns(ladder):
    """A games cell wider than its 13 columns pushes the row right: ``551 [145-222k]`` (seen under 3 players)
    still fit, ``9.9k [9.9k-999k]`` took 81 columns and a count past a million (``1200k``) more."""
    from escoba_sim.output.skill_table import skill_lines

    _, summary = ladder
    for est, lo, hi in ((551, 145, 222_000), (3800, 1200, 61_000), (9900, 9900, 999_000), (1.2e6, 2e5, 3.4e7)):
        s = json.loads(json.dumps(summary))
        row = next(r for r in s["skill"] if r["metric"] == "games_to_win")
        row.update(estimate=est, lo=lo, hi=hi)
        lines = skill_lines(s, 80)
        assert max(len(x) for x in lines) <= 80, lines
