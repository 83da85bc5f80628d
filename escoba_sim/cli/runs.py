"""The commands that play one strategy-vs-strategy run: run, resume (a run's or a series' folder,
``series.resume``) and bench (hands per second of each engine)."""

from __future__ import annotations

import shlex
import sys

import click

from ..i18n import translate as _
from .errors import USAGE, fail, render
from .options import (
    COUNT,
    chunk_option,
    echo_fitted,
    emit_json,
    jobs_option,
    json_option,
    out_option,
    quiet_option,
    rules_option,
    scheduler_option,
    seed_option,
    strategy_option,
    teams_option,
    vs_option,
)
from .running import executor, play_and_print_series, run_and_report


@click.command(help=_("""Play strategies against each other and report win rates, points and Elo with intervals.

\b
Examples:
  escoba-sim run --strategy greedy --vs maxoros -n 1e6
  escoba-sim run -s greedy --vs random --hands -n 2.5e5 --seed 7 --json
  escoba-sim run -s greedy --vs maxoros --vs random -r tradicional
  escoba-sim run -s greedy --vs random --teams -r 'cardgames(players=4)'
  escoba-sim run -s greedy --vs maxoros -n 1e7 --sprt elo0=0,elo1=20 \\
      --out runs/g-m
  escoba-sim run -s greedy --vs maxoros -n 1e9 --out runs/big \\
      --scheduler tcp://10.0.0.5:8786

Duplicate pairing plays each deal once per rotation of the seats, so -n
maps to ceil(n / rotations) deals. The same --seed gives the same result
for any --jobs, and `escoba-sim resume DIR` finishes an interrupted --out run."""))
@strategy_option(_("Strategy of the first entrant (seat 0)."), required=True)
@vs_option(_("An opposing strategy; repeat it for 3, 4 or 6 players (or use --teams)."), multiple=True, required=True)
@click.option("-n", "count", type=COUNT, default="10000", show_default=True,
              help=_("Games played in total (hands with --hands): 1e6, 2.5e5, 1_000_000. Rounded up to whole rotations."))
@rules_option(_("Preset, preset(field=value,...) or a TOML file; the player count follows the strategies unless set here."),
              text=True)
@teams_option(_("Two teams (4 or 6 players from --rules): seats 0,2,4 play --strategy, the others --vs."))
@seed_option(_("Run seed; without it one is drawn and printed."))
@jobs_option(_("Worker processes (default: all cores). Results do not depend on it."))
@click.option("--hands", "hands_mode", is_flag=True, help=_("-n counts single hands instead of games."))
@click.option("--pairing", type=click.Choice(["duplicate", "independent"]), default="duplicate", show_default=True,
              help=_("duplicate: every deal is played once per seat rotation (removes card luck)."))
@out_option(_("Keep manifest, per-chunk Parquet and summary.json here (resumable)."))
@json_option()
@click.option("--save-hands", is_flag=True, help=_("With --out: keep every hand as a hand record (DIR/records/) and a row (Parquet per chunk)."))
@click.option("--sprt", help=_("Stop early by a GSPRT on paired results, e.g. elo0=0,elo1=20 (checked after every deal)."))
@click.option("--alpha", type=float, default=0.05, show_default=True, help=_("SPRT false-positive rate."))
@click.option("--beta", type=float, default=0.05, show_default=True, help=_("SPRT false-negative rate."))
@chunk_option
@quiet_option
@scheduler_option
def run(*, strategy, vs, count, rules_text, teams, seed, jobs, hands_mode, pairing, out, as_json, save_hands, sprt,
        alpha, beta, chunk, quiet, scheduler):
    # the help text is the command's (above), translated
    from ..game.rules import RulesError, read_rules
    from ..runs.runner import run as run_chunks
    from ..runs.spec import Sprt, make_spec

    if save_hands and not out:
        fail(_("--save-hands needs --out DIR (the hands are written there)"), USAGE)
    try:
        given = read_rules(rules_text)
    except RulesError as e:
        fail(f"--rules: {render(e)}", USAGE)
    sprt_spec = Sprt.parse(sprt, alpha, beta) if sprt else None
    spec = make_spec(strategy, vs, given, count, hands=hands_mode, teams=teams, pairing=pairing,
                     seed=seed, chunk_size=chunk or 0, sprt=sprt_spec, save_hands=save_hands)
    if seed is None:
        click.echo(_("seed drawn at random; to repeat this run: --seed {seed}").format(seed=spec.seed),
                   err=True)
    if spec.played != count:
        echo_fitted(_("note: -n {count} rounded up to {played} ({deals} deals x {rotations} rotations)").format(
                       count=f"{count:,}", played=f"{spec.played:,}", deals=f"{spec.deals:,}", rotations=spec.rotations),
                   err=True)
    argv = ["run", *sys.argv[2:]] if len(sys.argv) > 1 and sys.argv[1] == "run" else []
    with executor(scheduler, jobs, quiet) as (pool, jobs):
        run_and_report(lambda bar: run_chunks(spec, out, jobs=jobs, executor=pool, on_chunk=bar, argv=argv,
                                                  hand_records=save_hands).summary,
                       as_json=as_json, quiet=quiet, spec=spec, out=out)


@click.command(help=_("""Finish a run, comparison, tournament or skill ladder kept in DIRECTORY; the result equals an uninterrupted one's.

Chunks are checked against the run's fingerprint and checksum; a damaged,
missing or foreign chunk is played again.

\b
Example:
  escoba-sim resume runs/g-m
  escoba-sim resume compare-12345
  escoba-sim resume runs/big --scheduler tcp://10.0.0.5:8786"""))
@click.argument("directory", type=click.Path(file_okay=False))
@jobs_option()
@json_option()
@quiet_option
@click.option("--trust-plugins", is_flag=True,
              help=_("Run the strategy plugins (Python files) the folder's manifest names. Without it a folder "
                   "never runs code: resuming a plugin's run is refused."))
@scheduler_option
def resume(directory, jobs, as_json, quiet, trust_plugins, scheduler):
    # the help text is the command's (above), translated
    from ..series.resume import open_folder

    folder = open_folder(directory, trust_plugins=trust_plugins)
    if folder.series is not None:
        play_and_print_series(folder.series, jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler,
                    continue_with=f"escoba-sim resume {shlex.quote(str(directory))}")
        return
    with executor(scheduler, jobs, quiet) as (pool, jobs):
        run_and_report(lambda bar: folder.finish(jobs=jobs, executor=pool, on_chunk=bar),
                       as_json=as_json, quiet=quiet, spec=folder.spec, out=directory)


def _finite(ctx, param, value):
    """click's FloatRange lets nan through (every comparison with nan is false)."""
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(_("{value} is not a number of seconds").format(value=value), ctx, param)
    return value


@click.command(help=_("""Hands per second on one core: greedy-maxoros, greedy-greedy and random-random, core vs reference.

\b
Example:
  escoba-sim bench --seconds 3 --json"""))
@rules_option()
@click.option("--seconds", type=click.FloatRange(0.01, 3600), default=2.0, show_default=True, callback=_finite,
              help=_("Time per measurement for the compiled core (the reference gets a quarter, at least 1 s)."))
@json_option(_("Print the measurements as JSON on stdout."))
def bench(ruleset, seconds, as_json):
    # the help text is the command's (above), translated
    from .. import __version__
    from ..bench import bench_table, format_table
    from ..native import ENGINE

    engines = ("cython", "python") if ENGINE == "cython" else ("python",)
    if ENGINE != "cython":
        click.echo(_("the compiled core is not loaded: measuring the reference engine only"), err=True)
    rows = bench_table(ruleset, seconds=seconds, python_seconds=max(1.0, seconds / 4), engines=engines)
    if as_json:
        emit_json({"version": __version__, "engine": ENGINE, "rules": str(ruleset), "rows": rows})
        return
    click.echo(_("escoba-sim {version}, rules {rules}, one core, hands per second").format(
        version=__version__, rules=ruleset))
    click.echo(format_table(rows))
