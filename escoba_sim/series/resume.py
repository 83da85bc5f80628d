"""Finish any output folder by its kind, and rebuild a comparison or tournament from what defines it.

A folder's manifest says what it holds: a run, a comparison or a tournament. ``open_folder`` reads
it and checks all that can be checked before anything is played (the manifest, and that a series'
strategy plugins are trusted); ``Resumable.finish`` then plays what is missing, and
``resume_folder`` does both. ``plan_series`` and ``play_series`` are also how a new comparison or
tournament starts: its manifest keeps the very arguments that define it, so either way the series
is rebuilt from them.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..game.rules import RulesError, parse_rules
from ..i18n import translate as _
from ..runs.folder import read_manifest, run_spec_of
from ..runs.runner import Progress, run
from ..runs.spec import RunError, RunSpec, make_spec
from ..strategies import StrategyError, parse_strategy, plugins_in
from .compare import Variant, compare
from .lineups import pair_specs, runs_per_pair
from .skill import check_ladder, check_rulesets, skill
from .tournament import tournament

SERIES_KINDS = ("compare", "tournament", "skill")


class ResumeError(RunError):
    """A folder or series that cannot be resumed or rebuilt (a manifest that does not describe one, an
    untrusted plugin); the message is one line for the user."""


def default_folder(kind: str, seed: int | None, parent: str | Path = ".", now: datetime | None = None) -> str:
    """The folder a comparison or tournament writes to without ``--out``.

    With a seed the person chose, ``KIND-SEED`` (the same command finds the same folder, to resume
    it). Without one, the seed drawn at random is 19-20 digits that nobody reads: the folder is
    named by the local time instead, ``KIND-2026-12-01-2315`` (the manifest keeps the seed), with
    ``-2``, ``-3``, ... when that name is taken, so an existing folder is never reused.
    """
    if seed is not None:
        return f"{kind}-{seed}"
    stem = f"{kind}-{(now or datetime.now()).strftime('%Y-%m-%d-%H%M')}"
    name, n = stem, 1
    while os.path.lexists(Path(parent) / name):
        n += 1
        name = f"{stem}-{n}"
    return name


def folder_kind(manifest: dict) -> str:
    """What a folder's manifest describes: ``"compare"``, ``"tournament"``, ``"skill"``, or else ``"run"`` (which
    ``runs.folder.run_spec_of`` then checks)."""
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    return kind if kind in SERIES_KINDS else "run"


@dataclass(frozen=True)
class SeriesPlan:
    """A comparison or tournament rebuilt from its arguments, checked and ready to play."""

    kind: str  # "compare", "tournament" or "skill"
    args: dict  # what defines it, as its manifest keeps it (strategies, n, seed, chunk_size, rulesets or rules)
    out: str | Path  # its folder, as given
    first: RunSpec  # its first run: chunks and games per run, for progress
    runs: int  # runs in the series
    variants: list[Variant] | None = None  # a comparison's rulesets

    def label(self, what) -> str:
        """The label of one of its runs, from what ``compare`` (a Variant) or ``tournament`` (a RunSpec) reports."""
        if self.kind == "skill":  # skill reports its run's label itself
            return what
        return what.label if self.kind == "compare" else " vs ".join(what.labels())


def plan_series(kind: str, args: dict, out: str | Path) -> SeriesPlan:
    """Rebuild the comparison or tournament that ``args`` define, to be played in ``out``.

    ``args`` holds the strategies, n, seed, chunk_size and the rulesets (compare: ``variants``, a
    list of ``compare.Variant``, or the manifest's ``rulesets``) or the rules (tournament), as the
    series' manifest keeps them. Raises ``ResumeError`` when they do not describe one.
    """
    if kind not in SERIES_KINDS:
        raise ResumeError(_("{folder}: not a comparison or tournament (kind {kind})").format(folder=out, kind=repr(kind)))
    variants = None
    try:
        # a series read from its manifest names its strategies and rulesets inline: a file named there is
        # refused, never opened (the command line's own --rules FILE arrives here already parsed)
        for s in args["strategies"]:
            if not isinstance(s, str):
                raise ResumeError(_("{folder}: the manifest's strategies must be strategy names, got {kind}").format(
                    folder=out, kind=type(s).__name__))
            parse_strategy(s, files=False)
        if kind in ("compare", "skill"):
            variants = args["variants"] if "variants" in args else [
                Variant(_label(r), parse_rules(r["rules"], files=False)) for r in args["rulesets"]]
            m = len(args["strategies"])
            runs = len(variants) * (m * (m - 1) // 2 * runs_per_pair(variants[0].rules) if kind == "skill" else 1)
            if kind == "skill":
                check_rulesets(variants)
                check_ladder(list(args["strategies"]))
                first = _first_run(args["strategies"], variants[0].rules, args)
            else:
                first = make_spec(args["strategies"][0], args["strategies"][1:], variants[0].rules, args["n"],
                                  seed=args["seed"], players_fixed=True, chunk_size=args.get("chunk_size", 0))
        else:
            args = {**args, "rules": parse_rules(args["rules"], files=False)}
            runs = len(args["strategies"]) * (len(args["strategies"]) - 1) // 2 * runs_per_pair(args["rules"])
            first = _first_run(args["strategies"], args["rules"], args)
    except (RulesError, StrategyError) as e:
        raise ResumeError(_("{folder}: the manifest: {problem}").format(folder=out, problem=e)) from None
    except RunError as e:
        raise ResumeError(str(e)) from None
    except (KeyError, TypeError, ValueError) as e:
        raise ResumeError(_("{folder}: the manifest does not describe a {kind} ({problem})").format(
            folder=out, kind=kind, problem=e)) from None
    return SeriesPlan(kind, args, out, first, runs, variants)


def _first_run(strategies: list[str], rules, args: dict) -> RunSpec:
    """The first run of a tournament or skill ladder (its first pair's first lineup), for progress."""
    if len(strategies) < 2:  # make_spec says what is missing, in one line
        return make_spec(strategies[0], [], rules, args["n"], seed=args["seed"], players_fixed=True)
    return pair_specs(strategies[0], strategies[1], rules, args["n"], seed=args["seed"],
                      chunk_size=args.get("chunk_size", 0))[0]


def _label(r) -> str:
    label = r["label"]
    if not isinstance(label, str):
        raise TypeError(_("a ruleset's label must be text, got {kind}").format(kind=type(label).__name__))
    return label


def play_series(plan: SeriesPlan, *, jobs: int = 1, executor=None, argv: list[str] | None = None,
                on_run: Callable[[int, str], None] | None = None,
                on_chunk: Callable[[Progress], None] | None = None) -> dict:
    """Play (or finish) a planned series and return its summary.

    ``argv`` is recorded in the manifest unless the series' own arguments keep one;
    ``on_run(k, label)`` is called as run k starts, ``on_chunk`` after each chunk; ``executor`` as
    for ``runs.runner.run``. Raises ``CompareError`` or ``TournamentError`` (one line each).
    """
    args = plan.args
    common = dict(seed=args["seed"], jobs=jobs, argv=args.get("argv") or argv, executor=executor,
                  chunk_size=args.get("chunk_size", 0), on_chunk=on_chunk,
                  on_run=None if on_run is None else (lambda k, what: on_run(k, plan.label(what))))
    if plan.kind == "skill":
        return skill(plan.variants, list(args["strategies"]), args["n"], plan.out, **common)
    if plan.kind == "compare":
        return compare(plan.variants, args["strategies"][0], args["strategies"][1], args["n"], plan.out, **common)
    return tournament(list(args["strategies"]), args["n"], plan.out, rules=args["rules"],
                      save_hands=args.get("save_hands") is True, **common)


@dataclass(frozen=True)
class Resumable:
    """An output folder whose manifest was read and checked: a run (``spec``) or a series (``series``)."""

    directory: str | Path
    manifest: dict
    kind: str  # "run", "compare" or "tournament"
    spec: RunSpec | None = None  # a run's
    series: SeriesPlan | None = None  # a comparison's or tournament's
    trust_plugins: bool = False

    def finish(self, *, jobs: int = 1, executor=None, argv: list[str] | None = None,
               on_run: Callable[[int, str], None] | None = None,
               on_chunk: Callable[[Progress], None] | None = None) -> dict:
        """Play what is missing and return the summary, equal to an uninterrupted run's or series'.

        A run's own plugins play only with ``trust_plugins`` (the runner refuses them otherwise);
        ``on_run`` and ``argv`` concern a series only.
        """
        if self.series is not None:
            return play_series(self.series, jobs=jobs, executor=executor, argv=argv, on_run=on_run, on_chunk=on_chunk)
        return run(self.spec, self.directory, jobs=jobs, executor=executor, on_chunk=on_chunk, resume=True,
                   trust_plugins=self.trust_plugins).summary


def open_folder(directory: str | Path, *, trust_plugins: bool = False) -> Resumable:
    """Read the folder's manifest and check what it holds, before anything is played.

    A comparison or tournament played with a strategy plugin (code the folder names) is refused
    unless ``trust_plugins``. Raises ``RunError`` (``ResumeError`` for a series) with one line.
    """
    manifest = read_manifest(Path(directory))
    kind = folder_kind(manifest)
    if kind == "run":
        return Resumable(directory, manifest, kind, spec=run_spec_of(Path(directory), manifest),
                         trust_plugins=trust_plugins)
    try:
        plugins = plugins_in(manifest.get("strategies") or [])
    except (StrategyError, TypeError) as e:
        raise ResumeError(_("{folder}: the manifest's strategies are not valid ({problem})").format(
            folder=directory, problem=e)) from None
    if plugins and not trust_plugins:
        raise ResumeError(_("{folder} was played with the strategy plugin `{plugin}`, code named by the folder, not "
                            "by you; read it, then continue with: {command}").format(
                                folder=directory, plugin=plugins[0],
                                command=f"escoba-sim resume --trust-plugins {shlex.quote(str(directory))}"))
    return Resumable(directory, manifest, kind, series=plan_series(kind, manifest, directory),
                     trust_plugins=trust_plugins)


def resume_folder(directory: str | Path, *, trust_plugins: bool = False, **kw) -> dict:
    """Finish the run, comparison or tournament kept in ``directory`` and return its summary
    (``open_folder(...).finish(**kw)``)."""
    return open_folder(directory, trust_plugins=trust_plugins).finish(**kw)
