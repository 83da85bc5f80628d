"""The command line's one way of showing a library error: ``render`` names each parameter by the flag that
sets it in the running command (``teams`` -> ``--teams``), and ``fail`` prints the line (and the command that
continues the work, when the error carries one) and exits non-zero.

Exit codes follow Click's convention (README, "Exit codes"): ``USAGE`` (2) for a usage error -- an option or
argument the command cannot take, whether Click's parameter types refuse it or the command or the library
does (``usage_code``) -- and 1 for everything else (a folder or file it cannot use, a run that failed)."""

from __future__ import annotations

import functools
import sys

import click

from ..errors import EscobaError
from ..i18n import translate as _

# parameters whose flag is not ``--`` + the name with dashes (the running command's own options are looked
# up first; this covers parameters named in a message of another command, a resume line's, say)
FLAGS = {"count": "-n", "n": "-n", "chunk_size": "--chunk"}

USAGE = 2  # Click's exit code for a usage error (a bad option value, a missing option)


def _takes(name: str) -> bool:
    """Whether the running command has a parameter (option or argument) for library parameter ``name``."""
    ctx = click.get_current_context(silent=True)
    flag = FLAGS.get(name, "--" + name.replace("_", "-"))
    return any(p.name == name or flag in p.opts for p in getattr(getattr(ctx, "command", None), "params", ()))


def usage_code(error: BaseException) -> int:
    """The exit code of a library error the command does not handle itself: ``USAGE`` when it is about a value
    the command line gave (its parameter is one of the running command's, and it names no folder: a folder that
    cannot be used, or a manifest read back by ``resume``, is not a usage error; nor is a run that failed,
    a ``RuntimeError``), 1 otherwise."""
    parameter = getattr(error, "parameter", None)
    if parameter and getattr(error, "folder", None) is None and not isinstance(error, RuntimeError) \
            and _takes(parameter):
        return USAGE
    return 1


def flag_of(name: str) -> str:
    """The flag that sets library parameter ``name`` in the running command (its long form)."""
    ctx = click.get_current_context(silent=True)
    for param in getattr(getattr(ctx, "command", None), "params", ()):
        if param.name == name and isinstance(param, click.Option):
            longs = [o for o in param.opts if o.startswith("--")]
            return (longs or param.opts)[0]
        if param.name == name and isinstance(param, click.Argument):
            return param.human_readable_name  # FOLDER, as --help names it
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def render(error: BaseException) -> str:
    """What the command line says of ``error``: its message with flags for parameters."""
    if isinstance(error, EscobaError):
        return error.render(name_of=flag_of)
    return str(error)


def reporting(callback):
    """A command's ``callback`` with the command line's one catch of the library's errors: an ``EscobaError``
    the command does not handle itself ends as one line (``fail``), its parameters named by the running command's
    flags, exit 2 for a usage error and 1 for the rest (``usage_code``; the command's context is still the current
    one here)."""

    @functools.wraps(callback)
    def invoke(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except EscobaError as e:
            fail(e, usage_code(e))

    return invoke


def fail(error: BaseException | str, code: int = 1):
    """Print a one-line error on stderr and exit ``code`` (non-zero)."""
    message = error if isinstance(error, str) else render(error)
    click.echo(_("Error: {message}").format(message=message), err=True)
    sys.exit(code)
