"""compare: variants, common random numbers, paired differences that are exact where they must be."""

import json
import os
import shlex
import shutil
import subprocess

import polars as pl
import pytest
from click.testing import CliRunner
from helpers import EXAMPLE_PLUGIN

from escoba_sim.cli import main
from escoba_sim.game.rules import PRESETS
from escoba_sim.output import console
from escoba_sim.series import compare, tables


def test_build_variants_vary_puts_base_first_and_skips_the_base_value():
    v = compare.build_variants([], ["lucky_deal=escobas,off", "target=15,21"])
    assert [x.label for x in v] == ["ludoteka", "lucky_deal=off", "target=21"]
    assert v[1].rules == PRESETS["ludoteka"].replace(lucky_deal="off")


def test_build_variants_errors():
    with pytest.raises(compare.CompareError, match="two or more"):
        compare.build_variants(["ludoteka"], [])
    with pytest.raises(compare.CompareError, match="unknown rules field"):
        compare.build_variants([], ["bogus=1,2"])
    with pytest.raises(compare.CompareError, match="all the same"):
        compare.build_variants(["ludoteka", "ludoteka"], [])


@pytest.fixture(scope="module")
def cmp_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp")
    variants = compare.build_variants([], ["lucky_deal=escobas,off", "ties=shared,none"])
    compare.compare(variants, "greedy", "maxoros", 240, out, seed=11)
    return out


def _get(df, label, metric):
    row = df.filter((pl.col("label") == label) & (pl.col("metric") == metric))
    assert row.height == 1
    return row.row(0, named=True)


def test_compare_writes_manifest_tables_and_summary(cmp_dir):
    m = json.loads((cmp_dir / "manifest.json").read_text())
    assert m["kind"] == "compare" and m["seed"] == 11
    assert [r["label"] for r in m["rulesets"]] == ["ludoteka", "lucky_deal=off", "ties=none"]
    t = tables.read_tables(cmp_dir)
    assert set(compare.TABLES) <= set(t)
    assert json.loads((cmp_dir / "summary.json").read_text())["chunks"] >= 1
    assert len(list((cmp_dir / "runs" / "00" / "deals").glob("chunk-*.parquet"))) >= 1


def test_intervals_do_not_depend_on_the_chunk_size(tmp_path):
    """The deal is the unit: cutting the same deals into 7-deal or 500-deal chunks changes no interval
    (before, compare's intervals used chunks as clusters and were 38% narrower with 16 chunks)."""
    variants = compare.build_variants([], ["lucky_deal=escobas,off"])
    a = compare.compare(variants, "greedy", "maxoros", 240, tmp_path / "a", seed=4, chunk_size=7)
    b = compare.compare(variants, "greedy", "maxoros", 240, tmp_path / "b", seed=4, chunk_size=500)
    assert a["chunks"] == 18 and b["chunks"] == 1
    for key in ("estimates", "effects"):
        assert len(a[key]) == len(b[key]) > 0
        for x, y in zip(a[key], b[key]):
            assert x["metric"] == y["metric"]
            for f in ("estimate", "lo", "hi"):
                assert x[f] == pytest.approx(y[f], rel=1e-12, abs=1e-15)


def test_common_random_numbers_make_lucky_deal_effect_exact(cmp_dir):
    t = tables.read_tables(cmp_dir)
    base = _get(t["estimates"], "ludoteka", "lucky_escobas")
    eff = _get(t["effects"], "lucky_deal=off", "lucky_escobas")
    # no lucky escobas without the lucky deal: the paired difference is minus the base rate
    assert eff["estimate"] == pytest.approx(-base["estimate"])
    assert _get(t["estimates"], "lucky_deal=off", "lucky_escobas")["estimate"] == 0


def test_ties_none_removes_exactly_the_tied_points_on_one_hand_games(tmp_path):
    # target 0: one hand per game, so both rulesets play the same hands; only scoring differs
    variants = compare.build_variants(["robo(ties=shared)"], ["ties=none"])
    compare.compare(variants, "greedy", "greedy", 200, tmp_path / "c", seed=5)
    t = tables.read_tables(tmp_path / "c")
    ties = _get(t["estimates"], variants[0].label, "tie_oros")["estimate"]
    eff = _get(t["effects"], "ties=none", "oros:greedy#1")
    assert eff["estimate"] == pytest.approx(-ties)
    assert eff["lo"] <= eff["estimate"] <= eff["hi"]
    # the tie rates themselves do not depend on the tie rule (same hands)
    assert _get(t["effects"], "ties=none", "tie_oros")["estimate"] == pytest.approx(0)


def test_compare_refuses_a_different_comparison_in_the_same_folder(cmp_dir):
    with pytest.raises(compare.CompareError, match="different comparison"):
        compare.compare(compare.build_variants(["ludoteka", "cardgames"], []), "greedy", "maxoros", 240, cmp_dir,
                        seed=11)


def test_compare_cli(cli, tmp_path):
    r = cli("compare", "--rules", "ludoteka", "--rules", "cardgames", "-n", "100", "--seed", "3",
            "--out", tmp_path / "c", "--json")
    s = json.loads(r.stdout)  # progress lines go to stderr
    assert [x["label"] for x in s["rulesets"]] == ["ludoteka", "cardgames"]
    assert any(e["metric"] == "win_rate" for e in s["effects"])


def _printed(summary: dict, width: int) -> str:
    import io

    from rich.console import Console

    buf = io.StringIO()
    console.print_compare(summary, Console(file=buf, width=width))
    return buf.getvalue()


def test_terminal_summary_names_rows_and_prints_categories_and_ties(cmp_dir):
    s = json.loads((cmp_dir / "summary.json").read_text())
    text = _printed(s, 200)  # wide: every group in one table
    assert "Escobas per hand (all sides)" in text
    assert "How often each majority ties (share of hands)" in text
    assert "Paired differences: each variant minus ludoteka" in text
    lines = text.splitlines()
    # one table of categories per player, for the estimates and for the differences: a row per ruleset
    for who in ("greedy", "maxoros"):
        assert sum(1 for l in lines if l.startswith(f"Points per hand by category, {who}")) == 2
    assert sum(1 for l in lines if "siete de oros" in l and l.startswith("┃")) == 4
    rows = [l for l in lines if l.startswith("│ ties=none ")]
    assert len(rows) == 2 * 5  # games, 2 category tables, escobas, ties: estimates and differences
    # the raw metric names are not what the user reads
    assert "tie_oros" not in text and "total:greedy" not in text


def test_compare_cli_prints_grouped_summary(cli, tmp_path):
    r = cli("compare", "--vary", "ties=shared,none", "-n", "100", "--seed", "3", "--out", tmp_path / "c")
    assert "Points per hand by category, greedy" in r.stdout
    assert "How often each majority ties" in r.stdout


def test_compare_provenance_names_the_engine_a_plugin_forces(tmp_path):

    plugin = EXAMPLE_PLUGIN
    variants = compare.build_variants([], ["ties=shared,none"])
    summary = compare.compare(variants, "greedy", f"{plugin}:LowCard", 4, tmp_path / "c", seed=3)
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["engine"] == "python" and summary["engine"] == "python"


@pytest.mark.skipif(shutil.which("escoba-sim") is None, reason="the console script is not installed")
def test_ctrl_c_on_compare_then_the_same_command_finishes_it(tmp_path, interrupt):
    """Ctrl-C in the second ruleset: exit 130, one line naming the command that continues (resume); it
    keeps the finished runs and gives the same summary as an uninterrupted comparison."""
    # the reference engine is slow enough for the signal to land mid-run
    env = {**os.environ, "ESCOBA_SIM_PURE_PYTHON": "1", "ESCOBA_SIM_REQUIRE_CORE": "0"}
    args = ["escoba-sim", "compare", "--vary", "ties=shared,none", "-n", "800", "--seed", "5", "-j", "1",
            "--json", "--out"]
    code, out, err = interrupt(args + [tmp_path / "cut"],
                               lambda: bool(list((tmp_path / "cut" / "runs" / "01" / "chunks").glob("*.parquet"))),
                               env=env, wait=120)
    assert code == 130, err
    assert out == ""
    assert err.strip().splitlines()[-1].endswith(f"Continue with: escoba-sim resume {shlex.quote(str(tmp_path / 'cut'))}")
    assert "Traceback" not in err
    runs = [json.loads((tmp_path / "cut" / "runs" / k / "manifest.json").read_text()) for k in ("00", "01")]
    assert [m["status"] for m in runs] == ["complete", "interrupted"]

    again = subprocess.run(["escoba-sim", "resume", str(tmp_path / "cut"), "-j", "1", "--json"], capture_output=True,
                           text=True, env=env, timeout=300)
    whole = subprocess.run(args + [str(tmp_path / "whole")], capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0 and whole.returncode == 0, again.stderr + whole.stderr
    assert json.loads(again.stdout) == json.loads(whole.stdout)


def test_ctrl_c_between_runs_of_a_series_exits_130_with_the_command(tmp_path, monkeypatch):
    """A Ctrl-C that lands outside a run (here: while a finished run is read back) is no traceback either."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tables, "read_run_chunks", interrupted)
    r = CliRunner().invoke(main, ["compare", "--vary", "ties=shared,none", "-n", "20", "--seed", "1",
                                  "--out", str(tmp_path / "c")])
    assert r.exit_code == 130, r.output
    assert r.stderr.strip().splitlines()[-1].startswith("Interrupted. Continue with: escoba-sim")
    assert json.loads((tmp_path / "c" / "runs" / "00" / "manifest.json").read_text())["status"] == "complete"


@pytest.fixture(scope="module")
def capture_cmp(tmp_path_factory):
    out = tmp_path_factory.mktemp("capture")
    variants = compare.build_variants([], ["capture=any,optional", "ties=none"])
    return out, compare.compare(variants, "greedy", "maxoros", 120, out, seed=4)


def test_a_variant_that_cannot_matter_is_flagged_with_its_reason(capture_cmp):
    """greedy and maxoros capture whenever they can: capture=any and capture=optional change no deal (every
    effect +0.0000 [+0.0000, +0.0000]); the summary says so and why; ties=none does change the points."""
    out, s = capture_cmp
    flagged = {x["label"]: x["reason"] for x in s["no_effect"]}
    assert set(flagged) == {"capture=any", "capture=optional"}
    assert all("always capture" in r and "greedy and maxoros" in r for r in flagged.values())
    for e in s["effects"]:
        if e["label"] in flagged:
            assert e["estimate"] == 0 and e["lo"] == e["hi"] == 0
    assert json.loads((out / "summary.json").read_text())["no_effect"] == s["no_effect"]


def test_a_strategy_that_may_lay_instead_of_capturing_is_not_flagged(tmp_path):
    """random lays a card that could capture under capture=optional: the rule matters, nothing is flagged."""
    variants = compare.build_variants([], ["capture=optional"])
    s = compare.compare(variants, "random", "greedy", 60, tmp_path / "c", seed=4)
    assert s["no_effect"] == []


def test_no_effect_reason_names_the_strategies_only_when_their_definition_says_it():
    base, *rest = compare.build_variants([], ["capture=any", "ties=none"])
    assert "always capture" in compare.no_effect_reason(rest[0], base, ["greedy", "defensive"])
    assert "always capture" not in compare.no_effect_reason(rest[0], base, ["greedy", "heuristic"])
    assert "always capture" not in compare.no_effect_reason(rest[1], base, ["greedy", "maxoros"])
