# A chunk's sums in C (csrc/escoba_aggregate.h), as aggregates.pyx calls them.
from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, int64_t

cdef extern from "escoba_aggregate.h" nogil:
    int ESC_AGG_MAX_SIDES
    int ESC_AGG_SIDE_COLS
    int ESC_MOMENTS_MAX_COLS
    int ESC_AGG_OK, ESC_AGG_BAD_DEALER, ESC_AGG_BAD_TOTAL, ESC_AGG_BAD_DEALS, ESC_AGG_BAD_GAME
    ctypedef struct esc_chunk_sums:
        int E, teams
        int64_t *deal
        int64_t count
        int width
        int hands_col, games_col
        int won_col[6]
        int pos_hands_col[6][6]
        int pos_total_col[6][6]
        int side_col[6][11]
        int64_t *pos_points
        int64_t *pos_wdl
        int64_t *game_wins
        int64_t *points_hist
        int64_t points_bins
        int64_t *game_hist
        int64_t game_bins
        int64_t *score
        int64_t lucky_hands
    ctypedef struct esc_rotation_batch:
        int r
        int64_t first, n
        const int8_t *dealer
        const int8_t *lucky_deal
        const int16_t *side[11]
        int64_t n_games
        const int64_t *game
        const int32_t *game_hands
        const int8_t *winner
    int esc_add_rotation(esc_chunk_sums *S, const esc_rotation_batch *b)
    int esc_deal_moments(const int64_t *deal, int64_t count, int width, int p, int64_t *sum, int64_t *gram,
                         uint64_t *top)
