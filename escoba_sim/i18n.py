"""The catalogue of what a person reads, in English (the default) and Spanish: gettext catalogs managed
with Babel (``escoba_sim/locale/``; docs/translating.md says how to extract, update and compile them).

One text domain, ``escoba_sim``, holds every translated message of the package, Click's own messages
included once the command line uses it. English is the source language, so ``en`` needs no catalogue.
The language comes from, in order: an explicit choice (``--lang``, a page's switch), the environment
(``ESCOBA_SIM_LANG``, then the POSIX locale variables ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: any ``es_*``
is Spanish), or a browser's ``Accept-Language``. This module imports nothing of the package, so any
layer may use it.
"""

from __future__ import annotations

import functools
import gettext
import os
import threading
from pathlib import Path

DOMAIN = "escoba_sim"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "es")  # the first is the source language and the default
DEFAULT = LANGUAGES[0]
ENV_VARIABLE = "ESCOBA_SIM_LANG"


def N_(message: str) -> str:
    """Mark a message for extraction without translating it here (it is translated where it is shown)."""
    return message


def normalize(tag: str | None) -> str | None:
    """``es``, ``es_ES.UTF-8``, ``es-AR`` -> ``es``; ``en_GB`` -> ``en``; anything else -> None."""
    if not tag:
        return None
    base = tag.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


@functools.lru_cache(maxsize=len(LANGUAGES))
def translation(lang: str | None) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English, or an unknown tag: the messages as written)."""
    code = normalize(lang) or DEFAULT
    if code == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])


def from_environment(environ=None) -> str:
    """The language the environment asks for: ``ESCOBA_SIM_LANG``, then the POSIX order (``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``; the first one set decides); English when none names a known language."""
    env = os.environ if environ is None else environ
    if env.get(ENV_VARIABLE):
        return normalize(env[ENV_VARIABLE]) or DEFAULT
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if env.get(name):
            return normalize(env[name]) or DEFAULT
    return DEFAULT


def from_accept_language(header: str | None) -> str:
    """The best known language of an HTTP ``Accept-Language`` header (``es-ES,es;q=0.9,en;q=0.8``)."""
    best, best_q = DEFAULT, -1.0
    for i, part in enumerate((header or "")[:1000].split(",")[:40]):
        tag, _, params = part.strip().partition(";")
        code = normalize(tag)
        if code is None:
            continue
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                continue
        if q > best_q:  # ties keep the earlier tag, as listed by the browser
            best, best_q = code, q
    return best if best_q > 0 else DEFAULT


def lang_from_argv(argv) -> str | None:
    """The value of the global ``--lang`` option in a command line (``--lang es``, ``--lang=es``), read by
    hand because the language must be known before Click is imported; None when absent. Only what comes
    before a lone ``--`` counts."""
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def install_for_cli(lang: str | None = None) -> str:
    """Make ``lang`` (default: the environment's) the language of the process's gettext calls, Click's
    included: binds the package's domain as the default one. Call it before Click is imported, since Click
    translates some texts when its modules load. Returns the language chosen."""
    global _installed
    code = normalize(lang) or from_environment()
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = code  # gettext's own lookup reads LANGUAGE first
    _installed = code
    return code


# The language of what a process prints (messages, terminal tables, reports, charts): the one ``use`` chooses
# for a block, else the one ``install_for_cli`` installed, else English, so the library used from Python (and
# the tests) speaks English unless asked.
_installed: str = DEFAULT
_chosen: list[str] = []
# ``in_thread``'s language, per thread: each of the page's worker threads answers a request in its page's
_thread = threading.local()


def current() -> str:
    """The language output is written in now (the calling thread's ``in_thread``, else ``use``, else
    ``install_for_cli``'s, else English)."""
    lang = getattr(_thread, "lang", None)
    if lang is not None:
        return lang
    return _chosen[-1] if _chosen else _installed


def in_thread(lang: str | None, work, *args):
    """``work(*args)`` with the calling thread's output in ``lang`` (other threads keep theirs: ``use`` is the
    whole process's, which a report's worker threads follow)."""
    before = getattr(_thread, "lang", None)
    _thread.lang = normalize(lang) or DEFAULT
    try:
        return work(*args)
    finally:
        _thread.lang = before


def translate(message: str) -> str:
    """``message`` in the current language (``current``); modules import it as ``_`` (Babel's keyword)."""
    return translation(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message in the current language, as ``n`` asks."""
    return translation(current()).ngettext(singular, plural, n)


class use:
    """``with i18n.use("es"):`` output in that language inside the block (tests, a library caller)."""

    def __init__(self, lang: str | None):
        self.lang = normalize(lang) or DEFAULT

    def __enter__(self) -> str:
        _chosen.append(self.lang)
        return self.lang

    def __exit__(self, *exc) -> None:
        _chosen.pop()
