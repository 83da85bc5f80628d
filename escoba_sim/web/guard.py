"""The server's guard on connections (``serve``): a cap on open connections, and a deadline for each
request's headers, so that idle or half-open sockets (a slow client, a port scan, a flood) can neither
hold the file descriptors nor lock other clients out; and accept errors (EMFILE) logged once a minute,
not once per loop turn."""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict

from .. import i18n
from ..i18n import N_

MAX_CONNECTIONS = 256  # open at once; past it the longest-waiting idle one is closed for the new one
HEADER_SECONDS = 10  # a connection must send a request's headers within this (after it opens or answers)
LOG_EVERY = 60  # seconds between two log lines of the same accept error
# said before any request is read, so in the default language
TOO_MANY = N_("the server has too many connections open: try again in a few seconds")


def busy_reply() -> bytes:
    body = json.dumps({"error": i18n.translation(i18n.DEFAULT).gettext(TOO_MANY)}).encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))


def guarded_protocol():
    """uvicorn's h11 protocol with the guard: every connection is in ``open`` (oldest first) with the time
    since which it has been waiting for headers (None while a request runs); a sweep closes one that has
    waited past ``HEADER_SECONDS``, and a new connection past ``MAX_CONNECTIONS`` closes the oldest waiting
    one (or, when every connection runs a request, is answered 503 and closed)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    open_: OrderedDict = OrderedDict()
    refusal = busy_reply()
    sweeping: list = []

    def sweep(loop) -> None:
        now = time.monotonic()
        for conn, since in list(open_.items()):
            if since is not None and now - since > HEADER_SECONDS:
                conn.transport.close()
        if open_:
            loop.call_later(1, sweep, loop)
        else:
            sweeping.clear()

    class Guarded(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(open_) >= MAX_CONNECTIONS:
                idle = next((c for c, since in open_.items() if since is not None), None)
                if idle is None:
                    transport.write(refusal)
                    transport.close()
                    return
                idle.transport.close()
                open_.pop(idle, None)
            open_[self] = time.monotonic()
            if not sweeping:
                sweeping.append(True)
                self.loop.call_later(1, sweep, self.loop)

        def connection_lost(self, exc) -> None:
            open_.pop(self, None)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self in open_ and self.cycle is not None and not self.cycle.response_complete:
                open_[self] = None  # its headers came: a request runs (the app bounds the body's time)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self in open_:
                open_[self] = time.monotonic()  # waiting for the next request's headers again
                open_.move_to_end(self)

    return Guarded


class _OncePerMinute(logging.Filter):
    """Lets one record of an accept failure (``socket.accept() out of system resource``) through per
    ``LOG_EVERY`` seconds: asyncio logs one at every turn of the loop while descriptors run out."""

    def __init__(self):
        super().__init__()
        self.last = -float("inf")

    def filter(self, record: logging.LogRecord) -> bool:
        if "accept" not in str(record.msg):
            return True
        now = time.monotonic()
        if now - self.last < LOG_EVERY:
            return False
        self.last = now
        # the cause in one line (asyncio's message and its exception), without the traceback
        lines = str(record.msg).splitlines()
        record.msg = "; ".join(lines[:2]) + " (said once a minute at most)"
        record.args, record.exc_info, record.exc_text = (), None, None
        return True


def quiet_accept_errors() -> None:
    logger = logging.getLogger("asyncio")
    if not any(isinstance(f, _OncePerMinute) for f in logger.filters):
        logger.addFilter(_OncePerMinute())
