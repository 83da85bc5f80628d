"""The ``escoba-sim`` command line: the ``main`` group, ``--version``, and the commands it gathers.

Each command lives in the module of its group (hands, rules, runs, series, tune) and only parses
its options, calls the library and turns the library's errors into one line; the option types and
the options several commands share are in ``options``. Progress goes to stderr so that ``--json``
output on stdout stays parseable.
"""

from __future__ import annotations

import sys

import click

from .. import __version__
from . import hands, rules, runs, series, tune, web


def _version_message() -> str:
    from ..native import ENGINE

    return f"escoba-sim {__version__} (engine: {ENGINE}, Python {sys.version.split()[0]})"


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(_version_message())
        ctx.exit()


class _Main(click.Group):
    """The group: Ctrl-C anywhere a command does not handle it itself ends with one line and the shell's
    status for it (130), not Click's "Aborted!" and 1; nothing a command finished is lost (the commands
    that write keep their own stops: run, resume, compare, tournament, tune, play)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo(("\n" if sys.stderr.isatty() else "") + "Interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and which engine (cython or python) is active.")
def main():
    """Simulate Escoba del 15 and compare strategies and rule variants.

    Example: escoba-sim run --strategy greedy --vs maxoros -n 1e6
    """


for _command in (hands.trace, hands.replay, hands.moves, hands.play, hands.analyze,
                 rules.rules_cmd, rules.strategies_cmd,
                 runs.run, runs.resume,
                 series.compare, series.tournament, series.skill, series.report,
                 tune.tune, runs.bench, web.serve):
    main.add_command(_command)
del _command
