"""Every chart of a few reports, drawn: texts inside the figure, tick labels apart, marks inside their axes.

The reports include long strategy specs, three players and the robo ruleset (whose bonus points
stack high), where labels used to be cut, x labels overlapped and stacked bars ran off the axes.
"""

import itertools

import pytest
from conftest import engine_sized

from escoba_sim.output import charts, views
from escoba_sim.runs import runner
from escoba_sim.runs import spec as runspec
from escoba_sim.series import compare, tournament

LONG = "heuristic:oros=2,keep=0.5,escoba=5,risk=12"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    base = tmp_path_factory.mktemp("layout")
    games = engine_sized(300, 20)
    runner.run(runspec.make_spec("greedy", [LONG], "ludoteka", games, seed=1), base / "run_long")
    runner.run(runspec.make_spec("greedy", ["maxoros", LONG], "ludoteka", games, seed=2), base / "run_three")
    runner.run(runspec.make_spec("greedy", ["maxoros"], "robo", games, seed=3), base / "run_robo")
    tournament.tournament(["greedy", "maxoros", "random", LONG, "heuristic:oros=3,keep=0.25,risk=9"],
                          engine_sized(60, 40), base / "tournament", seed=4,
                          chunk_size=engine_sized(0, 40))  # fewer games drew a win-rate line past its axes
    compare.compare(compare.build_variants([], ["lucky_deal=escobas,off", "ties=shared,none", "target=15,31"]),
                    "greedy", LONG, engine_sized(80, 8), base / "compare", seed=5)
    # issue 26: 21 pairs, more than a palette's colours and a legend taller than the figure
    tournament.tournament(["greedy", "maxoros", "random", "defensive", "heuristic", "sevens", LONG],
                          engine_sized(120, 12), base / "tournament_21", seed=6, chunk_size=engine_sized(20, 6))
    return base


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


def _outside(b, fb) -> bool:
    return b.x0 < fb.x0 - 1 or b.x1 > fb.x1 + 1 or b.y0 < fb.y0 - 1 or b.y1 > fb.y1 + 1


def _cut_artists(fig, r) -> list[str]:
    """Every drawn artist (legends and their entries, colour bars, patches, lines, ...) whose box, clipped
    as it is drawn, reaches past the figure's edge: what the saved image cuts off."""
    import math

    from matplotlib.axis import Tick
    from matplotlib.transforms import Bbox

    skip = {id(fig), id(fig.patch)}
    for t in fig.findobj(Tick):  # tick marks and labels: the text check looks at the drawn ones
        skip.update(id(a) for a in t.findobj())
    problems = []
    for a in fig.findobj(lambda a: a.get_visible()):
        if id(a) in skip:
            continue
        try:
            b = a.get_window_extent(r)
        except (TypeError, NotImplementedError, AttributeError, RuntimeError):
            continue
        if b is None or not all(map(math.isfinite, b.extents)) or (b.width == 0 and b.height == 0):
            continue
        clip = a.get_clip_box() if a.get_clip_on() else None
        if clip is not None:
            b = Bbox.intersection(b, clip)
            if b is None:
                continue
        if _outside(b, fig.bbox):
            what = getattr(a, "get_label", lambda: "")() or ""
            problems.append(f"{type(a).__name__} {what!r} cut by the figure's edge".replace(" ''", ""))
    return problems


def _check_chart(c):
    import matplotlib.colors
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text

    fig = charts.new_figure(c.width, c.height)
    canvas = FigureCanvasAgg(fig)
    c.draw(fig)
    fig.suptitle(c.title, fontsize="medium")
    canvas.draw()
    r = canvas.get_renderer()
    fb = fig.bbox
    problems = _cut_artists(fig, r)
    # tick labels exist for ticks outside the view limits too; only those drawn count
    ticks_drawn, all_tick_labels = {}, set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                all_tick_labels.update((id(tick.label1), id(tick.label2)))
            drawn = [tk.label1 for tk in axis._update_ticks() if tk.label1.get_visible() and tk.label1.get_text()]
            ticks_drawn[id(axis)] = drawn
    drawn_ids = {id(x) for labels in ticks_drawn.values() for x in labels}
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if id(t) in all_tick_labels and id(t) not in drawn_ids:
            continue
        b = t.get_window_extent(r)
        if b.x0 < fb.x0 - 1 or b.x1 > fb.x1 + 1 or b.y0 < fb.y0 - 1 or b.y1 > fb.y1 + 1:
            problems.append(f"text {t.get_text()!r} outside the figure")
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        for axis in (ax.xaxis, ax.yaxis):
            boxes = [(t.get_text(), t.get_window_extent(r)) for t in ticks_drawn[id(axis)]]
            for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
                if _boxes_overlap(a, b):
                    problems.append(f"tick labels {ta!r} and {tb!r} overlap")
        # issue 26: no two lines of one axes share a colour (so no more lines than the palette has colours)
        colours = [matplotlib.colors.to_hex(ln.get_color()) for ln in ax.lines if not ln.get_label().startswith("_")]
        if len(set(colours)) < len(colours):
            problems.append(f"{len(colours)} lines in {ax.get_title() or c.name} with {len(set(colours))} colours")
        ab = ax.bbox
        marks = [p for p in ax.patches if isinstance(p, Rectangle)]
        marks += [ln for ln in ax.lines if isinstance(ln, Line2D) and ln.get_xydata().size]
        marks += [col for col in ax.collections if isinstance(col, (LineCollection, PolyCollection))]
        for m in marks:
            b = m.get_window_extent(r)
            if b.width == 0 and b.height == 0:
                continue
            if b.x0 < ab.x0 - 1.5 or b.x1 > ab.x1 + 1.5 or b.y0 < ab.y0 - 1.5 or b.y1 > ab.y1 + 1.5:
                problems.append(f"{type(m).__name__} outside its axes in {ax.get_title() or c.name}")
    return problems


@pytest.mark.parametrize("folder", ["run_long", "run_three", "run_robo", "tournament", "compare", "tournament_21"])
def test_every_chart_fits(reports, folder):
    kind, manifest, tables = views.read_folder(reports / folder)
    problems = {}
    for c in views.chart_list(kind, tables, manifest):
        found = _check_chart(c)
        if found:
            problems[c.name] = found[:4]
    assert not problems, problems
