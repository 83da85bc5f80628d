"""report: every folder kind gives the expected charts, reproducible files and a self-contained page."""

import json
import re

import pytest
from conftest import engine_sized

from escoba_sim.output import report, report_charts, views
from escoba_sim.runs import runner
from escoba_sim.runs import spec as runspec
from escoba_sim.series import compare, tournament


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("folders")
    # small chunks: the convergence charts get a few points each
    compare.compare(compare.build_variants([], ["lucky_deal=escobas,off"]), "greedy", "maxoros", 120,
                    base / "compare", seed=1, chunk_size=10)
    tournament.tournament(["greedy", "maxoros", "random"], 60, base / "tournament", seed=1, chunk_size=5)
    runner.run(runspec.make_spec("greedy", ["random"], "ludoteka", 200, seed=1, chunk_size=10), base / "run")
    return base


EXPECTED = {
    "compare": {"win_rates", "points_by_category", "effects", "seat_advantage", "points_distribution",
                "hands_per_game", "convergence"},
    "tournament": {"win_rates", "ratings", "crosstable", "points_by_category", "points_distribution",
                   "hands_per_game", "convergence"},
    "run": {"win_rates", "points_by_category", "seat_advantage", "points_distribution", "hands_per_game",
            "convergence"},
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_report_writes_every_chart_and_a_self_contained_page(folders, kind):
    page = report.write_report(folders / kind)
    out = page.parent
    for name in EXPECTED[kind]:
        assert (out / f"{name}.png").stat().st_size > 1000
        assert (out / f"{name}.svg").stat().st_size > 1000
    text = page.read_text()
    ids = set(re.findall(r'<figure class="chart" id="chart-([a-z_]+)"', text))
    assert ids == EXPECTED[kind]
    # no network: nothing is fetched from a URL
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "<link" not in text
    prov = json.loads(re.search(r'<pre id="provenance">(.*?)</pre>', text, re.S).group(1).replace("&quot;", '"'))
    assert prov["kind"] == kind and "seed" in prov and "engine" in prov


def test_report_is_reproducible(folders, tmp_path):
    a = report.write_report(folders / "compare", tmp_path / "a")
    b = report.write_report(folders / "compare", tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "a" / "effects.svg").read_bytes() == (tmp_path / "b" / "effects.svg").read_bytes()


def test_report_rejects_a_folder_without_manifest(tmp_path):
    with pytest.raises(report.ReportError, match="no manifest"):
        report.write_report(tmp_path)


def test_report_cli(cli, folders):
    r = cli("report", folders / "tournament")
    assert r.output.strip().endswith("index.html")


def test_effects_chart_draws_one_panel_per_metric(folders):
    from escoba_sim.output import charts
    from escoba_sim.series import compare as cmp

    kind, manifest, tables = views.read_folder(folders / "compare")
    chart = next(c for c in views.chart_list(kind, tables, manifest) if c.name == "effects")
    fig = charts.new_figure(chart.width, chart.height)
    chart.draw(fig)
    metrics = report_charts.effect_metrics(tables["effects"])
    assert {"win_rate", "hands_per_game", "escobas", "tie_oros", "total:greedy"} <= set(metrics)
    assert len(fig.axes) == len(metrics)  # one axes each: own x scale and unit, no empty panel
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [cmp.describe_metric(m, ["greedy", "maxoros"])[0] for m in metrics]
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_yticklabels()] == ["lucky_deal=off"]  # variants as rows
        assert ax.get_xlabel().startswith("difference in ")
    scales = {ax.get_xlim() for ax in fig.axes}
    assert len(scales) > 1  # not one shared x axis


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_charts_name_their_axes_and_fit_their_titles(folders, kind):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from escoba_sim.output import charts

    kind, manifest, tables = views.read_folder(folders / kind)
    for c in views.chart_list(kind, tables, manifest):
        fig = charts.new_figure(c.width, c.height)
        c.draw(fig)
        fig.suptitle(c.title, fontsize="medium")
        r = FigureCanvasAgg(fig).get_renderer()
        fig.draw(r)
        box = fig._suptitle.get_window_extent(r)
        assert box.x0 >= 0 and box.x1 <= fig.bbox.x1, f"{c.name}: title cut off"
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_xlabel(), c.name  # points_by_category: horizontal bars, the labels are the y axis
            if c.name in ("points_distribution", "hands_per_game", "convergence"):
                assert ax.get_ylabel() not in ("", "share", "estimate"), c.name


@pytest.fixture(scope="module")
def odd_runs(tmp_path_factory):
    """A run stopped by its SPRT, an interrupted run, and a 3-player run."""
    base = tmp_path_factory.mktemp("odd")
    runner.run(runspec.make_spec("greedy", ["random"], "ludoteka", 4000, seed=3, sprt=runspec.Sprt(0, 5)),
               base / "sprt")
    runner.run(runspec.make_spec("greedy", ["maxoros"], "ludoteka", engine_sized(4000, 400), seed=1,
                                 chunk_size=engine_sized(250, 25)), base / "cut", only_chunks=[0, 1, 2, 5])  # of 8
    runner.run(runspec.make_spec("greedy", ["maxoros", "random"], "ludoteka", 300, seed=2), base / "three")
    return base


def test_report_works_on_a_run_stopped_by_sprt(odd_runs, cli):
    r = cli("report", odd_runs / "sprt")
    assert r.exit_code == 0 and "Traceback" not in r.output
    text = (odd_runs / "sprt" / "report" / "index.html").read_text()
    head = re.search(r'<section id="headline">(.*?)</section>', text, re.S).group(1)
    assert "accept H1" in head and "LLR" in head and "Partial" not in head
    assert "came out ahead" in head and "Elo" in head and "likelihood of superiority" in head and "W/D/L" in head


def test_report_works_on_an_interrupted_run_and_marks_it_partial(odd_runs, cli):
    r = cli("report", odd_runs / "cut")
    assert r.exit_code == 0 and "Traceback" not in r.output
    text = (odd_runs / "cut" / "report" / "index.html").read_text()
    head = re.search(r'<section id="headline">(.*?)</section>', text, re.S).group(1)
    assert "Partial result" in head and "3 of 8 chunks" in head and "missing: 3, 4, 6, 7" in head
    assert f"escoba-sim resume {odd_runs / 'cut'}" in head


def test_convergence_chart_shows_every_player(odd_runs):
    kind, manifest, tables = views.read_folder(odd_runs / "three")
    assert set(tables["convergence"]["label"].to_list()) == {"greedy", "maxoros", "random"}


def test_one_win_rate_one_interval_in_terminal_json_report_and_chart(tmp_path, cli):
    """Before: Wilson in the terminal, the paired one in the score line, chunks-as-clusters in the report and
    the convergence chart. Now one interval, whatever the chunk size."""
    import json as js

    args = ["run", "-s", "greedy", "--vs", "maxoros", "-n", engine_sized(3000, 300), "--seed", "3", "-q"]
    a = js.loads(cli(*args, "--json", "--out", tmp_path / "a").stdout)
    b = js.loads(cli(*args, "--json", "--chunk", engine_sized(100, 10), "--out", tmp_path / "b").stdout)
    for s in (a, b):
        assert s["entrants"][0]["games"]["interval"] == "deal"
    assert a["entrants"][0]["games"]["ci95"] == pytest.approx(b["entrants"][0]["games"]["ci95"], rel=1e-12)
    lo, hi = a["entrants"][0]["games"]["ci95"]
    for d in ("a", "b"):
        _, _, tables = views.read_folder(tmp_path / d)
        est = tables["estimates"].filter((tables["estimates"]["label"] == "greedy")
                                         & (tables["estimates"]["metric"] == "win_rate")).row(0, named=True)
        assert (est["lo"], est["hi"]) == pytest.approx((lo, hi), rel=1e-12)
        conv = tables["convergence"].filter(tables["convergence"]["label"] == "greedy")
        assert (conv["lo"][-1], conv["hi"][-1]) == pytest.approx((lo, hi), rel=1e-12)
    text = cli(*args, "--out", tmp_path / "c").stdout
    assert f"[{100 * lo:.1f}%, {100 * hi:.1f}%]" in text


def test_tournament_page_shows_its_ratings_once(folders):
    text = report.write_report(folders / "tournament").read_text()
    assert text.count("<caption>Ratings") == 1
    assert len(re.findall(r"<td>rating</td>", text)) == 0
    assert "is rated highest" in text


def test_report_works_on_an_unfinished_comparison(folders, tmp_path, cli):
    import shutil

    d = tmp_path / "cmp"
    shutil.copytree(folders / "compare", d)
    shutil.rmtree(d / "tables")
    (d / "summary.json").unlink()
    m = json.loads((d / "runs" / "01" / "manifest.json").read_text())
    m["status"] = "interrupted"
    (d / "runs" / "01" / "manifest.json").write_text(json.dumps(m))
    r = cli("report", d)
    assert r.exit_code == 0 and "Traceback" not in r.output
    head = re.search(r'<section id="headline">(.*?)</section>', (d / "report" / "index.html").read_text(), re.S)
    assert "Partial result" in head.group(1) and "1 of 2 runs finished" in head.group(1)
    assert "runs/01 (interrupted)" in head.group(1)


def test_a_variant_without_effect_is_named_on_the_page_and_in_the_chart(tmp_path):
    """capture=any changes no deal of greedy against maxoros: the page says so with the reason, and its rows of
    the effects chart read "(no effect)" instead of a silent +0.0000 [+0.0000, +0.0000]."""
    from matplotlib.figure import Figure

    out = tmp_path / "c"
    compare.compare(compare.build_variants([], ["capture=any", "ties=none"]), "greedy", "maxoros", 40, out, seed=2)
    page = report.write_report(out).read_text()
    assert "No effect on any deal" in page and "greedy and maxoros always capture when they can" in page
    _, manifest, tables = views.read_folder(out)
    chart = next(c for c in views.chart_list("compare", tables, manifest) if c.name == "effects")
    fig = Figure()
    chart.draw(fig)
    ticks = {t.get_text() for ax in fig.axes for t in ax.get_yticklabels()}
    assert "capture=any (no effect)" in ticks and "ties=none" in ticks and "capture=any" not in ticks


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """random first on the command line, rated last: command order and rating order differ."""
    out = tmp_path_factory.mktemp("ranked") / "t"
    s = tournament.tournament(["random", "greedy", "defensive"], 40, out, seed=3)
    return out, s


def _drawn(out, name):
    from matplotlib.figure import Figure

    _, manifest, tables = views.read_folder(out)
    fig = Figure()
    next(c for c in views.chart_list("tournament", tables, manifest) if c.name == name).draw(fig)
    return fig


def test_crosstable_chart_shows_the_score_as_the_terminal_does(ranked, cli):
    """One convention: the game score from 0 to 1 (0.5 even), three decimals, in the terminal and the chart
    (the chart showed score - 0.5)."""
    out, s = ranked
    fig = _drawn(out, "crosstable")
    shown = sorted(t.get_text() for t in fig.axes[0].texts)
    assert shown == sorted(f"{p['score']:.3f}" for p in s["pairs"])
    assert "0.5 = even" in fig.axes[1].get_ylabel()  # the colour bar
    text = cli("resume", out).stdout
    assert all(f"{p['score']:.3f}" in text for p in s["pairs"])


def test_ratings_and_scores_chart_are_in_the_ratings_order_of_the_tables(ranked):
    """Highest rating on top in the terminal table, the page's table, the ratings chart and the win-rate chart
    (the charts were in command order)."""
    out, s = ranked
    order = [r["label"] for r in sorted(s["ratings"], key=lambda r: -r["estimate"])]
    assert order != s["labels"]  # the case that showed the difference
    for name in ("ratings", "win_rates"):
        ax = _drawn(out, name).axes[0]
        ticks = sorted(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())), reverse=True)
        assert [lab for _, lab in ticks] == order, name
    page = report.write_report(out).read_text()
    rows = re.search(r"<caption>Ratings.*?<tbody>(.*?)</tbody>", page, re.S).group(1)
    assert [re.search(r"<td[^>]*>(.*?)</td>", r).group(1) for r in rows.split("<tr>")[1:]] == order


def test_page_tables_print_an_estimate_and_its_interval_with_the_same_decimals():
    """The page printed "3.631 3.63 3.631" (four significant digits each); a column group now has one number
    of decimals, as the terminal."""
    import polars as pl

    df = pl.DataFrame({"label": ["a", "b"], "estimate": [3.631, 0.5], "lo": [3.63, 0.25], "hi": [3.6314, 0.75],
                       "score": [0.47, 0.5], "score_lo": [0.4, 0.45], "score_hi": [0.5, 0.55]})
    rows = report.table_context(df, "t")["rows"]
    assert rows[0][1:4] == ["3.6310", "3.6300", "3.6314"] and rows[1][1:4] == ["0.5000", "0.2500", "0.7500"]
    assert rows[0][4:] == ["0.4700", "0.4000", "0.5000"]
    ratings = pl.DataFrame({"label": ["x"], "rating": [185.93], "lo": [176.4], "hi": [195.3]})
    assert report.table_context(ratings, "r")["rows"][0][1:] == ["185.9", "176.4", "195.3"]


def test_a_run_page_names_each_players_win_rate_without_the_first_player(folders):
    """maxoros' row of a run's estimates read "game win rate of the first player"."""
    _, _, tables = views.read_folder(folders / "run")
    est = next(df for caption, df, _ in report.people_tables("run", tables) if caption.startswith("Estimates"))
    quantities = est.filter(est["label"] == "random")["quantity"].to_list()
    assert "game win rate" in quantities and not any("first player" in q for q in quantities)


def test_a_table_of_several_quantities_gives_each_row_its_own_decimals():
    """The skill report's table holds a share beside games to win: with the column's decimals (1, for 751)
    the share's estimate and interval all read 0.5 (issue 37)."""
    import polars as pl

    from escoba_sim.output.report import table_context

    df = pl.DataFrame({"ruleset": ["ludoteka", "ludoteka"], "quantity": ["skill share", "games to win"],
                       "estimate": [0.488, 751.0], "lo": [0.466, 155.0], "hi": [0.510, None]})
    rows = table_context(df, "per ruleset")["rows"]
    assert rows[0][2:] == ["0.4880", "0.4660", "0.5100"]
    assert rows[1][2:4] == ["751.0", "155.0"]
    one = pl.DataFrame({"label": ["a", "b"], "estimate": [0.5, 751.0]})  # one quantity: the column's decimals
    assert [r[1] for r in table_context(one, "x")["rows"]] == ["0.5", "751.0"]
