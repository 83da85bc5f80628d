"""A terminal that cannot print every character (an ISO-8859-1 locale, an ASCII stdout): every command prints,
in both languages, with ASCII stand-ins for what the encoding lacks (``∞`` -> ``inf``, ``±`` -> ``+-``,
``ó`` -> ``o``), and a folder written there resumes there; a Unicode terminal gets the same bytes as ever
(``output.terminal.fit_to_terminal``). Real subprocesses: the encoding is the process's own stdout's."""

import io
import os
import subprocess
import sys

import pytest
from conftest import engine_sized
from helpers import REPO

from escoba_sim.output.terminal import PlainStream, printable

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "ESCOBA_SIM_LANG", "PYTHONIOENCODING")


def escoba(*args, encoding: str, lang: str = "en", cwd=None) -> subprocess.CompletedProcess:
    """The command line with stdout and stderr in ``encoding``; the output as bytes."""
    env = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    env.update(PYTHONPATH=str(REPO), COLUMNS="80", PYTHONIOENCODING=encoding, ESCOBA_SIM_LANG=lang)
    return subprocess.run([sys.executable, "-m", "escoba_sim.cli", *map(str, args)], env=env, capture_output=True,
                          cwd=cwd or REPO, timeout=300)


def printed(p: subprocess.CompletedProcess, encoding: str) -> str:
    """What the process printed, decoded strictly as its terminal would (no traceback on stderr)."""
    assert b"Traceback" not in p.stderr and b"UnicodeEncodeError" not in p.stderr, p.stderr.decode(encoding, "replace")
    return p.stdout.decode(encoding) + p.stderr.decode(encoding)


# ------------------------------------------------------------------ the stand-ins

def test_printable_replaces_only_what_the_encoding_lacks():
    latin1, ascii_, utf8 = (io.TextIOWrapper(io.BytesIO(), encoding=e) for e in ("iso-8859-1", "ascii", "utf-8"))
    text = "±0.05, [1-∞], Comparación – ¿sí?"
    assert printable(text, utf8) == text
    assert printable(text, latin1) == "±0.05, [1-inf], Comparación - ¿sí?"
    assert printable(text, ascii_) == "+-0.05, [1-inf], Comparacion - si?"
    assert printable("☃", ascii_) == "?"


def test_a_plain_stream_writes_through_what_its_terminal_can_print():
    raw = io.BytesIO()
    stream = PlainStream(io.TextIOWrapper(raw, encoding="ascii"))
    assert stream.write("∞ ñ") == 3 and stream.encoding == "ascii"
    stream.flush()
    assert raw.getvalue() == b"inf n"
    with pytest.raises(TypeError):
        stream.write(b"bytes")  # Click then writes text to it, not bytes past it


# ------------------------------------------------------------------ the commands

def test_skill_prints_inf_on_a_latin1_terminal_and_resumes_there(tmp_path):
    n = engine_sized(40, 4)
    args = ["skill", "--ladder", "random,greedy", "-n", n, "--seed", "1", "-j", "1", "-o", tmp_path / "sk"]
    for p in (escoba(*args, encoding="iso-8859-1"), escoba("resume", tmp_path / "sk", encoding="iso-8859-1")):
        assert p.returncode == 0
        out = printed(p, "iso-8859-1")
        assert "inf: the edge may be nil" in out and "±, [..]" in out  # ISO-8859-1 has ± but no ∞
        lines = p.stdout.decode("iso-8859-1").splitlines()
        table = [line for line in lines if line.startswith(("ludoteka  ", "ruleset  ", "   "))]
        assert any(line.startswith("ludoteka  ") for line in table) and all(len(line) <= 80 for line in table)


def test_skill_on_an_ascii_terminal_keeps_its_columns(tmp_path):
    n = engine_sized(40, 4)
    p = escoba("skill", "--ladder", "random,greedy", "-n", n, "--seed", "1", "-j", "1", "-o", tmp_path / "sk",
               encoding="ascii")
    assert p.returncode == 0
    printed(p, "ascii")
    lines = p.stdout.decode("ascii").splitlines()
    head = next(line for line in lines if "seat adv." in line)
    row = next(line for line in lines if line.startswith("ludoteka  "))
    assert "+-" in row and len(head) <= 80 and len(row) <= 80
    # the column after the seat advantage starts where its head does: the wider +- was given room
    assert head.index("hands") + len("hands") == row.index(row.split()[-3]) + len(row.split()[-3])


@pytest.mark.parametrize("command", [
    ["run", "--strategy", "greedy", "--vs", "random"],
    ["tournament", "random", "greedy"],
    ["compare", "--rules", "ludoteka", "--rules", "cardgames", "--strategy", "greedy", "--vs", "random"],
])
def test_a_spanish_series_on_an_ascii_stdout_prints_and_resumes(tmp_path, command):
    n = engine_sized(60, 4)
    out = tmp_path / "out"
    first = escoba("--lang", "es", *command, "-n", n, "--seed", "3", "-j", "1", "-o", out, encoding="ascii")
    assert first.returncode == 0, first.stderr
    text = printed(first, "ascii")  # decoded strictly: ASCII bytes only
    assert "semilla 3" in text  # Spanish, in ASCII letters
    again = escoba("--lang", "es", "resume", out, encoding="ascii")
    assert again.returncode == 0, again.stderr
    assert printed(again, "ascii").strip()


def test_help_and_errors_in_spanish_print_on_an_ascii_terminal():
    for args in (["--help"], ["skill", "--help"], ["rules", "list"], ["strategies"], ["report", "--help"]):
        p = escoba("--lang", "es", *args, encoding="ascii")
        assert p.returncode == 0
        out = printed(p, "ascii")  # click itself would write UTF-8 bytes past an ASCII stdout
        assert out.isascii() and ("Opciones" in out or "ludoteka" in out or "greedy" in out)
    bad = escoba("--lang", "es", "run", "--strategy", "nosuch", "--vs", "greedy", encoding="ascii")
    assert bad.returncode != 0 and "Error: " in printed(bad, "ascii")


def test_a_unicode_terminal_gets_the_characters_themselves(tmp_path):
    p = escoba("--lang", "es", "skill", "--help", encoding="utf-8")
    assert p.returncode == 0 and "ó" in p.stdout.decode("utf-8")


def test_fit_to_terminal_wraps_only_a_stream_that_cannot_print_everything(monkeypatch):
    from escoba_sim.output.terminal import fit_to_terminal

    ascii_, utf8 = (io.TextIOWrapper(io.BytesIO(), encoding=e) for e in ("ascii", "utf-8"))
    monkeypatch.setattr(sys, "stdout", ascii_)
    monkeypatch.setattr(sys, "stderr", utf8)
    fit_to_terminal()
    assert isinstance(sys.stdout, PlainStream) and sys.stderr is utf8
    # what encodes with the stream's own settings (input()'s prompt on a terminal) gets the stand-ins too
    assert "¿Sí? ∞".encode(sys.stdout.encoding, sys.stdout.errors) == b"Si? inf"
    fit_to_terminal()
    assert sys.stdout.stream is ascii_  # not wrapped twice
