"""What compare and tournament share: a series of runs on the same deals, paired per-deal tables,
intervals, and the table files.

A series (a comparison, a tournament) is several ordinary runs in one folder,
each with the series' seed and chunk size, so chunk ``k`` of every run holds the
same deal indices (common random numbers). ``run_series`` plays (or finishes)
the runs; ``series_deal_sums`` puts their per-deal vectors side by side, deal by
deal, for the deal model's paired intervals (``stats``); ``interval`` turns an
estimate and its standard error into the 95 % interval of the tables (``proportion`` for a share or a
score: never outside [0, 1]). The
tables are Polars frames of a few shared shapes (``estimate_frame``,
``category_frame``, ``count_frame``, ``convergence_frame``; the shapes are
described in ``output.charts``), written to ``DIR/tables/*.parquet``
(``write_results``, ``read_tables``) and into ``summary.json`` (``json_rows``).
``series_completeness`` says which runs of a series folder are finished.

Series folder (format 2)::

    DIR/manifest.json       kind ("compare", "tournament"), format, what the series is, one
                            ``{"run": "runs/NN"}`` per run (under ``rulesets`` or ``pairs``) and,
                            once the results are written, ``results``: the SHA-256 of each file below
    DIR/runs/NN/            one runner output folder per run (resumable on its own), with deals/
                            (each deal file with its chunk's fingerprint and a checksum, as chunks)
    DIR/tables/*.parquet    the result tables
    DIR/summary.json        the same tables as JSON

Nothing in it is trusted: a run's chunks and deal files are verified as they are read (resume
plays a bad one again; ``series_deal_sums`` refuses it in one line), the result files are
read only through ``read_results`` against the manifest's checksums, and a folder of an
earlier format is refused in one line (``check_series_format``).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from .. import folders
from ..errors import Command
from ..files import UntrustedFile, atomic_write, parse_json, read_bytes, read_json_object, write_json
from ..folders import OUT
from ..i18n import N_
from ..i18n import translate as _
from ..runs import runner, stats
from ..runs.aggregates import gram, merge
from ..runs.folder import (
    STATUS,
    FolderError,
    continued_by,
    folder_lock,
    holds_run,
    make_subfolders,
    new_manifest,
    read_manifest,
    read_run_chunks,
    read_run_deals,
)
from ..runs.hand_records import check_records, records_whole
from ..runs.spec import RunError, RunSpec
from .lineups import two_sided

SERIES_FORMAT = 2  # the series folder's layout (2: deal files and result files carry checksums)
RESULT_FILE = re.compile(r"tables/[a-z_]{1,40}\.parquet|summary\.json")
TABLE_LIMIT = 1 << 30

# --- playing the runs and pairing them by deal ----------------------------------------------

# a series' folder errors, one sentence per kind (``what``): the words agree with the kind in Spanish
HOLDS_ANOTHER = {
    "comparison": N_("{folder} already holds a different comparison; choose another {out}"),
    "tournament": N_("{folder} already holds a different tournament; choose another {out}"),
    "skill ladder": N_("{folder} already holds a different skill ladder; choose another {out}")}
HOLDS_NONE = {
    "comparison": N_("{out} {folder}: the folder is not empty and holds no comparison"),
    "tournament": N_("{out} {folder}: the folder is not empty and holds no tournament"),
    "skill ladder": N_("{out} {folder}: the folder is not empty and holds no skill ladder")}
# a new series into a folder that already holds it is refused, as a new run is (``runs.folder.prepare_out``): the
# same command again would only print it (finished) or quietly continue it (unfinished), neither of which it asks
HOLDS_THIS_FINISHED = {
    "comparison": N_("{folder} already holds this comparison, finished; print it again with: {command} "
                     "(charts: {report})"),
    "tournament": N_("{folder} already holds this tournament, finished; print it again with: {command} "
                     "(charts: {report})"),
    "skill ladder": N_("{folder} already holds this skill ladder, finished; print it again with: {command} "
                       "(charts: {report})")}
HOLDS_THIS_UNFINISHED = {
    "comparison": N_("{folder} already holds this comparison ({done} of {runs} runs finished); continue it "
                     "with: {command}"),
    "tournament": N_("{folder} already holds this tournament ({done} of {runs} runs finished); continue it "
                     "with: {command}"),
    "skill ladder": N_("{folder} already holds this skill ladder ({done} of {runs} runs finished); continue it "
                       "with: {command}")}


def run_series(out: Path, manifest: dict, keys: tuple[str, ...], specs: list[RunSpec], what: str, *,
               jobs: int = 1, executor=None, argv: list[str] | None = None,
               on_run: Callable[[int], None] | None = None,
               on_chunk: Callable[[runner.Progress], None] | None = None,
               new: bool = False) -> list[list[dict]]:
    """Several runs in one folder (a comparison, a tournament): ``out/manifest.json`` plus
    ``out/runs/NN``, each an ordinary run folder.

    A folder holding another series (its manifest differs on ``keys``) or anything else is
    refused; finished runs are kept and unfinished ones resumed, so an interrupted series
    continues where it stopped. A ``new`` series (the command that starts one) refuses a folder holding this very
    series too, saying how to continue or print it (``resume``), as a new run does. Returns every run's chunk
    aggregates in chunk order. An error of one of its runs (a full disk, a failing chunk) says to continue the
    series, not the run (``continue_series``). An ``on_chunk`` with a ``plan`` method (``output.console.ProgressBar``)
    is told every run's spec before the first plays.
    """
    with folder_lock(out):
        if folders.manifest_path(out).exists():
            old = read_manifest(out)
            if {k: old.get(k) for k in keys} != {k: manifest[k] for k in keys}:
                raise FolderError(_(HOLDS_ANOTHER[what]), parameter=OUT, folder=out, out=OUT)
            check_series_format(out, old)
            if new:
                refuse_new_series(out, old, specs, what)
        else:
            folders.check_holds_nothing_else(out, HOLDS_NONE[what], FolderError)
        folders.write_manifest(out, manifest)
        if callable(getattr(on_chunk, "plan", None)):  # a progress bar: every run's spec, to weigh runs by cost
            on_chunk.plan(specs)
        aggregates = []
        for k, spec in enumerate(specs):
            run_dir = out / "runs" / f"{k:02d}"
            make_subfolders(out, ["runs", f"runs/{k:02d}"])  # never a symlinked runs/ or runs/NN
            resume = (run_dir / "manifest.json").exists()
            if (resume or (run_dir / "chunks").is_dir()) and not holds_run(run_dir, spec):
                rebuild_run(run_dir, spec, argv)
                resume = True
            if on_run:
                on_run(k)
            with continued_by(run_dir, continue_series(out, manifest, spec)):
                if not resume or read_manifest(run_dir).get("status") != "complete":
                    runner.run(spec, run_dir, jobs=jobs, executor=executor, resume=resume, argv=argv,
                               hand_records=spec.save_hands,
                               on_chunk=on_chunk)
                elif spec.save_hands and not all(records_whole(run_dir, spec, k) for k in range(spec.n_chunks)):
                    # a finished run's hand records deleted: the run writes them again (its chunks are kept)
                    runner.run(spec, run_dir, jobs=jobs, executor=executor, resume=True, argv=argv,
                               hand_records=True, on_chunk=on_chunk)
                try:
                    aggregates.append(read_run_chunks(run_dir, spec))
                except RunError:  # a damaged or missing chunk (or deal file) of a finished run: resume repairs it
                    runner.run(spec, run_dir, jobs=jobs, executor=executor, resume=True, argv=argv, on_chunk=on_chunk,
                               hand_records=spec.save_hands)
                    aggregates.append(read_run_chunks(run_dir, spec))
    return aggregates


def refuse_new_series(out: Path, old: dict, specs: list[RunSpec], what: str) -> None:
    """Refuse to start anew the series ``old`` (its manifest) that ``out`` already holds: finished, print it
    again with ``resume`` (its charts with ``report``); unfinished, continue it with ``resume``."""
    command = Command(continue_series(out, old))
    done = sum(holds_run(out / "runs" / f"{k:02d}", spec)
               and read_manifest(out / "runs" / f"{k:02d}").get("status") == "complete" for k, spec in enumerate(specs))
    if done == len(specs) and "results" in old:
        raise FolderError(_(HOLDS_THIS_FINISHED[what]), folder=out, resume=command, command=command,
                          report=Command(("report", str(out))))
    raise FolderError(_(HOLDS_THIS_UNFINISHED[what]), folder=out, resume=command, command=command, done=done,
                      runs=len(specs))


def rebuild_run(run_dir: Path, spec: RunSpec, argv: list[str] | None) -> None:
    """A run of a series whose manifest no longer describes the series' run (edited, damaged or removed after it
    was written): the series' own manifest says what the run is, so its manifest is written again from it (the
    old one kept aside as manifest.json.damaged) and the run is resumed. Its chunks and deal files are then
    checked against the run's fingerprint like any others: those that are this run's are kept, the rest played
    again. So ``resume`` repairs what ``report`` refuses (``verify_runs``) instead of finding nothing to do."""
    path = folders.manifest_path(run_dir)
    if path.exists() or path.is_symlink():
        folders.set_aside(path, _("not the run its series plays (changed after it was written)"),
                          _("writing it"), strict=True)
    folders.write_manifest(run_dir, new_manifest(spec, argv, status="interrupted"))


def series_chunk_size(out: Path, kind: str, specs: list[RunSpec]) -> list[RunSpec]:
    """The runs of a series with one chunk size (chunk ``k`` must hold the same deals in every run).

    Runs built with the default chunk size (``--chunk`` not given) take the size a folder holding
    this kind of series already keeps (so resume continues it), else the smallest of
    their defaults: the slowest run's, whose chunks then land every few seconds.
    """
    from dataclasses import replace

    from ..game.columns import MAX_COUNT

    size = min(s.chunk_size for s in specs)
    try:
        old = read_manifest(out) if (out / "manifest.json").is_file() else {}
    except RunError:  # not a series folder: run_series says so
        old = {}
    kept = old.get("chunk_size") if old.get("kind") == kind else None
    if isinstance(kept, int) and not isinstance(kept, bool) and 0 < kept <= MAX_COUNT:
        size = kept
    return [s if s.chunk_size == size else replace(s, chunk_size=size) for s in specs]


def continue_series(out: Path, manifest: dict, spec: RunSpec | None = None) -> tuple[str, ...]:
    """The command (argv) that continues the series in ``out`` (``resume DIR``, with --trust-plugins when it
    plays a plugin): what an error of one of its runs says to run (``runs.folder.continued_by``)."""
    from ..strategies import plugins_in

    try:
        plugins = plugins_in(manifest.get("strategies") or (spec.strategies if spec is not None else []))
    except Exception:  # strategies the manifest check reports on its own
        plugins = []
    return ("resume", str(out), *(["--trust-plugins"] if plugins else []))


def series_deal_sums(run_dirs: list[Path], specs: list[RunSpec], n_chunks: int, columns: list[int] | None = None,
                     lineups: int = 1):
    """Per-deal sums across the runs of a series, paired by deal, one chunk at a time (flat memory).

    Every run of a series (a comparison, tournament or skill ladder) plays the same deals with the same chunk
    size, so chunk ``k`` of each run holds the same deal indices. The runs' per-deal
    vectors (each deal file verified: ``runs.folder.read_deals``; a bad one is a
    one-line RunError) are put side by side (run ``i`` at columns ``i * P ...``) and
    summed into ``S = sum_c v_c`` and ``G = sum_c v_c v_c^T``. Yields ``(k, n, S, G)``
    after each chunk (running totals, the arrays reused). ``lineups``: each that many consecutive runs
    are one pair's lineups (2 under 3 players), first made one two-sided vector (``lineups.two_sided``).
    ``columns`` keeps only those columns of each (pair's) vector.
    """
    n, S, G = 0, None, None
    for k in range(n_chunks):
        parts = [read_run_deals(d, spec, k) for d, spec in zip(run_dirs, specs)]
        if len({len(p) for p in parts}) != 1:
            raise FolderError(_("chunk {k} holds different deals in the runs of {folder}"), folder=run_dirs[0].parent, k=k)
        if lineups > 1:
            parts = [two_sided(parts[i:i + lineups]) for i in range(0, len(parts), lineups)]
        if columns is not None:
            parts = [p[:, columns] for p in parts]
        v = np.hstack(parts)
        if S is None:
            S, G = np.zeros(v.shape[1], np.int64), np.zeros((v.shape[1], v.shape[1]), np.int64)
        n += len(v)
        S += v.sum(axis=0)
        G += gram(v)
        yield k, n, S, G


def weighted_sum(weights: Iterable[int], sums) -> int:
    """``weights . sums`` in exact integers (e.g. a quantity's denominator from per-deal sums)."""
    return sum(int(a) * int(b) for a, b in zip(weights, sums))


def interval(est: float, se: float) -> tuple[float | None, float | None]:
    """The 95 % normal interval of an estimate, or ``(None, None)`` without a finite standard error."""
    if not math.isfinite(se):
        return (None, None)
    return stats.normal_ci(est, se)


def proportion(est: float, se: float, n: int) -> tuple[float | None, float | None]:
    """The 95 % interval of a proportion or score over ``n`` deals, kept in [0, 1] (``stats.proportion_interval``),
    or ``(None, None)`` without a finite standard error."""
    if not math.isfinite(se):
        return (None, None)
    return stats.proportion_interval(est, se, n)


def run_totals(aggs: list[dict]) -> dict:
    """One run's chunk aggregates merged in chunk order."""
    merged = None
    for a in aggs:
        merged = merge(merged, a)
    return merged


# --- the tables' shapes ----------------------------------------------------------------------

def estimate_frame(rows: list[tuple]):
    """An estimate frame from ``(label, metric, estimate, lo, hi)`` rows."""
    import polars as pl

    return pl.DataFrame(rows, schema={"label": pl.String, "metric": pl.String, "estimate": pl.Float64,
                                      "lo": pl.Float64, "hi": pl.Float64}, orient="row")


def category_frame(rows: list[tuple]):
    """A category frame from ``(label, category, points per hand)`` rows."""
    import polars as pl

    return pl.DataFrame(rows, schema={"label": pl.String, "category": pl.String, "points": pl.Float64},
                        orient="row")


def count_rows(label: str, counts) -> list[tuple]:
    """A histogram's nonzero bins as ``(label, value, count)`` rows (the value is the bin's index)."""
    return [(label, b, int(c)) for b, c in enumerate(counts) if c]


def count_frame(rows: list[tuple]):
    """A count frame from ``(label, value, count)`` rows."""
    import polars as pl

    return pl.DataFrame(rows, schema={"label": pl.String, "value": pl.Int64, "count": pl.Int64}, orient="row")


def convergence_frame(rows: list[tuple]):
    """A convergence frame from ``(label, chunks, n, estimate, lo, hi)`` rows (``n``: games or hands so far)."""
    import polars as pl

    return pl.DataFrame(rows, schema={"label": pl.String, "chunks": pl.Int64, "n": pl.Float64,
                                      "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}, orient="row")


# --- table files and the summary's rows ------------------------------------------------------

def check_series_format(out: Path, manifest: dict) -> None:
    """Refuse a series folder of an earlier layout (its deal files carry no checksum) in one line."""
    if manifest.get("format") != SERIES_FORMAT:
        made = manifest.get("format", 1)
        raise FolderError(_("{folder} was written by an earlier escoba-sim (series folder format {format}, deal files "
                            "without checksums): play it again with another {out}"), parameter=OUT, folder=out,
                          out=OUT, format=made if isinstance(made, int) and not isinstance(made, bool) else '?')


def write_results(out: Path, manifest: dict, tables: dict, summary: dict) -> None:
    """A finished series' results: each table as ``out/tables/NAME.parquet``, ``summary.json``, and last the
    manifest with the SHA-256 of each of them (``read_results`` takes a result only when it matches, so a
    series stopped while writing them reads as unfinished)."""
    make_subfolders(out, ["tables"])
    for name, df in tables.items():
        atomic_write(out / "tables" / f"{name}.parquet", lambda tmp, df=df: df.write_parquet(tmp), out)
    write_json(out / "summary.json", summary, out)
    names = [f"tables/{name}.parquet" for name in tables] + ["summary.json"]
    manifest["results"] = {n: folders.file_checksum(out / n) for n in names}
    folders.write_manifest(out, manifest)


def read_results(out: Path, manifest: dict | None = None) -> dict:
    """The verified result tables of a finished series by name, and its summary as ``"_summary"``; empty when
    the series has no results yet (unfinished, or stopped while writing them).

    Only the files ``write_results`` recorded are read (names of a fixed form: nothing else the manifest
    names is opened), each as an untrusted file whose SHA-256 must match; a bad one is a one-line RunError
    that says to rebuild it with ``escoba-sim resume``.
    """
    import polars as pl

    if manifest is None:
        manifest = read_manifest(out)
    check_series_format(out, manifest)
    results = manifest.get("results")
    if results is None:
        return {}
    if not (isinstance(results, dict) and "summary.json" in results
            and all(isinstance(k, str) and RESULT_FILE.fullmatch(k) and isinstance(v, str) for k, v in results.items())):
        raise FolderError(_("{path}: `results` is not the list of result files and their checksums"), folder=out,
                          path=folders.manifest_path(out))
    rebuild = Command(("resume", str(out)))
    fix = _("rebuild it with: {command}").format(command=rebuild)
    if not any((out / name).exists() or (out / name).is_symlink() for name in results):
        return {}  # the results were removed: the series reads as unfinished, as before they were written
    found: dict = {}
    for name, digest in sorted(results.items()):
        p = out / name
        try:
            data = read_bytes(p, TABLE_LIMIT)
        except UntrustedFile as e:
            raise FolderError("{problem}; {fix}", folder=out, resume=rebuild, problem=e, fix=fix) from None
        if folders.bytes_checksum(data) != digest:
            raise FolderError(_("{path} changed after it was written (its checksum differs); {fix}"), folder=out,
                              resume=rebuild, path=p, fix=fix)
        try:
            if name == "summary.json":
                found["_summary"] = parse_json(data.decode("utf-8"), str(p))
                if not isinstance(found["_summary"], dict):
                    raise ValueError(_("not a JSON object"))
            else:
                found[Path(name).stem] = pl.read_parquet(io.BytesIO(data))
        except Exception as e:  # what the checksum vouches for the tool wrote; this is a defect, not a tamper
            raise FolderError(_("{path}: unreadable ({reason}); {fix}"), folder=out, resume=rebuild, path=p,
                              reason=' '.join(str(e).split())[:100], fix=fix) from None
    verify_runs(out, manifest)
    return found


def verify_runs(out: Path, manifest: dict) -> None:
    """Check every run of a finished series as resume would read it: its manifest, each chunk and each deal
    file (fingerprint and checksum); a bad one is a one-line RunError saying to resume the series."""
    from ..runs.folder import read_run_spec

    listed = manifest.get("pairs") or manifest.get("rulesets") or []  # a skill ladder has both: a run per pair
    for k in range(len(listed) if isinstance(listed, list) else 0):
        run_dir = out / "runs" / f"{k:02d}"
        with continued_by(run_dir, continue_series(out, manifest)):
            # a run manifest unreadable, missing or not the series' run: the series' resume writes it again
            # (``rebuild_run``), keeping the run's own chunks
            rebuild = Command(continue_series(out, manifest))
            fix = _("rebuild it with: {command}").format(command=rebuild)
            try:
                _manifest, spec = read_run_spec(run_dir)
            except RunError as e:
                if getattr(e, "resume", None) is not None:
                    raise
                raise FolderError("{problem}; {fix}", folder=run_dir, resume=rebuild, problem=e, fix=fix) from None
            if spec.seed != manifest.get("seed") or not spec.keep_deals:
                raise FolderError(_("{folder} is not a run of this series (another seed, or no deal files); {fix}"),
                                  folder=run_dir, resume=rebuild, fix=fix)
            read_run_chunks(run_dir, spec)
            if spec.save_hands:
                check_records(run_dir, spec, spec.n_chunks)


def read_tables(out: Path) -> dict:
    """Every result table of a finished series by name, verified (``read_results``); empty when there are none."""
    return {k: v for k, v in read_results(out).items() if not k.startswith("_")}


def json_rows(df) -> list[dict]:
    """A table's rows as JSON objects; a value that is not finite becomes null."""
    return [{k: (v if not isinstance(v, float) or math.isfinite(v) else None) for k, v in r.items()}
            for r in df.iter_rows(named=True)]


def series_completeness(d: Path, manifest: dict, summarized: bool) -> dict:
    """Which runs of a series are finished (a series is partial until all are)."""
    listed = manifest.get("pairs") or manifest.get("rulesets") or []  # a skill ladder has both: a run per pair
    # run k is always runs/NN: the folder names the manifest holds are not followed
    runs = [f"runs/{k:02d}" for k in range(len(listed) if isinstance(listed, list) else 0)]
    status = {}
    for r in runs:
        try:  # a regular file only: a run's manifest linked to a FIFO or /dev/zero never blocks the report
            s = read_json_object(d / r / "manifest.json").get("status", "unknown")
            status[r] = s if s in STATUS else "unknown"
        except UntrustedFile:
            status[r] = "not started"
    done = [r for r, s in status.items() if s == "complete"]
    return {"status": "complete" if summarized and len(done) == len(runs) else "interrupted",
            "runs_done": len(done), "runs_planned": len(runs),
            "missing": [f"{r} ({s})" for r, s in status.items() if s != "complete"],
            "partial": not summarized or len(done) < len(runs)}
