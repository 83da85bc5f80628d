"""What the commands that play runs share (run, resume, compare, tournament, tune): the executor with
its Dask line, Ctrl-C and SIGTERM turned into one line and exit 130, and the progress bar and report of a
run or a series."""

from __future__ import annotations

import contextlib
import shlex
import sys

import click

from ..i18n import translate as _
from .options import emit_json, given_on_command_line


@contextlib.contextmanager
def executor(scheduler: str | None, jobs: int | None, quiet: bool = False):
    """Yield (executor, jobs) from ``runs.cluster.executor_for`` (its ``ClusterError`` is one line, exit 1, as
    every library error: ``cli.errors.reporting``); unless ``quiet`` the Dask scheduler's address and threads go to
    stderr."""
    from ..runs.cluster import executor_for

    def connected(address: str, threads: int) -> None:
        click.echo(_("Dask scheduler {address}: {threads} worker threads").format(address=address, threads=threads),
                   err=True)

    given = scheduler is not None and given_on_command_line("jobs")
    with executor_for(scheduler, jobs, jobs_given=given, on_connect=None if quiet else connected) as pair:
        yield pair


@contextlib.contextmanager
def stops_cleanly(continue_with: str | None, as_json: bool = False):
    """Ctrl-C or SIGTERM keeps the finished chunks and exits 130 with one line saying how to continue
    (``continue_with`` None: nothing is kept, so the summary of the finished chunks is printed, marked partial)."""
    from ..runs.runner import RunInterrupted
    from ..runs.signals import exit_code, stop_on_signals

    nothing_kept = " " + _("(nothing was saved: use --out DIR to keep finished chunks)")
    try:
        with stop_on_signals():
            yield
    except RunInterrupted as e:
        where = _("; {done} of {total} chunks of this run are saved in {out}. Continue with: {command}").format(
            done=e.done, total=e.total, out=e.out, command=continue_with) if e.out is not None else nothing_kept
        if e.out is None and e.summary is not None and e.summary["deals"]:
            from ..output.console import print_report

            emit_json(e.summary) if as_json else print_report(e.summary)
        click.echo(_("Interrupted") + where, err=True)
        sys.exit(exit_code())
    except KeyboardInterrupt:  # between runs of a series, or before a run started: finished work is on disk
        click.echo(_("Interrupted. Continue with: {command}").format(command=continue_with) if continue_with
                   else _("Interrupted") + nothing_kept, err=True)
        sys.exit(exit_code())


def same_command() -> str:
    """This command line again: a series folder (compare, tournament, skill) continues where it stopped."""
    return shlex.join(["escoba-sim", *sys.argv[1:]])


def run_and_report(start, *, as_json: bool, quiet: bool, spec, out) -> None:
    """Run with a progress bar on stderr (``start(bar)`` returns the summary); report on stdout;
    Ctrl-C keeps finished chunks (exit 130)."""
    from ..output.console import ProgressBar, print_report
    from ..runs.folder import resume_command

    with stops_cleanly(resume_command(out, spec) if out is not None else None, as_json):
        with ProgressBar(spec, enabled=not quiet and sys.stderr.isatty(), standings=not quiet and not as_json) as bar:
            summary = start(bar)
    if as_json:
        emit_json(summary)
    else:
        print_report(summary)


def play_and_print_series(plan, *, jobs, as_json, quiet, scheduler, continue_with: str) -> None:
    """Play (or finish) a planned series (``series.kinds.SeriesPlan``) with one progress bar, then print its
    summary as its kind's view does (``output.views``); Ctrl-C says ``continue_with``."""
    from ..output.console import ProgressBar
    from ..output.views import VIEWS
    from ..series.kinds import play_series

    with executor(scheduler, jobs, quiet) as (pool, jobs), stops_cleanly(continue_with), \
            ProgressBar(plan.first, enabled=not quiet and sys.stderr.isatty(), runs=plan.runs,
                        standings=not quiet and not as_json) as bar:
        def on_run(k, label):
            bar.start_run(k, label)
            if not bar.enabled and not quiet:
                click.echo(f"[{k + 1}/{plan.runs}] {label}", err=True)
        summary = play_series(plan, jobs=jobs, executor=pool, argv=sys.argv[1:], on_run=on_run, on_chunk=bar)
    if as_json:
        emit_json(summary)
        return
    VIEWS[plan.kind].terminal(summary)
    click.echo("\n" + _("results kept in {out} (summary.json, tables/)").format(out=plan.out) + "\n"
               + _("charts: escoba-sim report {out}").format(out=shlex.quote(str(plan.out))))
