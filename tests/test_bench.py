"""The bench command and library: shape of the output only (speeds are never asserted in tests)."""

import json
import types

import pytest
from helpers import needs_core

from escoba_sim import batch, bench, native
from escoba_sim.bench import PAIRINGS, format_table, measure


def test_measure_reports_hands_per_second():
    r = measure("ludoteka", ("greedy", "maxoros"), "python", seconds=0.05)
    assert r["engine"] == "python" and r["hands"] > 0 and r["hands_per_s"] > 0
    assert r["strategies"] == ["greedy", "maxoros"]


def test_bench_cli_json(cli):
    out = cli("bench", "--seconds", "0.05", "--json")
    text = out.output
    data = json.loads(text[text.index("{"):])  # without the core a one-line notice goes to stderr first
    assert data["engine"] == native.ENGINE and data["rules"] == "ludoteka"
    assert [row["pairing"] for row in data["rows"]] == ["-".join(p) for p in PAIRINGS]
    for row in data["rows"]:
        assert row["python"] > 0
        if native.ENGINE == "cython":
            assert row["cython"] > 0 and row["ratio"] == row["cython"] / row["python"]
    assert "greedy-maxoros" in format_table(data["rows"])


@pytest.mark.parametrize("engine", ["python", "cython"])
def test_measure_grows_its_calls_up_to_the_cap(monkeypatch, engine):
    """Calls double while a quarter of the budget is unspent, and never exceed MAX_CALL_HANDS, whatever
    size they start from (the result memory is then reused call after call; benchmarks/README.md)."""
    if engine == "cython":
        needs_core("the compiled core's bench")
    calls = []

    def fake_play(rules, players, seed, first, count):
        calls.append(count)

    if engine == "python":
        monkeypatch.setattr(batch, "py_play_hands", fake_play)  # starts at 20: 20 * 2^14 would pass the cap
    else:
        _core = pytest.importorskip("escoba_sim._core")
        monkeypatch.setattr(_core, "play_hands", fake_play)
    ticks = iter(range(10**6))  # a clock that moves 1 ms per reading
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks) * 1e-3))
    r = measure("ludoteka", ("greedy", "maxoros"), engine, seconds=1.0)
    chunks = calls[1:] if engine == "cython" else calls  # the core gets a warm-up call first
    start = 20_000 if engine == "cython" else 20
    assert chunks[:3] == [start, 2 * start, 4 * start]
    assert max(chunks) == bench.MAX_CALL_HANDS == 320_000 and chunks == sorted(chunks)
    assert chunks.count(bench.MAX_CALL_HANDS) > 1 and r["hands"] == sum(chunks)
