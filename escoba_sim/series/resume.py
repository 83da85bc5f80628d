"""Finish any output folder by its kind, and rebuild a series (a comparison, a tournament or a skill ladder)
from what defines it.

A folder's manifest says what it holds: a run, or a series of a kind of ``kinds.SERIES``. ``open_folder``
reads it and checks all that can be checked before anything is played (the manifest, and that a series'
strategy plugins are trusted); ``Resumable.finish`` then plays what is missing, and ``resume_folder`` does
both. A new series starts the same way (``kinds``: its kind's ``start``, then ``play_series``): its manifest
keeps the very arguments that define it, so either way the series is rebuilt from them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import Command
from ..i18n import translate as _
from ..runs.folder import read_manifest, run_spec_of
from ..runs.runner import Progress, run
from ..runs.spec import RunSpec
from ..strategies import StrategyError, plugins_in
from .kinds import SERIES, ResumeError, SeriesPlan, plan_series, play_series

__all__ = ["ResumeError", "Resumable", "SeriesPlan", "default_folder", "folder_kind", "open_folder", "plan_series",
           "play_series", "resume_folder"]

SERIES_KINDS = tuple(SERIES)


def default_folder(kind: str, seed: int | None, parent: str | Path = ".", now: datetime | None = None) -> str:
    """The folder a series writes to without ``--out``.

    With a seed the person chose, ``KIND-SEED`` (the same command finds the same folder and says to
    ``resume`` it, as a run's does). Without one, the seed drawn at random is 19-20 digits that nobody reads: the folder is
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
    """What a folder's manifest describes: a kind of series (``kinds.SERIES``: ``"compare"``, ``"tournament"``,
    ``"skill"``), or else ``"run"`` (which ``runs.folder.run_spec_of`` then checks)."""
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    return kind if kind in SERIES else "run"


@dataclass(frozen=True)
class Resumable:
    """An output folder whose manifest was read and checked: a run (``spec``) or a series (``series``)."""

    directory: str | Path
    manifest: dict
    kind: str  # "run", or a kind of series (``kinds.SERIES``)
    spec: RunSpec | None = None  # a run's
    series: SeriesPlan | None = None  # a series'
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

    A series played with a strategy plugin (code the folder names) is refused unless ``trust_plugins``.
    Raises ``RunError`` (``ResumeError`` for a series) with one line.
    """
    manifest = read_manifest(Path(directory))
    kind = folder_kind(manifest)
    if kind not in SERIES:  # a single run
        return Resumable(directory, manifest, kind, spec=run_spec_of(Path(directory), manifest),
                         trust_plugins=trust_plugins)
    try:
        plugins = plugins_in(manifest.get("strategies") or [])
    except (StrategyError, TypeError) as e:
        raise ResumeError(_("{folder}: the manifest's strategies are not valid ({problem})").format(
            folder=directory, problem=e)) from None
    if plugins and not trust_plugins:
        resume = ("resume", "--trust-plugins", str(directory))
        raise ResumeError(_("{folder} was played with the strategy plugin `{plugin}`, code named by the folder, not "
                            "by you; read it, then continue with: {command}"), folder=directory, resume=resume,
                          plugin=plugins[0], command=Command(resume))
    return Resumable(directory, manifest, kind, series=SERIES[kind].plan(manifest, directory),
                     trust_plugins=trust_plugins)


def resume_folder(directory: str | Path, *, trust_plugins: bool = False, **kw) -> dict:
    """Finish the run or series kept in ``directory`` and return its summary
    (``open_folder(...).finish(**kw)``)."""
    return open_folder(directory, trust_plugins=trust_plugins).finish(**kw)
