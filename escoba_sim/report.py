"""``escoba-sim report DIR``: charts (PNG + SVG) and one self-contained HTML page for any results folder.

A folder's ``manifest.json`` says its kind: ``compare`` and ``tournament``
folders carry ``"kind"``; a runner folder (``escoba-sim run --out``) is
recognised by its ``spec``. Each kind is turned into the same tidy tables
(see ``charts``), the charts are drawn from them, and ``DIR/report/`` gets
``NAME.png``/``NAME.svg`` per chart and ``index.html``: CSS inline, charts as
inline ``data:`` SVG images, no external URL, so the page opens offline. A
tiny inline script marks the page ``data-charts-loaded`` once every chart
image has decoded, which the headless-browser test reads.
"""

from __future__ import annotations

import base64
import html
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import __version__, charts

KINDS = ("run", "compare", "tournament")


class ReportError(ValueError):
    """A folder the report cannot read."""


@dataclass
class Chart:
    name: str
    title: str
    draw: Callable  # draw(fig) -> None
    width: float = 6.4
    height: float = 4.0


def folder_kind(manifest: dict) -> str:
    kind = manifest.get("kind")
    if kind is None and "spec" in manifest:
        kind = "run"
    if kind not in KINDS:
        raise ReportError(f"unknown results folder kind {kind!r} (expected one of {', '.join(KINDS)})")
    return kind


def read_folder(d: Path) -> tuple[str, dict, dict]:
    """``(kind, manifest, tables)`` for a results folder."""
    try:
        manifest = json.loads((d / "manifest.json").read_text())
    except FileNotFoundError:
        raise ReportError(f"{d}: no manifest.json; give a run, compare or tournament folder") from None
    except (OSError, ValueError) as e:  # unreadable, not UTF-8, not JSON, nested too deeply
        raise ReportError(f"{d}/manifest.json: cannot read it ({e})") from None
    except RecursionError:
        raise ReportError(f"{d}/manifest.json: not a results manifest (JSON nested too deeply)") from None
    if not isinstance(manifest, dict):
        raise ReportError(f"{d}/manifest.json: not a results manifest (a JSON object)")
    kind = folder_kind(manifest)
    if kind == "run":
        from .runner import RunError

        try:  # the run folder is checked as resume checks it; no strategy code is needed to report it
            return kind, manifest, run_tables(d, manifest)
        except RunError as e:
            raise ReportError(str(e)) from None
    from .compare import read_tables

    tables = read_tables(d)
    if not tables:
        raise ReportError(f"{d}: no tables/ yet; finish the {kind} first")
    return kind, manifest, tables


def run_tables(d: Path, manifest: dict) -> dict:
    """Tidy tables of a runner folder, from its chunk aggregates."""
    import polars as pl

    from . import stats
    from .chunk import merge
    from .runfolder import read_run_chunks, run_spec_of
    from .batch import POINT_COLUMNS, SIDE_COLUMNS
    from .compare import _interval

    spec = run_spec_of(d, manifest)
    aggs = read_run_chunks(d, spec)
    labels = spec.labels()
    T = SIDE_COLUMNS.index("total")
    merged = None
    for a in aggs:
        merged = merge(merged, a)
    est, conv = [], []

    def ratio(ys, xs):
        r, se = stats.ratio_mean(sum(ys), sum(xs), sum(y * y for y in ys), sum(y * x for y, x in zip(ys, xs)),
                                 sum(x * x for x in xs), len(xs))
        return (r, *_interval(r, se))

    hands = [int(a["hands"][0]) for a in aggs]
    games = [int(a["games"][0]) for a in aggs]
    for e, who in enumerate(labels):
        est.append((who, "total", *ratio([int(a["points"][e, T]) for a in aggs], hands)))
        if sum(games):
            wins = [int(a["game_wins"][e]) for a in aggs]
            est.append((who, "win_rate", *ratio(wins, games)))
            if e == 0:
                conv += [(who, k, float(w), float(g)) for k, (w, g) in enumerate(zip(wins, games))]
        if spec.entrants == 2 or spec.rules.teams:
            adv = [int(a["pos_points"][e, 1, T]) for a in aggs]
            dea = [int(a["pos_points"][e, 0, T]) for a in aggs]
            nm = [int(a["pos_x1"][e, 1]) for a in aggs]
            nd = [int(a["pos_x1"][e, 0]) for a in aggs]
            d_, se = stats.paired_ratio_diff(adv, nm, dea, nd)
            est.append((who, "seat_advantage", d_, *_interval(d_, se)))
    if sum(games):
        est.append(("all", "hands_per_game", *ratio(hands, games)))
    schema = {"label": pl.String, "metric": pl.String, "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}
    cats = [(who, c, int(merged["points"][e, SIDE_COLUMNS.index(c)]) / max(1, int(merged["hands"][0])))
            for e, who in enumerate(labels) for c in POINT_COLUMNS]
    count_schema = {"label": pl.String, "value": pl.Int64, "count": pl.Int64}
    ph = [(who, b, int(c)) for e, who in enumerate(labels) if merged["points_hist"].size
          for b, c in enumerate(merged["points_hist"][e]) if c]
    hh = [("run", b, int(c)) for b, c in enumerate(merged["game_hands_hist"]) if c]
    return {"estimates": pl.DataFrame(est, schema=schema, orient="row"),
            "categories": pl.DataFrame(cats, schema={"label": pl.String, "category": pl.String,
                                                     "points": pl.Float64}, orient="row"),
            "points_hist": pl.DataFrame(ph, schema=count_schema, orient="row"),
            "hands_hist": pl.DataFrame(hh, schema=count_schema, orient="row"),
            "convergence": pl.DataFrame(conv, schema={"label": pl.String, "chunk": pl.Int64, "numer": pl.Float64,
                                                      "denom": pl.Float64}, orient="row")}


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
    from .compare import describe_metric

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
            charts.plot_effects(ax, df.filter(pl.col("metric") == m), xlabel=f"difference in {unit}",
                                label_col="label")
            ax.set_title(what, fontsize="small")
        for ax in list(axes.flat)[len(metrics):]:  # an odd count leaves one empty slot: no empty panel
            fig.delaxes(ax)
    return Chart("effects", "Variant effects: paired difference vs the first ruleset on the same deals "
                            "(95% interval; dark = excludes 0)", draw, width=11.0, height=0.6 + nrows * panel_h)


def chart_list(kind: str, tables: dict, manifest: dict | None = None) -> list[Chart]:
    """Every chart a folder's tables support, in page order (``manifest`` names the players in titles)."""
    import polars as pl

    manifest = manifest or {}
    players = manifest.get("strategies") or []
    if kind == "run":
        players = (manifest.get("spec") or {}).get("strategies") or players
    first = players[0] if players else "the first player"
    out: list[Chart] = []
    est = tables.get("estimates")
    if est is not None:
        wr = charts.prep_win_rates(est)
        if wr.height:
            title = {"compare": f"Game win rate of {first} against {', '.join(players[1:]) or 'its opponent'}, "
                                "per ruleset (95% interval)",
                     "tournament": "Game win rate against all opponents (95% Wilson interval)"}.get(
                         kind, "Game win rate per player (95% interval)")
            out.append(_ax_chart("win_rates", title, wr, charts.plot_win_rates,
                                 height=1.5 + 0.4 * wr.height, xlabel="share of games won (dashed: 0.5)"))
    if kind == "tournament" and "ratings" in tables:
        r = charts.prep_metric(tables["ratings"], "rating")
        out.append(_ax_chart("ratings", "Bradley-Terry rating, Elo scale (95% bootstrap interval)", r,
                             charts.plot_intervals, height=1.5 + 0.4 * r.height,
                             xlabel="rating (Elo points, mean 0)", reference=0.0))
    if kind == "tournament" and "crosstable" in tables:
        ct = charts.prep_crosstable(tables["crosstable"].with_columns(pl.col("value") - 0.5))
        out.append(_ax_chart("crosstable", "Crosstable: row's game score minus 0.5 against the column", ct,
                             charts.plot_crosstable, width=6.0, height=5.0, value_label="score - 0.5"))
    if "categories" in tables and tables["categories"].height:
        c = charts.prep_points_by_category(tables["categories"])
        n_bars = c["label"].n_unique()
        longest = max(len(x) for x in c["label"].unique().to_list())
        out.append(_ax_chart("points_by_category", "Expected points per hand by category", c,
                             charts.plot_points_by_category, width=max(6.4, 3.2 + 0.75 * n_bars),
                             height=4.0 + (0.07 * longest if n_bars > 4 or longest > 14 else 0.0)))
    if kind == "compare" and "effects" in tables and tables["effects"].height:
        out.append(_effects_chart(tables["effects"], players or None))
    if est is not None:
        sa = charts.prep_metric(est, "seat_advantage")
        if sa.height:
            title = ("Seat advantage: mano's minus dealer's points per hand, both players together"
                     if kind == "compare" else "Seat advantage: points per hand as mano minus as dealer")
            out.append(_ax_chart("seat_advantage", title, sa, charts.plot_intervals, height=1.5 + 0.4 * sa.height,
                                 xlabel="points per hand (dashed: no advantage)", reference=0.0))
    if "points_hist" in tables and tables["points_hist"].height:
        out.append(_ax_chart("points_distribution", "Distribution of points per hand",
                             charts.prep_distribution(tables["points_hist"]), charts.plot_distribution,
                             xlabel="points in a hand", ylabel="share of hands"))
    if "hands_hist" in tables and tables["hands_hist"].height:
        hh = charts.prep_distribution(tables["hands_hist"])
        title = "Hands per game" + (" (all pairs together)" if kind == "tournament" else "")
        out.append(_ax_chart("hands_per_game", title, hh, charts.plot_distribution, xlabel="hands in a game",
                             ylabel="share of games"))
    if "convergence" in tables and tables["convergence"].height:
        who = "the first-named strategy's win rate in each pair" if kind == "tournament" else f"{first}'s win rate"
        out.append(_ax_chart("convergence", f"Convergence of {who}\n(95% interval, chunks as clusters)",
                             charts.prep_convergence(tables["convergence"]), charts.plot_convergence,
                             ylabel="share of games won", xlabel="games played (log scale)"))
    return out


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4f}"
    return html.escape(str(v))


def html_table(df, caption: str) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in row) + "</tr>" for row in df.iter_rows())
    return f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def provenance(kind: str, manifest: dict) -> dict:
    keys = ("version", "engine", "rules", "rules_digest", "seed", "strategies", "n", "chunk_size", "argv")
    prov = {"kind": kind, **{k: manifest[k] for k in keys if k in manifest}}
    if kind == "run":
        prov["spec"] = manifest.get("spec")
    if "rulesets" in manifest:
        prov["rulesets"] = [{k: r[k] for k in ("label", "rules", "rules_digest")} for r in manifest["rulesets"]]
    prov["report_version"] = __version__
    return prov


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.85em}caption{text-align:left;font-weight:bold;padding:.3em 0}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td:first-child,th:first-child{text-align:left}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}pre{background:#f6f6f6;padding:1em;overflow:auto}"""

# records any script or resource error on <html data-errors>, so a headless browser can report it
ERROR_TRAP = """window.__errors=[];window.addEventListener('error',function(e){window.__errors.push(String(e.message||e.type));
document.documentElement.setAttribute('data-errors',window.__errors.join(' | '));},true);"""

SCRIPT = """(function(){var imgs=document.querySelectorAll('figure.chart img');var n=0;
function done(){n++;if(n===imgs.length){var ok=0;imgs.forEach(function(i){if(i.complete&&i.naturalWidth>0)ok++;});
document.body.setAttribute('data-charts-loaded',String(ok));}}
imgs.forEach(function(i){if(i.complete){done();}else{i.addEventListener('load',done);i.addEventListener('error',done);}});
if(imgs.length===0)document.body.setAttribute('data-charts-loaded','0');})();"""


def write_report(d: str | Path, out: str | Path | None = None) -> Path:
    """Render every chart of folder ``d`` to ``out`` (default ``d/report``) and write ``index.html``."""
    d = Path(d)
    kind, manifest, tables = read_folder(d)
    out = Path(out) if out is not None else d / "report"
    out.mkdir(parents=True, exist_ok=True)
    figures = []
    for c in chart_list(kind, tables, manifest):
        fig = charts.new_figure(c.width, c.height)
        c.draw(fig)
        fig.suptitle(c.title, fontsize="medium")
        png, svg = charts.save_figure(fig, out / c.name)
        data = base64.b64encode(svg.read_bytes()).decode()
        figures.append(f'<figure class="chart" id="chart-{c.name}"><img alt="{html.escape(c.title)}" '
                       f'src="data:image/svg+xml;base64,{data}"><figcaption>{html.escape(c.title)} '
                       f'({c.name}.png, {c.name}.svg)</figcaption></figure>')
    table_html = []
    names = {"estimates": "Estimates (95% intervals)", "effects": "Paired differences vs the first ruleset (95%)",
             "pairs": "Crosstable: row against column (score = games won / played)",
             "ratings": "Ratings (Elo scale, Bradley-Terry; 95% bootstrap interval)"}
    for key, caption in names.items():
        if key in tables and tables[key].height:
            table_html.append(html_table(tables[key], caption))
    prov = provenance(kind, manifest)
    title = f"escoba-sim {kind} report"
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<script>{ERROR_TRAP}</script><style>{CSS}</style></head><body data-charts=\"{len(figures)}\">"
            f"<h1>{html.escape(title)}</h1><p>Folder: <code>{html.escape(d.name)}</code></p>"
            f"<h2>Charts</h2>{''.join(figures)}<h2>Tables</h2>{''.join(table_html)}"
            f"<h2>Provenance</h2><pre id=\"provenance\">{html.escape(json.dumps(prov, indent=2))}</pre>"
            f"<script>{SCRIPT}</script></body></html>\n")
    (out / "index.html").write_text(page)
    return out / "index.html"
