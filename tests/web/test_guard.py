"""The connection guard of `serve` (escoba_sim/web/guard.py) and the body's read time, on a real uvicorn server
in a thread: headers that never end and a body that never comes are cut, past the connection cap the oldest
idle connection makes way, and an accept failure is logged once a minute, in one line."""

import logging
import socket
import threading
import time

import pytest

uvicorn = pytest.importorskip("uvicorn")

from escoba_sim.web import app as web_app  # noqa: E402
from escoba_sim.web import guard  # noqa: E402


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setattr(guard, "HEADER_SECONDS", 1)
    monkeypatch.setattr(guard, "MAX_CONNECTIONS", 8)
    monkeypatch.setattr(web_app, "BODY_SECONDS", 1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(web_app.create_app(tmp_path / "hands"), host="127.0.0.1", port=port, log_level="warning",
                            http=guard.guarded_protocol())
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    yield port
    srv.should_exit = True
    thread.join(10)


def closed_within(sock: socket.socket, seconds: float) -> bytes:
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except TimeoutError:
        raise AssertionError(f"still open after {seconds} s: {data!r}") from None
    return data


def test_headers_that_never_end_are_cut(server):
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        start = time.monotonic()
        assert closed_within(s, 5) == b""
        assert time.monotonic() - start < 4


def test_a_body_that_never_comes_is_a_408(server):
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{\"rules\"")
        s.settimeout(5)
        assert s.recv(4096).startswith(b"HTTP/1.1 408")


def test_past_the_cap_the_oldest_idle_connection_makes_way(server):
    idle = [socket.create_connection(("127.0.0.1", server)) for _ in range(guard.MAX_CONNECTIONS)]
    try:
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", server)) as s:
            s.sendall(b"GET /static/page.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert closed_within(s, 5).startswith(b"HTTP/1.1 200")
        assert closed_within(idle[0], 2) == b""  # the first to open, idle since, was closed for it
    finally:
        for s in idle:
            s.close()


def test_an_accept_failure_is_logged_once_a_minute_in_one_line(caplog):
    guard.quiet_accept_errors()
    log = logging.getLogger("asyncio")
    try:
        raise OSError(24, "Too many open files")
    except OSError as e:
        for _ in range(100):
            log.error("socket.accept() out of system resource\nexception: %r\nsocket: <socket>" % e, exc_info=True)
    said = [r for r in caplog.records if "accept" in r.getMessage()]
    assert len(said) <= 1  # another test of this process may have used this minute's line
    for r in said:
        assert "\n" not in r.getMessage() and r.exc_info is None and "Too many open files" in r.getMessage()
