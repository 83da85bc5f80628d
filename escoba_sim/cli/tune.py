"""The tune command: CMA-ES over a built-in strategy's parameters on duplicate deals (``escoba_sim.tune``)."""

from __future__ import annotations

import click

from ..i18n import translate as _
from .options import (
    COUNT,
    STRATEGY,
    echo_fitted,
    emit_json,
    jobs_option,
    json_option,
    out_option,
    rules_option,
    scheduler_option,
    seed_option,
    terminal_width,
    vs_option,
)
from .running import executor, same_command, stops_cleanly


@click.command(help=_("""Tune a strategy's parameters with CMA-ES on duplicate deals (needs the tune extra).

Every candidate of a generation plays the same deals against the pool, so
their scores differ by play, not luck. Ends with a check on fresh deals,
tuned against the starting parameters, and writes OUT/best.toml.

\b
Example:
  escoba-sim tune heuristic --vs greedy --evals 300 --games 2e4 \\
      --out tune1 -j 2
  escoba-sim run -s heuristic:tune1/best.toml --vs heuristic -n 1e5"""))
@click.argument("strategy", type=STRATEGY)
@rules_option()
@vs_option(_("An opponent of the pool (repeat for several); the score is the mean margin over the pool."), name="pool",
           multiple=True, default=("greedy",), show_default=True)
@click.option("--param", "params", multiple=True, metavar=_("NAME"),
              help=_("Tune only this parameter (repeat; default: every non-integer parameter)."))
@click.option("--evals", type=COUNT, default="200", show_default=True,
              help=_("Evaluations in all (rounded up to whole generations)."))
@click.option("--games", type=COUNT, default="20000", show_default=True,
              help=_("Deals per evaluation and opponent, each played once per side."))
@click.option("--check", type=COUNT, help=_("Fresh deals of the final check (default: 2 x --games)."))
@click.option("--popsize", type=click.IntRange(min=2), help=_("Candidates per generation (default: CMA-ES's own)."))
@click.option("--sigma", type=click.FloatRange(min=0, min_open=True, max=100), default=0.3, show_default=True,
              help=_("Initial step, as a share of each starting value (at least 1); above 0, at most 100."))
@seed_option(_("Seed (deals and CMA-ES)."), default=0, show_default=True)
@jobs_option(_("Worker processes."), default=1, show_default=True)
@out_option(_("Output folder: every evaluation, summary.json, best.toml (run again to resume)."), required=True)
@json_option()
@scheduler_option
def tune(*, strategy, ruleset, pool, params, evals, games, check, popsize, sigma, seed, jobs, out, as_json, scheduler):
    # the help text is the command's (above), translated
    from pathlib import Path

    from ..tune import make_tune_spec
    from ..tune import tune as run_tune

    def progress(p):
        b = p.best
        left = _("; about {seconds} s left").format(seconds=f"{p.seconds_left:.0f}") \
            if p.seconds_left is not None else ""
        echo_fitted(_("generation {generation}/{generations} ({done}/{total} evaluations): best so far {score} "
                     "[{lo}, {hi}] points per hand (generation {best_generation}, candidate {candidate})").format(
            generation=p.generation, generations=p.generations, done=p.evals_done, total=p.evals_total,
            score=f"{b['score']:+.4f}", lo=f"{b['lo']:+.4f}", hi=f"{b['hi']:+.4f}",
            best_generation=b["generation"] + 1, candidate=b["candidate"] + 1) + left, err=True)

    spec = make_tune_spec(strategy, rules=ruleset, pool=pool, evals=evals, games=games, seed=seed, sigma=sigma,
                          popsize=popsize, params=params, check=check)
    with executor(scheduler, jobs, quiet=as_json) as (workers, jobs), stops_cleanly(same_command()):
        summary = run_tune(spec, out, jobs=jobs if scheduler is None else 1, executor=workers,
                           on_generation=progress)
    if as_json:
        emit_json(summary)
        return
    c = summary["check"]
    from ..output.console import fold_at_commas

    # the spec is one word: folded after its commas (as skill lists its specs), not left 106 columns wide
    click.echo("\n".join(fold_at_commas(_("tuned: {spec}").format(spec=summary["tuned"]), terminal_width())))
    echo_fitted(_("check on {deals} fresh deals (seed {seed}): tuned minus start {points} [{lo}, {hi}] points per "
                 "hand (95%)").format(deals=c["deals"], seed=c["seed"], points=f"{c['points_per_hand']:+.4f}",
                                      lo=f"{c['lo']:+.4f}", hi=f"{c['hi']:+.4f}"))
    echo_fitted(_("wrote {path}: use --strategy {name}:{path}").format(path=Path(out) / "best.toml",
                                                                      name=spec.start.name))
