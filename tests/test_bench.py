"""The bench command and library: shape of the output only (speeds are never asserted in tests)."""

import json

from escoba_sim import batch
from escoba_sim.bench import PAIRINGS, format_table, measure


def test_measure_reports_hands_per_second():
    r = measure("ludoteka", ("greedy", "maxoros"), "python", seconds=0.05)
    assert r["engine"] == "python" and r["hands"] > 0 and r["hands_per_s"] > 0
    assert r["strategies"] == ["greedy", "maxoros"]


def test_bench_cli_json(cli):
    out = cli("bench", "--seconds", "0.05", "--json")
    text = out.output
    data = json.loads(text[text.index("{"):])  # without the core a one-line notice goes to stderr first
    assert data["engine"] == batch.ENGINE and data["rules"] == "ludoteka"
    assert [row["pairing"] for row in data["rows"]] == ["-".join(p) for p in PAIRINGS]
    for row in data["rows"]:
        assert row["python"] > 0
        if batch.ENGINE == "cython":
            assert row["cython"] > 0 and row["ratio"] == row["cython"] / row["python"]
    assert "greedy-maxoros" in format_table(data["rows"])
