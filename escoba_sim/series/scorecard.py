"""The scorecard of a skill ladder beside its skill share (docs/skill.md, "The scorecard"): the measures
designers and courts cite, from extra runs on the ladder's very deals.

- **Relative skill** (Borm & van der Genugten 2001): learning effect over learning plus random effect. Every
  player is measured against one opponent, the ladder's weakest entry (the beginner), in points per hand:
  ``m(X)`` is X's points margin per hand over the beginner, so ``m(beginner) = 0``; the best player is the
  ladder's last entry (the ladder is weakest first), the fictive player ``oracle`` (it sees every hand and
  the stock's order). ``relative_skill = m(best) / m(oracle)``: the learning effect ``m(best)`` over
  learning plus random effect ``m(best) + (m(oracle) - m(best))``. ``relative_skill_hands`` has the fictive
  player ``oracle:sees=1`` (every hand, not the stock's order). With the beginner as the opponent it is the
  oracle-gap share of analysis/oracle_gap.py for one pair.
- **Coin-flip equivalent** (Duersch, Lambrecht & Oechssler 2020): the share ``x`` of results replaced by coin
  flips that makes a game in which the stronger of any two of these players always wins (the reference, in
  the order of the ladder's ratings) spread the ratings as much as this ruleset does: the standard deviation
  of the Bradley-Terry ratings, both fitted the same way (``stats.bradley_terry`` on the pairs' games, the
  same games per pair). Its interval maps the ends of the ratings' standard deviation's (delta method on the
  ratings' sandwich covariance) through the same function.
- **Restricted play** (Jaffe et al. 2012): what pursuing each scoring element is worth, as the points per
  hand the ladder's best ``heuristic`` (its last heuristic entry, else the default one) makes against itself
  with that element's weight set to 0 (``heuristic:oros=0``): a spec option, not a code path of its own.
  The search (ismcts) is not restricted: its values are the hand's whole margin.

Every figure is a smooth function of per-deal sums of the runs on the same deals, its interval the delta
method with the deal as unit (``stats.deal_function``); each ruleset's minus the first's is paired by deal
the same way.
"""

from __future__ import annotations

import math

import numpy as np

from ..batch import engine_for
from ..i18n import N_
from ..runs import stats
from ..runs.aggregates import DealLayout
from ..strategies import StrategySpec, check_strategy, parse_strategy
from .tables import interval, series_deal_sums

FICTIVE = {"relative_skill": "oracle", "relative_skill_hands": "oracle:sees=1"}
# the heuristic's weight for each scoring element, and the figure of that element
ELEMENTS = {"cards": "restricted_cards", "oros": "restricted_oros", "sevens": "restricted_sevens",
            "siete": "restricted_siete", "escoba": "restricted_escobas"}
# the scorecard's figures (``metric`` of the skill table), in the order shown
METRICS = ("relative_skill", "relative_skill_hands", "learning_effect", "random_effect", "coin_flip",
           *ELEMENTS.values())
METRIC_TEXT = {  # (translated where shown)
    "relative_skill": (N_("relative skill (Borm & van der Genugten), oracle as the fictive player"),
                       N_("share of the oracle's edge")),
    "relative_skill_hands": (N_("relative skill, a fictive player seeing the hands but not the stock"),
                             N_("share of its edge")),
    "learning_effect": (N_("learning effect: the best's points per hand over the beginner"), N_("points per hand")),
    "random_effect": (N_("random effect: the oracle's points per hand over the beginner minus the best's"),
                      N_("points per hand")),
    "coin_flip": (N_("coin-flip equivalent: share of results a coin flip, in a game the stronger always wins"),
                  N_("share of results")),
    "restricted_cards": (N_("restricted play: what pursuing the most cards is worth"), N_("points per hand")),
    "restricted_oros": (N_("restricted play: what pursuing the most oros is worth"), N_("points per hand")),
    "restricted_sevens": (N_("restricted play: what pursuing the sevens is worth"), N_("points per hand")),
    "restricted_siete": (N_("restricted play: what pursuing the 7 of oros is worth"), N_("points per hand")),
    "restricted_escobas": (N_("restricted play: what pursuing escobas is worth"), N_("points per hand")),
}
# the figures paired against the first ruleset deal by deal here (coin_flip, a function of the ratings' fit, is
# paired with the rating spread: ``skill.rating_effects``)
EFFECT_METRICS = ("relative_skill", "relative_skill_hands", "learning_effect", "random_effect", *ELEMENTS.values())


def restricted_base(ladder: list[str]) -> str:
    """The heuristic restricted play restricts: the ladder's last ``heuristic`` entry, else the default."""
    for s in reversed(ladder):
        p = parse_strategy(s)
        if p.plugin is None and p.name == "heuristic" and not p.tuned:
            return p.canonical
    return check_strategy("heuristic")


def restricted_spec(base: str, element: str) -> str:
    """``base`` with its weight of ``element`` set to 0 (unchanged where it already is 0)."""
    p = parse_strategy(base)
    return StrategySpec(p.name, tuple((k, 0.0 if k == element else v) for k, v in p.params)).canonical


def plan(ladder: list[str]) -> dict:
    """What the scorecard plays beside the ladder's pairs, per ruleset: ``runs``, each ``[figure, a, b]`` (a
    pair's runs, a's margin over b), on the same deals. The fictive players are core-only: a ladder the
    compiled core cannot play (a plugin, the reference engine) gets no relative skill."""
    beginner = ladder[0]
    runs = []
    if engine_for([*ladder, *FICTIVE.values()]) == "cython":
        runs += [[m, check_strategy(o), beginner] for m, o in FICTIVE.items()]
    base = restricted_base(ladder)
    runs += [[m, base, restricted_spec(base, e)] for e, m in ELEMENTS.items()]
    return {"beginner": beginner, "best": ladder[-1], "restricted": base, "runs": runs}


# --- the figures -------------------------------------------------------------------------------

def _margin(slot: int, sign: int = 1):
    """A slot's side-0 margin per hand (``sign`` -1: side 1's) as (forms, f) over its 3 columns."""
    def f(T):
        d, h = T
        return (sign * d / h, [sign / h, -sign * d / h / h]) if h > 0 else (math.nan, [0.0, 0.0])
    return [(slot, 0), (slot, 1)], f


def _figures(slots: dict[str, int]) -> dict:
    """Each scorecard figure of one ruleset as (forms, f), on its slots (``slots[figure]`` the slot of its pair's
    runs; ``"ladder"`` the pair beginner, best)."""
    best = _margin(slots["ladder"], -1)  # the pair (beginner, best): the best is side 1
    out = {"learning_effect": best}
    for m in FICTIVE:
        if m in slots:
            out[m] = stats.figure_quotient(best, _margin(slots[m]))
    if "relative_skill" in slots:
        out["random_effect"] = stats.figure_minus(_margin(slots["relative_skill"]), best)
    for m in ELEMENTS.values():
        out[m] = _margin(slots[m])
    return out


def _evaluate(figure, S, G, n: int, where) -> tuple[float, float]:
    """A (forms, f) figure's estimate and se: its forms (slot, 0 margin / 1 hands) as weights on the sums."""
    forms, f = figure
    lay = DealLayout(2)
    rows = []
    for slot, what in forms:
        w = np.zeros(len(S))
        if what == 0:
            w[where(slot, lay.points(0))] += 1
            w[where(slot, lay.points(1))] -= 1
        else:
            w[where(slot, lay.hands)] += 1
        rows.append(w)
    return stats.deal_function(S, G, n, rows, lambda T: f(list(T)))


def scorecard_rows(variants, labels: list[str], card: dict, ladder_runs: int, R: int, run_dirs, specs) -> tuple:
    """The scorecard's rows (label, metric, estimate, lo, hi) per ruleset and its paired effects against the
    first ruleset. Each ruleset's runs are ``ladder_runs`` ladder runs (the pairs in ``combinations`` order,
    ``R`` runs each) then the scorecard's, ``R`` each, in ``card["runs"]`` order."""
    K, E = len(labels), len(card["runs"])
    first_last = (K - 2) * R  # the pair (0, K - 1) is the last one of entry 0
    per = ladder_runs + E * R
    pick, pick_specs = [], []
    for k in range(len(variants)):
        at = [k * per + first_last + i for i in range(R)]
        at += [k * per + ladder_runs + e * R + i for e in range(E) for i in range(R)]
        pick += [run_dirs[i] for i in at]
        pick_specs += [specs[i] for i in at]
    lay = DealLayout(2)
    cols = [lay.points(0), lay.points(1), lay.hands]
    index = {c: j for j, c in enumerate(cols)}
    n = S = G = None
    for _k, n, S, G in series_deal_sums(pick, pick_specs, pick_specs[0].n_chunks, columns=cols, lineups=R):
        pass
    S, G = S.astype(float), G.astype(float)
    slots_per = 1 + E

    def where(slot: int, col: int) -> int:
        return slot * len(cols) + index[col]

    figures = []
    for k in range(len(variants)):
        slots = {"ladder": k * slots_per} | {r[0]: k * slots_per + 1 + e for e, r in enumerate(card["runs"])}
        figures.append(_figures(slots))
    rows, effects = [], []
    for k, v in enumerate(variants):
        for m in METRICS:
            if m in figures[k]:
                est, se = _evaluate(figures[k][m], S, G, n, where)
                rows.append((v.label, m, est, *interval(est, se)))
        if k == 0:
            continue
        for m in EFFECT_METRICS:
            if m in figures[k] and m in figures[0]:
                est, se = _evaluate(stats.figure_minus(figures[k][m], figures[0][m]), S, G, n, where)
                effects.append((v.label, m, est, *interval(est, se)))
    return rows, effects


# --- the coin-flip equivalent ------------------------------------------------------------------

def rating_sd(ratings) -> float:
    r = np.asarray(ratings, float)
    return float(np.sqrt(np.mean((r - r.mean()) ** 2)))


def reference_sd(order, games: float, x: float) -> float:
    """The ratings' standard deviation of the reference game fitted as the ladder's are: ``games`` games per
    pair, the stronger (earlier in ``order``, strongest first) winning ``1 - x/2`` of them."""
    K = len(order)
    wins = np.zeros((K, K))
    for a in range(K):
        for b in range(a + 1, K):
            i, j = order[a], order[b]
            wins[i, j], wins[j, i] = (1 - x / 2) * games, x / 2 * games
    return rating_sd(stats.bradley_terry(wins))


def coin_flip_share(ratings, games: float, sd: float) -> float:
    """The ``x`` in [0, 1] whose reference spreads the ratings by ``sd`` (0 where even pure skill spreads them
    less: with ``games`` games the fit's prior bounds the reference)."""
    order = list(np.argsort(-np.asarray(ratings, float)))
    if sd <= 0:
        return 1.0
    if reference_sd(order, games, 0.0) <= sd:
        return 0.0
    lo, hi = 0.0, 1.0  # reference_sd falls from its top at x = 0 to 0 at x = 1
    for _ in range(40):
        mid = (lo + hi) / 2
        if reference_sd(order, games, mid) > sd:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def coin_flip(ratings, cov, games: float) -> tuple[float, float | None, float | None]:
    """The coin-flip equivalent and its 95% interval: the ratings' standard deviation and the delta method on
    their covariance (its gradient ``(r_i - mean) / (K sd)``), each end mapped (a wider spread: fewer flips)."""
    r = np.asarray(ratings, float)
    sd = rating_sd(r)
    x = coin_flip_share(r, games, sd)
    if sd <= 0 or not np.all(np.isfinite(cov)):
        return x, None, None
    g = (r - r.mean()) / (len(r) * sd)
    se = math.sqrt(max(float(g @ np.asarray(cov, float) @ g), 0.0))
    lo, hi = interval(sd, se)
    return x, coin_flip_share(r, games, hi), coin_flip_share(r, games, max(lo, 0.0))
