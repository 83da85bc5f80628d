"""A run folder is checked, not trusted (issue 11): chunk fingerprints and checksums, a validated manifest,
resume replaying damaged or missing chunks (-j 1 and -j 2), the folder lock, stale temporaries, failures
that keep finished chunks, and Ctrl-C / SIGTERM / SIGKILL in every mode (subprocesses, generous waits)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from conftest import engine_sized
from helpers import needs_core

from escoba_sim.runs import chunk, executor, signals
from escoba_sim.runs import folder as runfolder
from escoba_sim.runs.runner import RunInterrupted, resume, run
from escoba_sim.runs.spec import RunError, make_spec

CLI = [sys.executable, "-m", "escoba_sim.cli"] if shutil.which("escoba-sim") is None else ["escoba-sim"]


def strip(summary):
    return {k: v for k, v in summary.items() if k != "performance"}


def spec_(seed=3, n=24, chunk_size=3):
    return make_spec("greedy", ["random"], None, n, hands=True, seed=seed, chunk_size=chunk_size)


def one_error(result, code=1) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.split("\n") if line.strip()]
    errors = [line for line in lines if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    return errors[0]


@pytest.fixture(scope="module")
def whole():
    return strip(run(spec_()).summary)


# ---------------------------------------------------------------- chunks carry their run's fingerprint

def test_a_chunk_from_another_run_is_replayed_not_mixed(tmp_path, whole):
    a, b = tmp_path / "a", tmp_path / "b"
    run(spec_(), a)
    run(spec_(seed=8), b)  # the same shape, another seed
    shutil.copy(b / "chunks" / runfolder.chunk_name(2), a / "chunks" / runfolder.chunk_name(2))
    with pytest.raises(RunError, match="chunk 2 is from another run or chunk"):
        runfolder.read_run_chunks(a, spec_())
    seen = []
    assert strip(resume(a, on_chunk=seen.append).summary) == whole
    assert [p.chunk for p in seen[1:]] == [2]  # only the foreign chunk was played again
    assert (a / "chunks" / (runfolder.chunk_name(2) + ".damaged")).exists()  # kept aside, not lost


def _edit_value(path: Path, stat: str, value: int) -> None:
    meta = pl.read_parquet_metadata(path)
    df = pl.read_parquet(path).with_columns(
        pl.when(pl.col("stat") == stat).then(value).otherwise(pl.col("value")).alias("value"))
    df.write_parquet(path, metadata={k: v for k, v in meta.items() if k.startswith("escoba_sim.")})


def test_an_edited_chunk_is_caught_by_its_checksum(tmp_path, whole, cli):
    out = tmp_path / "o"
    run(spec_(), out)
    _edit_value(out / "chunks" / runfolder.chunk_name(1), "hands", -999)
    assert "chunk 1 is changed after it was written" in one_error(cli("report", out))
    r = cli("resume", out, "-j", "1", "-q", "--json")
    assert r.exit_code == 0 and strip(json.loads(r.stdout)) == whole
    assert "playing chunk 1 again" in r.stderr


DAMAGE = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:40]),
    "garbage": lambda p: p.write_bytes(b"not parquet at all" * 20),
    "empty": lambda p: p.write_bytes(b""),
    "directory": lambda p: (p.unlink(), p.mkdir()),
    "other_schema": lambda p: pl.DataFrame({"x": [1, 2]}).write_parquet(p),
    "missing": lambda p: p.unlink(),
}


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_resume_replays_a_damaged_or_missing_chunk(tmp_path, whole, cli, damage, jobs):
    out = tmp_path / "o"
    run(spec_(), out)
    DAMAGE[damage](out / "chunks" / runfolder.chunk_name(3))
    if damage == "missing":  # the report reads the chunks before it and says the rest is missing
        r = cli("report", out)
        assert r.exit_code == 0 and "missing: 3" in (out / "report" / "index.html").read_text()
    else:
        one_error(cli("report", out))  # the report refuses the folder and says to resume it
    r = cli("resume", out, "-j", jobs, "-q", "--json")
    assert r.exit_code == 0, r.output
    assert strip(json.loads(r.stdout)) == whole  # was: status incomplete, and no progress with -j 2
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert cli("report", out).exit_code == 0


def test_no_chunks_at_all(tmp_path, whole, cli):
    out = tmp_path / "o"
    run(spec_(), out)
    shutil.rmtree(out / "chunks")
    assert "no finished chunk yet" in one_error(cli("report", out))
    r = cli("resume", out, "-j", "1", "-q", "--json")
    assert r.exit_code == 0 and strip(json.loads(r.stdout)) == whole


# ---------------------------------------------------------------- the manifest is validated like the command line

def _manifest_edit(key, value):
    def edit(m):
        m["spec"][key] = value
    return edit


MANIFESTS = {
    "n=-5": (_manifest_edit("n", -5), "`n` must be a count"),
    "n=1e20": (_manifest_edit("n", 10**20), "`n` must be a count"),
    "chunk_size=-3": (_manifest_edit("chunk_size", -3), "`chunk_size` must be a positive"),
    "chunk_size=true": (_manifest_edit("chunk_size", True), "`chunk_size` must be a positive"),
    "mode=banana": (_manifest_edit("mode", "banana"), "`mode` must be one of games, hands"),
    "seed=2**70": (_manifest_edit("seed", 2**70), "`seed` must be a seed"),
    "seed=text": (_manifest_edit("seed", "7"), "`seed` must be a seed"),
    "unknown strategy": (_manifest_edit("strategies", ["greedy", "banana"]), "unknown strategy `banana`"),
    "one strategy": (_manifest_edit("strategies", ["greedy"]), "2 to 6 strategies"),
    "toml strategy": (_manifest_edit("strategies", ["greedy", "heuristic:/etc/w.toml"]), "canonical strategy"),
    "three for two seats": (_manifest_edit("strategies", ["greedy", "random", "greedy"]), "for 2 players"),
    "sprt": (_manifest_edit("sprt", {"elo0": 5, "elo1": 1, "alpha": 0.05, "beta": 0.05}), "elo0 must be smaller"),
    "rules digest": (_manifest_edit("rules_digest", "0" * 16), "does not have digest"),
    "spec missing": (lambda m: m.pop("spec"), "`spec` must be an object"),
    "spec a list": (lambda m: m.update(spec=[1, 2]), "`spec` must be an object"),
    "old format": (lambda m: m.update(format=1), "output format 1 is not 2"),
}


@pytest.mark.parametrize("case", list(MANIFESTS))
def test_manifest_is_validated(tmp_path, cli, case):
    out = tmp_path / "o"
    run(spec_(), out, only_chunks=[0, 1])
    edit, message = MANIFESTS[case]
    m = json.loads((out / "manifest.json").read_text())
    edit(m)
    (out / "manifest.json").write_text(json.dumps(m))
    assert message in one_error(cli("resume", out, "-j", "1", "-q"))
    line = one_error(cli("report", out))
    assert message in line or (case == "spec missing" and "folder kind" in line)


def test_a_manifest_that_is_a_list_or_deep(tmp_path, cli):
    out = tmp_path / "o"
    run(spec_(), out, only_chunks=[0])
    (out / "manifest.json").write_text("[1, 2]")
    assert "not a manifest (a JSON object)" in one_error(cli("resume", out))
    (out / "manifest.json").write_text("[" * 100_000)
    one_error(cli("resume", out))


def test_an_edited_seed_is_not_mixed_with_the_old_chunks(tmp_path):
    out = tmp_path / "o"
    run(spec_(), out, only_chunks=[0, 1, 2])
    m = json.loads((out / "manifest.json").read_text())
    m["spec"]["seed"] = 8
    (out / "manifest.json").write_text(json.dumps(m))
    assert strip(resume(out).summary) == strip(run(spec_(seed=8)).summary)  # every chunk is seed 8's


# ---------------------------------------------------------------- one writer at a time; stale temporaries

def test_a_locked_folder_is_refused(tmp_path, cli):
    import fcntl

    out = tmp_path / "o"
    run(spec_(), out, only_chunks=[0])
    with open(out / runfolder.LOCK, "w") as held:  # as another process running or resuming it would
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert "in use by another escoba-sim process" in one_error(cli("resume", out, "-j", "1", "-q"))
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        (fresh / runfolder.LOCK).touch()
        with open(fresh / runfolder.LOCK, "w") as held2:
            fcntl.flock(held2, fcntl.LOCK_EX | fcntl.LOCK_NB)
            r = cli("run", "-s", "greedy", "--vs", "random", "--hands", "-n", 6, "-j", 1, "-q", "--out", fresh)
            assert "in use" in one_error(r)
    assert cli("resume", out, "-j", "1", "-q").exit_code == 0  # released with its holder


def test_two_processes_on_one_folder(tmp_path):
    out = tmp_path / "o"
    env = {**os.environ, "ESCOBA_SIM_PURE_PYTHON": "1", "ESCOBA_SIM_REQUIRE_CORE": "0"}
    first = subprocess.Popen(CLI + ["run", "-s", "greedy", "--vs", "random", "--hands", "-n", "100000", "--seed", "1",
                                    "-j", "1", "-q", "--chunk", "200", "--out", str(out)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not list((out / "chunks").glob("chunk-*.parquet")):
            time.sleep(0.1)
        second = subprocess.run(CLI + ["resume", str(out), "-j", "1", "-q"], env=env, capture_output=True, text=True,
                                timeout=120)
        assert second.returncode == 1 and "in use by another escoba-sim process" in second.stderr
        assert "Traceback" not in second.stderr and len(second.stderr.strip().splitlines()) == 1
    finally:
        first.kill()
        first.wait()


def test_stale_temporaries_are_removed(tmp_path, whole):
    out = tmp_path / "o"
    run(spec_(), out, only_chunks=[0])
    stale = [out / ".manifest.json.123.456.tmp", out / "chunks" / ".chunk-000001.parquet.123.456.tmp"]
    for p in stale:
        p.write_text("half written")
    assert strip(resume(out).summary) == whole
    assert not any(p.exists() for p in stale)


def test_interrupt_during_the_final_write_says_interrupted(tmp_path, monkeypatch):
    out = tmp_path / "o"
    real = runfolder.write_json

    def write_json(path, data, root=None):
        if path.name == "summary.json":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the summary is being written
            time.sleep(0.05)
        real(path, data, root)

    monkeypatch.setattr("escoba_sim.runs.runner.write_json", write_json)
    with signals.stop_on_signals(), pytest.raises(RunInterrupted):
        run(spec_(), out)
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert len(list((out / "chunks").glob("chunk-*.parquet"))) == spec_().n_chunks  # every chunk kept


def test_disk_full_with_save_hands_keeps_finished_chunks(tmp_path, cli, monkeypatch):
    real = chunk.write_hands
    calls = []

    def full(rows, path, root=None):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(rows, path, root)

    monkeypatch.setattr(chunk, "write_hands", full)
    out = tmp_path / "o"
    r = cli("run", "-s", "greedy", "--vs", "random", "--hands", "-n", 24, "--chunk", 3, "--seed", 3, "-j", 1, "-q",
            "--out", out, "--save-hands")
    line = one_error(r)
    assert "No space left on device" in line and "2 of 4 chunks are saved" in line and "escoba-sim resume" in line
    monkeypatch.setattr(chunk, "write_hands", real)
    assert cli("resume", out, "-j", "1", "-q").exit_code == 0


def test_a_failing_plugin_keeps_finished_chunks(tmp_path, cli):
    f = tmp_path / "late.py"
    f.write_text("class P:\n    n = 0\n    def choose_move(self, st, moves, rng):\n        P.n += 1\n"
                 "        if P.n > 400:\n            return None\n        return moves[0]\n")
    out = tmp_path / "o"
    r = cli("run", "-s", f"{f}:P", "--vs", "greedy", "--hands", "-n", 40, "--chunk", 2, "--seed", 1, "-j", 1, "-q",
            "--out", out)
    line = one_error(r)
    assert "late.py:P" in line and "choose_move returned NoneType None, not a Move" in line
    kept = len(list((out / "chunks").glob("chunk-*.parquet")))
    assert kept >= 1 and f"{kept} of 10 chunks are saved" in line and "--trust-plugins" in line


def test_the_largest_count_builds_nothing_in_proportion(tmp_path):
    # the default chunk (50,000 deals) on the compiled core; small chunks on the ~1,000x slower reference engine
    deals = engine_sized(50_000, 20)
    spec = make_spec("greedy", ["random"], None, 10**15, hands=True, seed=1, chunk_size=engine_sized(0, deals))
    assert spec.n_chunks == 10**15 // 2 // deals
    r = run(spec, tmp_path / "big", only_chunks=[0, spec.n_chunks - 1])  # instant: no list of every chunk
    assert r.summary["chunks"] == {"planned": spec.n_chunks, "used": 1}


# ---------------------------------------------------------------- signals: stop promptly, keep what finished

def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _start(args, env=None):
    return subprocess.Popen(CLI + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def _wait_for(cond, timeout=180.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _signal_once_running(args, out: Path, workers: int, sig: int) -> tuple[int, float, str]:
    """Start the CLI with ``args``, send ``sig`` a second after the run is under way (its manifest written
    and, with ``workers``, that many worker processes up), and return its exit code, the seconds from the
    signal to its exit and its stderr. The process is killed if it outlives the test."""
    p = _start(args)
    try:
        assert _wait_for(lambda: (out / "manifest.json").exists() and (workers < 2 or len(_children(p.pid)) >= workers))
        time.sleep(1.0)
        took, err = _stop(p, sig)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, took, err


def _stop(p: subprocess.Popen, sig: int) -> tuple[float, str]:
    """Send ``sig``; the seconds until the process has exited (what a shell waits for: helper
    processes that still hold the pipes a moment longer do not count), and its stderr."""
    t0 = time.time()
    p.send_signal(sig)
    p.wait(timeout=120)
    took = time.time() - t0
    return took, p.communicate(timeout=120)[1]


# Chunks of 4 million hands: several seconds each for the compiled core even on a quiet machine,
# so a stop that waited for the chunk in hand (today's behaviour was 15 s) cannot pass the bound.
LONG = ["-s", "greedy", "--vs", "random", "--hands", "-n", "8e7", "--chunk", "2e6", "--seed", "4", "-q"]
STOP_BOUND = 4.0  # seconds from the signal to the exit: "about a second", with room for a loaded machine


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("mode,sig", [("-j1", signal.SIGINT), ("-j1", signal.SIGTERM), ("-j2", signal.SIGINT),
                                      ("-j2", signal.SIGTERM)])
def test_a_signal_stops_a_long_chunk_promptly(tmp_path, mode, sig):
    out = tmp_path / "o"
    # once the run is under way (for -j 2: its workers are playing), the first chunk is still in hand
    code, took, err = _signal_once_running(["run", *LONG, "-j", mode[2:], "--out", out], out, int(mode[2:]), sig)
    assert code == 128 + sig, err
    assert took < STOP_BOUND, f"stopped {took:.1f} s after the signal"
    assert "Traceback" not in err and "Interrupted" in err and "escoba-sim resume" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    saved = len(list((out / "chunks").glob("chunk-*.parquet")))
    assert f"{saved} of 20 chunks of this run are saved" in err


def test_stop_workers_leaves_no_pool_thread_for_exit_to_race():
    # CPython 3.11 wakes a process pool's manager thread at interpreter exit through a pipe that
    # thread closes as it ends, without a lock: an interrupted run sometimes printed an OSError
    # traceback under "Interrupted". Once stop_workers returns, that thread must have ended.
    import concurrent.futures as cf

    pool = executor.make_executor(2)
    futures = [pool.submit(time.sleep, 60) for _ in range(2)]
    assert _wait_for(lambda: all(f.running() for f in futures))
    manager = pool._executor_manager_thread
    t0 = time.time()
    executor.stop_workers(pool)
    assert not manager.is_alive()
    assert time.time() - t0 < STOP_BOUND
    for f in futures:
        with pytest.raises(cf.process.BrokenProcessPool):
            f.result(timeout=0)


def test_ctrl_c_keeps_the_chunk_just_finished(tmp_path, cli):
    """A signal landing between a chunk's play and its file is recorded, not raised there: the chunk is
    saved (the issue saw '0 of 2 chunks saved' after a whole chunk had been played)."""
    out = tmp_path / "o"
    spec = spec_()
    real = runfolder.write_chunk

    def write_chunk(o, s, k, agg):
        if k == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        real(o, s, k, agg)

    import escoba_sim.runs.runner as runner_mod

    orig = runner_mod.write_chunk
    runner_mod.write_chunk = write_chunk
    try:
        with signals.stop_on_signals(), pytest.raises(RunInterrupted) as e:
            run(spec, out)
    finally:
        runner_mod.write_chunk = orig
    assert e.value.done == 2 and len(list((out / "chunks").glob("chunk-*.parquet"))) == 2


ENDLESS = "class P:\n    def choose_move(self, st, moves, rng):\n        while True:\n            pass\n"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("jobs,sig", [("1", signal.SIGINT), ("1", signal.SIGTERM), ("2", signal.SIGTERM)])
def test_an_endless_plugin_stops(tmp_path, jobs, sig):
    """The issue: a plugin in an endless loop ignored two SIGINTs for ten minutes; SIGTERM then gave
    `RuntimeError: release unlocked lock` and a hang."""
    f = tmp_path / "endless.py"
    f.write_text(ENDLESS)
    out = tmp_path / "o"
    code, took, err = _signal_once_running(["run", "-s", f"{f}:P", "--vs", "greedy", "--hands", "-n", "10", "--seed",
                                            "1", "-j", jobs, "-q", "--out", out], out, int(jobs), sig)
    assert code == 128 + sig and took < STOP_BOUND and "Traceback" not in err, err
    assert "release unlocked lock" not in err and "Interrupted" in err


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_workers_exit_when_the_parent_is_killed(tmp_path):
    out = tmp_path / "o"
    p = _start(["run", *LONG, "-j", "2", "--out", out])
    workers = []
    try:
        assert _wait_for(lambda: len(_children(p.pid)) >= 2)
        time.sleep(1.0)
        workers = [w for w in _children(p.pid) if _alive(w)]
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        assert _wait_for(lambda: not any(_alive(w) for w in workers), timeout=30), "workers outlived their parent"
    finally:
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_killed_worker_is_one_line_with_the_resume_command(tmp_path):
    out = tmp_path / "o"
    p = _start(["run", *LONG, "-j", "2", "--out", out])
    try:
        assert _wait_for(lambda: len(_children(p.pid)) >= 2)
        time.sleep(1.0)
        workers = [w for w in _children(p.pid) if _alive(w)]
        os.kill(workers[-1], signal.SIGKILL)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 1, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err and "BrokenProcessPool" not in err, err
    assert "a worker process died" in lines[0] and f"escoba-sim resume {out}" in lines[0]
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_ctrl_c_with_a_local_dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "o"
    p = _start(["run", *LONG, "-j", "2", "--scheduler", "local", "--out", out])
    try:
        assert _wait_for(lambda: (out / "manifest.json").exists(), timeout=300)
        time.sleep(2.0)
        took, err = _stop(p, signal.SIGINT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130 and took < STOP_BOUND, (took, err)
    assert "Traceback" not in err and "Interrupted" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


@pytest.mark.parametrize("play,strategy,count", [("hands", "greedy", 10**8), ("games", "greedy", 10**7),
                                                  ("hands", "ismcts", 10**4), ("games", "ismcts", 10**3)])
def test_the_compiled_core_checks_for_signals_between_hands(play, strategy, count):
    """A signal handler's exception ends a long compiled call (minutes of play here) within a moment."""
    from escoba_sim import batch
    from escoba_sim.game.rules import PRESETS

    needs_core("a long compiled call")

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop

    previous = signal.signal(signal.SIGALRM, handler)
    t0 = time.time()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Stop):
            getattr(batch, f"play_{play}")(PRESETS["ludoteka"], [strategy, "greedy"], 1, 0, count)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.time() - t0 < STOP_BOUND
