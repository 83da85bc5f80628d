"""One chunk of a run: play its deals in every rotation and reduce them to integer aggregates (``aggregates``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..batch import play_games, play_hands
from ..game.columns import SIDE_COLUMNS
from .aggregates import TOTAL, DealLayout, add_padded, gram
from .folder import chunk_name, write_deals, write_hands
from .spec import RunSpec

# glibc's malloc options (malloc.h): M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_heap_kept = False


def keep_freed_memory() -> None:
    """Ask glibc's malloc, once per process, to keep the memory a chunk frees for the next chunk.

    A chunk allocates some tens of MB of arrays and frees them all at its end. By default glibc
    maps arrays over its (moving) threshold afresh and returns the freed top of the heap to the
    system, so every chunk page-faulted and zeroed the same memory again: 40-60 minor faults per
    1,000 hands, 10-20% of a run's CPU time (benchmarks/README.md, "The runner against the core").
    With arrays up to 32 MB on the heap and the heap trimmed only past 256 MB free, the memory of
    one chunk is reused by the next; the peak stays that of one chunk. Elsewhere (not glibc:
    no ``mallopt``) nothing changes.
    """
    global _heap_kept
    if _heap_kept:
        return
    _heap_kept = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    mallopt(_M_TRIM_THRESHOLD, 256 << 20)


def play_chunk(spec: RunSpec, k: int, hands_dir: str | None = None, deals_dir: str | None = None,
               cut: int | None = None) -> dict[str, np.ndarray]:
    """Play chunk ``k`` (every rotation of its deals) and return its integer aggregates.

    A top-level function of picklable arguments, so any executor can run it.
    With ``hands_dir`` the per-hand rows are written there (atomically) too; with
    ``deals_dir`` the per-deal vectors (``DealLayout``), which a comparison or a
    tournament pairs across runs. ``cut`` plays only the chunk's first ``cut`` deals
    (an SPRT that stopped inside the chunk).
    """
    if not 0 <= k < spec.n_chunks:
        raise IndexError(f"chunk {k} is not in 0..{spec.n_chunks - 1}")
    keep_freed_memory()
    first, count = spec.chunk_range(k)
    if cut is not None:
        count = min(count, cut)
    R, E = spec.rotations, spec.entrants
    Q, K = E, len(SIDE_COLUMNS)
    lay = DealLayout(E)
    rules = spec.rules
    games_mode = spec.mode == "games"
    # v_c laid out (column, deal) so every column is filled and summed along contiguous memory;
    # the category columns only when the per-deal vectors are written
    width = lay.size if deals_dir is not None else lay.core_size
    deal = np.zeros((width, count), np.int64)
    base = lay.points(0)  # the per-hand columns: hands, then base .. width (totals, positions, categories)
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
        # else a (dealer side x hand) indicator matrix: one small BLAS product per column, in float64,
        # exact while the sums stay below 2**53 (far above any chunk's); half the time of a bincount
        dealt = None if strided else np.equal.outer(np.arange(Q), dealer_side).astype(np.float64)

        def cell_sums(col: np.ndarray) -> np.ndarray:
            """Sums of an (n, Q) side column as [dealer side, side]."""
            if strided:  # hands with dealer side d are i = (d - first) % Q, then every Q-th
                flat = col.ravel()
                return np.array([[int(flat[((d - first) % Q) * Q + j::Q * Q].sum(dtype=np.int64)) for j in range(Q)]
                                 for d in range(Q)], dtype=np.int64)
            return np.rint(dealt @ col.astype(np.float64)).astype(np.int64)

        for kk, c in enumerate(SIDE_COLUMNS):
            sums = cell_sums(h[c])
            for e in range(E):
                j = side_of_e[e]
                for d in range(Q):
                    pos_points[e, (j - d) % Q, kk] += sums[d, j]
        # the per-hand part of v_c (columns base .. size), laid out (column, hand): in --hands mode
        # hand i is deal i, so it is added straight into the deal rows
        per_hand = np.empty((width - base, n), np.int64)
        for e in range(E):
            j = side_of_e[e]
            per_hand[lay.points(e) - base] = tot[e]
            if width > lay.core_size:
                for kk, c in enumerate(SIDE_COLUMNS):
                    if kk != TOTAL:
                        per_hand[lay.points(e, kk) - base] = h[c][:, j]
            q = (j - dealer_side) % Q
            for qq in range(Q):
                at = per_hand[lay.pos_hands(e, qq) - base]
                np.equal(q, qq, out=at, casting="unsafe")
                np.multiply(at, tot[e], out=per_hand[lay.pos_total(e, qq) - base])
            pw = np.bincount(dealer_side * 3 + code[e], minlength=Q * 3).reshape(Q, 3)
            for d in range(Q):
                pos_wdl[e, (j - d) % Q] += pw[d]
            hists[e] = add_padded(hists[e], np.bincount(tot[e]))
        if games_mode:
            # hands come game by game in game order and every game has a hand, so the
            # per-deal sums are segment sums (exact integers, no scatter)
            g = b.games
            starts = np.zeros(count, np.int64)
            np.cumsum(g["hands"][:-1], out=starts[1:])
            deal[base:] += np.add.reduceat(per_hand, starts, axis=1)
            deal[lay.hands] += g["hands"]
            winner = (g["winner"].astype(np.int64) + r) % E  # the winning entrant of each game
            at = g["game"] - first
            deal[lay.games] += 1
            for e in range(E):
                deal[lay.won(e), at] += winner == e
            n_games += len(g["game"])
            game_wins += np.bincount(winner, minlength=E)
            game_hist = add_padded(game_hist, np.bincount(g["hands"]))
            if E == 2:
                z[at] += 2 * (winner == 0)
        else:  # one hand per deal and rotation: hand i is deal first + i
            deal[base:] += per_hand
            deal[lay.hands] += 1
            for e in range(E):
                deal[lay.won(e)] += code[e] == 0
            if E == 2:
                z += 2 - code[0]
        if hands_dir is not None:
            rows.append(_hand_rows(h, r))
    if hands_dir is not None:
        write_hands(rows, Path(hands_dir) / chunk_name(k), Path(hands_dir).parent)
    if deals_dir is not None:
        write_deals(deal.T, lay.names(), first, Path(deals_dir) / chunk_name(k), spec.fingerprint(k),
                    Path(deals_dir).parent)
    agg = {
        "clusters": np.array([count]), "games": np.array([n_games]), "hands": np.array([n_hands]),
        "lucky_hands": np.array([lucky]),
        "points": pos_points.sum(axis=1), "wdl": pos_wdl.sum(axis=1), "pos_points": pos_points, "pos_wdl": pos_wdl,
        "game_wins": game_wins, "game_hands_hist": game_hist, "points_hist": _stack(hists),
        "deal_sum": deal[:lay.core_size].sum(axis=1), "deal_gram": gram(deal[:lay.core_size].T),
    }
    if E == 2:
        agg["score_hist"] = np.bincount(z, minlength=2 * R + 1)
        if spec.sprt is not None:  # the GSPRT is checked after every deal, in deal order
            agg["deal_score"] = z
    return {k2: np.asarray(v, dtype=np.int64) for k2, v in agg.items()}


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


def _outcomes(tot: list[np.ndarray]) -> list[np.ndarray]:
    """Per entrant, per hand: 0 won (strictly the top total), 1 drew (shared top), 2 lost."""
    if len(tot) == 2:  # the common case, without the general path's temporaries
        a, b = tot
        tie = (a == b).astype(np.int64)
        return [2 * (a < b) + tie, 2 * (b < a) + tie]
    top = np.maximum.reduce(tot)
    n_top = sum((t == top).astype(np.int64) for t in tot)
    return [np.where(t == top, np.where(n_top == 1, 0, 1), 2) for t in tot]


def _stack(hists: list[np.ndarray]) -> np.ndarray:
    width = max(len(h) for h in hists)
    return np.stack([np.pad(h, (0, width - len(h))) for h in hists])
