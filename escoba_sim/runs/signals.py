"""Stop requests: Ctrl-C and SIGTERM during a run, and the exit status they leave.

A stop request is recorded by the signal handler. Outside a run it raises
``KeyboardInterrupt`` at once, as Python would; inside the run loop
(``deferred_stops``) it only records the request, because an exception raised
at an arbitrary point of the loop can land inside a lock (``cf.wait``, a Dask
future's finalizer) or between writing a chunk and recording it. The loop
checks the request between chunks (``check_stop``), waits for workers in short
slices (``executor``), and opens ``interruptible`` windows only around play in
this process, where raising is safe; there the compiled core checks for
signals between sub-batches of hands, so a long chunk stops within a second.

Every Python-side signal handler of the package is here; the compiled core's
guard (``_core/guard.pxd``) passes a signal on to the handler it finds.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager

_signum = 0  # the first stop request's signal (0: none); a plain int, safe to set in a handler
_last = 0  # the last block's stop signal, kept after it ends for the exit status
_deferred = 0  # > 0 inside the run loop: a stop is recorded, not raised


def _stop_requested(signum, frame):
    global _signum, _last
    _signum = _signum or signum
    _last = _signum
    if not _deferred:
        raise KeyboardInterrupt


def stop_requested() -> int:
    """The signal that asked the run to stop (SIGINT, SIGTERM), or 0."""
    return _signum


def exit_code() -> int:
    """The shell's exit status for a stopped command: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + (_last or signal.SIGINT)


@contextmanager
def stop_on_signals():
    """Within this block Ctrl-C and SIGTERM stop a run (main thread only) so that it can be resumed."""
    global _signum, _last
    try:
        previous = {s: signal.signal(s, _stop_requested) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: leave signals alone
        previous = {}
    _signum = _last = 0
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _signum = 0


def reassert_handlers() -> None:
    """Install the stop handlers again (if ours are active): a library imported since may have
    replaced the process's C-level handler (polars, in some versions, installs its own). The run
    calls it once polars is imported; the compiled core puts Python's handlers back itself before a
    call that may search (``_core/common.pyx``, below this layer)."""
    for s in (signal.SIGINT, signal.SIGTERM):
        try:
            if signal.getsignal(s) is _stop_requested:
                signal.signal(s, _stop_requested)
        except ValueError:  # not the main thread
            return


@contextmanager
def deferred_stops():
    """The run loop: a stop request is only recorded here; ``check_stop`` acts on it."""
    global _deferred
    _deferred += 1
    try:
        yield
    finally:
        _deferred -= 1


@contextmanager
def interruptible():
    """Play in this process: a stop request raises ``KeyboardInterrupt`` at once (and one made
    before entering does too), so long play stops within a second."""
    global _deferred
    saved, _deferred = _deferred, 0
    try:
        check_stop()
        yield
    finally:
        _deferred = saved


def check_stop() -> None:
    if _signum:
        raise KeyboardInterrupt


def ignore_interrupts() -> None:
    """In a pool worker: Ctrl-C is the parent's to act on (it then stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
