"""--chunk for run, compare and tournament, and a default chunk that shrinks for slow strategies: the same
deals are played whatever the chunking, so the results are identical; the folder keeps the size."""

import json
import signal
import sys

import pytest
from click.testing import CliRunner
from conftest import engine_sized

from escoba_sim.cli import main
from escoba_sim.runs.spec import CHUNK_SECONDS, MAX_CHUNK, MIN_CHUNK, make_spec
from escoba_sim.series.tables import series_chunk_size

# what depends on the chunking: the chunk counts, the convergence by chunk, this session's speed
CHUNKED = {"chunks", "chunk_size", "performance"}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def unchunked(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in CHUNKED}


def test_run_results_do_not_depend_on_chunk():
    n, small, large = engine_sized(3000, 300), engine_sized(100, 10), engine_sized(333, 33)  # 15 and 5 chunks
    args = ["run", "-s", "greedy", "--vs", "maxoros", "-n", n, "--seed", "4", "--json", "-q", "-j", "1"]
    a = json.loads(invoke(*args, "--chunk", small).stdout)
    b = json.loads(invoke(*args, "--chunk", large).stdout)
    assert (a["chunks"]["planned"], b["chunks"]["planned"]) == (15, 5)
    assert unchunked(a) == unchunked(b)


@pytest.mark.parametrize("kind,args", [
    ("tournament", ["greedy", "maxoros", "random"]),
    ("compare", ["--vary", "ties=shared,none"]),
])
def test_series_results_do_not_depend_on_chunk_and_the_folder_keeps_it(tmp_path, kind, args):
    n, small, large = engine_sized(1200, 120), engine_sized(70, 7), engine_sized(250, 25)
    got = {}
    for chunk in (small, large):
        out = tmp_path / f"{kind}-{chunk}"
        r = invoke(kind, *args, "-n", n, "--seed", "9", "-j", "1", "--chunk", chunk, "--out", out, "--json", "-q")
        assert r.exit_code == 0, r.output
        got[chunk] = json.loads(r.stdout)
        assert got[chunk]["chunks"] == -(-(n // 2) // chunk)  # n games a pair: n / 2 duplicate deals
        assert json.loads((out / "manifest.json").read_text())["chunk_size"] == chunk
        for run_manifest in (out / "runs").glob("*/manifest.json"):
            assert json.loads(run_manifest.read_text())["spec"]["chunk_size"] == chunk
    assert unchunked(got[small]) == unchunked(got[large])
    # and resume keeps the folder's size: the finished folder is read, nothing played again
    r = invoke("resume", tmp_path / f"{kind}-{small}", "--json", "-q")
    assert r.exit_code == 0 and json.loads(r.stdout) == got[small]


def test_default_chunk_of_cheap_strategies_is_as_before(monkeypatch):
    # the runs every test and benchmark measures keep their chunks: a 16th, from 250 to MAX_CHUNK. These are
    # the compiled core's sizes (the estimate of a deal's time follows the engine): checked on either engine
    from escoba_sim.runs import spec as runspec

    monkeypatch.setattr(runspec, "engine_for", lambda strategies: "cython")
    assert make_spec("greedy", ["maxoros"], None, 10**6).chunk_size == MAX_CHUNK["games"]
    assert make_spec("greedy", ["maxoros"], None, 10**6, hands=True).chunk_size == 10**6 // 2 // 16
    assert make_spec("greedy", ["maxoros"], None, 300).chunk_size == MIN_CHUNK


@pytest.mark.core("ismcts")
def test_default_chunk_of_a_slow_strategy_lands_every_few_seconds(tmp_path):
    # the example: `tournament greedy maxoros ismcts -n 300` played each pair as one 250-deal chunk
    spec = make_spec("greedy", ["ismcts"], None, 300)
    assert spec.chunk_size < MIN_CHUNK and spec.n_chunks >= 4  # every core of a 2-core machine has work
    assert spec.deal_seconds() * spec.chunk_size <= CHUNK_SECONDS
    cheaper = make_spec("greedy", ["ismcts:iters=200"], None, 3000)
    assert spec.chunk_size < cheaper.chunk_size  # the estimate follows the search's iterations
    assert spec.deal_seconds() > make_spec("greedy", ["ismcts:rollout=0"], None, 300).deal_seconds()  # and rollouts
    small = make_spec("greedy", ["ismcts"], None, 40)  # 20 deals: cut in 16ths all the same
    assert (small.chunk_size, small.n_chunks) == (2, 10)
    # a tournament's pairs share one size (chunk k holds the same deals in every pair): the slowest pair's
    specs = [make_spec(a, [b], None, 300) for a, b in (("greedy", "maxoros"), ("greedy", "ismcts"))]
    assert [s.chunk_size for s in specs] == [MIN_CHUNK, spec.chunk_size] == [250, 10]
    assert [s.chunk_size for s in series_chunk_size(tmp_path, "tournament", specs)] == [spec.chunk_size] * 2


@pytest.mark.core("ismcts")
def test_series_default_chunk_is_the_slowest_pairs(tmp_path, monkeypatch):
    from escoba_sim.runs import spec as runspec
    from escoba_sim.series.tournament import tournament

    monkeypatch.setattr(runspec, "CHUNK_SECONDS", 0.01)  # so that a cheap search is "slow": 2 deals a chunk
    slow = make_spec("greedy", ["ismcts:iters=200"], None, 40)
    assert slow.chunk_size < make_spec("greedy", ["maxoros"], None, 40).chunk_size
    s = tournament(["greedy", "maxoros", "ismcts:iters=200"], 40, tmp_path / "t", seed=1)
    sizes = [json.loads(p.read_text())["spec"]["chunk_size"] for p in (tmp_path / "t" / "runs").glob("*/manifest.json")]
    assert sizes == [slow.chunk_size] * 3 and s["chunks"] == -(-20 // slow.chunk_size)
    assert json.loads((tmp_path / "t" / "manifest.json").read_text())["chunk_size"] == slow.chunk_size


@pytest.mark.slow
@pytest.mark.core("ismcts")
def test_ctrl_c_during_a_slow_tournament_keeps_the_chunks_that_landed(tmp_path, interrupt):
    out = tmp_path / "t"
    args = [sys.executable, "-c", "from escoba_sim.cli import main; main()", "tournament", "greedy", "maxoros",
            "ismcts", "-n", "300", "--seed", "1", "-q", "--out", out]
    ready = lambda: len(list((out / "runs" / "01" / "chunks").glob("chunk-*.parquet"))) >= 1  # noqa: E731
    code, _, err = interrupt(args, ready, sig=signal.SIGINT, wait=120)
    assert code == 130, err
    saved = len(list((out / "runs" / "01" / "chunks").glob("chunk-*.parquet")))
    planned = json.loads((out / "runs" / "01" / "manifest.json").read_text())["spec"]
    assert saved >= 1 and planned["chunk_size"] < MIN_CHUNK
    assert "chunks of this run are saved" in err and "0 of" not in err


def test_a_series_continued_without_a_chunk_size_keeps_the_folders_chunk(tmp_path):
    # a folder played with another chunk size (an earlier default, or --chunk): the library's series without
    # one continues it with the folder's size instead of refusing its runs as different ones (the command line
    # refuses to start it again and says to resume it, which reads the manifest's size)
    from escoba_sim.series.tournament import tournament

    args = ["tournament", "greedy", "maxoros", "-n", "600", "--seed", "3", "-j", "1", "--out", tmp_path / "t",
            "--json", "-q"]
    first = invoke(*args, "--chunk", "70")
    assert first.exit_code == 0 and invoke(*args).exit_code == 1
    again = tournament(["greedy", "maxoros"], 600, tmp_path / "t", seed=3)
    resumed = invoke("resume", tmp_path / "t", "--json", "-q")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(json.dumps(again)) == json.loads(resumed.stdout) == json.loads(first.stdout)
    assert json.loads((tmp_path / "t" / "manifest.json").read_text())["chunk_size"] == 70
