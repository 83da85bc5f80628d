"""Runs on a real Dask cluster: scheduler and workers as separate processes on 127.0.0.1.

The results must equal a local run with the same seed (summary, chunk
aggregates, per-hand files) for run, resume, compare and tournament; a worker
killed with SIGKILL while it plays a chunk loses only that chunk, which
another worker plays again; ``--scheduler local`` starts an embedded cluster;
without the dask extra the option fails with one line, and nothing imports
dask unless ``--scheduler`` is given.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import engine_sized
from helpers import REPO

from escoba_sim.runs import folder as runfolder
from escoba_sim.runs.cluster import executor_for
from escoba_sim.runs.runner import run
from escoba_sim.runs.spec import make_spec
from escoba_sim.series import tables

distributed = pytest.importorskip("distributed")

MISSING = 'Error: --scheduler needs the dask extra: pip install "escoba-sim[dask]"'


def strip(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "performance"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaskProcesses:
    """``dask scheduler`` and ``dask worker`` subprocesses on loopback; ``close()`` kills whatever is left."""

    def __init__(self, logs: Path, workers: int = 2, nanny: bool = False):
        self.logs = logs
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        port = free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        self._env = env
        self._start("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"])
        for i in range(workers):
            p = self._start(f"worker{i}", ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                                          "--no-dashboard", "--nanny" if nanny else "--no-nanny"])
            self.workers.append(p)
        with distributed.Client(self.address, timeout="30s") as c:
            c.wait_for_workers(workers, timeout=60)

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")
        p = subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, cwd=self.logs, env=self._env, start_new_session=True)
        log.close()
        self.procs.append(p)
        return p

    def close(self) -> None:
        """Workers first (they would wait for a vanished scheduler), then the scheduler; SIGKILL after 5 s."""
        for group in (self.workers, self.procs[:1]):
            for p in group:
                if p.poll() is None:
                    p.terminate()
            deadline = time.monotonic() + 5
            for p in group:
                try:
                    p.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=5)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    c = DaskProcesses(tmp_path_factory.mktemp("dask"))
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def fresh_cluster(tmp_path):
    (tmp_path / "logs").mkdir()
    c = DaskProcesses(tmp_path / "logs")
    try:
        yield c
    finally:
        c.close()


def chunk_aggs(out: Path, spec) -> dict:
    return {k: runfolder.read_chunk(p, spec, k) for k, p in sorted(runfolder.finished_chunks(out, spec).items())}


def assert_same_aggs(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].keys() == b[k].keys()
        for stat in a[k]:
            assert (a[k][stat] == b[k][stat]).all(), (k, stat)


def test_run_on_cluster_equals_local(cli, dask_cluster, tmp_path):
    n = engine_sized(30000, 3000)
    args = ["run", "-s", "greedy", "--vs", "maxoros", "--hands", "-n", str(n), "--seed", "11", "--chunk", str(n // 30),
            "--json", "-q"]
    r = cli(*args, "--scheduler", dask_cluster.address, "--out", tmp_path / "dask")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    spec = make_spec("greedy", ["maxoros"], None, n, hands=True, seed=11, chunk_size=n // 30)
    assert spec.n_chunks == 15
    want = run(spec, tmp_path / "local", jobs=1)
    assert got["status"] == "complete"
    assert strip(got) == strip(want.summary)
    assert strip(json.loads((tmp_path / "dask" / "summary.json").read_text())) == strip(want.summary)
    assert_same_aggs(chunk_aggs(tmp_path / "dask", spec), chunk_aggs(tmp_path / "local", spec))
    assert json.loads((tmp_path / "dask" / "manifest.json").read_text())["status"] == "complete"


def test_resume_on_cluster_equals_uninterrupted(cli, dask_cluster, tmp_path):
    spec = make_spec("greedy", ["random"], "tradicional", engine_sized(2000, 400), seed=5,
                     chunk_size=engine_sized(100, 20))
    assert spec.n_chunks == 10
    run(spec, tmp_path / "part", only_chunks=[0, 3, 4])  # as if interrupted
    assert runfolder.read_manifest(tmp_path / "part")["status"] == "interrupted"
    r = cli("resume", tmp_path / "part", "--scheduler", dask_cluster.address, "--json", "-q")
    assert r.exit_code == 0, r.output
    assert strip(json.loads(r.stdout)) == strip(run(spec).summary)


def test_compare_and_tournament_on_cluster(cli, dask_cluster, tmp_path):
    n = engine_sized(400, 100)
    r = cli("compare", "--vary", "ties=shared,none", "-n", n, "--seed", "2", "--out", tmp_path / "c1", "--json",
            "--scheduler", dask_cluster.address)
    assert r.exit_code == 0, r.output
    local = cli("compare", "--vary", "ties=shared,none", "-n", n, "--seed", "2", "--out", tmp_path / "c2",
                "--json")
    assert json.loads(r.stdout) == json.loads(local.stdout)
    assert tables.read_tables(tmp_path / "c1")["effects"].equals(tables.read_tables(tmp_path / "c2")["effects"])

    n = engine_sized(300, 60)
    r = cli("tournament", "greedy", "maxoros", "random", "-n", n, "--seed", "4", "--out", tmp_path / "t1",
            "--json", "--scheduler", dask_cluster.address, "-j", "3")
    assert r.exit_code == 0, r.output
    local = cli("tournament", "greedy", "maxoros", "random", "-n", n, "--seed", "4", "--out", tmp_path / "t2",
                "--json")
    assert json.loads(r.stdout) == json.loads(local.stdout)


def test_killed_worker_loses_only_its_chunk(fresh_cluster, tmp_path):
    """SIGKILL a worker while it plays a chunk: the scheduler gives the chunk to the other worker; same files."""
    from escoba_sim.runs.cluster import connect

    # 16 chunks (of n / 32 deals, both seats) long enough to be caught mid-play: 64k games on the core, 480 on
    # the reference engine
    n = engine_sized(64_000, 480)
    spec = make_spec("greedy", ["maxoros"], None, n, seed=21, chunk_size=n // 32, save_hands=True)
    assert spec.n_chunks == 16
    killed: dict = {}
    with connect(fresh_cluster.address) as ex:
        assert ex.jobs == 2
        pids = ex.client.run(os.getpid)  # worker address -> pid (no nanny: the dask worker process itself)
        assert sorted(pids.values()) == sorted(p.pid for p in fresh_cluster.workers)

        def on_chunk(progress):
            if killed:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                busy = {w: ts for w, ts in ex.client.processing().items() if ts}
                if busy:
                    addr = sorted(busy)[0]
                    killed.update(address=addr, tasks=list(busy[addr]), done=progress.chunks_done)
                    os.kill(pids[addr], signal.SIGKILL)
                    return
                time.sleep(0.005)

        got = run(spec, tmp_path / "dask", executor=ex, jobs=ex.jobs, on_chunk=on_chunk)
        assert killed and killed["tasks"], "no worker was playing a chunk when one was to be killed"
        assert killed["done"] < spec.n_chunks
        assert list(ex.client.nthreads()) == [a for a in pids if a != killed["address"]]
    dead = next(p for p in fresh_cluster.workers if p.pid == pids[killed["address"]])
    assert dead.wait(timeout=10) == -signal.SIGKILL

    want = run(spec, tmp_path / "local", jobs=1)
    assert got.summary["status"] == "complete"
    assert strip(got.summary) == strip(want.summary)
    assert_same_aggs(chunk_aggs(tmp_path / "dask", spec), chunk_aggs(tmp_path / "local", spec))
    import polars as pl

    for name in sorted(os.listdir(tmp_path / "local" / "hands")):
        assert pl.read_parquet(tmp_path / "dask" / "hands" / name).equals(
            pl.read_parquet(tmp_path / "local" / "hands" / name)), name
    visible = sorted(n for n in os.listdir(tmp_path / "dask" / "hands") if not n.startswith("."))
    assert visible == sorted(os.listdir(tmp_path / "local" / "hands"))


def test_scheduler_local(cli, tmp_path):
    """--scheduler local: an embedded cluster of worker processes, the same result as a local run."""
    n, chunk = engine_sized(3000, 600), engine_sized(100, 20)
    r = cli("run", "-s", "greedy", "--vs", "random", "--vs", "maxoros", "--hands", "-n", n, "--seed", "8",
            "--chunk", chunk, "-j", "2", "--json", "--scheduler", "local")
    assert r.exit_code == 0, r.output
    assert "2 worker threads" in r.stderr
    spec = make_spec("greedy", ["random", "maxoros"], None, n, hands=True, seed=8, chunk_size=chunk)
    assert strip(json.loads(r.stdout)) == strip(run(spec).summary)


@pytest.mark.parametrize("command", [
    ["run", "-s", "greedy", "--vs", "maxoros", "-n", "10", "--seed", "1"],
    ["resume", "nowhere"],
    ["compare", "--vary", "ties=shared,none", "-n", "10", "--seed", "1", "--out", "{out}"],
    ["tournament", "greedy", "maxoros", "-n", "10", "--seed", "1", "--out", "{out}"],
])
def test_missing_dask_is_one_line(cli, monkeypatch, tmp_path, command):
    for name in [m for m in sys.modules if m == "distributed" or m.startswith("distributed.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now raises ImportError
    if command[0] == "resume":
        spec = make_spec("greedy", ["maxoros"], None, 10, seed=1)
        run(spec, tmp_path / "r", only_chunks=[])
        command = ["resume", tmp_path / "r"]
    r = cli(*[str(a).format(out=tmp_path / "o") for a in command], "--scheduler", "local")
    assert r.exit_code != 0
    assert r.stderr.strip().splitlines()[-1] == MISSING
    assert r.stdout == ""


def test_unreachable_scheduler_is_one_line(cli):
    port = free_port()  # nothing listens there
    from escoba_sim.runs import cluster

    old = cluster.CONNECT_TIMEOUT
    cluster.CONNECT_TIMEOUT = "1s"
    try:
        r = cli("run", "-s", "greedy", "--vs", "maxoros", "-n", "10", "--seed", "1",
                "--scheduler", f"tcp://127.0.0.1:{port}")
    finally:
        cluster.CONNECT_TIMEOUT = old
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: --scheduler: cannot reach a Dask scheduler at "
                                                        f"tcp://127.0.0.1:{port}")


def test_dask_is_not_imported_without_scheduler(tmp_path):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from escoba_sim.runs import cluster, runner\n"
        "from escoba_sim.series import compare, tournament\n"
        "from escoba_sim.cli import main\n"
        "r = CliRunner().invoke(main, ['run', '-s', 'greedy', '--vs', 'maxoros', '-n', '20', '--seed', '1',"
        " '-j', '1', '--json'], catch_exceptions=False)\n"
        "assert r.exit_code == 0, r.output\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert p.returncode == 0, p.stdout + p.stderr


def test_cluster_failures_are_explained_in_one_line():
    from distributed.scheduler import KilledWorker

    from escoba_sim.cli.errors import render
    from escoba_sim.runs.cluster import explain

    killed = explain(KilledWorker("play_chunk-1", "tcp://127.0.0.1:1", 3))
    # a Python caller reads the parameter, the command line its flag; the command is argv either way
    assert "kept with out:" in str(killed) and killed.render(lambda name: "--" + name).count("--out") == 1
    assert render(killed).endswith("continue with escoba-sim resume DIR --scheduler ...")
    assert "install escoba-sim" in str(explain(ModuleNotFoundError("No module named 'escoba_sim'", name="escoba_sim")))
    assert explain(ModuleNotFoundError("No module named 'foo'", name="foo")) is None
    assert explain(ValueError("a bug")) is None


@pytest.mark.skipif(shutil.which("escoba-sim") is None, reason="the console script is not installed")
def test_ctrl_c_on_cluster_then_resume(dask_cluster, tmp_path, interrupt):
    """Ctrl-C keeps the finished chunks as in a local run (exit 130); resume on the cluster gives the same result."""
    out = tmp_path / "o"
    n = engine_sized(20000, 4000)  # 200 (40) chunks of 100 hands
    args = ["escoba-sim", "run", "-s", "greedy", "--vs", "random", "--hands", "-n", str(n), "--seed", "7",
            "--chunk", "50", "-q", "--out", str(out), "--scheduler", dask_cluster.address]
    code, _, err = interrupt(args, lambda: len(list((out / "chunks").glob("chunk-*.parquet"))) >= 2)
    assert code == 130, err
    assert f"escoba-sim resume {out}" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    saved = len(list((out / "chunks").glob("chunk-*.parquet")))
    assert 2 <= saved < n // 100
    r = subprocess.run(["escoba-sim", "resume", str(out), "--json", "--scheduler", dask_cluster.address],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    spec = make_spec("greedy", ["random"], None, n, hands=True, seed=7, chunk_size=50)
    assert strip(json.loads(r.stdout)) == strip(run(spec).summary)
    assert json.loads(r.stdout)["performance"]["hands_computed"] == n - saved * 100


def test_executor_for_without_a_scheduler_is_local():
    with executor_for(None, 3) as (executor, jobs):
        assert executor is None and jobs == 3
    with executor_for(None) as (executor, jobs):
        assert executor is None and jobs == (os.cpu_count() or 1)


# ------------------------------------------------------------------ issue 36, finding 12: not a Dask scheduler

class FakeServer:
    """A TCP server on loopback that answers every connection with ``reply`` (after reading what the client
    sends first when ``wait_for_client``, as a web server does), or says nothing when ``reply`` is None."""

    def __init__(self, reply: bytes | None, wait_for_client: bool = True):
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.reply, self.wait_for_client, self.held = reply, wait_for_client, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(c)
            try:
                if self.wait_for_client:
                    c.recv(4096)
                if self.reply is not None:
                    c.sendall(self.reply)
            except OSError:
                pass

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


NOT_DASK = {
    "http": (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", True),
    "garbage-at-once": (b"\xff" * 64, False),
    "a-plausible-huge-length": ((64 << 20).to_bytes(8, "little") + b"\0" * 32, False),
    "not-dask-frames": ((40).to_bytes(8, "little") + (500).to_bytes(8, "little") + b"\0" * 32, False),
}


@pytest.mark.parametrize("answer", list(NOT_DASK))
def test_a_scheduler_address_that_answers_but_is_not_dask_is_one_line_at_once(answer):
    reply, wait = NOT_DASK[answer]
    server = FakeServer(reply, wait)
    try:
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "escoba_sim.cli", "run", "-s", "greedy", "--vs", "greedy", "-n",
                            "10", "--seed", "1", "-q", "--scheduler", server.address],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
        took = time.monotonic() - t0
    finally:
        server.close()
    assert p.returncode == 1 and took < 8, (took, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --scheduler: {server.address} answers, but not as a "
                                                   "Dask scheduler ("), p.stderr


def test_a_silent_scheduler_address_is_one_line_within_the_connect_timeout(cli, monkeypatch):
    from escoba_sim.runs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    server = FakeServer(None)
    try:
        t0 = time.monotonic()
        r = cli("run", "-s", "greedy", "--vs", "greedy", "-n", "10", "--seed", "1", "-q", "--scheduler", server.address)
        took = time.monotonic() - t0
    finally:
        server.close()
    assert r.exit_code == 1 and took < 5
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: --scheduler: {server.address} answers, but not as "
                                                        "a Dask scheduler (no Dask handshake came")


def test_a_real_scheduler_passes_the_check():
    from escoba_sim.runs.cluster import check_speaks_dask

    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=":0") as c:
        assert c.scheduler_address.startswith("tcp://")
        check_speaks_dask(c.scheduler_address, seconds=5)


def test_what_dask_itself_cannot_read_is_one_line_too(cli, monkeypatch):
    from escoba_sim.runs import cluster

    monkeypatch.setattr(cluster, "check_speaks_dask", lambda scheduler: None)  # the check missed it: Dask reads it
    server = FakeServer(NOT_DASK["http"][0])
    try:
        r = cli("run", "-s", "greedy", "--vs", "greedy", "-n", "10", "--seed", "1", "-q", "--scheduler", server.address)
    finally:
        server.close()
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: --scheduler: {server.address} answers, but not as "
                                                        "a Dask scheduler (MemoryError")
