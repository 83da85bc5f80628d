"""The 95% intervals cover: 300 small runs with different seeds against the value of one large run."""

import importlib.util

import pytest
from helpers import REPO

pytestmark = pytest.mark.slow


def _coverage_module():
    path = REPO / "benchmarks" / "coverage.py"
    spec = importlib.util.spec_from_file_location("coverage_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_intervals_cover_the_large_run_value_in_92_to_98_percent():
    """Score, points-per-hand difference, a compare effect and a rating difference (benchmarks/coverage.py;
    its table is benchmarks/COVERAGE.md). Fixed seeds 1..300 and 0 for the large run: repeatable."""
    mod = _coverage_module()
    truth, hits = mod.coverage(runs=300, scale=50)
    assert len(hits) == 4
    rates = {k: h / n for k, (h, n, _) in hits.items()}
    assert all(0.92 <= r <= 0.98 for r in rates.values()), rates
