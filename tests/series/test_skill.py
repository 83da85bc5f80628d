"""skill: a ladder per ruleset on shared duplicate deals; its ratings are the tournament's, a ladder of one
strategy shows no skill, the match length agrees with simulated matches, the table fits 80 columns."""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import skill_metric

from escoba_sim.cli import main
from escoba_sim.output.report import write_report
from escoba_sim.series import skill as sk
from escoba_sim.series.compare import build_variants
from escoba_sim.series.resume import open_folder, resume_folder
from escoba_sim.series.tables import read_tables
from escoba_sim.series.tournament import tournament

REPO = Path(__file__).resolve().parents[2]
LADDER = ["random", "greedy", "maxoros"]


@pytest.fixture(scope="module")
def two_rulesets(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill") / "s"
    variants = build_variants([], ["lucky_deal=escobas,off"])
    return out, sk.skill(variants, LADDER, 150, out, seed=11)


def test_split_ladder_keeps_a_specs_own_parameters():
    assert sk.split_ladder("random, greedy,heuristic:oros=2,escoba=1,ismcts") == [
        "random", "greedy", "heuristic:oros=2,escoba=1", "ismcts"]
    assert sk.ladder_labels(["random", "random", "greedy"]) == ["random", "random#2", "greedy"]


def test_the_ratings_agree_with_a_tournament_on_the_same_deals(two_rulesets, tmp_path):
    out, summary = two_rulesets
    t = tournament(LADDER, 150, tmp_path / "t", seed=11)
    got = [r for r in summary["ratings"] if r["ruleset"] == "ludoteka"]
    assert [r["label"] for r in got] == [r["label"] for r in t["ratings"]]
    for a, b in zip(got, t["ratings"]):
        assert (a["estimate"], a["lo"], a["hi"]) == (b["estimate"], b["lo"], b["hi"])
    # the second ruleset played the very same deals: every run has the series' seed
    m = json.loads((out / "manifest.json").read_text())
    assert len([p for p in m["pairs"] if "figure" not in p]) == 2 * 3
    assert {json.loads((out / p["run"] / "manifest.json").read_text())["seed"] for p in m["pairs"]} == {m["seed"]}


def test_a_skilled_ladder_shows_skill_and_sensible_game_numbers(two_rulesets):
    _, summary = two_rulesets
    for label in ("ludoteka", "lucky_deal=off"):
        share = skill_metric(summary, label, "skill_share")
        assert 0 < share["lo"] < share["estimate"] < share["hi"] < 1
        spread = skill_metric(summary, label, "rating_spread")
        assert spread["lo"] > 0
        assert skill_metric(summary, label, "hands_per_game")["estimate"] > 1
    # no lucky deal, no lucky-deal escobas
    assert skill_metric(summary, "lucky_deal=off", "lucky_escobas")["estimate"] == 0
    steps = [s for s in summary["steps"] if s["ruleset"] == "ludoteka"]
    assert [(s["lower"], s["upper"]) for s in steps] == [("random", "greedy"), ("greedy", "maxoros")]
    rg = steps[0]
    assert rg["games_to_win"] == sk.games_needed(rg["win"], rg["loss"])
    assert rg["games_to_win_lo"] <= rg["games_to_win"] <= (rg["games_to_win_hi"] or math.inf)


def test_the_skill_share_difference_is_paired_by_deal(two_rulesets):
    """lucky_deal=off minus ludoteka: the difference of the two shares, with an interval narrower than the
    unpaired one (the same deals move both rulesets' results together)."""
    _, summary = two_rulesets
    (e,) = [x for x in summary["effects"] if x["metric"] == "skill_share"]
    a, b = skill_metric(summary, "lucky_deal=off", "skill_share"), skill_metric(summary, "ludoteka", "skill_share")
    assert e["label"] == "lucky_deal=off" and e["estimate"] == pytest.approx(a["estimate"] - b["estimate"])
    unpaired = math.hypot(a["hi"] - a["lo"], b["hi"] - b["lo"])
    assert 0 < e["hi"] - e["lo"] < 0.8 * unpaired


def _per_deal(out, ruleset: int, pairs: int) -> np.ndarray:
    """The ruleset's pairs' per-deal vectors summed (every pair on the same deals), read from the run folders."""
    from escoba_sim.runs.folder import read_manifest, read_run_deals, run_spec_of

    m = json.loads((out / "manifest.json").read_text())
    total = None
    ladder = [p for p in m["pairs"] if "figure" not in p]  # the scorecard's pairs are the ones with a figure
    for p in ladder[ruleset * pairs:(ruleset + 1) * pairs]:
        run_dir = out / p["run"]
        spec = run_spec_of(run_dir, read_manifest(run_dir))
        v = np.vstack([read_run_deals(run_dir, spec, k) for k in range(spec.n_chunks)]).astype(float)
        total = v if total is None else total + v
    return total


@pytest.mark.parametrize("metric", ["seat_advantage", "hands_per_game", "escobas", "lucky_escobas"])
def test_every_game_figure_has_a_paired_difference_recomputed_from_the_deals(two_rulesets, metric):
    """lucky_deal=off minus ludoteka for the game figures: the estimate is the difference of the two rulesets'
    figures, and its standard error the deal-as-unit delta method written here in floating point from the
    runs' per-deal vectors (the library's is exact integer arithmetic over chunk sums)."""
    from escoba_sim.runs.aggregates import DealLayout
    from escoba_sim.series.compare import metric_defs

    out, summary = two_rulesets
    (e,) = [x for x in summary["effects"] if x["metric"] == metric]
    assert e["estimate"] == pytest.approx(skill_metric(summary, "lucky_deal=off", metric)["estimate"]
                                          - skill_metric(summary, "ludoteka", metric)["estimate"], abs=1e-12)
    lay, P = DealLayout(2), 3
    assert lay.size == _per_deal(out, 0, P).shape[1]
    rules = [r for r in build_variants([], ["lucky_deal=escobas,off"])]
    g = []
    for k in (1, 0):
        a, b = (np.asarray(w, float) for w in metric_defs(rules[k].rules, ["a", "b"], sides=2)[metric])
        v = _per_deal(out, k, P)
        A, B = v @ a, v @ b
        R = A.sum() / B.sum()
        g.append((A - R * B) / B.sum() * len(v))  # each deal's linearised share of the ratio
    u = g[0] - g[1]
    se = u.std(ddof=1) / math.sqrt(len(u))
    half = 1.959963984540054 * se
    assert (e["hi"] - e["lo"]) / 2 == pytest.approx(half, rel=1e-6)
    if metric == "lucky_escobas":  # none without a lucky deal: the difference is minus ludoteka's, exactly
        assert e["estimate"] == pytest.approx(-skill_metric(summary, "ludoteka", metric)["estimate"])


def test_design_effects_print_every_figure_within_80_columns(two_rulesets):
    from escoba_sim.output.skill_table import effect_lines

    _, summary = two_rulesets
    lines = effect_lines(summary["effects"], "ludoteka", 80)
    assert max(len(line) for line in lines) <= 80
    heads = [line for line in lines if line.endswith(":") and not line.startswith("  ")]
    figures = {e["metric"] for e in summary["effects"]}  # the game figures and the scorecard's paired ones
    assert {"skill_share", "seat_advantage", "hands_per_game", "escobas", "lucky_escobas",
            "restricted_oros"} <= figures
    assert len(heads) == len(figures) and all("ludoteka" in h for h in heads)
    rows = [line for line in lines if line.startswith("  lucky_deal=off")]
    assert len(rows) == len(figures) and all("[" in r and "]" in r for r in rows)


def test_the_skill_share_is_unbiased_with_no_skill():
    """Over 200 synthetic ladders of equal players the mean estimate is 0 within 4 standard errors of the
    mean; the plug-in mean(y)^2, biased by its own variance, sits about ten of them above."""
    rng = np.random.default_rng(11)
    shares = np.array([_share_of(_null_per_deal(rng, 300, 3), 3)[0] for _ in range(200)])
    assert abs(shares.mean()) < 4 * shares.std(ddof=1) / math.sqrt(len(shares))


def test_a_share_minus_itself_is_exactly_nothing():
    v = _null_per_deal(np.random.default_rng(2), 500, 2)
    block = ([0, 3], [1, 4], [2, 5])
    d, se = sk.share_contrast(v.sum(0), v.T @ v, len(v), [(1, *block), (-1, *block)])
    assert d == 0 and se == 0


def test_a_ladder_of_one_strategy_against_itself_shows_no_skill(tmp_path):
    """random against random on duplicate deals: each deal's two games are the same game with the seats
    swapped, so every pair's wins cancel deal by deal and the skill share is 0 with an interval of width 0
    that holds it; the rating spread's interval holds 0 too. (The non-degenerate null, where games of
    equal sides differ, is test_skill_share_of_known_outcomes and the coverage test below.)"""
    s = sk.skill(sk.skill_variants([], []), ["random", "random", "random"], 300, tmp_path / "s", seed=3)
    share = skill_metric(s, "ludoteka", "skill_share")
    assert share["lo"] <= 0 <= share["hi"] and share["estimate"] == 0
    spread = skill_metric(s, "ludoteka", "rating_spread")
    assert spread["lo"] <= 0 <= spread["hi"]
    assert [r["label"] for r in s["ratings"]] == ["random", "random#2", "random#3"]
    g = skill_metric(s, "ludoteka", "games_to_win")  # neither neighbour is stronger: no match length
    assert g["estimate"] is None and g["lo"] is None


def _null_per_deal(rng, n, P, decisive=0.9):
    """Per-deal vectors of P pairs, two games a deal, every side equally strong (no skill)."""
    cols = []
    for _ in range(P):
        g = np.full(n, 2)
        res = rng.choice(3, size=(n, 2), p=[decisive / 2, decisive / 2, 1 - decisive])
        cols += [(res == 0).sum(1), (res == 1).sum(1), g]
    return np.stack(cols, axis=1).astype(np.int64)


def _share_of(v, P):
    S, G = v.sum(0), v.T @ v
    return sk.skill_share(S, G, len(v), [3 * p for p in range(P)], [3 * p + 1 for p in range(P)],
                          [3 * p + 2 for p in range(P)])


def test_skill_share_of_known_outcomes():
    rng = np.random.default_rng(1)
    # the stronger always wins: all the variance is between strategies
    n, P = 200, 3
    v = np.zeros((n, 3 * P), np.int64)
    v[:, 0::3], v[:, 2::3] = 2, 2
    share, se = _share_of(v, P)
    assert share == pytest.approx(1.0)
    # no skill: centred on 0, the interval sized by the second-order term
    share, se = _share_of(_null_per_deal(rng, 4000, P), P)
    assert abs(share) < 4 * se and 0 < se < 0.01


@pytest.mark.slow
def test_skill_share_interval_coverage_under_no_skill_and_with_skill():
    """Coverage of the 95% interval on synthetic deals (400 ladders each, fixed seed), the tolerance the
    binomial standard error of a coverage figure (4 sigma). With no skill the interval is conservative
    (the first-order term estimated from the same deals grows with the estimate): at least 95%. With a
    clear skill (true share computed exactly) it covers 95%."""
    rng = np.random.default_rng(7)
    reps, n, P = 400, 800, 3
    tol = 4 * math.sqrt(0.95 * 0.05 / reps)
    hits = sum(abs(share) <= 1.959964 * se for share, se in (_share_of(_null_per_deal(rng, n, P), P)
                                                               for _ in range(reps)))
    assert hits / reps >= 0.95 - tol
    # the first side wins with 0.6, loses with 0.3 in every pair: share = (0.65 - 1/2)^2 / (0.9 / 4)
    p = [0.6, 0.3, 0.1]
    true = (p[0] + p[2] / 2 - 0.5) ** 2 / ((p[0] + p[1]) / 4)
    hits = 0
    for _ in range(reps):
        cols = []
        for _ in range(P):
            res = rng.choice(3, size=(n, 2), p=p)
            cols += [(res == 0).sum(1), (res == 1).sum(1), np.full(n, 2)]
        share, se = _share_of(np.stack(cols, axis=1).astype(np.int64), P)
        hits += abs(share - true) <= 1.959964 * se
    assert abs(hits / reps - 0.95) < tol


@pytest.mark.parametrize("p_win,p_loss", [(0.55, 0.35), (0.6, 0.4), (0.45, 0.25)])
def test_games_needed_agrees_with_simulated_matches(p_win, p_loss):
    """Matches of N games simulated game by game: the stronger side wins 95% of them at N (within the
    standard error of the simulated share), and the exact count says no shorter match reaches 95%."""
    n = sk.games_needed(p_win, p_loss)
    assert all(sk.match_win_probability(p_win, p_loss, k) < 0.95 for k in range(1, n))
    exact = sk.match_win_probability(p_win, p_loss, n)
    assert exact >= 0.95
    rng = np.random.default_rng(n)
    matches = 20000
    games = rng.choice(3, size=(matches, n), p=[p_win, p_loss, 1 - p_win - p_loss])
    won = ((games == 0).sum(1) > (games == 1).sum(1)).mean()
    se = math.sqrt(exact * (1 - exact) / matches)
    assert abs(won - exact) < 4 * se
    assert won > 0.95 - 4 * se


def test_games_needed_by_the_normal_approximation_for_a_tiny_edge():
    assert sk.games_needed(0.5, 0.5) == math.inf
    n = sk.games_needed(0.501, 0.499)  # beyond the exact count: (z sigma / mu)^2
    assert n == pytest.approx((1.6448536 * math.sqrt(1 - 0.002 ** 2) / 0.002) ** 2, rel=1e-3)


def test_skill_refuses_what_it_cannot_play(tmp_path):
    with pytest.raises(sk.SkillError, match="two or more"):
        sk.skill(sk.skill_variants([], []), ["greedy"], 10, tmp_path / "a")
    with pytest.raises(sk.SkillError, match="two-sided"):
        sk.skill(sk.skill_variants(["ludoteka(players=4)"], []), LADDER, 10, tmp_path / "b")
    r = CliRunner().invoke(main, ["skill", "--rules", "ludoteka(players=4)", "--ladder", "random,greedy", "-n", "10",
                                  "--seed", "1", "--out", str(tmp_path / "c")])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.output  # a usage error (README, "Exit codes")
    assert "two-sided games" in r.stderr
    r = CliRunner().invoke(main, ["skill", "--ladder", "random,nosuch", "-n", "10", "--out", str(tmp_path / "e")])
    assert r.exit_code == 2 and r.stderr.startswith("Error: --ladder: unknown strategy `nosuch`")
    assert not (tmp_path / "e").exists()
    r = CliRunner().invoke(main, ["skill", "--ladder", "greedy", "-n", "10", "--out", str(tmp_path / "d")])
    assert r.exit_code == 2 and "two or more" in r.stderr


def test_the_table_fits_80_columns_and_json_is_the_summary(tmp_path):
    args = ["skill", "--vary", "capture=optional,any", "--ladder", "random,endgame", "-n", "40", "--seed", "2", "-j",
            "1", "--out", str(tmp_path / "s")]  # endgame's spec is listed in full: folded at its commas
    r = CliRunner().invoke(main, args, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.split("\nresults kept in")[0].splitlines()  # the folder's line holds its path
    assert max(len(x) for x in lines) <= 80
    rulesets = json.loads((tmp_path / "s" / "summary.json").read_text())["rulesets"]
    assert [r["label"] for r in rulesets] == ["ludoteka", "capture=optional", "capture=any"]
    assert "  #1 = capture=optional" in lines
    for rs in rulesets:  # one row per ruleset (a long label is shortened, and named below the table)
        assert sum(1 for x in lines if x.startswith(rs["label"][:10])) >= 1
    r = CliRunner().invoke(main, ["resume", str(tmp_path / "s"), "--json"])  # the same command refuses its folder
    assert json.loads(r.stdout) == json.loads((tmp_path / "s" / "summary.json").read_text())


def test_resume_finishes_a_skill_folder_identically_and_report_draws_it(two_rulesets, tmp_path):
    out, want = two_rulesets
    cut = tmp_path / "cut"
    shutil.copytree(out, cut)
    shutil.rmtree(cut / "runs" / "04")
    (cut / "summary.json").unlink()
    pairs = json.loads((cut / "manifest.json").read_text())["pairs"]
    assert open_folder(cut).series.runs == len(pairs) == 2 * (3 + len(want["scorecard"]["runs"]))
    labels = []
    got = resume_folder(cut, on_run=lambda k, label: labels.append(label))
    assert got == want
    second = len(pairs) // 2  # the second ruleset's first pairs
    assert labels[second:second + 3] == ["lucky_deal=off: random vs greedy", "lucky_deal=off: random vs maxoros",
                                         "lucky_deal=off: greedy vs maxoros"]
    assert labels[second + 3].startswith("lucky_deal=off: ")  # then its scorecard's
    assert set(read_tables(cut)) == {"skill", "skill_effects", "skill_ratings", "skill_steps", "skill_pairs",
                                     "skill_calibration"}
    page = write_report(cut)
    assert {p.name for p in page.parent.glob("*.png")} == {"skill_share.png", "skill_effects.png", "skill_ladders.png"}
    html = page.read_text()
    assert "Skill share of the game outcome" in html and "lucky_deal=off" in html


def test_ctrl_c_between_runs_exits_130_and_keeps_the_finished_runs(tmp_path, monkeypatch):
    """A Ctrl-C while a finished run is read back: one line naming the command that continues, exit 130."""
    from escoba_sim.series import tables

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tables, "read_run_chunks", interrupted)
    r = CliRunner().invoke(main, ["skill", "--ladder", "random,greedy", "-n", "20", "--seed", "1", "-j", "1",
                                  "--out", str(tmp_path / "s")])
    assert r.exit_code == 130, r.output
    assert r.stderr.strip().splitlines()[-1] == f"Interrupted. Continue with: escoba-sim resume {tmp_path / 's'}"
    assert json.loads((tmp_path / "s" / "runs" / "00" / "manifest.json").read_text())["status"] == "complete"


@pytest.mark.slow
def test_ctrl_c_keeps_what_landed_and_resume_gives_the_same_result(tmp_path):
    """Ctrl-C during the second pair: exit 130 with one line naming `escoba-sim resume DIR`; resume then
    gives the summary of an uninterrupted ladder."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "ESCOBA_SIM_PURE_PYTHON": "1", "ESCOBA_SIM_REQUIRE_CORE": "0"}
    cmd = [sys.executable, "-c", "from escoba_sim.cli import main; main()"]
    args = ["skill", "--ladder", "random,greedy,maxoros", "-n", "200", "--seed", "5", "-j", "1", "--json", "--out"]
    p = subprocess.Popen([*cmd, *args, str(tmp_path / "cut")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not list((tmp_path / "cut" / "runs" / "01" / "chunks").glob("*.parquet")):
            time.sleep(0.02)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, err
    assert out == "" and "Traceback" not in err
    assert "Continue with: escoba-sim resume" in err.strip().splitlines()[-1]
    assert json.loads((tmp_path / "cut" / "runs" / "00" / "manifest.json").read_text())["status"] == "complete"
    again = subprocess.run([*cmd, "resume", str(tmp_path / "cut"), "--json"], capture_output=True, text=True,
                           env=env, timeout=300)
    whole = subprocess.run([*cmd, *args, str(tmp_path / "whole")], capture_output=True, text=True, env=env,
                           timeout=300)
    assert again.returncode == 0 and whole.returncode == 0, again.stderr + whole.stderr
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "argv"}  # noqa: E731
    assert strip(again.stdout) == strip(whole.stdout)


@pytest.mark.slow
def test_skill_intervals_cover_the_large_ladder_value():
    """The skill ladder's intervals (benchmarks/coverage.py --skill; its table in benchmarks/COVERAGE.md):
    300 small ladders under ludoteka and tradicional, seeds 1..300, against one 50x larger (seed 0); each
    coverage within 92-98%: ludoteka's five quantities and the paired contrast of the two skill shares
    (``share_contrast``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("coverage_bench", REPO / "benchmarks" / "coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _, hits = mod.coverage(runs=300, scale=50, measure=mod.skill_quantities)
    rates = {k: h / n for k, (h, n, _) in hits.items()}
    assert len(rates) == 6 and "skill: skill_share, tradicional - ludoteka" in rates, rates
    assert all(0.92 <= r <= 0.98 for r in rates.values()), rates


@pytest.mark.core("ismcts")
def test_a_ladder_with_a_slow_strategy_plays_one_chunk_size(tmp_path):
    """A searching strategy's pairs get small default chunks and the others large ones; every run of the
    ladder must cut its deals alike (chunk k the same deals in all), else the pairs cannot be put side by
    side deal by deal (this ladder failed with "chunk 0 holds different deals")."""
    ladder = ["random", "greedy", "ismcts:iters=400"]
    s = sk.skill(sk.skill_variants([], []), ladder, 240, tmp_path / "s", seed=4)
    runs = json.loads((tmp_path / "s" / "manifest.json").read_text())["pairs"]
    sizes = {json.loads((tmp_path / "s" / r["run"] / "manifest.json").read_text())["spec"]["chunk_size"]
             for r in runs}
    assert len(sizes) == 1 and sizes.pop() < 120  # the slow pair's size: its 120 deals in 2 chunks or more
    assert skill_metric(s, "ludoteka", "skill_share")["estimate"] > 0



def test_hands_to_win_interval_holds_the_game_lengths_uncertainty(two_rulesets):
    """Each end of the hands interval is the games count's end times the hands per game, moved out on the log
    scale by the game length's own uncertainty in quadrature: with hands per game known exactly it is the
    games' interval times it; with the games count flat (random against greedy: 3 games at both ends) it is
    the hands per game's own interval times 3; in the ladder every step's interval holds the games' ends
    times hpg and is wider than that."""
    assert sk.hands_interval(10, 8, 13, 4.0, 0.0) == pytest.approx((32.0, 52.0))
    lo, hi = sk.hands_interval(3, 3, 3, 4.0, 0.05)
    assert (lo, hi) == pytest.approx((12 * math.exp(-1.959964 * 0.05 / 4), 12 * math.exp(1.959964 * 0.05 / 4)))
    lo, hi = sk.hands_interval(10, 8, 13, 4.0, 0.05)
    assert math.log(40 / lo) == pytest.approx(math.hypot(math.log(10 / 8), 1.959964 * 0.05 / 4))
    assert sk.hands_interval(10, 8, math.inf, 4.0, 0.05)[1] == math.inf
    _, summary = two_rulesets
    for st in summary["steps"]:
        assert st["hands_to_win_lo"] < st["games_to_win_lo"] * st["hands_per_game"]
        if st["games_to_win_hi"] is None:  # the edge may be nil: no upper end
            assert st["hands_to_win_hi"] is None
        else:
            assert st["hands_to_win_hi"] > st["games_to_win_hi"] * st["hands_per_game"]


def test_wide_figures_keep_their_cells_apart_within_80_columns(two_rulesets):
    """The issue's case: an Elo spread of 1331±170 beside 831 [347-4.1k] games ran together
    (``1331±170 831[347-4.1k]``); the Elo cell is now one wider than its widest figure."""
    import copy

    from escoba_sim.output.skill_table import skill_lines

    _, summary = two_rulesets
    s = copy.deepcopy(summary)
    for r in s["skill"]:
        if r["label"] == "ludoteka" and r["metric"] == "rating_spread":
            r.update(estimate=1331.0, lo=1161.0, hi=1501.0)
        if r["label"] == "ludoteka" and r["metric"] == "games_to_win":
            r.update(estimate=831.0, lo=347.0, hi=4100.0)
    lines = skill_lines(s, 80)
    row = next(line for line in lines if line.startswith("ludoteka "))  # the skill table's row
    assert "1331±170  831" in row and len(row) <= 80
    assert max(len(line) for line in lines) <= 80


def test_the_rating_spread_difference_is_paired_through_the_joint_rating_covariance(two_rulesets):
    """lucky_deal=off minus ludoteka's rating spread: the difference of the two, its interval from the ratings'
    covariance across rulesets, whose diagonal blocks are each ruleset's own sandwich (as the tournament's)."""
    from escoba_sim.runs import stats

    out, summary = two_rulesets
    (e,) = [x for x in summary["effects"] if x["metric"] == "rating_spread"]
    a, b = skill_metric(summary, "lucky_deal=off", "rating_spread"), skill_metric(summary, "ludoteka", "rating_spread")
    assert e["estimate"] == pytest.approx(a["estimate"] - b["estimate"], abs=1e-9)
    assert 0 < e["hi"] - e["lo"] < math.hypot(a["hi"] - a["lo"], b["hi"] - b["lo"])
    (c,) = [x for x in summary["effects"] if x["metric"] == "coin_flip"]  # the same covariance, through the share
    a, b = skill_metric(summary, "lucky_deal=off", "coin_flip"), skill_metric(summary, "ludoteka", "coin_flip")
    assert c["estimate"] == pytest.approx(a["estimate"] - b["estimate"], abs=1e-9)
    assert 0 < c["hi"] - c["lo"] < math.hypot(a["hi"] - a["lo"], b["hi"] - b["lo"])
    # the joint covariance's blocks are the single fits' covariances
    rng = np.random.default_rng(3)
    pairs = [(0, 1), (0, 2), (1, 2)]
    v = rng.integers(0, 3, size=(200, 12))
    S, G = v.sum(axis=0), v.T @ v
    r0, r1 = stats.bradley_terry(np.array([[0, 30, 40], [20, 0, 35], [10, 15, 0]])), np.array([-50.0, 10.0, 40.0])
    joint = stats.bradley_terry_joint_cov([r0, r1], pairs, S, G, 200)
    assert np.allclose(joint[:3, :3], stats.bradley_terry_cov(r0, pairs, S[:6], G[:6, :6], 200))
    assert np.allclose(joint[3:, 3:], stats.bradley_terry_cov(r1, pairs, S[6:], G[6:, 6:], 200))
