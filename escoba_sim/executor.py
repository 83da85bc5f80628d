"""Where chunks are played: the process pool, lazy submission with flat memory, Ctrl-C and SIGTERM."""

from __future__ import annotations

import concurrent.futures as cf
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager

from .chunk import play_chunk
from .runspec import RunSpec

# Ctrl-C or SIGTERM, remembered: Python drops a KeyboardInterrupt raised inside a finalizer
# (a Dask Future.__del__, for one), so the runner also checks this flag after every chunk.
_STOP = threading.Event()


def _stop_requested(signum, frame):
    _STOP.set()
    raise KeyboardInterrupt


@contextmanager
def stop_on_signals():
    """Within this block Ctrl-C and SIGTERM stop a run (main thread only) so that it can be resumed."""
    try:
        previous = {s: signal.signal(s, _stop_requested) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: leave signals alone
        previous = {}
    _STOP.clear()
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _STOP.clear()


def check_stop() -> None:
    if _STOP.is_set():
        raise KeyboardInterrupt


def _ignore_sigint() -> None:
    # only the parent reacts to Ctrl-C; it then cancels the workers' pending chunks
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def make_executor(jobs: int) -> cf.Executor:
    import multiprocessing as mp

    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_ignore_sigint)


def run_pool(executor, spec: RunSpec, todo: list[int], hands_dir: str | None, window: int, state,
              finished: Callable[[int, dict], None]) -> None:
    """Submit chunks lazily, keeping at most ``window`` played-but-unmerged chunks (flat memory).

    ``state`` is the run's fold of finished chunks (``runner._Fold``): its ``stopped`` and ``held``.
    """
    pending: dict[cf.Future, int] = {}
    it = iter(todo)
    exhausted = False
    try:
        while True:
            while not exhausted and state.stopped is None and len(pending) + state.held < window:
                k = next(it, None)
                if k is None:
                    exhausted = True
                    break
                pending[executor.submit(play_chunk, spec, k, hands_dir)] = k
            if not pending:
                return
            done, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
            for f in sorted(done, key=pending.get):
                k = pending.pop(f)
                finished(k, f.result())
            check_stop()
            if state.stopped is not None:
                for f in pending:
                    f.cancel()
                return
    finally:
        for f in pending:
            f.cancel()
