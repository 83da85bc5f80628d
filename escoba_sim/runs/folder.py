"""The output folder of a run (``--out DIR``): manifest, chunk files, atomic writes.

::

    DIR/manifest.json           tool version, engine, deal stream, ruleset (canonical + digest), seed,
                                run arguments (``spec``), chunk size and count, status
                                (running / interrupted / complete / stopped-by-sprt), times
    DIR/chunks/chunk-000123.parquet   aggregates of chunk 123 (its presence marks it done)
    DIR/hands/chunk-000123.parquet    per-hand rows with --save-hands
    DIR/records/chunk-000123/*.json   every counted hand as a hand record with --save-hands
                                (``runs.hand_records``, written as the run ends)
    DIR/deals/chunk-000123.parquet    per-deal vectors (``runs.aggregates.DealLayout``) of a run in a
                                series (comparison, tournament, skill), which pairs them
                                (``series.tables.series_deal_sums``); checked like a chunk file
    DIR/summary.json            the same as ``run --json``
    DIR/.lock                   the folder's lock (fcntl.flock while a run or resume writes)

Every file is written to a temporary name and ``os.replace``d; temporaries of
a killed process are removed by the next command that takes the lock.

A folder is checked, not trusted. The manifest's ``spec`` is validated like
the command line (``RunSpec.from_json``). Each chunk file carries, in its
Parquet key-value metadata, the run's fingerprint for that chunk
(``RunSpec.fingerprint``: seed, ruleset digest, strategies, mode, pairing,
chunk index and deal range) and a SHA-256 checksum of its rows; ``read_chunk``
refuses a file that does not match (unreadable, another schema, another run or
chunk, edited rows, impossible values); a deal file carries the same and
``read_deals`` checks it the same way. ``resume`` plays such chunks again (a
chunk whose deal file is bad included);
``report`` refuses the folder and says to resume it. Only one process writes a
folder at a time: ``run``, ``resume``, ``compare`` and ``tournament`` hold an
OS-level lock on ``DIR/.lock`` and a second one gets a one-line error.

Chunk files hold a chunk's aggregates (``chunk``) in long format, one row per
array element, zeros included, so a reader rebuilds each array's shape from the
maximum indices: ``chunk`` int64, ``first_deal`` int64, ``deals`` int64 (the
chunk's own range), ``stat`` utf8, ``i0``/``i1``/``i2`` int32 (indices; 0
where the stat has fewer dimensions), ``value`` int64.

Per-hand rows (``hands/``): the ``game.columns.HAND_COLUMNS`` plus each side column
split by side as ``total_0``, ``total_1``, ... (named exactly as batch
columns), plus ``rotation`` (int8); side ``j`` of rotation ``r`` is played
by entrant ``(j + r) % E``. ``game`` is the deal index.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .. import __version__, folders
from ..batch import engine_for
from ..errors import Command, EscobaError
from ..files import (
    UntrustedFile,
    atomic_write,
    first_line,
    make_dirs,
    write_json,  # noqa: F401  (the runner writes the manifest through this module's names)
)
from ..folders import LOCK, OUT, manifest_path
from ..game.rng import DEAL_STREAM_VERSION
from ..i18n import N_
from ..i18n import translate as _
from .spec import RunError, RunSpec

STATUS = ("running", "interrupted", "complete", "stopped-by-sprt")
FORMAT = 2  # the output-folder layout version (2: per-deal sums, deal files; chunks carry a fingerprint and a checksum)
FRAME_COLUMNS = ("chunk", "first_deal", "deals", "stat", "i0", "i1", "i2", "value")


ChunkInvalid = folders.Damaged  # a chunk or deal file that is not this run's chunk ``k``


class FolderError(RunError, EscobaError):
    """A run folder that cannot be used (read, written, continued); the message is one line, with the folder,
    the parameter at fault (``out``) and the command that continues the work as fields."""


# the command that continues the work in a run folder, when it is not the run's own resume: a run of a series
# is continued by its series (``continued_by``), so a message about it names the series' command
_CONTINUED: ContextVar[dict[Path, Command]] = ContextVar("continued", default={})


@contextmanager
def continued_by(run_dir: Path, argv: tuple[str, ...]) -> Iterator[None]:
    """While inside, the command that continues the work in ``run_dir`` is ``argv`` (a series', for its run)."""
    token = _CONTINUED.set({**_CONTINUED.get(), Path(run_dir): Command(argv)})
    try:
        yield
    finally:
        _CONTINUED.reset(token)


def continue_command(out: Path, *extra: str) -> Command:
    """``resume out`` (``extra`` after it), or the command that continues a run of a series (``continued_by``)."""
    return _CONTINUED.get().get(Path(out)) or Command(("resume", str(out), *extra))


STAT_DIMS = {
    "clusters": 1, "games": 1, "hands": 1, "lucky_hands": 1, "points": 2, "wdl": 2, "pos_points": 3, "pos_wdl": 3,
    "game_wins": 1, "game_hands_hist": 1, "points_hist": 2, "score_hist": 1, "deal_sum": 1, "deal_gram": 2,
    "deal_score": 1,
}
OPTIONAL_STATS = ("score_hist", "deal_score")  # two entrants only; --sprt only


def write_hands(rows: list[dict[str, np.ndarray]], path: Path, root: Path | None = None) -> None:
    import polars as pl

    df = pl.concat([pl.DataFrame(r) for r in rows]) if rows else pl.DataFrame()
    atomic_write(path, lambda tmp: df.write_parquet(tmp), root)


def write_deals(deal: np.ndarray, names: list[str], first: int, path: Path, fingerprint: str,
                root: Path | None = None) -> None:
    """A chunk's per-deal vectors, one row per deal (``deal`` is its index), int32 columns; the Parquet
    metadata carries the chunk's fingerprint and a checksum of the rows, as a chunk file does."""
    import polars as pl

    df = pl.DataFrame({"deal": np.arange(first, first + len(deal), dtype=np.int64),
                       **{n: deal[:, i].astype(np.int32) for i, n in enumerate(names)}})
    folders.write_sealed_parquet(df, path, fingerprint, deals_checksum(df), root)


def deals_checksum(df) -> str:
    """SHA-256 of a deal frame's rows, column by column in order (names and int64 values)."""
    return folders.columns_checksum((c, df[c].to_numpy().astype(np.int64).tobytes()) for c in df.columns)


def read_deals(path: Path, spec: RunSpec, k: int) -> np.ndarray:
    """Chunk ``k``'s per-deal vectors (``write_deals``) as an int64 matrix (deals x columns), verified like a
    chunk file: its fingerprint, its checksum, its columns and deal indices (ChunkInvalid says what is wrong)."""

    from .aggregates import DealLayout

    df = folders.read_sealed_parquet(path, spec.fingerprint(k), ["deal", *DealLayout(spec.entrants).names()],
                                     deals_checksum, N_("deal file"))
    first, count = spec.chunk_range(k)
    m = df.to_numpy().astype(np.int64)
    rows = len(m)
    if not (rows == count or (spec.sprt is not None and 0 < rows < count)) \
            or not np.array_equal(m[:, 0], np.arange(first, first + rows)) or (m[:, 1:] < 0).any():
        raise ChunkInvalid(_("holds impossible values"))
    return m[:, 1:]


def read_run_deals(run_dir: Path, spec: RunSpec, k: int) -> np.ndarray:
    """``read_deals`` of chunk ``k`` of the run in ``run_dir``, a bad file a one-line RunError."""
    p = run_dir / "deals" / chunk_name(k)
    try:
        return read_deals(p, spec, k)
    except ChunkInvalid as e:
        command = continue_command(run_dir)
        raise FolderError(_("{path} is {problem}; repair it with: {command}"), folder=run_dir, resume=command,
                          path=p, problem=e, command=command) from None


def chunk_name(k: int) -> str:
    return f"chunk-{k:06d}.parquet"


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
            if name not in OPTIONAL_STATS:
                out[name] = np.zeros((0,) * dims, np.int64)
            continue
        idx = [part[f"i{d}"].to_numpy().astype(np.int64) for d in range(dims)]
        shape = tuple(int(i.max()) + 1 for i in idx)
        a = np.zeros(shape, np.int64)
        a[tuple(idx)] = part["value"].to_numpy()
        out[name] = a
    return out


def frame_checksum(df) -> str:
    """SHA-256 of a chunk frame's rows, column by column in FRAME_COLUMNS order (dtypes fixed)."""
    return folders.columns_checksum(
        (c, ("\0".join(df[c].to_list())).encode() if c == "stat" else df[c].to_numpy().astype(np.int64).tobytes())
        for c in FRAME_COLUMNS)


def write_chunk(out: Path, spec: RunSpec, k: int, agg: dict[str, np.ndarray]) -> None:
    df = agg_to_frame(k, spec, agg)
    folders.write_sealed_parquet(df, out / "chunks" / chunk_name(k), spec.fingerprint(k), frame_checksum(df), out)


def read_chunk(path: Path, spec: RunSpec, k: int) -> dict[str, np.ndarray]:
    """Chunk ``k`` of ``spec`` from ``path``, verified (ChunkInvalid says what is wrong)."""

    df = folders.read_sealed_parquet(path, spec.fingerprint(k), list(FRAME_COLUMNS), frame_checksum, N_("chunk file"))
    first, count = spec.chunk_range(k)
    if (df["chunk"] != k).any() or (df["first_deal"] != first).any() or (df["deals"] != count).any() \
            or (df["value"] < 0).any() or (df["i0"] < 0).any() or (df["i1"] < 0).any() or (df["i2"] < 0).any():
        raise ChunkInvalid(_("holds impossible values"))  # every aggregate is a non-negative sum
    agg = frame_to_agg(df)
    # a chunk holds its whole deal range, except the one an SPRT decided inside: that one holds the
    # deals up to the deciding one (``runner._Fold``)
    played = int(agg["clusters"][0]) if agg["clusters"].shape == (1,) else -1
    if not (played == count or (spec.sprt is not None and 0 < played < count)):
        raise ChunkInvalid(_("holds impossible values"))
    return agg


def read_manifest(out: Path) -> dict:
    """The run folder's manifest (``folders.read_manifest``), a bad one a one-line FolderError."""
    return folders.read_manifest(out, FolderError)


def run_spec_of(out: Path, manifest: dict) -> RunSpec:
    """The run a folder's manifest describes, validated like the command line (one RunError line)."""
    if manifest.get("format") != FORMAT:
        raise FolderError(_("{folder}: output format {found} is not {format} (another escoba-sim version wrote it); "
                            "play the run again with escoba-sim run"), folder=out,
                          found=first_line(manifest.get('format')), format=FORMAT)
    try:
        return RunSpec.from_json(manifest.get("spec"))
    except RunError as e:
        raise FolderError("{path}: {problem}", folder=out, path=manifest_path(out), problem=e) from None


def read_run_spec(out: Path) -> tuple[dict, RunSpec]:
    manifest = read_manifest(out)
    return manifest, run_spec_of(out, manifest)


def read_run_chunks(run_dir: Path, spec: RunSpec) -> list[dict]:
    """Every chunk's aggregates of a finished run, in chunk order, each verified."""
    done = finished_chunks(run_dir, spec)
    missing = [k for k in range(spec.n_chunks) if k not in done]
    if missing:
        command = continue_command(run_dir)
        raise FolderError(_("{folder}: {chunks} missing; finish it with: {command}"), folder=run_dir, resume=command,
                          chunks=_chunks_text(missing), command=command)
    aggs = []
    for k in range(spec.n_chunks):
        try:
            aggs.append(read_chunk(done[k], spec, k))
        except ChunkInvalid as e:
            command = continue_command(run_dir)
            raise FolderError(_("{folder}: chunk {k} is {problem}; repair it with: {command}"), folder=run_dir,
                              resume=command, k=k, problem=e, command=command) from None
        if spec.keep_deals:  # a series' result depends on the deal files as much as on the chunks
            read_run_deals(run_dir, spec, k)
    return aggs


def _chunks_text(ks: list[int]) -> str:
    shown = ", ".join(map(str, ks[:5])) + (_(" and {n} more").format(n=len(ks) - 5) if len(ks) > 5 else "")
    return (_("chunk {chunks} is") if len(ks) == 1 else _("chunks {chunks} are")).format(chunks=shown)


@contextmanager
def folder_lock(out: Path, create: bool = True) -> Iterator[None]:
    """Hold the folder's OS-level lock (``fcntl.flock`` on ``DIR/.lock``) while writing it.

    The lock ends with the process, however it ends, so a killed run never leaves the
    folder locked. A second process gets a one-line RunError. ``create``: make ``out``
    if needed (a new run); otherwise a missing folder is "no run here".
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    folders.check_is_folder(out, FolderError)
    if not create and not out.is_dir():
        raise FolderError(_("{folder}: no run here (no such folder)"), folder=out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        if (out / LOCK).is_symlink():  # never ours: the lock file is replaced, not followed
            (out / LOCK).unlink()
        fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as e:
        raise folders.cannot_write(out, e, FolderError) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise FolderError(_("{folder} is in use by another escoba-sim process (a run or resume writing it); "
                                "wait for it to end, or stop it"), folder=out) from None
        yield
    finally:
        os.close(fd)


def remove_temporaries(out: Path) -> None:
    """Temporary files of a killed write (their writer is gone: the caller holds the lock)."""
    for d in (out, out / "chunks", out / "hands", out / "deals"):
        if d.is_dir():
            for tmp in d.glob(".*.tmp"):
                try:
                    tmp.unlink()
                except OSError:
                    pass


def make_subfolders(out: Path, names) -> None:
    """``out/NAME`` for each name, refusing one that is a symlink or a file (a write would leave ``out``)."""
    for name in names:
        try:
            make_dirs(out / name, out)
        except UntrustedFile as e:
            raise FolderError(_("{problem}; refusing to write the folder {folder}"), folder=out, problem=e) from None


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def prepare_out(out: Path, spec: RunSpec, argv: list[str] | None = None) -> dict:
    """Create the output folder for a new run, refusing one that holds any run already."""
    if manifest_path(out).exists():
        old = read_manifest(out)
        if old.get("spec") == spec.to_json():
            command = resume_command(out, spec)
            raise FolderError(_("{folder} already holds this run (status {status}); continue it with: {command}"),
                              folder=out, resume=command, status=old.get('status'), command=command)
        old_spec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
        diff = [k for k, v in spec.to_json().items() if old_spec.get(k) != v]
        raise FolderError(_("{folder} already holds a different run (differs in {fields}); choose another {out}"),
                          parameter=OUT, folder=out, out=OUT, fields=', '.join(diff) or 'format')
    folders.check_is_folder(out, FolderError)
    folders.check_holds_nothing_else(out, N_("{out} {folder}: the folder is not empty and holds no escoba-sim run"),
                                     FolderError)
    try:
        make_subfolders(out, subfolders(spec))
        probe = out / ".write-test"
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644))
        probe.unlink()
    except OSError as e:
        raise folders.cannot_write(out, e, FolderError) from None
    manifest = new_manifest(spec, argv)
    folders.write_manifest(out, manifest)
    return manifest


def new_manifest(spec: RunSpec, argv: list[str] | None = None, status: str = "running") -> dict:
    """The manifest of a new run of ``spec`` in this version's format."""
    return {"format": FORMAT, "tool": "escoba-sim", "version": __version__, "engine": engine_for(spec.strategies),
            "deal_stream": DEAL_STREAM_VERSION, "rules": spec.rules.canonical(), "rules_digest": spec.rules.digest(),
            "rules_fields": spec.rules.as_dict(), "seed": spec.seed, "spec": spec.to_json(),
            "chunk_size": spec.chunk_size, "n_chunks": spec.n_chunks, "argv": argv or [],
            "status": status, "started": utc_now(), "ended": None}


def holds_run(out: Path, spec: RunSpec) -> bool:
    """Whether ``out``'s manifest describes the run ``spec`` as this version writes it (readable, its format, its
    spec and deal stream): what a series checks of each of its runs before it trusts the run's status."""
    try:
        manifest, on_disk = read_run_spec(out)
    except RunError:
        return False
    return on_disk == spec and manifest.get("deal_stream", 1) == DEAL_STREAM_VERSION


def subfolders(spec: RunSpec) -> list[str]:
    """The sub folders a run writes: chunks, and hands and deals when it keeps them."""
    return ["chunks"] + [d for d, wanted in (("hands", spec.save_hands), ("deals", spec.keep_deals)) if wanted]


def resume_command(out: Path, spec: RunSpec) -> Command:
    """The command (argv, its ``str`` the line) that continues the run in ``out``; a run with plugins says
    --trust-plugins (its plugins were named by whoever started it, and they are told the command); a run of a
    series is continued by its series (``continued_by``)."""
    from ..strategies import plugins_in

    return continue_command(out, *(["--trust-plugins"] if plugins_in(spec.strategies) else []))


def check_deal_stream(out: Path, manifest: dict) -> None:
    """Refuse to resume a run dealt with another deal stream (a manifest without one predates version 2)."""
    made = manifest.get("deal_stream", 1)
    if made != DEAL_STREAM_VERSION:
        raise FolderError(_("{folder} was dealt with deal stream {made} (escoba-sim {version}); this escoba-sim deals "
                            "with stream {stream}, so the rest would be other hands: start the run again in a new "
                            "folder (docs/engine.md, Shuffle)"), folder=out, made=made,
                          version=manifest.get('version', '?'), stream=DEAL_STREAM_VERSION)


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
