"""The statistics of a strategy-vs-strategy run, computed from exact integer sums.

Every function here takes counts or sums that ``runner`` merges exactly across
chunks, so a summary depends only on the seed and the run's arguments, never
on how the work was split. Conventions (checked against scipy in
tests/test_stats.py):

- 95% intervals use the normal quantile ``Z95 = Phi^-1(0.975)`` unless named
  otherwise; proportions use the Wilson score interval.
- Means over correlated hands use the ratio estimator over clusters (a
  cluster is a deal group: every game or hand that shares a deal index across
  seat rotations). With per-cluster totals ``y_c`` and sizes ``x_c`` over
  ``n`` clusters, ``R = sum y / sum x`` and
  ``se^2 = n / (n - 1) * sum (y_c - R x_c)^2 / (sum x)^2`` (Cochran's
  linearised variance), expanded into sums of squares and cross products so
  that it needs only mergeable integers.
- Score fractions follow fishtest's pentanomial approach generalised to any
  number of rotations: each cluster's mean score ``m_c`` (win 1, draw 1/2,
  loss 0, averaged over the cluster's equally many games or hands) is one
  observation; ``mu`` is their mean and ``var`` their population variance,
  ``se = sqrt(var / n)``. Elo = ``-400 log10(1 / s - 1)``; its interval maps
  ``mu -/+ Z95 se`` through it; LOS = ``Phi((mu - 1/2) / se)``.
- GSPRT (fishtest ``LLR_logistic``): ``s_i = 1 / (1 + 10^(-elo_i / 400))``,
  ``LLR = n (s1 - s0) (2 mu - s0 - s1) / (2 var)``; bounds
  ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``. With
  ``var = 0`` (every cluster scored the same, e.g. a strategy against itself
  with duplicate deals) the evidence is taken as conclusive: LLR is
  ``+-inf`` by the sign of ``2 mu - s0 - s1`` (0 if that is 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials (NaNs when ``n = 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def ratio_mean(sum_y: int, sum_x: int, sum_y2: int, sum_xy: int, sum_x2: int, n: int) -> tuple[float, float]:
    """Ratio estimator ``sum y / sum x`` over ``n`` clusters and its standard error.

    The squared residual sum ``sum (y - R x)^2 = sum y^2 - 2 R sum xy + R^2 sum x^2``
    is formed from the integer sums; the standard error is NaN with fewer than
    two clusters.
    """
    # Python ints: the products below overflow int64 long before the sums do
    sum_y, sum_x, sum_y2, sum_xy, sum_x2, n = map(int, (sum_y, sum_x, sum_y2, sum_xy, sum_x2, n))
    if sum_x <= 0:
        return (math.nan, math.nan)
    r = sum_y / sum_x
    if n < 2:
        return (r, math.nan)
    # exact integer arithmetic for the residual: sum (x*sum_y - y*sum_x)^2 / sum_x^2
    resid_num = sum_y2 * sum_x * sum_x - 2 * sum_y * sum_x * sum_xy + sum_y * sum_y * sum_x2
    resid = max(resid_num, 0) / (sum_x * sum_x)
    var = n / (n - 1) * resid / (sum_x * sum_x)
    return (r, math.sqrt(var))


def normal_ci(mean: float, se: float, z: float = Z95) -> tuple[float, float]:
    return (mean - z * se, mean + z * se)


def score_of_elo(elo: float) -> float:
    """Expected score for an Elo difference (logistic)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(s: float) -> float:
    """Elo difference for a score fraction; +-inf at 1 and 0."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_moments(hist: Sequence[int]) -> tuple[int, float, float]:
    """``(n, mu, var)`` of per-cluster mean scores from a histogram.

    ``hist[k]`` counts clusters whose score, in half-points, is ``k``; the
    histogram has ``2 m + 1`` bins for clusters of ``m`` games or hands, so a
    cluster's mean score is ``k / (2 m)``. ``var`` is the population variance.
    """
    n = int(sum(hist))
    if n == 0:
        return (0, math.nan, math.nan)
    top = len(hist) - 1
    s1 = sum(int(c) * k for k, c in enumerate(hist))
    s2 = sum(int(c) * k * k for k, c in enumerate(hist))
    mu = s1 / (n * top)
    # population variance from exact integers: (n s2 - s1^2) / (n^2 top^2)
    var = max(n * s2 - s1 * s1, 0) / (n * n * top * top)
    return (n, mu, var)


def elo_summary(hist: Sequence[int], z: float = Z95) -> dict:
    """Score, Elo difference with its interval, and likelihood of superiority."""
    n, mu, var = score_moments(hist)
    if n == 0:
        return {"clusters": 0, "score": None, "score_ci95": None, "elo": None, "elo_ci95": None, "los": None, "se": None}
    se = math.sqrt(var / n)
    lo, hi = max(0.0, mu - z * se), min(1.0, mu + z * se)
    if se > 0:
        los = phi((mu - 0.5) / se)
    else:
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return {"clusters": n, "score": mu, "score_ci95": [lo, hi], "se": se, "elo": finite(elo_of_score(mu)),
            "elo_ci95": [finite(elo_of_score(lo)), finite(elo_of_score(hi))], "los": los}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def sprt_llr(hist: Sequence[int], elo0: float, elo1: float) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0)."""
    n, mu, var = score_moments(hist)
    if n == 0:
        return 0.0
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    num = (s1 - s0) * (2 * mu - s0 - s1)
    if var == 0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return n * num / (2 * var)


def sprt_decision(llr: float, alpha: float, beta: float) -> str | None:
    """``"H1"`` when the upper bound is reached, ``"H0"`` at the lower one, else None."""
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def finite(x: float) -> float | None:
    """JSON has no infinities or NaNs: they become null."""
    return x if math.isfinite(x) else None


# --- paired differences between runs on the same deals (compare, tournament) ---------------

def paired_ratio_diff(ya: Sequence[int], xa: Sequence[int], yb: Sequence[int], xb: Sequence[int]) -> tuple[float, float]:
    """``R_a - R_b`` for two ratio estimators observed on the same clusters, and its standard error.

    Cluster ``c`` contributes ``(ya_c, xa_c)`` to run a and ``(yb_c, xb_c)`` to run b (common
    random numbers: the same deals); the linearised residuals
    ``u_c = (ya_c - R_a xa_c) / sum xa - (yb_c - R_b xb_c) / sum xb`` keep the pairing, so
    ``se^2 = n / (n - 1) * sum u_c^2`` (the two-run form of ``ratio_mean``'s variance).
    NaN standard error with fewer than two clusters.
    """
    n = len(ya)
    if not (n == len(xa) == len(yb) == len(xb)):
        raise ValueError("paired_ratio_diff: the four sequences must have one entry per cluster")
    sxa, sxb = sum(int(v) for v in xa), sum(int(v) for v in xb)
    if sxa <= 0 or sxb <= 0:
        return (math.nan, math.nan)
    ra, rb = sum(int(v) for v in ya) / sxa, sum(int(v) for v in yb) / sxb
    if n < 2:
        return (ra - rb, math.nan)
    ss = sum(((int(a) - ra * int(p)) / sxa - (int(b) - rb * int(q)) / sxb) ** 2
             for a, p, b, q in zip(ya, xa, yb, xb))
    return (ra - rb, math.sqrt(n / (n - 1) * ss))
