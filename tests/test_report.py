"""report: every folder kind gives the expected charts, reproducible files and a self-contained page."""

import json
import re

import pytest

from escoba_sim import compare, report, runner, tournament


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("folders")
    compare.compare(compare.build_variants([], ["lucky_deal=escobas,off"]), "greedy", "maxoros", 120,
                    base / "compare", seed=1)
    tournament.tournament(["greedy", "maxoros", "random"], 60, base / "tournament", seed=1)
    runner.run(runner.make_spec("greedy", ["random"], "ludoteka", 200, seed=1), base / "run")
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
