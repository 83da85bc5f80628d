"""The ``escoba-sim`` command line: parses options and delegates to the library.

No game logic lives here. Shared option types (counts such as ``1e6``,
rulesets, strategies) are defined once below and reused by every command;
progress goes to stderr so that ``--json`` output on stdout stays parseable.
"""

from __future__ import annotations

import json
import re
import sys

import click

from . import __version__


class CountType(click.ParamType):
    """A positive whole count written as ``1000``, ``1_000_000``, ``1e6`` or ``2.5e5``."""

    name = "count"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            text = str(value).strip().replace("_", "")
            if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text):
                self.fail(f"`{value}` is not a count (examples: 1000, 1_000_000, 1e6, 2.5e5)", param, ctx)
            try:
                f = float(text)
            except ValueError:
                self.fail(f"`{value}` is not a count", param, ctx)
            if f != int(f):
                self.fail(f"`{value}` is not a whole number", param, ctx)
            n = int(f)
        if n <= 0:
            self.fail(f"`{value}` must be positive", param, ctx)
        return n


class RulesType(click.ParamType):
    """A preset, ``preset(field=value,...)`` or a TOML file, parsed into a Ruleset."""

    name = "rules"

    def convert(self, value, param, ctx):
        from .rules import Ruleset, RulesError, parse_rules

        if isinstance(value, Ruleset):
            return value
        try:
            return parse_rules(value)
        except RulesError as e:
            self.fail(str(e), param, ctx)


class StrategyType(click.ParamType):
    """A built-in strategy name."""

    name = "strategy"

    def convert(self, value, param, ctx):
        from .strategies import StrategyError, check_strategy

        try:
            return check_strategy(value)
        except StrategyError as e:
            self.fail(str(e), param, ctx)


COUNT, RULES, STRATEGY = CountType(), RulesType(), StrategyType()


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


def fail(message: str, code: int = 1):
    """Print a one-line error on stderr and exit non-zero."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def _version_message() -> str:
    from .batch import ENGINE

    return f"escoba-sim {__version__} (engine: {ENGINE}, Python {sys.version.split()[0]})"


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(_version_message())
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and which engine (cython or python) is active.")
def main():
    """Simulate Escoba del 15 and compare strategies and rule variants.

    Example: escoba-sim run --strategy greedy --vs maxoros -n 1e6
    """


# --- commands are added below, one section per concept; each only parses and delegates ---
