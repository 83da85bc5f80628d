"""What a person reads: commands that work as written, layouts that survive a pipe, human names, partial results."""

import json
import os
import subprocess
import sys

from helpers import EXAMPLE_PLUGIN

from escoba_sim.output.console import _fmt, table_labels
from escoba_sim.runs import runner


def test_small_probabilities_are_not_printed_as_zero():
    assert _fmt(1 / 20_001, 3, True) == "<0.1%"
    assert _fmt(1 - 1 / 20_001, 3, True) == ">99.9%"
    assert _fmt(0.0, 3, True) == "0.0%" and _fmt(0.4708, 3, True) == "47.1%"


def test_piped_output_keeps_its_layout_with_long_specs(cli):
    """Piped (CliRunner's stdout is no terminal): no row wraps at 80 columns, long specs get short names
    in the tables and are listed once in full."""
    long = "heuristic:oros=2,keep=0.5,escoba=5,risk=12"
    r = cli("run", "-s", "greedy", "--vs", long, "-n", "200", "--seed", "1", "-q")
    lines = r.stdout.splitlines()
    assert any(l.startswith("greedy vs heuristic#2") and l.rstrip().endswith("seed 1") for l in lines)
    assert sum(1 for l in lines if "keep=0.5" in l) == 1  # the full spec, once
    header = next(l for l in lines if "points per hand" in l)
    widths = {len(l) for l in lines if l.startswith(("│", "┃", "┏", "└"))}
    assert len(header) > 20 and max(widths) > 0
    assert not any(l.strip() in ("1", "seed") for l in lines)  # the old `... seed \n1`


def test_table_labels_are_short_and_unique():
    assert table_labels(["greedy", "heuristic:oros=2,keep=0.5,risk=9", "heuristic:oros=3,keep=0.5,risk=9"]) == \
        ["greedy", "heuristic#2", "heuristic#3"]


def test_trace_uses_human_category_names(cli):
    text = cli("trace", "-s", "greedy", "--vs", "maxoros", "--seed", "1").stdout
    assert "siete de oros" in text and "siete_oros" not in text and "  of which lucky deal" in text


def test_the_plugin_speed_warning_prints_once(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    r = subprocess.run([sys.executable, "-c", "from escoba_sim.cli import main; main()", "run", "-s", "greedy", "--vs", f"{EXAMPLE_PLUGIN}:LowCard",
                        "-n", "1200", "--chunk", "100", "--seed", "1", "-j", "2", "-q", "--json"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    # the warning says a plugin slows the compiled core down; with the reference engine for all there is nothing to warn
    from escoba_sim.native import ENGINE
    assert r.stderr.count("is played by the pure-Python reference engine") == (1 if ENGINE == "cython" else 0)


def test_compare_and_tournament_run_as_the_readme_writes_them(cli, tmp_path, monkeypatch):
    """No --out needed (a folder the command names) and every core by default."""
    monkeypatch.chdir(tmp_path)
    seen = []
    real = runner.run

    def spy(*args, **kwargs):
        seen.append(kwargs.get("jobs"))
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run", spy)
    r = cli("compare", "--rules", "ludoteka", "--rules", "cardgames", "-n", "60", "--seed", "4")
    assert r.exit_code == 0 and (tmp_path / "compare-4" / "summary.json").exists()
    assert "results kept in compare-4" in r.stdout
    r = cli("tournament", "greedy", "maxoros", "random", "-n", "60", "--seed", "4")
    assert r.exit_code == 0 and (tmp_path / "tournament-4" / "summary.json").exists()
    assert seen and set(seen) == {os.cpu_count()}
    # the tournament prints a crosstable matrix, games and W/D/L per pair, ratings with intervals
    out = r.stdout
    assert "Crosstable" in out and "W/D/L" in out and "Ratings" in out and "95% CI" in out
    pairs = [l for l in out.splitlines() if " vs " in l and "│" in l]
    assert len(pairs) == 3


def test_resume_finishes_a_tournament_and_a_compare_folder(cli, tmp_path):
    r = cli("tournament", "greedy", "random", "-n", "60", "--seed", "2", "--out", tmp_path / "t", "--json")
    first = json.loads(r.stdout)
    (tmp_path / "t" / "summary.json").unlink()
    run_dir = tmp_path / "t" / "runs" / "00"
    for p in sorted((run_dir / "chunks").glob("*.parquet"))[1:]:
        p.unlink()
    m = json.loads((run_dir / "manifest.json").read_text())
    m["status"] = "interrupted"
    (run_dir / "manifest.json").write_text(json.dumps(m))
    r = cli("resume", tmp_path / "t", "--json")
    assert r.exit_code == 0
    again = json.loads(r.stdout)
    assert again["ratings"] == first["ratings"] and again["pairs"] == first["pairs"]
    cli("compare", "--vary", "ties=shared,none", "-n", "40", "--seed", "2", "--out", tmp_path / "c", "-q")
    r = cli("resume", tmp_path / "c")
    assert r.exit_code == 0 and "Paired differences" in r.stdout


def test_ctrl_c_without_out_prints_the_partial_summary(cli, monkeypatch):
    real = runner.play_chunk

    def stop_at_3(spec, k, *args, **kwargs):
        if k == 3:
            raise KeyboardInterrupt
        return real(spec, k, *args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", stop_at_3)
    r = cli("run", "-s", "greedy", "--vs", "maxoros", "-n", "2000", "--chunk", "100", "--seed", "1", "-j", "1",
            "-q", "--json")
    assert r.exit_code == 130
    s = json.loads(r.stdout)
    assert s["status"] == "interrupted" and s["chunks"]["used"] == 3 and s["deals"] == 300 and s["games"] == 600
    assert "nothing was saved" in r.stderr
    r = cli("run", "-s", "greedy", "--vs", "maxoros", "-n", "2000", "--chunk", "100", "--seed", "1", "-j", "1", "-q")
    assert r.exit_code == 130 and "PARTIAL RESULT" in r.stdout and "greedy vs maxoros" in r.stdout
