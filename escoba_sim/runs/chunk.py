"""One chunk of a run: play its deals in every rotation and reduce them to integer aggregates (``aggregates``).

The reduction is one compiled pass per rotation (``native.core.add_rotation`` and ``deal_moments``,
csrc/escoba_aggregate.h) when the core is loaded, else their NumPy reference in ``aggregates``: the
same integers either way (tests/runs/test_chunk_sums.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import native
from ..batch import play_games, play_hands
from . import aggregates
from .aggregates import DealLayout, chunk_sums, fit_histograms
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
    lay = DealLayout(E)
    games_mode = spec.mode == "games"
    # the category columns of the deal rows only when the per-deal vectors are written
    width = lay.size if deals_dir is not None else lay.core_size
    where = lay.columns(width)
    sums = chunk_sums(E, count, width)
    add_rotation, deal_moments = _compiled_or_reference()
    n_hands = n_games = 0
    rows = []
    for r in range(R):
        b = (play_games if games_mode else play_hands)(spec.rules, spec.lineup(r), spec.seed, first, count)
        n_hands += b.n_hands
        n_games += len(b.games["game"]) if games_mode else 0
        fit_histograms(sums, b.hands, b.games)
        add_rotation(sums, where, b.hands, b.games, r, first, spec.rules.teams)
        if hands_dir is not None:
            rows.append(_hand_rows(b.hands, r))
    if hands_dir is not None:
        write_hands(rows, Path(hands_dir) / chunk_name(k), Path(hands_dir).parent)
    if deals_dir is not None:
        write_deals(sums["deal"], lay.names(), first, Path(deals_dir) / chunk_name(k), spec.fingerprint(k),
                    Path(deals_dir).parent)
    deal_sum, deal_gram = deal_moments(sums["deal"], lay.core_size)
    pos_points, pos_wdl = sums["pos_points"], sums["pos_wdl"]
    agg = {
        "clusters": np.array([count]), "games": np.array([n_games]), "hands": np.array([n_hands]),
        "lucky_hands": sums["lucky_hands"],
        "points": pos_points.sum(axis=1), "wdl": pos_wdl.sum(axis=1), "pos_points": pos_points, "pos_wdl": pos_wdl,
        "game_wins": sums["game_wins"], "game_hands_hist": sums["game_hands_hist"], "points_hist": sums["points_hist"],
        "deal_sum": deal_sum, "deal_gram": deal_gram,
    }
    if E == 2:
        agg["score_hist"] = np.bincount(sums["score"], minlength=2 * R + 1)
        if spec.sprt is not None:  # the GSPRT is checked after every deal, in deal order
            agg["deal_score"] = sums["score"]
    return {k2: np.asarray(v, dtype=np.int64) for k2, v in agg.items()}


def _compiled_or_reference():
    """The chunk's sums in one compiled pass when the core is loaded, else their NumPy reference
    (``aggregates``; a test checks that both give the same integers)."""
    if native.core is not None:
        return native.core.add_rotation, _compiled_deal_moments
    return aggregates.add_rotation, aggregates.deal_moments


def _compiled_deal_moments(deal, p: int):
    """The compiled ``deal_moments``, its overflow said as the reference says it (``aggregates.chunk_overflow``:
    a smaller ``chunk_size``)."""
    try:
        return native.core.deal_moments(deal, p)
    except OverflowError as e:
        deals, top = e.args
        raise aggregates.chunk_overflow(deals, top) from None


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
