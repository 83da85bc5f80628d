"""Printing on any terminal: ASCII stand-ins for the characters a terminal's encoding cannot print (an
ISO-8859-1 or ASCII locale, ``PYTHONIOENCODING=ascii``), in every command and language (``fit_to_terminal``,
``PlainStream``), and the rich console the tables are printed on (``make_console``)."""

from __future__ import annotations

import io
import sys

# What stands for a character the terminal's encoding cannot print (an ISO-8859-1 or ASCII stdout): these, else
# the letters without their accents (``ó`` -> ``o``), else ``?``. Only what the encoding lacks is replaced, so
# a UTF-8 terminal gets the very same bytes.
STAND_INS = {"∞": "inf", "±": "+-", "–": "-", "—": "-", "−": "-", "…": "...", "×": "x", "·": ".", "≤": "<=",
             "≥": ">=", "≈": "~", "≠": "!=", "→": "->", "←": "<-", "“": '"', "”": '"', "„": '"', "‘": "'",
             "’": "'", "«": '"', "»": '"', "¿": "", "¡": "", "ª": "a", "º": "o", "°": "o", "€": "EUR", "•": "*",
             "━": "-", "─": "-", "│": "|", "✓": "v", "✗": "x", "\u00a0": " "}


def _encoding_of(stream) -> str:
    """The name of the codec ``stream`` writes with (``utf-8`` when it says none)."""
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name
    except LookupError:
        return "ascii"


def prints_everything(stream=None) -> bool:
    """Whether ``stream`` (stdout) can print every character: its encoding is one of Unicode's."""
    return _encoding_of(sys.stdout if stream is None else stream).startswith("utf-")


def printable(text: str, stream=None) -> str:
    """``text`` as ``stream`` (stdout) can print it: each character its encoding lacks by its ASCII stand-in
    (``∞`` -> ``inf``, ``±`` -> ``+-``, ``ó`` -> ``o``: ``STAND_INS``); unchanged when it can print all."""
    if text.isascii():
        return text
    encoding = _encoding_of(sys.stdout if stream is None else stream)
    try:
        text.encode(encoding)
        return text
    except UnicodeError:
        pass

    def one(c: str) -> str:
        try:
            c.encode(encoding)
            return c
        except UnicodeError:
            return _stand_in(c)

    return "".join(map(one, text))


def _stand_in(c: str) -> str:
    """The ASCII that stands for character ``c`` (``STAND_INS``, else its letters without accents, else ``?``)."""
    import unicodedata

    if c in STAND_INS:
        return STAND_INS[c]
    bare = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x))
    return bare if bare.isascii() and bare else "?"


STAND_IN_ERRORS = "escoba_sim.stand_in"  # the codec error handler of the same stand-ins (``PlainStream.errors``)


def _stand_in_errors(e: UnicodeError):
    if not isinstance(e, UnicodeEncodeError):
        raise e
    return "".join(map(_stand_in, e.object[e.start:e.end])), e.end


class PlainStream(io.TextIOBase):
    """A text stream that writes to ``stream`` what its encoding can print and an ASCII stand-in for the rest
    (``printable``). It offers no ``buffer``, so Click writes to it too (Click would otherwise write UTF-8 bytes
    past an ASCII stdout's encoding)."""

    def __init__(self, stream):
        self.stream = stream

    @property
    def encoding(self):  # the terminal's own: rich draws ASCII boxes for an encoding that is not Unicode's
        return self.stream.encoding

    @property
    def errors(self):  # what encodes with the stream's own settings (input()'s prompt) gets the stand-ins too
        return STAND_IN_ERRORS

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.stream.write(printable(text, self.stream))
        return len(text)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()


def fit_to_terminal() -> None:
    """Make stdout and stderr print on any terminal: one whose encoding cannot print every character (an
    ISO-8859-1 or ASCII locale, ``PYTHONIOENCODING=ascii``) gets ``PlainStream`` in its place, in every command
    and language; a Unicode one is left as it is (the same bytes)."""
    import codecs

    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, PlainStream) and not prints_everything(stream):
            codecs.register_error(STAND_IN_ERRORS, _stand_in_errors)
            setattr(sys, name, PlainStream(stream))


def make_console(stderr: bool = False):
    """A rich console as wide as the terminal, or ``COLUMNS``, or 80 columns when piped (rich's own rule)."""
    from rich.console import Console

    return Console(stderr=stderr)
