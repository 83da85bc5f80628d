"""report: every folder kind gives the expected charts, reproducible files and a self-contained page."""

import json
import re

import pytest

from escoba_sim import compare, report, runner, runspec, tournament


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("folders")
    compare.compare(compare.build_variants([], ["lucky_deal=escobas,off"]), "greedy", "maxoros", 120,
                    base / "compare", seed=1)
    tournament.tournament(["greedy", "maxoros", "random"], 60, base / "tournament", seed=1)
    runner.run(runspec.make_spec("greedy", ["random"], "ludoteka", 200, seed=1), base / "run")
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
    from escoba_sim import charts, compare as cmp

    kind, manifest, tables = report.read_folder(folders / "compare")
    chart = next(c for c in report.chart_list(kind, tables, manifest) if c.name == "effects")
    fig = charts.new_figure(chart.width, chart.height)
    chart.draw(fig)
    metrics = report.effect_metrics(tables["effects"])
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

    from escoba_sim import charts

    kind, manifest, tables = report.read_folder(folders / kind)
    for c in report.chart_list(kind, tables, manifest):
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
            assert ax.get_xlabel() or c.name == "points_by_category", c.name
            if c.name in ("points_distribution", "hands_per_game", "convergence", "points_by_category"):
                assert ax.get_ylabel() not in ("", "share", "estimate"), c.name
