"""The command line's one way of showing a library error: ``render`` names each parameter by the flag that
sets it in the running command (``teams`` -> ``--teams``), and ``fail`` prints the line (and the command that
continues the work, when the error carries one) and exits non-zero. At a terminal the message is wrapped to its
width, at most 80 columns (``wrapped``), Click's own errors too (``fit_to_width``).

Exit codes follow Click's convention (README, "Exit codes"): ``USAGE`` (2) for a usage error -- an option or
argument the command cannot take, whether Click's parameter types refuse it or the command or the library
does (``usage_code``) -- and 1 for everything else (a folder or file it cannot use, a run that failed)."""

from __future__ import annotations

import functools
import os
import shutil
import sys
import textwrap

import click

from ..errors import EscobaError
from ..i18n import translate as _

# parameters whose flag is not ``--`` + the name with dashes (the running command's own options are looked
# up first; this covers parameters named in a message of another command, a resume line's, say)
FLAGS = {"count": "-n", "n": "-n", "chunk_size": "--chunk"}

USAGE = 2  # Click's exit code for a usage error (a bad option value, a missing option)
WIDTH = 80  # an error is wrapped to the terminal's width, at most this (a pipe's lines fit 80 columns too)


def wrapped(head: str, message: str) -> str:
    """``message`` wrapped at word boundaries so that ``head + message`` fits the terminal (at most ``WIDTH``
    columns): what follows ``head`` on its first line, the rest on lines of their own indented by two; a word
    longer than a line (a path, a command) is kept whole. Each line of a message of several is wrapped alone.
    Only for a reader at a terminal: stderr is one, or ``COLUMNS`` says its width (``COLUMNS=80 ... | less``);
    otherwise (a log, a script reading the error) the message stays one line, as the library wrote it."""
    if not (_isatty(sys.stderr) or os.environ.get("COLUMNS")):
        return message
    width = max(40, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))
    out: list[str] = []
    for i, line in enumerate(message.split("\n")):
        first = " " * len(head) if i == 0 else ""
        out += textwrap.wrap(line, width, initial_indent=first, subsequent_indent="  ", break_long_words=False,
                             break_on_hyphens=False) or [first]
    return "\n".join(out)[len(head):]


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def _error_head() -> str:
    """What comes before the message on an error's line (``Error: `` in both languages)."""
    return _("Error: {message}").partition("{message}")[0]


def fit_to_width(error: click.ClickException) -> click.ClickException:
    """Click's own error (an unknown option, a bad value: ``Error: Invalid value for '--vs': ...``) wrapped as
    ``fail`` wraps the library's, so that the list a message gives (the known strategies) fits the terminal."""
    original = error.format_message
    if not getattr(original, "fitted", False):
        def fitted() -> str:
            return wrapped(_error_head(), original())
        fitted.fitted = True
        error.format_message = fitted
    return error


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
    """Print an error on stderr, wrapped to the terminal's width (``wrapped``), and exit ``code`` (non-zero)."""
    message = error if isinstance(error, str) else render(error)
    click.echo(_("Error: {message}").format(message=wrapped(_error_head(), message)), err=True)
    sys.exit(code)
