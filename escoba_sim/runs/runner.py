"""Strategy-vs-strategy runs: deals cut into seeded chunks, exact aggregates, resumable output.

The run loop: chunks (``chunk.play_chunk``) are played here or by an executor
(``executor``), saved to the output folder (``folder``) as they finish and
merged in index order into the summary (``summary``). The GSPRT is evaluated
deal by deal as the contiguous prefix of finished chunks grows, so an early
stop happens on the same deal however work was scheduled. What a run is:
``spec``; its terminal output: ``output.console``; several runs on the same
deals (compare, tournament): ``series.tables.run_series``.
"""

from __future__ import annotations

import concurrent.futures as cf
import concurrent.futures.process  # noqa: F401  (BrokenProcessPool)
import math
import sys
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..batch import warn_if_slow
from ..errors import EscobaError, Parameter
from ..folders import set_aside
from ..i18n import translate as _
from ..strategies import StrategyError, plugins_in
from . import stats
from .aggregates import ChunkOverflow, empty_aggregates, merge
from .chunk import play_chunk
from .executor import ChunkFailed, make_executor, run_pool, stop_workers
from .folder import (
    ChunkInvalid,
    check_deal_stream,
    chunk_name,
    finished_chunks,
    folder_lock,
    make_subfolders,
    manifest_path,
    prepare_out,
    read_chunk,
    read_deals,
    read_run_spec,
    remove_temporaries,
    resume_command,
    subfolders,
    utc_now,
    write_chunk,
    write_json,
)
from .hand_records import write_records
from .signals import check_stop, deferred_stops, interruptible, reassert_handlers, stop_requested
from .spec import RunError, RunSpec
from .summary import summarize


class RunInterrupted(Exception):
    """Ctrl-C (or SIGTERM: ``signum``) during a run: finished chunks are saved (when there is an output folder)."""

    def __init__(self, out: Path | None, done: int, total: int, summary: dict | None = None, signum: int = 0):
        super().__init__(f"interrupted with {done} of {total} chunks finished")
        self.out, self.done, self.total, self.signum = out, done, total, signum
        self.summary = summary  # of the finished chunks in index order (status "interrupted"), or None


@dataclass(kw_only=True)
class Progress:
    """What a progress callback is told after each finished chunk."""

    chunk: int  # -1 for the first report of a resumed run (the saved chunks)
    chunks_done: int
    chunks_total: int
    units_done: int  # games (or hands) done, this session and loaded
    units_total: int
    hands_computed: int  # hands played in this session
    seconds: float
    # what live standings read: the aggregates of chunks 0 .. chunks_merged-1 (merged in index order, as
    # the final summary merges them), the SPRT's state, and whether nothing more will be merged
    spec: RunSpec | None = None
    aggregates: dict[str, np.ndarray] | None = None
    chunks_merged: int = 0
    sprt: dict | None = None
    final: bool = False


@dataclass
class RunResult:
    spec: RunSpec
    summary: dict
    out: Path | None = None
    aggregates: dict[str, np.ndarray] = field(default_factory=dict)


def run(spec: RunSpec, out: str | Path | None = None, *, jobs: int = 1, executor: cf.Executor | None = None,
        on_chunk: Callable[[Progress], None] | None = None, resume: bool = False,
        argv: list[str] | None = None, only_chunks: Iterable[int] | None = None,
        trust_plugins: bool = True, hand_records: bool = False) -> RunResult:
    """Play (or finish, with ``resume``) a run and return its summary.

    ``executor``: any ``concurrent.futures.Executor``-like object (``submit``
    returning futures that ``concurrent.futures.wait`` understands, such as a
    Dask client's ``get_executor()``); it is used as given and not shut down.
    Without one, ``jobs == 1`` plays chunks in this process and ``jobs > 1``
    uses a process pool. ``only_chunks`` restricts the session to some chunks
    (tests use it to simulate an interrupted run). With ``trust_plugins=False``
    (a spec read from a folder) a run that still has chunks to play with a
    plugin is refused. Ctrl-C raises ``RunInterrupted`` after saving what
    finished; a chunk that fails (a plugin's error, a dead worker, a full disk)
    raises a one-line ``RunError`` that says what is kept and how to continue.
    ``hand_records`` (with ``spec.save_hands`` and ``out``; kept in the manifest, so resume does the
    same): every counted hand also as a hand record (``hand_records``), written as the run ends.
    """
    out = Path(out) if out is not None else None
    with folder_lock(out, create=not resume) if out is not None else nullcontext(), deferred_stops():
        session = _Session(spec, out, on_chunk)
        if out is not None:
            session.open_folder(resume=resume, argv=argv, hand_records=hand_records)
        todo = session.todo(only_chunks)
        plugins = plugins_in(spec.strategies)
        if plugins and not trust_plugins and len(session.loaded) < spec.n_chunks:
            raise RunError(_("{folder} was played with the strategy plugin `{plugin}`, code named by the folder, not "
                             "by you; read it, then run it with: {command}").format(
                                 folder=out, plugin=plugins[0], command=resume_command(out, spec)))
        if out is not None:
            import polars  # noqa: F401  (start-up cost, like the process's own: kept out of hands/s)

            reassert_handlers()
        session.start()
        return session.play(jobs=jobs, executor=executor, todo=todo)


class _Session:
    """One session of a run: the chunks loaded from the folder, those played now, the progress reports.

    ``run`` opens the folder (``open_folder``), ``start`` folds the loaded chunks and starts the clock,
    and ``play`` plays the rest here or on an executor, then writes the summary; every finished chunk
    goes through ``finished`` (saved, counted, folded, reported).
    """

    def __init__(self, spec: RunSpec, out: Path | None, on_chunk: Callable[[Progress], None] | None):
        self.spec, self.out, self.on_chunk = spec, out, on_chunk
        self.loaded: dict[int, dict[str, np.ndarray]] = {}
        self.manifest: dict = {}
        # where chunks write their hands and deals (None: not kept)
        self.dirs = (str(out / "hands") if (out is not None and spec.save_hands) else None,
                     str(out / "deals") if (out is not None and spec.keep_deals) else None)
        self.state: _Fold | None = None
        self.t0 = 0.0
        self.hands_computed = 0  # hands played in this session
        self.units_done = 0  # games (or hands) finished, loaded ones included: a running count, O(1) per chunk

    def open_folder(self, *, resume: bool, argv: list[str] | None, hand_records: bool) -> None:
        out, spec = self.out, self.spec
        try:
            self.manifest = _open_folder(out, spec, resume, argv, self.loaded)
        except OSError as e:
            raise RunError(_("{folder}: cannot write there ({reason})").format(folder=out, reason=e.strerror or e)) \
                from None
        if hand_records and spec.save_hands and self.manifest.get("hand_records") is not True:
            self.manifest["hand_records"] = True  # before any chunk: a resume after a kill writes them too
            write_json(manifest_path(out), self.manifest, out)

    def todo(self, only_chunks: Iterable[int] | None) -> Iterable[int]:
        """The chunks to play, lazily and in index order: a run of 10^15 deals has 10^10 chunks, and no list
        of them is built."""
        spec, loaded = self.spec, self.loaded
        return (k for k in (sorted(set(only_chunks)) if only_chunks is not None else range(spec.n_chunks))
                if k not in loaded and 0 <= k < spec.n_chunks)

    def start(self) -> None:
        spec = self.spec
        self.state = state = _Fold(spec, self.loaded, self.replay)
        if len(self.loaded) < spec.n_chunks:
            warn_if_slow(list(spec.strategies))  # here, once: pool workers stay quiet
        self.t0 = time.perf_counter()
        self.units_done = sum(spec.chunk_range(k)[1] for k in state.done) * spec.rotations
        if self.on_chunk is not None and state.done:  # a resumed run's bar starts where the saved chunks left it
            self.on_chunk(self.progress(-1))

    def replay(self, k: int, cut: int) -> dict[str, np.ndarray]:
        """Chunk ``k`` again, cut after its first ``cut`` deals (the SPRT stopped there)."""
        agg = play_chunk(self.spec, k, *self.dirs, cut=cut)
        if self.out is not None:
            write_chunk(self.out, self.spec, k, agg)
        return agg

    def progress(self, k: int) -> Progress:
        spec, state = self.spec, self.state
        return Progress(chunk=k, chunks_done=len(state.done), chunks_total=spec.n_chunks, units_done=self.units_done,
                        units_total=spec.played, hands_computed=self.hands_computed,
                        seconds=time.perf_counter() - self.t0 if k >= 0 else 0.0, spec=spec,
                        aggregates=state.merged, chunks_merged=state.prefix, sprt=state.sprt_json(history=False),
                        final=state.stopped is not None or state.prefix == spec.n_chunks)

    def finished(self, k: int, agg: dict[str, np.ndarray]) -> None:
        """Chunk ``k`` is played: saved, counted, folded, reported."""
        spec = self.spec
        if self.out is not None:
            write_chunk(self.out, spec, k, agg)
        self.hands_computed += int(agg["hands"][0])
        self.units_done += spec.chunk_range(k)[1] * spec.rotations
        self.state.add(k, agg)
        if self.on_chunk is not None:
            self.on_chunk(self.progress(k))

    def play_here(self, todo: Iterable[int]) -> None:
        """Play in this process, one chunk at a time, stoppable inside a chunk."""
        for k in todo:
            if self.state.stopped is not None:
                break
            try:
                with interruptible():
                    agg = play_chunk(self.spec, k, *self.dirs)
            except Exception as e:
                raise ChunkFailed(k, e) from e
            self.finished(k, agg)
            check_stop()

    def play(self, *, jobs: int, executor: cf.Executor | None, todo: Iterable[int]) -> RunResult:
        """Play ``todo`` and finish the run; a stop or a failure marks the folder interrupted and is raised
        as ``RunInterrupted`` or a ``RunError`` saying what is kept."""
        spec, out, state = self.spec, self.out, self.state
        external = executor is not None
        own = None
        try:
            check_stop()
            if state.stopped is None:
                if executor is None and jobs <= 1:
                    self.play_here(todo)
                else:
                    if executor is None:
                        own = executor = make_executor(jobs)
                    run_pool(executor, spec, todo, self.dirs, max(2, 2 * jobs), state, self.finished)
            seconds = time.perf_counter() - self.t0
            result = _finish(spec, out, self.manifest, state, seconds, self.hands_computed,
                             None if external else jobs)
            check_stop()  # a stop asked for during the final writes: the manifest must not say complete
            return result
        except KeyboardInterrupt:
            if own is not None:
                stop_workers(own)
                own = None
            _mark_interrupted(out, self.manifest)
            partial = summarize(spec, state.merged_upto(state.prefix), state.prefix, "interrupted", state.sprt_json())
            raise RunInterrupted(out, len(state.done), spec.n_chunks, partial, stop_requested()) from None
        except ChunkFailed as e:
            if own is not None:
                stop_workers(own)
                own = None
            _mark_interrupted(out, self.manifest)
            if stop_requested() and isinstance(e.error, cf.process.BrokenProcessPool):
                # the stop signal reached the workers too (sent to the whole process group: `timeout`,
                # `kill -- -PGID`, a CI job cancelled) and ended them: a stop, not a failure
                partial = summarize(spec, state.merged_upto(state.prefix), state.prefix, "interrupted",
                                    state.sprt_json())
                raise RunInterrupted(out, len(state.done), spec.n_chunks, partial, stop_requested()) from None
            raise _failure(e, spec, out, len(state.done)) from None
        except OSError as e:  # writing a chunk, the summary or the manifest: a full disk, a folder gone
            _mark_interrupted(out, self.manifest)
            raise RunError(_("cannot write {path} ({reason}); {kept}"), path=e.filename or out,
                           reason=e.strerror or e, kept=_kept(spec, out, len(state.done))) from None
        except BaseException:
            _mark_interrupted(out, self.manifest)
            raise
        finally:
            if own is not None:
                own.shutdown(wait=True, cancel_futures=True)


def _open_folder(out: Path, spec: RunSpec, resume: bool, argv, loaded: dict) -> dict:
    """Prepare ``out`` (locked) for this session and load its verified chunks into ``loaded``."""
    if resume:
        manifest, on_disk = read_run_spec(out)
        if on_disk != spec:
            raise RunError(_("{folder} holds a different run").format(folder=out))
        check_deal_stream(out, manifest)
    else:
        manifest = prepare_out(out, spec, argv)
    remove_temporaries(out)  # the lock is ours: any temporary file is a killed writer's
    make_subfolders(out, subfolders(spec))  # a symlinked chunks/, hands/ or deals/ is refused
    bad = 0
    for k, p in sorted(finished_chunks(out, spec).items()):
        try:
            loaded[k] = read_chunk(p, spec, k)
        except ChunkInvalid as e:  # replayed rather than trusted; the file is kept aside, not lost
            bad += 1
            set_aside(p, str(e), _("playing chunk {k}").format(k=k), warn=bad <= 3, strict=True)
    if spec.keep_deals:  # a chunk whose deal file is missing or bad is played again, both files rewritten
        for k in sorted(loaded):
            p = out / "deals" / chunk_name(k)
            try:
                read_deals(p, spec, k)
            except ChunkInvalid as e:
                bad += 1
                del loaded[k]
                set_aside(p, str(e), _("playing chunk {k}").format(k=k), warn=bad <= 3, strict=True)
    if bad > 3:
        print(_("warning: {n} chunks in all are damaged or not this run's; playing them again").format(n=bad),
              file=sys.stderr)
    manifest["status"] = "running"
    write_json(manifest_path(out), manifest, out)
    return manifest


def _finish(spec: RunSpec, out: Path | None, manifest: dict, state: _Fold, seconds: float, computed_hands: int,
            jobs: int | None) -> RunResult:
    if state.stopped is not None:
        status = "stopped-by-sprt"
        used = state.stopped + 1
        if out is not None:  # chunks past the decision were played in parallel but are not part of the run
            for d in ("chunks", "hands", "deals"):
                for p in list((out / d).glob("chunk-*.parquet")) if (out / d).is_dir() else ():
                    k = _chunk_index(p)
                    if k is not None and k > state.stopped:
                        p.unlink(missing_ok=True)
    elif len(state.done) == spec.n_chunks:
        status, used = "complete", spec.n_chunks
    else:
        status, used = "incomplete", state.prefix
    agg = state.merged_upto(used)
    summary = summarize(spec, agg, used, status, state.sprt_json())
    summary["performance"] = {"seconds": seconds, "hands_computed": computed_hands,
                              "hands_per_second": computed_hands / seconds if seconds > 0 and computed_hands else None,
                              "jobs": jobs}
    if out is not None:
        write_json(out / "summary.json", summary, out)
        if spec.save_hands and manifest.get("hand_records") is True:  # before the folder is marked finished
            write_records(out, spec, used)
        manifest.update(status=status if status != "incomplete" else "interrupted", ended=utc_now())
        write_json(manifest_path(out), manifest, out)
    return RunResult(spec, summary, out, agg)


def _chunk_index(p: Path) -> int | None:
    try:
        return int(p.name.split("-")[1].split(".")[0])
    except (IndexError, ValueError):
        return None


def _mark_interrupted(out: Path | None, manifest: dict) -> None:
    if out is None or not manifest:
        return
    manifest.update(status="interrupted", ended=utc_now())
    try:
        write_json(manifest_path(out), manifest, out)
    except OSError:  # the folder cannot be written (a full disk): the error being raised says so
        pass


def _kept(spec: RunSpec, out: Path | None, done: int) -> EscobaError:
    """What a failed run keeps, as a part of its message (``{kept}``), the parameter named by the front end."""
    if out is None:
        return EscobaError(_("nothing was saved (use {out} DIR to keep finished chunks)"), out=Parameter("out"))
    return EscobaError(_("{done} of {total} chunks are saved in {folder}; continue with: {command}"),
                       done=done, total=spec.n_chunks, folder=out, command=resume_command(out, spec))


def _failure(e: ChunkFailed, spec: RunSpec, out: Path | None, done: int) -> RunError:
    err = e.error
    if isinstance(err, cf.process.BrokenProcessPool):
        what = _("a worker process died (killed, or out of memory)")
    elif isinstance(err, StrategyError):
        what = str(err)
    elif isinstance(err, OSError):
        what = _("cannot write {path} ({reason})").format(path=err.filename or _("its files"),
                                                          reason=err.strerror or err)
    elif isinstance(err, ChunkOverflow):  # it names chunk_size, which the front end renders (--chunk)
        what = EscobaError("OverflowError: {problem}", problem=err)
    else:
        what = f"{type(err).__name__}: {' '.join(str(err).split())}"
    return RunError(_("chunk {k} failed: {problem}; {kept}"), k=e.k, problem=what, kept=_kept(spec, out, done))


class _Fold:
    """Finished chunks, merged in chunk-index order as the contiguous prefix grows.

    With ``--sprt`` the GSPRT is checked after every deal, in deal order (each chunk keeps
    its deals' scores): when it decides inside a chunk, ``replay`` plays that chunk again
    cut after the deciding deal, so the run ends exactly there, whatever ``--jobs`` was.
    """

    def __init__(self, spec: RunSpec, loaded: dict[int, dict[str, np.ndarray]],
                 replay: Callable[[int, int], dict[str, np.ndarray]]):
        self.spec = spec
        self.replay = replay
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
            k = self.prefix
            agg = dict(self.aggs.pop(k))
            sp = self.spec.sprt
            if sp is not None:
                hist = self.merged["score_hist"] if self.merged is not None else np.zeros(2 * self.spec.rotations + 1)
                path = stats.sprt_llr_path([int(v) for v in hist], agg.pop("deal_score"), sp.elo0, sp.elo1)
                at = next((i for i, v in enumerate(path) if stats.sprt_decision(v, sp.alpha, sp.beta)), None)
                if at is not None and at + 1 < len(path):
                    agg = dict(self.replay(k, at + 1))
                    agg.pop("deal_score")
                if path:
                    self.llr = path[len(path) - 1 if at is None else at]
                self.history.append(self.llr)
                if at is not None:
                    self.stopped = k
                    self.aggs.clear()
            self.merged = merge(self.merged, agg)
            self.prefix += 1

    def merged_upto(self, used: int) -> dict[str, np.ndarray]:
        assert used == self.prefix, (used, self.prefix)
        if self.merged is None:
            return empty_aggregates(self.spec)
        return self.merged

    def sprt_json(self, history: bool = True) -> dict | None:
        """The SPRT's state as the summary keeps it; without ``history`` no LLR by chunk (a live report's,
        which would otherwise copy a list as long as the run's chunks on every chunk)."""
        sp = self.spec.sprt
        if sp is None:
            return None
        lower, upper = stats.sprt_bounds(sp.alpha, sp.beta)
        decision = stats.sprt_decision(self.llr, sp.alpha, sp.beta) if self.prefix else None
        deals = int(self.merged["clusters"][0]) if self.merged is not None else 0
        return {"elo0": sp.elo0, "elo1": sp.elo1, "alpha": sp.alpha, "beta": sp.beta,
                "llr": stats.finite(self.llr) if math.isfinite(self.llr) else ("inf" if self.llr > 0 else "-inf"),
                "lower": lower, "upper": upper,
                "decision": {"H1": "accept H1 (elo >= elo1)", "H0": "accept H0 (elo <= elo0)"}.get(decision or "", None),
                "deals": deals, self.spec.mode: deals * self.spec.rotations,
                "chunks_evaluated": self.prefix} | (
                    {"llr_by_chunk": [stats.finite(v) for v in self.history]} if history else {})


def resume(out: str | Path, *, trust_plugins: bool = False, **kw) -> RunResult:
    """Finish the run kept in ``out``; the result equals an uninterrupted run's. The folder's plugins
    are run only with ``trust_plugins`` (they were named by the folder, not by the caller)."""
    out = Path(out)
    _, spec = read_run_spec(out)
    return run(spec, out, resume=True, trust_plugins=trust_plugins, **kw)
