"""Issue 38: an error's line fits 80 columns. The unknown-strategy message lists every known strategy: it came as
one line of 211 columns (232 in Spanish), whether Click showed it (a bad --vs) or the library's error did (a bad
--ladder); now it is wrapped at word boundaries, nothing cut, in both languages, and is still a usage error (2)."""

import pytest

from escoba_sim.strategies.registry import BUILTINS

COMMANDS = [("play", "--vs", "nonsense"), ("run", "--strategy", "greedy", "--vs", "nonsense"),
            ("tournament", "greedy", "nonsense", "-n", "10"), ("skill", "--ladder", "greedy,nonsense", "-n", "10")]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_the_unknown_strategy_message_is_wrapped_to_80_columns_whole(cli, monkeypatch, tmp_path, args, lang):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    result = cli(*args, lang=lang)
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines and max(len(line) for line in lines) <= 80, result.output
    start = next(i for i, line in enumerate(lines) if line.startswith("Error: "))
    message = " ".join(line.strip() for line in lines[start:])
    assert ("unknown strategy `nonsense`" if lang == "en" else "estrategia desconocida `nonsense`") in message
    words = message.replace(",", " ").split()
    assert all(name in words for name in BUILTINS), message  # each name whole: wrapped between words
    assert "..." not in message.partition("`nonsense`")[2] and message.endswith(("path/to/file.py:ClassName", "ruta/al/archivo.py:NombreDeClase"))
    assert all(line.startswith("  ") for line in lines[start + 1:])  # the continuation is indented


def test_a_wide_terminal_keeps_the_error_at_80_columns_and_a_short_one_on_one_line(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    lines = cli("play", "--vs", "nonsense").output.splitlines()
    assert max(len(line) for line in lines) <= 80
    short = cli("run", "--strategy").output.splitlines()
    assert sum(line.startswith("Error: ") for line in short) == 1 and not short[-1].startswith("  ")


def test_an_error_read_by_a_program_stays_one_line(cli, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # stderr is no terminal here, and no width is said
    errors = [line for line in cli("play", "--vs", "nonsense").output.splitlines() if line.strip()]
    assert errors[-1].startswith("Error: ") and errors[-1].endswith("path/to/file.py:ClassName")
