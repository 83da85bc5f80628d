"""The HTML report in a real headless browser (Chromium): it loads without errors and shows every chart.

Chromium comes from the system packages (.ci/run installs it). Outside CI a
missing browser skips this test; in CI (CI=true) it fails instead, so the
check can never silently disappear.
"""

import re
import subprocess

from helpers import chromium

from escoba_sim.output import report
from escoba_sim.series import tournament


def test_report_page_renders_every_chart_without_errors(tmp_path):
    browser = chromium()
    tournament.tournament(["greedy", "random"], 40, tmp_path / "t", seed=4)
    page = report.write_report(tmp_path / "t")
    expected = len(re.findall(r'<figure class="chart"', page.read_text()))
    assert expected >= 6
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--virtual-time-budget=10000",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    body = re.search(r"<body[^>]*>", dom).group(0)
    # the page's own script counts the chart images that decoded with a non-zero size
    assert f'data-charts-loaded="{expected}"' in body, body
    assert "data-errors=" not in re.search(r"<html[^>]*>", dom).group(0)
    assert "Uncaught" not in proc.stderr
