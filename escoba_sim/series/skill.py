"""How much skill each ruleset rewards: a ladder of strategies, every pair on the same duplicate deals,
per ruleset (a tournament per ruleset), read as numbers a game designer weighs (docs/skill.md).

Every ruleset plays every pair of the ladder with the series' one seed and chunk size, so all runs of
all rulesets hold the same deals (common random numbers). Per ruleset:

- the ladder's Bradley-Terry ratings are ``tournament.analyse`` on that ruleset's pairs (the very
  numbers ``escoba-sim tournament`` gives on the same deals), their spread best minus worst and the
  steps between ladder neighbours, with intervals from the ratings' deal-model covariance;
- ``skill_share``: the variance of the expected game outcome between the ladder's pairings over the
  total outcome variance (a one-way variance decomposition; the game score 1, 1/2, 0 of a random
  side of a random pairing). The between part is estimated without bias by a U-statistic over deals
  (``sum_{c != d} y_c . y_d``, from the per-deal sums and cross products), so a ladder of one
  strategy against itself gives an estimate centred on 0; its standard error is the U-statistic's
  (Hoeffding 1948: first- and second-order terms), combined with the ratio's delta method;
- ``games_to_win``: games the stronger of two ladder neighbours needs to win a match (more game wins
  than losses) with 95 % probability (Fiedler & Rock 2009's critical repetition frequency), from
  the pair's win/draw/loss shares (``games_needed``); ``hands_to_win`` is that times the pair's
  hands per game (its interval holds the game length's uncertainty too: ``hands_interval``). The table
  shows the closest step (the largest count);
- ``seat_advantage`` (mano's minus dealer's points per hand), ``hands_per_game``, ``escobas`` and
  ``lucky_escobas`` per hand, over all the ruleset's pairs, as ``compare`` defines them.

With several rulesets, each one's skill share, seat advantage, hands per game and escobas minus the first's,
paired by deal (``paired_effects``).

Under 3 players without teams each pair is two runs, (A, B, B) and (B, A, A), read as one two-sided pair
(``lineups``; docs/skill.md, "Three players"); ``seat_advantage`` is then mano minus dealer, the middle seat
in neither.

Output folder: ``DIR/manifest.json`` (kind "skill": the ladder as ``strategies``, the ``rulesets``,
and under ``pairs`` one ``{"ruleset", "a", "b", "run"}`` per run), ``DIR/runs/NN/`` (one runner
folder per ruleset and pair, ruleset-major), ``DIR/tables/*.parquet`` (skill, skill_effects, skill_ratings,
skill_steps, skill_pairs) and ``DIR/summary.json``.
"""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np

from .. import __version__
from ..batch import engine_for
from ..errors import EscobaError, Parameter
from ..game.rules import parse_rules
from ..i18n import N_
from ..i18n import translate as _
from ..runs import stats
from ..runs.aggregates import DealLayout
from ..runs.spec import RunError
from ..strategies import StrategyError, check_strategy, parse_strategy
from .compare import Variant, build_variants, metric_defs
from .drama import METRIC_TEXT as DRAMA_TEXT
from .drama import METRICS as DRAMA_METRICS
from .drama import calibration_errors, drama_rows
from .lineups import THREE_PLAYER_PAIRS, lineup_text, pair_specs, runs_per_pair
from .scorecard import METRIC_TEXT as SCORECARD_TEXT
from .scorecard import METRICS as SCORECARD_METRICS
from .scorecard import coin_flip, scorecard_rows
from .scorecard import plan as scorecard_plan
from .tables import (
    SERIES_FORMAT,
    estimate_frame,
    interval,
    json_rows,
    run_series,
    series_chunk_size,
    series_deal_sums,
    write_results,
)
from .tournament import analyse as tournament_tables

KIND = "skill"
DEFAULT_LADDER = ("random", "greedy", "heuristic", "endgame", "ismcts")
LEVEL = 0.95  # the match-win probability of games_to_win
EXACT_GAMES = 4000  # games_needed counts exactly up to here, then by the normal approximation
# the per-ruleset quantities (``metric`` names of the skill table), in the table's order
METRICS = ("skill_share", "rating_spread", "games_to_win", "hands_to_win", "seat_advantage", "hands_per_game",
           "escobas", "lucky_escobas", *SCORECARD_METRICS, *DRAMA_METRICS)
METRIC_TEXT = {  # (translated where shown)
    "skill_share": (N_("skill share: outcome variance between strategies over total"), N_("share of variance")),
    "rating_spread": (N_("rating spread, best minus worst"), N_("Elo points")),
    "games_to_win": (N_("games the stronger neighbour needs to win a match with 95% probability (closest step)"),
                     N_("games")),
    "hands_to_win": (N_("hands the stronger neighbour needs to win a match with 95% probability (closest step)"),
                     N_("hands")),
    "seat_advantage": (N_("seat advantage: mano minus dealer"), N_("points per hand")),
    "hands_per_game": (N_("hands per game"), N_("hands")),
    "escobas": (N_("escobas per hand (all sides)"), N_("escobas per hand")),
    "lucky_escobas": (N_("lucky-deal escobas per hand (all sides)"), N_("escobas per hand")),
    **SCORECARD_TEXT,
    **DRAMA_TEXT,
}


LADDER = Parameter("ladder")


class SkillError(EscobaError):
    """Arguments that cannot make a skill ladder; the message is one line for the user."""


def split_ladder(text: str) -> list[str]:
    """``random,greedy,heuristic:oros=2,escoba=1`` into strategy specs: a piece with ``=`` and no ``:``
    is a parameter of the spec before it (a spec's own parameters are separated by commas too)."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and "=" in piece and ":" not in piece:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def ladder_labels(ladder: list[str]) -> list[str]:
    """Each ladder entry's short name; a strategy entered again gets ``#2``, ``#3`` (a ladder of one
    strategy against itself is the no-skill check)."""
    out: list[str] = []
    for s in ladder:
        base = parse_strategy(s).short
        out.append(base if base not in out else f"{base}#{sum(1 for x in ladder[:len(out)] if x == s) + 1}")
    return out


def skill_variants(rules: list, vary: list[str]) -> list[Variant]:
    """The rulesets of a skill ladder: one ruleset (default ludoteka) unless several ``rules`` or ``vary``
    are given, then as ``compare.build_variants`` makes them."""
    if not vary and len(rules) <= 1:
        r = parse_rules(rules[0] if rules else None)
        return [Variant(r.canonical(), r)]
    return build_variants(rules, vary)


def check_rulesets(variants: list[Variant]) -> None:
    """A ladder's pairs are two-sided games: 2 players, 3 (each pair in two lineups: ``lineups``), or 4 or 6 in
    teams (else one SkillError line)."""
    for v in variants:
        if v.rules.players not in (2, 3) and not v.rules.teams:
            raise SkillError(_("{ruleset}: a ladder's pairs are two-sided games: use 2 or 3 players, or 4 or 6 "
                               "with teams (e.g. {rules} 'ludoteka(players=4,teams=true)')"), parameter="rules",
                             ruleset=v.label, rules=Parameter("rules"))
    if len({v.rules.players for v in variants}) > 1:  # (a manifest's rulesets: the command line's are checked)
        raise SkillError(_("every compared ruleset must have the same number of players"), parameter="rules")


def check_ladder(ladder: list[str]) -> list[str]:
    """The ladder's specs in canonical form; a spec that names no strategy is one SkillError line."""
    if len(ladder) < 2:
        raise SkillError(_("a skill ladder needs two or more strategies (e.g. {ladder} random,greedy)"),
                         parameter=LADDER, ladder=LADDER)
    try:
        return [check_strategy(x) for x in ladder]
    except StrategyError as e:
        raise SkillError.around(e, "{ladder}: {problem}", parameter=LADDER, ladder=LADDER) from None


# --- Fiedler & Rock's critical repetition frequency ------------------------------------------

def match_win_probability(p_win: float, p_loss: float, games: int) -> float:
    """Probability that a side winning a game with ``p_win`` and losing it with ``p_loss`` (a draw
    otherwise) wins more games than it loses in a match of ``games`` games."""
    p_draw = max(0.0, 1.0 - p_win - p_loss)
    dist = np.zeros(2 * games + 1)
    dist[games] = 1.0
    for _ in range(games):
        dist = p_draw * dist + p_win * np.roll(dist, 1) + p_loss * np.roll(dist, -1)
    return float(dist[games + 1:].sum())


def games_needed(p_win: float, p_loss: float, level: float = LEVEL) -> float:
    """The fewest games after which the side with ``p_win > p_loss`` wins the match (more game wins than
    losses) with probability ``level``: counted exactly up to ``EXACT_GAMES`` games (the distribution of
    wins minus losses, game by game), beyond by the normal approximation; ``inf`` when ``p_win <= p_loss``."""
    mu = p_win - p_loss
    if not (mu > 0):
        return math.inf
    var = p_win + p_loss - mu * mu
    z = _z(level)
    guess = (z * math.sqrt(var) / mu) ** 2
    if guess > 2 * EXACT_GAMES:
        return math.ceil(guess)
    p_draw = max(0.0, 1.0 - p_win - p_loss)
    top = EXACT_GAMES
    dist = np.zeros(2 * top + 3)
    mid = top + 1
    dist[mid] = 1.0
    for n in range(1, top + 1):
        dist = p_draw * dist + p_win * np.roll(dist, 1) + p_loss * np.roll(dist, -1)
        if dist[mid + 1:].sum() >= level:
            return n
    return math.ceil(guess)


def hands_interval(need: float, n_lo: float | None, n_hi: float, hpg: float, hpg_se: float) -> tuple:
    """The 95 % interval of ``hands_to_win = need * hpg``: the games count's ends (``n_lo``, ``n_hi``, at the ends
    of the interval of wins minus losses) times the hands per game, each end moved further out on the log
    scale by the game length's own uncertainty, in quadrature: ``|log(H / H_end)| = sqrt(log(need / n_end)^2 +
    (z se(hpg) / hpg)^2)``. The two are treated as independent (their covariance over deals is left out). Without
    a finite count, or a finite se of hpg, the games' ends times hpg."""
    plain = (n_lo * hpg if n_lo is not None else None, n_hi * hpg)
    if not (math.isfinite(need) and need > 0 and hpg > 0 and math.isfinite(hpg_se)):
        return plain
    own = _z(0.975) * hpg_se / hpg

    def end(n_end: float | None, sign: int) -> float | None:
        if n_end is None or not math.isfinite(n_end):  # no lower end, or the edge may be nil
            return n_end
        return need * hpg * math.exp(sign * math.hypot(math.log(need / n_end), own))

    return end(n_lo, -1), end(n_hi, 1)


def _z(level: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(level)


# --- the skill share: a variance decomposition on duplicate deals ------------------------------

def skill_share(S, G, n: int, won_a: list[int], won_b: list[int], games: list[int]) -> tuple[float, float]:
    """Between-pairing variance of the expected game score over the total score variance, and its se.

    ``won_a[p]``, ``won_b[p]``, ``games[p]`` are the columns of pair p's games won by each side and
    games played in the per-deal vector whose sums are ``S`` and cross products ``G`` over ``n`` deals.
    Per deal, ``y_p = (won_a - won_b) / g`` (``g`` the games per deal) has mean ``delta_p = 2 s_p - 1``
    (``s_p`` the pair's game score, draws half); the between variance is ``mean_p (s_p - 1/2)^2 =
    |delta|^2 / 4P``, estimated without bias by ``sum_{c != d} y_c . y_d / n(n-1)``. The total variance
    of the score about 1/2 is a quarter of the decisive share (a draw is 1/2 exactly).
    """
    return share_contrast(S, G, n, [(1, won_a, won_b, games)])


def share_contrast(S, G, n: int, blocks) -> tuple[float, float]:
    """``sum_b sign_b * skill_share_b`` over ``blocks`` of ``(sign, won_a, won_b, games)`` columns (e.g. one
    ruleset's pairs minus another's, on the same deals) and its standard error (``skill_share``'s method).

    The U-statistics' variance is Hoeffding's: a first-order term (each deal's influence, linear in its
    vector, with the plug-in's bias ``tr((W Sigma)^2) / n`` taken out) and a second-order one,
    ``2 (tr((W M)^2) - (delta' W delta)^2) / n(n-1)``, ``W`` the blocks' weights ``sign / 4 P D``, ``M =
    E[y y']``; the ratios to the total variances ``D`` by the delta method.
    """
    S = np.asarray(S, dtype=float)
    G = np.asarray(G, dtype=float)
    if n < 2:
        return math.nan, math.nan
    rows, weights, est, est_pos = [], [], 0.0, 0.0
    w = np.zeros(len(S))
    for sign, won_a, won_b, games in blocks:
        P = len(games)
        g_total = sum(S[c] for c in games)
        if g_total <= 0:
            return math.nan, math.nan
        g = g_total / (P * n)  # games per deal of each pair (every pair plays the same deals)
        L = np.zeros((P, len(S)))
        a = np.zeros(len(S))
        b = np.zeros(len(S))
        for p in range(P):
            L[p, won_a[p]] += 1 / g
            L[p, won_b[p]] -= 1 / g
            a[won_a[p]] += 0.25  # the total: 1/4 of the decisive share, a ratio of per-deal sums
            a[won_b[p]] += 0.25
            b[games[p]] += 1.0
        A, B = a @ S, b @ S
        if A <= 0:
            return math.nan, math.nan
        D = A / B
        Sy = L @ S
        U = (Sy @ Sy - np.trace(L @ G @ L.T)) / (n * (n - 1))  # unbiased |delta|^2
        share = U / (4 * P) / D
        est += sign * share
        est_pos += sign * max(U, 0.0) / (4 * P) / D
        # first order: deal c's influence on the share (U's is 2 (y_c - ybar) . delta)
        w += sign * (2 * (L.T @ (Sy / n)) / (4 * P * D) - share * (a - D * b) / (B / n) / D)
        rows.append(L)
        weights += [sign / (4 * P * D)] * P
    L = np.vstack(rows)
    W = np.diag(weights)
    cov_v = (G - np.outer(S, S) / n) / (n - 1)
    WC = W @ (L @ cov_v @ L.T)
    # delta's plug-in inflates the first-order term by 4 tr((W Sigma_y)^2) / n: taken out, so that with no
    # skill the first-order term is nil on average, as it is in truth
    var1 = (float(w @ cov_v @ w) - 4 * float(np.trace(WC @ WC)) / n) / n  # may be < 0: only the sum is a variance
    WM = W @ (L @ G @ L.T) / n
    zeta2 = max(float(np.trace(WM @ WM)) - est_pos ** 2, 0.0)
    var2 = 2 * zeta2 / (n * (n - 1))
    return float(est), math.sqrt(var1 + var2 if var1 + var2 > 0 else var2)


def pair_columns(size: int, P: int, offset: int = 0, cols: tuple[int, int, int] | None = None):
    """The won-by-each-side and games columns of ``P`` pairs' runs side by side (``size`` columns each) from run
    ``offset`` on; ``cols`` are those columns within a run's vector (default ``DealLayout(2)``'s)."""
    lay = DealLayout(2)
    won_a, won_b, games = cols or (lay.won(0), lay.won(1), lay.games)
    return ([(offset + p) * size + won_a for p in range(P)], [(offset + p) * size + won_b for p in range(P)],
            [(offset + p) * size + games for p in range(P)])


# the figures of a ruleset that each other ruleset's is paired against, deal by deal (``paired_effects``)
EFFECT_METRICS = ("skill_share", "rating_spread", "seat_advantage", "hands_per_game", "escobas", "lucky_escobas")


def paired_effects(variants: list[Variant], P: int, run_dirs, specs, ratings=None, games: float = 0) -> list[tuple]:
    """Each ruleset's skill share, seat advantage, hands per game, escobas and lucky-deal escobas minus the
    first ruleset's, paired by deal (every ruleset plays the same deals, so a deal's games under both move
    together): the columns these need of every pair's runs side by side, deal by deal, one chunk at a time
    (flat memory); the skill share by ``share_contrast``, the others as a difference of two ratios
    (``stats.deal_ratio_diff``), each ruleset's ratio summed over its pairs as ``_ruleset_tables`` does."""
    if len(variants) < 2:
        return []
    lay = DealLayout(2)
    game = [m for m in EFFECT_METRICS if m != "skill_share"]
    defs = [metric_defs(v.rules, ["a", "b"], sides=2) for v in variants]
    used = {lay.won(0), lay.won(1), lay.games}
    for d in defs:
        used |= {i for m in game if m in d for w in d[m] for i, x in enumerate(w) if x}
    cols = sorted(used)
    where = {c: j for j, c in enumerate(cols)}
    size, total = len(cols), len(cols) * P * len(variants)
    n = S = G = None
    for _k, n, S, G in series_deal_sums(run_dirs, specs, specs[0].n_chunks, columns=cols,
                                        lineups=runs_per_pair(variants[0].rules)):
        pass
    win = (where[lay.won(0)], where[lay.won(1)], where[lay.games])

    def spread(w: list[int], ruleset: int) -> list[int]:  # one pair's weights on every pair of ``ruleset``
        out = [0] * total
        for p in range(P):
            for c, x in enumerate(w):
                if x:
                    out[(ruleset * P + p) * size + where[c]] += x
        return out

    rows = []
    for r in range(1, len(variants)):
        d, se = share_contrast(S, G, n, [(1, *pair_columns(size, P, r * P, win)),
                                         (-1, *pair_columns(size, P, 0, win))])
        rows.append((variants[r].label, "skill_share", d, *interval(d, se)))
        for m in game:
            if m not in defs[r] or m not in defs[0]:
                continue
            (a1, b1), (a0, b0) = defs[r][m], defs[0][m]
            d, se = stats.deal_ratio_diff(S, G, n, spread(a1, r), spread(b1, r), spread(a0, 0), spread(b0, 0))
            rows.append((variants[r].label, m, d, *interval(d, se)))
    if ratings is not None:
        rows += rating_effects(variants, ratings, S, G, n, [[(k * P + p) * size + where[c] for p in range(P)
                                                             for c in (lay.won(0), lay.won(1))]
                                                            for k in range(len(variants))], games)
    return rows


def rating_effects(variants: list[Variant], ratings: list, S, G, n: int, won: list[list[int]], games: float) -> list:
    """Each ruleset's rating spread (best minus worst) and, with ``games``, its coin-flip equivalent, minus the
    first ruleset's: the ratings of every ruleset with their covariance across rulesets (``stats.
    bradley_terry_joint_cov`` on the won columns ``won[k]``, the same deals), the delta method (the coin-flip
    share's slope in the ratings' spread taken numerically)."""
    from .scorecard import coin_flip_share, rating_sd

    K = len(ratings[0])
    pairs = list(combinations(range(K), 2))
    cols = [c for block in won for c in block]
    cov = stats.bradley_terry_joint_cov(ratings, pairs, [S[c] for c in cols], [[G[a, b] for b in cols] for a in cols], n)

    def spread(k: int):
        r = np.asarray(ratings[k], float)
        g = np.zeros(len(cov))
        g[k * K + int(np.argmax(r))], g[k * K + int(np.argmin(r))] = 1, -1
        return float(r.max() - r.min()), g

    def flips(k: int):
        r = np.asarray(ratings[k], float)
        sd = rating_sd(r)
        g = np.zeros(len(cov))
        if sd <= 0:
            return 1.0, g
        h = 1e-4 * sd  # the slope of the share in the spread, by central difference
        slope = (coin_flip_share(r, games, sd + h) - coin_flip_share(r, games, max(sd - h, 0.0))) / (2 * h)
        g[k * K:(k + 1) * K] = slope * (r - r.mean()) / (K * sd)
        return coin_flip_share(r, games, sd), g

    figures = {"rating_spread": spread, **({"coin_flip": flips} if games else {})}
    # each ruleset's figure once, not once per difference (a coin-flip share is ~0.2 s of bisection)
    value = {(m, k): f(k) for m, f in figures.items() for k in range(len(variants))}
    rows = []
    for r in range(1, len(variants)):
        for metric in figures:
            (x1, g1), (x0, g0) = value[metric, r], value[metric, 0]
            g = g1 - g0
            var = float(g @ cov @ g)
            rows.append((variants[r].label, metric, x1 - x0, *interval(x1 - x0, math.sqrt(var) if var >= 0 else math.nan)))
    return rows


# --- the tables of one ruleset ----------------------------------------------------------------

def _ruleset_tables(v: Variant, labels: list[str], pairs, aggs, run_dirs, specs) -> dict:
    """A ruleset's ladder: the tournament's tables, then the skill numbers from the same deal sums."""
    t = tournament_tables(labels, pairs, aggs, run_dirs, specs)
    lay = DealLayout(2)
    size, P = lay.size, len(pairs)
    at = lambda p, col: p * size + col  # noqa: E731
    n = S = G = None
    for _k, n, S, G in series_deal_sums(run_dirs, specs, specs[0].n_chunks, lineups=runs_per_pair(v.rules)):
        pass
    rows = []
    share, se = skill_share(S, G, n, *pair_columns(size, P))
    rows.append((v.label, "skill_share", share, *interval(share, se)))
    rating = np.asarray(t["ratings"]["estimate"].to_list())
    cov = t["rating_cov"].select(labels).to_numpy()

    def diff(i: int, j: int) -> tuple[float, float | None, float | None]:
        d = float(rating[i] - rating[j])
        var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
        return (d, *interval(d, math.sqrt(var) if var >= 0 else math.nan))

    rows.append((v.label, "rating_spread", *diff(int(np.argmax(rating)), int(np.argmin(rating)))))
    # steps between ladder neighbours: rating difference, and the match length the stronger one needs
    pair_df = t["pairs"]
    steps, worst = [], None
    for k in range(len(labels) - 1):
        p = pairs.index((k, k + 1))
        # the upper one's row: its games won, drawn and lost against the lower one
        r = pair_df.filter((pair_df["row"] == labels[k + 1]) & (pair_df["col"] == labels[k])).row(0, named=True)
        games = r["games"]
        pw, pl_ = r["won"] / games, r["lost"] / games
        if pl_ > pw:  # the stronger of the two is the upper one only if it wins more
            pw, pl_ = pl_, pw
        decisive = pw + pl_
        d, dse = stats.deal_ratio(S, G, n, stats.unit(size * P, at(p, lay.won(0)), at(p, lay.won(1)),
                                                      weights=[1, -1]),
                                  stats.unit(size * P, at(p, lay.games)))
        d_lo, d_hi = interval(abs(d), dse)
        need = games_needed(pw, pl_)
        # the interval: games_needed at the ends of the interval of wins minus losses, draws as estimated
        def at_d(x):
            return games_needed((decisive + x) / 2, (decisive - x) / 2) if x is not None else math.inf

        n_lo, n_hi = (at_d(min(d_hi, decisive)) if d_hi is not None else None), at_d(d_lo)
        hpg, hpg_se = stats.deal_ratio(S, G, n, stats.unit(size * P, at(p, lay.hands)),
                                       stats.unit(size * P, at(p, lay.games)))
        h_lo, h_hi = hands_interval(need, n_lo, n_hi, hpg, hpg_se)  # the game length's uncertainty too
        rd = diff(k + 1, k)
        fin = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
        step = {"ruleset": v.label, "lower": labels[k], "upper": labels[k + 1], "rating_diff": rd[0],
                "rating_diff_lo": rd[1], "rating_diff_hi": rd[2], "score": r["score"],
                "win": float(pw), "draw": float(1 - decisive), "loss": float(pl_),
                "games_to_win": fin(need), "games_to_win_lo": fin(n_lo), "games_to_win_hi": fin(n_hi),
                "hands_per_game": float(hpg),
                "hands_to_win": fin(need * hpg), "hands_to_win_lo": fin(h_lo), "hands_to_win_hi": fin(h_hi)}
        steps.append(step)
        if worst is None or (step["games_to_win"] or math.inf) > (worst["games_to_win"] or math.inf):
            worst = step
    if worst is not None:
        for m in ("games_to_win", "hands_to_win"):
            rows.append((v.label, m, worst[m] if worst[m] is not None else math.inf, worst[f"{m}_lo"],
                         worst[f"{m}_hi"]))
    # the ruleset's game numbers over all its pairs, as compare defines them per run
    defs = metric_defs(v.rules, ["a", "b"], sides=2)  # two-sided pairs (3 players: mano minus dealer)
    for m in ("seat_advantage", "hands_per_game", "escobas", "lucky_escobas"):
        if m not in defs:
            continue
        wa, wb = defs[m]
        a = [0] * (size * P)
        b = [0] * (size * P)
        for p in range(P):
            for i in range(size):
                a[p * size + i] += wa[i]
                b[p * size + i] += wb[i]
        est, se = stats.deal_ratio(S, G, n, a, b)
        rows.append((v.label, m, est, *interval(est, se)))
    ratings = t["ratings"].select("label", "estimate", "lo", "hi")
    return {"skill": rows, "ratings": ratings, "rating_cov": cov, "steps": steps, "pairs": t["pairs"]}


def analyse(variants: list[Variant], labels: list[str], pairs, aggs, run_dirs, specs, card: dict | None = None) -> dict:
    """All the skill tables, one ruleset at a time: its runs are the ladder's ``P`` consecutive ones, then the
    scorecard's (``card``, ``scorecard.plan``; none in a folder made before it)."""
    import polars as pl

    R = runs_per_pair(variants[0].rules)
    P = len(pairs) * R  # ladder runs per ruleset (every ruleset has the same players)
    per = P + (len(card["runs"]) * R if card else 0)
    ladder_runs = [i for k in range(len(variants)) for i in range(k * per, k * per + P)]
    rows, ratings, steps, pair_frames, rating_estimates = [], [], [], [], []
    for k, v in enumerate(variants):
        sl = slice(k * per, k * per + P)
        t = _ruleset_tables(v, labels, pairs, aggs[sl], run_dirs[sl], specs[sl])
        rows += t["skill"]
        rating_estimates.append(t["ratings"]["estimate"])
        if card:
            x = coin_flip(t["ratings"]["estimate"].to_list(), t["rating_cov"], specs[k * per].played * R)
            rows.append((v.label, "coin_flip", *x))
        first = lambda df: df.with_columns(pl.lit(v.label).alias("ruleset")).select(  # noqa: E731
            "ruleset", pl.all().exclude("ruleset"))
        ratings.append(first(t["ratings"]))
        steps += t["steps"]
        pair_frames.append(first(t["pairs"]))
    f, s = pl.Float64, pl.String
    step_schema = {"ruleset": s, "lower": s, "upper": s, "rating_diff": f, "rating_diff_lo": f, "rating_diff_hi": f,
                   "score": f, "win": f, "draw": f, "loss": f, "games_to_win": f, "games_to_win_lo": f,
                   "games_to_win_hi": f, "hands_per_game": f, "hands_to_win": f, "hands_to_win_lo": f,
                   "hands_to_win_hi": f}
    effects = paired_effects(variants, len(pairs), [run_dirs[i] for i in ladder_runs], [specs[i] for i in ladder_runs],
                             [r.to_list() for r in rating_estimates], specs[0].played * R if card else 0)
    checks = []
    if card:
        more, more_effects = scorecard_rows(variants, labels, card, P, R, run_dirs, specs)
        # two equal heuristics' games, played here (cheap, a function of the seed: a resumed folder plays them again)
        drama, drama_effects, checks = drama_rows(variants, card["restricted"], specs[0].seed, specs[0].played)
        more, more_effects = more + drama, more_effects + drama_effects
        # a ruleset's figures together, in METRICS order (the stable sort keeps a folder without them as it was)
        order = {m: i for i, m in enumerate(METRICS)}
        at = {v.label: k for k, v in enumerate(variants)}
        rows = sorted(rows + more, key=lambda r: (at[r[0]], order.get(r[1], len(order))))
        effects = sorted(effects + more_effects, key=lambda r: (at[r[0]], order.get(r[1], len(order))))
    out = {"skill": estimate_frame(rows), "skill_effects": estimate_frame(effects),
           "skill_ratings": pl.concat(ratings),
           "skill_steps": pl.DataFrame(steps, schema=step_schema), "skill_pairs": pl.concat(pair_frames)}
    if checks:  # the drama's win-probability model against the games it did not see (``drama.calibration``)
        out["skill_calibration"] = pl.DataFrame(
            [{"ruleset": c["label"], **b} for c in checks for b in c["bins"]],
            schema={"ruleset": s, "bin": pl.Int64, "predicted": f, "observed": f, "states": pl.Int64})
    return out


def skill(variants: list[Variant], ladder: list[str], n: int, out: str | Path, *, seed: int | None = None,
          jobs: int = 1, argv: list[str] | None = None, on_run=None, executor=None, chunk_size: int = 0,
          on_chunk=None, new: bool = False, scorecard: bool = True) -> dict:
    """Play the ladder's pairs in every ruleset on the same duplicate deals (via the runner), and with
    ``scorecard`` the scorecard's pairs after each ruleset's (``scorecard.plan``), then write the tables and the
    summary; ``on_run(k, label)`` as run k starts. ``new``: a folder already holding this ladder is refused
    (``tables.run_series``)."""
    ladder = check_ladder(ladder)
    check_rulesets(variants)
    labels = ladder_labels(ladder)
    pairs = list(combinations(range(len(ladder)), 2))
    card = scorecard_plan(ladder) if scorecard else None
    out = Path(out)
    R = runs_per_pair(variants[0].rules)  # 3 players: two lineups per pair (``lineups``)
    specs, runs, names = [], [], []
    for k, v in enumerate(variants):
        played = [(ladder[i], ladder[j], {}, (labels[i], labels[j])) for i, j in pairs]
        played += [(a, b, {"figure": m}, (parse_strategy(a).short, parse_strategy(b).short))
                   for m, a, b in (card["runs"] if card else [])]
        for a, b, extra, shown in played:
            try:
                made = pair_specs(a, b, v.rules, n, seed=seed, keep_deals=True, chunk_size=chunk_size)
            except RunError as e:
                raise SkillError.around(e, "{label}: {problem}", label=v.label) from None
            seed = made[0].seed  # one seed for every ruleset and pair: the same deals
            for s in made:
                runs.append({"ruleset": k, **extra, "a": a, "b": b, "run": f"runs/{len(specs):02d}"}
                            | ({"lineup": list(s.strategies)} if R > 1 else {}))
                specs.append(s)
                names.append(shown)
    if not chunk_size:  # one size for every run (chunk k holds the same deals in all): the slowest pair's
        specs = series_chunk_size(out, KIND, specs)
    manifest = {"kind": KIND, "format": SERIES_FORMAT, "tool": "escoba-sim", "version": __version__,
                "engine": engine_for(list(ladder)), "seed": seed, "strategies": list(ladder), "n": n,
                "chunk_size": specs[0].chunk_size,
                "rulesets": [{"label": v.label, "rules": v.rules.canonical(), "rules_digest": v.rules.digest(),
                              "rules_fields": v.rules.as_dict()} for v in variants],
                "pairs": runs, "scorecard": card, "argv": argv or []}

    def run_label(k: int) -> str:
        a, b = names[k]
        return " ".join(filter(None, (f"{variants[runs[k]['ruleset']].label}: {a} vs {b}", lineup_text(specs[k]))))

    try:
        aggs = run_series(out, manifest, ("kind", "seed", "n", "rulesets", "strategies", "scorecard"), specs,
                          "skill ladder",
                          jobs=jobs, executor=executor, argv=argv,
                          on_run=on_run and (lambda k: on_run(k, run_label(k))), on_chunk=on_chunk, new=new)
    except RunError as e:
        raise SkillError.around(e, "{problem}") from None
    tables = analyse(variants, labels, pairs, aggs, [out / r["run"] for r in runs], specs, card)
    summary = {"kind": KIND, "version": __version__, "engine": manifest["engine"], "seed": seed,
               "strategies": list(ladder), "labels": labels, "n_per_pair": n,
               "games_per_pair": specs[0].played * R, "chunks": specs[0].n_chunks,
               "rulesets": manifest["rulesets"],
               "interval": N_("95% normal intervals, the deal as unit (every pair of every ruleset plays the same "
                              "deals): ratings by the tournament's sandwich estimator, the skill share by its "
                              "U-statistic's variance and the delta method, games_to_win at the ends of the "
                              "interval of the pair's wins minus losses"),
               "skill": json_rows(tables["skill"]), "effects": json_rows(tables["skill_effects"]),
               "ratings": json_rows(tables["skill_ratings"]),
               "steps": json_rows(tables["skill_steps"]), "scorecard": card}
    if "skill_calibration" in tables:
        summary["calibration"] = calibration_errors(tables["skill_calibration"])
    if R > 1:
        summary["three_players"] = THREE_PLAYER_PAIRS
    write_results(out, manifest, tables, summary)
    return summary
