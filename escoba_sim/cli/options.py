"""What every command shares: the parameter types (counts such as ``1e6``, rulesets, strategies), the
options that several commands declare alike, and the two ways out (``emit_json`` and ``fail``)."""

from __future__ import annotations

import json
import re

import click

from ..i18n import N_
from ..i18n import translate as _
from .errors import render


class CountType(click.ParamType):
    """A positive whole count written as ``1000``, ``1_000_000``, ``1e6`` or ``2.5e5``, at most ``game.columns.MAX_COUNT``.

    The text is read exactly (decimal, never a float), so ``1e400`` or a count
    past 2^53 is judged as written and a huge one is refused before anything is built.
    """

    name = "count"
    too_many = ""

    def limit(self) -> int | None:
        """A bound below MAX_COUNT (a subclass's); its refusal reads ``too_many``."""
        return None

    def convert(self, value, param, ctx):
        import decimal

        from ..game.columns import MAX_COUNT

        if isinstance(value, int) and not isinstance(value, bool):
            d = decimal.Decimal(value)
        else:
            text = str(value).strip().replace("_", "")
            if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,9})?", text):
                self.fail(_("`{value}` is not a count (examples: 1000, 1_000_000, 1e6, 2.5e5)").format(
                    value=_shown(value)), param, ctx)
            d = decimal.Decimal(text)
        if d <= 0:
            self.fail(_("`{value}` must be positive").format(value=_shown(value)), param, ctx)
        limit = self.limit()
        if limit is not None and d > limit:
            self.fail(f"`{_shown(value)}` " + _(self.too_many).format(limit=f"{limit:,}"), param, ctx)
        if d > MAX_COUNT:
            self.fail(_("`{value}` is more than escoba-sim plays in one run (at most {limit}, about 30 years of "
                        "one core)").format(value=_shown(value), limit=f"{MAX_COUNT:.0e}".replace("e+", "e")),
                      param, ctx)
        if d != d.to_integral_value():
            self.fail(_("`{value}` is not a whole number").format(value=_shown(value)), param, ctx)
        return int(d)


def _shown(value, width: int = 60) -> str:
    """A value for an error line: long input is cut, so the message stays one readable line."""
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[:width - 3] + "..."


class RulesType(click.ParamType):
    """A preset, ``preset(field=value,...)`` or a TOML file, parsed into a Ruleset."""

    name = "rules"

    def convert(self, value, param, ctx):
        from ..game.rules import RulesError, Ruleset, parse_rules

        if isinstance(value, Ruleset):
            return value
        try:
            return parse_rules(value)
        except RulesError as e:  # a bad value of this option: click's usage error (exit 2), said as ``render`` says it
            self.fail(render(e), param, ctx)


class StrategyType(click.ParamType):
    """A strategy spec (greedy, heuristic:oros=2, heuristic:w.toml, file.py:Class); converts to its canonical string."""

    name = "strategy"

    def convert(self, value, param, ctx):
        from ..strategies import StrategyError, check_strategy

        try:
            return check_strategy(value)
        except StrategyError as e:  # as a bad --rules value: click's usage error, exit 2
            self.fail(render(e), param, ctx)


class SamplesType(CountType):
    """``--samples``: deals of the unseen cards per decision, at most ``hands.evaluate.MAX_SAMPLES``."""

    too_many = N_("deals per decision is more than the evaluator takes (at most {limit})")

    def limit(self) -> int:
        from ..hands.evaluate import MAX_SAMPLES

        return MAX_SAMPLES


COUNT, SAMPLES, RULES, STRATEGY = CountType(), SamplesType(), RulesType(), StrategyType()
SEED = click.IntRange(0, 2**64 - 1)


# --- options several commands declare; each decorator gives the one declaration they share ---

def scheduler_option(f):
    """``--scheduler``: the one definition shared by run, resume, compare, tournament and tune."""
    return click.option(
        "--scheduler", metavar=_("tcp://HOST:PORT|local"),
        help=_("Play the chunks on a Dask cluster: its scheduler's address, or `local` for an embedded one "
             "(needs the dask extra). Results are the same; --jobs then sets chunks in flight (2 per job, "
             "default: the cluster's threads) or, with `local`, the worker processes."))(f)


def quiet_option(f):
    """``--quiet``/``-q``: run, resume, compare and tournament."""
    return click.option("--quiet", "-q", is_flag=True, help=_("No progress bar and no live standings."))(f)


def json_option(help: str | None = None):
    """``--json`` (the ``as_json`` flag) with this help; the default is that of run, resume, compare and tournament."""
    return click.option("--json", "as_json", is_flag=True, help=help or _("Print the summary as JSON on stdout."))


def jobs_option(help: str | None = None, **kw):
    """``--jobs``/``-j``, at least 1; the default help is that of resume, compare and tournament."""
    return click.option("--jobs", "-j", type=click.IntRange(min=1), help=help or _("Worker processes (default: all cores)."),
                        **kw)


def seed_option(help: str, **kw):
    """``--seed``: a seed of 0 to 2^64-1 (each command says what it seeds)."""
    return click.option("--seed", type=SEED, help=help, **kw)


def out_option(help: str, **kw):
    """``--out``/``-o``: a folder (each command says what goes there)."""
    return click.option("--out", "-o", type=click.Path(file_okay=False), help=help, **kw)


def chunk_option(f):
    """``--chunk``: deals per chunk, for run, compare and tournament (kept in the folder for resume)."""
    return click.option(
        "--chunk", "chunk", type=COUNT,
        help=_("Deals per chunk, the unit of work, saving and progress (default: a 16th of the deals, from "
             "250 to 50,000 with --hands or 12,500 for games, fewer for slow strategies so that a chunk "
             "lands every few seconds). Results do not depend on it."))(f)


def variant_options(f):
    """``--vary`` and ``--design-effects``: the rulesets a comparison or a skill ladder plays besides ``--rules``."""
    f = click.option("--design-effects", is_flag=True,
                     help=_("Vary every effect the design names: lucky_deal, ties, sevens, capture, target."))(f)
    return click.option("--vary", multiple=True, metavar=_("FIELD=V1,V2"),
                        help=_("Vary one field of the base ruleset, e.g. lucky_deal=escobas,off (repeatable)."))(f)


def rules_option(help: str | None = None, *, text: bool = False, multiple: bool = False):
    """``--rules``/``-r``, the one declaration of every command that takes a ruleset: parsed into a Ruleset
    (``ruleset``, default ludoteka; the default help is that of tournament, tune and bench); ``text=True``
    keeps the text (``rules_text``) for a command that asks which fields it sets (``game.rules.read_rules``:
    run, play); ``multiple=True`` repeats it (``rules_list``, no default: compare, skill)."""
    if multiple:
        return click.option("--rules", "-r", "rules_list", type=RULES, multiple=True, help=help)
    if text:
        return click.option("--rules", "-r", "rules_text", default="ludoteka", show_default=True, help=help)
    return click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True,
                        help=help or _("Ruleset."))


# --- the line-up: who plays (each command says what its strategies are) ---

def strategy_option(help: str, **kw):
    """``--strategy``/``-s``: the first seat's strategy (run, trace, compare)."""
    return click.option("--strategy", "-s", type=STRATEGY, help=help, **kw)


def vs_option(help: str, name: str = "vs", **kw):
    """``--vs``: the other seats' strategies (run, trace, play, compare; tune's pool as ``pool``)."""
    return click.option("--vs", name, type=STRATEGY, help=help, **kw)


def teams_option(help: str):
    """``--teams``: two teams (run, play)."""
    return click.option("--teams", is_flag=True, help=help)


def partner_option(help: str):
    """``--partner``: the person's partner with teams (play)."""
    return click.option("--partner", type=STRATEGY, help=help)


def given_on_command_line(name: str) -> bool:
    """Whether the current command's parameter ``name`` was typed (not a default)."""
    from click.core import ParameterSource

    return click.get_current_context().get_parameter_source(name) is ParameterSource.COMMANDLINE


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


def terminal_width() -> int:
    """Columns for plain-text tables: ``COLUMNS`` when set, else the terminal's, else 80 (piped)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def fitted(text: str, indent: int = 4) -> str:
    """``text`` with every line no wider than the terminal (``terminal_width``): a longer one wraps at spaces
    onto lines indented by ``indent`` (``hands.record.fit_lines``: a word or a number is never split). A line's
    width is what it shows (colour codes are not counted)."""
    from ..hands.record import fit_lines

    width = terminal_width()

    def fit(line: str) -> str:
        if len(click.unstyle(line)) <= width:
            return line
        parts = fit_lines([line], width, indent)
        # a word wider than the terminal (a long path) cannot fit: the line is left whole rather than split
        return line if any(len(click.unstyle(p)) > width for p in parts) else "\n".join(parts)

    return "\n".join(fit(line) for line in text.split("\n"))


def echo_fitted(text: str, *, err: bool = False, indent: int = 4, **kw) -> None:
    """``click.echo`` of ``text`` fitted to the terminal's width (``fitted``)."""
    click.echo(fitted(text, indent), err=err, **kw)
