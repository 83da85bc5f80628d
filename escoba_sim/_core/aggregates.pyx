# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A chunk's sums in one compiled pass: the twins of ``runs.aggregates.add_rotation`` and ``deal_moments``.

``add_rotation`` and ``deal_moments`` reduce a run's batches to a chunk's sums (csrc/escoba_aggregate.h;
``runs.chunk`` calls them, told where each quantity goes by ``runs.aggregates.DealLayout.columns``;
``runs.aggregates`` holds their NumPy reference, and the two give the same integers).
"""

from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.string cimport memset

import numpy as np

from ..game import columns as result_columns

cdef int64_t _empty[1]

_SUMS_ERRORS = {ESC_AGG_BAD_DEALER: "a hand's dealer is not a seat of the table",
                ESC_AGG_BAD_TOTAL: "a hand's total is negative or beyond the points histogram",
                ESC_AGG_BAD_DEALS: "the batch does not hold one hand (or game) per deal of the chunk",
                ESC_AGG_BAD_GAME: "the batch's games do not tile its hands in game order"}


cdef void *_first(a, dtype, shape, what) except NULL:
    """The data of a C-contiguous array of exactly ``dtype`` and ``shape`` (a fake address when it is empty:
    nothing is read there); anything else is a ValueError naming ``what``."""
    if not isinstance(a, np.ndarray) or a.dtype != dtype or a.shape != tuple(shape) or not a.flags.c_contiguous:
        got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
        raise ValueError(f"{what}: expected a C-contiguous {np.dtype(dtype)} array of shape {tuple(shape)}, got {got}")
    if a.size == 0:
        return <void *>_empty
    return <void *><size_t>a.ctypes.data


def add_rotation(sums, where, hands, games, int r, first, teams):
    """Add rotation ``r``'s batch to a chunk's ``sums`` in one compiled pass: the twin of
    ``runs.aggregates.add_rotation`` (same arguments, same integers; its docstring says what they
    are). Every array's type and shape is checked, every index the batch holds too (a ValueError)."""
    cdef esc_chunk_sums S
    cdef esc_rotation_batch b
    cdef int E = len(where["won"]), K = ESC_AGG_SIDE_COLS, e, q, k, rc
    if not 2 <= E <= ESC_AGG_MAX_SIDES or len(result_columns.SIDE_COLUMNS) != K:
        raise ValueError(f"{E} entrants: the compiled sums take 2 to {ESC_AGG_MAX_SIDES}")
    memset(&S, 0, sizeof(S))
    memset(&b, 0, sizeof(b))
    deal = sums["deal"]
    if not isinstance(deal, np.ndarray) or deal.ndim != 2:
        raise ValueError("sums['deal'] must be a (deals x columns) array")
    S.count, S.width = deal.shape[0], deal.shape[1]
    S.E, S.teams = E, 1 if teams else 0
    S.deal = <int64_t *>_first(deal, np.int64, deal.shape, "sums['deal']")
    table = {name: np.asarray(where[name]) for name in ("hands", "games", "won", "pos_hands", "pos_total", "side")}
    shapes = {"hands": (1,), "games": (1,), "won": (E,), "pos_hands": (E, E), "pos_total": (E, E), "side": (E, K)}
    for name, t in table.items():
        if t.shape != shapes[name] or t.size and not (t.min() >= (-1 if name == "side" else 0) and t.max() < S.width):
            raise ValueError(f"where['{name}'] must be {shapes[name]} columns of a row of {S.width}")
    S.hands_col, S.games_col = table["hands"][0], table["games"][0]
    for e in range(E):
        S.won_col[e] = table["won"][e]
        for q in range(E):
            S.pos_hands_col[e][q] = table["pos_hands"][e, q]
            S.pos_total_col[e][q] = table["pos_total"][e, q]
        for k in range(K):
            S.side_col[e][k] = table["side"][e, k]
    S.pos_points = <int64_t *>_first(sums["pos_points"], np.int64, (E, E, K), "sums['pos_points']")
    S.pos_wdl = <int64_t *>_first(sums["pos_wdl"], np.int64, (E, E, 3), "sums['pos_wdl']")
    S.game_wins = <int64_t *>_first(sums["game_wins"], np.int64, (E,), "sums['game_wins']")
    hist = sums["points_hist"]
    S.points_bins = hist.shape[1] if isinstance(hist, np.ndarray) and hist.ndim == 2 else 0
    S.points_hist = <int64_t *>_first(hist, np.int64, (E, S.points_bins), "sums['points_hist']")
    hist = sums["game_hands_hist"]
    S.game_bins = len(hist) if isinstance(hist, np.ndarray) else 0
    S.game_hist = <int64_t *>_first(hist, np.int64, (S.game_bins,), "sums['game_hands_hist']")
    if "score" in sums:
        S.score = <int64_t *>_first(sums["score"], np.int64, (S.count,), "sums['score']")
    lucky = sums["lucky_hands"]
    _first(lucky, np.int64, (1,), "sums['lucky_hands']")
    b.r, b.first, b.n = r, first, len(hands["game"])
    b.dealer = <int8_t *>_first(hands["dealer"], np.int8, (b.n,), "hands['dealer']")
    b.lucky_deal = <int8_t *>_first(hands["lucky_deal"], np.int8, (b.n,), "hands['lucky_deal']")
    for k, name in enumerate(result_columns.SIDE_COLUMNS):
        b.side[k] = <int16_t *>_first(hands[name], np.int16, (b.n, E), f"hands['{name}']")
    if games is not None:
        b.n_games = len(games["game"])
        b.game = <int64_t *>_first(games["game"], np.int64, (b.n_games,), "games['game']")
        b.game_hands = <int32_t *>_first(games["hands"], np.int32, (b.n_games,), "games['hands']")
        b.winner = <int8_t *>_first(games["winner"], np.int8, (b.n_games,), "games['winner']")
    with nogil:
        rc = esc_add_rotation(&S, &b)
    if rc != ESC_AGG_OK:
        raise ValueError(_SUMS_ERRORS[rc])
    lucky[0] += S.lucky_hands


def deal_moments(deal, int p):
    """``deal_sum`` and ``deal_gram`` of the first ``p`` columns of a chunk's rows (int64, C order), exactly:
    the twin of ``runs.aggregates.deal_moments``. ``OverflowError(deals, top)`` when a cross product's sum could
    pass 2**63 - 1: ``runs.chunk`` says it as the reference does (``runs.aggregates.chunk_overflow``)."""
    if not isinstance(deal, np.ndarray) or deal.ndim != 2 or not 0 <= p <= min(deal.shape[1], ESC_MOMENTS_MAX_COLS):
        raise ValueError(f"deal_moments takes a (deals x columns) array and at most {ESC_MOMENTS_MAX_COLS} of its columns")
    cdef const int64_t *d = <int64_t *>_first(deal, np.int64, deal.shape, "deal")
    cdef int64_t count = deal.shape[0]
    cdef int width = deal.shape[1], rc
    cdef uint64_t top = 0
    total, gram = np.zeros(p, np.int64), np.zeros((p, p), np.int64)
    cdef int64_t *s = <int64_t *>_first(total, np.int64, (p,), "sum")
    cdef int64_t *g = <int64_t *>_first(gram, np.int64, (p, p), "gram")
    with nogil:
        rc = esc_deal_moments(d, count, width, p, s, g, &top)
    if rc != 0:
        raise OverflowError(count, top)  # the numbers only: the message is the library's, one floor up
    return total, gram
