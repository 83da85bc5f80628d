/* Capture tables of escoba-sim: cards, the table (a card mask and its reachable
 * subset sums), every way to enumerate capture options, the keyed strategies'
 * best capture and `random`'s option draw. Plain C (no Python.h), following
 * docs/engine.md; what every header shares (macros, constants, strategy codes,
 * the stop flag) is in escoba_common.h.
 *
 * Encodings (why things look the way they do):
 * - a set of cards is a uint64 mask over card ids 0-39, id = suit*10 + value-1,
 *   so bits 10s..10s+9 of a mask are suit s's "value mask" (bit b = value b+1),
 *   and x * 0x40100401 spreads a 10-bit value set to every suit;
 * - the table is a card mask plus its set of reachable subset sums (a 16-bit
 *   set, bit s = some subset sums to s, s <= 15), kept incrementally: a laid
 *   card of value v ORs in the set shifted by v; a capture rebuilds it. "Does
 *   card c capture" is then one bit test (need 15 - v), for the whole hand at
 *   once via a value mask;
 * - options are enumerated only when a strategy needs them, in ascending
 *   40-bit mask order (the order docs/engine.md fixes for `random`):
 *   * tables of at most 4 cards (about 90% of decisions under ludoteka):
 *     16 bytes, one per subset, summed from per-card 16-byte vectors
 *     (esc_small_sums, SSE2): one byte compare per need; greedy and maxoros
 *     also sum their key, packed in a byte, the same way and take a bytewise
 *     maximum (esc_best_capture_small); 5-6 card tables add each subset of
 *     the 1-2 cards above to those 16 bytes (without SSE2: the low quarter);
 *   * small tables (<= ESC_SLOT_MAX cards): the 16 subset
 *     sums of the 4 lowest cards are packed one per byte in two words and
 *     compared with each need bytewise (no branch per subset); the cards
 *     above them (at most 4) are walked outermost as a small array of subset
 *     sums, so options still come out in mask order;
 *   * any larger table (up to 40 cards, exact): precomputed per-suit lookup
 *     tables indexed by the suit's 10-bit value mask (its submasks with sum
 *     <= 14, ascending, and those with each exact sum), walked highest suit
 *     outermost with prefix sum sets pruning every dead branch.
 * Everything is static inline with the prefix esc_; the lookup tables are
 * built once by esc_build_tables() (through esc_init_tables, escoba_core.h)
 * before any hand is played.
 */
#ifndef ESCOBA_TABLES_H
#define ESCOBA_TABLES_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* baseline on x86-64: 16 subset sums compared in one instruction */
#endif
#include "escoba_common.h"
#include "escoba_rng.h"

/* ---------- cards ---------- */

static const uint8_t esc_val[40] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static inline int esc_value(int card) { return esc_val[card]; }

/* value of each bit of a 64-bit card mask; bits 40-63 (no card) count 16, so
 * "no card" adds nothing a need (<= 14) could match */
static const uint8_t esc_val64[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                      16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
                                      16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16};


/* a 10-bit set of values (bit v-1) <-> the 40-bit mask of all cards with those values */
#define ESC_SPREAD(v10) ((uint64_t)(v10) * 0x40100401ULL)
static ESC_ALWAYS_INLINE uint32_t esc_values_of(uint64_t cards) {
    return (uint32_t)((cards | cards >> 10 | cards >> 20 | cards >> 30) & 1023u);
}

/* ---------- lookup tables ---------- */

#define ESC_N_SUBS 21248 /* pairs (suit mask, submask with sum <= 14), counted once */
static uint32_t esc_le_off[1025];        /* [m]: submasks of m with sum <= 14, ascending */
static uint32_t esc_le[ESC_N_SUBS];       /* submask | sum << 16 */
static uint32_t esc_ex_off[1024 * 15 + 1]; /* [m*15 + s]: submasks of m with sum exactly s */
static uint16_t esc_ex_sub[ESC_N_SUBS];
static uint16_t esc_rev10[1024];        /* 10-bit reversal: needs 5..14 <-> values 10..1 */
/* [bits 5..14 of a table's reachable sums]: the cards (every suit) whose value captures there, i.e.
 * ESC_SPREAD(esc_rev10[x]) looked up instead of multiplied: "which cards capture" starts every turn and
 * waits for the sums of the turn before, so the multiply's 3 cycles were on the loop's critical path */
static uint64_t esc_capturing[1024];
static int esc_tables_ready = 0;

static inline int esc_suit_sum(uint32_t sub) {
    int s = 0;
    for (int b = 0; b < 10; b++) if (sub >> b & 1) s += b + 1;
    return s;
}

/* returns 0 on success, -1 if the table sizes disagree with ESC_N_SUBS */
static int esc_build_tables(void) {
    if (esc_tables_ready) return 0;
    uint32_t n = 0, ne = 0;
    for (uint32_t m = 0; m < 1024; m++) {
        esc_le_off[m] = n;
        /* ascending submasks of m: sub = (sub - m) & m walks them upward from 0 */
        uint32_t sub = 0;
        for (;;) {
            int s = esc_suit_sum(sub);
            if (s <= 14) {
                if (n >= ESC_N_SUBS) return -1;
                esc_le[n++] = sub | ((uint32_t)s << 16);
            }
            if (sub == m) break;
            sub = (sub - m) & m;
        }
        for (int s = 0; s < 15; s++) {
            esc_ex_off[m * 15 + s] = ne;
            for (uint32_t i = esc_le_off[m]; i < n; i++)
                if ((int)(esc_le[i] >> 16) == s) esc_ex_sub[ne++] = (uint16_t)(esc_le[i] & 0xFFFFu);
        }
    }
    esc_le_off[1024] = n;
    esc_ex_off[1024 * 15] = ne;
    for (uint32_t x = 0; x < 1024; x++) {
        uint16_t r = 0;
        for (int b = 0; b < 10; b++) if (x >> b & 1) r |= (uint16_t)(1u << (9 - b));
        esc_rev10[x] = r;
        esc_capturing[x] = ESC_SPREAD(r);
    }
    if (n != ESC_N_SUBS || ne != ESC_N_SUBS) return -1;
    esc_tables_ready = 1;
    return 0;
}

/* ---------- the table: card mask + reachable sums ---------- */

static ESC_ALWAYS_INLINE uint16_t esc_add_to_reach(uint32_t reach, int v) { return (uint16_t)((reach | (reach << v)) & 0xFFFFu); }

static ESC_ALWAYS_INLINE uint16_t esc_reach_of(uint64_t mask) {
    uint32_t R = 1;
    /* the first four cards without a data-dependent loop exit (a missing card adds 16: nothing) */
    for (int i = 0; i < 4; i++) {
        R = esc_add_to_reach(R, esc_val64[__builtin_ctzll(mask | (1ULL << 63))]);
        mask &= mask - 1;
    }
    while (mask) {
        R = esc_add_to_reach(R, esc_val[__builtin_ctzll(mask)]);
        mask &= mask - 1;
    }
    return (uint16_t)R;
}

typedef struct {
    uint64_t mask;
    uint16_t reach;
} esc_tbl;

static inline void esc_tbl_init(esc_tbl *t, uint64_t mask) { t->mask = mask; t->reach = esc_reach_of(mask); }

/* cards of `hand` that have capture options: the values whose need 15-v is a reachable sum */
static ESC_ALWAYS_INLINE uint64_t esc_capturing_cards(uint16_t reach, uint64_t hand) {
    return hand & esc_capturing[(reach >> 5) & 1023u];
}

/* the set of needs (bit 15-v) of the cards in `cards` */
static ESC_ALWAYS_INLINE uint32_t esc_needs_of(uint64_t cards) { return (uint32_t)esc_rev10[esc_values_of(cards)] << 5; }

/* ---------- small tables: slots, meet in the middle ---------- */

#define ESC_SLOT_MAX 8

/* the 2^cnt subset sums and masks of the `cnt` (<= 4) lowest cards of *mk,
 * index bit i = the i-th of those cards, so indices ascend as masks do; the
 * doubling steps have constant trip counts so the compiler unrolls them */
typedef struct { uint8_t s[16]; uint64_t m[16]; } esc_half;

#define ESC_HALF_STEP(H, N, V, B) do {                                                        \
    for (int _j = 0; _j < (N); _j++) { (H)->s[(N) + _j] = (uint8_t)((H)->s[_j] + (V)); (H)->m[(N) + _j] = (H)->m[_j] | (B); } \
} while (0)

static ESC_ALWAYS_INLINE uint32_t esc_build_half(uint64_t *mk, int cnt, esc_half *H) {
    uint32_t reach = 1;
    H->s[0] = 0; H->m[0] = 0;
    for (int i = 0; i < cnt; i++) {
        const int c = __builtin_ctzll(*mk);
        *mk &= *mk - 1;
        const uint8_t v = esc_val[c];
        const uint64_t b = 1ULL << c;
        switch (i) {
        case 0: ESC_HALF_STEP(H, 1, v, b); break;
        case 1: ESC_HALF_STEP(H, 2, v, b); break;
        case 2: ESC_HALF_STEP(H, 4, v, b); break;
        default: ESC_HALF_STEP(H, 8, v, b); break;
        }
        reach = esc_add_to_reach(reach, v);
    }
    return reach;
}

/* Bytewise helpers for the low quarter below: 16 subset sums packed in two
 * words, one byte per subset, compared against a need all at once. */
#define ESC_ONES 0x0101010101010101ULL
#define ESC_HIGHS 0x8080808080808080ULL

/* bit i (i < 8) set when byte i of x equals n (exact for every byte value) */
static ESC_ALWAYS_INLINE uint32_t esc_bytes_eq(uint64_t x, uint32_t n) {
    const uint64_t z = x ^ (ESC_ONES * n);
    const uint64_t hi = ~(((z & ~ESC_HIGHS) + ~ESC_HIGHS) | z) & ESC_HIGHS;
    return (uint32_t)(((hi >> 7) * 0x0102040810204080ULL) >> 56);
}

/* The low part: the (up to) 4 lowest cards of a table, their 16 subset sums
 * packed bytewise (index bit i = the i-th card; a missing card counts 16 so
 * its subsets never match a need <= 14) and the masks of the subsets of cards
 * 0-1 and of cards 2-3, so a subset's mask is two lookups. */
typedef struct { uint64_t w0, w1; uint64_t m01[4], m23[4]; } esc_quad;

/* Takes the (up to) 4 lowest cards off *mk. Always four steps, no branch:
 * past the last card, ctz of (mask | bit 63) is 63, whose value is 16 and
 * whose bit (mask & -mask) is 0. */
static ESC_ALWAYS_INLINE uint32_t esc_build_quad(uint64_t *mk, esc_quad *q) {
    uint32_t v[4], reach = 1;
    uint64_t m = *mk, b[4];
    for (int i = 0; i < 4; i++) {
        v[i] = esc_val64[__builtin_ctzll(m | (1ULL << 63))];
        b[i] = m & (~m + 1);
        m &= m - 1;
        reach = (reach | (reach << v[i])) & 0xFFFFu;
    }
    *mk = m;
    q->m01[0] = 0; q->m01[1] = b[0]; q->m01[2] = b[1]; q->m01[3] = b[0] | b[1];
    q->m23[0] = 0; q->m23[1] = b[2]; q->m23[2] = b[3]; q->m23[3] = b[2] | b[3];
    uint64_t w = (uint64_t)v[0] << 8;                 /* subsets of card 0 */
    w |= (w + v[1] * 0x0101ULL) << 16;                /* ... of cards 0-1 */
    w |= (w + v[2] * 0x01010101ULL) << 32;            /* ... of cards 0-2 */
    q->w0 = w;
    q->w1 = w + v[3] * ESC_ONES;                      /* the same with card 3 */
    return reach;
}

static ESC_ALWAYS_INLINE uint64_t esc_quad_mask(const esc_quad *q, uint32_t l) {
    return q->m01[l & 3] | q->m23[(l >> 2) & 3];
}

static ESC_ALWAYS_INLINE int esc_quad_sum(const esc_quad *q, uint32_t l) {
    return (int)(((l < 8 ? q->w0 : q->w1) >> (8 * (l & 7))) & 0xFF);
}

/* the 16-bit set of low subsets whose sum is n */
static ESC_ALWAYS_INLINE uint32_t esc_quad_eq(const esc_quad *q, uint32_t n) {
#if defined(__SSE2__)
    const __m128i sums = _mm_set_epi64x((long long)q->w1, (long long)q->w0);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(sums, _mm_set1_epi8((char)n)));
#else
    return esc_bytes_eq(q->w0, n) | (esc_bytes_eq(q->w1, n) << 8);
#endif
}

/* the 16-bit set of low subsets whose sum is in `needs` (bits 0..15) */
static ESC_ALWAYS_INLINE uint32_t esc_quad_match(const esc_quad *q, uint32_t needs) {
    uint32_t m = 0;
    while (needs) {
        const uint32_t n = (uint32_t)__builtin_ctz(needs);
        needs &= needs - 1;
        m |= esc_quad_eq(q, n);
    }
    return m;
}

/* Run BODY for every subset SUB of the table MASK (<= ESC_SLOT_MAX cards) whose
 * sum SUM is in NEEDS, in ascending mask order. The 4 lowest cards are the
 * low part (16 subset sums compared bytewise against each need, no branch per
 * subset); the cards above (at most 4) are walked as a small array of subset
 * sums, outermost, so the options come out in mask order. BODY may `goto` out. */
#define ESC_FOR_OPTIONS_SLOTS(MASK, NEEDS, SUB, SUM, BODY) do {                              \
    uint64_t _mk = (MASK);                                                                    \
    const uint32_t _nd = (NEEDS);                                                             \
    const int _k = __builtin_popcountll(_mk), _a = _k < 4 ? _k : 4;                           \
    if (_k > ESC_SLOT_MAX) break; /* callers check; this also bounds the arrays for the compiler */ \
    esc_quad _lo;                                                                             \
    esc_half _hi;                                                                             \
    const uint32_t _lr = esc_build_quad(&_mk, &_lo);                                      \
    esc_build_half(&_mk, _k - _a, &_hi);                                                      \
    const int _nh = 1 << (_k - _a);                                                           \
    for (int _h = 0; _h < _nh; _h++) {                                                        \
        const int _s = _hi.s[_h];                                                             \
        if (_s > 15 || !((_lr << _s) & _nd)) continue;                                        \
        uint32_t _mt = esc_quad_match(&_lo, (_nd >> _s) & 0xFFFFu);                           \
        while (_mt) {                                                                         \
            const uint32_t _l = (uint32_t)__builtin_ctz(_mt);                                 \
            _mt &= _mt - 1;                                                                   \
            const uint64_t SUB = _hi.m[_h] | esc_quad_mask(&_lo, _l);                         \
            const int SUM = _s + esc_quad_sum(&_lo, _l);                                      \
            BODY                                                                              \
        }                                                                                     \
    }                                                                                         \
} while (0)

/* ---------- large tables: per-suit lookup tables ---------- */

/* Only non-empty suits are walked: they sit in levels 0..L-1 from the lowest
 * suit up (shift sh = 10*suit); levels above are empty placeholders (mask 0:
 * one pass, submask 0), so the highest suit is outermost and options come in
 * ascending mask order. P[k] = sums reachable with levels 0..k. */
typedef struct {
    uint64_t mask;
    uint32_t m[4];
    uint32_t sh[4];
    uint16_t P[4];
} esc_suits;

static inline void esc_suits_init(esc_suits *t, uint64_t mask) {
    uint32_t R = 1;
    int L = 0;
    t->mask = mask;
    t->m[0] = t->m[1] = t->m[2] = t->m[3] = 0;
    t->sh[0] = t->sh[1] = t->sh[2] = t->sh[3] = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t m = (uint32_t)(mask >> (10 * k)) & 1023u;
        if (!m) continue;
        t->m[L] = m;
        t->sh[L] = 10u * (uint32_t)k;
        while (m) {
            R = esc_add_to_reach(R, __builtin_ctz(m) + 1);
            m &= m - 1;
        }
        t->P[L++] = (uint16_t)R;
    }
    switch (L) { /* the empty levels above repeat the full set */
    case 0: t->P[0] = (uint16_t)R; /* fall through */
    case 1: t->P[1] = (uint16_t)R; /* fall through */
    case 2: t->P[2] = (uint16_t)R; /* fall through */
    case 3: t->P[3] = (uint16_t)R; /* fall through */
    default: break;
    }
}

#define ESC_LE_SUB(e) ((uint64_t)((e) & 0xFFFFu))
#define ESC_LE_SUM(e) ((int)((e) >> 16))

/* Loop over every submask SUB of the table with value sum NEED (1..14), in
 * ascending mask order, running BODY for each. A branch is followed only if
 * the lower levels can still make up the rest (prefix sets P), so every
 * branch taken ends in at least one option. BODY may `goto` out. */
#define ESC_FOR_OPTIONS_SUITS(T, NEED, SUB, BODY) do {                                              \
    const esc_suits *_t = (T);                                                                  \
    const int _need = (NEED);                                                                 \
    if (!((_t->P[3] >> _need) & 1)) break;                                                    \
    const uint32_t _m3 = _t->m[3], _m2 = _t->m[2], _m1 = _t->m[1], _m0 = _t->m[0];            \
    for (uint32_t _i3 = esc_le_off[_m3]; _i3 < esc_le_off[_m3 + 1]; _i3++) {                   \
        const uint32_t _e3 = esc_le[_i3];                                                     \
        const int _r3 = _need - ESC_LE_SUM(_e3);                                              \
        if (_r3 < 0 || !((_t->P[2] >> _r3) & 1)) continue;                                    \
        const uint64_t _b3 = ESC_LE_SUB(_e3) << _t->sh[3];                                    \
        for (uint32_t _i2 = esc_le_off[_m2]; _i2 < esc_le_off[_m2 + 1]; _i2++) {               \
            const uint32_t _e2 = esc_le[_i2];                                                 \
            const int _r2 = _r3 - ESC_LE_SUM(_e2);                                            \
            if (_r2 < 0 || !((_t->P[1] >> _r2) & 1)) continue;                                \
            const uint64_t _b2 = _b3 | (ESC_LE_SUB(_e2) << _t->sh[2]);                        \
            for (uint32_t _i1 = esc_le_off[_m1]; _i1 < esc_le_off[_m1 + 1]; _i1++) {           \
                const uint32_t _e1 = esc_le[_i1];                                             \
                const int _r1 = _r2 - ESC_LE_SUM(_e1);                                        \
                if (_r1 < 0 || !((_t->P[0] >> _r1) & 1)) continue;                            \
                const uint64_t _b1 = _b2 | (ESC_LE_SUB(_e1) << _t->sh[1]);                    \
                const uint32_t _e = esc_ex_off[_m0 * 15 + _r1 + 1];                           \
                for (uint32_t _i0 = esc_ex_off[_m0 * 15 + _r1]; _i0 < _e; _i0++) {             \
                    const uint64_t SUB = _b1 | ((uint64_t)esc_ex_sub[_i0] << _t->sh[0]);      \
                    BODY                                                                      \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
} while (0)

/* Like ESC_FOR_OPTIONS but for every sum in the set NEEDS (bit s = sum s) at
 * once, so one walk serves all the hand's capturing cards; SUM is the option's
 * sum. Prunes with (P[k-1] << partial sum) & NEEDS. */
#define ESC_FOR_OPTIONS_ANY_SUITS(T, NEEDS, SUB, SUM, BODY) do {                                   \
    const esc_suits *_t = (T);                                                                  \
    const uint32_t _nd = (NEEDS);                                                             \
    if (!(_t->P[3] & _nd)) break;                                                             \
    const uint32_t _m3 = _t->m[3], _m2 = _t->m[2], _m1 = _t->m[1], _m0 = _t->m[0];            \
    for (uint32_t _i3 = esc_le_off[_m3]; _i3 < esc_le_off[_m3 + 1]; _i3++) {                   \
        const uint32_t _e3 = esc_le[_i3];                                                     \
        const int _s3 = ESC_LE_SUM(_e3);                                                      \
        if (!(((uint32_t)_t->P[2] << _s3) & _nd)) continue;                                   \
        const uint64_t _b3 = ESC_LE_SUB(_e3) << _t->sh[3];                                    \
        for (uint32_t _i2 = esc_le_off[_m2]; _i2 < esc_le_off[_m2 + 1]; _i2++) {               \
            const uint32_t _e2 = esc_le[_i2];                                                 \
            const int _s2 = _s3 + ESC_LE_SUM(_e2);                                            \
            if (!(((uint32_t)_t->P[1] << _s2) & _nd)) continue;                               \
            const uint64_t _b2 = _b3 | (ESC_LE_SUB(_e2) << _t->sh[2]);                        \
            for (uint32_t _i1 = esc_le_off[_m1]; _i1 < esc_le_off[_m1 + 1]; _i1++) {           \
                const uint32_t _e1 = esc_le[_i1];                                             \
                const int _s1 = _s2 + ESC_LE_SUM(_e1);                                        \
                if (!(((uint32_t)_t->P[0] << _s1) & _nd)) continue;                           \
                const uint64_t _b1 = _b2 | (ESC_LE_SUB(_e1) << _t->sh[1]);                    \
                for (uint32_t _i0 = esc_le_off[_m0]; _i0 < esc_le_off[_m0 + 1]; _i0++) {       \
                    const uint32_t _e0 = esc_le[_i0];                                         \
                    const int SUM = _s1 + ESC_LE_SUM(_e0);                                    \
                    if (!((_nd >> SUM) & 1)) continue;                                        \
                    const uint64_t SUB = _b1 | (ESC_LE_SUB(_e0) << _t->sh[0]);                \
                    BODY                                                                      \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
} while (0)

#if defined(__SSE2__)
/* Tables of at most 4 cards (nearly every decision) as 16 bytes, one per
 * subset (bit i of its index = the i-th lowest card): built from per-card
 * vectors below, no branch. The keyed strategies also sum key bytes this way
 * (esc_best_capture_small). */
#define ESC_B16(x) {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}
#define ESC_SUIT16(a, b, c, d, e, f, g, h, i, j) ESC_B16(a), ESC_B16(b), ESC_B16(c), ESC_B16(d), ESC_B16(e), \
    ESC_B16(f), ESC_B16(g), ESC_B16(h), ESC_B16(i), ESC_B16(j)
/* per bit of a 64-bit mask: the card's value in every byte, 16 past card 39 (a
 * missing card: a sum with it never matches a need) */
static const uint8_t esc_val16[64][16] __attribute__((aligned(16))) = {
    ESC_SUIT16(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ESC_SUIT16(1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    ESC_SUIT16(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ESC_SUIT16(1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    ESC_SUIT16(16, 16, 16, 16, 16, 16, 16, 16, 16, 16), ESC_SUIT16(16, 16, 16, 16, 16, 16, 16, 16, 16, 16),
    ESC_B16(16), ESC_B16(16), ESC_B16(16), ESC_B16(16)};
/* byte l is 0xFF when subset l holds card i (bit i of l) */
static const uint8_t esc_slot16[4][16] __attribute__((aligned(16))) = {
    {0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255},
    {0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255},
    {0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255},
    {0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255}};
/* per card: its need 15 - value in every byte */
static const uint8_t esc_need16[40][16] __attribute__((aligned(16))) = {
    ESC_SUIT16(14, 13, 12, 11, 10, 9, 8, 7, 6, 5), ESC_SUIT16(14, 13, 12, 11, 10, 9, 8, 7, 6, 5),
    ESC_SUIT16(14, 13, 12, 11, 10, 9, 8, 7, 6, 5), ESC_SUIT16(14, 13, 12, 11, 10, 9, 8, 7, 6, 5)};
/* per key (greedy, maxoros) and bit of a 64-bit mask: the card's key weight in
 * every byte, 0 past card 39 */
#define ESC_G_OROS 0x21
#define ESC_G_SIETE 0x29
#define ESC_G_CARD 0x20
#define ESC_M_OROS 0x22
#define ESC_M_SIETE 0x32
#define ESC_M_CARD 0x02
static const uint8_t esc_weight16[2][64][16] __attribute__((aligned(16))) = {
    {ESC_SUIT16(ESC_G_OROS, ESC_G_OROS, ESC_G_OROS, ESC_G_OROS, ESC_G_OROS, ESC_G_OROS, ESC_G_SIETE, ESC_G_OROS,
                ESC_G_OROS, ESC_G_OROS),
     ESC_SUIT16(ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD,
                ESC_G_CARD, ESC_G_CARD),
     ESC_SUIT16(ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD,
                ESC_G_CARD, ESC_G_CARD),
     ESC_SUIT16(ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD, ESC_G_CARD,
                ESC_G_CARD, ESC_G_CARD)},
    {ESC_SUIT16(ESC_M_OROS, ESC_M_OROS, ESC_M_OROS, ESC_M_OROS, ESC_M_OROS, ESC_M_OROS, ESC_M_SIETE, ESC_M_OROS,
                ESC_M_OROS, ESC_M_OROS),
     ESC_SUIT16(ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD,
                ESC_M_CARD, ESC_M_CARD),
     ESC_SUIT16(ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD,
                ESC_M_CARD, ESC_M_CARD),
     ESC_SUIT16(ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD, ESC_M_CARD,
                ESC_M_CARD, ESC_M_CARD)}};
/* the escoba weight at the byte of the subset of all k cards (k = 0..4), per key */
static const uint8_t esc_escoba16[2][5][16] __attribute__((aligned(16))) = {
    {{0x10}, {0, 0x10}, {0, 0, 0, 0x10}, {0, 0, 0, 0, 0, 0, 0, 0x10}, {[15] = 0x10}},
    {{0x01}, {0, 0x01}, {0, 0, 0, 0x01}, {0, 0, 0, 0, 0, 0, 0, 0x01}, {[15] = 0x01}}};

/* byte l of *S: the value sum of subset l; *W likewise with the key weights `weights` (when given);
 * b[i]: the i-th lowest card's bit (0 when there are fewer cards) */
static ESC_ALWAYS_INLINE void esc_small_sums(uint64_t table, const uint8_t (*weights)[16], __m128i *S, __m128i *W,
                                             uint64_t b[4]) {
    __m128i s = _mm_setzero_si128(), w = _mm_setzero_si128();
    for (int i = 0; i < 4; i++) { /* a missing card: value 16, weight 0, bit 0 */
        const int c = __builtin_ctzll(table | (1ULL << 63));
        const __m128i in = _mm_load_si128((const __m128i *)esc_slot16[i]);
        s = _mm_add_epi8(s, _mm_and_si128(_mm_load_si128((const __m128i *)esc_val16[c]), in));
        if (weights) w = _mm_add_epi8(w, _mm_and_si128(_mm_load_si128((const __m128i *)weights[c]), in));
        b[i] = table & (~table + 1);
        table &= table - 1;
    }
    *S = s;
    if (weights) *W = w;
}

/* the cards of subset l */
static ESC_ALWAYS_INLINE uint64_t esc_small_subset(const uint64_t b[4], uint32_t l) {
    const uint64_t m01[4] = {0, b[0], b[1], b[0] | b[1]}, m23[4] = {0, b[2], b[3], b[2] | b[3]};
    return m01[l & 3] | m23[l >> 2 & 3]; /* two lookups: fewer steps than masking each card in */
}
#endif

/* ---------- options ---------- */

static inline int64_t esc_count_options(const esc_tbl *t, int card) {
    const int need = 15 - esc_val[card];
    int64_t n = 0;
    if (!((t->reach >> need) & 1)) return 0;
    if (__builtin_popcountll(t->mask) <= ESC_SLOT_MAX) {
        ESC_FOR_OPTIONS_SLOTS(t->mask, 1u << need, sub, sum, { (void)sub; (void)sum; n++; });
    } else {
        esc_suits su; esc_suits_init(&su, t->mask);
        ESC_FOR_OPTIONS_SUITS(&su, need, sub, { (void)sub; n++; });
    }
    return n;
}

/* the k-th option (0-based, mask order) of `card`; 0 if there are fewer */
static inline uint64_t esc_kth_option(const esc_tbl *t, int card, int64_t k) {
    const int need = 15 - esc_val[card];
    uint64_t found = 0;
    if (!((t->reach >> need) & 1)) return 0;
    if (__builtin_popcountll(t->mask) <= ESC_SLOT_MAX) {
        ESC_FOR_OPTIONS_SLOTS(t->mask, 1u << need, sub, sum, { (void)sum; if (k-- == 0) { found = sub; goto done; } });
    } else {
        esc_suits su; esc_suits_init(&su, t->mask);
        ESC_FOR_OPTIONS_SUITS(&su, need, sub, { if (k-- == 0) { found = sub; goto done; } });
    }
done:
    return found;
}

/* esc_draw_option's draw when the n options are the set bits of 16-bit sets mts[0], mts[1], ...
 * (set h: the options with the h-th subset of the upper cards; bit l: with the l-th low subset):
 * returns 1 with *h and *l of the option drawn, 0 when the draw falls on one of the `extra` slots */
static ESC_ALWAYS_INLINE int esc_draw_match(const uint32_t *mts, int n, int extra, int extra_first, esc_rng *rng,
                                            int *h, uint32_t *l) {
    const int total = n + extra;
    const int j = total > 1 ? (int)esc_below(rng, (uint32_t)total) : 0;
    int i = extra_first ? j - extra : j; /* the option drawn, in mask order; outside 0..n-1: the extra slot */
    if (i < 0 || i >= n) return 0;
    for (int k = 0;; k++) {
        const int c = __builtin_popcount(mts[k]);
        if (i < c) {
            uint32_t mt = mts[k];
            while (i--) mt &= mt - 1;
            *h = k;
            *l = (uint32_t)__builtin_ctz(mt);
            return 1;
        }
        i -= c;
    }
}

/* a uniform draw among `extra` slots + the options, the set bits of `mt` (in mask order): the bit drawn,
 * -1 when the draw falls on an extra slot (`extra_first`: before the options, else after) */
static ESC_ALWAYS_INLINE int esc_draw_bit(uint64_t mt, int extra, int extra_first, esc_rng *rng) {
    const int n = __builtin_popcountll(mt), total = n + extra;
    const int j = total > 1 ? (int)esc_below(rng, (uint32_t)total) : 0;
    int i = extra_first ? j - extra : j; /* the option drawn, in mask order; outside 0..n-1: the extra slot */
    if (i < 0 || i >= n) return -1;
    while (i--) mt &= mt - 1;
    return __builtin_ctzll(mt);
}

/* esc_draw_option on a table of at most 4 cards (nearly every call): the low quarter's 16 subsets are the
 * whole table; `random`'s move inlines it (esc_random_move) */
static ESC_ALWAYS_INLINE uint64_t esc_draw_option_small(uint64_t mask, int card, int extra, int extra_first,
                                                        esc_rng *rng) {
#if defined(__SSE2__)
    __m128i S;
    uint64_t b[4];
    esc_small_sums(mask, NULL, &S, NULL, b);
    uint32_t mt = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(S, _mm_load_si128((const __m128i *)esc_need16[card])));
#else
    uint64_t mk = mask;
    esc_quad lo;
    (void)esc_build_quad(&mk, &lo);
    uint32_t mt = esc_quad_eq(&lo, 15u - esc_val[card]);
#endif
    const int n = __builtin_popcount(mt), total = n + extra;
    const int j = total > 1 ? (int)esc_below(rng, (uint32_t)total) : 0;
    int i = extra_first ? j - extra : j; /* the option drawn, in mask order; outside 0..n-1: the extra slot */
    if (i < 0 || i >= n) return 0;
    while (i--) mt &= mt - 1;
#if defined(__SSE2__)
    return esc_small_subset(b, (uint32_t)__builtin_ctz(mt));
#else
    return esc_quad_mask(&lo, (uint32_t)__builtin_ctz(mt));
#endif
}

#if defined(__SSE2__)
/* esc_draw_option on a table of 5 or 6 cards: the 4 lowest cards as 16 subset sums, each subset of the
 * 1-2 cards above them outermost */
static ESC_ALWAYS_INLINE uint64_t esc_draw_option_mid(uint64_t mask, int card, int extra, int extra_first,
                                                      esc_rng *rng) {
    __m128i S;
    uint64_t b[4];
    esc_small_sums(mask, NULL, &S, NULL, b);
    uint64_t hi = mask & ~(b[0] | b[1] | b[2] | b[3]);
    const int c4 = __builtin_ctzll(hi);
    hi &= hi - 1;
    const int c5 = __builtin_ctzll(hi | (1ULL << 63)); /* 63 (value 16: never matches) for 5 cards */
    const uint64_t mh[4] = {0, 1ULL << c4, hi, (1ULL << c4) | hi};
    const __m128i need = _mm_load_si128((const __m128i *)esc_need16[card]);
    const __m128i S4 = _mm_add_epi8(S, _mm_load_si128((const __m128i *)esc_val16[c4]));
    const __m128i v5 = _mm_load_si128((const __m128i *)esc_val16[c5]);
    /* bit 16 h + l: the option of upper subset h and low subset l, so bits ascend in mask order */
    const uint64_t mt = (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(S, need))
                      | (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(S4, need)) << 16
                      | (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_add_epi8(S, v5), need)) << 32
                      | (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_add_epi8(S4, v5), need)) << 48;
    const int bit = esc_draw_bit(mt, extra, extra_first, rng);
    return bit < 0 ? 0 : mh[bit >> 4] | esc_small_subset(b, (uint32_t)bit & 15u);
}

/* `random`'s capture draw (no blow: the extra lay slot last) on a table of 5 or 6 cards, out of the hand
 * loop: a function of its own saves fewer registers than esc_draw_option */
ESC_CLONES __attribute__((noinline)) static uint64_t esc_draw_capture_mid(uint64_t mask, int card, int extra,
                                                                          esc_rng *rng) {
    return esc_draw_option_mid(mask, card, extra, 0, rng);
}
#endif

/* a uniformly drawn move among `extra` + the options of `card`: returns the
 * option, 0 when the draw falls on one of the `extra` (lay or no-blow) slots.
 * `extra_first`: the extra slot comes before the options (no blow) or after (lay). */
ESC_CLONES static uint64_t esc_draw_option(const esc_tbl *t, int card, int extra, int extra_first, esc_rng *rng) {
    const int k = __builtin_popcountll(t->mask);
    if (k <= 4) return esc_draw_option_small(t->mask, card, extra, extra_first, rng);
#if defined(__SSE2__)
    if (k <= 6) return esc_draw_option_mid(t->mask, card, extra, extra_first, rng);
#endif
    if (k <= ESC_SLOT_MAX) {
        /* up to 16 subsets of the cards above the low quarter (outermost, so mask
         * order holds); each one's matching low subsets as a 16-bit set */
        uint64_t mk = t->mask;
        esc_quad lo;
        esc_half hi;
        (void)esc_build_quad(&mk, &lo);
        esc_build_half(&mk, k - 4, &hi);
        const int need = 15 - esc_val[card], nh = 1 << (k - 4);
        uint32_t mts[16];
        int n = 0;
        for (int h = 0; h < nh; h++) {
            const int r = need - hi.s[h];
            mts[h] = r >= 0 ? esc_quad_eq(&lo, (uint32_t)r) : 0;
            n += __builtin_popcount(mts[h]);
        }
        int h;
        uint32_t l;
        return esc_draw_match(mts, n, extra, extra_first, rng, &h, &l) ? hi.m[h] | esc_quad_mask(&lo, l) : 0;
    }
    const int64_t n = esc_count_options(t, card);
    const int64_t total = n + extra;
    int64_t j = total > 1 ? (int64_t)esc_below(rng, (uint32_t)total) : 0;
    if (extra_first) return j < extra ? 0 : esc_kth_option(t, card, j - extra);
    return j < n ? esc_kth_option(t, card, j) : 0;
}

/* ---------- strategy keys ---------- */

/* a key packs the strategy's tuple so that a larger integer is better; ties
 * (equal keys) go to the lowest taken mask, as in strategies/reference.py */
static ESC_ALWAYS_INLINE uint32_t esc_greedy_key(uint64_t taken, int escoba) {
    return ((uint32_t)__builtin_popcountll(taken) << 16) | ((uint32_t)escoba << 12)
         | ((uint32_t)(taken >> ESC_SIETE_OROS & 1) << 8) | (uint32_t)__builtin_popcountll(taken & ESC_OROS_MASK);
}

static ESC_ALWAYS_INLINE uint32_t esc_maxoros_key(uint64_t taken, int escoba) {
    return ((uint32_t)__builtin_popcountll(taken & ESC_OROS_MASK) << 16)
         | ((uint32_t)(taken >> ESC_SIETE_OROS & 1) << 12)
         | ((uint32_t)__builtin_popcountll(taken) << 4) | (uint32_t)escoba;
}

static ESC_ALWAYS_INLINE uint32_t esc_sevens_key(uint64_t taken, int escoba) {
    return ((uint32_t)(taken >> ESC_SIETE_OROS & 1) << 24)
         | ((uint32_t)__builtin_popcountll(taken & ESC_SEVENS_MASK) << 20)
         | ((uint32_t)__builtin_popcountll(taken) << 12) | ((uint32_t)escoba << 8)
         | (uint32_t)__builtin_popcountll(taken & ESC_OROS_MASK);
}

static ESC_ALWAYS_INLINE uint32_t esc_key(int strategy, uint64_t taken, int escoba) {
    return strategy == ESC_MAXOROS ? esc_maxoros_key(taken, escoba)
         : strategy == ESC_SEVENS ? esc_sevens_key(taken, escoba) : esc_greedy_key(taken, escoba);
}

static ESC_ALWAYS_INLINE void esc_consider(int strategy, uint64_t cap, uint64_t table, int escoba_counts, uint64_t sub, int sum,
                                uint32_t *best_key, uint64_t *best_taken) {
    uint64_t cards = cap & ESC_SPREAD(1u << (14 - sum)); /* the cards of value 15 - sum */
    const int escoba = escoba_counts && sub == table;
    while (cards) {
        const uint64_t taken = sub | (cards & (~cards + 1));
        const uint32_t key = esc_key(strategy, taken, escoba);
        if (key > *best_key || (key == *best_key && taken < *best_taken)) { *best_key = key; *best_taken = taken; }
        cards &= cards - 1;
    }
}

#if defined(__SSE2__)
/* Best capture on a table of at most 4 cards (nearly every call), greedy and
 * maxoros: their keys pack into one byte in the key's own order (greedy:
 * cards taken << 5 | escoba << 4 | siete de oros << 3 | oros; maxoros:
 * oros << 5 | siete de oros << 4 | cards taken << 1 | escoba; no field can
 * overflow with at most 5 cards taken), and a taken set's key byte is the sum
 * of its cards' weights (esc_key_weight) plus the escoba weight for the whole
 * table. So the 16 subsets' keys are summed bytewise as their value sums are,
 * each capturing card adds its weight to the subsets that match its need, one
 * bytewise maximum gives the best key, and only the captures with that key
 * are walked for the lowest taken mask. */
/* the largest byte of v, in every byte */
static ESC_ALWAYS_INLINE __m128i esc_bytes_max(__m128i v) {
    v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
    v = _mm_unpacklo_epi8(v, v);
    return _mm_shuffle_epi32(_mm_unpacklo_epi16(v, v), 0);
}

/* the smaller of best_taken and the lowest taken mask among the subsets in mt (bit l = subset l of the 4
 * lowest table cards, each with the cards `with`). Subset indices ascend as their masks do and `with` is
 * the same for all, so the lowest bit of mt is the lowest mask: no walk over the others, and no branch
 * (mt == 0 gives ~0, which leaves best_taken) */
static ESC_ALWAYS_INLINE uint64_t esc_lowest_taken(uint32_t mt, const uint64_t m01[4], const uint64_t m23[4],
                                                   uint64_t with, uint64_t best_taken) {
    const uint32_t l = (uint32_t)__builtin_ctz(mt | 0x10000u) & 15u;
    const uint64_t taken = (m01[l & 3] | m23[l >> 2] | with) | ((uint64_t)0 - (uint64_t)(mt == 0));
    return taken < best_taken ? taken : best_taken;
}

static ESC_ALWAYS_INLINE uint64_t esc_best_capture_small(uint64_t table, const int maxoros, uint64_t cap,
                                                         int escoba_counts) {
    __m128i S, W;
    uint64_t b[4];
    esc_small_sums(table, esc_weight16[maxoros], &S, &W, b);
    const uint64_t m01[4] = {0, b[0], b[1], b[0] | b[1]}, m23[4] = {0, b[2], b[3], b[2] | b[3]};
    if (escoba_counts)
        W = _mm_add_epi8(W, _mm_load_si128((const __m128i *)esc_escoba16[maxoros][__builtin_popcountll(table)]));
    __m128i best = _mm_setzero_si128();
    for (uint64_t c = cap; c; c &= c - 1) {
        const int card = __builtin_ctzll(c);
        const __m128i eq = _mm_cmpeq_epi8(S, _mm_load_si128((const __m128i *)esc_need16[card]));
        const __m128i key = _mm_add_epi8(W, _mm_load_si128((const __m128i *)esc_weight16[maxoros][card]));
        best = _mm_max_epu8(best, _mm_and_si128(key, eq));
    }
    const __m128i K = esc_bytes_max(best); /* the best key in every byte */
    if (!(_mm_cvtsi128_si32(K) & 0xFF)) return ~0ULL; /* nothing matched */
    uint64_t best_taken = ~0ULL;
    for (uint64_t c = cap; c; c &= c - 1) { /* the captures with the best key (a key > 0 is a match) */
        const int card = __builtin_ctzll(c);
        const __m128i eq = _mm_cmpeq_epi8(S, _mm_load_si128((const __m128i *)esc_need16[card]));
        const __m128i key = _mm_add_epi8(W, _mm_load_si128((const __m128i *)esc_weight16[maxoros][card]));
        const uint32_t mt = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(key, eq), K));
        best_taken = esc_lowest_taken(mt, m01, m23, 1ULL << card, best_taken);
    }
    return best_taken;
}
#endif

#if defined(__SSE2__)
/* Tables of 5 or 6 cards, greedy and maxoros: the 4 lowest cards as 16 subset
 * bytes as above, and each subset h of the (at most 2) cards above them adds
 * its value sum and key weight to all 16 (with at most 6 table cards and the
 * played one, no key field overflows). */
static ESC_ALWAYS_INLINE uint64_t esc_best_capture_mid_body(uint64_t table, const int maxoros, uint64_t cap,
                                                            int escoba_counts, const int nh) {
    __m128i S, W;
    uint64_t b[4];
    esc_small_sums(table, esc_weight16[maxoros], &S, &W, b);
    const uint64_t m01[4] = {0, b[0], b[1], b[0] | b[1]}, m23[4] = {0, b[2], b[3], b[2] | b[3]};
    uint64_t hi = table & ~(m01[3] | m23[3]);
    const int c4 = __builtin_ctzll(hi | (1ULL << 63));
    hi &= hi - 1;
    const int c5 = __builtin_ctzll(hi | (1ULL << 63)); /* 63 (value 16: never matches) for 5 cards */
    const uint64_t mh[4] = {0, (1ULL << c4) & table, (1ULL << c5) & table, ((1ULL << c4) | (1ULL << c5)) & table};
    const __m128i v4 = _mm_load_si128((const __m128i *)esc_val16[c4]), v5 = _mm_load_si128((const __m128i *)esc_val16[c5]);
    const __m128i w4 = _mm_load_si128((const __m128i *)esc_weight16[maxoros][c4]);
    const __m128i w5 = _mm_load_si128((const __m128i *)esc_weight16[maxoros][c5]);
    __m128i Sh[4] = {S, _mm_add_epi8(S, v4), _mm_add_epi8(S, v5), _mm_add_epi8(_mm_add_epi8(S, v4), v5)};
    __m128i Wh[4] = {W, _mm_add_epi8(W, w4), _mm_add_epi8(W, w5), _mm_add_epi8(_mm_add_epi8(W, w4), w5)};
    if (escoba_counts) { /* the whole table: all 4 low cards (byte 15) and every high one */
        const int full = c5 == 63 ? 1 : 3;
        Wh[full] = _mm_add_epi8(Wh[full], _mm_load_si128((const __m128i *)esc_escoba16[maxoros][4]));
    }
    __m128i best = _mm_setzero_si128();
    for (uint64_t c = cap; c; c &= c - 1) {
        const int card = __builtin_ctzll(c);
        const __m128i need = _mm_load_si128((const __m128i *)esc_need16[card]);
        const __m128i wc = _mm_load_si128((const __m128i *)esc_weight16[maxoros][card]);
        for (int h = 0; h < nh; h++)
            best = _mm_max_epu8(best, _mm_and_si128(_mm_add_epi8(Wh[h], wc), _mm_cmpeq_epi8(Sh[h], need)));
    }
    const __m128i K = esc_bytes_max(best); /* the best key in every byte */
    if (!(_mm_cvtsi128_si32(K) & 0xFF)) return ~0ULL; /* nothing matched */
    uint64_t best_taken = ~0ULL;
    for (uint64_t c = cap; c; c &= c - 1) {
        const int card = __builtin_ctzll(c);
        const __m128i need = _mm_load_si128((const __m128i *)esc_need16[card]);
        const __m128i wc = _mm_load_si128((const __m128i *)esc_weight16[maxoros][card]);
        for (int h = 0; h < nh; h++) {
            const __m128i key = _mm_and_si128(_mm_add_epi8(Wh[h], wc), _mm_cmpeq_epi8(Sh[h], need));
            const uint32_t mt = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(key, K));
            best_taken = esc_lowest_taken(mt, m01, m23, mh[h] | (1ULL << card), best_taken);
        }
    }
    return best_taken;
}
/* 5 cards: only the subsets without the absent sixth (h = 0, 1) can match, so the loops take 2 of 4 */
static ESC_ALWAYS_INLINE uint64_t esc_best_capture_mid(uint64_t table, const int maxoros, uint64_t cap,
                                                       int escoba_counts) {
    return __builtin_popcountll(table) == 5 ? esc_best_capture_mid_body(table, maxoros, cap, escoba_counts, 2)
                                            : esc_best_capture_mid_body(table, maxoros, cap, escoba_counts, 4);
}
#endif

/* best capture by any card of `cap` under the strategy's key, ties to the lowest
 * taken mask; returns the taken set (card + table cards), ~0 if none */
static ESC_ALWAYS_INLINE uint64_t esc_best_capture_body(const esc_tbl *t, const int strategy, uint64_t cap,
                                                        int escoba_counts) {
    const uint32_t needs = esc_needs_of(cap);
    uint32_t best_key = 0;
    uint64_t best_taken = ~0ULL;
    const int k = __builtin_popcountll(t->mask);
    if (k <= 4) { /* nearly every call: the 16 subsets of the low quarter are the whole table */
        uint64_t mk = t->mask;
        esc_quad lo;
        (void)esc_build_quad(&mk, &lo);
        uint32_t mt = esc_quad_match(&lo, needs);
        while (mt) {
            const uint32_t l = (uint32_t)__builtin_ctz(mt);
            mt &= mt - 1;
            esc_consider(strategy, cap, t->mask, escoba_counts, esc_quad_mask(&lo, l), esc_quad_sum(&lo, l),
                         &best_key, &best_taken);
        }
    } else if (k <= ESC_SLOT_MAX) {
        ESC_FOR_OPTIONS_SLOTS(t->mask, needs, sub, sum,
            { esc_consider(strategy, cap, t->mask, escoba_counts, sub, sum, &best_key, &best_taken); });
    } else {
        esc_suits su; esc_suits_init(&su, t->mask);
        ESC_FOR_OPTIONS_ANY_SUITS(&su, needs, sub, sum,
            { esc_consider(strategy, cap, t->mask, escoba_counts, sub, sum, &best_key, &best_taken); });
    }
    return best_taken;
}

/* one out-of-line copy per key for tables of more than 4 cards, so no option pays for the choice of key */
#if defined(__SSE2__)
#define ESC_MID_TABLE_KEYS(t, maxoros, cap, escoba_counts) \
    if (__builtin_popcountll((t)->mask) <= 6) return esc_best_capture_mid((t)->mask, maxoros, cap, escoba_counts)
#else
#define ESC_MID_TABLE_KEYS(t, maxoros, cap, escoba_counts) (void)0
#endif
__attribute__((noinline)) ESC_CLONES static uint64_t esc_best_capture_greedy(const esc_tbl *t, uint64_t cap, int escoba_counts) {
    ESC_MID_TABLE_KEYS(t, 0, cap, escoba_counts);
    return esc_best_capture_body(t, ESC_GREEDY, cap, escoba_counts);
}
__attribute__((noinline)) ESC_CLONES static uint64_t esc_best_capture_maxoros(const esc_tbl *t, uint64_t cap, int escoba_counts) {
    ESC_MID_TABLE_KEYS(t, 1, cap, escoba_counts);
    return esc_best_capture_body(t, ESC_MAXOROS, cap, escoba_counts);
}
ESC_CLONES static uint64_t esc_best_capture_sevens(const esc_tbl *t, uint64_t cap, int escoba_counts) {
    return esc_best_capture_body(t, ESC_SEVENS, cap, escoba_counts);
}

/* The best capture under a keyed strategy. Greedy's and maxoros' on a table of at most 4 cards (nearly every
 * call) is inlined into the caller (the hand loop's move: the out-of-line call's prologue, spills and the
 * clone's indirect jump cost more than its 16-byte work); larger tables and sevens call out. */
static ESC_ALWAYS_INLINE uint64_t esc_best_capture(const esc_tbl *t, int strategy, uint64_t cap, int escoba_counts) {
#if defined(__SSE2__)
    if (strategy != ESC_SEVENS && __builtin_popcountll(t->mask) <= 4)
        return esc_best_capture_small(t->mask, strategy == ESC_MAXOROS, cap, escoba_counts);
#endif
    return strategy == ESC_MAXOROS ? esc_best_capture_maxoros(t, cap, escoba_counts)
         : strategy == ESC_SEVENS ? esc_best_capture_sevens(t, cap, escoba_counts)
         : esc_best_capture_greedy(t, cap, escoba_counts);
}

#endif
