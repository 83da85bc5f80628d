"""Where chunks are played: the process pool, lazy submission with flat memory, Ctrl-C and SIGTERM.

A stop request (Ctrl-C, SIGTERM) is recorded by the signal handler. Outside a
run it raises ``KeyboardInterrupt`` at once, as Python would; inside the run
loop (``deferred_stops``) it only records the request, because an exception
raised at an arbitrary point of the loop can land inside a lock (``cf.wait``,
a Dask future's finalizer) or between writing a chunk and recording it. The
loop checks the request between chunks (``check_stop``), waits for workers in
short slices, and opens ``interruptible`` windows only around play in this
process, where raising is safe; there the compiled core checks for signals
between sub-batches of hands, so a long chunk stops within a second.

Pool workers ignore SIGINT (the parent decides), and a thread in each worker
ends it when its parent is gone (killed with SIGKILL, say), so no worker
outlives the command waiting for work that will never come.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager

from .chunk import play_chunk
from .spec import RunSpec

POLL = 0.1  # seconds between stop checks while waiting for workers
MANAGER_JOIN = 10.0  # seconds: a bound, not a wait; the pool's thread ends as soon as it sees the dead workers
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
    replaced the process's C-level handler (polars, in some versions, installs its own)."""
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


class ChunkFailed(Exception):
    """Chunk ``k`` raised ``error`` (in this process or a worker), or its worker died."""

    def __init__(self, k: int, error: BaseException):
        super().__init__(f"chunk {k}: {error}")
        self.k, self.error = k, error


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:  # reparented: the parent is gone, and nobody will collect our work
            os._exit(1)


def _worker_init(parent: int) -> None:
    # only the parent reacts to Ctrl-C; it then stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="escoba-sim-parent-watch").start()
    from ..batch import quiet_engine_warnings

    quiet_engine_warnings()  # the parent warned once; a warning per worker would repeat it


def make_executor(jobs: int) -> cf.Executor:
    import multiprocessing as mp

    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_worker_init,
                                  initargs=(os.getpid(),))


def stop_workers(executor: cf.ProcessPoolExecutor) -> None:
    """End a process pool now: its chunks in flight are lost anyway, and files are only ever renamed
    into place, so nothing is half-written."""
    processes = getattr(executor, "_processes", None) or {}
    for proc in list(processes.values()):
        proc.terminate()
    manager = getattr(executor, "_executor_manager_thread", None)  # shutdown() forgets it
    # no cancel_futures: the pool's manager thread fails every pending future itself once it sees
    # the dead workers, and (CPython 3.11) trips over any future cancelled meanwhile
    executor.shutdown(wait=False)
    # The manager thread closes its wake-up pipe as it ends, while interpreter exit writes to that
    # pipe without a lock (CPython gh-125451): an exit during that moment printed an OSError
    # traceback under "Interrupted". With the workers dead the thread ends within milliseconds.
    if manager is not None:
        manager.join(timeout=MANAGER_JOIN)


def run_pool(executor, spec: RunSpec, todo: Iterable[int], dirs: tuple, window: int, state,
             finished: Callable[[int, dict], None]) -> None:
    """Submit chunks lazily, keeping at most ``window`` played-but-unmerged chunks (flat memory).

    ``state`` is the run's fold of finished chunks (``runner._Fold``): its ``stopped`` and ``held``.
    Chunks are submitted in index order, and one is always in flight while any is left, so a
    chunk the merged prefix waits for (one being replayed) is never starved by the window.
    """
    pending: dict[cf.Future, int] = {}
    it = iter(todo)
    exhausted = False
    try:
        while True:
            while not exhausted and state.stopped is None and (not pending or len(pending) + state.held < window):
                k = next(it, None)
                if k is None:
                    exhausted = True
                    break
                pending[executor.submit(play_chunk, spec, k, *dirs)] = k
            if not pending:
                return
            done, _ = cf.wait(list(pending), timeout=POLL, return_when=cf.FIRST_COMPLETED)
            for f in sorted(done, key=pending.get):
                k = pending.pop(f)
                try:
                    agg = f.result()
                except Exception as e:  # a BrokenProcessPool too: the chunk's worker died
                    raise ChunkFailed(k, e) from e
                finished(k, agg)
            check_stop()
            if state.stopped is not None:
                for f in pending:
                    f.cancel()
                return
    except BaseException:
        # chunks not started need not run; a process pool is ended by the caller instead
        # (stop_workers), whose manager thread must find its futures not cancelled
        if not isinstance(executor, cf.ProcessPoolExecutor):
            for f in pending:
                f.cancel()
        raise
