"""Drama of a ruleset for a skill scorecard (docs/skill.md, "Drama"): how often the expected winner changes
during a game and how often the side behind before the last hand comes back, from a win-probability model of
the game state, and the spread of a game's length.

The games are ``games`` games of two equal players, the scorecard's heuristic against itself
(``scorecard.restricted_base``), played to the target with the series' seed (``batch.play_games``: game ``g``
is the very game a run's deal ``g`` deals). Between equal players who wins is the cards and the seat, which is
what a designer's rules shape.

**The model.** Two sides, each hand dealt afresh: the strategies read no score, so a hand's points
``(x0, x1)`` depend only on the dealer's side, and a game is a Markov chain on (score 0, score 1, dealer's
side). ``W(s0, s1, d)``, side 0's chance to win from there, is exact given the hand's distribution
(``win_chances``: the game ends when a side has at least the target and more than the other; a tie at the top
plays on). The distribution is read from ten hands per game on deals no game plays (``model_hands``), so the
model is checked on games it did not see (``calibration``: reliability by tenths of ``W`` and the expected
calibration error).

**The figures** (each game one independent unit; the same game indices under every ruleset, so differences
are paired by game): ``lead_changes``, per game, how many times the favourite (``W`` above or below 1/2
before each hand, from the first deal on) changes; ``comebacks``, of the games where a side trails before the
last hand, the share the trailing side wins; ``hands_spread``, the standard deviation of the hands a game lasts.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from ..batch import play_games, play_hands
from ..i18n import N_
from ..runs import stats
from .tables import interval

METRICS = ("lead_changes", "comebacks", "hands_spread")
METRIC_TEXT = {  # (translated where shown)
    "lead_changes": (N_("lead changes: times the expected winner changes in a game of two equal players"),
                     N_("per game")),
    "comebacks": (N_("comebacks: share of games the side behind before the last hand wins"),
                  N_("share of games")),
    "hands_spread": (N_("spread of a game's length (standard deviation)"), N_("hands")),
}
BINS = 10  # the reliability diagram's bins of W
MODEL_HANDS = 10  # the model's hands per game measured: its own deals, far from the games'
MODEL_FIRST = 1 << 40  # the model's first hand index: no game of a series reaches it


def play(rules, spec: str, seed: int, games: int):
    """``games`` games of ``spec`` in every seat: per game the states before each hand (scores, the dealer's
    side), the winner, and each hand's points ``(x0, x1)`` with its dealer's side."""
    batch = play_games(rules, [spec] * rules.players, seed, 0, games)
    h, g = batch.hands, batch.games
    out = []
    at = 0
    for k in range(len(g["game"])):
        n = int(g["hands"][k])
        tot = h["total"][at:at + n].astype(int)
        dealer = [rules.side_of(int(x)) for x in h["dealer"][at:at + n]]
        s = np.vstack([[0, 0], np.cumsum(tot, axis=0)])
        out.append({"states": [(int(s[i, 0]), int(s[i, 1]), dealer[i]) for i in range(n)],
                    "winner": int(g["winner"][k]), "hands": [(int(a), int(b), d) for (a, b), d in zip(tot, dealer)]})
        at += n
    return out


def model_hands(rules, spec: str, seed: int, count: int) -> list[tuple[int, int, int]]:
    """``count`` hands of ``spec`` in every seat, on deals no game of the series plays: ``(x0, x1, d)``."""
    h = play_hands(rules, [spec] * rules.players, seed, MODEL_FIRST, count).hands
    return [(int(a), int(b), rules.side_of(int(d))) for (a, b), d in zip(h["total"], h["dealer"])]


def hand_model(hands) -> dict[int, list[tuple[tuple[int, int], float]]]:
    """The distribution of a hand's points ``(x0, x1)`` for each dealer's side, from hands ``(x0, x1, d)`` of
    two equal players: a hand side 1 dealt counts, mirrored, as one side 0 dealt too (the sides are alike, so
    ``P(x0, x1 | d) = P(x1, x0 | 1 - d)``), which doubles the data each distribution is read from."""
    count = {0: Counter(), 1: Counter()}
    for a, b, d in hands:
        count[d][(a, b)] += 1
        count[1 - d][(b, a)] += 1
    return {d: [(x, c / sum(count[d].values())) for x, c in sorted(count[d].items())] for d in (0, 1)}


def win_chances(rules, model):
    """``W(s0, s1, d)``: side 0's chance to win from scores ``(s0, s1)`` before a hand its side ``d`` deals,
    under ``model`` (``hand_model``), the next hand dealt by the other side. Scores far past any game's are
    called even (1/2)."""
    target, cap = rules.target, 2 * rules.target + 200

    def parts(s0: int, s1: int, d: int) -> tuple[float, float]:
        """One hand from ``(s0, s1)`` dealt by ``d``: side 0's chance to win through a hand that scores, and
        the chance that nobody scores (the same scores, the deal passing)."""
        q, r = 0.0, 0.0
        for (x0, x1), p in model[d]:
            a, b = s0 + x0, s1 + x1
            if (a, b) == (s0, s1):
                r += p
            elif max(a, b) >= target and a != b:
                q += p * (a > b)
            else:
                q += p * W(a, b, 1 - d)
        return q, r

    @lru_cache(maxsize=None)
    def W(s0: int, s1: int, d: int) -> float:
        if s0 + s1 > cap:
            return 0.5
        # W(s, d) = q(d) + r(d) W(s, 1-d) and W(s, 1-d) = q(1-d) + r(1-d) W(s, d), solved for W(s, d)
        q0, r0 = parts(s0, s1, d)
        if r0 == 0:
            return q0
        q1, r1 = parts(s0, s1, 1 - d)
        return (q0 + r0 * q1) / (1 - r0 * r1) if r0 * r1 < 1 else 0.5

    return W


def measure(rules, spec: str, seed: int, games: int) -> dict:
    """Per game the lead changes, whether a side trailed before the last hand and whether it won, the hands;
    with the model's predictions and outcomes at every state (for ``calibration``). Two sides only. The model is
    read from ``MODEL_HANDS`` hands per game on other deals (``model_hands``): it never saw the games."""
    played = play(rules, spec, seed, games)
    W = win_chances(rules, hand_model(model_hands(rules, spec, seed, MODEL_HANDS * games)))
    out = {"lead_changes": [], "trailing": [], "came_back": [], "hands": [], "predicted": [], "won": []}
    for g in played:
        changes, fav = 0, 0
        for s0, s1, d in g["states"]:
            w = W(s0, s1, d)
            out["predicted"].append(w)
            out["won"].append(g["winner"] == 0)
            f = (w > 0.5) - (w < 0.5)
            if f and fav and f != fav:
                changes += 1
            fav = f or fav
        s0, s1, _d = g["states"][-1]
        out["lead_changes"].append(changes)
        out["trailing"].append(int(s0 != s1))
        out["came_back"].append(int(s0 != s1 and (g["winner"] == 0) == (s0 < s1)))
        out["hands"].append(len(g["states"]))
    return out


def calibration(predicted, won, bins: int = BINS) -> dict:
    """The model's reliability: per tenth of the predicted chance, its mean and the observed win share and the
    count; ``error`` the expected calibration error (their gap weighted by count)."""
    p, y = np.asarray(predicted, float), np.asarray(won, float)
    at = np.minimum((p * bins).astype(int), bins - 1)
    rows = [{"bin": b, "predicted": float(p[at == b].mean()), "observed": float(y[at == b].mean()),
             "states": int((at == b).sum())} for b in range(bins) if (at == b).any()]
    error = sum(r["states"] * abs(r["predicted"] - r["observed"]) for r in rows) / max(len(p), 1)
    return {"bins": rows, "error": float(error), "states": len(p)}


def calibration_errors(frame) -> list[dict]:
    """Each ruleset's expected calibration error from its reliability rows (``calibration``'s, as a table)."""
    out = []
    for label in dict.fromkeys(frame["ruleset"].to_list()):
        rows = frame.filter(frame["ruleset"] == label)
        states = rows["states"].to_numpy()
        gap = np.abs(rows["predicted"].to_numpy() - rows["observed"].to_numpy())
        out.append({"label": label, "error": float((states * gap).sum() / states.sum()), "states": int(states.sum())})
    return out


def _figures(k: int) -> dict:
    """Ruleset ``k``'s figures as ``(forms, f)`` on its 6 per-game columns: lead changes, trailing, came back,
    hands, hands squared, 1."""
    at = lambda c: (6 * k + c)  # noqa: E731

    def ratio(a, b):
        return [at(a), at(b)], lambda T: ((T[0] / T[1], [1 / T[1], -T[0] / T[1] ** 2]) if T[1] else
                                          (math.nan, [0.0, 0.0]))

    def sd(T):
        h, h2, one = T
        m, m2 = h / one, h2 / one
        v = m2 - m * m
        if v <= 0:
            return 0.0, [0.0, 0.0, 0.0]
        s = math.sqrt(v)
        return s, [-m / (s * one), 1 / (2 * s * one), (2 * m * m - m2) / (2 * s * one)]
    return {"lead_changes": ratio(0, 5), "comebacks": ratio(2, 1), "hands_spread": ([at(3), at(4), at(5)], sd)}


def drama_rows(variants, spec: str, seed: int, games: int) -> tuple[list, list, list]:
    """Every two-sided ruleset's drama figures, their paired differences against the first ruleset, and each
    ruleset's model check (``calibration``); a ruleset of more sides gets none."""
    cols, kept, checks = [], [], []
    for v in variants:
        if v.rules.n_sides != 2:
            continue
        m = measure(v.rules, spec, seed, games)
        h = np.asarray(m["hands"], float)
        cols.append(np.column_stack([m["lead_changes"], m["trailing"], m["came_back"], h, h * h, np.ones(len(h))]))
        kept.append(v)
        checks.append({"label": v.label, **calibration(m["predicted"], m["won"])})
    if not kept:
        return [], [], []
    n = min(len(c) for c in cols)
    V = np.hstack([c[:n] for c in cols])
    S, G = V.sum(axis=0), V.T @ V

    def value(figure):
        forms, f = figure
        rows = [np.eye(len(S))[i] for i in forms]
        return stats.deal_function(S, G, n, rows, lambda T: f(list(T)))

    rows, effects = [], []
    figures = [_figures(k) for k in range(len(kept))]
    for k, v in enumerate(kept):
        for metric in METRICS:
            est, se = value(figures[k][metric])
            lo, hi = interval(est, se)
            if metric == "comebacks" and lo is not None:  # a share: within [0, 1]
                lo, hi = max(lo, 0.0), min(hi, 1.0)
            rows.append((v.label, metric, est, lo, hi))
            if k:
                d, dse = value(stats.figure_minus(figures[k][metric], figures[0][metric]))
                effects.append((v.label, metric, d, *interval(d, dse)))
    return rows, effects, checks
