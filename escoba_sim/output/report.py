"""``escoba-sim report DIR``: charts (PNG + SVG) and one self-contained HTML page for any results folder.

A folder's ``manifest.json`` says its kind: ``compare`` and ``tournament``
folders carry ``"kind"``; a runner folder (``escoba-sim run --out``) is
recognised by its ``spec``. Each kind is turned into the same tidy tables
(see ``charts``), the charts are drawn from them, and ``DIR/report/`` gets
``NAME.png``/``NAME.svg`` per chart and ``index.html``: CSS inline, charts as
inline ``data:`` SVG images, no external URL, so the page opens offline. A
tiny inline script marks the page ``data-charts-loaded`` once every chart
image has decoded, which the headless-browser test reads.

Reading and checking the folder is ``report_folder`` (a folder is untrusted input,
docs/security.md); which charts each kind gets is ``report_charts``. This module
writes the page: a Jinja2 template (``templates/report.html.j2``) rendered with
autoescape, so every value that reaches it is escaped. Every file is written
through ``files`` (never through a symlink, never outside the folder).
"""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path

from .. import __version__
from ..files import UntrustedFile, first_line, make_dirs, write_bytes
from ..i18n import N_, current
from ..i18n import translate as _
from . import charts
from .console import DECISION_TEXT, PAIRING_TEXT, STATUS_TEXT, UNIT_TEXT, word
from .report_charts import chart_list
from .report_folder import Chart, ReportError, read_folder


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
