"""stats.py against hand-computed values and independent implementations (scipy, naive loops)."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from escoba_sim.runs import stats


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
    lo, hi = stats.proportion_interval(mu, se, n)  # Wilson at the effective sample size, near mu -/+ Z95 se
    assert (lo, hi) == pytest.approx((mu - stats.Z95 * se, mu + stats.Z95 * se), abs=se / 20)
    assert e["score_ci95"] == pytest.approx([lo, hi])
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


# --- the deal model: every standard error against a naive per-deal computation ----------------

def _deal_data(seed=7, n=300):
    """Per-deal vectors (hands, points a, points b, hands b, points c) with strong within-deal correlation."""
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 9, n)  # hands of the deal
    luck = rng.normal(0, 3, n)
    ya = np.maximum(0, np.round(1.3 * x + luck + rng.normal(0, 1, n))).astype(np.int64)
    xb = x + rng.integers(0, 2, n)
    yb = np.maximum(0, np.round(1.2 * xb + luck + rng.normal(0, 1, n))).astype(np.int64)  # same luck: paired
    return np.stack([x, ya, xb, yb], axis=1).astype(np.int64)


def _deal_sums(v):
    return [int(s) for s in v.sum(axis=0)], [[int(g) for g in row] for row in v.T @ v]


def test_deal_ratio_matches_a_naive_per_deal_computation():
    v = _deal_data()
    S, G = _deal_sums(v)
    r, se = stats.deal_ratio(S, G, len(v), [0, 1, 0, 0], [1, 0, 0, 0])
    y, x = v[:, 1].astype(float), v[:, 0].astype(float)
    R = y.sum() / x.sum()
    n = len(v)
    naive = math.sqrt(n / (n - 1) * (((y - R * x) / x.sum()) ** 2).sum())
    assert r == pytest.approx(R, rel=1e-14) and se == pytest.approx(naive, rel=1e-12)
    # the classic five-sum form gives the same
    r2, se2 = stats.ratio_mean(y.sum(), x.sum(), (y * y).sum(), (x * y).sum(), (x * x).sum(), n)
    assert se2 == pytest.approx(naive, rel=1e-12)


def test_paired_difference_keeps_the_covariance_term():
    """Two ratios on the same deals: se of the difference against naive per-deal residuals, and far below
    the se that forgets the covariance (sqrt(se_a^2 + se_b^2)), which must fail this test."""
    v = _deal_data()
    S, G = _deal_sums(v)
    n = len(v)
    d, se = stats.deal_ratio_diff(S, G, n, [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0])
    x, ya, xb, yb = (v[:, i].astype(float) for i in range(4))
    ra, rb = ya.sum() / x.sum(), yb.sum() / xb.sum()
    u = (ya - ra * x) / x.sum() - (yb - rb * xb) / xb.sum()
    naive = math.sqrt(n / (n - 1) * (u ** 2).sum())
    assert d == pytest.approx(ra - rb, rel=1e-12) and se == pytest.approx(naive, rel=1e-10)
    _, se_a = stats.deal_ratio(S, G, n, [0, 1, 0, 0], [1, 0, 0, 0])
    _, se_b = stats.deal_ratio(S, G, n, [0, 0, 0, 1], [0, 0, 1, 0])
    assert se < 0.5 * math.hypot(se_a, se_b)
    # the sequence form compare and report used keeps the pairing the same way
    d2, se2 = stats.paired_ratio_diff(ya.astype(int), x.astype(int), yb.astype(int), xb.astype(int))
    assert d2 == pytest.approx(d) and se2 == pytest.approx(naive, rel=1e-10)


def test_hand_worked_ratio_se():
    # deals (y, x): (1, 1), (3, 1), (2, 2): R = 6/4; residuals -0.5, 1.5, -1 over 4; se^2 = 3/2 * 3.5/16
    v = np.array([[1, 1], [3, 1], [2, 2]])
    S, G = _deal_sums(v)
    r, se = stats.deal_ratio(S, G, 3, [1, 0], [0, 1])
    assert r == 1.5 and se == pytest.approx(math.sqrt(1.5 * 3.5 / 16))
    assert math.isnan(stats.deal_ratio(S, G, 1, [1, 0], [0, 1])[1])  # one deal: no variance


def test_sprt_llr_path_equals_the_llr_after_each_deal():
    hist = [3, 1, 4, 1, 5]
    bins = [4, 0, 2, 2, 3, 4, 1]
    path = stats.sprt_llr_path(hist, bins, -10, 10)
    h = list(hist)
    for b, llr in zip(bins, path):
        h[b] += 1
        assert llr == pytest.approx(stats.sprt_llr(h, -10, 10), rel=1e-12, abs=1e-12)
    assert stats.sprt_llr_path([0, 0, 0, 0, 0], [2], 0, 5) == [0.0]  # one deal: no variance, no evidence


def test_bradley_terry_covariance_against_a_numeric_sandwich():
    """H from a finite-difference Hessian of the log-likelihood, V from per-deal score vectors."""
    rng = np.random.default_rng(3)
    pairs = [(0, 1), (0, 2), (1, 2)]
    n = 400
    strength = np.array([0.4, 0.0, -0.4])
    luck = rng.normal(0, 0.8, n)  # a deal favours the first-named strategy in every pair
    cols = []
    for i, j in pairs:
        p = 1 / (1 + np.exp(strength[j] - strength[i] - 0.3 * luck))
        wi = rng.binomial(2, p)  # two games per deal (both seatings)
        cols += [wi, 2 - wi]
    v = np.stack(cols, axis=1).astype(np.int64)
    S, G = _deal_sums(v)
    wins = np.zeros((3, 3))
    for p, (i, j) in enumerate(pairs):
        wins[i, j], wins[j, i] = S[2 * p], S[2 * p + 1]
    elo = stats.bradley_terry(wins)
    cov = stats.bradley_terry_cov(elo, pairs, S, G, n)
    theta = elo / stats.ELO_PER_NAT

    def loglik(t):
        return sum(wins[i, j] * math.log(1 / (1 + math.exp(t[j] - t[i]))) for i in range(3) for j in range(3) if i != j)

    eps = 1e-4
    H = np.zeros((3, 3))
    for a in range(3):
        for b in range(3):
            def f(da, db):
                t = theta.copy()
                t[a] += da
                t[b] += db
                return loglik(t)
            H[a, b] = -(f(eps, eps) - f(eps, -eps) - f(-eps, eps) + f(-eps, -eps)) / (4 * eps * eps)
    U = np.zeros((n, 3))
    for p, (i, j) in enumerate(pairs):
        pij = 1 / (1 + math.exp(theta[j] - theta[i]))
        U[:, i] += v[:, 2 * p] * (1 - pij) - v[:, 2 * p + 1] * pij
        U[:, j] += v[:, 2 * p + 1] * pij - v[:, 2 * p] * (1 - pij)
    V = n / (n - 1) * ((U - U.mean(axis=0)).T @ (U - U.mean(axis=0)))
    Hp = np.linalg.pinv(H, rcond=1e-6)  # the ones vector is H's null space (up to rounding)
    naive = stats.ELO_PER_NAT ** 2 * Hp @ V @ Hp
    assert cov == pytest.approx(naive, rel=1e-4, abs=1e-6)
    # the deal effect makes the pairs covary: ignoring it (independent games) gives another answer
    assert abs(cov[0, 0] - stats.ELO_PER_NAT ** 2 * Hp[0, 0]) > 0.05 * cov[0, 0]


@pytest.mark.parametrize("k,n", [(0, 40), (1, 40), (13, 40), (39, 40), (40, 40), (3, 2000)])
def test_proportion_interval_is_wilson_for_independent_trials(k, n):
    """With the binomial standard error the effective sample size is n: the interval is Wilson's."""
    p = k / n
    se = math.sqrt(p * (1 - p) / n)
    assert stats.proportion_interval(p, se, n) == pytest.approx(stats.wilson(k, n), abs=1e-12)


@pytest.mark.parametrize("p,se,n", [(0.0, 0.0, 1000), (1.0, 0.0, 1000), (0.0025, 0.004, 1000), (0.995, 0.01, 300),
                                    (0.5, 0.3, 5), (1e-5, 1e-4, 50_000)])
def test_proportion_interval_never_leaves_0_1(p, se, n):
    """The normal interval p -/+ 1.96 se would leave [0, 1] in each case (0.0050 [-0.0048, 0.0148] was printed)."""
    lo, hi = stats.proportion_interval(p, se, n)
    assert 0.0 <= lo <= p <= hi <= 1.0
    if 0 < p < 1:
        assert lo < p < hi
    else:  # one-sided at the bound, Wilson's with the deals as trials
        assert (lo, hi) == pytest.approx((0.0, stats.Z95 ** 2 / (n + stats.Z95 ** 2)) if p == 0 else
                                         (1 - stats.Z95 ** 2 / (n + stats.Z95 ** 2), 1.0))


def test_proportion_interval_follows_the_design_effect():
    """A larger deal-model se (games of a deal alike) widens the interval by about the same factor."""
    p, n = 0.3, 10_000
    se1 = math.sqrt(p * (1 - p) / n)
    lo1, hi1 = stats.proportion_interval(p, se1, n)
    lo2, hi2 = stats.proportion_interval(p, 2 * se1, n)
    assert (hi2 - lo2) / (hi1 - lo1) == pytest.approx(2.0, rel=1e-3)
    assert math.isnan(stats.proportion_interval(p, math.nan, 1)[0])
