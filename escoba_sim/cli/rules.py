"""The commands about rulesets and strategies: ``rules list``, ``rules show`` and ``strategies``."""

from __future__ import annotations

import textwrap

import click

from ..i18n import translate as _
from .options import RULES, echo_fitted, emit_json, json_option


@click.group("rules", help=_("""List the presets and show a ruleset field by field."""))
def rules_cmd():
    # the help text is the command's (above), translated
    pass


@rules_cmd.command("list", help=_("""List the presets, the fields that set them apart, and the rule text each follows.

\b
Example:
  escoba-sim rules list"""))
@json_option(_("Print the presets and their fields as JSON."))
def rules_list(as_json):
    # the help text is the command's (above), translated
    from ..game.rules import DEFAULT_PRESET, FIELD_HELP, FIELD_NAMES, PRESET_SOURCES, PRESETS, short_value

    if as_json:
        emit_json({name: {"source": PRESET_SOURCES[name], "default": name == DEFAULT_PRESET,
                          "fields": r.as_dict()} for name, r in PRESETS.items()})
        return
    # one column per preset, one row per field (fits 80 columns), then what each field decides
    shown = [f for f in FIELD_NAMES if len({getattr(r, f) for r in PRESETS.values()}) > 1] + ["players"]
    heads = {name: name + (" " + _("(default)") if name == DEFAULT_PRESET else "") for name in PRESETS}
    width = {name: max(len(heads[name]), *(len(short_value(f, getattr(r, f), True)) for f in shown)) + 2
             for name, r in PRESETS.items()}
    field = _("field")
    click.echo(f"{field:<12}" + "".join(f"{heads[n]:<{width[n]}}" for n in PRESETS).rstrip())
    for f in shown:
        click.echo(f"{f:<12}" + "".join(f"{short_value(f, getattr(r, f), True):<{width[n]}}"
                                       for n, r in PRESETS.items()).rstrip())
    click.echo("")
    for f in shown:
        click.echo(textwrap.fill(_(FIELD_HELP[f]), 80, initial_indent=f"{f:<12}", subsequent_indent=" " * 12))
    click.echo(_("(every field and what its value means: escoba-sim rules show PRESET)"))
    click.echo("")
    click.echo(_("sources:"))
    for name in PRESETS:
        click.echo(textwrap.fill(_(PRESET_SOURCES[name]), 80, initial_indent=f"  {name + ':':<13}",
                                 subsequent_indent=" " * 15))


@click.command("strategies", help=_("""List the built-in strategies, their parameters and defaults, and which engine plays them.

A strategy spec is NAME, NAME:key=value,... , NAME:weights.toml or
path/to/file.py:ClassName (docs/strategies.md).

\b
Example:
  escoba-sim strategies
  escoba-sim run -s heuristic:oros=2,risk=10 --vs greedy -n 1e5"""))
@json_option(_("Print every built-in with its parameters as JSON."))
def strategies_cmd(as_json):
    # the help text is the command's (above), translated
    from ..batch import engine_for
    from ..strategies import BUILTINS, parse_strategy
    from ..strategies.levels import ANCHOR, LEVEL, describe, ladder

    def engine(spec):
        e = engine_for([spec])
        return "-" if e == "python" and spec.core_only else e  # core-only, core not built

    def example(n):  # a spec of each built-in: a level must name its rung
        return parse_strategy(f"{n}:1" if n == LEVEL else n)

    rungs = ladder()
    if as_json:
        emit_json({n: {"help": d.help, "engine": engine(example(n)), "canonical": example(n).canonical,
                       "cheats": d.cheats, "params": {k: {"default": p.default, "help": p.help} for k, p in d.params.items()},
                       **({"levels": [{"spec": lv.spec, "base": lv.base, "random_share": lv.random_share / 1000,
                                       "engine": engine(parse_strategy(lv.spec)),
                                       "rating": None if r is None else {"estimate": r.estimate, "lo": r.lo, "hi": r.hi}}
                                      for lv, r in rungs], "rating_anchor": ANCHOR} if n == LEVEL else {})}
                   for n, d in BUILTINS.items()})
        return
    for n, d in BUILTINS.items():
        cheats = ", " + _("cheats") if d.cheats else ""
        # no line wider than the terminal: a description wraps at spaces under itself
        echo_fitted(f"{n:<11}{_(d.help)}  [{engine(example(n))}{cheats}]", indent=11)
        for k, p in d.params.items():
            echo_fitted(f"{'':<13}{k}={p.default:g}  {_(p.help)}", indent=15)
    echo_fitted(_("levels (ratings under ludoteka, Elo scale, {anchor} = 0, 95 percent intervals):").format(anchor=ANCHOR),
                indent=2)
    for lv, r in rungs:
        rating = "" if r is None else f"≈{r.estimate:.0f} [{r.lo:.0f}, {r.hi:.0f}]  "
        echo_fitted(f"  {LEVEL}:{lv.n:<5}{rating}{describe(lv)}", indent=10)


@rules_cmd.command("show", help=_("""Show every field of RULESET with its value and what it means, its preset and canonical string.

RULESET is a preset, preset(field=value,...) or a TOML file.

\b
Examples:
  escoba-sim rules show tradicional
  escoba-sim rules show 'cardgames(players=4,teams=yes)' --json"""))
@click.argument("ruleset", type=RULES)
@json_option(_("Print the fields, canonical string and digest as JSON."))
def rules_show(ruleset, as_json):
    # the help text is the command's (above), translated
    from ..game.rules import FIELD_HELP, FIELD_NAMES, PRESET_SOURCES, PRESETS, describe_value, format_value

    canonical = ruleset.canonical()
    preset = canonical.split("(")[0]
    base = PRESETS[preset]
    if as_json:
        emit_json({"canonical": canonical, "digest": ruleset.digest(), "preset": preset,
                   "source": PRESET_SOURCES[preset], "fields": ruleset.as_dict(),
                   "meanings": {f: describe_value(f, getattr(ruleset, f)) for f in FIELD_NAMES},
                   "field_help": dict(FIELD_HELP)})
        return
    label = {"canonical": _("canonical"), "digest": _("digest"), "preset": _("preset")}
    click.echo(f"{label['canonical']:<18}{canonical}")
    click.echo(f"{label['digest']:<18}{ruleset.digest()}")
    click.echo(textwrap.fill(_("{preset}, after {source}").format(preset=preset, source=_(PRESET_SOURCES[preset])), 80,
                             initial_indent=f"{label['preset']:<18}",
                             subsequent_indent=" " * 18))
    click.echo("")
    for f in FIELD_NAMES:
        v = getattr(ruleset, f)
        note = "" if v == getattr(base, f) else " " + _("(preset: {value})").format(value=format_value(getattr(base, f)))
        click.echo(textwrap.fill(f"{describe_value(f, v, translated=True)}{note}", 80,
                                 initial_indent=f"{f:<18}{format_value(v):<10}", subsequent_indent=" " * 28))
