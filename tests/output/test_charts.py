"""Chart data preparation on tiny frames with exact expected values; drawing draws the right artists."""

import math

import polars as pl
import pytest

from escoba_sim.output import charts
from escoba_sim.series import tables


@pytest.fixture
def est():
    return pl.DataFrame({
        "label": ["a", "b", "a", "b", "a"],
        "metric": ["win_rate", "win_rate", "total", "total", "seat_advantage"],
        "estimate": [0.6, 0.4, 3.0, 2.5, 0.1],
        "lo": [0.5, 0.3, 2.9, 2.3, -0.05],
        "hi": [0.7, 0.5, 3.1, 2.7, 0.25],
    })


def test_prep_win_rates_keeps_only_the_metric_in_order(est):
    df = charts.prep_win_rates(est)
    assert df.columns == ["label", "estimate", "lo", "hi"]
    assert df.rows() == [("a", 0.6, 0.5, 0.7), ("b", 0.4, 0.3, 0.5)]


def test_prep_points_by_category_orders_categories_and_stacks():
    cat = pl.DataFrame({"label": ["x", "x", "x", "y", "y"],
                        "category": ["cards", "escobas", "oros", "oros", "escobas"],
                        "points": [0.5, 1.0, 0.25, 0.75, 2.0]})
    df = charts.prep_points_by_category(cat)
    # categories in POINT_COLUMNS order: escobas, ..., oros, cards
    assert df.rows() == [("x", "escobas", 1.0, 0.0), ("x", "oros", 0.25, 1.0), ("x", "cards", 0.5, 1.25),
                         ("y", "escobas", 2.0, 0.0), ("y", "oros", 0.75, 2.0)]


def test_prep_points_by_category_rejects_unknown_category():
    with pytest.raises(ValueError, match="unknown point categories"):
        charts.prep_points_by_category(pl.DataFrame({"label": ["x"], "category": ["bogus"], "points": [1.0]}))


def test_prep_effects_flags_intervals_excluding_zero(est):
    df = charts.prep_effects(est, metrics=["seat_advantage", "total"])
    assert df["row"].to_list() == ["seat_advantage: a", "total: a", "total: b"]
    assert df["excludes_zero"].to_list() == [False, True, True]


def test_prep_distribution_shares_per_label():
    counts = pl.DataFrame({"label": ["b", "b", "a", "b", "a"], "value": [3, 1, 0, 3, 2], "count": [1, 2, 3, 1, 1]})
    df = charts.prep_distribution(counts)
    assert df.rows() == [("b", 1, 2, 0.5), ("b", 3, 2, 0.5), ("a", 0, 3, 0.75), ("a", 2, 1, 0.25)]


def test_prep_crosstable_is_square_with_null_diagonal():
    pairs = pl.DataFrame({"row": ["g", "m", "g"], "col": ["m", "g", "r"], "value": [0.2, -0.2, 1.0]})
    df = charts.prep_crosstable(pairs)
    assert df.columns == ["label", "g", "m", "r"]
    assert df.rows() == [("g", None, 0.2, 1.0), ("m", -0.2, None, None), ("r", None, None, None)]


def test_prep_convergence_orders_by_chunk_and_nulls_undefined_intervals():
    frame = tables.convergence_frame([("a", 2, 20.0, 1.5, 1.0, 2.0), ("a", 1, 10.0, 1.0, math.nan, math.nan),
                                      ("b", 1, 10.0, 0.5, 0.4, 0.6)])
    df = charts.prep_convergence(frame)
    assert df["chunks"].to_list() == [1, 1, 2]
    assert df["label"].unique(maintain_order=True).to_list() == ["a", "b"]
    assert df["lo"][0] is None and df["hi"][0] is None and df["lo"][2] == 1.0


def _ax():
    return charts.new_figure().add_subplot()


def test_plot_win_rates_one_bar_per_label(est):
    ax = charts.plot_win_rates(_ax(), charts.prep_win_rates(est))
    assert len(ax.patches) == 2
    ypos = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    assert ypos["a"] > ypos["b"]  # first row on top


def test_plot_points_by_category_one_segment_per_row():
    cat = pl.DataFrame({"label": ["x", "x", "y"], "category": ["escobas", "cards", "escobas"],
                        "points": [1.0, 0.5, 2.0]})
    ax = charts.plot_points_by_category(_ax(), charts.prep_points_by_category(cat))
    assert len(ax.patches) == 3
    assert len(ax.containers) == 2  # one stack layer per category


def test_plot_effects_one_errorbar_per_row(est):
    ax = charts.plot_effects(_ax(), charts.prep_effects(est))
    assert len(ax.containers) == 5


def test_plot_distribution_one_line_per_label():
    counts = pl.DataFrame({"label": ["a", "a", "b"], "value": [0, 1, 0], "count": [1, 1, 1]})
    ax = charts.plot_distribution(_ax(), charts.prep_distribution(counts))
    assert len(ax.get_lines()) == 2


def test_plot_crosstable_annotates_off_diagonal_cells():
    pairs = pl.DataFrame({"row": ["g", "m"], "col": ["m", "g"], "value": [0.2, -0.2]})
    ax = charts.plot_crosstable(_ax(), charts.prep_crosstable(pairs))
    assert [t.get_text() for t in ax.texts] == ["+0.200", "-0.200"]
    assert len(ax.images) == 1


def test_plot_convergence_one_line_and_band_per_label():
    frame = tables.convergence_frame([("a", 1, 2.0, 0.5, 0.1, 0.9), ("a", 2, 4.0, 0.75, 0.5, 1.0),
                                      ("b", 1, 2.0, 1.5, 1.0, 2.0), ("b", 2, 4.0, 1.75, 1.5, 2.0)])
    ax = charts.plot_convergence(_ax(), charts.prep_convergence(frame))
    assert len(ax.get_lines()) == 2
    assert len(ax.collections) == 2


def _convergence(labels):
    return charts.prep_convergence(tables.convergence_frame(
        [(x, k, 100.0 * k, 0.5, 0.4, 0.6) for x in labels for k in (1, 2, 3)]))


def test_one_axes_never_holds_more_lines_than_the_palette_has_colours():
    labels = [f"s{i}" for i in range(len(charts.PALETTE) + 1)]
    ax = charts.plot_convergence(_ax(), _convergence(labels[:-1]))
    colours = [ln.get_color() for ln in ax.get_lines()]
    assert len(set(colours)) == len(colours) == len(charts.PALETTE)
    with pytest.raises(ValueError, match="more than the 10 colours"):
        charts.plot_convergence(_ax(), _convergence(labels))


def test_convergence_panels_one_per_label_sharing_their_scales():
    labels = [f"pair {i}" for i in range(21)]
    fig = charts.new_figure(11, 12)
    axes = charts.plot_convergence_panels(fig, _convergence(labels), reference=0.5)
    assert axes.shape == (6, 4) and len(fig.axes) == 21  # the 3 empty slots of the last row are removed
    assert [ax.get_title() for ax in fig.axes] == labels
    assert all(len(ax.get_lines()) == 2 for ax in fig.axes)  # the estimate and the dashed 0.5
    assert len({ax.get_lines()[0].get_color() for ax in fig.axes}) == 1
    assert fig.axes[0].get_shared_y_axes().joined(fig.axes[0], fig.axes[-1])
    long = "heuristic:oros=2,keep=0.5,escoba=5,risk=12 vs heuristic:oros=3,keep=0.25,risk=9"
    assert all(len(line) <= 30 for line in charts.panel_title(long).splitlines())
    # a long pair on two lines at " vs ", a spec broken after a comma, never inside a word
    assert charts.panel_title("greedy vs heuristic:oros=2,escoba=5,risk=12") == \
        "greedy vs\nheuristic:oros=2,escoba=5,\nrisk=12"


def test_distributions_beyond_the_palette_are_drawn_as_panels():
    rows = [(f"r{i} / p", v, 10 + v) for i in range(len(charts.PALETTE) + 6) for v in range(4)]
    df = charts.prep_distribution(pl.DataFrame(rows, schema=["label", "value", "count"], orient="row"))
    with pytest.raises(ValueError, match="colours of the palette"):
        charts.plot_distribution(_ax(), df)
    fig = charts.new_figure(11, 9)
    charts.plot_distribution_panels(fig, df)
    assert len(fig.axes) == 16 and all(len(ax.get_lines()) == 1 for ax in fig.axes)


def test_log_ticks_are_few_round_counts():
    assert charts.log_ticks(500, 2000) == [500, 1000, 2000]
    assert charts.log_ticks(100, 1e6, 5) == [100, 1000, 1e4, 1e5, 1e6]
    assert len(charts.log_ticks(1, 1e9, 4)) <= 4
    assert [charts.count_text(v) for v in (500, 1000, 2000, 1.5e6)] == ["500", "1k", "2k", "1.5M"]


def test_save_figure_is_reproducible(tmp_path, est):
    paths = []
    for d in ("one", "two"):
        fig = charts.new_figure()
        charts.plot_win_rates(fig.add_subplot(), charts.prep_win_rates(est))
        paths.append(charts.save_figure(fig, tmp_path / d / "win"))
    for a, b in zip(*paths):
        assert a.read_bytes() == b.read_bytes()
    svg = paths[0][1].read_text()
    assert "<dc:date>" not in svg and "matplotlib" not in svg.split("<g", 1)[0].lower().replace("xmlns", "")


def test_plot_win_rates_accepts_a_missing_interval():
    df = pl.DataFrame({"label": ["a"], "estimate": [0.5], "lo": [None], "hi": [None]},
                      schema={"label": pl.String, "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64})
    assert len(charts.plot_win_rates(_ax(), df).patches) == 1


def _category_frame(n_bars):
    labels = [f"lucky_deal=off, ties=none / strategy{i}" if n_bars > 2 else f"s{i}" for i in range(n_bars)]
    return pl.DataFrame({"label": [l for l in labels for _ in range(3)],
                         "category": ["escobas", "oros", "cards"] * n_bars, "points": [1.0, 0.5, 0.25] * n_bars})


@pytest.mark.parametrize("n_bars", [2, 16])
def test_points_by_category_legend_overlaps_no_tick_label(n_bars):
    fig = charts.new_figure(8.0, 1.8 + 0.42 * n_bars)
    ax = charts.plot_points_by_category(fig.add_subplot(), charts.prep_points_by_category(_category_frame(n_bars)))
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    r = FigureCanvasAgg(fig).get_renderer()
    fig.draw(r)  # constrained layout places the legend and the labels
    legend = ax.get_legend().get_window_extent(r)
    ticks = [t.get_window_extent(r) for t in ax.get_yticklabels() if t.get_text()]  # horizontal bars
    assert len(ticks) == n_bars
    assert not any(legend.overlaps(t) for t in ticks)
    assert not legend.overlaps(ax.get_window_extent(r))  # the legend sits outside the bars
    assert all(not a.overlaps(b) for a, b in zip(ticks, ticks[1:]))  # level labels, one per row
    fig_box = fig.bbox
    assert legend.x1 <= fig_box.x1 and all(t.x0 >= fig_box.x0 for t in ticks)  # nothing cut off


def test_plot_effects_per_metric_panel_has_zero_line_and_variant_rows(est):
    df = charts.prep_effects(est, ["total"])
    ax = charts.plot_effects(_ax(), df, xlabel="difference in points per hand", label_col="label")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert any(tuple(l.get_xdata()) == (0.0, 0.0) for l in ax.get_lines())  # the zero line
    assert ax.get_xlabel() == "difference in points per hand"
