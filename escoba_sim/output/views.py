"""What a person reads of each kind of folder, in one table (``VIEWS``, keyed by the kind names of
``series.kinds.SERIES`` plus ``"run"``): the report page's title, headline and tables, its charts, how its
folder is read for the report, and its terminal summary. The functions live with their concern
(``report_sections``, ``report_charts``, ``report_folder``, ``console``, ``skill_table``); a view names its kind's; a new kind
of series adds its view here (its library side is its class in ``series.kinds``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..i18n import N_
from . import console, report_charts, report_folder, report_sections, skill_table
from .report_folder import Chart


@dataclass(frozen=True)
class View:
    """One kind of folder as a person reads it."""

    title: str  # the report page's title (an N_ message, translated where shown)
    played: Callable[[dict], str]  # a partial folder's part played, from its completeness
    headline: Callable[[dict], dict]  # the page's first section, from the summary
    tables: Callable[[dict], list]  # (caption, frame for people, download name) per table
    charts: Callable[[dict, dict], list]  # the charts of its tables (and manifest)
    read: Callable  # read(folder, manifest) -> its tables, checked (report_folder)
    terminal: Callable[[dict], None]  # print its summary on the terminal
    provenance: tuple[str, ...] = ()  # manifest fields the page's provenance adds to the common ones


def _print_lines(lines: Callable[[dict], list[str]], summary: dict) -> None:
    import click

    for line in lines(summary):
        click.echo(line)


def _series_read(kind: str):
    return partial(report_folder.series_tables, manifest_fields=report_folder.MANIFEST_FIELDS[kind],
                   summary_fields=report_folder.SUMMARY_FIELDS[kind])


VIEWS: dict[str, View] = {
    "run": View(N_("Strategy run"), report_sections.chunks_done, report_sections.run_headline,
                report_sections.run_tables, report_charts.run_charts, report_folder.run_folder_tables, console.print_report,
                provenance=("spec",)),
    "compare": View(N_("Ruleset comparison"), report_sections.runs_done, report_sections.compare_headline,
                    report_sections.compare_tables, report_charts.compare_charts, _series_read("compare"),
                    console.print_compare),
    "tournament": View(N_("Tournament"), report_sections.runs_done, report_sections.tournament_headline,
                       report_sections.tournament_tables, report_charts.tournament_charts,
                       _series_read("tournament"), console.print_tournament),
    "skill": View(N_("Skill ladder"), report_sections.runs_done, report_sections.skill_headline,
                  report_sections.skill_tables, report_charts.skill_charts, _series_read("skill"),
                  partial(_print_lines, skill_table.skill_lines)),
}


def read_folder(d: Path) -> tuple[str, dict, dict]:
    """``(kind, manifest, tables)`` for a results folder: its manifest read and checked
    (``report_folder.read_kind``), its tables by its kind's reader. Everything read is untrusted
    (docs/security.md); a folder that fails gets one ReportError line naming the file and the field."""
    kind, manifest = report_folder.read_kind(d)
    return kind, manifest, VIEWS[kind].read(d, manifest)


def chart_list(kind: str, tables: dict, manifest: dict | None = None) -> list[Chart]:
    """Every chart a folder's tables support, in page order (``manifest`` names the players in titles): its
    kind's."""
    return VIEWS[kind].charts(tables, manifest or {})
