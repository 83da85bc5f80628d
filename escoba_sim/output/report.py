"""``escoba-sim report DIR``: charts (PNG + SVG) and one self-contained HTML page for any results folder.

A folder's ``manifest.json`` says its kind: a series folder (compare,
tournament, skill) carries ``"kind"``; a runner folder (``escoba-sim run --out``)
is recognised by its ``spec``. Each kind is turned into the same tidy tables
(see ``charts``), the charts are drawn from them, and ``DIR/report/`` gets
``NAME.png``/``NAME.svg`` per chart and ``index.html``: CSS inline, charts as
inline ``data:`` SVG images, no external URL, so the page opens offline. A
tiny inline script marks the page ``data-charts-loaded`` once every chart
image has decoded, which the headless-browser test reads.

Reading and checking the folder is ``report_folder`` (a folder is untrusted input,
docs/security.md); which charts each kind gets is ``report_charts``, what the page says of it
``report_sections`` (each kind's, named by its view: ``views``). This module writes the page: a Jinja2 template (``templates/report.html.j2``) rendered with
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
from .console import STATUS_TEXT, word
from .report_folder import Chart, ReportError
from .views import VIEWS, chart_list, read_folder


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
    rows = [list(row) for row in df.iter_rows()]
    import polars as pl

    text = [df[c].dtype == pl.String for c in df.columns]  # words, set to the left (numbers to the right)
    if main is not None and any(c in df.columns for c in ("quantity", "metric")):
        # each row a quantity of its own (a skill share beside games to win): its estimate and interval get
        # the decimals of their own size, not the column's largest (0.488 [0.466, 0.510] read 0.5 0.5 0.5)
        own = [i for i, c in enumerate(df.columns) if df[c].dtype.is_float() and base(c) == main]
        return {"caption": caption, "download": download, "csv": csv, "text": text,
                "columns": [column_head(c) for c in df.columns],
                "rows": [[_cell(v, column_decimals([row[i] for i in own]) if k in own else d)
                          for k, (v, d) in enumerate(zip(row, decimals))] for row in rows]}
    return {"caption": caption, "download": download, "csv": csv, "text": text,
            "columns": [column_head(c) for c in df.columns],
            "rows": [[_cell(v, d) for v, d in zip(row, decimals)] for row in rows]}


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
    "hands_to_win_hi": N_("hands to win high (95%)"), "reading": N_("how to read it"),
}


def column_head(name: str) -> str:
    """A table column's name as a person reads it (the CSV keeps the name); an unknown name as it is."""
    return _(COLUMN_HEADS[name]) if name in COLUMN_HEADS else name


def headline(kind: str, manifest: dict, tables: dict, folder: str = "DIR") -> dict:
    """What was played and who came out ahead, by how much, with the interval (the page's first section),
    as values for the page's template (which escapes each of them): its kind's (``views``), under the kind's
    name."""
    view = VIEWS[kind]
    done = tables.get("_completeness") or {}
    out: dict = {"partial": None, **{k: None for k in VIEWS}}
    if done.get("partial"):
        missing = ", ".join(str(m) for m in (done.get("missing") or [])[:8]) or "–"
        out["partial"] = {"status": word(STATUS_TEXT, str(done.get("status"))), "what": view.played(done),
                          "missing": missing}
    s = tables.get("_summary")
    if s:
        out[kind] = view.headline(s)
    return out


def people_tables(kind: str, tables: dict) -> list[tuple[str, object, str]]:
    """``(caption, frame for people, download name)`` per table: human names, rounded in the page (its kind's,
    ``views``)."""
    return VIEWS[kind].tables(tables)


def provenance(kind: str, manifest: dict) -> dict:
    keys = ("version", "engine", "rules", "rules_digest", "seed", "strategies", "n", "chunk_size", "argv")
    prov = {"kind": kind, **{k: manifest[k] for k in keys if k in manifest}}
    prov.update({k: manifest.get(k) for k in VIEWS[kind].provenance})
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
    title = _(VIEWS[kind].title)
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
