"""The catalogue (escoba_sim/i18n.py, escoba_sim/locale/): every message marked in the package (every file
babel.cfg maps: the command line, the library's messages, the page) and every message of Click has a Spanish
translation with the same placeholders, the compiled .mo says what the .po says, the game's own words are the
Spanish ones, and the language is chosen from a choice, the environment or a browser's Accept-Language."""

import gettext
import re
from pathlib import Path

import pytest
from helpers import REPO

from escoba_sim import i18n

babel_extract = pytest.importorskip("babel.messages.extract")
pofile = pytest.importorskip("babel.messages.pofile")

PO = REPO / "escoba_sim" / "locale" / "es" / "LC_MESSAGES" / "escoba_sim.po"
# the newest Click whose messages the catalogue was extracted from (8.5 added "Positional arguments")
CLICK_CATALOGUED = "8.5.1"


def extraction_map():
    """(method_map, options_map) of babel.cfg, as `pybabel extract -F babel.cfg` reads it."""
    method_map, options_map = [], {}
    section = None
    for line in (REPO / "babel.cfg").read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            method, _, pattern = line[1:-1].partition(":")
            section = pattern.strip()
            method_map.append((section, method.strip()))
            options_map[section] = {}
        elif "=" in line and section and not line.startswith("#"):
            key, _, value = line.partition("=")
            options_map[section][key.strip()] = value.strip()
    return method_map, options_map


def marked_messages(folder=REPO) -> set[str]:
    """Every message Babel extracts from ``folder`` with the project's map (babel.cfg), as `pybabel extract`
    (Click's folder is the second one docs/translating.md gives it)."""
    method_map, options_map = extraction_map()
    keywords = {**babel_extract.DEFAULT_KEYWORDS, "N_": None}
    found = babel_extract.extract_from_dir(str(folder), method_map, options_map, keywords=keywords)
    return {message if isinstance(message, str) else message[0] for _, _, message, _, _ in found}


def click_messages() -> set[str]:
    import click

    return marked_messages(Path(click.__file__).parent)


def spanish_catalogue():
    with open(PO, "rb") as f:
        return pofile.read_po(f)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_babel_cfg_maps_every_module_of_the_package():
    """A module babel.cfg left out would keep its marked messages out of the catalogue, unnoticed."""
    from babel.util import pathmatch

    patterns = [pattern for pattern, _ in extraction_map()[0]]
    modules = [p.relative_to(REPO).as_posix() for p in (REPO / "escoba_sim").rglob("*.py")]
    assert len(modules) > 40
    assert not [m for m in modules if not any(pathmatch(pattern, m) for pattern in patterns)]


@pytest.mark.parametrize("where", ["package", "click"])
def test_every_message_has_a_spanish_translation(where):
    messages = marked_messages() if where == "package" else click_messages()
    if where == "package":  # the page, the command line and the library's messages a person reads
        assert len(messages) > 500
        assert {"Your hand", "Strategy of seat 0.", "hand {hand}  table {table}  rules {rules} (capture={capture})",
                "unknown strategy `{name}`{suggestion}; strategies: {names} or path/to/file.py:ClassName",
                "`{text}`: suit must be o, c, e or b (oros, copas, espadas, bastos)", "{path}: no such file",
                "a missed capture may be blown by the next player", "score sheet", "? hint, u take back, q quit"
                } <= messages
    else:  # Click's own: Usage:, Error: ..., Show this message and exit.
        assert {"Usage:", "Options", "Show this message and exit.", "Missing option", "Error: {message}"} <= messages
    catalogue = spanish_catalogue()
    missing = sorted(m for m in messages if not catalogue.get(m) or not all(forms(catalogue.get(m).string)))
    if where == "click":  # a new Click release adds messages: say which release, so the fix is obvious
        from importlib.metadata import version

        assert not missing, (f"Click {version('click')} has messages the catalogue does not translate (it covers "
                             f"Click up to {CLICK_CATALOGUED}; docs/translating.md): {missing}")
    assert not missing, f"messages without a Spanish translation (docs/translating.md): {missing}"
    fuzzy = sorted(m for m in messages if catalogue.get(m).fuzzy)
    assert not fuzzy, f"translations marked fuzzy (to check): {fuzzy}"
    for m in messages:
        entry = catalogue.get(m)
        english = forms(entry.id)  # a plural (ngettext) entry: the singular, then the plural for every other form
        for k, spanish in enumerate(forms(entry.string)):
            assert placeholders(spanish) == placeholders(english[min(k, len(english) - 1)]), (m, spanish)


@pytest.mark.parametrize("where", ["package", "click"])
def test_no_message_reads_as_a_printf_format_unless_it_is_one(where):
    """Babel takes a message for %-formatted when PYTHON_FORMAT matches it: `95% interval` (`% i`, python-babel/babel
    #1268) does, and `pybabel compile` then fails with "placeholders are incompatible" (docs/translating.md).
    Only a named `%(name)s` placeholder (Click's `%(prog)s`) is a real one here; the package formats with {names}."""
    from babel.messages.catalog import PYTHON_FORMAT

    messages = marked_messages() if where == "package" else click_messages()
    false = sorted(m for m in messages for match in PYTHON_FORMAT.finditer(m)
                   if not (match.group(1) and match.group(3) in "sdr"))
    assert not false, f"messages Babel reads as %-formatted (reword: `(95%)`, `95% CI`): {false}"
    errors = [(entry.id, [str(e) for e in errs]) for entry, errs in spanish_catalogue().check()]
    assert not errors, f"pybabel compile would fail: {errors}"


def forms(text) -> tuple[str, ...]:
    """A catalogue entry's text as a tuple: one form, or a plural's forms."""
    return (text,) if isinstance(text, str) else tuple(text)


def test_the_compiled_catalogue_matches_its_source():
    es = i18n.translation("es")
    assert isinstance(es, gettext.GNUTranslations)
    def compiled(m):  # a plural entry: its forms for 1, a million and 2 (Spanish's three plural forms)
        if isinstance(m.id, str):
            return es.gettext(m.id)
        return tuple(es.ngettext(m.id[0], m.id[1], n) for n in (1, 1_000_000, 2))

    stale = [m.id for m in spanish_catalogue() if m.id and compiled(m) != (m.string if isinstance(m.id, str)
                                                                             else tuple(m.string))]
    assert not stale, f"escoba_sim.mo is older than escoba_sim.po (run pybabel compile): {stale}"


def test_the_games_own_words_are_spanish():
    es = i18n.translation("es").gettext
    assert es("do not blow") == "no soplar"
    assert "soplar" in es("{who} laid {card}, which could have captured: you may blow (soplar).")
    assert es("escoba!") == "¡escoba!"
    assert es("hand {n}") == "mano {n}"
    assert "baza" in es("{cards} card(s) left on the table go to {who}, the last to capture")
    # the point categories as the rule texts (seed 000's table) write them
    assert [es(w) for w in ("siete de oros", "sevens (majority)", "oros (majority)", "cards (majority)")] == \
        ["siete de oros", "mayoría de sietes", "mayoría de oros", "mayoría de cartas"]
    assert i18n.translation("en").gettext("do not blow") == "do not blow"


@pytest.mark.parametrize("header, lang", [
    ("es-ES,es;q=0.9,en;q=0.8", "es"), ("en-GB,en;q=0.9,es;q=0.8", "en"), ("fr-FR,fr;q=0.9,es;q=0.5", "es"),
    ("fr-FR", "en"), ("", "en"), (None, "en"), ("es;q=0", "en"), ("en;q=0.2, es-AR;q=0.7", "es"),
    ("es;q=abc,en", "en"), ("," * 5000, "en")])
def test_the_browsers_language_is_the_best_known_one(header, lang):
    assert i18n.from_accept_language(header) == lang


@pytest.mark.parametrize("environ, lang", [
    ({"LANG": "es_ES.UTF-8"}, "es"), ({"LANG": "es_AR"}, "es"), ({"LANG": "C.UTF-8"}, "en"), ({}, "en"),
    ({"LANG": "es_ES.UTF-8", "LC_ALL": "en_US.UTF-8"}, "en"), ({"LANG": "en_US", "LC_MESSAGES": "es_MX"}, "es"),
    ({"LANG": "en_US", "ESCOBA_SIM_LANG": "es"}, "es")])
def test_the_environments_language_follows_posix_order(environ, lang):
    assert i18n.from_environment(environ) == lang


def test_normalize_knows_only_the_catalogues_languages():
    assert [i18n.normalize(t) for t in ("es", "es_ES.UTF-8", "es-AR", "EN", "en_GB@euro", "fr", "", None)] == \
        ["es", "es", "es", "en", "en", None, None, None]


def test_install_for_cli_makes_the_catalogue_the_default_domain_before_click_loads():
    """The command line's pass (docs/translating.md): bound before Click is imported, gettext.gettext -- what
    Click calls -- answers from the package's catalogue in the language of the environment."""
    import os
    import subprocess
    import sys

    code = ("from escoba_sim import i18n; lang = i18n.install_for_cli(); import click, gettext; "
            "print(lang, gettext.gettext('do not blow'))")
    for env, expected in (({"LANG": "es_ES.UTF-8"}, "es no soplar"), ({"LANG": "C.UTF-8"}, "en do not blow")):
        clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG",
                                                                  i18n.ENV_VARIABLE)}
        out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True,
                             cwd=REPO, check=True).stdout
        assert out.strip() == expected


def test_every_word_the_script_asks_for_is_in_the_catalogue():
    """A key the page's script names but words.WORDS lacks would show the key itself, untranslated."""
    from escoba_sim.web.words import WORDS

    script = (REPO / "escoba_sim" / "web" / "static" / "page.js").read_text()
    asked = set(re.findall(r'say\("(\w+)"', script))
    assert len(asked) > 30 and not asked - set(WORDS), sorted(asked - set(WORDS))
