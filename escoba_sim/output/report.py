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

from .. import __version__
from . import charts

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
        raise ReportError(f"unknown results folder kind {kind!r} (expected one of {', '.join(KINDS)})")
    return kind


def read_folder(d: Path) -> tuple[str, dict, dict]:
    """``(kind, manifest, tables)`` for a results folder."""
    from ..files import UntrustedFile, read_json_object

    if not (d / "manifest.json").exists():
        raise ReportError(f"{d}: no manifest.json; give a run, compare or tournament folder")
    try:  # untrusted: a regular file, bounded, a JSON object
        manifest = read_json_object(d / "manifest.json", what="a results manifest (a JSON object)")
    except UntrustedFile as e:
        raise ReportError(str(e)) from None
    kind = folder_kind(manifest)
    if kind == "run":
        from ..runs.spec import RunError

        try:  # the run folder is checked as resume checks it; no strategy code is needed to report it
            return kind, manifest, run_tables(d, manifest)
        except RunError as e:
            raise ReportError(str(e)) from None
    from ..runs.spec import RunError
    from ..series.tables import read_results, series_completeness

    try:  # the tables and summary.json, each checked against the checksum the manifest keeps
        tables = read_results(d, manifest)
    except RunError as e:
        raise ReportError(str(e)) from None
    tables.setdefault("_summary", None)
    tables["_completeness"] = series_completeness(d, manifest, bool(tables.get("_summary")))
    return kind, manifest, tables


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
    from ..series.tables import category_frame, convergence_frame, count_frame, count_rows, estimate_frame, interval

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
            raise ReportError(f"{d}: chunk {k} is {e}; repair it with: escoba-sim resume {d}") from None
        a.pop("deal_score", None)
        merged = merge(merged, a)
        S, G, n = merged["deal_sum"], merged["deal_gram"], int(merged["clusters"][0])
        if int(merged["games"][0]):  # every player's running win rate
            for e, who in enumerate(labels):
                one = lambda col: stats.unit(lay.core_size, col)  # noqa: E731
                r, se = stats.deal_ratio(S, G, n, one(lay.won(e)), one(lay.games))
                conv.append((who, k + 1, float(merged["games"][0]), r, *interval(r, se)))
    if merged is None:
        raise ReportError(f"{d}: no finished chunk yet; nothing to report (continue it with: escoba-sim resume {d})")
    run_status = "stopped-by-sprt" if status == "stopped-by-sprt" else \
        "complete" if used == spec.n_chunks else "incomplete"
    summary = summarize(spec, merged, used, run_status)
    if spec.sprt is not None and (d / "summary.json").exists():
        from ..files import UntrustedFile, read_json_object

        try:
            summary["sprt"] = read_json_object(d / "summary.json").get("sprt")
        except UntrustedFile:
            pass
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
                     "tournament": "Game win rate against all opponents (95% interval)"}.get(
                         kind, "Game win rate per player (95% interval)")
            out.append(_ax_chart("win_rates", title, wr, charts.plot_win_rates,
                                 height=1.5 + 0.4 * wr.height, xlabel="share of games won (dashed: 0.5)"))
    if kind == "tournament" and "ratings" in tables:
        r = charts.prep_metric(tables["ratings"], "rating")
        out.append(_ax_chart("ratings", "Bradley-Terry rating, Elo scale (95% interval, the deal as unit)", r,
                             charts.plot_intervals, height=1.5 + 0.4 * r.height,
                             xlabel="rating (Elo points, mean 0)", reference=0.0))
    if kind == "tournament" and "crosstable" in tables:
        ct = charts.prep_crosstable(tables["crosstable"].with_columns(pl.col("value") - 0.5))
        longest = max(len(x) for x in ct["label"].to_list())
        side = 3.0 + 0.6 * ct.height + 0.075 * longest
        out.append(_ax_chart("crosstable", "Crosstable: row's game score minus 0.5 against the column", ct,
                             charts.plot_crosstable, width=side + 1.5, height=side, value_label="score - 0.5"))
    if "categories" in tables and tables["categories"].height:
        c = charts.prep_points_by_category(tables["categories"])
        n_bars = c["label"].n_unique()
        longest = max(len(x) for x in c["label"].unique().to_list())
        out.append(_ax_chart("points_by_category", "Expected points per hand by category", c,
                             charts.plot_points_by_category, width=max(7.5, 5.5 + 0.075 * longest),
                             height=1.8 + 0.42 * max(n_bars, 4)))
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
    conv = tables.get("convergence")
    if conv is not None and conv.height and conv["chunks"].n_unique() >= 3:  # a line needs a few points
        who = ("the first-named strategy's win rate in each pair" if kind == "tournament" else
               "each player's win rate" if kind == "run" else f"{first}'s win rate")
        out.append(_ax_chart("convergence", f"Convergence of {who}\n(95% interval, the deal as unit)",
                             charts.prep_convergence(tables["convergence"]), charts.plot_convergence,
                             ylabel="share of games won", xlabel="games played (log scale)", width=8.0))
    return out


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    if isinstance(v, int):
        return f"{v:,}"
    return html.escape(str(v))


def html_table(df, caption: str, download: str | None = None) -> str:
    """A table for people; with ``download`` the frame's raw values as a CSV link (``data:`` URL)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in row) + "</tr>" for row in df.iter_rows())
    link = ""
    if download is not None:
        data = base64.b64encode(df.write_csv().encode()).decode()
        link = f' <a download="{download}.csv" href="data:text/csv;base64,{data}">raw data (CSV)</a>'
    return (f"<table><caption>{html.escape(caption)}{link}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _pct(x) -> str:
    """A probability for people: never 0.0% or 100.0% for what is only small or large."""
    if x is None:
        return "–"
    if 0 <= x < 0.001:
        return "&lt;0.1%"
    if 0.999 < x <= 1:
        return "&gt;99.9%"
    return f"{100 * x:.1f}%"


def _ci_text(lo, hi, f="{:.4f}") -> str:
    """An interval; a missing end is unbounded (an Elo interval reaching a score of 0 or 1)."""
    return f"[{'−∞' if lo is None else f.format(lo)}, {'+∞' if hi is None else f.format(hi)}]"


def _elo(x) -> str:
    return "±∞" if x is None else f"{x:+.1f}"


def headline(kind: str, manifest: dict, tables: dict, folder: str = "DIR") -> str:
    """What was played and who came out ahead, by how much, with the interval (the page's first section)."""
    e = html.escape
    done = tables.get("_completeness") or {}
    parts = []
    if done.get("partial"):
        what = (f"{done.get('chunks_used', 0)} of {done.get('chunks_planned', 0)} chunks, in deal order"
                if kind == "run" else f"{done.get('runs_done', 0)} of {done.get('runs_planned', 0)} runs finished")
        missing = ", ".join(str(m) for m in (done.get("missing") or [])[:8]) or "–"
        parts.append(f'<p class="partial"><strong>Partial result</strong> ({e(str(done.get("status")))}): '
                     f'{e(what)}; missing: {e(missing)}. Finish it with <code>escoba-sim resume {e(folder)}</code>.</p>')
    s = tables.get("_summary")
    if kind == "run" and s:
        ents = s["entrants"]
        unit = "games" if s["mode"] == "games" else "hands"
        parts.append(f"<p>{e(' vs '.join(x['strategy'] for x in ents))} under <code>{e(s['rules'])}</code>: "
                     f"{s[unit]:,} {unit} ({s['deals']:,} deals, {s['pairing']} pairing), seed {s['seed']}.</p>")
        el = s.get("elo")
        if el and el.get("score") is not None:
            a, b = ents[0]["label"], ents[1]["label"]
            ahead = a if el["score"] > 0.5 else b if el["score"] < 0.5 else None
            w, dr, lo = el.get("wdl") or [0, 0, 0]
            lead = f"<strong>{e(ahead)} came out ahead</strong>" if ahead else "<strong>dead even</strong>"
            parts.append(
                f'<p class="headline">{lead}: score of {e(a)} {el["score"]:.4f} '
                f'{_ci_text(*el["score_ci95"])}, Elo {_elo(el["elo"])} {_ci_text(*el["elo_ci95"], f="{:+.1f}")}, '
                f'likelihood of superiority {_pct(el["los"])}; W/D/L {w:,}/{dr:,}/{lo:,} ({e(el["unit"])}).</p>')
        for d in s["differences"]:
            p = d["points_per_hand"]
            parts.append(f"<p>Points per hand, {e(d['label'])}: {p['mean']:+.4f} {_ci_text(*p['ci95'], f='{:+.4f}')}"
                         "</p>")
        sp = s.get("sprt")
        if sp:
            llr = sp["llr"] if isinstance(sp["llr"], str) else f"{sp['llr']:.3f}"
            parts.append(f"<p>SPRT elo0={sp['elo0']:g}, elo1={sp['elo1']:g} (alpha {sp['alpha']:g}, beta "
                         f"{sp['beta']:g}): <strong>{e(sp['decision'] or 'undecided')}</strong>, LLR {llr} in "
                         f"[{sp['lower']:.3f}, {sp['upper']:.3f}] after {sp.get(s['mode'], s[unit]):,} {unit}.</p>")
    elif kind == "tournament" and s:
        best = max(s["ratings"], key=lambda r: r["estimate"])
        parts.append(f"<p>Round robin of {len(s['strategies'])} strategies under <code>{e(s['rules'])}</code>: "
                     f"{s['games_per_pair']:,} games per pair on the same duplicate deals, seed {s['seed']}.</p>")
        parts.append(f'<p class="headline"><strong>{e(best["label"])} is rated highest</strong>: '
                     f'{best["estimate"]:+.1f} Elo {_ci_text(best["lo"], best["hi"], "{:+.1f}")} (Bradley-Terry, '
                     f"mean 0).</p>")
    elif kind == "compare" and s:
        parts.append(f"<p>{e(' vs '.join(s['strategies']))} on the same deals under {len(s['rulesets'])} rulesets "
                     f"(reference {e(s['rulesets'][0]['label'])}): {s['games_per_ruleset']:,} games each, "
                     f"seed {s['seed']}.</p>")
        wins = [x for x in s["effects"] if x["metric"] == "win_rate"]
        if wins:
            items = "".join(f"<li>{e(x['label'])}: {x['estimate']:+.4f} {_ci_text(x['lo'], x['hi'], '{:+.4f}')}"
                            "</li>" for x in wins)
            parts.append(f'<p class="headline">Effect on the game win rate of {e(s["labels"][0])} '
                         f"(paired by deal, 95% interval):</p><ul>{items}</ul>")
    return "".join(parts) or "<p>No finished result yet.</p>"


def people_tables(kind: str, tables: dict) -> list[tuple[str, object, str]]:
    """``(caption, frame for people, download name)`` per table: human names, rounded in the page."""
    import polars as pl

    from ..series.compare import describe_metric

    out = []
    s = tables.get("_summary") or {}
    labels = s.get("labels") or None

    def named(df):
        if "metric" not in df.columns:
            return df
        return df.with_columns(pl.col("metric").map_elements(lambda m: describe_metric(m, labels)[0],
                                                             return_dtype=pl.String).alias("quantity")) \
                 .select("label", "quantity", *[c for c in df.columns if c not in ("label", "metric")])

    if kind == "tournament":
        if "ratings" in tables:
            out.append(("Ratings (Bradley-Terry, Elo scale, mean 0; 95% interval)",
                        tables["ratings"].select("label", "estimate", "lo", "hi")
                        .rename({"estimate": "rating"}).sort("rating", descending=True), "ratings"))
        if "pairs" in tables:
            out.append(("Pairs: row against column (games, W/D/L, score = games won / played, points per hand "
                        "difference; 95% intervals)", tables["pairs"], "pairs"))
        return out
    if "estimates" in tables and tables["estimates"].height:
        out.append(("Estimates (95% intervals, the deal as unit)", named(tables["estimates"]), "estimates"))
    if "effects" in tables and tables["effects"].height:
        out.append(("Paired differences vs the first ruleset, on the same deals (95%)", named(tables["effects"]),
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


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.85em}caption{text-align:left;font-weight:bold;padding:.3em 0}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td:first-child,th:first-child{text-align:left}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}pre{background:#f6f6f6;padding:1em;overflow:auto}
.headline{font-size:1.15em}.partial{background:#fff3cd;border:1px solid #e0c060;padding:.5em}"""

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
    table_html = [html_table(df, caption, name) for caption, df, name in people_tables(kind, tables)]
    prov = provenance(kind, manifest)
    title = {"run": "Strategy run", "compare": "Ruleset comparison", "tournament": "Tournament"}[kind]
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<script>{ERROR_TRAP}</script><style>{CSS}</style></head><body data-charts=\"{len(figures)}\">"
            f"<h1>{html.escape(title)}</h1><section id=\"headline\">{headline(kind, manifest, tables, str(d))}</section>"
            f"<h2>Charts</h2>{''.join(figures)}<h2>Tables</h2>{''.join(table_html)}"
            f"<h2>Provenance</h2><p>Folder: <code>{html.escape(d.name)}</code></p>"
            f"<pre id=\"provenance\">{html.escape(json.dumps(prov, indent=2))}</pre>"
            f"<script>{SCRIPT}</script></body></html>\n")
    (out / "index.html").write_text(page)
    return out / "index.html"
