"""Every file the tool reads or writes, in one place (docs/security.md).

Reading: whatever a folder, a record or a request holds is untrusted. A read
opens only a regular file (never a FIFO, a device such as ``/dev/zero`` or
``/dev/stdin``, or a folder), without following a final symlink and without
blocking, reads at most ``limit`` bytes, and parses JSON and TOML with their
depth bounded and integers too long to be values refused (``NaN`` and
``Infinity``, which the tool's own summaries may hold, only where asked). Every failure is an :class:`UntrustedFile` (an ``EscobaError``) with a
one-line message that names the file.

Writing: a file is written to a fresh temporary name beside it (created with
``O_EXCL | O_NOFOLLOW``) and ``os.replace``d, so a reader never sees half a
file and a symlink planted at the name is replaced, not followed. With
``root`` (the output folder) no folder between the root and the file may be a
symlink either, so a write never lands outside the folder.

Checksums: :func:`sha256_file` is the digest a folder's index keeps for each
file its result depends on.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path

from .errors import EscobaError
from .i18n import N_
from .i18n import translate as _

MiB = 1 << 20
JSON_LIMIT = 64 * MiB  # a summary or manifest is kilobytes; a hand record well under one MiB
TOML_LIMIT = 1 * MiB
MAX_DEPTH = 64  # no file the tool writes nests more than a few levels


class UntrustedFile(EscobaError):
    """A file that cannot be read as what it should be (one line, naming the file)."""


def first_line(e: BaseException) -> str:
    """An exception's message as one line of at most 100 characters, for an error that names a file."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 100 else text[:97] + "..."


# ---------- reading ----------

def read_bytes(path: str | os.PathLike, limit: int = JSON_LIMIT) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``); anything else is refused without blocking."""
    p = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise UntrustedFile(_("{path}: no such file").format(path=p)) from None
    except OSError as e:  # ELOOP: a symlink; EACCES; ENXIO: a FIFO with no writer ...
        raise UntrustedFile(_("{path}: cannot open ({reason})").format(path=p, reason=first_line(e))) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _("a folder") if stat.S_ISDIR(st.st_mode) else _("not a regular file")
            raise UntrustedFile(f"{p}: {kind}")
        if st.st_size > limit:
            raise UntrustedFile(_("{path}: {size} bytes, more than the {limit} bytes such a file may have").format(
                path=p, size=f"{st.st_size:,}", limit=f"{limit:,}"))
        chunks, left = [], limit + 1
        while left > 0:
            b = os.read(fd, min(left, MiB))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > limit:  # grew while read
            raise UntrustedFile(_("{path}: more than the {limit} bytes such a file may have").format(
                path=p, limit=f"{limit:,}"))
        return data
    except OSError as e:
        raise UntrustedFile(_("{path}: cannot read ({reason})").format(path=p, reason=first_line(e))) from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, limit: int = JSON_LIMIT) -> str:
    try:
        return read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError as e:
        raise UntrustedFile(_("{path}: not UTF-8 text ({reason})").format(path=path, reason=first_line(e))) from None


def check_depth(value, max_depth: int = MAX_DEPTH, what: str = "value") -> None:
    """Refuse a parsed value whose lists and objects nest more than ``max_depth`` levels (iteratively)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list | tuple):
            children = v
        else:
            continue
        if d > max_depth:
            raise UntrustedFile(_("{what}: nested more than {depth} levels deep").format(what=what, depth=max_depth))
        stack.extend((c, d + 1) for c in children)


def _refuse_constant(name: str):
    raise ValueError(_("{name} is not a number a file of this tool holds").format(name=name))


# what ``json`` says of a text it cannot parse, in the catalogue so that a Spanish reader reads it in Spanish
# (``json.decoder``'s messages, each without its position, which the line and column say)
JSON_REASONS = (N_("Expecting value"), N_("Expecting property name enclosed in double quotes"),
                N_("Expecting ':' delimiter"), N_("Expecting ',' delimiter"), N_("Extra data"),
                N_("Invalid control character at"), N_("Unterminated string starting at"), N_("Invalid \\escape"),
                N_("Invalid \\uXXXX escape"), N_("Illegal trailing comma before end of object"),
                N_("Illegal trailing comma before end of array"))


def _finite_float(text: str) -> float:
    """A JSON number as ``json`` reads it, refused when it is too large to be finite (``1e999``: inf)."""
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(_("{number} is not a finite number").format(number=text[:40]))
    return value


def parse_json(text: str, what: str = "JSON", max_depth: int = MAX_DEPTH, finite: bool = False):
    """``json.loads`` for untrusted text: no integer of more than 4300 digits, bounded depth; with ``finite``
    no NaN or Infinity either, nor a number too large to be finite (``1e999``)."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float) if finite else \
            json.loads(text)
    except RecursionError:
        raise UntrustedFile(_("{what}: nested too deeply").format(what=what)) from None
    except json.JSONDecodeError as e:
        raise UntrustedFile(_("{what}: not valid JSON (line {line}, column {column}: {reason})").format(
            what=what, line=e.lineno, column=e.colno, reason=_(e.msg))) from None
    except ValueError as e:  # int too long, NaN
        if "integer string conversion" in str(e):  # Python's own words, in no catalogue
            raise UntrustedFile(_("{what}: not valid JSON (an integer of more than {digits} digits)").format(
                what=what, digits=sys.get_int_max_str_digits())) from None
        raise UntrustedFile(_("{what}: not valid JSON ({reason})").format(what=what, reason=first_line(e))) from None
    check_depth(value, max_depth, what)
    return value


def read_json(path: str | os.PathLike, limit: int = JSON_LIMIT, max_depth: int = MAX_DEPTH, finite: bool = False):
    return parse_json(read_text(path, limit), str(path), max_depth, finite)


def read_json_object(path: str | os.PathLike, limit: int = JSON_LIMIT, what: str = N_("a JSON object"),
                     finite: bool = False) -> dict:
    data = read_json(path, limit, finite=finite)
    if not isinstance(data, dict):
        raise UntrustedFile(_("{path}: not {what}, got {got}").format(path=path, what=_(what), got=type(data).__name__))
    return data


def parse_toml(text: str, what: str = "TOML", max_depth: int = MAX_DEPTH) -> dict:
    """``tomllib.loads`` for untrusted text, its depth bounded."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise UntrustedFile(_("{what}: nested too deeply").format(what=what)) from None
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise UntrustedFile(_("{what}: not valid TOML ({reason})").format(what=what, reason=first_line(e))) from None
    check_depth(value, max_depth, what)
    return value


def read_toml(path: str | os.PathLike, limit: int = TOML_LIMIT, max_depth: int = MAX_DEPTH) -> dict:
    try:
        text = read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError as e:  # TOML is UTF-8 text
        raise UntrustedFile(_("{path}: not valid TOML (not UTF-8 text: {reason})").format(
            path=path, reason=first_line(e))) from None
    return parse_toml(text, str(path), max_depth)


def sha256_file(path: str | os.PathLike, limit: int = 1 << 40) -> str:
    """The SHA-256 hex digest of a regular file (read like any untrusted file)."""
    return hashlib.sha256(read_bytes(path, limit)).hexdigest()


# ---------- writing ----------

def check_inside(path: str | os.PathLike, root: str | os.PathLike) -> None:
    """Refuse a path under ``root`` that passes through a symlinked folder (the write would leave the root)."""
    p, r = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    try:
        rel = p.parent.relative_to(r)
    except ValueError:
        raise UntrustedFile(_("{path}: outside the folder {root}").format(path=path, root=root)) from None
    cur = r
    for part in rel.parts:
        cur = cur / part
        if cur.is_symlink():
            raise UntrustedFile(_("{path}: is a symlink; the tool does not write through links").format(path=cur))


def make_dirs(path: str | os.PathLike, root: str | os.PathLike) -> Path:
    """Create the folder ``path`` under ``root`` (``root`` itself with its parents: the command line named
    it), refusing a symlink or a file at any step below the root, so a write never leaves the root."""
    p, r = Path(path), Path(root)
    check_inside(p / "x", r)  # p lies under r (or is r)
    r.mkdir(parents=True, exist_ok=True)
    cur = r
    for part in Path(os.path.abspath(p)).relative_to(Path(os.path.abspath(r))).parts:
        cur = cur / part
        if cur.is_symlink():
            raise UntrustedFile(_("{path}: is a symlink; the tool does not write through links").format(path=cur))
        try:
            cur.mkdir()
        except FileExistsError:
            if not cur.is_dir():
                raise UntrustedFile(_("{path}: exists and is not a folder").format(path=cur)) from None
    return p


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None], root: str | os.PathLike | None = None) -> None:
    """Write ``path`` through ``write(tmp)`` on a fresh temporary beside it, then rename it into place.

    The temporary is created with ``O_EXCL | O_NOFOLLOW`` (never an existing file or link); the rename
    replaces a symlink at ``path`` rather than following it. With ``root``, ``path`` must lie under it
    with no symlinked folder in between.
    """
    path = Path(path)
    if root is not None:
        check_inside(path, root)
    # pid and thread in the name: a chunk redone elsewhere (a Dask retry, a worker thread) never shares a temp file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        try:
            os.unlink(tmp)  # a leftover of this very pid and thread (or a planted link): never written through
        except FileNotFoundError:
            pass
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644))
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()


def write_bytes(path: str | os.PathLike, data: bytes, root: str | os.PathLike | None = None) -> None:
    def put(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    atomic_write(path, put, root)


def write_text(path: str | os.PathLike, text: str, root: str | os.PathLike | None = None) -> None:
    write_bytes(path, text.encode("utf-8"), root)


def write_json(path: str | os.PathLike, data, root: str | os.PathLike | None = None, finite: bool = False) -> None:
    """JSON as the tool writes it: indented, a final newline; with ``finite`` NaN or Infinity is a ValueError
    (a run's summary may hold them where a quantity is undefined, e.g. the Elo of a 100% score)."""
    write_text(path, json.dumps(data, indent=2, allow_nan=not finite) + "\n", root)
