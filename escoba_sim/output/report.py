"""``escoba-sim report DIR``: charts (PNG + SVG) and one self-contained HTML page for any results folder.

A folder's ``manifest.json`` says its kind: ``compare`` and ``tournament``
folders carry ``"kind"``; a runner folder (``escoba-sim run --out``) is
recognised by its ``spec``. Each kind is turned into the same tidy tables
(see ``charts``), the charts are drawn from them, and ``DIR/report/`` gets
``NAME.png``/``NAME.svg`` per chart and ``index.html``: CSS inline, charts as
inline ``data:`` SVG images, no external URL, so the page opens offline. A
tiny inline script marks the page ``data-charts-loaded`` once every chart
image has decoded, which the headless-browser test reads.

A folder is untrusted input (docs/security.md). The page is a Jinja2 template
(``templates/report.html.j2``) rendered with autoescape, so every value that
reaches it is escaped; the fields of ``manifest.json`` and ``summary.json``
the page uses are checked for their types (``check_fields``) and the table
files for their columns (``read_table_files``), one ReportError line
otherwise. Every file is written through ``files`` (never through a symlink,
never outside the folder).
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import __version__
from ..files import UntrustedFile, first_line, make_dirs, read_json_object, write_bytes
from ..i18n import N_, current
from ..i18n import translate as _
from . import charts
from .console import DECISION_TEXT, PAIRING_TEXT, STATUS_TEXT, UNIT_TEXT, word

KINDS = ("run", "compare", "tournament", "skill")


class ReportError(ValueError):
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


def read_folder(d: Path) -> tuple[str, dict, dict]:
    """``(kind, manifest, tables)`` for a results folder.

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
    kind = folder_kind(manifest)
    from ..runs.spec import RunError

    if kind == "run":
        try:  # the run folder is checked as resume checks it; no strategy code is needed to report it
            return kind, manifest, run_tables(d, manifest)
        except RunError as e:
            raise ReportError(str(e)) from None
    from ..series.tables import read_results, series_completeness

    check_fields(manifest, MANIFEST_FIELDS[kind], f"{d / 'manifest.json'}")
    try:  # the tables and summary.json, each checked against the checksum the manifest keeps
        tables = read_results(d, manifest)
    except RunError as e:
        raise ReportError(str(e)) from None
    summary = tables.pop("_summary", None)
    check_table_schemas(d, tables)
    if summary is not None:
        check_fields(summary, SUMMARY_FIELDS[kind], f"{d / 'summary.json'}")
    tables["_summary"] = summary
    tables["_completeness"] = series_completeness(d, manifest, bool(summary))
    return kind, manifest, tables


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
    for k in range(used):
        try:
            a = read_chunk(done[k], spec, k)
        except ChunkInvalid as e:
            raise ReportError(_("{folder}: chunk {k} is {problem}; repair it with: {command}").format(
                folder=d, k=k, problem=e, command=f"escoba-sim resume {d}")) from None
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
        raise ReportError(_("{folder}: no finished chunk yet; nothing to report (continue it with: escoba-sim resume "
                            "{folder})").format(folder=d))
    run_status = "stopped-by-sprt" if status == "stopped-by-sprt" else \
        "complete" if used == spec.n_chunks else "incomplete"
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


def _ax_chart(name, title, frame, plot, width=6.4, height=4.0, **kw) -> Chart:
    def draw(fig):
        plot(fig.add_subplot(), frame, **kw)
    return Chart(name, title, draw, width, height)


def effect_metrics(effects) -> list[str]:
    """The metrics of the effects chart, in panel order: games, each player's points, escobas, ties."""
    present = effects["metric"].unique(maintain_order=True).to_list()
    totals = [m for m in present if m.startswith("total:")]
    order = ["win_rate", *totals, "hands_per_game", "seat_advantage", "escobas", "lucky_escobas",
             "tie_sevens", "tie_oros", "tie_cards"]
    return [m for m in order if m in present]


def _effects_chart(effects, labels: list[str] | None) -> Chart:
    """Small multiples: one axes per metric (own x scale, unit and zero line), variants as rows."""
    from ..series.compare import describe_metric

    metrics = effect_metrics(effects)
    df = charts.prep_effects(effects, metrics)
    n_var = df["label"].n_unique()
    ncols = 2 if len(metrics) > 2 else 1
    nrows = -(-len(metrics) // ncols)
    panel_h = 0.95 + 0.32 * n_var

    def draw(fig):
        import polars as pl

        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax, m in zip(axes.flat, metrics):
            what, unit = describe_metric(m, labels)
            charts.plot_effects(ax, df.filter(pl.col("metric") == m), xlabel=_("difference in {unit}").format(unit=unit),
                                label_col="label")
            ax.set_title(what, fontsize="small")
        for ax in list(axes.flat)[len(metrics):]:  # an odd count leaves one empty slot: no empty panel
            fig.delaxes(ax)
    return Chart("effects", _("Variant effects: paired difference vs the first ruleset on the same deals "
                              "(95% CI; dark = excludes 0)"), draw, width=11.0, height=0.6 + nrows * panel_h)


def _distribution_chart(name: str, title: str, df, **kw) -> Chart:
    """One axes, a line per label, while the palette has a colour for each; small multiples beyond."""
    labels = df["label"].unique(maintain_order=True).to_list()
    if len(labels) <= len(charts.PALETTE):
        return _ax_chart(name, title, df, charts.plot_distribution, **kw)
    nrows, ncols = charts.convergence_grid(len(labels))
    title_lines = max(len(charts.panel_title(x).splitlines()) for x in labels)

    def draw(fig):
        charts.plot_distribution_panels(fig, df, **kw)
    return Chart(name, title + " " + _("(one panel each)"), draw, width=1.0 + 2.6 * ncols,
                 height=1.0 + nrows * (1.7 + 0.18 * title_lines))


def _convergence_chart(kind: str, conv, first: str) -> Chart:
    """One axes for a few lines (a run's players); small multiples beyond (``charts.CONVERGENCE_LINES``)."""
    import textwrap

    title = (_("Convergence of the first-named strategy's win rate in each pair") if kind == "tournament" else
             _("Convergence of each player's win rate") if kind == "run" else
             _("Convergence of {player}'s win rate").format(player=first))
    title += "\n" + _("(95% CI, the deal as unit)")
    kw = {"ylabel": _("share of games won"), "xlabel": _("games played (log scale)")}
    labels = conv["label"].unique(maintain_order=True).to_list()
    if len(labels) <= charts.CONVERGENCE_LINES:
        return _ax_chart("convergence", title, conv, charts.plot_convergence, width=8.0, **kw)
    title += "; " + (_("one panel per pair") if kind == "tournament" else _("one panel per ruleset")
                     if kind == "compare" else _("one panel per player")) + " " + _("(dashed: 0.5)")
    nrows, ncols = charts.convergence_grid(len(labels))
    title_lines = max(len(charts.panel_title(x).splitlines()) for x in labels)

    def draw(fig):
        charts.plot_convergence_panels(fig, conv, reference=0.5, **kw)
    return Chart("convergence", title, draw, width=1.0 + 2.6 * ncols,
                 height=1.2 + nrows * (1.7 + 0.18 * title_lines) + 0.2 * len(textwrap.wrap(title, 60)))


def chart_list(kind: str, tables: dict, manifest: dict | None = None) -> list[Chart]:
    """Every chart a folder's tables support, in page order (``manifest`` names the players in titles)."""
    import polars as pl

    manifest = manifest or {}
    if kind == "skill":
        return skill_charts(tables)
    players = manifest.get("strategies") or []
    if kind == "run":
        players = (manifest.get("spec") or {}).get("strategies") or players
    first = players[0] if players else _("the first player")
    out: list[Chart] = []
    est = tables.get("estimates")
    if est is not None:
        wr = charts.prep_win_rates(est)
        if kind == "tournament" and "ratings" in tables:  # in the ratings' order, as the terminal's table
            rank = {lab: k for k, lab in enumerate(tables["ratings"].sort("estimate", descending=True,
                                                                             maintain_order=True)["label"])}
            wr = wr.sort(pl.col("label").replace_strict(rank, default=len(rank)), maintain_order=True)
        if wr.height:
            title = {"compare": _("Game win rate of {player} against {opponents}, per ruleset (95% CI)").format(
                         player=first, opponents=', '.join(players[1:]) or _("its opponent")),
                     "tournament": _("Game win rate against all opponents (95% CI)")}.get(
                         kind, _("Game win rate per player (95% CI)"))
            out.append(_ax_chart("win_rates", title, wr, charts.plot_win_rates,
                                 height=1.5 + 0.4 * wr.height, xlabel=_("share of games won (dashed: 0.5)")))
    if kind == "tournament" and "ratings" in tables:  # highest first, as the terminal and the page's table
        r = charts.prep_metric(tables["ratings"], "rating").sort("estimate", descending=True, maintain_order=True)
        out.append(_ax_chart("ratings", _("Bradley-Terry rating, Elo scale (95% CI, the deal as unit)"), r,
                             charts.plot_intervals, height=1.5 + 0.4 * r.height,
                             xlabel=_("rating (Elo points, mean 0)"), reference=0.0))
    if kind == "tournament" and "crosstable" in tables:  # the game score as the terminal prints it: 0 to 1
        ct = charts.prep_crosstable(tables["crosstable"])
        longest = max(len(x) for x in ct["label"].to_list())
        side = 3.0 + 0.6 * ct.height + 0.075 * longest
        out.append(_ax_chart("crosstable", _("Crosstable: row's game score against the column (0.5 = even)"), ct,
                             charts.plot_crosstable, width=side + 1.5, height=side,
                             value_label=_("game score (0.5 = even)"), centre=0.5))
    if "categories" in tables and tables["categories"].height:
        c = charts.prep_points_by_category(tables["categories"])
        n_bars = c["label"].n_unique()
        longest = max(len(x) for x in c["label"].unique().to_list())
        out.append(_ax_chart("points_by_category", _("Expected points per hand by category"), c,
                             charts.plot_points_by_category, width=max(7.5, 5.5 + 0.075 * longest),
                             height=1.8 + 0.42 * max(n_bars, 4)))
    if kind == "compare" and "effects" in tables and tables["effects"].height:
        # a variant that changed no deal is named so in its rows (the page says why)
        flagged = {x["label"] for x in (tables.get("_summary") or {}).get("no_effect") or []}
        effects = tables["effects"].with_columns(
            pl.when(pl.col("label").is_in(list(flagged))).then(pl.col("label") + " " + _("(no effect)"))
            .otherwise(pl.col("label")).alias("label")) if flagged else tables["effects"]
        out.append(_effects_chart(effects, players or None))
    if est is not None:
        sa = charts.prep_metric(est, "seat_advantage")
        if sa.height:
            title = (_("Seat advantage: mano's minus dealer's points per hand, both players together")
                     if kind == "compare" else _("Seat advantage: points per hand as mano minus as dealer"))
            out.append(_ax_chart("seat_advantage", title, sa, charts.plot_intervals, height=1.5 + 0.4 * sa.height,
                                 xlabel=_("points per hand (dashed: no advantage)"), reference=0.0))
    if "points_hist" in tables and tables["points_hist"].height:
        out.append(_distribution_chart("points_distribution", _("Distribution of points per hand"),
                                       charts.prep_distribution(tables["points_hist"]),
                                       xlabel=_("points in a hand"), ylabel=_("share of hands")))
    if "hands_hist" in tables and tables["hands_hist"].height:
        hh = charts.prep_distribution(tables["hands_hist"])
        title = _("Hands per game (all pairs together)") if kind == "tournament" else _("Hands per game")
        out.append(_distribution_chart("hands_per_game", title, hh, xlabel=_("hands in a game"),
                                       ylabel=_("share of games")))
    conv = tables.get("convergence")
    if conv is not None and conv.height and conv["chunks"].n_unique() >= 3:  # a line needs a few points
        out.append(_convergence_chart(kind, charts.prep_convergence(conv), first))
    return out


def skill_charts(tables: dict) -> list[Chart]:
    """A skill ladder's charts: the skill share per ruleset, and each ruleset's ladder (small multiples)."""
    out: list[Chart] = []
    if "skill" in tables and tables["skill"].height:
        sh = charts.prep_skill_share(tables["skill"])
        out.append(_ax_chart("skill_share", _("Skill share per ruleset: outcome variance between the ladder's "
                                              "strategies over total (95% CI, the deal as unit)"),
                             sh, charts.plot_intervals, width=8.0, height=1.6 + 0.4 * sh.height,
                             xlabel=_("share of the game outcome's variance (0: luck only, 1: skill only)"),
                             reference=0.0))
    if "skill_effects" in tables and tables["skill_effects"].height:
        ef = charts.prep_metric(tables["skill_effects"], "skill_share")
        first = tables["skill"]["label"][0] if "skill" in tables and tables["skill"].height else \
            _("the first ruleset")
        out.append(_ax_chart("skill_effects", _("Skill share minus {reference}'s, paired by deal (95% CI)")
                             .format(reference=first), ef,
                             charts.plot_intervals, width=8.0, height=1.6 + 0.4 * ef.height,
                             xlabel=_("difference in the share of the outcome's variance (dashed: no change)"),
                             reference=0.0))
    if "skill_ratings" in tables and tables["skill_ratings"].height:
        ladders = charts.prep_ladders(tables["skill_ratings"])
        ncols = min(3, len(ladders))
        nrows = -(-len(ladders) // ncols)
        per = ladders[0][1].height
        lo = min(x for _k, df in ladders for x in df["lo"].drop_nulls().to_list() + df["estimate"].to_list())
        hi = max(x for _k, df in ladders for x in df["hi"].drop_nulls().to_list() + df["estimate"].to_list())
        pad = 0.05 * (hi - lo or 1.0)

        def draw(fig):
            from matplotlib.ticker import MaxNLocator

            axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True)
            for ax, (name, df) in zip(axes.flat, ladders):
                charts.plot_ladder(ax, df, xlabel="")
                ax.set_xlim(lo - pad, hi + pad)
                ax.xaxis.set_major_locator(MaxNLocator(5))
                ax.set_title(name, fontsize="small")
            for k, ax in enumerate(axes.flat):
                if k >= len(ladders):
                    fig.delaxes(ax)
                elif k + ncols >= len(ladders):  # the lowest panel of its column: its x axis is labelled
                    ax.xaxis.set_tick_params(labelbottom=True)
                    ax.set_xlabel(_("rating (Elo, mean 0)"))
        out.append(Chart("skill_ladders", _("The ladder per ruleset: Bradley-Terry ratings, Elo scale "
                                            "(95% CI; same x scale in every panel)"),
                         draw, width=4.0 * ncols + 1.0, height=0.8 + nrows * (0.9 + 0.3 * per)))
    return out


def _fmt(v) -> str:
    """A table cell for people (the page escapes it)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def column_decimals(values) -> int | None:
    """Decimals for a column of floats, the same for every row (an estimate and its interval read alike:
    3.6310 3.6300 3.6320, never 3.631 3.63 3.632), as the terminal prints them: 4 for scores, shares and
    points (under 10), 2 up to 100, 1 for ratings and other larger numbers."""
    finite = [abs(v) for v in values if isinstance(v, float) and math.isfinite(v)]
    if not finite:
        return None
    top = max(finite)
    return 4 if top < 10 else 2 if top < 100 else 1


def _cell(v, decimals: int | None) -> str:
    if isinstance(v, float) and math.isfinite(v) and decimals is not None:
        return f"{v:.{decimals}f}"
    return _fmt(v)


def table_context(df, caption: str, download: str | None = None) -> dict:
    """A table for people, each float column with one number of decimals (``column_decimals``); with
    ``download`` the frame's raw values as a CSV link (``data:`` URL)."""
    csv = base64.b64encode(df.write_csv().encode()).decode() if download is not None else None
    main = next((c for c in ("estimate", "rating") if c in df.columns), None)

    def base(c: str) -> str:  # an interval's ends read as their estimate: lo, hi -> estimate; score_lo -> score
        return main if c in ("lo", "hi") and main else c.removesuffix("_lo").removesuffix("_hi")

    groups: dict[str, list] = {}
    for c in df.columns:
        if df[c].dtype.is_float():
            groups.setdefault(base(c), []).extend(df[c].to_list())
    decimals = [column_decimals(groups[base(c)]) if df[c].dtype.is_float() else None for c in df.columns]
    return {"caption": caption, "download": download, "csv": csv, "columns": [column_head(c) for c in df.columns],
            "rows": [[_cell(v, d) for v, d in zip(row, decimals)] for row in df.iter_rows()]}


# the page's table heads (the frames' column names, which the CSV keeps)
COLUMN_HEADS = {
    "label": N_("name"), "quantity": N_("quantity"), "estimate": N_("estimate"), "lo": N_("low (95%)"),
    "hi": N_("high (95%)"), "ruleset": N_("ruleset"), "rating": N_("rating"), "row": N_("row"), "col": N_("column"),
    "games": N_("games"), "won": N_("won"), "drawn": N_("drawn"), "lost": N_("lost"), "score": N_("score"),
    "score_lo": N_("score low (95%)"), "score_hi": N_("score high (95%)"), "points_diff": N_("points per hand diff"),
    "points_diff_lo": N_("diff low (95%)"), "points_diff_hi": N_("diff high (95%)"), "lower": N_("lower"),
    "upper": N_("upper"), "rating_diff": N_("rating diff"), "rating_diff_lo": N_("rating diff low (95%)"),
    "rating_diff_hi": N_("rating diff high (95%)"), "win": N_("win"), "draw": N_("draw"), "loss": N_("loss"),
    "games_to_win": N_("games to win a match"), "games_to_win_lo": N_("games to win low (95%)"),
    "games_to_win_hi": N_("games to win high (95%)"), "hands_per_game": N_("hands per game"),
    "hands_to_win": N_("hands to win a match"), "hands_to_win_lo": N_("hands to win low (95%)"),
    "hands_to_win_hi": N_("hands to win high (95%)"),
}


def column_head(name: str) -> str:
    """A table column's name as a person reads it (the CSV keeps the name); an unknown name as it is."""
    return _(COLUMN_HEADS[name]) if name in COLUMN_HEADS else name


def _pct(x) -> str:
    """A probability for people: never 0.0% or 100.0% for what is only small or large."""
    if x is None:
        return "–"
    if 0 <= x < 0.001:
        return "<0.1%"
    if 0.999 < x <= 1:
        return ">99.9%"
    return f"{100 * x:.1f}%"


def _ci_text(lo, hi, f="{:.4f}") -> str:
    """An interval; a missing end is unbounded (an Elo interval reaching a score of 0 or 1)."""
    return f"[{'−∞' if lo is None else f.format(lo)}, {'+∞' if hi is None else f.format(hi)}]"


def _num(x, f: str) -> str:
    return "–" if x is None else f.format(x)


def _elo(x) -> str:
    return "±∞" if x is None else f"{x:+.1f}"


def headline(kind: str, manifest: dict, tables: dict, folder: str = "DIR") -> dict:
    """What was played and who came out ahead, by how much, with the interval (the page's first section),
    as values for the page's template (which escapes each of them)."""
    done = tables.get("_completeness") or {}
    out: dict = {"partial": None, "run": None, "tournament": None, "compare": None, "skill": None}
    if done.get("partial"):
        what = (_("{used} of {planned} chunks, in deal order").format(used=done.get('chunks_used', 0),
                                                                          planned=done.get('chunks_planned', 0))
                if kind == "run" else _("{done} of {planned} runs finished").format(
                    done=done.get('runs_done', 0), planned=done.get('runs_planned', 0)))
        missing = ", ".join(str(m) for m in (done.get("missing") or [])[:8]) or "–"
        out["partial"] = {"status": word(STATUS_TEXT, str(done.get("status"))), "what": what, "missing": missing}
    s = tables.get("_summary")
    if kind == "run" and s:
        ents = s["entrants"]
        unit = "games" if s["mode"] == "games" else "hands"
        run = {"players": " vs ".join(x["strategy"] for x in ents), "rules": s["rules"], "count": f"{s[unit]:,}",
               "unit": word(UNIT_TEXT, unit), "deals": f"{s['deals']:,}", "pairing": word(PAIRING_TEXT, s["pairing"]),
               "seed": s["seed"],
               "elo": None, "differences": [], "sprt": None}
        el = s.get("elo")
        if el and el.get("score") is not None:
            a, b = ents[0]["label"], ents[1]["label"]
            w, dr, lo = el.get("wdl") or [0, 0, 0]
            run["elo"] = {"ahead": a if el["score"] > 0.5 else b if el["score"] < 0.5 else None, "first": a,
                          "score": f"{el['score']:.4f}", "score_ci": _ci_text(*el["score_ci95"]),
                          "elo": _elo(el["elo"]), "elo_ci": _ci_text(*el["elo_ci95"], f="{:+.1f}"),
                          "los": _pct(el["los"]), "wdl": f"{w:,}/{dr:,}/{lo:,}", "unit": word(UNIT_TEXT, el["unit"])}
        for d in s["differences"]:
            p = d["points_per_hand"]
            run["differences"].append({"label": d["label"], "mean": f"{p['mean']:+.4f}",
                                       "ci": _ci_text(*p["ci95"], f="{:+.4f}")})
        sp = s.get("sprt")
        if sp:
            run["sprt"] = {"elo0": f"{sp['elo0']:g}", "elo1": f"{sp['elo1']:g}", "alpha": f"{sp['alpha']:g}",
                           "beta": f"{sp['beta']:g}",
                           "decision": word(DECISION_TEXT, sp["decision"]) if sp["decision"] else _("undecided"),
                           "llr": sp["llr"] if isinstance(sp["llr"], str) else f"{sp['llr']:.3f}",
                           "lower": f"{sp['lower']:.3f}", "upper": f"{sp['upper']:.3f}",
                           "played": f"{sp.get(s['mode'], s[unit]):,}"}
        out["run"] = run
    elif kind == "tournament" and s:
        best = max(s["ratings"], key=lambda r: r["estimate"]) if s["ratings"] else None
        out["tournament"] = {"strategies": len(s["strategies"]), "rules": s["rules"],
                             "games": f"{s['games_per_pair']:,}", "seed": s["seed"],
                             "best": best and {"label": best["label"], "rating": f"{best['estimate']:+.1f}",
                                               "ci": _ci_text(best["lo"], best["hi"], "{:+.1f}")}}
    elif kind == "skill" and s:
        shares = sorted((x for x in s["skill"] if x["metric"] == "skill_share" and x["estimate"] is not None),
                        key=lambda x: -x["estimate"])
        out["skill"] = {"ladder": " < ".join(s["labels"]), "rulesets": len(s["rulesets"]),
                        "games": f"{s['games_per_pair']:,}", "seed": s["seed"],
                        "shares": [{"label": x["label"], "estimate": f"{x['estimate']:.3f}",
                                    "ci": _ci_text(x["lo"], x["hi"], "{:.3f}")} for x in shares]}
    elif kind == "compare" and s:
        from ..series.compare import no_effect_text

        no_effect = s.get("no_effect") or []
        flagged = {x["label"] for x in no_effect}
        wins = [{"label": x["label"], "estimate": _num(x["estimate"], "{:+.4f}"),
                 "ci": _ci_text(x["lo"], x["hi"], "{:+.4f}"), "no_effect": x["label"] in flagged}
                for x in s["effects"] if x["metric"] == "win_rate"]
        out["compare"] = {"no_effect": [{"label": x["label"], "reason": no_effect_text(s, x)} for x in no_effect],
                          "strategies": " vs ".join(s["strategies"]), "rulesets": len(s["rulesets"]),
                          "reference": s["rulesets"][0]["label"] if s["rulesets"] else "–",
                          "games": f"{s['games_per_ruleset']:,}", "seed": s["seed"], "wins": wins,
                          "first": (s.get("labels") or s["strategies"] or ["–"])[0]}
    return out


def people_tables(kind: str, tables: dict) -> list[tuple[str, object, str]]:
    """``(caption, frame for people, download name)`` per table: human names, rounded in the page."""
    import polars as pl

    from ..series.compare import describe_metric

    out = []
    s = tables.get("_summary") or {}
    labels = s.get("labels") or None

    def described(m: str) -> str:
        if kind == "run" and m == "win_rate":  # each player's own row: the label column says whose
            return _("game win rate")
        return describe_metric(m, labels)[0]

    def named(df):
        if "metric" not in df.columns:
            return df
        return df.with_columns(pl.col("metric").map_elements(described, return_dtype=pl.String).alias("quantity"),
                               pl.col("label").replace({"all": _("all players")})) \
                 .select("label", "quantity", *[c for c in df.columns if c not in ("label", "metric")])

    if kind == "skill":
        if "skill" in tables:
            from ..series.skill import METRIC_TEXT

            out.append((_("Per ruleset (95% CIs, the deal as unit)"), tables["skill"].with_columns(
                pl.col("metric").map_elements(lambda m: " ".join(_(x) for x in METRIC_TEXT.get(m, (m, "")) if x)
                                              .replace(_(" (closest step)"), "").strip(), return_dtype=pl.String)
                .alias("quantity")).select("label", "quantity", "estimate", "lo", "hi").rename({"label": "ruleset"}),
                        "skill"))
        if "skill_effects" in tables and tables["skill_effects"].height:
            out.append((_("Skill share minus the first ruleset's, paired by deal (95% CI)"),
                        tables["skill_effects"].select("label", "estimate", "lo", "hi").rename({"label": "ruleset"}),
                        "skill_effects"))
        if "skill_steps" in tables:
            out.append((_("Steps between ladder neighbours: rating difference, the upper one's game W/D/L shares, "
                          "and the games and hands it needs to win a match with 95% probability"), tables["skill_steps"],
                        "skill_steps"))
        if "skill_ratings" in tables:
            out.append((_("Ratings per ruleset (Bradley-Terry, Elo scale, mean 0; 95% CI)"),
                        tables["skill_ratings"], "skill_ratings"))
        return out
    if kind == "tournament":
        if "ratings" in tables:
            out.append((_("Ratings (Bradley-Terry, Elo scale, mean 0; 95% CI)"),
                        tables["ratings"].select("label", "estimate", "lo", "hi")
                        .rename({"estimate": "rating"}).sort("rating", descending=True), "ratings"))
        if "pairs" in tables:
            out.append((_("Pairs: row against column (games, W/D/L, score = games won / played, points per hand "
                          "difference; 95% CIs)"), tables["pairs"], "pairs"))
        return out
    if "estimates" in tables and tables["estimates"].height:
        out.append((_("Estimates (95% CIs, the deal as unit)"), named(tables["estimates"]), "estimates"))
    if "effects" in tables and tables["effects"].height:
        out.append((_("Paired differences vs the first ruleset, on the same deals (95%)"), named(tables["effects"]),
                    "effects"))
    return out


def provenance(kind: str, manifest: dict) -> dict:
    keys = ("version", "engine", "rules", "rules_digest", "seed", "strategies", "n", "chunk_size", "argv")
    prov = {"kind": kind, **{k: manifest[k] for k in keys if k in manifest}}
    if kind == "run":
        prov["spec"] = manifest.get("spec")
    if "rulesets" in manifest:
        prov["rulesets"] = [{k: r[k] for k in ("label", "rules", "rules_digest")} for r in manifest["rulesets"]]
    prov["report_version"] = __version__
    return prov


def _environment():
    import jinja2
    import markupsafe

    # autoescape on every template: a value reaches the page only escaped (html.escape's entities, so
    # the page is the one string building gave); only the static CSS and scripts are markup
    def finalize(v):
        return v if isinstance(v, markupsafe.Markup) else markupsafe.Markup(html.escape(str(v)))

    def say(message: str, **values) -> markupsafe.Markup:
        """A message of the catalogue (trusted: it may hold <strong>, <code>) with its ``{values}`` escaped."""
        return markupsafe.Markup(_(message)).format(**values)

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, finalize=finalize,
                             undefined=jinja2.StrictUndefined)
    env.globals["_"] = say
    return env


TEMPLATES = Path(__file__).parent / "templates"


def render_page(**context) -> str:
    """The page: ``templates/report.html.j2``, its lines joined (the template's own newlines are layout)."""
    source = (TEMPLATES / "report.html.j2").read_text(encoding="utf-8")
    return _environment().from_string("".join(source.splitlines())).render(lang=current(), **context)


def write_report(d: str | Path, out: str | Path | None = None) -> Path:
    """Render every chart of folder ``d`` to ``out`` (default ``d/report``) and write ``index.html``.

    Every file is written through ``files`` (a temporary, then a rename; never through a symlink):
    within ``d`` for the default ``d/report`` (a symlinked ``d/report`` is refused), within ``out``
    when one is given (the command line is trusted).
    """
    d = Path(d)
    kind, manifest, tables = read_folder(d)
    root = Path(out) if out is not None else d
    out = Path(out) if out is not None else d / "report"
    try:
        make_dirs(out, root)
    except UntrustedFile as e:
        raise ReportError(str(e)) from None
    figures = []
    try:  # the tables' values (a category, a metric) come from the folder: one that cannot be drawn is refused
        for c in chart_list(kind, tables, manifest):
            images = _draw(c)
            for fmt, data in images.items():
                _write(out / f"{c.name}.{fmt}", data, root)
            figures.append({"name": c.name, "title": c.title, "svg": base64.b64encode(images["svg"]).decode()})
        people = [table_context(df, caption, name) for caption, df, name in people_tables(kind, tables)]
    except ReportError:
        raise
    except ValueError as e:
        raise ReportError(_("{tables}: cannot be drawn ({reason}); make the folder again").format(
            tables=d / 'tables', reason=first_line(e))) from None
    titles = {"run": N_("Strategy run"), "compare": N_("Ruleset comparison"), "tournament": N_("Tournament"),
              "skill": N_("Skill ladder")}
    title = _(titles[kind])
    page = render_page(title=title, folder=str(d), folder_name=d.name, figures=figures, tables=people,
                       provenance=json.dumps(provenance(kind, manifest), indent=2),
                       **headline(kind, manifest, tables, str(d)))
    _write(out / "index.html", page.encode("utf-8"), root)
    return out / "index.html"


def _draw(c: Chart) -> dict[str, bytes]:
    """The chart's PNG and SVG; a name with ``$`` that is no valid TeX is drawn as plain text."""
    import matplotlib

    for parse_math in (True, False):
        with matplotlib.rc_context({"text.parse_math": parse_math}):
            fig = charts.new_figure(c.width, c.height)
            c.draw(fig)
            fig.suptitle(c.title, fontsize="medium")
            try:
                return charts.figure_bytes(fig)
            except ValueError:  # matplotlib's mathtext could not parse a label
                if not parse_math:
                    raise
    raise AssertionError("unreachable")


def _write(path: Path, data: bytes, root: Path) -> None:
    try:
        write_bytes(path, data, root)
    except UntrustedFile as e:
        raise ReportError(str(e)) from None
