"""`escoba-sim serve` as a real process under real signals and sockets (issue 36): SIGTERM during a long
analysis exits within 2 s with the hand in play saved, SIGKILL loses no hand (a restart on the folder saves
it from the journal), a client that goes away frees its analysis worker, 1,100 idle sockets lock no client
out and flood no log, and an empty or open --host is one line."""

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from helpers import REPO

pytest.importorskip("uvicorn")

BIG_SAMPLES = 1_000_000  # an analysis at this many deals per decision runs for minutes unless stopped


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A serve process on a free loopback port; ``request`` speaks JSON to it."""

    def __init__(self, out, *args, nofile=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

        def limits():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen([sys.executable, "-m", "escoba_sim.cli", "serve", "--port", str(self.port),
                                      "--out", str(out), *map(str, args)], cwd=REPO, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, preexec_fn=limits,
                                     env={**os.environ, "ESCOBA_SIM_LANG": "en"})
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, self.proc.communicate()
            assert time.monotonic() < deadline, "the server did not start"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)

    def request(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if body is not None else {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def play_a_move(self):
        status, state = self.request("POST", "/api/games", {"rules": "ludoteka", "vs": "greedy"})
        assert status == 200, state
        o = state["options"][0]
        status, state = self.request("POST", f"/api/games/{state['id']}/move", {"card": o["card"], "take": o["take"]})
        assert status == 200, state
        return state

    def stop(self, sig=signal.SIGTERM, timeout=30):
        self.proc.send_signal(sig)
        try:
            return self.proc.communicate(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def record_of(out, served: Served, seat=None):
    """A finished hand's record for the analysis, played against the server."""
    state = served.play_a_move()
    while not state["hand_over"]:
        path = "blow" if state["decision"] == "blow" else "move"
        body = {"option": 0} if path == "blow" else {"card": state["options"][0]["card"],
                                                      "take": state["options"][0]["take"]}
        status, state = served.request("POST", f"/api/games/{state['id']}/{path}", body)
        assert status == 200, state
    return json.loads((out / state["records"][0]).read_text())


def start_analysis(served: Served, record) -> socket.socket:
    """POST the analysis of ``record`` on a raw socket and return it without reading the answer."""
    body = json.dumps(record).encode()
    s = socket.create_connection(("127.0.0.1", served.port))
    s.sendall(b"POST /api/analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    return s


@pytest.mark.core("the hint evaluator")
def test_sigterm_during_a_long_analysis_exits_within_2_s_and_saves_the_hand_in_play(tmp_path):
    out = tmp_path / "hands"
    served = Served(out, "--samples", BIG_SAMPLES)
    try:
        record = record_of(out, served)
        in_play = served.play_a_move()
        sock = start_analysis(served, record)
        time.sleep(1.0)  # the analysis is searching
        start = time.monotonic()
        _out, err = served.stop(signal.SIGTERM)
        took = time.monotonic() - start
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
    sock.close()
    assert took < 2.0, (took, err)
    assert "Traceback" not in err
    saved = [json.loads(p.read_text()) for p in out.glob("*-unfinished.json")]
    assert [r["unfinished"] for r in saved] == ["interrupted: the server stopped"]
    assert any(m["player"] == 0 for m in saved[0]["moves"]) and len(in_play["events"]) >= 2


def test_sigkill_loses_no_hand_a_restart_on_the_folder_saves_it(tmp_path):
    out = tmp_path / "hands"
    served = Served(out)
    state = served.play_a_move()
    served.stop(signal.SIGKILL)
    assert not list(out.glob("*.json"))  # nothing was saved by the dead server itself
    again = Served(out)
    try:
        saved = list(out.glob("*-unfinished.json"))
        assert len(saved) == 1
        record = json.loads(saved[0].read_text())
        person = [m for m in record["moves"] if m["player"] == 0]
        assert person and len(record["moves"]) == sum(e["kind"] in ("lay", "capture", "blow") for e in state["events"])
        assert not list((out / ".in-play").glob("*.json"))
    finally:
        again.stop()


@pytest.mark.core("the hint evaluator")
def test_a_client_that_goes_away_frees_its_analysis_worker(tmp_path):
    out = tmp_path / "hands"
    served = Served(out, "--samples", BIG_SAMPLES)
    try:
        record = record_of(out, served)
        socks = [start_analysis(served, record) for _ in range(4)]  # more than the analysis workers
        time.sleep(0.5)
        status, body = served.request("POST", "/api/analyze", record, timeout=5)
        assert status == 503 and "busy" in body["error"]
        for s in socks:
            s.close()
        deadline = time.monotonic() + 3
        while True:  # the workers end their searches once they see the clients gone
            s = start_analysis(served, record)
            s.settimeout(0.5)
            try:
                answer = s.recv(100)
            except TimeoutError:
                answer = b""  # no answer yet: it is searching, so a worker took it
            s.close()
            if not answer.startswith(b"HTTP/1.1 503"):
                break
            assert time.monotonic() < deadline, "the analyses of clients that went away still hold the workers"
            time.sleep(0.1)
    finally:
        served.stop()


def test_idle_connections_lock_no_client_out_and_flood_no_log(tmp_path):
    out = tmp_path / "hands"
    served = Served(out, nofile=1024)
    idle = []
    try:
        for _ in range(1100):
            try:
                idle.append(socket.create_connection(("127.0.0.1", served.port), timeout=2))
            except OSError:
                break
        time.sleep(0.5)
        start = time.monotonic()
        status, state = served.request("POST", "/api/games", {}, timeout=5)
        assert status == 200 and time.monotonic() - start < 2
        with urllib.request.urlopen(served.url + "/static/page.css", timeout=5) as r:
            assert r.status == 200
    finally:
        for s in idle:
            s.close()
        _out, err = served.stop()
    assert len(err) < 10_000 and "Traceback" not in err, err[:2000]


@pytest.mark.parametrize("args, words", [(["--host", ""], "--host: give an address"),
                                         (["--host", "0.0.0.0"], "--allow-host")])
def test_an_empty_or_open_host_is_one_line_and_exit_1(cli, tmp_path, args, words):
    r = cli("serve", "--port", free_port(), "--out", tmp_path / "hands", *args)
    assert r.exit_code == 1
    assert r.output.count("\n") == 1 and words in r.output and "Traceback" not in r.output
