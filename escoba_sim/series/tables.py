"""What compare and tournament share: a series of runs on the same deals, paired per-deal tables,
intervals, and the table files.

A series (a comparison, a tournament) is several ordinary runs in one folder,
each with the series' seed and chunk size, so chunk ``k`` of every run holds the
same deal indices (common random numbers). ``run_series`` plays (or finishes)
the runs; ``series_deal_sums`` puts their per-deal vectors side by side, deal by
deal, for the deal model's paired intervals (``stats``); ``interval`` turns an
estimate and its standard error into the 95 % interval of the tables. The
tables are Polars frames of a few shared shapes (``estimate_frame``,
``category_frame``, ``count_frame``, ``convergence_frame``; the shapes are
described in ``output.charts``), written to ``DIR/tables/*.parquet``
(``write_tables``, ``read_tables``) and into ``summary.json`` (``json_rows``).
``series_completeness`` says which runs of a series folder are finished.

Series folder::

    DIR/manifest.json       kind ("compare", "tournament"), what the series is, and one
                            ``{"run": "runs/NN"}`` per run (under ``rulesets`` or ``pairs``)
    DIR/runs/NN/            one runner output folder per run (resumable on its own), with deals/
    DIR/tables/*.parquet    the result tables
    DIR/summary.json        the same tables as JSON
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ..files import UntrustedFile, read_json_object
from ..runs import runner, stats
from ..runs.aggregates import gram, merge
from ..runs.folder import (
    LOCK,
    atomic_write,
    chunk_name,
    folder_lock,
    make_subfolders,
    read_deals,
    read_manifest,
    read_run_chunks,
    write_json,
)
from ..runs.spec import RunError, RunSpec

# --- playing the runs and pairing them by deal ----------------------------------------------

def run_series(out: Path, manifest: dict, keys: tuple[str, ...], specs: list[RunSpec], what: str, *,
               jobs: int = 1, executor=None, argv: list[str] | None = None,
               on_run: Callable[[int], None] | None = None,
               on_chunk: Callable[[runner.Progress], None] | None = None) -> list[list[dict]]:
    """Several runs in one folder (a comparison, a tournament): ``out/manifest.json`` plus
    ``out/runs/NN``, each an ordinary run folder.

    A folder holding another series (its manifest differs on ``keys``) or anything else is
    refused; finished runs are kept and unfinished ones resumed, so an interrupted series
    continues where it stopped. Returns every run's chunk aggregates in chunk order.
    """
    with folder_lock(out):
        mpath = out / "manifest.json"
        if mpath.exists():
            old = read_manifest(out)
            if {k: old.get(k) for k in keys} != {k: manifest[k] for k in keys}:
                raise RunError(f"{out} already holds a different {what}; choose another --out")
        elif any(p.name != LOCK for p in out.iterdir()):
            raise RunError(f"--out {out}: the folder is not empty and holds no {what}")
        write_json(mpath, manifest, out)
        aggregates = []
        for k, spec in enumerate(specs):
            run_dir = out / "runs" / f"{k:02d}"
            make_subfolders(out, ["runs", f"runs/{k:02d}"])  # never a symlinked runs/ or runs/NN
            resume = (run_dir / "manifest.json").exists()
            if on_run:
                on_run(k)
            if not resume or read_manifest(run_dir).get("status") != "complete":
                runner.run(spec, run_dir, jobs=jobs, executor=executor, resume=resume, argv=argv, on_chunk=on_chunk)
            try:
                aggregates.append(read_run_chunks(run_dir, spec))
            except RunError:  # a damaged or missing chunk of a finished run: resume repairs it
                runner.run(spec, run_dir, jobs=jobs, executor=executor, resume=True, argv=argv, on_chunk=on_chunk)
                aggregates.append(read_run_chunks(run_dir, spec))
    return aggregates


def series_deal_sums(run_dirs: list[Path], n_chunks: int):
    """Per-deal sums across the runs of a series, paired by deal, one chunk at a time (flat memory).

    Every run of a comparison or tournament plays the same deals with the same chunk
    size, so chunk ``k`` of each run holds the same deal indices. The runs' per-deal
    vectors are put side by side (run ``i`` at columns ``i * P ...``) and summed into
    ``S = sum_c v_c`` and ``G = sum_c v_c v_c^T``. Yields ``(k, n, S, G)`` after each
    chunk (running totals, the arrays reused).
    """
    n, S, G = 0, None, None
    for k in range(n_chunks):
        parts = [read_deals(d / "deals" / chunk_name(k)) for d in run_dirs]
        if len({len(p) for p in parts}) != 1:
            raise RunError(f"chunk {k} holds different deals in the runs of {run_dirs[0].parent}")
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

def write_tables(out: Path, tables: dict) -> None:
    """Each table as ``out/tables/NAME.parquet`` (written atomically)."""
    make_subfolders(out, ["tables"])
    for name, df in tables.items():
        atomic_write(out / "tables" / f"{name}.parquet", lambda tmp, df=df: df.write_parquet(tmp), out)


def read_tables(out: Path) -> dict:
    """Every ``out/tables/*.parquet`` by name (empty when there are none)."""
    import polars as pl

    return {p.stem: pl.read_parquet(p) for p in sorted((out / "tables").glob("*.parquet"))}


def json_rows(df) -> list[dict]:
    """A table's rows as JSON objects; a value that is not finite becomes null."""
    return [{k: (v if not isinstance(v, float) or math.isfinite(v) else None) for k, v in r.items()}
            for r in df.iter_rows(named=True)]


def series_completeness(d: Path, manifest: dict, summarized: bool) -> dict:
    """Which runs of a comparison or tournament are finished (a series is partial until all are)."""
    runs = [r["run"] for r in manifest.get("rulesets") or manifest.get("pairs") or []]
    status = {}
    for r in runs:
        try:  # a regular file only: a run's manifest linked to a FIFO or /dev/zero never blocks the report
            status[r] = str(read_json_object(d / r / "manifest.json").get("status", "unknown"))
        except UntrustedFile:
            status[r] = "not started"
    done = [r for r, s in status.items() if s == "complete"]
    return {"status": "complete" if summarized and len(done) == len(runs) else "interrupted",
            "runs_done": len(done), "runs_planned": len(runs),
            "missing": [f"{r} ({s})" for r, s in status.items() if s != "complete"],
            "partial": not summarized or len(done) < len(runs)}
