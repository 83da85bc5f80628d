"""The command line in Spanish (docs/translating.md): the language from --lang, ESCOBA_SIM_LANG or the locale,
chosen before Click loads; under LANG=es_ES.UTF-8 no command prints an English sentence (every --help, the
commands a player runs, the error paths); --json and saved files are the same bytes in both languages; play
takes the Spanish words at its prompt."""

import json
import os
import re
import subprocess
import sys

import pytest
from helpers import REPO

from escoba_sim import i18n, native

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", i18n.ENV_VARIABLE)


def environment(**set_to) -> dict:
    """This process's environment without any language choice, then ``set_to``."""
    env = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    env.update(PYTHONPATH=str(REPO), COLUMNS="80", **set_to)
    return env


def escoba(*args, env, input=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "escoba_sim.cli", *map(str, args)], env=env, input=input,
                          capture_output=True, text=True, cwd=cwd or REPO, timeout=300)


# ------------------------------------------------------------------ choosing the language

@pytest.mark.parametrize("argv, lang", [
    (["--lang", "es", "play"], "es"), (["play", "--lang=en"], "en"), (["trace", "--json"], None),
    (["--lang"], None), (["moves", "--", "--lang", "es"], None)])
def test_lang_is_read_from_the_command_line_before_click(argv, lang):
    assert i18n.lang_from_argv(argv) == lang


def test_the_language_comes_from_lang_then_the_variable_then_the_locale():
    spanish, english = "Muestra este mensaje y sale.", "Show this message and exit."
    assert spanish in escoba("--help", env=environment(LANG="es_ES.UTF-8")).stdout
    assert spanish in escoba("--help", env=environment(LANG="C.UTF-8", LC_MESSAGES="es_AR")).stdout
    assert english in escoba("--help", env=environment(LANG="es_ES.UTF-8", ESCOBA_SIM_LANG="en")).stdout
    assert spanish in escoba("--lang", "es", "--help", env=environment(LANG="C.UTF-8")).stdout
    # --lang is taken after the command too, and overrides the environment
    out = escoba("moves", "--lang", "en", "--help", env=environment(LANG="es_ES.UTF-8")).stdout
    assert english in out and "--lang [en|es]" in out
    assert english in escoba("--help", env=environment()).stdout  # no locale at all: English


def test_clicks_own_messages_are_spanish():
    env = environment(LANG="es_ES.UTF-8")
    missing = escoba("trace", env=env)
    assert missing.returncode == 2
    assert missing.stderr.splitlines()[0].startswith("Uso: ")
    assert "Error: Falta una opción '--strategy'" in missing.stderr
    bad = escoba("moves", "--hand", "5o", "--rules", "ludoteka", "--json", "--nope", env=env)
    assert "No existe la opción '--nope'." in bad.stderr
    assert "Valor no válido para '-n'" in escoba("run", "-s", "greedy", "--vs", "random", "-n", "abc", env=env).stderr


def test_in_process_tests_read_english_unless_they_ask(cli):
    """The suite's `cli` fixture: English by default (conftest sets ESCOBA_SIM_LANG=en), Spanish on request."""
    assert "Error: --hand: `5x`: suit must be o, c, e or b" in cli("moves", "--hand", "5x").output
    spanish = cli("moves", "--hand", "5x", lang="es").output
    assert "Error: --hand: `5x`: el palo debe ser o, c, e o b (oros, copas, espadas, bastos)" in spanish
    assert "Falta una opción '--hand'" in cli("moves", lang="es").output  # Click's own, in-process
    assert "suit must be" in cli("moves", "--hand", "5x").output  # and back to English


# ------------------------------------------------------------------ language-neutral output

@pytest.mark.core("the hint evaluator")
def test_json_and_saved_records_are_the_same_bytes_in_both_languages(tmp_path):
    record, blown, wrong = tmp_path / "hand.json", tmp_path / "blown.json", tmp_path / "wrong.json"
    # a hand with blows (tradicional, random laying cards that could capture), and one with an illegal move
    record.write_text(escoba("trace", "-s", "greedy", "--vs", "maxoros", "--seed", "7", "--json", env=environment()).stdout)
    blown.write_text(escoba("trace", "-s", "random", "--vs", "random", "-r", "tradicional", "--seed", "1", "--json",
                            env=environment()).stdout)
    assert '"soplar": true' in blown.read_text()
    data = json.loads(record.read_text())
    data["moves"][2]["player"] = 1 - data["moves"][2]["player"]  # out of turn
    wrong.write_text(json.dumps(data))
    commands = [("trace", "-s", "greedy", "--vs", "maxoros", "--seed", "7", "--json"),
                ("trace", "-s", "random", "--vs", "random", "-r", "tradicional", "--seed", "1", "--json", "--analyze",
                 "--samples", "100"),
                ("moves", "--table", "1o 4c Rb", "--hand", "5b 7o", "--json"),
                ("rules", "show", "tradicional", "--json"), ("rules", "list", "--json"), ("strategies", "--json"),
                ("replay", record, "--json"), ("replay", wrong, "--json"),
                ("analyze", record, "--samples", "200", "--json"), ("analyze", blown, "--samples", "100", "--json")]
    for args in commands:
        en = escoba(*args, env=environment(LANG="en_US.UTF-8"))
        es = escoba(*args, env=environment(LANG="es_ES.UTF-8"))
        assert en.returncode == es.returncode == (1 if wrong in args else 0), (args, en.stderr, es.stderr)
        assert en.stdout == es.stdout, args
        json.loads(es.stdout)
    assert '"reason": "' in escoba("replay", wrong, "--json", env=environment(LANG="es_ES.UTF-8")).stdout
    # a record that play saves: the same file whichever language the sitting was in
    saved = {}
    for lang in ("en", "es"):
        out = tmp_path / lang
        p = escoba("play", "--vs", "greedy", "--seed", "5", "--hands", "-o", out, input="1\n1\n1\n1\n1\n1\n1\n1\n",
                   env=environment(ESCOBA_SIM_LANG=lang))
        assert p.returncode == 0, p.stderr
        saved[lang] = [f.read_bytes() for f in sorted(out.iterdir())]
    assert saved["en"] == saved["es"] and saved["es"]


# ------------------------------------------------------------------ play's prompt takes the Spanish words

@pytest.mark.core("the hint evaluator")
def test_play_takes_the_spanish_words_at_its_prompt(tmp_path):
    """`pista` hints, `deshacer` takes back, `salir` quits, `s` blows (under tradicional), in either language."""
    from escoba_sim.hands.play import Session
    from escoba_sim.lineup import table_seats

    def sitting(answer, rules="ludoteka", vs="greedy", seed=5, lang="es"):
        said: list[str] = []
        i18n.install_for_cli(lang)
        try:
            session = Session(table_seats(rules, [vs]), seed, tmp_path / f"{lang}-{seed}", ask=answer,
                              say=said.append, samples=200)
            session.play(1, True)
        finally:
            i18n.install_for_cli("en")
        return "\n".join(said)

    def answers(*lines):
        feed = iter(lines)
        return lambda prompt: next(feed, None)

    text = sitting(answers("pista", "1", "deshacer", "salir"))
    assert "pista (" in text and "deshecho: tu última jugada" in text
    assert "salida." in text
    english = sitting(answers("pista", "deshacer", "1", "deshacer", "salir"), lang="en")
    assert "hint (" in english and "taken back: your last move" in english and "quit." in english
    # a blow: the computer (random) lays a card that could have captured; `s` takes the one blow open
    for seed in range(40):
        text = sitting(lambda prompt: "s" if prompt.startswith("¿soplas?") else "1", rules="tradicional",
                       vs="random", seed=seed)
        if "puedes soplar" in text:
            break
    assert "puedes soplar" in text and "soplas: te llevas" in text, text


# ------------------------------------------------------------------ no English sentence under LANG=es_ES.UTF-8

# Common English words that are not Spanish (not "no", "a", "error", "total", "final": Spanish too).
ENGLISH = set("""
the and of with per hand hands game games point points win wins won rules rule strategy file files cannot must
is are not to for from or by in on this that these those show shows print prints move moves seat seats table
cards card deal deals dealer stock score you your takes take lays lay blow blows hint quit undo taken value best
loss usage options missing invalid unknown expected got seed run runs every each only when which default required
example examples than more at least most one two three should would could there their it its be been has have
was were will can may after before instead without given give choose try help exit message version analysis
decision decisions mark player players record records folder chunk chunks interrupted continue saved left over
pairing engine
""".split())
# What stays as written in both languages: names of strategies, rules presets and fields and their values, commands,
# metavariables and units.
ALLOWED = set("""
random greedy maxoros sevens defensive heuristic endgame ismcts oracle tuned ludoteka tradicional cardgames robo
players teams soplar deal capture sevens ties target escobas off card any optional rounds draw majority all shared
none yes no trace replay moves play analyze rules list strategies run resume compare tournament skill report tune
bench serve show python cython dask cma es en
""".split())


def english_words(text: str) -> set[str]:
    text = re.sub(r"escoba-sim(\s+[a-z]+)+", " ", text)  # a command line quoted in the help: its words are names
    text = re.sub(r"\S*[/.:=_`'\"]\S*", " ", text)  # paths, files, specs (heuristic:oros=2), `quoted` names
    text = re.sub(r"-{1,2}[\w-]+", " ", text)  # options (--hand, -s), after files (chunk-000001.parquet)
    text = re.sub(r"^Uso: .*$", " ", text, flags=re.M)  # the usage line: the program, commands and METAVARS
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", text) if not w.isupper()}  # METAVARS stay as Click writes
    return (words & ENGLISH) - ALLOWED


TUNE = ["heuristic", "--vs", "greedy", "--evals", "4", "--games", "20", "--check", "20", "--popsize", "2", "--seed",
        "1", "-j", "1"]
# command -> (arguments, input for play); {record}, {folder} and {out} are filled in the child
COMMANDS = {
    "help": (["--help"], None),
    "version": (["--version"], None),
    **{f"{c} --help": ([*c.split(), "--help"], None) for c in (
        "trace", "replay", "moves", "play", "analyze", "rules", "rules list", "rules show", "strategies", "run",
        "resume", "compare", "tournament", "skill", "report", "tune", "bench", "serve")},
    "trace": (["trace", "-s", "greedy", "--vs", "maxoros", "--seed", "7"], None),
    "trace --analyze": (["trace", "-s", "greedy", "--vs", "maxoros", "--seed", "7", "--analyze", "--samples", "200"],
                        None),
    "replay": (["replay", "{record}"], None),
    "analyze": (["analyze", "{record}", "--samples", "200"], None),
    "moves": (["moves", "--table", "1o 4c Rb", "--hand", "5b 7o"], None),
    "rules list": (["rules", "list"], None),
    "rules show": (["rules", "show", "tradicional"], None),
    "strategies": (["strategies"], None),
    "play": (["play", "--vs", "greedy", "--seed", "5", "--hands", "-o", "{out}/play"],
             "pista\n9\n5x\n1\ndeshacer\n2\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n"),
    "play tradicional": (["play", "--vs", "greedy", "-r", "tradicional", "--seed", "3", "--hands", "-o", "{out}/play2"],
                         "s\n" + "1\n" * 30),
    "error: unknown strategy": (["trace", "-s", "gredy", "--vs", "random"], None),
    "error: malformed card": (["moves", "--hand", "5x 7o"], None),
    "error: impossible ruleset": (["rules", "show", "ludoteka(players=5)"], None),
    "error: unknown rules field": (["moves", "--hand", "5o", "-r", "ludoteka(sevns=all)"], None),
    "error: unreadable file": (["replay", "{out}/no-such-record.json"], None),
    "error: not a record": (["analyze", "{out}/not-a-record.json"], None),
    "error: bad count": (["play", "--vs", "greedy", "-n", "abc"], None),
    "error: missing option": (["trace"], None),
    "run": (["run", "-s", "greedy", "--vs", "random", "-n", "200", "--seed", "1", "-j", "1", "-q"], None),
    "compare": (["compare", "--rules", "ludoteka", "--rules", "cardgames", "-n", "100", "--seed", "1", "-j", "1", "-q",
                 "--out", "{out}/cmp"], None),
    "tournament": (["tournament", "greedy", "random", "-n", "50", "--seed", "1", "-j", "1", "-q", "--out", "{out}/t"],
                   None),
    "skill": (["skill", "--ladder", "random,greedy", "-n", "40", "--seed", "1", "-j", "1", "-q", "--out", "{out}/sk"],
              None),
    "report": (["report", "{out}/cmp", "--out", "{out}/cmp-report"], None),
    "tune": (["tune", *TUNE, "--out", "{out}/tune"], None),
    "bench": (["bench", "--seconds", "0.1"], None),
    # damaged folders (DAMAGE below changes each one just before its command): what resume, report and tune say
    "run --out": (["run", "-s", "greedy", "--vs", "random", "-n", "400", "--chunk", "100", "--seed", "1", "-j", "1",
                   "-q", "--out", "{out}/run"], None),
    "resume: a chunk of another run": (["resume", "{out}/run", "-j", "1"], None),
    "error: report of a tampered series": (["report", "{out}/cmp-tampered", "--out", "{out}/r1"], None),
    "error: report of a series with a foreign chunk": (["report", "{out}/cmp-foreign", "--out", "{out}/r2"], None),
    "error: resume of a damaged manifest": (["resume", "{out}/run"], None),
    "error: report of a series with a mistyped field": (["report", "{out}/t-fields", "--out", "{out}/r3"], None),
    "tune: a damaged evaluation": (["tune", *TUNE, "--out", "{out}/tune-damaged"], None),
    "error: tune of an earlier version": (["tune", *TUNE, "--out", "{out}/tune-old"], None),
    "error: tune with a broken manifest": (["tune", *TUNE, "--out", "{out}/tune-broken"], None),
}
# how each folder is damaged before its command: copy a tree or a file, write or append text, set manifest fields
DAMAGE = {
    "resume: a chunk of another run": [("copy", "run/chunks/chunk-000000.parquet", "run/chunks/chunk-000001.parquet")],
    "error: report of a tampered series": [("copytree", "cmp", "cmp-tampered"), ("append", "cmp-tampered/summary.json",
                                                                                 " ")],
    "error: report of a series with a foreign chunk": [("copytree", "cmp", "cmp-foreign"),
                                                       ("copy", "run/chunks/chunk-000000.parquet",
                                                        "cmp-foreign/runs/00/chunks/chunk-000000.parquet")],
    "error: resume of a damaged manifest": [("write", "run/manifest.json", "[1]")],
    "error: report of a series with a mistyped field": [("copytree", "t", "t-fields"),
                                                        ("set", "t-fields/manifest.json", {"strategies": [1, 2]})],
    "tune: a damaged evaluation": [("copytree", "tune", "tune-damaged"),
                                   ("write", "tune-damaged/evals/g0000-c00.json", '{"x": 1}')],
    "error: tune of an earlier version": [("copytree", "tune", "tune-old"), ("set", "tune-old/manifest.json", {"format": 1})],
    "error: tune with a broken manifest": [("copytree", "tune", "tune-broken"), ("write", "tune-broken/manifest.json",
                                                                                 "[1]")],
}
# what each damaged folder must make the command say (in Spanish), so that the damage is seen to be found
DAMAGE_SAID = {
    "resume: a chunk of another run": "chunk-000001.parquet: de otra serie u otro bloque (su huella no coincide); se "
                                      "vuelve a jugar el bloque 1",
    "error: report of a tampered series": "se modificó después de escribirse (su suma de comprobación no coincide); "
                                          "reconstrúyelo con: escoba-sim resume",
    "error: report of a series with a foreign chunk": "bloque 0: de otra serie u otro bloque (su huella no coincide); "
                                                      "repáralo con: escoba-sim resume",
    "error: resume of a damaged manifest": "no es un manifiesto (un objeto JSON), sino list",
    "error: report of a series with a mistyped field": "manifest.json: `strategies[0]` es int, no un texto",
    "tune: a damaged evaluation": "no es de este ajuste (su suma de comprobación no coincide); se vuelve a evaluar",
    "error: tune of an earlier version": "contiene un ajuste de un escoba-sim anterior (formato de carpeta 1",
    "error: tune with a broken manifest": "no es un manifiesto de ajuste (un objeto JSON)",
}
# the commands that need the compiled core (what of it): core-marked, and not run when the reference engine plays
CORE = {"trace --analyze": "the hint evaluator", "analyze": "the hint evaluator", "tune": "tune",
        "tune: a damaged evaluation": "tune", "error: tune of an earlier version": "tune",
        "error: tune with a broken manifest": "tune"}


def params(names) -> list:
    """The command names, those of CORE with their core mark."""
    return [pytest.param(n, marks=pytest.mark.core(CORE[n])) if n in CORE else n for n in names]


# What these print goes through escoba_sim/output/ (tables, report), translated in its own branch

CHILD = r"""
import json, os, sys
from escoba_sim import i18n
lang = i18n.install_for_cli()           # what escoba_sim.cli does as it is imported: LANG=es_ES.UTF-8
from click.testing import CliRunner
from escoba_sim.cli import main
import shutil
out, (commands, damage) = sys.argv[1], json.loads(sys.stdin.read())
record = os.path.join(out, "hand.json")
runner = CliRunner()
first = runner.invoke(main, ["trace", "-s", "greedy", "--vs", "maxoros", "--seed", "7", "--json"])
open(record, "w").write(first.stdout)
open(os.path.join(out, "not-a-record.json"), "w").write("[1, 2")
said = {"lang": lang}
for name, (args, given) in commands.items():
    for how, path, what in damage.get(name, []):
        path = os.path.join(out, path)
        if how == "copytree":
            shutil.copytree(path, os.path.join(out, what))
        elif how == "copy":
            shutil.copyfile(path, os.path.join(out, what))
        elif how in ("write", "append"):
            open(path, "w" if how == "write" else "a").write(what)
        else:  # "set": fields of a manifest
            manifest = json.load(open(path))
            json.dump({**manifest, **what}, open(path, "w"))
    args = [a.format(record=record, out=out) for a in args]
    r = runner.invoke(main, args, input=given)
    said[name] = r.output  # stdout and stderr as a person sees them
print(json.dumps(said))
"""


@pytest.fixture(scope="module")
def spanish_outputs(tmp_path_factory):
    """Every command of COMMANDS run once, in one child process under LANG=es_ES.UTF-8."""
    out = tmp_path_factory.mktemp("es")
    commands = {k: v for k, v in COMMANDS.items() if native.ENGINE == "cython" or k not in CORE}
    p = subprocess.run([sys.executable, "-c", CHILD, str(out)], input=json.dumps([commands, DAMAGE]), capture_output=True,
                       text=True, env=environment(LANG="es_ES.UTF-8"), cwd=out, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    said = json.loads(p.stdout)
    assert said["lang"] == "es"
    return said


@pytest.mark.parametrize("name", params(COMMANDS))
def test_no_command_prints_english_under_a_spanish_locale(spanish_outputs, name):
    text = spanish_outputs[name]
    assert text.strip(), f"{name} printed nothing"
    assert "Traceback" not in text
    assert not english_words(text), f"{name}: English words {sorted(english_words(text))} in:\n{text}"


@pytest.mark.parametrize("name", params(DAMAGE))
def test_damaged_folders_are_reported_in_spanish(spanish_outputs, name):
    """resume, report and tune find each damage (a chunk of another run, a tampered result, a foreign chunk, a
    broken manifest, a changed evaluation, an older folder) and say so in Spanish; an error is one message (at
    COLUMNS=80 wrapped to it, its further lines indented by two: cli/errors.py)."""
    text = spanish_outputs[name]
    assert DAMAGE_SAID[name] in " ".join(text.split()), text
    if name.startswith("error:"):
        lines = [line for line in text.splitlines() if line.strip()]
        assert lines[0].startswith("Error: ") and all(line.startswith("  ") for line in lines[1:]), text
        assert all(len(line) <= 80 or " " not in line.strip() for line in lines), text


def test_the_english_word_check_can_fail():
    """The check above is no formality: the English output of a command does not pass it."""
    assert {"the", "cards", "hand"} <= english_words("Show the legal moves of a hand, cards taken and escobas.")
    assert not english_words("Lista las jugadas legales de una mano ante una mesa: escobas (greedy, --hand).")
