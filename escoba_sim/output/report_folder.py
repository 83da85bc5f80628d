"""What ``escoba-sim report`` reads: a results folder's kind, its manifest and summary checked field by field, and
its tables (a series' table files checked for their columns; a run's tables built from its chunks).

A folder is untrusted input (docs/security.md): every field the page uses is type-checked
(``check_fields``) and every table file's columns (``check_table_schemas``); a problem is one
ReportError line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import Command, EscobaError
from ..files import UntrustedFile, read_json_object
from ..i18n import N_
from ..i18n import translate as _
from ..series.kinds import SERIES

KINDS = ("run", *SERIES)  # a single run, and each kind of series


class ReportError(EscobaError):
    """A folder the report cannot read."""


@dataclass
class Chart:
    name: str
    title: str
    draw: Callable  # draw(fig) -> None
    width: float = 6.4
    height: float = 4.0

    def __post_init__(self) -> None:
        # a long title (long strategy specs) wraps to the figure's width instead of running off it
        import textwrap

        width = int(self.width * 11)
        self.title = "\n".join(textwrap.fill(line, width) for line in self.title.split("\n"))


def folder_kind(manifest: dict) -> str:
    kind = manifest.get("kind")
    if kind is None and "spec" in manifest:
        kind = "run"
    if kind not in KINDS:
        raise ReportError(_("unknown results folder kind {kind} (expected one of {kinds})").format(
            kind=repr(kind), kinds=', '.join(KINDS)))
    return kind


def read_kind(d: Path) -> tuple[str, dict]:
    """``(kind, manifest)`` of a results folder (its tables are read by its kind's view: ``views.read_folder``).

    Everything read is untrusted (docs/security.md): files are read through ``files`` (regular
    files only, bounded), and the fields the page and the charts use are checked for their types
    (``check_fields``); a folder that fails gets one ReportError line naming the file and the field.
    """
    try:
        manifest = read_json_object(d / "manifest.json", what=N_("a results manifest (a JSON object)"))
    except UntrustedFile as e:
        if not (d / "manifest.json").exists() and not (d / "manifest.json").is_symlink():
            raise ReportError(_("{folder}: no manifest.json; give a run, compare, tournament or skill folder")
                              .format(folder=d)) from None
        raise ReportError(str(e)) from None
    return folder_kind(manifest), manifest


def run_folder_tables(d: Path, manifest: dict) -> dict:
    """A run folder's tables (``run_tables``), its problems ReportError lines."""
    from ..runs.spec import RunError

    try:  # the run folder is checked as resume checks it; no strategy code is needed to report it
        return run_tables(d, manifest)
    except RunError as e:
        raise ReportError.around(e, "{problem}") from None


def series_tables(d: Path, manifest: dict, *, manifest_fields: dict, summary_fields: dict) -> dict:
    """A series folder's result tables, its summary as ``"_summary"`` and which runs are finished as
    ``"_completeness"``: the manifest and the summary checked for ``manifest_fields`` and ``summary_fields``
    (its kind's), the table files against the manifest's checksums and for their columns."""
    from ..runs.spec import RunError
    from ..series.tables import read_results, series_completeness

    check_fields(manifest, manifest_fields, f"{d / 'manifest.json'}")
    try:  # the tables and summary.json, each checked against the checksum the manifest keeps
        tables = read_results(d, manifest)
    except RunError as e:
        raise ReportError.around(e, "{problem}") from None
    summary = tables.pop("_summary", None)
    check_table_schemas(d, tables)
    if summary is not None:
        check_fields(summary, summary_fields, f"{d / 'summary.json'}")
    tables["_summary"] = summary
    tables["_completeness"] = series_completeness(d, manifest, bool(summary))
    return tables


# The fields of a folder's files that the page and the charts use, with their types: "int", "num"
# (int or float, not bool), "num?" (or null), "str", "llr" (a number, "inf" or "-inf"), "run" (a run's
# place in a series: runs/NN), a list [item], an object {key: type} ("key?" may be absent); other
# fields are not read (the provenance shows the manifest's as JSON text).
_RUN = "run"
MANIFEST_FIELDS = {
    "compare": {"strategies": ["str"],
                "rulesets": [{"label": "str", "rules": "str", "rules_digest": "str", "run": _RUN}]},
    "tournament": {"strategies": ["str"], "pairs": [{"run": _RUN}]},
    "skill": {"strategies": ["str"], "rulesets": [{"label": "str", "rules": "str", "rules_digest": "str"}],
              "pairs": [{"run": _RUN}]},
}
_ROWS = [{"label": "str", "metric": "str", "estimate": "num?", "lo": "num?", "hi": "num?"}]
SUMMARY_FIELDS = {
    "compare": {"seed": "int", "strategies": ["str"], "labels?": ["str"], "games_per_ruleset": "int",
                "rulesets": [{"label": "str"}], "effects": _ROWS,
                "no_effect?": [{"label": "str", "reason": "str"}]},
    "tournament": {"seed": "int", "rules": "str", "strategies": ["str"], "labels?": ["str"],
                   "games_per_pair": "int", "ratings": [{"label": "str", "estimate": "num", "lo": "num?",
                                                          "hi": "num?"}]},
    "skill": {"seed": "int", "strategies": ["str"], "labels": ["str"], "games_per_pair": "int",
              "rulesets": [{"label": "str"}], "skill": _ROWS},
}
SPRT_FIELDS = {"elo0": "num", "elo1": "num", "alpha": "num", "beta": "num", "llr": "llr", "lower": "num",
               "upper": "num", "decision": "str?", "deals?": "int", "games?": "int", "hands?": "int"}


def _type_ok(value, want: str) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return {"int": isinstance(value, int) and not isinstance(value, bool), "num": number,
            "num?": value is None or number, "str": isinstance(value, str),
            "str?": value is None or isinstance(value, str),
            "llr": number or value in ("inf", "-inf"),
            _RUN: isinstance(value, str) and re.fullmatch(r"runs/[0-9]{2,6}", value) is not None}[want]


_WANT = {"int": N_("an integer"), "num": N_("a number"), "num?": N_("a number or null"), "str": N_("a string"),
         "str?": N_("a string or null"), "llr": N_('a number, "inf" or "-inf"'),
         _RUN: N_("runs/NN (a run of this folder)")}


def check_fields(value, fields, where: str, path: str = "") -> None:
    """Refuse (one ReportError line) a value whose fields are not of the types ``fields`` gives."""
    if isinstance(fields, dict):
        if not isinstance(value, dict):
            raise ReportError(_("{where}: {field} is {kind}, not an object").format(
                where=where, field=path or _("the file"), kind=type(value).__name__))
        for key, want in fields.items():
            name = key.rstrip("?")
            if name not in value:
                if key.endswith("?"):
                    continue
                raise ReportError(_("{where}: no `{field}` field").format(where=where, field=path + name))
            check_fields(value[name], want, where, f"{path}{name}.")
    elif isinstance(fields, list):
        if not isinstance(value, list):
            raise ReportError(_("{where}: `{field}` is {kind}, not a list").format(
                where=where, field=path.rstrip('.'), kind=type(value).__name__))
        for i, item in enumerate(value):
            check_fields(item, fields[0], where, f"{path.rstrip('.')}[{i}].")
    elif not _type_ok(value, fields):
        shown = type(value).__name__ if not isinstance(value, str) else _("the string {text}").format(
            text=repr(value[:40]))
        raise ReportError(_("{where}: `{field}` is {shown}, not {wanted}").format(
            where=where, field=path.rstrip('.'), shown=shown, wanted=_(_WANT[fields])))


# the table files the page reads, with their columns (``series.tables``' shapes); others are ignored
_EST = {"label": "String", "metric": "String", "estimate": "Float64", "lo": "Float64", "hi": "Float64"}
_COUNT = {"label": "String", "value": "Int64", "count": "Int64"}
TABLE_SCHEMAS = {
    "estimates": _EST, "effects": _EST, "ratings": _EST,
    "categories": {"label": "String", "category": "String", "points": "Float64"},
    "points_hist": _COUNT, "hands_hist": _COUNT,
    "convergence": {"label": "String", "chunks": "Int64", "n": "Float64", "estimate": "Float64", "lo": "Float64",
                    "hi": "Float64"},
    "crosstable": {"row": "String", "col": "String", "value": "Float64"},
    "skill": _EST, "skill_effects": _EST,
    "skill_ratings": {"ruleset": "String", "label": "String", "estimate": "Float64", "lo": "Float64", "hi": "Float64"},
    "pairs": {"row": "String", "col": "String", "games": "Int64", "won": "Int64", "drawn": "Int64", "lost": "Int64",
              "score": "Float64", "score_lo": "Float64", "score_hi": "Float64", "points_diff": "Float64",
              "points_diff_lo": "Float64", "points_diff_hi": "Float64"},
}
TABLE_LIMIT = 256 << 20


def check_table_schemas(d: Path, tables: dict) -> None:
    """The result tables the page uses must have this version's columns and types (a foreign table is one
    ReportError line); their bytes were already checked against the manifest's checksums."""
    for name, df in tables.items():
        schema = TABLE_SCHEMAS.get(name)
        got = {c: str(t) for c, t in df.schema.items()}
        if schema is not None and got != schema:
            raise ReportError(_("{path}: not a table of this escoba-sim version (columns {columns}; expected "
                                "{expected})").format(
                                    path=d / 'tables' / (name + '.parquet'), columns=', '.join(got) or _('none'),
                                    expected=', '.join(f'{c} {t}' for c, t in schema.items())))


def run_tables(d: Path, manifest: dict) -> dict:
    """Tidy tables of a runner folder, from its chunk aggregates, with the run's own summary.

    A run stopped by its SPRT or interrupted is read as far as its chunks go in index
    order (the chunks the run's summary is made of); ``completeness`` says what is missing.
    """
    from ..game.columns import POINT_COLUMNS, SIDE_COLUMNS
    from ..runs import stats
    from ..runs.aggregates import DealLayout, merge
    from ..runs.folder import ChunkInvalid, finished_chunks, read_chunk, run_spec_of
    from ..runs.summary import summarize
    from ..series.tables import category_frame, convergence_frame, count_frame, count_rows, estimate_frame, proportion

    spec = run_spec_of(d, manifest)  # the format and the manifest checked like the command line
    done = finished_chunks(d, spec)
    used = 0
    while used in done:
        used += 1
    missing = [k for k in range(spec.n_chunks) if k not in done]
    status = manifest.get("status", "unknown")
    labels = spec.labels()
    lay = DealLayout(spec.entrants)
    merged, conv = None, []
    resume = Command(("resume", str(d)))
    for k in range(used):
        try:
            a = read_chunk(done[k], spec, k)
        except ChunkInvalid as e:
            raise ReportError(_("{folder}: chunk {k} is {problem}; repair it with: {command}"), folder=d,
                              resume=resume, k=k, problem=e, command=resume) from None
        a.pop("deal_score", None)
        merged = merge(merged, a)
        S, G, n = merged["deal_sum"], merged["deal_gram"], int(merged["clusters"][0])
        if int(merged["games"][0]):  # every player's running win rate
            for e, who in enumerate(labels):
                one = lambda col: stats.unit(lay.core_size, col)  # noqa: E731
                r, se = stats.deal_ratio(S, G, n, one(lay.won(e)), one(lay.games))
                # the summary's interval of a win rate (runs.summary): Wilson for independent games, else
                # Wilson at the deals' effective sample size
                ci = (stats.wilson(int(merged["game_wins"][e]), int(merged["games"][0])) if spec.rotations == 1
                      else proportion(r, se, n))
                conv.append((who, k + 1, float(merged["games"][0]), r, *ci))
    if merged is None:
        raise ReportError(_("{folder}: no finished chunk yet; nothing to report (continue it with: {command})"),
                          folder=d, resume=resume, command=resume)
    run_status = "stopped-by-sprt" if status == "stopped-by-sprt" else \
        "complete" if used == spec.n_chunks else "incomplete"
    if spec.save_hands and manifest.get("hand_records") is True and status in ("complete", "stopped-by-sprt"):
        from ..runs.hand_records import check_records

        check_records(d, spec, used)  # its records were all written as it ended: a deleted one is resume's to write
    summary = summarize(spec, merged, used, run_status)
    if spec.sprt is not None and (d / "summary.json").exists():
        try:  # the SPRT's path is the run's own record; it is read, and checked like any file
            sprt = read_json_object(d / "summary.json", what=N_("a summary (a JSON object)")).get("sprt")
        except UntrustedFile as e:
            raise ReportError(str(e)) from None
        if sprt is not None:
            check_fields(sprt, SPRT_FIELDS, str(d / "summary.json"), "sprt.")
            summary["sprt"] = sprt
    est = []
    for e, ent in zip(range(spec.entrants), summary["entrants"]):
        who = labels[e]
        p = ent["points_per_hand"]
        est.append((who, "total", p["mean"], *p["ci95"]))
        if ent.get("games"):
            g = ent["games"]
            est.append((who, "win_rate", g["win_rate"], *g["ci95"]))
        if (spec.entrants == 2 or spec.rules.teams) and ent.get("seat_advantage"):
            sa = ent["seat_advantage"]
            est.append((who, "seat_advantage", sa["mean"], *sa["ci95"]))
    if summary.get("hands_per_game"):
        h = summary["hands_per_game"]
        est.append(("all", "hands_per_game", h["mean"], *h["ci95"]))
    cats = [(who, c, int(merged["points"][e, SIDE_COLUMNS.index(c)]) / max(1, int(merged["hands"][0])))
            for e, who in enumerate(labels) for c in POINT_COLUMNS]
    ph = [row for e, who in enumerate(labels) if merged["points_hist"].size
          for row in count_rows(who, merged["points_hist"][e])]
    hh = count_rows("run", merged["game_hands_hist"])
    return {"estimates": estimate_frame(est),
            "categories": category_frame(cats),
            "points_hist": count_frame(ph),
            "hands_hist": count_frame(hh),
            "convergence": convergence_frame(conv),
            "_summary": summary,
            "_completeness": {"status": status, "chunks_used": used, "chunks_planned": spec.n_chunks,
                              "missing": missing, "partial": run_status == "incomplete"}}
