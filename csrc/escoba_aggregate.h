/* A run's chunk reduced to its integer aggregates in one pass over its batches (runs/chunk.py;
 * the meaning of every aggregate: runs/aggregates.py). The NumPy reference of both functions is
 * runs.aggregates (add_rotation, deal_moments); tests/runs/test_chunk_sums.py checks that they
 * agree on many batches, so that a chunk's results are the same integers with or without the core.
 *
 * esc_add_rotation adds one rotation's batch (its hands and, for games, its games) to the chunk's
 * sums: the per-position points and W/D/L, the histograms, the games won and each deal's row of
 * the per-deal matrix. It reads each hand once and allocates nothing: the NumPy version made
 * a dozen temporaries per hand column (casts, outcomes, the per-hand rows), which cost the runner
 * 5-9 CPU ms per 100k hands, 7-17% of the core's time (benchmarks/README.md).
 *
 * esc_deal_moments sums the per-deal matrix's core columns and their cross products (the Gram
 * matrix) exactly in integers. Plain C, static inline, prefix esc_.
 */
#ifndef ESCOBA_AGGREGATE_H
#define ESCOBA_AGGREGATE_H

#include <stdint.h>
#include <string.h>
#include "escoba_common.h" /* ESC_ALWAYS_INLINE, ESC_COLD */

#define ESC_AGG_MAX_SIDES 6
#define ESC_AGG_SIDE_COLS 11 /* game.columns.SIDE_COLUMNS */

/* what esc_add_rotation found wrong with a batch (nothing is added past the first bad hand or
 * game; the caller discards the chunk) */
enum { ESC_AGG_OK = 0, ESC_AGG_BAD_DEALER = -1, ESC_AGG_BAD_TOTAL = -2, ESC_AGG_BAD_DEALS = -3,
       ESC_AGG_BAD_GAME = -4 };

/* The chunk's sums, filled rotation by rotation. E entrants = sides = positions relative to the
 * dealer; side j of rotation r is played by entrant (j + r) % E. A deal's row in `deal` holds,
 * at the columns the layout (runs.aggregates.DealLayout.columns) names: hands, games, won[e],
 * pos_hands[e][q], pos_total[e][q], and side[e][k] (entrant e's SIDE_COLUMNS[k] summed;
 * -1: not in the row). */
typedef struct {
    int E, teams;           /* teams: the dealer's side is the dealer's seat % 2 */
    int64_t *deal;          /* count rows of `width` columns: row c is deal first + c */
    int64_t count;
    int width;
    int hands_col, games_col;
    int won_col[ESC_AGG_MAX_SIDES];
    int pos_hands_col[ESC_AGG_MAX_SIDES][ESC_AGG_MAX_SIDES], pos_total_col[ESC_AGG_MAX_SIDES][ESC_AGG_MAX_SIDES];
    int side_col[ESC_AGG_MAX_SIDES][ESC_AGG_SIDE_COLS];
    int64_t *pos_points;    /* [E][Q][K] */
    int64_t *pos_wdl;       /* [E][Q][3]: won (strictly the top total), drew (shared top), lost */
    int64_t *game_wins;     /* [E] */
    int64_t *points_hist;   /* [E][points_bins]: hands by the entrant's total */
    int64_t points_bins;
    int64_t *game_hist;     /* [game_bins]: games by their number of hands */
    int64_t game_bins;
    int64_t *score;         /* [count], 2 entrants only (else NULL): entrant 0's half-points per deal */
    int64_t lucky_hands;
} esc_chunk_sums;

/* One rotation's batch: the columns of game.columns.Batch (side columns (n, E), C order). */
typedef struct {
    int r;
    int64_t first;          /* the chunk's first deal */
    int64_t n;              /* hands */
    const int8_t *dealer, *lucky_deal;
    const int16_t *side[ESC_AGG_SIDE_COLS];
    int64_t n_games;        /* games mode: the games, in game order (else 0 and NULLs) */
    const int64_t *game;
    const int32_t *game_hands;
    const int8_t *winner;   /* the winning side */
} esc_rotation_batch;

/* What a rotation's hands have in common: the entrant of each side, the position of each side by
 * the dealer's side, the row columns each side's columns add to (precomputed: with two modulo
 * divisions per side and hand, and E unknown to the compiler, the pass took twice as long). */
typedef struct {
    int entrant[ESC_AGG_MAX_SIDES];
    int position[ESC_AGG_MAX_SIDES][ESC_AGG_MAX_SIDES]; /* [dealer's side][side] */
    int n_written[ESC_AGG_MAX_SIDES], written_k[ESC_AGG_MAX_SIDES][ESC_AGG_SIDE_COLS],
        written_col[ESC_AGG_MAX_SIDES][ESC_AGG_SIDE_COLS]; /* by entrant */
} esc_rotation_plan;

/* hand i of the batch into the chunk's sums and into its deal's row; won_by_hand: --hands mode,
 * where a hand won outright is the deal's "won". E is a constant where it is inlined for 2. */
static ESC_ALWAYS_INLINE int esc_add_hand(esc_chunk_sums *S, const esc_rotation_batch *b,
                                                             const esc_rotation_plan *P, const int E, int64_t i,
                                                             int64_t *row, int won_by_hand) {
    const int K = ESC_AGG_SIDE_COLS;
    const int dealer = b->dealer[i], ds = S->teams ? (dealer & 1) : dealer;
    if (dealer < 0 || ds >= E) return ESC_AGG_BAD_DEALER;
    int16_t v[ESC_AGG_SIDE_COLS][ESC_AGG_MAX_SIDES];
    for (int k = 0; k < K; k++)
        for (int j = 0; j < E; j++) v[k][j] = b->side[k][i * E + j];
    const int16_t *tot = v[7]; /* ESC_C_TOTAL */
    int top = tot[0], ntop = 0;
    for (int j = 1; j < E; j++) top = tot[j] > top ? tot[j] : top;
    for (int j = 0; j < E; j++) ntop += tot[j] == top;
    for (int j = 0; j < E; j++) {
        const int t = tot[j];
        if (t < 0 || t >= S->points_bins) return ESC_AGG_BAD_TOTAL;
        const int e = P->entrant[j], q = P->position[ds][j];
        const int code = t == top ? (ntop == 1 ? 0 : 1) : 2;
        int64_t *pp = S->pos_points + (e * E + q) * K;
        for (int k = 0; k < K; k++) pp[k] += v[k][j];
        S->pos_wdl[(e * E + q) * 3 + code] += 1;
        S->points_hist[e * S->points_bins + t] += 1;
        row[S->pos_hands_col[e][q]] += 1;
        row[S->pos_total_col[e][q]] += t;
        for (int m = 0; m < P->n_written[e]; m++) row[P->written_col[e][m]] += v[P->written_k[e][m]][j];
        if (won_by_hand) {
            row[S->won_col[e]] += code == 0;
            if (e == 0 && S->score) S->score[i] += 2 - code;
        }
    }
    S->lucky_hands += b->lucky_deal[i] != 0;
    return ESC_AGG_OK;
}

static ESC_ALWAYS_INLINE int esc_add_rotation_of(esc_chunk_sums *S, const esc_rotation_batch *b,
                                                                    const esc_rotation_plan *P, const int E) {
    int rc;
    if (b->game == NULL) { /* --hands: hand i is deal first + i */
        if (b->n != S->count) return ESC_AGG_BAD_DEALS;
        for (int64_t i = 0; i < b->n; i++) {
            int64_t *row = S->deal + i * S->width;
            row[S->hands_col] += 1;
            if ((rc = esc_add_hand(S, b, P, E, i, row, 1)) != ESC_AGG_OK) return rc;
        }
        return ESC_AGG_OK;
    }
    /* games: the hands come game by game in game order, game g being deal first + g */
    if (b->n_games != S->count) return ESC_AGG_BAD_DEALS;
    int64_t h = 0;
    for (int64_t g = 0; g < b->n_games; g++) {
        const int64_t nh = b->game_hands[g];
        if (b->game[g] != b->first + g || nh < 1 || nh >= S->game_bins || nh > b->n - h || b->winner[g] < 0
            || b->winner[g] >= E)
            return ESC_AGG_BAD_GAME;
        int64_t *row = S->deal + g * S->width;
        const int w = P->entrant[b->winner[g]]; /* the winning entrant */
        row[S->hands_col] += nh;
        row[S->games_col] += 1;
        row[S->won_col[w]] += 1;
        S->game_wins[w] += 1;
        S->game_hist[nh] += 1;
        if (S->score) S->score[g] += 2 * (w == 0);
        for (const int64_t end = h + nh; h < end; h++)
            if ((rc = esc_add_hand(S, b, P, E, h, row, 0)) != ESC_AGG_OK) return rc;
    }
    return h == b->n ? ESC_AGG_OK : ESC_AGG_BAD_GAME;
}

/* One rotation's batch into the chunk's sums (nothing is added past the first bad hand or game: the
 * caller discards the chunk). Side j is played by entrant (j + r) % E, at position
 * (j - dealer's side) % E. */
static inline int esc_add_rotation(esc_chunk_sums *S, const esc_rotation_batch *b) {
    const int E = S->E;
    esc_rotation_plan P;
    if (E < 2 || E > ESC_AGG_MAX_SIDES || b->r < 0) return ESC_AGG_BAD_DEALS;
    for (int j = 0; j < E; j++) {
        P.entrant[j] = (j + b->r) % E;
        for (int d = 0; d < E; d++) P.position[d][j] = (j - d + E) % E;
    }
    for (int e = 0; e < E; e++) {
        P.n_written[e] = 0;
        for (int k = 0; k < ESC_AGG_SIDE_COLS; k++) {
            if (S->side_col[e][k] < 0) continue;
            P.written_k[e][P.n_written[e]] = k;
            P.written_col[e][P.n_written[e]++] = S->side_col[e][k];
        }
    }
    /* local copies: their fields stay in registers, where the compiler had to reload them from *S
     * after every int64 store (an int64 field may be the very value stored) */
    esc_chunk_sums L = *S;
    const esc_rotation_batch B = *b;
    const int rc = E == 2 ? esc_add_rotation_of(&L, &B, &P, 2) : esc_add_rotation_of(&L, &B, &P, E);
    S->lucky_hands = L.lucky_hands;
    return rc;
}

/* Deals per block of esc_deal_moments' fast path, and the largest value it takes: a block's
 * cross product is at most 256 * 2047^2 < 2^31, so it adds up exactly in 32-bit lanes (the
 * compiler multiplies 16-bit values eight at a time, where 64-bit products go one by one: a
 * quarter of the time). Larger or negative values (never seen: a deal's counts and points are
 * small) take the 64-bit path. */
#define ESC_MOMENTS_BLOCK 256
#define ESC_MOMENTS_FAST_MAX 2047
/* the widest core of a deal's row (runs.aggregates.DealLayout.core_size for 6 entrants) */
#define ESC_MOMENTS_MAX_COLS (2 + 2 * ESC_AGG_MAX_SIDES + 2 * ESC_AGG_MAX_SIDES * ESC_AGG_MAX_SIDES)

/* the cross products of a block's columns i..p-1 with column i, into g[i][i..p-1]: four columns
 * at a time, so that column i is loaded once for four products */
static inline void esc_moments_row(int16_t buf[][ESC_MOMENTS_BLOCK], const int *cols, int nc, int i, int p,
                                   uint64_t *g) {
    const int16_t *a = buf[cols[i]];
    int j = i;
    for (; j + 4 <= nc; j += 4) {
        const int16_t *b0 = buf[cols[j]], *b1 = buf[cols[j + 1]], *b2 = buf[cols[j + 2]], *b3 = buf[cols[j + 3]];
        int32_t d0 = 0, d1 = 0, d2 = 0, d3 = 0;
        for (int c = 0; c < ESC_MOMENTS_BLOCK; c++) {
            const int32_t x = a[c];
            d0 += x * b0[c];
            d1 += x * b1[c];
            d2 += x * b2[c];
            d3 += x * b3[c];
        }
        g[cols[i] * p + cols[j]] += (uint64_t)d0;
        g[cols[i] * p + cols[j + 1]] += (uint64_t)d1;
        g[cols[i] * p + cols[j + 2]] += (uint64_t)d2;
        g[cols[i] * p + cols[j + 3]] += (uint64_t)d3;
    }
    for (; j < nc; j++) {
        const int16_t *b = buf[cols[j]];
        int32_t d = 0;
        for (int c = 0; c < ESC_MOMENTS_BLOCK; c++) d += (int32_t)a[c] * b[c];
        g[cols[i] * p + cols[j]] += (uint64_t)d;
    }
}

/* Column sums `sum[p]` and cross products `gram[p][p]` of the first p columns of `deal` (count rows
 * of `width`), exactly (ESC_COLD: out of line, with an AVX2 clone that takes 16 values per
 * instruction where the x86-64 baseline takes 8); `*top` is the largest |value|. Returns 0, or -1 when top^2 * count may
 * exceed 2^63 - 1 (the sums might have wrapped: the caller refuses the chunk) or p is too wide.
 * The sums add up modulo 2^64 (unsigned: defined when they wrap), exact whenever the check passes. */
static ESC_COLD int esc_deal_moments(const int64_t *deal, int64_t count, int width, int p, int64_t *sum,
                                   int64_t *gram, uint64_t *top) {
    enum { B = ESC_MOMENTS_BLOCK };
    int16_t buf[ESC_MOMENTS_MAX_COLS][B];
    uint64_t any[ESC_MOMENTS_MAX_COLS];
    int cols[ESC_MOMENTS_MAX_COLS];
    uint64_t *s = (uint64_t *)sum, *g = (uint64_t *)gram, mx = 0; /* int64 and uint64 may alias */
    if (p > ESC_MOMENTS_MAX_COLS) return -1;
    memset(s, 0, p * sizeof *s);
    memset(g, 0, (size_t)p * p * sizeof *g);
    for (int64_t c0 = 0; c0 < count; c0 += B) {
        const int m = count - c0 < B ? (int)(count - c0) : B;
        uint64_t all = 0; /* the OR of the block's values: at most 2047 iff every value is in [0, 2047] */
        memset(any, 0, p * sizeof any[0]);
        for (int c = 0; c < m; c++) {
            const int64_t *v = deal + (c0 + c) * width;
            for (int i = 0; i < p; i++) {
                any[i] |= (uint64_t)v[i];
                buf[i][c] = (int16_t)v[i];
            }
        }
        for (int i = 0; i < p; i++) all |= any[i];
        if (all <= ESC_MOMENTS_FAST_MAX) {
            int nc = 0; /* the block's columns that are not all zero (games in --hands mode): the others add nothing */
            for (int i = 0; i < p; i++) {
                if (!any[i]) continue;
                cols[nc++] = i;
                memset(buf[i] + m, 0, (B - m) * sizeof(int16_t));
                int32_t si = 0, mi = 0;
                for (int c = 0; c < B; c++) {
                    si += buf[i][c];
                    mi = buf[i][c] > mi ? buf[i][c] : mi;
                }
                s[i] += (uint64_t)si;
                mx = (uint64_t)mi > mx ? (uint64_t)mi : mx;
            }
            for (int i = 0; i < nc; i++) esc_moments_row(buf, cols, nc, i, p, g);
            continue;
        }
        for (int c = 0; c < m; c++) {
            const int64_t *v = deal + (c0 + c) * width;
            for (int i = 0; i < p; i++) {
                const uint64_t a = v[i] < 0 ? -(uint64_t)v[i] : (uint64_t)v[i];
                mx = a > mx ? a : mx;
                s[i] += (uint64_t)v[i];
                for (int j = i; j < p; j++) g[i * p + j] += (uint64_t)v[i] * (uint64_t)v[j];
            }
        }
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < i; j++) g[i * p + j] = g[j * p + i];
    *top = mx;
    /* every product is at most top^2, every sum of count of them at most top^2 * count */
    if (mx > 0 && count > 0 && mx > (uint64_t)INT64_MAX / (uint64_t)count / mx) return -1;
    return 0;
}

#endif
