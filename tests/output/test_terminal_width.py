"""Every command's terminal output fits 80 and 120 columns: no longer line, no number cut to "…" or split,
headers present.

Each command runs at COLUMNS=80, 120 and 1000; the decimal numbers printed at 80 and 120 must be those printed
at 1000 (a number cut or folded across lines would differ), and no line may be wider than the columns.
"""

import re

import pytest
from conftest import engine_sized
from helpers import needs_core
from rich.cells import cell_len

NUMBER = re.compile(r"[+-]?\d+(?:,\d{3})*\.\d+%?")
LONG = "heuristic:oros=2,keep=0.5,escoba=5,risk=12"  # a long spec: a short table name and a legend line


def _out(cli, monkeypatch, width: int, *args) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def _check(cli, monkeypatch, args, heads) -> None:
    import shutil

    # a series refuses its own finished folder (it points to resume): each width plays into a new one
    out = args[args.index("--out") + 1] if "--out" in args else None

    def fresh(width):
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)
        return _out(cli, monkeypatch, width, *args)
    wide = fresh(1000)
    for width in (80, 120):
        text = fresh(width)
        lines = text.splitlines()
        too_long = [line for line in lines if cell_len(line) > width]
        assert not too_long, (width, too_long[:3])
        assert "…" not in text
        assert sorted(NUMBER.findall(text)) == sorted(NUMBER.findall(wide)), width
        for h in heads:
            assert h in text, (width, h)


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # short relative --out folders: the closing lines name them
    return tmp_path


def test_run_tables_fit(cli, monkeypatch, here):
    _check(cli, monkeypatch, ["run", "-s", "greedy", "--vs", "maxoros", "-n", "200", "--seed", "1"],
           ["Per strategy", "points per hand", "Comparison", "Elo difference", "value [95%]"])


def test_run_of_four_strategies_with_a_long_spec_fits(cli, monkeypatch, here):
    """Four value columns at 80 columns: the table is printed in two parts, each with the row names."""
    _check(cli, monkeypatch, ["run", "-s", "random", "--vs", "greedy", "--vs", LONG, "--vs", "defensive",
                              "-r", "players=4", "-n", "120", "--seed", "1"],
           ["Per strategy", "heuristic#3 =", "defensive", "as dealer+3", "W/D/L"])


def test_run_with_sprt_fits(cli, monkeypatch, here):
    _check(cli, monkeypatch, ["run", "-s", "greedy", "--vs", "maxoros", "-n", engine_sized(2000, 400), "--seed", "1",
                              "--sprt", "elo0=0,elo1=20"], ["SPRT", "LLR"])


def test_tournament_tables_fit(cli, monkeypatch, here):
    """The pairs table cut its numbers to "…" at 80 and 100 columns."""
    _check(cli, monkeypatch, ["tournament", "greedy", "maxoros", "random", "defensive", LONG, "-n", "40",
                              "--seed", "5", "--out", "t"],
           ["Ratings", "Crosstable", "Pairs", "W/D/L", "score", "games", "heuristic#5 ="])


def test_compare_design_effects_tables_fit(cli, monkeypatch, here):
    """compare prints tables like run's (one row per ruleset, metric groups), no longer lines of 150."""
    _check(cli, monkeypatch, ["compare", "--design-effects", "-n", "40", "--seed", "3", "--out", "c"],
           ["Games", "Points per hand by category, greedy", "Escobas per hand", "How often each majority ties",
            "Paired differences", "capture=any *", "no effect on any deal"])


def test_trace_and_analyze_fit_with_headers(cli, monkeypatch, here):
    _check(cli, monkeypatch, ["trace", "-s", "greedy", "--vs", "maxoros", "--seed", "5"],
           ["#  seat hand", "move", "score sheet"])
    monkeypatch.setenv("COLUMNS", "80")
    (here / "hand.json").write_text(cli("trace", "-s", "greedy", "--vs", "maxoros", "--seed", "5", "--json").stdout)
    _check(cli, monkeypatch, ["replay", "hand.json"], ["score sheet"])
    _check(cli, monkeypatch, ["moves", "--hand", "5b 7o 1c", "--table", "1o 4c Rb 2e 3e"], ["takes"])
    needs_core("the hint evaluator")  # trace --analyze and analyze value the decisions
    _check(cli, monkeypatch, ["trace", "-s", "greedy", "--vs", "maxoros", "--seed", "5", "--analyze",
                              "--samples", "40"], ["#  seat hand", "value ±se of the move played"])
    _check(cli, monkeypatch, ["analyze", "hand.json", "--samples", "40"], ["played", "value", "best", "loss"])


@pytest.mark.core("the hint evaluator")
def test_analyze_stacks_the_best_move_under_the_played_one_when_narrow(cli, monkeypatch, here):
    """At 60 columns one line per decision would not fit: a better move goes on a second, headed line."""
    monkeypatch.setenv("COLUMNS", "80")
    (here / "hand.json").write_text(cli("trace", "-s", "greedy", "--vs", "maxoros", "--seed", "5", "--json").stdout)
    text = _out(cli, monkeypatch, 60, "analyze", "hand.json", "--samples", "40")
    assert max(len(line) for line in text.splitlines()) <= 60
    heads = [line for line in text.splitlines() if line.lstrip().startswith(("#", "best"))]
    assert heads[0].split()[:4] == ["#", "seat", "played", "value"] and heads[1].split()[:2] == ["best", "value"]
    lines = text.splitlines()
    marked = next(i for i, line in enumerate(lines) if line.rstrip().endswith(("inaccuracy", "mistake", "blunder")))
    assert lines[marked + 1].startswith(" " * 10) and NUMBER.search(lines[marked + 1])  # the better move


def test_print_table_folds_long_row_names_to_keep_value_columns_together():
    """A ruleset's canonical name of 40 characters took half the width and left one value column per part;
    names fold to a quarter of the width when the table is split anyway, numbers stay whole."""
    import io

    from rich.console import Console

    from escoba_sim.output.console import print_table

    rows = [["ludoteka(sevens=all,ties=none,target=21)", *[f"0.{k}123\n[0.{k}001, 0.{k}245]" for k in range(5)]],
            ["tradicional", *[f"1.{k}456\n[1.{k}001, 1.{k}999]" for k in range(5)]]]
    buf = io.StringIO()
    print_table(Console(file=buf, width=80), "t", ["ruleset", *[f"value {k}" for k in range(5)]], rows)
    text = buf.getvalue()
    assert max(cell_len(line) for line in text.splitlines()) <= 80 and "…" not in text
    assert sorted(NUMBER.findall(text)) == sorted(n for r in rows for c in r[1:] for n in NUMBER.findall(c))
    first = text.split("(columns 2 of")[0]
    assert "value 0" in first and "value 1" in first  # one value column per part before
