"""One chunk of a run: play its deals in every rotation and reduce them to integer aggregates.

A chunk returns integer aggregates (below) that merge by addition
(``merge``); statistics are computed from the merged integers (``summary``,
``stats``). The output folder stores them in long format (``runfolder``).

``E`` is the number of entrants (= sides), ``Q = E`` positions relative to
the dealer (0 dealer, 1 mano, then turn order; with teams 0 = the dealer's side), ``K`` indexes
``batch.SIDE_COLUMNS`` (escobas, lucky_escobas, siete_oros, sevens, oros,
cards, bonus, total, cards_taken, oros_taken, sevens_taken). Per cluster
(deal group) ``c``: ``x_c`` hands, ``y_ce`` total points of entrant ``e``.

=================  ==========  ====================================================
stat               dims        meaning
=================  ==========  ====================================================
clusters           [1]         deal groups in the chunk
games              [1]         games played (all rotations; 0 with --hands)
hands              [1]         hands played (all rotations)
lucky_hands        [1]         hands with lucky_deal > 0
x2                 [1]         sum_c x_c^2
xy                 [E]         sum_c x_c y_ce
y2                 [E, E]      sum_c y_ce y_cf
points             [E, K]      sum over hands of each side column, by entrant
wdl                [E, 3]      hands won (strictly top total), drawn (tied top), lost
pos_points         [E, Q, K]   as points, split by position
pos_wdl            [E, Q, 3]   as wdl, split by position
pos_x1, pos_x2     [E, Q]      sum_c x_ceq, sum_c x_ceq^2 (hands of e in position q)
pos_y2, pos_xy     [E, Q]      sum_c y_ceq^2, sum_c x_ceq y_ceq (its total points)
game_wins          [E]         games won
game_hands_hist    [H]         games by number of hands (bin = hands)
points_hist        [E, B]      hands by the entrant's total points (bin = points)
score_hist         [2m+1]      2 entrants only: clusters by entrant 0's score in
                               half-points (win 2, draw 1, loss 0) over the
                               cluster's m = rotations games or hands
=================  ==========  ====================================================
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .batch import SIDE_COLUMNS, play_games, play_hands
from .runfolder import chunk_name, write_hands
from .runspec import RunSpec

TOTAL = SIDE_COLUMNS.index("total")


def play_chunk(spec: RunSpec, k: int, hands_dir: str | None = None) -> dict[str, np.ndarray]:
    """Play chunk ``k`` (every rotation of its deals) and return its integer aggregates.

    A top-level function of picklable arguments, so any executor can run it.
    With ``hands_dir`` the per-hand rows are written there (atomically) too.
    """
    if not 0 <= k < spec.n_chunks:
        raise IndexError(f"chunk {k} is not in 0..{spec.n_chunks - 1}")
    first, count = spec.chunk_range(k)
    R, E = spec.rotations, spec.entrants
    Q, K = E, len(SIDE_COLUMNS)
    rules = spec.rules
    games_mode = spec.mode == "games"
    # per-cluster arrays are laid out (what, cluster) so every reduction runs along contiguous rows
    x = np.zeros(count, np.int64)
    y = np.zeros((E, count), np.int64)
    if games_mode:
        pos_x = np.zeros((E * Q, count), np.int64)  # row e * Q + q: hands of entrant e in position q
        pos_y = np.zeros((E * Q, count), np.int64)  # the same hands' total points
    hand_x1 = np.zeros((E, Q), np.int64)  # --hands: hands of e in position q (= sum x and sum x^2)
    hand_y2 = np.zeros((E, Q), np.int64)  # --hands: sum of those hands' squared totals
    z = np.zeros(count, np.int64)
    pos_points = np.zeros((E, Q, K), np.int64)
    pos_wdl = np.zeros((E, Q, 3), np.int64)
    game_wins = np.zeros(E, np.int64)
    hists: list[np.ndarray] = [np.zeros(0, np.int64) for _ in range(E)]
    game_hist = np.zeros(0, np.int64)
    n_hands = n_games = lucky = 0
    rows = []
    for r in range(R):
        lineup = spec.lineup(r)
        b = (play_games if games_mode else play_hands)(rules, lineup, spec.seed, first, count)
        h = b.hands
        n = len(h["game"])
        n_hands += n
        side_of_e = [(e - r) % E for e in range(E)]
        tot_sides = h["total"]
        tot = [tot_sides[:, j].astype(np.int64) for j in side_of_e]  # tot[e]: entrant e's points per hand
        dealer_side = (h["dealer"] % 2 if rules.teams else h["dealer"]).astype(np.int64)
        code = _outcomes(tot)  # code[e]: 0 win, 1 draw, 2 loss
        lucky += int(np.count_nonzero(h["lucky_deal"]))
        # A side's position depends only on the dealer's side, so per-position sums are sums
        # over (dealer side, side) cells. In --hands mode the dealer side of hand i is
        # (first + i) % Q (docs/engine.md), so the cells are strided views: checked, not assumed.
        strided = (not games_mode and n >= Q and np.array_equal(dealer_side[:Q], (first + np.arange(Q)) % Q)
                   and np.array_equal(dealer_side[Q:], dealer_side[:-Q]))
        cell = None if strided else (dealer_side[:, None] * Q + np.arange(Q)[None, :]).ravel()

        def cell_sums(flat: np.ndarray) -> np.ndarray:
            """Sums of an (n, Q) side column, flattened (hand i, side j at i * Q + j), as [dealer side, side]."""
            if strided:  # hands with dealer side d are i = (d - first) % Q, then every Q-th
                return np.array([[int(flat[((d - first) % Q) * Q + j::Q * Q].sum(dtype=np.int64)) for j in range(Q)]
                                 for d in range(Q)], dtype=np.int64)
            # float weights are exact: the sums stay far below 2**53
            return np.bincount(cell, weights=flat, minlength=Q * Q).reshape(Q, Q).astype(np.int64)

        for kk, c in enumerate(SIDE_COLUMNS):
            sums = cell_sums(h[c].ravel())
            for e in range(E):
                j = side_of_e[e]
                for d in range(Q):
                    pos_points[e, (j - d) % Q, kk] += sums[d, j]
        if not games_mode:
            # With --hands, rotations put an entrant on distinct sides, hence in distinct
            # positions: each (entrant, position) gets at most one hand per cluster, so its
            # per-cluster sums are that hand's values and the cluster sums are per-hand sums.
            sq = cell_sums((tot_sides.astype(np.int64) ** 2).ravel())
            n_d = np.bincount(dealer_side, minlength=Q)
            for e in range(E):
                j = side_of_e[e]
                for d in range(Q):
                    qq = (j - d) % Q
                    hand_x1[e, qq] += n_d[d]
                    hand_y2[e, qq] += sq[d, j]
        if games_mode:
            # hands come game by game in game order and every game has a hand, so the
            # per-cluster sums are segment sums (exact integers, no scatter)
            starts = np.zeros(count, np.int64)
            np.cumsum(b.games["hands"][:-1], out=starts[1:])
            x += b.games["hands"]
            seg = np.zeros((E + 2 * E * Q, n), np.int64)  # tot | hands by (e, q) | points by (e, q)
        else:
            x += 1  # one hand per deal and rotation; hand i is deal first + i
        for e in range(E):
            if games_mode:
                q = (side_of_e[e] - dealer_side) % Q
                seg[e] = tot[e]
                for qq in range(Q):
                    at = q == qq
                    seg[E + e * Q + qq] = at
                    seg[E + E * Q + e * Q + qq] = at * tot[e]
            else:
                y[e] += tot[e]
            pw = np.bincount(dealer_side * 3 + code[e], minlength=Q * 3).reshape(Q, 3)
            for d in range(Q):
                pos_wdl[e, (side_of_e[e] - d) % Q] += pw[d]
            hists[e] = add_padded(hists[e], np.bincount(tot[e]))
        if games_mode:
            sums = np.add.reduceat(seg, starts, axis=1)
            y += sums[:E]
            pos_x += sums[E:E + E * Q]
            pos_y += sums[E + E * Q:]
        if E == 2:
            if games_mode:
                g = b.games
                won = (g["winner"].astype(np.int64) + r) % E == 0
                z += 2 * np.bincount(g["game"] - first, weights=won, minlength=count).astype(np.int64)
            else:
                z += 2 - code[0]
        if games_mode:
            g = b.games
            n_games += len(g["game"])
            game_wins += np.bincount((g["winner"].astype(np.int64) + r) % E, minlength=E)
            game_hist = add_padded(game_hist, np.bincount(g["hands"]))
        if hands_dir is not None:
            rows.append(_hand_rows(h, r))
    if hands_dir is not None:
        write_hands(rows, Path(hands_dir) / chunk_name(k))
    rowdot = lambda a, b: np.einsum("ij,ij->i", a, b)  # noqa: E731  (row-wise sums of products, int64)
    agg = {
        "clusters": np.array([count]), "games": np.array([n_games]), "hands": np.array([n_hands]),
        "lucky_hands": np.array([lucky]), "x2": np.array([int(x @ x)]), "xy": y @ x, "y2": y @ y.T,
        "points": pos_points.sum(axis=1), "wdl": pos_wdl.sum(axis=1), "pos_points": pos_points, "pos_wdl": pos_wdl,
        "pos_x1": pos_x.sum(axis=1).reshape(E, Q) if games_mode else hand_x1,
        "pos_x2": rowdot(pos_x, pos_x).reshape(E, Q) if games_mode else hand_x1,
        "pos_y2": rowdot(pos_y, pos_y).reshape(E, Q) if games_mode else hand_y2,
        "pos_xy": rowdot(pos_x, pos_y).reshape(E, Q) if games_mode else pos_points[:, :, TOTAL].copy(),
        "game_wins": game_wins, "game_hands_hist": game_hist, "points_hist": _stack(hists),
    }
    if E == 2:
        agg["score_hist"] = np.bincount(z, minlength=2 * R + 1)
    return {k2: np.asarray(v, dtype=np.int64) for k2, v in agg.items()}


def _outcomes(tot: list[np.ndarray]) -> list[np.ndarray]:
    """Per entrant, per hand: 0 won (strictly the top total), 1 drew (shared top), 2 lost."""
    if len(tot) == 2:  # the common case, without the general path's temporaries
        a, b = tot
        tie = (a == b).astype(np.int64)
        return [2 * (a < b) + tie, 2 * (b < a) + tie]
    top = np.maximum.reduce(tot)
    n_top = sum((t == top).astype(np.int64) for t in tot)
    return [np.where(t == top, np.where(n_top == 1, 0, 1), 2) for t in tot]


def add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum of two arrays of possibly different shapes, zero-padded (histograms grow as needed)."""
    shape = tuple(max(i, j) for i, j in zip(a.shape, b.shape))
    out = np.zeros(shape, np.int64)
    out[tuple(slice(0, s) for s in a.shape)] += a
    out[tuple(slice(0, s) for s in b.shape)] += b
    return out


def _stack(hists: list[np.ndarray]) -> np.ndarray:
    width = max(len(h) for h in hists)
    return np.stack([np.pad(h, (0, width - len(h))) for h in hists])


def merge(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Exact merge of two aggregates (integer addition, histograms padded)."""
    if a is None:
        return {k: v.copy() for k, v in b.items()}
    return {k: add_padded(a[k], b[k]) if k in a else b[k].copy() for k in b} | {k: a[k] for k in a if k not in b}


def _hand_rows(h: dict[str, np.ndarray], r: int):
    cols: dict[str, np.ndarray] = {}
    for k, v in h.items():
        if v.ndim == 1:
            cols[k] = v
        else:
            for j in range(v.shape[1]):
                cols[f"{k}_{j}"] = v[:, j]
    cols["rotation"] = np.full(len(h["game"]), r, np.int8)
    return cols


def empty_aggregates(spec: RunSpec) -> dict[str, np.ndarray]:
    E, K = spec.entrants, len(SIDE_COLUMNS)
    z = lambda *s: np.zeros(s, np.int64)  # noqa: E731
    agg = {"clusters": z(1), "games": z(1), "hands": z(1), "lucky_hands": z(1), "x2": z(1), "xy": z(E),
           "y2": z(E, E), "points": z(E, K), "wdl": z(E, 3), "pos_points": z(E, E, K), "pos_wdl": z(E, E, 3),
           "pos_x1": z(E, E), "pos_x2": z(E, E), "pos_y2": z(E, E), "pos_xy": z(E, E), "game_wins": z(E),
           "game_hands_hist": z(0), "points_hist": z(E, 0)}
    if E == 2:
        agg["score_hist"] = z(2 * spec.rotations + 1)
    return agg
