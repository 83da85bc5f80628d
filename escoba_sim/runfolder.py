"""The output folder of a run (``--out DIR``): manifest, chunk files, atomic writes.

::

    DIR/manifest.json           tool version, engine, ruleset (canonical + digest), seed,
                                run arguments (``spec``), chunk size and count, status
                                (running / interrupted / complete / stopped-by-sprt), times
    DIR/chunks/chunk-000123.parquet   aggregates of chunk 123 (its presence marks it done)
    DIR/hands/chunk-000123.parquet    per-hand rows with --save-hands
    DIR/summary.json            the same as ``run --json``

Every file is written to a temporary name and ``os.replace``d.

Chunk files hold a chunk's aggregates (``chunk``) in long format, one row per
array element, zeros included, so a reader rebuilds each array's shape from the
maximum indices: ``chunk`` int64, ``first_deal`` int64, ``deals`` int64 (the
chunk's own range), ``stat`` utf8, ``i0``/``i1``/``i2`` int32 (indices; 0
where the stat has fewer dimensions), ``value`` int64.

Per-hand rows (``hands/``): the ``batch.HAND_COLUMNS`` plus each side column
split by side as ``total_0``, ``total_1``, ... (named exactly as batch
columns), plus ``rotation`` (int8); side ``j`` of rotation ``r`` is played
by entrant ``(j + r) % E``. ``game`` is the deal index.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from . import __version__
from .batch import engine_for
from .runspec import RunError, RunSpec

STATUS = ("running", "interrupted", "complete", "stopped-by-sprt")
FORMAT = 1  # the output-folder layout version

STAT_DIMS = {
    "clusters": 1, "games": 1, "hands": 1, "lucky_hands": 1, "x2": 1, "xy": 1, "y2": 2, "points": 2, "wdl": 2,
    "pos_points": 3, "pos_wdl": 3, "pos_x1": 2, "pos_x2": 2, "pos_y2": 2, "pos_xy": 2, "game_wins": 1,
    "game_hands_hist": 1, "points_hist": 2, "score_hist": 1,
}


def write_hands(rows: list[dict[str, np.ndarray]], path: Path) -> None:
    import polars as pl

    df = pl.concat([pl.DataFrame(r) for r in rows]) if rows else pl.DataFrame()
    atomic_write(path, lambda tmp: df.write_parquet(tmp))


def chunk_name(k: int) -> str:
    return f"chunk-{k:06d}.parquet"


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    # pid and thread in the name: a chunk redone elsewhere (a Dask retry, a worker thread) never shares a temp file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def agg_to_frame(k: int, spec: RunSpec, agg: dict[str, np.ndarray]):
    import polars as pl

    first, count = spec.chunk_range(k)
    stat, i0, i1, i2, value = [], [], [], [], []
    for name, arr in agg.items():
        a = np.asarray(arr).reshape(arr.shape if arr.ndim else (1,))
        idx = np.indices(a.shape).reshape(a.ndim, -1)
        n = a.size
        stat += [name] * n
        pads = [idx[d] if d < a.ndim else np.zeros(n, np.int64) for d in range(3)]
        i0.append(pads[0]), i1.append(pads[1]), i2.append(pads[2])
        value.append(a.reshape(-1))
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)  # noqa: E731
    n = len(stat)
    return pl.DataFrame({
        "chunk": np.full(n, k, np.int64), "first_deal": np.full(n, first, np.int64), "deals": np.full(n, count, np.int64),
        "stat": stat, "i0": cat(i0).astype(np.int32), "i1": cat(i1).astype(np.int32), "i2": cat(i2).astype(np.int32),
        "value": cat(value).astype(np.int64)})


def frame_to_agg(df) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, dims in STAT_DIMS.items():
        part = df.filter(df["stat"] == name)
        if part.height == 0:
            if name != "score_hist":
                out[name] = np.zeros((0,) * dims, np.int64)
            continue
        idx = [part[f"i{d}"].to_numpy().astype(np.int64) for d in range(dims)]
        shape = tuple(int(i.max()) + 1 for i in idx)
        a = np.zeros(shape, np.int64)
        a[tuple(idx)] = part["value"].to_numpy()
        out[name] = a
    return out


def write_chunk(out: Path, spec: RunSpec, k: int, agg: dict[str, np.ndarray]) -> None:
    df = agg_to_frame(k, spec, agg)
    atomic_write(out / "chunks" / chunk_name(k), lambda tmp: df.write_parquet(tmp))


def read_chunk(path: Path) -> dict[str, np.ndarray]:
    import polars as pl

    return frame_to_agg(pl.read_parquet(path))


def manifest_path(out: Path) -> Path:
    return out / "manifest.json"


def write_json(path: Path, data: dict) -> None:
    text = json.dumps(data, indent=2) + "\n"
    atomic_write(path, lambda tmp: tmp.write_text(text))


def read_manifest(out: Path) -> dict:
    p = manifest_path(out)
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise RunError(f"{out}: no run here (manifest.json is missing)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise RunError(f"{p}: cannot read the manifest ({e})") from None


def read_run_chunks(run_dir: Path, spec: RunSpec) -> list[dict]:
    """Every chunk's aggregates of a finished run, in chunk order."""
    done = finished_chunks(run_dir, spec)
    missing = [k for k in range(spec.n_chunks) if k not in done]
    if missing:
        raise RunError(f"{run_dir}: chunks {missing[:5]} are missing; finish it with escoba-sim resume")
    return [read_chunk(done[k]) for k in range(spec.n_chunks)]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def prepare_out(out: Path, spec: RunSpec, argv: list[str] | None = None) -> dict:
    """Create the output folder for a new run, refusing one that holds any run already."""
    if manifest_path(out).exists():
        old = read_manifest(out)
        if old.get("spec") == spec.to_json():
            raise RunError(f"{out} already holds this run (status {old.get('status')}); "
                           f"continue it with: escoba-sim resume {out}")
        diff = [k for k, v in spec.to_json().items() if old.get("spec", {}).get(k) != v]
        raise RunError(f"{out} already holds a different run (differs in {', '.join(diff) or 'format'}); "
                       f"choose another --out")
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise RunError(f"--out {out}: the folder is not empty and holds no escoba-sim run")
    try:
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        if spec.save_hands:
            (out / "hands").mkdir(exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise RunError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    manifest = {"format": FORMAT, "tool": "escoba-sim", "version": __version__, "engine": engine_for(spec.strategies),
                "rules": spec.rules.canonical(), "rules_digest": spec.rules.digest(),
                "rules_fields": spec.rules.as_dict(), "seed": spec.seed, "spec": spec.to_json(),
                "chunk_size": spec.chunk_size, "n_chunks": spec.n_chunks, "argv": argv or [],
                "status": "running", "started": utc_now(), "ended": None}
    write_json(manifest_path(out), manifest)
    return manifest


def finished_chunks(out: Path, spec: RunSpec) -> dict[int, Path]:
    done = {}
    for p in (out / "chunks").glob("chunk-*.parquet"):
        try:
            k = int(p.stem.split("-")[1])
        except (IndexError, ValueError):
            continue
        if 0 <= k < spec.n_chunks:
            done[k] = p
    return done
