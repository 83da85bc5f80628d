"""The ``escoba-sim`` command line: the ``main`` group, ``--version``, and the commands it gathers.

Each command lives in the module of its group (hands, rules, runs, series, tune) and only parses
its options, calls the library and turns the library's errors into one line; the option types and
the options several commands share are in ``options``. Progress goes to stderr so that ``--json``
output on stdout stays parseable.

The language (English or Spanish, docs/translating.md) is chosen here, when the package is imported and
before Click is: ``--lang`` read from the command line by hand, else the environment. Click translates
some of its texts as its modules load, and the commands' help texts are translated as they are declared.
"""

from __future__ import annotations

import sys

from .. import i18n

i18n.install_for_cli(i18n.lang_from_argv(sys.argv[1:]))

import click  # noqa: E402  (after the language: see above)

from .. import __version__  # noqa: E402
from ..i18n import translate as _  # noqa: E402
from . import hands, rules, runs, series, tune, web  # noqa: E402
from .errors import fit_to_width, reporting  # noqa: E402


def _version_message() -> str:
    from ..native import ENGINE

    return _("escoba-sim {version} (engine: {engine}, Python {python})").format(
        version=__version__, engine=ENGINE, python=sys.version.split()[0])


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(_version_message())
        ctx.exit()


class _Main(click.Group):
    """The group: output that any terminal can print (``output.terminal.fit_to_terminal``), Click's errors wrapped
    to its width as the library's are (``fit_to_width``); Ctrl-C anywhere a command does not handle it itself ends with one line and the shell's
    status for it (130), not Click's "Aborted!" and 1; nothing a command finished is lost (the commands
    that write keep their own stops: run, resume, compare, tournament, tune, play)."""

    def main(self, *args, **kwargs):
        from ..output.terminal import fit_to_terminal

        fit_to_terminal()  # a terminal that cannot print every character gets ASCII stand-ins, --help included
        return super().main(*args, **kwargs)

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.ClickException as e:  # a bad option of the group itself
            raise fit_to_width(e) from e.__cause__

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.ClickException as e:  # a command's bad option or value: wrapped to the terminal (cli/errors.py)
            raise fit_to_width(e) from e.__cause__
        except KeyboardInterrupt:
            click.echo(("\n" if sys.stderr.isatty() else "") + _("Interrupted"), err=True)
            ctx.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]},
             help=_("Simulate Escoba del 15 and compare strategies and rule variants.\n\n"
                    "Example: escoba-sim run --strategy greedy --vs maxoros -n 1e6"))
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help=_("Show the version and which engine (cython or python) is active."))
def main():
    pass  # the help text is the group's (above), translated


# Click shows "[required]" through gettext from a text it does not mark: marked here for the catalogue
i18n.N_("required")


def _lang_option() -> click.Option:
    """``--lang``: already read by hand (above); declared so that parsing accepts it and ``--help`` shows it."""
    return click.Option(["--lang"], type=click.Choice(i18n.LANGUAGES), expose_value=False, is_eager=True,
                        help=_("The language of what escoba-sim prints: en or es (default: ESCOBA_SIM_LANG, "
                               "then LANG; any es_* is Spanish)."))


# each command's line in the group's --help: one line at 80 columns in both languages (Click would cut the
# first sentence of the help to the width with "..."); tests/cli/test_rough_edges.py measures them
SHORT_HELP = {
    "analyze": _("Value each decision of a hand record: best move, loss, marks."),
    "bench": _("Hands per second on one core, compiled core and reference."),
    "compare": _("Compare rulesets on the same deals, with paired differences."),
    "history": _("Sum a folder of your hands: games, luck, loss, rating."),
    "moves": _("List the legal moves of a hand at a table."),
    "play": _("Play Escoba against the computer in the terminal."),
    "replay": _("Check a hand record move by move and print the score."),
    "report": _("Charts and an HTML page for a run or series folder."),
    "resume": _("Finish a run, comparison, tournament or skill ladder."),
    "rules": _("List the presets; show a ruleset field by field."),
    "run": _("Play strategies against each other: win rates, points, Elo."),
    "serve": _("Play and learn Escoba in the browser."),
    "skill": _("How much skill each ruleset rewards (a ladder of strategies)."),
    "strategies": _("List the built-in strategies and their parameters."),
    "tournament": _("Every pair of strategies on the same deals, with ratings."),
    "trace": _("Play one hand and print it play by play, or as a hand record."),
    "tune": _("Tune a strategy's parameters with CMA-ES."),
}

for _command in (hands.trace, hands.replay, hands.moves, hands.play, hands.analyze, hands.history,
                 rules.rules_cmd, rules.strategies_cmd,
                 runs.run, runs.resume,
                 series.compare, series.tournament, series.skill, series.report,
                 tune.tune, runs.bench, web.serve):
    _command.short_help = SHORT_HELP[_command.name]
    main.add_command(_command)
del _command


def _report_errors(command: click.Command) -> None:
    """Every command ends a library error it does not handle itself the same way (``reporting`` in cli/errors.py)."""
    if command.callback is not None and command is not main:
        command.callback = reporting(command.callback)
    for sub in getattr(command, "commands", {}).values():
        _report_errors(sub)


_report_errors(main)


def _accept_lang(command: click.Command) -> None:
    """Every command and subcommand takes ``--lang`` too, wherever a person writes it on the line."""
    command.params.append(_lang_option())
    for sub in getattr(command, "commands", {}).values():
        _accept_lang(sub)


_accept_lang(main)

# The placeholders --help shows, in the process's language: Click writes an option's value as its type's name in
# capitals (COUNT, STRATEGY) and the usage line as [OPTIONS] and COMMAND [ARGS]..., none of them through gettext.
# An argument keeps its name (the help texts name it: FILE, RECORD, DIRECTORY).
METAVARS = {"count": i18n.N_("COUNT"), "strategy": i18n.N_("STRATEGY"), "rules": i18n.N_("RULES"),
            "text": i18n.N_("TEXT"), "directory": i18n.N_("DIRECTORY"), "integer": i18n.N_("INTEGER"),
            "integer range": i18n.N_("INTEGER RANGE"), "float": i18n.N_("FLOAT"),
            "float range": i18n.N_("FLOAT RANGE"), "path": i18n.N_("PATH"), "file": i18n.N_("FILE")}


def _translate_placeholders(command: click.Command) -> None:
    command.options_metavar = _("[OPTIONS]")
    if isinstance(command, click.Group):
        command.subcommand_metavar = _("COMMAND [ARGS]...")
    for param in command.params:
        if isinstance(param, click.Option) and param.metavar is None and not param.is_flag \
                and not isinstance(param.type, click.Choice) and param.type.name in METAVARS:
            param.metavar = _(METAVARS[param.type.name])
    for sub in getattr(command, "commands", {}).values():
        _translate_placeholders(sub)


_translate_placeholders(main)
