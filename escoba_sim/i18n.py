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


# The language of what this process prints at the command line (install_for_cli sets it); English until then,
# so a program using the library, and the tests, read English unless they ask.
_active: gettext.NullTranslations = gettext.NullTranslations()


def translate(message: str) -> str:
    """``message`` in the process's language (import it as ``_``: ``from ..i18n import translate as _``)."""
    return _active.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` in the process's language."""
    return _active.ngettext(singular, plural, n)


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
    global _active
    code = normalize(lang) or from_environment()
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = code  # gettext's own lookup reads LANGUAGE first
    _active = translation(code)
    return code
