"""The per-deal aggregates of a run: integer sums that merge by addition, and the layout of a deal's vector.

A chunk (``chunk``) fills ``chunk_sums`` rotation by rotation (``add_rotation``) and reduces its
per-deal rows (``deal_moments``); the functions here are the readable NumPy reference of that
one-pass compiled code (csrc/escoba_aggregate.h), used when the core is not loaded.
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

from ..errors import EscobaError, Parameter
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
    ``SIDE_COLUMNS[k]``; it is written per deal for a run of a series, which pairs
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

    def columns(self, width: int) -> dict[str, np.ndarray]:
        """Where each quantity of a hand or game goes in a deal's row of ``width`` columns (the core, or
        the full vector): ``hands``, ``games``, ``won`` [E], ``pos_hands`` and ``pos_total`` [E, Q], and
        ``side`` [E, K], the column of ``points(e, k)`` or -1 beyond ``width``. The chunk's sums
        (``add_rotation`` and its compiled twin) fill rows by this table."""
        E, Q = range(self.E), range(self.Q)
        side = [[c if (c := self.points(e, k)) < width else -1 for k in range(self.K)] for e in E]
        table = {"hands": [self.hands], "games": [self.games], "won": [self.won(e) for e in E],
                 "pos_hands": [[self.pos_hands(e, q) for q in Q] for e in E],
                 "pos_total": [[self.pos_total(e, q) for q in Q] for e in E], "side": side}
        return {k: np.array(v, np.int32) for k, v in table.items()}

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


def chunk_sums(entrants: int, count: int, width: int) -> dict[str, np.ndarray]:
    """A chunk's sums before its first rotation: ``deal`` (count x width, the rows ``v_c``, of the core or
    the full vector), ``pos_points``, ``pos_wdl``, ``game_wins``, the histograms (``fit_histograms``
    widens them), ``score`` (2 entrants: ``score_hist``'s bin of each deal) and ``lucky_hands``."""
    E, K = entrants, len(SIDE_COLUMNS)
    sums = {"deal": np.zeros((count, width), np.int64), "pos_points": np.zeros((E, E, K), np.int64),
            "pos_wdl": np.zeros((E, E, 3), np.int64), "game_wins": np.zeros(E, np.int64),
            "points_hist": np.zeros((E, 0), np.int64), "game_hands_hist": np.zeros(0, np.int64),
            "lucky_hands": np.zeros(1, np.int64)}
    if E == 2:
        sums["score"] = np.zeros(count, np.int64)
    return sums


def fit_histograms(sums: dict[str, np.ndarray], hands: dict[str, np.ndarray], games: dict[str, np.ndarray] | None) -> None:
    """Widen the histograms of ``sums`` to the largest total and game length of a batch (a bin per value)."""
    top = int(hands["total"].max()) + 1 if len(hands["total"]) else 0
    if top > sums["points_hist"].shape[1]:
        sums["points_hist"] = add_padded(sums["points_hist"], np.zeros((len(sums["game_wins"]), top), np.int64))
    longest = int(games["hands"].max()) + 1 if games is not None and len(games["hands"]) else 0
    if longest > len(sums["game_hands_hist"]):
        sums["game_hands_hist"] = add_padded(sums["game_hands_hist"], np.zeros(longest, np.int64))


def add_rotation(sums: dict[str, np.ndarray], where: dict[str, np.ndarray], hands: dict[str, np.ndarray],
                 games: dict[str, np.ndarray] | None, r: int, first: int, teams: bool) -> None:
    """Add rotation ``r``'s batch (its ``hands`` and, for games, ``games`` columns) to a chunk's ``sums``.

    The NumPy reference of the compiled ``native.core.add_rotation`` (csrc/escoba_aggregate.h), which
    a chunk uses when the core is loaded: the same integers, checked on many batches by
    tests/runs/test_chunk_sums.py. ``where`` is ``DealLayout.columns``; side ``j`` of the batch is
    played by entrant ``(j + r) % E``. --hands: hand ``i`` is deal ``first + i``; games: the hands
    come game by game in game order, game ``g`` being deal ``first + g``.
    """
    E = Q = len(where["won"])
    deal = sums["deal"]
    h = hands
    n = len(h["game"])
    side_of_e = [(e - r) % E for e in range(E)]
    tot = [h["total"][:, j].astype(np.int64) for j in side_of_e]  # tot[e]: entrant e's points per hand
    dealer_side = (h["dealer"] % 2 if teams else h["dealer"]).astype(np.int64)
    if n and not (0 <= dealer_side.min() and dealer_side.max() < Q):
        raise ValueError("a hand's dealer is not a seat of the table")
    if n and not (0 <= h["total"].min() and h["total"].max() < sums["points_hist"].shape[1]):
        raise ValueError("a hand's total is negative or beyond the points histogram")
    code = _outcomes(tot)  # code[e]: 0 win, 1 draw, 2 loss
    sums["lucky_hands"] += np.count_nonzero(h["lucky_deal"])
    # a side's position is (side - dealer's side) % Q: the hands of each (dealer side, side) cell
    cell = [dealer_side == d for d in range(Q)]
    for e in range(E):
        j = side_of_e[e]
        for d in range(Q):
            q = (j - d) % Q
            for k, c in enumerate(SIDE_COLUMNS):
                sums["pos_points"][e, q, k] += int(h[c][cell[d], j].sum(dtype=np.int64))
        pw = np.bincount(dealer_side * 3 + code[e], minlength=Q * 3).reshape(Q, 3)
        for d in range(Q):
            sums["pos_wdl"][e, (j - d) % Q] += pw[d]
        sums["points_hist"][e] += np.bincount(tot[e], minlength=sums["points_hist"].shape[1])
    # the hands' parts of the deal rows, laid out (hand, column)
    per_hand = np.zeros((n, deal.shape[1]), np.int64)
    for e in range(E):
        j = side_of_e[e]
        for k, c in enumerate(SIDE_COLUMNS):
            if where["side"][e, k] >= 0:
                per_hand[:, where["side"][e, k]] = h[c][:, j]
        q = (j - dealer_side) % Q
        for qq in range(Q):
            per_hand[:, where["pos_hands"][e, qq]] = q == qq
            per_hand[:, where["pos_total"][e, qq]] = (q == qq) * tot[e]
    if games is not None:
        g = games
        count = len(deal)
        if (len(g["game"]) != count or np.any(g["game"] != first + np.arange(count)) or np.any(g["hands"] < 1)
                or int(g["hands"].sum()) != n or np.any((g["winner"] < 0) | (g["winner"] >= E))):
            raise ValueError("the batch's games do not tile its hands in game order")
        starts = np.zeros(count, np.int64)
        np.cumsum(g["hands"][:-1], out=starts[1:])
        if count:
            deal += np.add.reduceat(per_hand, starts, axis=0)
        deal[:, where["hands"][0]] += g["hands"]
        deal[:, where["games"][0]] += 1
        winner = (g["winner"].astype(np.int64) + r) % E  # the winning entrant of each game
        for e in range(E):
            deal[:, where["won"][e]] += winner == e
        sums["game_wins"] += np.bincount(winner, minlength=E)
        sums["game_hands_hist"] += np.bincount(g["hands"], minlength=len(sums["game_hands_hist"]))
        if E == 2:
            sums["score"] += 2 * (winner == 0)
    else:  # one hand per deal and rotation: hand i is deal first + i
        if n != len(deal):
            raise ValueError("the batch does not hold one hand per deal of the chunk")
        deal += per_hand
        deal[:, where["hands"][0]] += 1
        for e in range(E):
            deal[:, where["won"][e]] += code[e] == 0
        if E == 2:
            sums["score"] += 2 - code[0]


def _outcomes(tot: list[np.ndarray]) -> list[np.ndarray]:
    """Per entrant, per hand: 0 won (strictly the top total), 1 drew (shared top), 2 lost."""
    top = np.maximum.reduce(tot)
    n_top = sum((t == top).astype(np.int64) for t in tot)
    return [np.where(t == top, np.where(n_top == 1, 0, 1), 2) for t in tot]


class ChunkOverflow(EscobaError, OverflowError):
    """A chunk whose sums of cross products could pass 2**63 - 1: a smaller ``chunk_size`` keeps them exact
    (raised by ``deal_moments`` here and, for the compiled one, by ``runs.chunk``; the message names the
    parameter, a front end its own word)."""


CHUNK_SIZE = Parameter("chunk_size")


def chunk_overflow(deals: int, top: int) -> ChunkOverflow:
    """The error of a chunk of ``deals`` rows with values up to ``top`` in absolute value."""
    return ChunkOverflow("a chunk's cross products could pass 2**63 ({deals} deals, values up to {top}): "
                         "use a smaller {chunk_size}", deals=deals, top=top, chunk_size=CHUNK_SIZE)


def deal_moments(deal: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """``deal_sum`` and ``deal_gram`` of the first ``p`` columns of a chunk's rows, exactly (the NumPy reference
    of ``native.core.deal_moments``); ChunkOverflow (an OverflowError) when a cross product's sum could pass
    2**63 - 1."""
    d = deal[:, :p]
    top = max(int(d.max()), -int(d.min())) if d.size else 0
    if top * top * len(d) > 2**63 - 1:
        raise chunk_overflow(len(d), top)
    return d.sum(axis=0), gram(d)


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
