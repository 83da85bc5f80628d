"""Stopping a search from another thread: a ``Stop`` that any thread may set (or that sets itself past a
deadline), ``running_under`` to have the calling thread's searches honour it, and ``Stopped``, which a
search that ended because its Stop was set raises instead of returning a half-searched choice.

The compiled searches (``_core.search``: decide_move, decide_blow, the evaluator, read_hands; the hand and
game loops; the vector env's opponents) run without the GIL and read two C flags through esc_stopping()
(csrc/escoba_common.h): ``ATTENTION``, this module's count of running_under blocks whose Stops are set (one
load while it is 0: the searches cost what they did), and then their own thread's block's flag. The signal guard of the main
thread (``_core/guard.pxd``) is apart from this and works as before. The reference engine's searches call
``check()``. Imports nothing of the package but the error base and the catalogue."""

from __future__ import annotations

import array
import contextlib
import threading
import time
from collections.abc import Iterator

from .errors import EscobaError, Parameter
from .i18n import N_

__all__ = ["Stop", "Stopped", "check", "running_under"]

# What the compiled searches read first (esc_attention): how many running_under blocks (in any thread) run under
# a Stop that is set. Each compiled module points its C pointer at this array's one int at import; it is
# written only under _lock.
ATTENTION = array.array("i", [0])
# reentrant: a signal handler (a server's SIGTERM) may set a Stop while its own thread is inside a block's entry
_lock = threading.RLock()
_local = threading.local()  # .blocks: the thread's running_under blocks (_Block), innermost last


class Stopped(EscobaError):
    """A search ended early because a Stop it ran under was set (or its deadline passed): no result is given
    for it (a half-searched move is never returned as a full one)."""

    def __init__(self):
        super().__init__(N_("the search was stopped before it finished"))


class _Block:
    """One running_under block of one thread: the Stops it honours (its own and the enclosing blocks') and the
    flag its searches read (esc_thread_stop points at ``flag``): 1 once any of them is set."""

    __slots__ = ("stops", "flag")

    def __init__(self, stops: tuple[Stop, ...]):
        self.stops = stops
        self.flag = array.array("i", [0])


class Stop:
    """A stop request for the searches that run under it (``running_under``). ``set`` may be called from any
    thread; the searches then end within milliseconds and raise ``Stopped``. ``deadline_seconds``: the Stop
    sets itself that much wall time after it first enters ``running_under`` (None: never)."""

    def __init__(self, deadline_seconds: float | None = None):
        if deadline_seconds is not None and not (isinstance(deadline_seconds, int | float) and deadline_seconds >= 0):
            raise EscobaError(N_("{deadline_seconds} must be a number of seconds (0 or more) or None, got {value}"),
                              parameter="deadline_seconds", deadline_seconds=Parameter("deadline_seconds"),
                              value=repr(deadline_seconds))
        self.deadline_seconds = deadline_seconds
        self._set = False
        self._blocks: set[_Block] = set()  # the running_under blocks (any thread) that honour this Stop now
        self._timer: threading.Timer | None = None
        self._started: float | None = None  # time.monotonic() when it first entered running_under

    def set(self) -> None:
        """Ask every search running under this Stop to end (from any thread; idempotent)."""
        with _lock:
            self._set = True
            for block in self._blocks:
                _raise_flag(block)

    def is_set(self) -> bool:
        """Whether the Stop was set (or its deadline passed)."""
        if not self._set and self._past_deadline():
            self.set()  # the timer thread may not have run yet
        return self._set

    def _past_deadline(self) -> bool:
        return self._started is not None and self.deadline_seconds is not None \
            and time.monotonic() - self._started >= self.deadline_seconds

    def __repr__(self) -> str:
        return f"Stop(deadline_seconds={self.deadline_seconds!r}, set={self._set})"


def _raise_flag(block: _Block) -> None:
    # under _lock
    if not block.flag[0]:
        block.flag[0] = 1
        ATTENTION[0] += 1


def _enter(stops: tuple[Stop, ...]) -> _Block:
    block = _Block(stops)
    timers = []
    with _lock:
        for stop in stops:
            stop._blocks.add(block)
            if stop._set:
                _raise_flag(block)
        inner = stops[-1]
        now = time.monotonic()
        if inner._started is None:
            inner._started = now
        if inner.deadline_seconds is not None and inner._timer is None and not inner._set:
            # the deadline counts from its first block; a timer runs while some block runs under it
            inner._timer = threading.Timer(max(0.0, inner._started + inner.deadline_seconds - now), inner.set)
            inner._timer.daemon = True
            timers.append(inner._timer)
    for t in timers:
        t.start()
    return block


def _leave(block: _Block) -> None:
    timers = []
    with _lock:
        for stop in block.stops:
            stop._blocks.discard(block)
            if not stop._blocks and stop._timer is not None:
                timers.append(stop._timer)  # nothing runs under it now (is_set() still honours the deadline)
                stop._timer = None
        if block.flag[0]:
            ATTENTION[0] -= 1
    for t in timers:
        t.cancel()


def _blocks() -> list[_Block]:
    blocks = getattr(_local, "blocks", None)
    if blocks is None:
        blocks = _local.blocks = []
    return blocks


def current_flag() -> array.array | None:
    """The flag the calling thread's compiled searches read (None: no running_under block), first brought up to
    date with the deadlines of its Stops (the compiled modules call this before each search)."""
    blocks = getattr(_local, "blocks", None)
    if not blocks:
        return None
    block = blocks[-1]
    if not block.flag[0]:
        for stop in block.stops:
            stop.is_set()
    return block.flag


def check() -> None:
    """Raise ``Stopped`` if the calling thread runs under a Stop that is set (the reference engine's searches
    call this in their loops)."""
    blocks = getattr(_local, "blocks", None)
    if blocks and (blocks[-1].flag[0] or any(stop.is_set() for stop in blocks[-1].stops)):
        raise Stopped()


@contextlib.contextmanager
def running_under(stop: Stop) -> Iterator[Stop]:
    """In the calling thread, the searches run inside this block honour ``stop`` and the Stops of the blocks
    around it (raising ``Stopped`` once one is set); blocks nest, and the one before is restored on exit."""
    if not isinstance(stop, Stop):
        raise EscobaError(N_("{stop} must be a Stop, got {value}"), parameter="stop", stop=Parameter("stop"),
                          value=repr(stop))
    blocks = _blocks()
    block = _enter((*blocks[-1].stops, stop) if blocks else (stop,))
    blocks.append(block)
    try:
        yield stop
    finally:
        blocks.pop()
        _leave(block)
