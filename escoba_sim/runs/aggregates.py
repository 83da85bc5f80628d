"""The per-deal aggregates of a run: integer sums that merge by addition, and the layout of a deal's vector.

A chunk returns integer aggregates (below) that merge by addition
(``merge``); statistics are computed from the merged integers (``summary``,
``stats``). The output folder stores them in long format (``runs.folder``).

``E`` is the number of entrants (= sides), ``Q = E`` positions relative to
the dealer (0 dealer, 1 mano, then turn order; with teams 0 = the dealer's side), ``K`` indexes
``game.columns.SIDE_COLUMNS`` (escobas, lucky_escobas, siete_oros, sevens, oros,
cards, bonus, total, cards_taken, oros_taken, sevens_taken). Per cluster
(deal group) ``c``: ``v_c`` the per-deal vector of ``DealLayout``.

=================  ==========  ====================================================
stat               dims        meaning
=================  ==========  ====================================================
clusters           [1]         deal groups in the chunk
games              [1]         games played (all rotations; 0 with --hands)
hands              [1]         hands played (all rotations)
lucky_hands        [1]         hands with lucky_deal > 0
points             [E, K]      sum over hands of each side column, by entrant
wdl                [E, 3]      hands won (strictly top total), drawn (tied top), lost
pos_points         [E, Q, K]   as points, split by position
pos_wdl            [E, Q, 3]   as wdl, split by position
game_wins          [E]         games won
game_hands_hist    [H]         games by number of hands (bin = hands)
points_hist        [E, B]      hands by the entrant's total points (bin = points)
score_hist         [2m+1]      2 entrants only: clusters by entrant 0's score in
                               half-points (win 2, draw 1, loss 0) over the
                               cluster's m = rotations games or hands
deal_sum           [P]         sum_c v_c of the per-deal vector's core (``DealLayout``)
deal_gram          [P, P]      sum_c v_c v_c^T (the cross products of every pair of columns)
deal_score         [deals]     with --sprt only: each deal's score_hist bin, in deal order
                               (not merged: the GSPRT reads it deal by deal)
=================  ==========  ====================================================
"""

from __future__ import annotations

import numpy as np

from ..game.columns import SIDE_COLUMNS
from .spec import RunSpec

TOTAL = SIDE_COLUMNS.index("total")


class DealLayout:
    """The columns of the per-deal vector ``v_c`` (one deal ``c``, all its rotations), by entrant.

    The core, which every chunk reduces to ``deal_sum = sum_c v_c`` and ``deal_gram =
    sum_c v_c v_c^T``: ``hands``, ``games``; ``won(e)`` games won by entrant e (hands won
    outright with --hands); ``points(e)`` e's total points; ``pos_hands(e, q)`` and
    ``pos_total(e, q)`` e's hands in position q and the total points it made there. Every
    estimate of a run is a function of these sums, its standard error the delta method with
    the deal as the unit (``stats``). The full vector adds ``points(e, k)`` for every other
    ``SIDE_COLUMNS[k]``; it is written per deal for a comparison or tournament, which pairs
    runs deal by deal (``series.tables.series_deal_sums``), and kept out of the chunk's Gram
    matrix, whose cost grows with the square of its columns.
    """

    hands, games = 0, 1

    def __init__(self, entrants: int):
        self.E = E = entrants
        self.Q = E
        self.K = len(SIDE_COLUMNS)
        self.core_size = 2 + 2 * E + 2 * E * E
        self.size = self.core_size + E * (self.K - 1)

    def won(self, e: int) -> int:
        return 2 + e

    def points(self, e: int, k: int | str = TOTAL) -> int:
        k = SIDE_COLUMNS.index(k) if isinstance(k, str) else k
        if k == TOTAL:
            return 2 + self.E + e
        return self.core_size + e * (self.K - 1) + (k if k < TOTAL else k - 1)

    def pos_hands(self, e: int, q: int) -> int:
        return 2 + 2 * self.E + e * self.Q + q

    def pos_total(self, e: int, q: int) -> int:
        return 2 + 2 * self.E + self.E * self.Q + e * self.Q + q

    def names(self) -> list[str]:
        E, Q = range(self.E), range(self.Q)
        out = ["hands", "games"] + [f"won_{e}" for e in E] + [f"total_{e}" for e in E]
        out += [f"pos_hands_{e}_{q}" for e in E for q in Q] + [f"pos_total_{e}_{q}" for e in E for q in Q]
        out += [f"{c}_{e}" for e in E for c in SIDE_COLUMNS if c != "total"]
        return out


def gram(d: np.ndarray) -> np.ndarray:
    """``d^T d`` of a (deals x columns) matrix, exactly in int64 (BLAS in float64 while every
    partial sum stays below 2**53)."""
    if d.size == 0:
        return np.zeros((d.shape[1], d.shape[1]), np.int64)
    top = max(int(d.max()), -int(d.min()))  # without a temporary copy of d
    if top * top * d.shape[0] < 2**53:
        f = np.asarray(d, dtype=np.float64)
        return np.rint(f.T @ f).astype(np.int64)
    return d.T @ d


def add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum of two arrays of possibly different shapes, zero-padded (histograms grow as needed)."""
    shape = tuple(max(i, j) for i, j in zip(a.shape, b.shape))
    out = np.zeros(shape, np.int64)
    out[tuple(slice(0, s) for s in a.shape)] += a
    out[tuple(slice(0, s) for s in b.shape)] += b
    return out


def merge(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Exact merge of two aggregates (integer addition, histograms padded)."""
    if a is None:
        return {k: v.copy() for k, v in b.items()}
    return {k: add_padded(a[k], b[k]) if k in a else b[k].copy() for k in b} | {k: a[k] for k in a if k not in b}


def empty_aggregates(spec: RunSpec) -> dict[str, np.ndarray]:
    E, K, P = spec.entrants, len(SIDE_COLUMNS), DealLayout(spec.entrants).core_size
    z = lambda *s: np.zeros(s, np.int64)  # noqa: E731
    agg = {"clusters": z(1), "games": z(1), "hands": z(1), "lucky_hands": z(1), "points": z(E, K), "wdl": z(E, 3),
           "pos_points": z(E, E, K), "pos_wdl": z(E, E, 3), "game_wins": z(E), "game_hands_hist": z(0),
           "points_hist": z(E, 0), "deal_sum": z(P), "deal_gram": z(P, P)}
    if E == 2:
        agg["score_hist"] = z(2 * spec.rotations + 1)
    return agg
