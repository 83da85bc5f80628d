"""A checksummed output folder, the part every folder format shares (a run's ``runs.folder``, a series'
``series.tables``, a tune's ``tune``): the manifest (``DIR/manifest.json``), the fingerprint that binds each
file to what the folder holds, the SHA-256 checksum of each file, the set-aside of a damaged file (kept as
``NAME.damaged`` and computed again) and the refusals of a place that cannot be such a folder (a file, a
folder holding something else, one that cannot be written).

What each format seals differs (a run's chunk files carry its fingerprint and a checksum in their Parquet
metadata, a tune's records a checksum over the tune's fingerprint, a series' manifest the checksum of each
result file); how it is sealed and checked is here, once. Errors are raised as the caller's ``error`` class
(an ``EscobaError``: ``runs.folder.FolderError``, ``tune.TuneError``), so each command catches its own; a
bad file read here is a :class:`Damaged`, whose message says what is wrong in a few words.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import EscobaError, Parameter
from .files import UntrustedFile, atomic_write, first_line, read_bytes, read_json, write_json
from .i18n import N_
from .i18n import translate as _

MANIFEST = "manifest.json"
LOCK = ".lock"  # a folder's lock file (``runs.folder.folder_lock``): not content
DAMAGED = ".damaged"  # the suffix a damaged file is kept under
FINGERPRINT_KEY, CHECKSUM_KEY = "escoba_sim.fingerprint", "escoba_sim.checksum"  # a sealed Parquet file's metadata
PARQUET_LIMIT = 1 << 30  # a sealed Parquet file (a chunk, a deal file) is kilobytes to a few MiB
OUT = Parameter("out")  # the folder parameter every command that writes a folder takes


class Damaged(ValueError):
    """A file of a folder that is not what the folder's manifest says it holds; the message says why, in a
    few words (``unreadable (...)``, ``from another run or chunk ...``). Not an ``EscobaError``: it never reaches
    a person as it is (the runner plays the chunk again, a folder's reader makes it the ``{problem}`` of its
    own error: tests/test_error_base.py)."""


# --- the manifest ----------------------------------------------------------------------------------------

def manifest_path(out: Path) -> Path:
    return Path(out) / MANIFEST


def read_manifest(out: Path, error: type[EscobaError] = EscobaError) -> dict:
    """``out``'s manifest, read as an untrusted file (a regular file, bounded size and depth), a JSON object;
    anything else one line as ``error``."""
    p = manifest_path(out)
    if not (p.exists() or p.is_symlink()):
        raise error(_("{folder}: no run here (manifest.json is missing)"), folder=out)
    if p.is_dir() and not p.is_symlink():
        raise error(_("{path}: is a folder, not a manifest"), path=p)
    try:  # untrusted: a regular file (a FIFO or a device is refused, not waited on), bounded size and depth
        data = read_json(p)
    except UntrustedFile as e:
        raise error(_("{path}: cannot read the manifest ({reason})"), path=p,
                    reason=first_line(str(e).removeprefix(f'{p}: '))) from None
    if not isinstance(data, dict):
        raise error(_("{path}: not a manifest (a JSON object), got {kind}"), path=p, kind=type(data).__name__)
    return data


def write_manifest(out: Path, manifest: dict) -> None:
    write_json(manifest_path(out), manifest, out)


# --- fingerprints and checksums --------------------------------------------------------------------------

def fingerprint(value) -> str:
    """A digest of what defines a folder's content (a JSON value): what each file's checksum binds."""
    text = json.dumps(value, sort_keys=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def record_checksum(fingerprint: str, where: str, record: dict) -> str:
    """SHA-256 of a JSON record's content (its ``checksum`` left out) with the folder's fingerprint and the
    record's place (``g0003-c01``, ``check``): a record moved, edited or from another folder differs."""
    body = {k: v for k, v in record.items() if k != "checksum"}
    text = json.dumps([fingerprint, where, body], sort_keys=True, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def seal(fingerprint: str, where: str, record: dict) -> dict:
    """The record with its ``checksum`` (``record_checksum``)."""
    return {**record, "checksum": record_checksum(fingerprint, where, record)}


def is_sealed(fingerprint: str, where: str, record: dict) -> bool:
    return record.get("checksum") == record_checksum(fingerprint, where, record)


def columns_checksum(columns: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 of a frame's rows, column by column in order: each column's name and its values' bytes."""
    h = hashlib.sha256()
    for name, data in columns:
        h.update(name.encode() + b"\0")
        h.update(data)
    return h.hexdigest()


def bytes_checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_checksum(path: Path) -> str:
    """The SHA-256 a manifest keeps of a file its result depends on (read as an untrusted file)."""
    return bytes_checksum(read_bytes(path, 1 << 40))


# --- sealed Parquet files --------------------------------------------------------------------------------

def write_sealed_parquet(df, path: Path, fingerprint: str, checksum: str, root: Path | None = None) -> None:
    """A frame as Parquet whose key-value metadata carries its fingerprint and its rows' checksum."""
    meta = {FINGERPRINT_KEY: fingerprint, CHECKSUM_KEY: checksum}
    atomic_write(path, lambda tmp: df.write_parquet(tmp, metadata=meta), root)


def read_parquet(path: Path):
    """A Parquet file's key-value metadata and frame, read as an untrusted file (``files.read_bytes``: a
    regular file only, never a FIFO or a device waited on, its size bounded), then parsed from memory."""
    import io

    import polars as pl

    try:
        data = read_bytes(path, PARQUET_LIMIT)
        return pl.read_parquet_metadata(io.BytesIO(data)), pl.read_parquet(io.BytesIO(data))
    except UntrustedFile as e:
        raise Damaged(_("unreadable ({reason})").format(reason=first_line(str(e).removeprefix(f'{path}: ')))) \
            from None
    except Exception as e:  # polars' errors for garbage or a truncated file
        raise Damaged(_("unreadable ({reason})").format(reason=first_line(e))) from None


def read_sealed_parquet(path: Path, fingerprint: str, columns: list[str], checksum: Callable, what: str):
    """The frame of a sealed Parquet file (``write_sealed_parquet``) with this version's ``columns``, the
    expected ``fingerprint`` and a matching ``checksum(frame)`` (Damaged otherwise; ``what``: the text of an
    ``N_`` message naming the file's kind, translated here)."""
    meta, df = read_parquet(path)
    if FINGERPRINT_KEY not in meta or CHECKSUM_KEY not in meta or list(df.columns) != columns:
        raise Damaged(_("not a {what} of this escoba-sim version").format(what=_(what)))
    if meta[FINGERPRINT_KEY] != fingerprint:
        raise Damaged(_("from another run or chunk (its fingerprint differs)"))
    try:
        ok = meta[CHECKSUM_KEY] == checksum(df)
    except Exception:  # columns of the wrong type
        ok = False
    if not ok:
        raise Damaged(_("changed after it was written (its checksum differs)"))
    return df


# --- a damaged file --------------------------------------------------------------------------------------

def set_aside(p: Path, why: str, action: str, *, warn: bool = True, strict: bool = False) -> None:
    """A damaged file is computed again, not trusted; it is kept beside as NAME.damaged, not lost, with one
    warning line (``action``: what is done again, translated: ``evaluating it``, ``playing chunk 3``).

    ``warn=False`` keeps the line for a caller that warns about the first few files only (a run may have
    thousands of chunks). A file already gone is nothing to keep. A file that cannot be moved is left where
    it is, to be overwritten by the new one; ``strict`` (a run's chunks) first removes a folder of the
    aside's name in the way and lets any other failure to move it be an error."""
    if warn:
        print(_("warning: {path} is {problem}; {action} again (the file is kept as {aside})").format(
            path=p, problem=why, action=action, aside=f"{p.name}{DAMAGED}"), file=sys.stderr)
    aside = p.with_name(p.name + DAMAGED)
    if not strict:
        try:
            os.replace(p, aside)
        except OSError:  # a folder in its place, say: left where it is and overwritten by the new file
            pass
        return
    if p.exists() or p.is_symlink():
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside)
        os.replace(p, aside)


# --- places that cannot be the folder --------------------------------------------------------------------

NOT_A_FOLDER = N_("{out} {folder}: exists and is not a folder")
CANNOT_WRITE = N_("{out} {folder}: cannot write there ({reason})")


def check_is_folder(out: Path, error: type[EscobaError]) -> None:
    """Refuse an ``out`` that exists and is not a folder."""
    if out.exists() and not out.is_dir():
        raise error(_(NOT_A_FOLDER), parameter=OUT, folder=out, out=OUT)


def cannot_write(out: Path, e: OSError, error: type[EscobaError]) -> EscobaError:
    """The error for an ``out`` the tool cannot write (``e``: why)."""
    return error(_(CANNOT_WRITE), parameter=OUT, folder=out, out=OUT, reason=e.strerror or e)


def check_holds_nothing_else(out: Path, holds_none: str, error: type[EscobaError], ignore: tuple[str, ...] = (LOCK,)
                             ) -> None:
    """Refuse a folder that is not empty (but for the names in ``ignore``) when it holds no folder of the kind
    being written (``holds_none``: its ``N_`` message, "{out} {folder}: the folder is not empty and holds no
    ..."; one per kind, so the words agree with the kind in Spanish)."""
    if out.is_dir() and any(p.name not in ignore for p in out.iterdir()):
        raise error(_(holds_none), parameter=OUT, folder=out, out=OUT)
