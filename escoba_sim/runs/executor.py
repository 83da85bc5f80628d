"""Where chunks are played: the process pool, lazy submission with flat memory.

Stop requests (Ctrl-C, SIGTERM) are ``signals``'s: the pool is waited for in
short slices (``POLL``) so that ``check_stop`` runs between them. Pool workers
ignore SIGINT (the parent decides), and a thread in each worker ends it when
its parent is gone (killed with SIGKILL, say), so no worker outlives the
command waiting for work that will never come.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time
from collections.abc import Callable, Iterable

from .chunk import play_chunk
from .signals import check_stop, ignore_interrupts
from .spec import RunSpec

POLL = 0.1  # seconds between stop checks while waiting for workers
MANAGER_JOIN = 10.0  # seconds: a bound, not a wait; the pool's thread ends as soon as it sees the dead workers


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
    ignore_interrupts()  # only the parent reacts to Ctrl-C; it then stops the workers
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
