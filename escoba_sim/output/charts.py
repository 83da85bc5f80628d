"""Charts for reports: data preparation (Polars in, Polars out) kept apart from drawing.

Each chart is two functions. ``prep_*`` takes a small tidy Polars frame (the
tables a report already holds) and returns exactly the rows and columns the
drawing needs; it is pure and unit-tested on tiny frames. ``plot_*(ax, df)``
draws that frame on a matplotlib ``Axes`` and nothing else, so a chart can be
placed in any figure. ``save_figure`` writes PNG and SVG reproducibly (fixed
``svg.hashsalt``, no dates or software versions in the metadata), so the same
data gives byte-identical files.

The frames the prep functions take:

- estimate frame: ``label, metric, estimate, lo, hi`` (one row per quantity,
  ``lo``/``hi`` the 95 % interval);
- category frame: ``label, category, points`` (points per hand, categories
  named as the columns of ``escoba_sim.game.columns.POINT_COLUMNS``);
- count frame: ``label, value, count`` (a histogram, e.g. points per hand or
  hands per game);
- pair frame: ``row, col, value`` (a crosstable cell: row's result against col);
- convergence frame: ``label, chunks, n, estimate, lo, hi``: the running
  estimate after each chunk (deals in order) with its 95 % interval, computed
  by the deal model (``stats``) where the per-deal sums are, never here.

One axes never holds more lines than ``PALETTE`` has colours: convergence beyond a few
lines, and distributions beyond the palette, are drawn as small multiples (one panel per
label, shared scales), so no two lines share a colour and no band hides another.

The frames are built with the schemas of ``series.tables`` (``estimate_frame``,
``category_frame``, ``count_frame``, ``convergence_frame``).

Polars and matplotlib are imported inside the functions, so importing this
module stays cheap for the CLI.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..game.columns import CATEGORY_TEXT, POINT_COLUMNS
from ..i18n import N_
from ..i18n import translate as _

SVG_HASHSALT = "escoba-sim"
# Tableau 10: the colours of the lines of one axes; an axes never holds more lines than this has colours
# (``CONVERGENCE_LINES`` keeps convergence to a few, beyond which it is drawn as small multiples)
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac")
CONVERGENCE_LINES = 3  # more labels than this: one small panel each (bands of more lines hide each other)
CATEGORY_COLORS = {"escobas": "#4e79a7", "siete_oros": "#f28e2b", "sevens": "#e15759", "oros": "#edc948",
                   "cards": "#59a14f", "bonus": "#b07aa1"}


# --- data preparation -----------------------------------------------------------------------

def prep_metric(est, metric: str):
    """Rows of one metric from an estimate frame, in their original order: ``label, estimate, lo, hi``."""
    import polars as pl

    return est.filter(pl.col("metric") == metric).select("label", "estimate", "lo", "hi")


def prep_win_rates(est):
    """Win rates with their intervals (metric ``win_rate``), one row per label."""
    return prep_metric(est, "win_rate")


def prep_points_by_category(cat):
    """Stack points per hand by category: adds ``bottom`` (where each segment starts) per label.

    Categories are put in ``POINT_COLUMNS`` order whatever order they come in, and
    categories absent from the frame are dropped; labels keep their first-seen order.
    """
    import polars as pl

    order = {c: i for i, c in enumerate(POINT_COLUMNS)}
    unknown = set(cat["category"].unique().to_list()) - set(order)
    if unknown:
        raise ValueError(f"unknown point categories: {sorted(unknown)}")
    labels = cat["label"].unique(maintain_order=True).to_list()
    out = (cat.with_columns(pl.col("category").replace_strict(order, return_dtype=pl.Int32).alias("_c"),
                            pl.col("label").replace_strict({l: i for i, l in enumerate(labels)},
                                                           return_dtype=pl.Int32).alias("_l"))
              .sort("_l", "_c")
              .with_columns((pl.col("points").cum_sum().over("_l") - pl.col("points")).alias("bottom"))
              .select("label", "category", pl.col("points").cast(pl.Float64), pl.col("bottom").cast(pl.Float64)))
    return out


def prep_effects(est, metrics: list[str] | None = None):
    """Paired differences for a forest plot: ``row`` text, interval, and whether it excludes 0.

    Keeps the given metrics (all when None) in the given order, labels in first-seen order.
    """
    import polars as pl

    if metrics is not None:
        est = est.filter(pl.col("metric").is_in(metrics))
        rank = {m: i for i, m in enumerate(metrics)}
        est = est.with_row_index("_i").with_columns(
            pl.col("metric").replace_strict(rank, return_dtype=pl.Int32).alias("_m")).sort("_m", "_i")
    return est.select(
        (pl.col("metric") + pl.lit(": ") + pl.col("label")).alias("row"), "label", "metric", "estimate", "lo", "hi",
        ((pl.col("lo") > 0) | (pl.col("hi") < 0)).alias("excludes_zero"))


def prep_distribution(counts):
    """A histogram per label as shares: ``label, value, count, share`` sorted by label order then value."""
    import polars as pl

    labels = counts["label"].unique(maintain_order=True).to_list()
    return (counts.group_by("label", "value").agg(pl.col("count").sum())
                  .with_columns(pl.col("label").replace_strict({l: i for i, l in enumerate(labels)},
                                                               return_dtype=pl.Int32).alias("_l"))
                  .sort("_l", "value")
                  .with_columns((pl.col("count") / pl.col("count").sum().over("label")).alias("share"))
                  .select("label", "value", "count", "share"))


def prep_crosstable(pairs, order: list[str] | None = None):
    """A square crosstable: one row per player (``label``), one column per opponent; the diagonal is null.

    ``order`` fixes the players' order (default: first-seen over ``row`` then ``col``).
    """
    import polars as pl

    if order is None:
        order = list(dict.fromkeys(pairs["row"].to_list() + pairs["col"].to_list()))
    cells = {(r, c): v for r, c, v in pairs.select("row", "col", "value").iter_rows()}
    data = {"label": order}
    for c in order:
        data[c] = [None if r == c else cells.get((r, c)) for r in order]
    return pl.DataFrame(data, schema={"label": pl.String, **{c: pl.Float64 for c in order}})


def prep_convergence(frame):
    """The convergence frame in drawing order: by label, then by chunks; undefined intervals null."""
    import polars as pl

    return frame.sort("chunks", maintain_order=True).with_columns(
        pl.when(pl.col("lo").is_nan()).then(None).otherwise(pl.col("lo")).alias("lo"),
        pl.when(pl.col("hi").is_nan()).then(None).otherwise(pl.col("hi")).alias("hi"))


# --- drawing ---------------------------------------------------------------------------------

def plot_intervals(ax, df, *, xlabel: str = "", reference: float | None = None, label_col: str = "label",
                   colors: list[str] | None = None):
    """A forest plot: one point with a horizontal 95 % interval per row (one errorbar each), first row on top."""
    n = df.height
    ys = list(range(n))[::-1]
    for i, (e, lo, hi) in enumerate(df.select("estimate", "lo", "hi").iter_rows()):
        lo, hi = (e if lo is None else lo), (e if hi is None else hi)
        c = colors[i] if colors else "#4e79a7"
        ax.errorbar([e], [ys[i]], xerr=[[e - lo], [hi - e]], fmt="o", color=c, ecolor=c, capsize=3)
    if reference is not None:
        ax.axvline(reference, color="#888888", lw=1, ls="--")
    ax.set_yticks(ys, df[label_col].to_list())
    ax.set_xlabel(_(xlabel) if xlabel else "")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_win_rates(ax, df, *, xlabel: str = N_("game win rate (95% CI)")):
    """Win rate per label as bars with 95 % interval whiskers; a dashed line at 0.5."""
    labels = df["label"].to_list()
    est = df["estimate"].to_list()
    ys = list(range(len(labels)))[::-1]
    # an interval needs two chunks or more; without one the whisker is empty
    err = [[0.0 if l is None else e - l for e, l in zip(est, df["lo"].to_list())],
           [0.0 if h is None else h - e for e, h in zip(est, df["hi"].to_list())]]
    ax.barh(ys, est, xerr=err, color="#4e79a7", capsize=3, height=0.6)
    ax.axvline(0.5, color="#888888", lw=1, ls="--")
    ax.set_yticks(ys, labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel(_(xlabel) if xlabel else "")
    return ax


def plot_points_by_category(ax, df):
    """Stacked horizontal bars of expected points per hand, one bar per label (first on top), one
    segment per category.

    Horizontal bars keep every label, however long, level and apart; the x range is set from
    the stacks' tops, so no bar runs past the axes (robo's bonuses stack high); the legend sits
    right of the axes in stacking order.
    """
    labels = df["label"].unique(maintain_order=True).to_list()
    pos = {l: len(labels) - 1 - i for i, l in enumerate(labels)}
    for cat in df["category"].unique(maintain_order=True).to_list():
        part = df.filter(df["category"] == cat)
        ax.barh([pos[l] for l in part["label"].to_list()], part["points"].to_list(), left=part["bottom"].to_list(),
                label=_(CATEGORY_TEXT.get(cat, cat)), color=CATEGORY_COLORS.get(cat), height=0.6)
    ax.set_yticks([pos[l] for l in labels], labels)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    top = max((b + p for b, p in zip(df["bottom"].to_list(), df["points"].to_list())), default=1.0)
    ax.set_xlim(0, 1.05 * top if top > 0 else 1.0)
    ax.set_xlabel(_("points per hand"))
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize="small", title=_("category"), title_fontsize="small",
              loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return ax


def plot_effects(ax, df, *, xlabel: str = N_("paired difference vs the first ruleset (95% CI)"),
                 label_col: str = "row"):
    """Forest plot of paired differences with a zero line; intervals that exclude 0 are drawn darker.

    Give it one metric's rows (``label_col="label"``, the metric in the axes title) so
    every quantity gets its own x scale and unit: a report draws one such axes per metric.
    """
    colors = ["#1f3b73" if x else "#9db4d6" for x in df["excludes_zero"].to_list()]
    from matplotlib.ticker import MaxNLocator

    plot_intervals(ax, df, xlabel=xlabel, reference=0.0, label_col=label_col, colors=colors)
    ax.set_ylim(-0.6, df.height - 0.4)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # small panels: few ticks, so long decimals never collide
    return ax


def plot_distribution(ax, df, *, xlabel: str = "value", ylabel: str = "share"):
    """One step line per label (at most ``len(PALETTE)``): the share of observations at each value (a legend
    only for two labels or more)."""
    labels = df["label"].unique(maintain_order=True).to_list()
    for label, color in zip(labels, _palette(len(labels))):
        part = df.filter(df["label"] == label)
        ax.plot(part["value"].to_list(), part["share"].to_list(), drawstyle="steps-mid", marker=".", label=label,
                color=color)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(labels) > 1:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def plot_distribution_panels(fig, df, *, xlabel: str = "value", ylabel: str = "share", ncols: int = 4):
    """Small multiples of ``plot_distribution``: one axes per label, the same scales, for more labels than
    the palette has colours (a comparison's rulesets times its players)."""
    labels = df["label"].unique(maintain_order=True).to_list()
    nrows, ncols = convergence_grid(len(labels), ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    for ax, label in zip(axes.flat, labels):
        part = df.filter(df["label"] == label)
        ax.plot(part["value"].to_list(), part["share"].to_list(), drawstyle="steps-mid", marker=".", color=PALETTE[0])
        ax.set_title(panel_title(label), fontsize="small")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize="small")
    for i, ax in enumerate(list(axes.flat)[len(labels):], len(labels)):  # as in plot_convergence_panels
        fig.delaxes(ax)
        axes.flat[i - ncols].tick_params(axis="x", which="both", labelbottom=True)
    fig.supxlabel(xlabel, fontsize="medium")
    fig.supylabel(ylabel, fontsize="medium")
    return axes


def plot_crosstable(ax, df, *, value_label: str = N_("score"), centre: float = 0.0):
    """A heatmap of the crosstable, cells annotated as the terminal prints them; row player's result against
    the column player. Colours diverge from ``centre`` (0.5 for a game score: even)."""
    labels = df["label"].to_list()
    cols = [c for c in df.columns if c != "label"]
    grid = [[math.nan if v is None else v for v in df[c].to_list()] for c in cols]
    matrix = [[grid[j][i] for j in range(len(cols))] for i in range(len(labels))]
    finite = [v for row in matrix for v in row if not math.isnan(v)]
    lim = max((abs(v - centre) for v in finite), default=1.0) or 1.0
    im = ax.imshow(matrix, cmap="RdBu", vmin=centre - lim, vmax=centre + lim)
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, f"{v:.3f}" if centre else f"{v:+.3f}", ha="center", va="center", fontsize="small",
                        color="white" if abs(v - centre) > 0.6 * lim else "black")  # readable on dark cells
    # vertical column labels: any length, never on top of each other
    ax.set_xticks(range(len(cols)), cols, rotation=90)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(_("opponent"))
    ax.figure.colorbar(im, ax=ax, label=_(value_label), shrink=0.8)
    return ax


def _palette(n: int) -> tuple[str, ...]:
    if n > len(PALETTE):
        raise ValueError(f"{n} lines in one axes: more than the {len(PALETTE)} colours of the palette")
    return PALETTE[:n]


def _convergence_line(ax, part, color):
    n = part["n"].to_list()
    ax.plot(n, part["estimate"].to_list(), color=color, label=part["label"][0])
    band = part.drop_nulls(["lo", "hi"])
    if band.height:
        ax.fill_between(band["n"].to_list(), band["lo"].to_list(), band["hi"].to_list(), color=color, alpha=0.2)


def _round_log_ticks(ax, lo: float, hi: float, most: int) -> None:
    """Round counts (500, 1k, 2k) on a log x axis rather than 6x10^2."""
    ticks = log_ticks(lo, hi, most)
    if ticks:
        ax.set_xticks(ticks, [count_text(t) for t in ticks])
        ax.xaxis.set_minor_formatter("")


def plot_convergence(ax, df, *, ylabel: str = "estimate", xlabel: str = "n (log scale)"):
    """The running estimate against n, one line per label (at most ``len(PALETTE)``), with its 95 % band."""
    labels = df["label"].unique(maintain_order=True).to_list()
    for label, color in zip(labels, _palette(len(labels))):
        _convergence_line(ax, df.filter(df["label"] == label), color)
    ax.set_xscale("log")
    _round_log_ticks(ax, df["n"].min(), df["n"].max(), 6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)  # off the lines
    ax.grid(alpha=0.3)
    return ax


def convergence_grid(n_labels: int, ncols: int = 4) -> tuple[int, int]:
    """(rows, columns) of the small multiples for ``n_labels`` panels."""
    cols = min(ncols, n_labels)
    return -(-n_labels // cols), cols


def panel_title(label: str, width: int = 30) -> str:
    """A label wrapped to a small panel's width: ``A vs B`` on two lines when long, a strategy spec broken
    after its commas (``heuristic:oros=2,`` / ``escoba=5,risk=12``), never inside a word that fits."""
    import re
    import textwrap

    if len(label) <= width:
        return label
    lines = []
    for part in re.split(r"(?<= vs) ", label):
        line = ""
        for token in re.findall(r"[^,\s]+,?\s*", part):
            if line and len(line.rstrip()) + len(token.rstrip()) > width:
                lines.append(line.rstrip())
                line = ""
            line += token
        lines.append(line.rstrip())
    return "\n".join(x for line in lines for x in (textwrap.wrap(line, width) or [line]))


def count_text(v: float) -> str:
    """A count for a tick label: 500, 2k, 50k, 1.5M."""
    for unit, word in ((1e6, "M"), (1e3, "k")):
        if v >= unit:
            return f"{v / unit:g}{word}"
    return f"{v:g}"


def log_ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """At most ``most`` round ticks (1, 2 and 5 times a power of ten) between ``lo`` and ``hi``, for a log axis:
    a panel's few labels, never crowded (1-2-5 when it fits, else powers of ten, else every other one)."""
    if not (lo > 0 and hi >= lo):
        return []
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for subs in ((1, 2, 5), (1,)):
        ticks = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in subs if lo <= m * 10.0 ** k <= hi]
        if len(ticks) <= most:
            return ticks
    return ticks[::-(-len(ticks) // most)]


def plot_convergence_panels(fig, df, *, ylabel: str = "estimate", xlabel: str = "n (log scale)",
                            reference: float | None = None, ncols: int = 4):
    """Small multiples: one axes per label (its name as the title), the same x and y scales, one colour.

    Where one axes would stack many bands on top of each other (a comparison of eleven rulesets, a
    tournament's 21 pairs), each label keeps its own panel and they read side by side.
    """
    labels = df["label"].unique(maintain_order=True).to_list()
    nrows, ncols = convergence_grid(len(labels), ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    for ax, label in zip(axes.flat, labels):
        _convergence_line(ax, df.filter(df["label"] == label), PALETTE[0])
        if reference is not None:
            ax.axhline(reference, color="#888888", lw=1, ls="--")
        ax.set_xscale("log")
        ax.set_title(panel_title(label), fontsize="small")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize="small")
    for i, ax in enumerate(list(axes.flat)[len(labels):], len(labels)):  # the last row's empty slots: no empty
        fig.delaxes(ax)                                                  # panels, and the panel above shows
        axes.flat[i - ncols].tick_params(axis="x", which="both", labelbottom=True)  # the x scale
    _round_log_ticks(axes.flat[0], df["n"].min(), df["n"].max(), 4)  # the panels share their x axis
    fig.supxlabel(xlabel, fontsize="medium")
    fig.supylabel(ylabel, fontsize="medium")
    return axes


# --- figures and files -----------------------------------------------------------------------

def new_figure(width: float = 6.4, height: float = 4.0):
    """A figure from matplotlib's object API (no pyplot state, safe in batch code)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def figure_bytes(fig) -> dict[str, bytes]:
    """``{"png": ..., "svg": ...}``: the figure rendered reproducibly (fixed ``svg.hashsalt``, no dates or
    software versions in the metadata), so the same data gives the same bytes."""
    import io

    import matplotlib

    svg, png = io.BytesIO(), io.BytesIO()
    # fixed hashsalt: SVG element ids are otherwise random; no Date/Software: bytes depend on data only
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT, "svg.fonttype": "path"}):
        fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    fig.savefig(png, format="png", dpi=110, metadata={"Software": None})
    return {"png": png.getvalue(), "svg": svg.getvalue()}


def save_figure(fig, stem: str | Path, root: str | Path | None = None) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` reproducibly (through ``files.write_bytes``: never through a
    symlink; with ``root``, never outside it); returns the two paths."""
    from ..files import make_dirs, write_bytes

    stem = Path(stem)
    make_dirs(stem.parent, root if root is not None else stem.parent)
    images = figure_bytes(fig)
    paths = []
    for fmt in ("png", "svg"):
        path = stem.with_suffix(f".{fmt}")
        write_bytes(path, images[fmt], root)
        paths.append(path)
    return paths


# --- skill ladders (series.skill) --------------------------------------------------------------

def prep_skill_share(skill):
    """The skill share per ruleset from a skill table (an estimate frame), highest first."""
    import polars as pl

    return prep_metric(skill, "skill_share").sort("estimate", descending=True, nulls_last=True) \
        .with_columns(pl.col("label"))


def prep_ladders(ratings):
    """A skill ladder's ratings (``ruleset, label, estimate, lo, hi``) as one frame per ruleset, in
    ruleset order, each in ladder order (the weakest first)."""
    return [(r, ratings.filter(ratings["ruleset"] == r).select("label", "estimate", "lo", "hi"))
            for r in ratings["ruleset"].unique(maintain_order=True).to_list()]


def plot_ladder(ax, df, *, xlabel: str = N_("rating (Elo points, mean 0)")):
    """One ruleset's ladder: each strategy's rating with its 95 % interval, the strongest on top."""
    import polars as pl

    plot_intervals(ax, df.reverse() if df.height else df.with_columns(pl.col("label")), xlabel=xlabel,
                   reference=0.0)
    return ax
