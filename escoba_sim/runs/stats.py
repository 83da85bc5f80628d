"""The statistics of a strategy-vs-strategy run, computed from exact integer sums.

Every function here takes counts or sums that ``runner`` merges exactly across
chunks, so a summary depends only on the seed and the run's arguments, never
on how the work was split (each formula is checked against a naive or
hand-worked value, or scipy, in tests/runs/test_stats.py).

One model for every interval: the unit is the *deal* (every game or hand that
shares a deal index across seat rotations, and across the runs of a comparison
or a tournament, which play the same deals). Deals are independent; the games
of one deal are not (duplicate pairing makes them strongly dependent).

- Each deal ``c`` contributes a vector of integer totals ``v_c`` (hands,
  games, wins, points...: ``runs.aggregates.DealLayout``). Runs keep ``n``,
  ``S = sum_c v_c`` and ``G = sum_c v_c v_c^T``, which merge by addition, so an
  interval never depends on how the deals were cut into chunks or jobs.
- An estimate is a ratio of linear combinations, ``R = a.S / b.S`` (points per
  hand, win rate, hands per game), or a difference of two such ratios
  (between players, positions or rulesets on the same deals). Its standard
  error is the delta method (Cochran's linearised variance) with the deal as
  the unit: with the residual ``u_c = g . v_c`` (``g`` the gradient in ``S``),
  ``se^2 = n / (n - 1) * sum_c (u_c - mean u)^2 = (n g'Gg - (g'S)^2) / (n - 1)``,
  evaluated in exact integer arithmetic. A paired difference keeps the
  covariance of the two ratios through the cross products in ``G``.
- 95% intervals are ``estimate -/+ Z95 se``, ``Z95 = Phi^-1(0.975)``, for
  quantities without bounds (points per hand, differences). A proportion or
  score (win rate, game score, share of hands) keeps ``[0, 1]``: its interval
  is Wilson's at the effective sample size ``n_eff = p (1 - p) / se^2`` (the
  number of independent trials with the deal model's variance: Kish's design
  effect), ``proportion_interval``; at ``p = 0`` or ``1`` (``se = 0``) it is
  Wilson's one-sided bound with ``n_eff`` the number of deals (the largest
  design effect: every game of a deal alike). The plain Wilson interval is
  used for proportions of independent outcomes (independent pairing, where
  every deal is one game).
- Bradley-Terry ratings (tournaments): the MM fit on game wins, and a
  sandwich covariance ``H+ V H+`` whose score covariance ``V`` is taken over
  deals (``bradley_terry_cov``).
- Score fractions follow fishtest's pentanomial approach generalised to any
  number of rotations (the same deal model): each deal's mean score ``m_c`` (win 1, draw 1/2,
  loss 0, averaged over the deal's equally many games or hands) is one
  observation; ``mu`` is their mean and ``var`` their population variance,
  ``se = sqrt(var / n)``. Elo = ``-400 log10(1 / s - 1)``; its interval maps
  the score's interval (``proportion_interval``) through it; LOS = ``Phi((mu - 1/2) / se)``.
- GSPRT (fishtest ``LLR_logistic``): ``s_i = 1 / (1 + 10^(-elo_i / 400))``,
  ``LLR = n (s1 - s0) (2 mu - s0 - s1) / (2 var)``; bounds
  ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``. It is checked
  after every deal, so ``var = 0`` (every deal so far scored the same: the
  first deal, or a strategy against itself with duplicate deals) carries no
  measured evidence: LLR 0.
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


def proportion_interval(p: float, se: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% interval of a proportion ``p`` in [0, 1] with the deal model's standard error ``se`` over ``n`` deals.

    Wilson's score interval at the effective sample size ``n_eff = p (1 - p) / se^2`` (the design
    effect of the deals), so it never leaves [0, 1] and is close to ``p -/+ z se`` away from the
    bounds. ``p`` of exactly 0 or 1 (``se = 0``, nothing varied) gets Wilson's one-sided bound
    with ``n_eff = n`` deals: ``[0, z^2 / (n + z^2)]`` at 0. ``se = 0`` inside (0, 1) (every
    deal alike) is the point ``[p, p]``; NaN ``se`` (under two deals) gives NaNs.
    """
    if not (math.isfinite(p) and math.isfinite(se)) or n <= 0:
        return (math.nan, math.nan)
    p = min(max(p, 0.0), 1.0)
    if p <= 0.0 or p >= 1.0:
        bound = z * z / (n + z * z)
        return (0.0, bound) if p <= 0.0 else (1.0 - bound, 1.0)
    if se <= 0.0:
        return (p, p)
    m = p * (1.0 - p) / (se * se)
    z2 = z * z
    denom = 1.0 + z2 / m
    centre = (p + z2 / (2 * m)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / m + z2 / (4 * m * m))
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


def _quad(u, gram) -> int:
    """``u' G u`` in exact Python integers."""
    u = [int(v) for v in u]
    nz = [i for i, v in enumerate(u) if v]
    return sum(u[i] * u[j] * int(gram[i][j]) for i in nz for j in nz)


def _dot(u, s) -> int:
    return sum(int(a) * int(b) for a, b in zip(u, s))


def _delta_se(u, scale2: int, sums, gram, n: int) -> float:
    """``se`` of an estimate whose linearised residual is ``u . v_c / scale`` (``scale2 = scale^2``)."""
    if n < 2:
        return math.nan
    us = _dot(u, sums)
    # n / (n - 1) * sum_c (u_c - mean u)^2 / scale^2, the numerator in exact integers
    num = n * _quad(u, gram) - us * us
    return math.sqrt(max(num, 0) / (n - 1) / scale2)


def deal_ratio(sums, gram, n: int, a, b) -> tuple[float, float]:
    """``R = a.S / b.S`` and its standard error, the deal as unit (``a``, ``b`` integer weights)."""
    A, B = _dot(a, sums), _dot(b, sums)
    if B == 0:
        return (math.nan, math.nan)
    # residual (a - R b) . v_c / B, scaled by B to stay in integers: (B a - A b) . v_c / B^2
    u = [B * int(x) - A * int(y) for x, y in zip(a, b)]
    return (A / B, _delta_se(u, B ** 4, sums, gram, n))


def deal_ratio_diff(sums, gram, n: int, a1, b1, a2, b2) -> tuple[float, float]:
    """``a1.S / b1.S - a2.S / b2.S`` on the same deals and its standard error (covariance included)."""
    A1, B1, A2, B2 = _dot(a1, sums), _dot(b1, sums), _dot(a2, sums), _dot(b2, sums)
    if B1 == 0 or B2 == 0:
        return (math.nan, math.nan)
    # residual ((B1 a1 - A1 b1) / B1^2 - (B2 a2 - A2 b2) / B2^2) . v_c, over the common scale B1^2 B2^2
    u = [(B1 * int(p) - A1 * int(q)) * B2 * B2 - (B2 * int(r) - A2 * int(s)) * B1 * B1
         for p, q, r, s in zip(a1, b1, a2, b2)]
    return (A1 / B1 - A2 / B2, _delta_se(u, (B1 * B1 * B2 * B2) ** 2, sums, gram, n))


def deal_function(sums, gram, n: int, forms, f) -> tuple[float, float]:
    """A smooth function of several linear forms' totals and its standard error, the deal as unit.

    ``forms`` are weight vectors on the per-deal vector; ``f(T)`` returns the estimate and its gradient in the
    totals ``T_k = forms_k . S``. The delta method: the residual ``u = sum_k grad_k forms_k`` has
    ``se^2 = (n u'Gu - (u'S)^2) / (n - 1)`` (``_delta_se``'s, in floating point: the gradient is not integer).
    A ratio of two ratios (``relative skill``) or a difference of two such is one ``f``."""
    import numpy as np

    S = np.asarray(sums, dtype=float)
    F = np.asarray(forms, dtype=float)
    est, grad = f(F @ S)
    if n < 2 or not math.isfinite(est):
        return (float(est), math.nan)
    u = np.asarray(grad, dtype=float) @ F
    Gu = np.asarray(gram, dtype=float) @ u
    num = n * float(u @ Gu) - float(u @ S) ** 2
    return (float(est), math.sqrt(max(num, 0.0) / (n - 1)))


def figure_quotient(num, den):
    """``num / den`` of two figures ``(forms, f)`` as ``deal_function`` reads them (``f(T)``: the estimate and
    its gradient in the forms' totals); the forms are the two figures' side by side."""
    (fa, a), (fb, b) = num, den

    def f(T):
        (x, gx), (y, gy) = a(T[:len(fa)]), b(T[len(fa):])
        if not (y != 0 and math.isfinite(x) and math.isfinite(y)):
            return math.nan, [0.0] * len(T)
        q = x / y
        return q, [g / y for g in gx] + [-q * g / y for g in gy]
    return [*fa, *fb], f


def figure_minus(one, other):
    """``one - other`` of two figures ``(forms, f)`` (``figure_quotient``'s): a paired difference when both are
    read from the same deals."""
    (fa, a), (fb, b) = one, other

    def f(T):
        (x, gx), (y, gy) = a(T[:len(fa)]), b(T[len(fa):])
        return x - y, [*gx, *(-g for g in gy)]
    return [*fa, *fb], f


def unit(size: int, *at: int, weights: Sequence[int] | None = None) -> list[int]:
    """An integer weight vector of length ``size``: 1 (or ``weights``) at the indices ``at``."""
    out = [0] * size
    for i, w in zip(at, weights or [1] * len(at)):
        out[i] += w
    return out


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
    lo, hi = proportion_interval(mu, se, n, z)
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
        return 0.0
    return n * num / (2 * var)


def sprt_llr_path(hist: Sequence[int], bins: Sequence[int], elo0: float, elo1: float) -> list[float]:
    """The GSPRT's LLR after each further deal: ``hist`` so far, then deals scoring ``bins`` (half-points)."""
    import numpy as np

    top = len(hist) - 1
    n0 = int(sum(hist))
    s1_0 = sum(int(c) * k for k, c in enumerate(hist))
    s2_0 = sum(int(c) * k * k for k, c in enumerate(hist))
    b = np.asarray(bins, dtype=np.int64)
    n = n0 + np.arange(1, len(b) + 1, dtype=np.float64)
    s1 = s1_0 + np.cumsum(b).astype(np.float64)
    s2 = s2_0 + np.cumsum(b * b).astype(np.float64)
    mu = s1 / (n * top)
    var = np.maximum(n * s2 - s1 * s1, 0.0) / (n * n * top * top)
    s0, s1_ = score_of_elo(elo0), score_of_elo(elo1)
    num = (s1_ - s0) * (2 * mu - s0 - s1_)
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = np.where(var > 0, n * num / (2 * np.where(var > 0, var, 1.0)), 0.0)
    return llr.tolist()


def sprt_decision(llr: float, alpha: float, beta: float) -> str | None:
    """``"H1"`` when the upper bound is reached, ``"H0"`` at the lower one, else None."""
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def bradley_terry(wins, iters: int = 10_000, tol: float = 1e-12):
    """Elo-scale Bradley-Terry ratings (mean 0) from ``wins[i, j]`` = games i won against j.

    MM updates ``p_i = W_i / sum_j n_ij / (p_i + p_j)`` (Hunter 2004). A strategy that never
    wins (or never loses) has no finite MLE: a half win is added to every played pairing in
    both directions so the fit always exists (a mild prior).
    """
    import numpy as np

    w = np.asarray(wins, dtype=float)
    played = (w + w.T) > 0
    w = w + 0.5 * played
    n = w + w.T
    p = np.ones(len(w))
    for _ in range(iters):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = w.sum(axis=1) / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = 400 * np.log10(p)
    return r - r.mean()


ELO_PER_NAT = 400 / math.log(10)


def bradley_terry_cov(ratings, pairs: Sequence[tuple[int, int]], sums, gram, n: int):
    """Covariance of the Elo-scale Bradley-Terry ratings, the deal as unit (a sandwich estimator).

    Every pair ``p = (i, j)`` plays the same ``n`` deals; per deal it contributes the vector
    ``(w_ij, w_ji)`` (games i won, games j won) at columns ``2p, 2p + 1`` of ``sums``/``gram``
    (``S`` and ``G`` of the concatenated per-deal vectors). The log-likelihood's score for
    strength ``theta_i`` is a sum over deals of ``U_ic = sum_j (w_ijc pi_ji - w_jic pi_ij)``,
    ``pi_ij = 1 / (1 + exp(theta_j - theta_i))``; its covariance ``V`` comes from ``G``
    (deals independent, games within a deal not), the information ``H`` from the model, and
    ``cov(theta) = H+ V H+`` (pseudo-inverse: ratings are fixed only up to a constant).
    """
    return bradley_terry_joint_cov([ratings], pairs, sums, gram, n)


def bradley_terry_joint_cov(ratings: Sequence, pairs: Sequence[tuple[int, int]], sums, gram, n: int):
    """``bradley_terry_cov`` of several fits on the same deals at once (one per ruleset of a skill ladder, each
    ``ratings[k]`` fitted on its own ``2 P`` columns, block ``k`` of ``sums``/``gram``): the ratings side by
    side, with their covariance across fits (the same deals move them together), for paired differences."""
    import numpy as np

    S = np.asarray([float(v) for v in sums])
    G = np.asarray([[float(v) for v in row] for row in gram])
    width = 2 * len(pairs)
    blocks = [_bt_parts(r, pairs, S[k * width:(k + 1) * width]) for k, r in enumerate(ratings)]
    m = sum(len(r) for r in ratings)
    if n < 2:
        return np.full((m, m), np.nan)
    A = np.zeros((m, len(S)))
    Hp = np.zeros((m, m))
    at = 0
    for k, (a, h) in enumerate(blocks):
        A[at:at + len(h), k * width:(k + 1) * width] = a
        Hp[at:at + len(h), at:at + len(h)] = np.linalg.pinv(h)
        at += len(h)
    cov_v = (G - np.outer(S, S) / n) * (n / (n - 1))
    V = A @ cov_v @ A.T
    return ELO_PER_NAT ** 2 * (Hp @ V @ Hp)


def _bt_parts(ratings, pairs: Sequence[tuple[int, int]], S):
    """One fit's score coefficients ``A`` (strengths x its ``2 P`` columns) and information ``H``."""
    import numpy as np

    theta = np.asarray(ratings, float) / ELO_PER_NAT
    m = len(theta)
    pi = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # pi[i, j]: i beats j
    A = np.zeros((m, len(S)))
    H = np.zeros((m, m))
    for p, (i, j) in enumerate(pairs):
        A[i, 2 * p], A[i, 2 * p + 1] = pi[j, i], -pi[i, j]
        A[j, 2 * p + 1], A[j, 2 * p] = pi[i, j], -pi[j, i]
        nij = S[2 * p] + S[2 * p + 1]
        h = nij * pi[i, j] * pi[j, i]
        H[i, i] += h
        H[j, j] += h
        H[i, j] -= h
        H[j, i] -= h
    return A, H


def finite(x: float) -> float | None:
    """JSON has no infinities or NaNs: they become null."""
    return x if math.isfinite(x) else None


# --- paired differences between runs on the same deals (compare, tournament) ---------------

def paired_ratio_diff(ya: Sequence[int], xa: Sequence[int], yb: Sequence[int], xb: Sequence[int]) -> tuple[float, float]:
    """``R_a - R_b`` for two ratio estimators observed on the same clusters, and its standard error.

    Cluster ``c`` contributes ``(ya_c, xa_c)`` to ratio a and ``(yb_c, xb_c)`` to ratio b; the
    deal model (``deal_ratio_diff``) on the vectors ``v_c = (ya, xa, yb, xb)`` keeps the pairing
    through the cross products. NaN standard error with fewer than two clusters.
    """
    n = len(ya)
    if not (n == len(xa) == len(yb) == len(xb)):
        raise ValueError("paired_ratio_diff: the four sequences must have one entry per cluster")
    v = [[int(p), int(q), int(r), int(s)] for p, q, r, s in zip(ya, xa, yb, xb)]
    sums = [sum(row[i] for row in v) for i in range(4)]
    gram = [[sum(row[i] * row[j] for row in v) for j in range(4)] for i in range(4)]
    return deal_ratio_diff(sums, gram, n, [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1])
