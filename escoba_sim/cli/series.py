"""The commands that play or read a series of runs on the same deals: compare (rulesets), tournament
(strategies), skill (a ladder of strategies per ruleset) and report (charts and a page for any folder); each
series command plans its kind (``series.kinds``) from its arguments, and ``cli.running`` plays it."""

from __future__ import annotations

import click

from ..errors import Command
from ..i18n import translate as _
from .errors import USAGE, fail
from .options import (
    COUNT,
    STRATEGY,
    chunk_option,
    jobs_option,
    json_option,
    out_option,
    quiet_option,
    rules_option,
    scheduler_option,
    seed_option,
    strategy_option,
    variant_options,
    vs_option,
)
from .running import play_and_print_series

# games per pair: the default ladder, one ruleset, in about 2 minutes on two free cores (benchmarks/README.md)
SKILL_DEFAULT_N = 1000


def _play(start, out: str, *, jobs, as_json, quiet, scheduler) -> None:
    """A new series: ``start()`` plans it from the command's arguments (its kind's ``series.kinds`` start; its
    manifest keeps the same), then it is played and its summary printed."""
    play_and_print_series(start(), jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler,
                          continue_with=str(Command(("resume", str(out)))))


def _folder(kind: str, out: str | None, seed: int | None, drawn: str) -> tuple[str, int]:
    """``--out`` or a folder the command names (``compare-SEED``, or ``compare-DATE-TIME`` for a seed
    drawn at random), and the seed (drawn when not given: ``drawn`` says so, with the seed)."""
    from ..game.rng import draw_seed
    from ..series.resume import default_folder

    named = out is None
    if named:
        out = default_folder(kind, seed)
    if seed is None:
        seed = draw_seed()
        click.echo(drawn.format(seed=seed), err=True)
    if named:
        click.echo(_("results go to {out}/ (choose another folder with --out)").format(out=out), err=True)
    return out, seed


@click.command(help=_("""Compare rulesets on the same deals: estimates per ruleset and paired differences vs the first.

\b
Examples:
  escoba-sim compare --rules ludoteka --rules cardgames -n 1e4 --seed 12345
  escoba-sim compare --vary lucky_deal=escobas,off --vary ties=shared,none \\
      -n 1e4 --out cmp2
  escoba-sim compare --design-effects -n 1e4 --out effects"""))
@rules_option(_("A ruleset to compare (repeat it); with --vary, the one base ruleset (default ludoteka)."), multiple=True)
@variant_options
@strategy_option(_("First player's strategy."), default="greedy", show_default=True)
@vs_option(_("Second player's strategy."), default="maxoros", show_default=True)
@click.option("-n", "count", type=COUNT, default="10000", show_default=True, help=_("Games per ruleset (e.g. 1e5)."))
@seed_option(_("One seed for every ruleset (the same deals)."))
@jobs_option()
@chunk_option
@out_option(_("Output folder, resumable (default: compare-SEED, or compare-DATE-TIME without --seed)."))
@json_option()
@quiet_option
@scheduler_option
def compare(*, rules_list, vary, design_effects, strategy, vs, count, seed, jobs, chunk, out, as_json, quiet, scheduler):
    # the help text is the command's (above), translated
    from ..game.rules import format_value
    from ..series.compare import DESIGN_EFFECTS, build_variants, parse_vary
    from ..series.kinds import Compare

    given_vary = list(vary)
    vary = given_vary + (list(DESIGN_EFFECTS) if design_effects else [])
    variants = build_variants(list(rules_list), vary)
    # a repeated option is refused, never dropped: the same ruleset twice, the same field=value twice
    seen: set = set()
    for r in rules_list:
        if r.digest() in seen:
            fail(_("--rules {rules} is given twice (as written or as its preset): give each ruleset once").format(
                rules=r.canonical()), USAGE)
        seen.add(r.digest())
    pairs: set = set()
    for text in given_vary:
        field, values = parse_vary(text)
        for v in values:
            if (field, repr(v)) in pairs:
                fail(_("--vary {field}={value} is given twice: give each value once").format(
                    field=field, value=format_value(v)), USAGE)
            pairs.add((field, repr(v)))
    out, seed = _folder("compare", out, seed,
                        _("seed drawn at random; to repeat this comparison: --seed {seed}"))
    _play(lambda: Compare.start(out, variants=variants, strategy=strategy, vs=vs, n=count, seed=seed,
                                chunk_size=chunk or 0), out,
          jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler)


@click.command(help=_("""Every pair of strategies on the same duplicate deals: crosstable and Bradley-Terry ratings.

\b
Examples:
  escoba-sim tournament greedy maxoros random -n 1e4
  escoba-sim tournament greedy maxoros -n 100 --seed 3 --save-hands --out t3
  escoba-sim replay t3/runs/00/records/chunk-000000/d7-r1-h0.json

With --save-hands every hand is also a hand record: pair NN (the order of
manifest.json's pairs), deal D, rotation R (0: the first-named strategy in
seat 0, 1: the seats swapped), hand H of that game (docs/records.md).

Under 3 players (-r 'tradicional(players=3)') each pair plays two runs on the
same deals, (A, B, B) then (B, A, A): docs/skill.md, "Three players"."""))
@click.argument("strategies", nargs=-1, required=True, type=STRATEGY)
@click.option("-n", "count", type=COUNT, default="10000", show_default=True, help=_("Games per pair (e.g. 1e5)."))
@rules_option()
@seed_option(_("One seed for every pair (the same deals)."))
@jobs_option()
@chunk_option
@out_option(_("Output folder, resumable (default: tournament-SEED, or tournament-DATE-TIME without --seed)."))
@click.option("--save-hands", is_flag=True,
              help=_("Keep every hand as a hand record (runs/NN/records/) that replay and analyze read."))
@json_option()
@quiet_option
@scheduler_option
def tournament(*, strategies, count, ruleset, seed, jobs, chunk, out, save_hands, as_json, quiet, scheduler):
    # the help text is the command's (above), translated
    from ..series.kinds import Tournament

    if len(strategies) < 2:
        fail(_("a tournament needs two or more strategies"), USAGE)
    out, seed = _folder("tournament", out, seed,
                        _("seed drawn at random; to repeat this tournament: --seed {seed}"))
    _play(lambda: Tournament.start(out, strategies=strategies, n=count, seed=seed, rules=ruleset,
                                   chunk_size=chunk or 0, save_hands=save_hands), out,
          jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler)


@click.command(help=_("""How much skill each ruleset rewards: a ladder of strategies, every pair on the same duplicate deals.

Per ruleset: the ladder's ratings (Elo scale), the skill share of the outcome variance, the games
the stronger of two neighbours needs to win a match with probability 0.95, the seat advantage, hands
per game and escobas per hand, each with an interval at 95% (the deal as unit); and the scorecard:
relative skill (the oracle as the fictive player), the coin-flip equivalent, what pursuing each
scoring element is worth (restricted play) and drama (lead changes, comebacks). See docs/skill.md.

\b
Examples:
  escoba-sim skill
  escoba-sim skill --design-effects --ladder random,greedy,maxoros -n 2000
  escoba-sim skill --rules ludoteka --rules cardgames \\
      --ladder random,greedy,heuristic

Under 3 players (-r 'tradicional(players=3)') each pair plays two runs on the
same deals, (A, B, B) then (B, A, A): docs/skill.md, "Three players"."""))
@rules_option(_("A ruleset (repeat it to rank several); with --vary, the one base ruleset. Default ludoteka."),
              multiple=True)
@variant_options
@click.option("--ladder", default="random,greedy,heuristic,endgame,ismcts", show_default=True, metavar="S1,S2,...",
              help=_("Strategies, weakest first, comma-separated (a spec's own parameters too: "
                   "heuristic:oros=2,escoba=1)."))
@click.option("-n", "count", type=COUNT, default=str(SKILL_DEFAULT_N), show_default=True,
              help=_("Games per pair of the ladder and ruleset (e.g. 1e4)."))
@click.option("--scorecard/--no-scorecard", default=True, show_default=True,
              help=_("Also play the scorecard's games: the oracle against the ladder's first entry, the "
                   "restricted heuristics against their own and the drama's games of two equal heuristics."))
@seed_option(_("One seed for every ruleset and pair (the same deals)."))
@jobs_option()
@out_option(_("Output folder, resumable (default: skill-SEED in the current folder)."))
@json_option()
@quiet_option
@scheduler_option
def skill(*, rules_list, vary, design_effects, ladder, count, scorecard, seed, jobs, out, as_json, quiet, scheduler):
    # the help text is the command's (above), translated
    from ..series.compare import DESIGN_EFFECTS
    from ..series.kinds import Skill
    from ..series.skill import check_ladder, check_rulesets, skill_variants, split_ladder

    variants = skill_variants(list(rules_list), list(vary) + (list(DESIGN_EFFECTS) if design_effects else []))
    check_rulesets(variants)
    strategies = split_ladder(ladder)
    check_ladder(strategies)
    out, seed = _folder("skill", out, seed,
                        _("seed drawn at random; to repeat this skill ladder: --seed {seed}"))
    _play(lambda: Skill.start(out, variants=variants, strategies=strategies, n=count, seed=seed,
                              scorecard=scorecard), out,
          jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler)


@click.command(help=_("""Charts (PNG and SVG) and one self-contained HTML page for a run, compare, tournament or skill folder.

\b
Example:
  escoba-sim report cmp2 && chromium cmp2/report/index.html"""))
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@out_option(_("Where to write (default: DIRECTORY/report)."))
def report(directory, out):
    # the help text is the command's (above), translated
    from ..output.report import write_report

    try:
        page = write_report(directory, out)
    except OSError as e:
        where = e.filename or out or f"{directory}/report"
        fail(_("cannot write the report to {path} ({reason}); choose another --out").format(
            path=where, reason=e.strerror or e))
    click.echo(str(page))
