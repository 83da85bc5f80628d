"""stats.py against hand-computed values and independent implementations (scipy, naive loops)."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from escoba_sim import stats


def test_z95_is_the_normal_quantile():
    assert stats.Z95 == pytest.approx(sps.norm.ppf(0.975), abs=1e-15)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (1, 1), (512, 1000), (7, 123456)])
def test_wilson_matches_scipy(k, n):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = stats.wilson(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_by_hand():
    # 8 of 10: centre (0.8 + z^2/20) / (1 + z^2/10), half z/(1+z^2/10) sqrt(0.016 + z^2/400)
    z = stats.Z95
    d = 1 + z * z / 10
    centre, half = (0.8 + z * z / 20) / d, z / d * math.sqrt(0.016 + z * z / 400)
    assert stats.wilson(8, 10) == pytest.approx((centre - half, centre + half))
    assert stats.wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=5e-5)  # textbook table value
    assert math.isnan(stats.wilson(0, 0)[0])


def _naive_ratio(y, x):
    y, x = np.asarray(y, float), np.asarray(x, float)
    r = y.sum() / x.sum()
    n = len(y)
    var = n / (n - 1) * ((y - r * x) ** 2).sum() / x.sum() ** 2
    return r, math.sqrt(var)


def _sums(y, x):
    y, x = np.asarray(y), np.asarray(x)
    return int(y.sum()), int(x.sum()), int((y * y).sum()), int((x * y).sum()), int((x * x).sum()), len(y)


def test_ratio_mean_matches_naive_residuals():
    rng = np.random.default_rng(1)
    x = rng.integers(3, 12, size=50)
    y = rng.integers(0, 40, size=50)
    m, se = stats.ratio_mean(*_sums(y, x))
    rm, rse = _naive_ratio(y, x)
    assert m == pytest.approx(rm, rel=1e-14)
    assert se == pytest.approx(rse, rel=1e-12)


def test_ratio_mean_by_hand():
    # clusters (y, x): (2, 1), (4, 2), (9, 3): R = 15/6 = 2.5; residuals -0.5, -1, 1.5
    m, se = stats.ratio_mean(*_sums([2, 4, 9], [1, 2, 3]))
    assert m == 2.5
    assert se == pytest.approx(math.sqrt(3 / 2 * (0.25 + 1 + 2.25) / 36))


def test_ratio_mean_with_equal_clusters_is_the_sem_of_cluster_means():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 20, size=40)
    m, se = stats.ratio_mean(*_sums(y, np.full(40, 2)))
    assert m == pytest.approx((y / 2).mean())
    assert se == pytest.approx(sps.sem(y / 2), rel=1e-12)


def test_ratio_mean_degenerate():
    assert math.isnan(stats.ratio_mean(*_sums([3], [2]))[1])
    assert stats.ratio_mean(*_sums([3], [2]))[0] == 1.5
    assert stats.ratio_mean(*_sums([2, 4], [1, 2]))[1] == 0.0  # every cluster exactly on the ratio
    # big sums do not overflow (they are turned into Python ints)
    big = stats.ratio_mean(10**15, 10**14, 10**29, 10**28, 10**27, 10**4)
    assert big[0] == 10.0


def test_elo_and_score_are_inverse():
    assert stats.elo_of_score(0.75) == pytest.approx(400 * math.log10(3))
    assert stats.score_of_elo(400 * math.log10(3)) == pytest.approx(0.75)
    assert stats.elo_of_score(0.5) == 0.0
    assert stats.elo_of_score(1.0) == math.inf and stats.elo_of_score(0.0) == -math.inf


def _pentanomial(hist):
    """fishtest-style: pair scores 0, 1/4, ..., 1 with frequencies hist."""
    hist = np.asarray(hist, float)
    n = hist.sum()
    scores = np.arange(len(hist)) / (len(hist) - 1)
    p = hist / n
    mu = (p * scores).sum()
    var = (p * (scores - mu) ** 2).sum()
    return n, mu, var


def test_elo_summary_pentanomial_by_hand():
    hist = [10, 40, 120, 60, 20]  # 250 pairs
    n, mu, var = _pentanomial(hist)
    e = stats.elo_summary(hist)
    se = math.sqrt(var / n)
    assert e["clusters"] == 250
    assert e["score"] == pytest.approx(mu)
    assert e["se"] == pytest.approx(se)
    assert e["elo"] == pytest.approx(-400 * math.log10(1 / mu - 1))
    lo, hi = mu - stats.Z95 * se, mu + stats.Z95 * se
    assert e["elo_ci95"] == pytest.approx([-400 * math.log10(1 / lo - 1), -400 * math.log10(1 / hi - 1)])
    assert e["los"] == pytest.approx(sps.norm.cdf((mu - 0.5) / se))


def test_elo_summary_trinomial_and_constant():
    # independent hands: win 2, draw 1, loss 0 half-points, one hand per cluster
    e = stats.elo_summary([30, 20, 50])
    w, d, l = 50, 20, 30
    mu = (w + d / 2) / 100
    var = (w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu**2) / 100
    assert e["score"] == pytest.approx(mu) and e["se"] == pytest.approx(math.sqrt(var / 100))
    same = stats.elo_summary([0, 0, 9, 0, 0])
    assert same["score"] == 0.5 and same["se"] == 0.0 and same["los"] == 0.5 and same["elo"] == 0.0


def test_sprt_llr_and_bounds():
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    hist = [10, 40, 120, 60, 20]
    n, mu, var = _pentanomial(hist)
    s0, s1 = 1 / (1 + 10 ** (-0 / 400)), 1 / (1 + 10 ** (-20 / 400))
    assert stats.sprt_llr(hist, 0, 20) == pytest.approx(n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var))
    assert stats.sprt_decision(3.0, 0.05, 0.05) == "H1"
    assert stats.sprt_decision(-3.0, 0.05, 0.05) == "H0"
    assert stats.sprt_decision(0.0, 0.05, 0.05) is None
    # a strategy against itself (every pair scores 1/2): conclusive for H0 when elo0 = 0 < elo1
    # no variance yet (one deal, or self-play on duplicate deals): no measured evidence
    assert stats.sprt_llr([0, 0, 7, 0, 0], 0, 20) == 0.0
    assert stats.sprt_llr([], 0, 20) == 0.0


def test_score_moments_exact_for_large_counts():
    n, mu, var = stats.score_moments([10**12, 0, 10**12])
    assert n == 2 * 10**12 and mu == 0.5 and var == 0.25
