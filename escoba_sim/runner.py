"""Strategy-vs-strategy runs: deals cut into seeded chunks, exact aggregates, resumable output.

The run loop: chunks (``chunk.play_chunk``) are played here or by an executor
(``executor``), saved to the output folder (``runfolder``) as they finish and
merged in index order into the summary (``summary``). The GSPRT is evaluated
on the contiguous prefix of finished chunks, in index order, so an early stop
happens at the same chunk however work was scheduled. What a run is:
``runspec``; its terminal output: ``console``.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import stats
from .chunk import empty_aggregates, merge, play_chunk
from .executor import check_stop, make_executor, run_pool
from .runfolder import (FORMAT, chunk_name, finished_chunks, manifest_path, prepare_out, read_chunk,
                        read_manifest, read_run_chunks, utc_now, write_chunk, write_json)
from .runspec import RunError, RunSpec
from .summary import summarize

class RunInterrupted(Exception):
    """Ctrl-C during a run: finished chunks are saved (when there is an output folder)."""

    def __init__(self, out: Path | None, done: int, total: int):
        super().__init__(f"interrupted with {done} of {total} chunks finished")
        self.out, self.done, self.total = out, done, total


def run_series(out: Path, manifest: dict, keys: tuple[str, ...], specs: list[RunSpec], what: str, *,
               jobs: int = 1, executor=None, argv: list[str] | None = None,
               on_run: Callable[[int], None] | None = None) -> list[list[dict]]:
    """Several runs in one folder (a comparison, a tournament): ``out/manifest.json`` plus
    ``out/runs/NN``, each an ordinary run folder.

    A folder holding another series (its manifest differs on ``keys``) or anything else is
    refused; finished runs are kept and unfinished ones resumed, so an interrupted series
    continues where it stopped. Returns every run's chunk aggregates in chunk order.
    """
    mpath = out / "manifest.json"
    if mpath.exists():
        old = json.loads(mpath.read_text())
        if {k: old.get(k) for k in keys} != {k: manifest[k] for k in keys}:
            raise RunError(f"{out} already holds a different {what}; choose another --out")
    elif out.exists() and any(out.iterdir()):
        raise RunError(f"--out {out}: the folder is not empty and holds no {what}")
    out.mkdir(parents=True, exist_ok=True)
    write_json(mpath, manifest)
    aggregates = []
    for k, spec in enumerate(specs):
        run_dir = out / "runs" / f"{k:02d}"
        resume = (run_dir / "manifest.json").exists()
        if on_run:
            on_run(k)
        if not resume or read_manifest(run_dir).get("status") != "complete":
            run(spec, run_dir, jobs=jobs, executor=executor, resume=resume, argv=argv)
        aggregates.append(read_run_chunks(run_dir, spec))
    return aggregates


@dataclass
class Progress:
    """What a progress callback is told after each finished chunk."""

    chunk: int  # -1 for the first report of a resumed run (the saved chunks)
    chunks_done: int
    chunks_total: int
    units_done: int  # games (or hands) done, this session and loaded
    units_total: int
    hands_computed: int  # hands played in this session
    seconds: float


@dataclass
class RunResult:
    spec: RunSpec
    summary: dict
    out: Path | None = None
    aggregates: dict[str, np.ndarray] = field(default_factory=dict)


def run(spec: RunSpec, out: str | Path | None = None, *, jobs: int = 1, executor: cf.Executor | None = None,
        on_chunk: Callable[[Progress], None] | None = None, resume: bool = False,
        argv: list[str] | None = None, only_chunks: Iterable[int] | None = None) -> RunResult:
    """Play (or finish, with ``resume``) a run and return its summary.

    ``executor``: any ``concurrent.futures.Executor``-like object (``submit``
    returning futures that ``concurrent.futures.wait`` understands, such as a
    Dask client's ``get_executor()``); it is used as given and not shut down.
    Without one, ``jobs == 1`` plays chunks in this process and ``jobs > 1``
    uses a process pool. ``only_chunks`` restricts the session to some chunks
    (tests use it to simulate an interrupted run). Ctrl-C raises
    ``RunInterrupted`` after saving what finished.
    """
    out = Path(out) if out is not None else None
    external = executor is not None
    loaded: dict[int, dict[str, np.ndarray]] = {}
    if out is not None:
        if resume:
            manifest = read_manifest(out)
            if manifest.get("spec") != spec.to_json():
                raise RunError(f"{out} holds a different run")
        else:
            manifest = prepare_out(out, spec, argv)
        for d in ("chunks", "hands"):  # temporaries of a killed process are never part of a run
            for tmp in (out / d).glob(".chunk-*.tmp") if (out / d).is_dir() else ():
                tmp.unlink(missing_ok=True)
        for k, p in sorted(finished_chunks(out, spec).items()):
            try:
                loaded[k] = read_chunk(p)
            except Exception as e:  # a damaged file is replayed rather than trusted
                print(f"warning: {p} is unreadable ({e}); playing chunk {k} again", file=sys.stderr)
        if spec.save_hands:
            (out / "hands").mkdir(exist_ok=True)
        manifest["status"] = "running"
        write_json(manifest_path(out), manifest)
    else:
        manifest = {}
    hands_dir = str(out / "hands") if (out is not None and spec.save_hands) else None
    todo = [k for k in range(spec.n_chunks) if k not in loaded]
    if only_chunks is not None:
        keep = set(only_chunks)
        todo = [k for k in todo if k in keep]

    if out is not None:
        import polars  # noqa: F401  (start-up cost, like the process's own: kept out of hands/s)
    state = _Fold(spec, loaded)
    t0 = time.perf_counter()
    computed_hands = 0
    units_done = sum(spec.chunk_range(k)[1] for k in state.done) * spec.rotations  # a running count: O(1) per chunk
    if on_chunk is not None and state.done:  # a resumed run's bar starts where the saved chunks left it
        on_chunk(Progress(-1, len(state.done), spec.n_chunks, units_done, spec.played, 0, 0.0))

    def finished(k: int, agg: dict[str, np.ndarray]) -> None:
        nonlocal computed_hands, units_done
        if out is not None:
            write_chunk(out, spec, k, agg)
        computed_hands += int(agg["hands"][0])
        units_done += spec.chunk_range(k)[1] * spec.rotations
        state.add(k, agg)
        if on_chunk is not None:
            on_chunk(Progress(k, len(state.done), spec.n_chunks, units_done, spec.played, computed_hands,
                              time.perf_counter() - t0))

    own = None
    try:
        if state.stopped is None and todo:
            if executor is None and jobs <= 1:
                for k in todo:
                    if state.stopped is not None:
                        break
                    finished(k, play_chunk(spec, k, hands_dir))
                    check_stop()
            else:
                if executor is None:
                    own = executor = make_executor(jobs)
                run_pool(executor, spec, todo, hands_dir, max(2, 2 * jobs), state, finished)
    except KeyboardInterrupt:
        if own is not None:
            # workers ignore SIGINT; stop them now rather than wait for their chunks (which
            # are lost anyway): files are only ever renamed into place, so nothing is half-written
            for proc in list(getattr(own, "_processes", {}).values()):
                proc.terminate()
            own.shutdown(wait=False, cancel_futures=True)
            own = None
        if out is not None:
            manifest.update(status="interrupted", ended=utc_now())
            write_json(manifest_path(out), manifest)
        raise RunInterrupted(out, len(state.done), spec.n_chunks) from None
    except BaseException:
        # a chunk that failed (or a lost worker): the finished chunks stay, and resume retries the rest
        if out is not None:
            manifest.update(status="interrupted", ended=utc_now())
            write_json(manifest_path(out), manifest)
        raise
    finally:
        if own is not None:
            own.shutdown(wait=True, cancel_futures=True)
    seconds = time.perf_counter() - t0

    if state.stopped is not None:
        status = "stopped-by-sprt"
        used = state.stopped + 1
        if out is not None:  # chunks past the decision were played in parallel but are not part of the run
            for k in range(state.stopped + 1, spec.n_chunks):
                for d in ("chunks", "hands"):
                    (out / d / chunk_name(k)).unlink(missing_ok=True)
    elif len(state.done) == spec.n_chunks:
        status, used = "complete", spec.n_chunks
    else:
        status, used = "incomplete", state.prefix
    agg = state.merged_upto(used)
    summary = summarize(spec, agg, used, status, state.sprt_json())
    summary["performance"] = {"seconds": seconds, "hands_computed": computed_hands,
                              "hands_per_second": computed_hands / seconds if seconds > 0 and computed_hands else None,
                              "jobs": None if external else jobs}
    if out is not None:
        write_json(out / "summary.json", summary)
        if status != "incomplete":
            manifest.update(status=status, ended=utc_now())
        else:
            manifest.update(status="interrupted", ended=utc_now())
        write_json(manifest_path(out), manifest)
    return RunResult(spec, summary, out, agg)


class _Fold:
    """Finished chunks, merged in chunk-index order as the contiguous prefix grows; the GSPRT decides there."""

    def __init__(self, spec: RunSpec, loaded: dict[int, dict[str, np.ndarray]]):
        self.spec = spec
        self.aggs: dict[int, dict[str, np.ndarray]] = {}
        self.done: set[int] = set()
        self.prefix = 0  # chunks 0 .. prefix-1 are merged
        self.merged: dict[str, np.ndarray] | None = None
        self.stopped: int | None = None
        self.llr = 0.0
        self.history: list[float] = []
        for k in sorted(loaded):
            self.add(k, loaded[k])

    @property
    def held(self) -> int:
        """Chunks finished out of order, waiting for the prefix to reach them."""
        return len(self.aggs)

    def add(self, k: int, agg: dict[str, np.ndarray]) -> None:
        self.done.add(k)
        if self.stopped is not None:
            return
        self.aggs[k] = agg
        while self.prefix in self.aggs and self.stopped is None:
            self.merged = merge(self.merged, self.aggs.pop(self.prefix))
            self.prefix += 1
            sp = self.spec.sprt
            if sp is not None:
                self.llr = stats.sprt_llr([int(v) for v in self.merged["score_hist"]], sp.elo0, sp.elo1)
                self.history.append(self.llr)
                if stats.sprt_decision(self.llr, sp.alpha, sp.beta) is not None:
                    self.stopped = self.prefix - 1
                    self.aggs.clear()

    def merged_upto(self, used: int) -> dict[str, np.ndarray]:
        assert used == self.prefix, (used, self.prefix)
        if self.merged is None:
            return empty_aggregates(self.spec)
        return self.merged

    def sprt_json(self) -> dict | None:
        sp = self.spec.sprt
        if sp is None:
            return None
        lower, upper = stats.sprt_bounds(sp.alpha, sp.beta)
        decision = stats.sprt_decision(self.llr, sp.alpha, sp.beta) if self.prefix else None
        return {"elo0": sp.elo0, "elo1": sp.elo1, "alpha": sp.alpha, "beta": sp.beta,
                "llr": stats.finite(self.llr) if math.isfinite(self.llr) else ("inf" if self.llr > 0 else "-inf"),
                "lower": lower, "upper": upper,
                "decision": {"H1": "accept H1 (elo >= elo1)", "H0": "accept H0 (elo <= elo0)"}.get(decision or "", None),
                "chunks_evaluated": self.prefix, "llr_by_chunk": [stats.finite(v) for v in self.history]}


def resume(out: str | Path, **kw) -> RunResult:
    """Finish the run kept in ``out``; the result equals an uninterrupted run's."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest.get("format") != FORMAT:
        raise RunError(f"{out}: output format {manifest.get('format')} is not {FORMAT}; cannot resume it")
    try:
        spec = RunSpec.from_json(manifest["spec"])
    except (KeyError, TypeError, ValueError) as e:
        raise RunError(f"{out}: the manifest does not describe a run ({e})") from None
    return run(spec, out, resume=True, **kw)
