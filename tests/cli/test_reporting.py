"""The command line catches the library's errors once (cli/errors.reporting around every command): an
EscobaError a command does not handle itself is one line naming the running command's flags, exit 1."""

import click

from escoba_sim import lineup
from escoba_sim.cli import main
from escoba_sim.errors import Parameter


def commands(group: click.Group):
    for command in group.commands.values():
        yield command
        if isinstance(command, click.Group):
            yield from commands(command)


def test_every_command_reports_the_library_errors():
    unwrapped = [c.name for c in commands(main) if c.callback is not None and not hasattr(c.callback, "__wrapped__")]
    assert not unwrapped


def test_an_error_the_command_does_not_catch_is_one_line_with_flags(cli, monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise lineup.LineupError("{samples} and {rules} do not fit", samples=Parameter("samples"),
                                 rules=Parameter("rules"))

    monkeypatch.setattr(lineup, "table_seats", refuse)
    out = cli("play", "--vs", "greedy", "--out", tmp_path, input="q\n")
    assert out.exit_code == 1
    assert out.output == "Error: --samples and --rules do not fit\n"
