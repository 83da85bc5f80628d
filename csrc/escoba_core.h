/* The compiled core of escoba-sim: capture tables, one hand, scoring, games and
 * the built-in strategies, in plain C (no Python.h) following docs/engine.md.
 *
 * Encodings (why things look the way they do):
 * - a set of cards is a uint64 mask over card ids 0-39, id = suit*10 + value-1,
 *   so bits 10s..10s+9 of a mask are suit s's "value mask" (bit b = value b+1);
 * - capture options come from per-suit lookup tables indexed by that 10-bit
 *   value mask: the set of reachable sums (a 16-bit set over sums 0..15), the
 *   submasks with sum <= 14 in ascending order, and the submasks with each
 *   exact sum. A table's reachable sums are the OR-convolution of its four
 *   suits' sets; options for a target are enumerated suit 3 outermost, each
 *   suit's submasks ascending, which is ascending 40-bit mask order, the order
 *   docs/engine.md asks for. This is exact for any table size (no cap).
 * - the strategies are separate decision functions selected by a small int
 *   (ESC_RANDOM, ESC_GREEDY, ESC_MAXOROS) so more can be added.
 * Everything is static inline with the prefix esc_; tables are built once by
 * esc_init_tables() before any hand is played.
 */
#ifndef ESCOBA_CORE_H
#define ESCOBA_CORE_H

#include <stdint.h>
#include <string.h>
#include "escoba_rng.h"

#define ESC_MAX_SEATS 6
#define ESC_OROS_MASK 0x3FFULL
#define ESC_SEVENS_MASK ((1ULL << 6) | (1ULL << 16) | (1ULL << 26) | (1ULL << 36))
#define ESC_SIETE_OROS 6

/* ruleset field codes: the index of the value in escoba_sim.rules' tuples */
enum { ESC_LUCKY_ESCOBAS = 0, ESC_LUCKY_CAPTURE = 1, ESC_LUCKY_OFF = 2 };
enum { ESC_CAPTURE_CARD = 0, ESC_CAPTURE_ANY = 1, ESC_CAPTURE_OPTIONAL = 2 };
enum { ESC_DEAL_ROUNDS = 0, ESC_DEAL_DRAW = 1 };
enum { ESC_SEVENS_MAJORITY = 0, ESC_SEVENS_ALL = 1 };
enum { ESC_TIES_SHARED = 0, ESC_TIES_NONE = 1 };
/* strategy codes: the index of the name in escoba_sim.strategies.STRATEGIES */
enum { ESC_RANDOM = 0, ESC_GREEDY = 1, ESC_MAXOROS = 2, ESC_N_STRATEGIES = 3 };

typedef struct {
    int players, teams, n_sides, hand_size, table_size;
    int lucky_deal, capture, soplar, deal, sevens, ties;
    int bonus_all_oros, bonus_all_sevens, target;
} esc_rules;

/* side columns in the order of batch.SIDE_COLUMNS */
enum { ESC_C_ESCOBAS, ESC_C_LUCKY, ESC_C_SIETE, ESC_C_SEVENS, ESC_C_OROS, ESC_C_CARDS, ESC_C_BONUS,
       ESC_C_TOTAL, ESC_C_CARDS_TAKEN, ESC_C_OROS_TAKEN, ESC_C_SEVENS_TAKEN, ESC_N_SIDE_COLS };

typedef struct {
    int8_t dealer, lucky_deal, leftovers, leftover_taker;
    int16_t side[ESC_N_SIDE_COLS][ESC_MAX_SEATS];
} esc_hand_result;

/* ---------- capture lookup tables ---------- */

#define ESC_N_SUBS 21248 /* pairs (suit mask, submask with sum <= 14), counted once */
static uint16_t esc_reach[1024];         /* bit s: some submask sums to s (s <= 15) */
static uint32_t esc_le_off[1025];        /* submasks with sum <= 14, ascending */
static uint16_t esc_le_sub[ESC_N_SUBS];
static uint8_t esc_le_sum[ESC_N_SUBS];
static uint32_t esc_ex_off[1024 * 15 + 1]; /* [m*15 + s]: submasks of m with sum exactly s */
static uint16_t esc_ex_sub[ESC_N_SUBS];
static int esc_tables_ready = 0;

static inline int esc_value(int card) { return card % 10 + 1; }

static inline int esc_suit_sum(uint32_t sub) {
    int s = 0;
    for (int b = 0; b < 10; b++) if (sub >> b & 1) s += b + 1;
    return s;
}

/* returns 0 on success, -1 if the table sizes disagree with ESC_N_SUBS */
static int esc_init_tables(void) {
    if (esc_tables_ready) return 0;
    uint32_t n = 0, ne = 0;
    for (uint32_t m = 0; m < 1024; m++) {
        uint16_t reach = 0;
        esc_le_off[m] = n;
        /* ascending submasks of m: sub = (sub - m) & m walks them upward from 0 */
        uint32_t sub = 0;
        for (;;) {
            int s = esc_suit_sum(sub);
            if (s <= 15) reach |= (uint16_t)(1u << s);
            if (s <= 14) {
                if (n >= ESC_N_SUBS) return -1;
                esc_le_sub[n] = (uint16_t)sub; esc_le_sum[n] = (uint8_t)s; n++;
            }
            if (sub == m) break;
            sub = (sub - m) & m;
        }
        esc_reach[m] = reach;
        for (int s = 0; s < 15; s++) {
            esc_ex_off[m * 15 + s] = ne;
            for (uint32_t i = esc_le_off[m]; i < n; i++)
                if (esc_le_sum[i] == s) esc_ex_sub[ne++] = esc_le_sub[i];
        }
    }
    esc_le_off[1024] = n;
    esc_ex_off[1024 * 15] = ne;
    if (n != ESC_N_SUBS || ne != ESC_N_SUBS) return -1;
    esc_tables_ready = 1;
    return 0;
}

/* OR-convolution of two sets of sums, cut at 15 */
static inline uint16_t esc_conv(uint16_t a, uint16_t b) {
    uint32_t out = a; /* b always holds sum 0 */
    b &= (uint16_t)~1u;
    while (b) {
        out |= (uint32_t)a << __builtin_ctz(b);
        b &= (uint16_t)(b - 1);
    }
    return (uint16_t)(out & 0xFFFFu);
}

/* a table ready for option queries: suit masks and prefix sum sets P[k] = suits 0..k */
typedef struct {
    uint64_t mask;
    uint32_t m[4];
    uint16_t P[4];
} esc_tbl;

static inline void esc_tbl_init(esc_tbl *t, uint64_t mask) {
    t->mask = mask;
    for (int k = 0; k < 4; k++) t->m[k] = (uint32_t)(mask >> (10 * k)) & 1023u;
    t->P[0] = esc_reach[t->m[0]];
    for (int k = 1; k < 4; k++) t->P[k] = t->m[k] ? esc_conv(t->P[k - 1], esc_reach[t->m[k]]) : t->P[k - 1];
}

static inline int esc_has_sum(const esc_tbl *t, int s) { return (t->P[3] >> s) & 1; }

/* Loop over every submask SUB of the table with value sum NEED (1..14), in
 * ascending mask order, running BODY for each. Branches that cannot reach the
 * remaining sum with the lower suits are cut by the prefix sets, so only
 * successful paths are walked. BODY may `goto` out. */
#define ESC_FOR_OPTIONS(T, NEED, SUB, BODY) do {                                              \
    const esc_tbl *_t = (T);                                                                  \
    const int _need = (NEED);                                                                 \
    if (!((_t->P[3] >> _need) & 1)) break;                                                    \
    const uint32_t _m3 = _t->m[3], _m2 = _t->m[2], _m1 = _t->m[1], _m0 = _t->m[0];            \
    for (uint32_t _i3 = esc_le_off[_m3]; _i3 < esc_le_off[_m3 + 1]; _i3++) {                   \
        const int _s3 = esc_le_sum[_i3];                                                      \
        if (_s3 > _need || !((_t->P[2] >> (_need - _s3)) & 1)) continue;                      \
        const int _r3 = _need - _s3;                                                          \
        const uint64_t _b3 = (uint64_t)esc_le_sub[_i3] << 30;                                 \
        for (uint32_t _i2 = esc_le_off[_m2]; _i2 < esc_le_off[_m2 + 1]; _i2++) {               \
            const int _s2 = esc_le_sum[_i2];                                                  \
            if (_s2 > _r3 || !((_t->P[1] >> (_r3 - _s2)) & 1)) continue;                      \
            const int _r2 = _r3 - _s2;                                                        \
            const uint64_t _b2 = _b3 | ((uint64_t)esc_le_sub[_i2] << 20);                     \
            for (uint32_t _i1 = esc_le_off[_m1]; _i1 < esc_le_off[_m1 + 1]; _i1++) {           \
                const int _s1 = esc_le_sum[_i1];                                              \
                if (_s1 > _r2 || !((_t->P[0] >> (_r2 - _s1)) & 1)) continue;                  \
                const int _r1 = _r2 - _s1;                                                    \
                const uint64_t _b1 = _b2 | ((uint64_t)esc_le_sub[_i1] << 10);                 \
                const uint32_t _e = esc_ex_off[_m0 * 15 + _r1 + 1];                           \
                for (uint32_t _i0 = esc_ex_off[_m0 * 15 + _r1]; _i0 < _e; _i0++) {             \
                    const uint64_t SUB = _b1 | esc_ex_sub[_i0];                               \
                    BODY                                                                      \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
} while (0)

static inline int64_t esc_count_options(const esc_tbl *t, int card) {
    int64_t n = 0;
    ESC_FOR_OPTIONS(t, 15 - esc_value(card), sub, { (void)sub; n++; });
    return n;
}

static inline uint64_t esc_kth_option(const esc_tbl *t, int card, int64_t k) {
    uint64_t found = 0;
    ESC_FOR_OPTIONS(t, 15 - esc_value(card), sub, { if (k-- == 0) { found = sub; goto done; } });
done:
    return found;
}

/* ---------- strategy keys ---------- */

/* a key packs the strategy's tuple so that a larger integer is better; ties
 * (equal keys) go to the lowest taken mask, as in strategies.py */
static inline uint32_t esc_greedy_key(uint64_t taken, int escoba) {
    return ((uint32_t)__builtin_popcountll(taken) << 16) | ((uint32_t)escoba << 12)
         | ((uint32_t)(taken >> ESC_SIETE_OROS & 1) << 8) | (uint32_t)__builtin_popcountll(taken & ESC_OROS_MASK);
}

static inline uint32_t esc_maxoros_key(uint64_t taken, int escoba) {
    return ((uint32_t)__builtin_popcountll(taken & ESC_OROS_MASK) << 16)
         | ((uint32_t)(taken >> ESC_SIETE_OROS & 1) << 12)
         | ((uint32_t)__builtin_popcountll(taken) << 4) | (uint32_t)escoba;
}

static inline uint32_t esc_key(int strategy, uint64_t taken, int escoba) {
    return strategy == ESC_MAXOROS ? esc_maxoros_key(taken, escoba) : esc_greedy_key(taken, escoba);
}

/* best capture of `card` by the strategy's key; updates *best_key/*best_taken */
static inline void esc_best_option(const esc_tbl *t, int strategy, int card, int escoba_counts,
                                   uint32_t *best_key, uint64_t *best_taken) {
    const uint64_t cbit = 1ULL << card;
    const uint64_t table = t->mask;
    ESC_FOR_OPTIONS(t, 15 - esc_value(card), sub, {
        const uint64_t taken = sub | cbit;
        const uint32_t key = strategy == ESC_MAXOROS
            ? esc_maxoros_key(taken, escoba_counts && sub == table)
            : esc_greedy_key(taken, escoba_counts && sub == table);
        if (key > *best_key || (key == *best_key && taken < *best_taken)) { *best_key = key; *best_taken = taken; }
    });
}

/* ---------- one hand ---------- */

typedef struct {
    const esc_rules *R;
    uint64_t hands[ESC_MAX_SEATS];
    uint64_t table;
    uint64_t piles[ESC_MAX_SEATS];
    int escobas[ESC_MAX_SEATS], lucky_escobas[ESC_MAX_SEATS];
    uint8_t deck[40];
    int pos; /* the stock is deck[pos..39], dealt from the front */
    int dealer, last_capturer, lucky_deal, pending; /* pending: laid card open to a blow, or -1 */
} esc_hand;

static inline int esc_side(const esc_rules *R, int seat) { return R->teams ? seat % 2 : seat; }

static inline uint64_t esc_take_cards(esc_hand *h, int k) {
    uint64_t m = 0;
    for (int i = 0; i < k; i++) m |= 1ULL << h->deck[h->pos++];
    return m;
}

static inline int esc_table_sum(uint64_t mask) {
    int s = 0;
    while (mask) { s += __builtin_ctzll(mask) % 10 + 1; mask &= mask - 1; }
    return s;
}

/* the seat after `last` holding cards, refilling by rounds when none does; -1 ends the hand */
static inline int esc_next_seat(esc_hand *h, int last) {
    const esc_rules *R = h->R;
    const int n = R->players;
    for (;;) {
        int seat = last;
        for (int k = 0; k < n; k++) {
            seat = seat + 1 == n ? 0 : seat + 1;
            if (h->hands[seat]) return seat;
        }
        if (R->deal != ESC_DEAL_ROUNDS || h->pos >= 40) return -1;
        int seat2 = h->dealer;
        for (int k = 0; k < n; k++) {
            seat2 = seat2 + 1 == n ? 0 : seat2 + 1;
            int left = 40 - h->pos;
            h->hands[seat2] = esc_take_cards(h, R->hand_size < left ? R->hand_size : left);
        }
    }
}

static inline void esc_deal(esc_hand *h, const esc_rules *R, int dealer) {
    h->R = R;
    h->dealer = dealer;
    h->pos = 0;
    h->last_capturer = -1;
    h->lucky_deal = 0;
    h->pending = -1;
    for (int i = 0; i < ESC_MAX_SEATS; i++) {
        h->hands[i] = 0; h->piles[i] = 0; h->escobas[i] = 0; h->lucky_escobas[i] = 0;
    }
    int seat = dealer;
    for (int k = 0; k < R->players; k++) {
        seat = seat + 1 == R->players ? 0 : seat + 1;
        h->hands[seat] = esc_take_cards(h, R->hand_size);
    }
    h->table = esc_take_cards(h, R->table_size);
    /* lucky deal on the initial table */
    if (R->lucky_deal != ESC_LUCKY_OFF && h->table) {
        int total = esc_table_sum(h->table), groups = 0;
        if (total == 15) groups = 1;
        else if (total == 30 && R->lucky_deal == ESC_LUCKY_ESCOBAS) {
            esc_tbl t; esc_tbl_init(&t, h->table);
            if (esc_has_sum(&t, 15)) groups = 2;
        }
        if (groups) {
            int side = esc_side(R, dealer);
            h->piles[side] |= h->table;
            h->table = 0;
            h->lucky_deal = groups;
            if (R->lucky_deal == ESC_LUCKY_ESCOBAS) { h->escobas[side] += groups; h->lucky_escobas[side] += groups; }
        }
    }
}

/* ---------- strategy decisions (one function per strategy and decision) ---------- */

/* cards of `hand` that have capture options on the table */
static inline uint64_t esc_capturing_cards(const esc_tbl *t, uint64_t hand) {
    uint64_t cap = 0, rest = hand;
    while (rest) {
        int c = __builtin_ctzll(rest);
        rest &= rest - 1;
        if ((t->P[3] >> (14 - c % 10)) & 1) cap |= 1ULL << c;
    }
    return cap;
}

/* lowest value, ties to the highest card id */
static inline int esc_lowest_value_card(uint64_t cards) {
    int best = -1, bestv = 99;
    while (cards) {
        int c = 63 - __builtin_clzll(cards);
        cards &= ~(1ULL << c);
        int v = c % 10 + 1;
        if (v < bestv) { bestv = v; best = c; }
    }
    return best;
}

/* a move: card played and table cards taken (0 = lay) */
typedef struct { int card; uint64_t take; } esc_move;

static inline esc_move esc_random_move(const esc_hand *h, const esc_tbl *t, uint64_t hand, uint64_t cap, esc_rng *rng) {
    const int mode = h->R->capture;
    uint64_t legal = (mode == ESC_CAPTURE_ANY && cap) ? cap : hand;
    int n = __builtin_popcountll(legal);
    int k = n > 1 ? (int)esc_below(rng, (uint32_t)n) : 0;
    while (k--) legal &= legal - 1;
    esc_move mv = { __builtin_ctzll(legal), 0 };
    int64_t nopt = (cap >> mv.card & 1) ? esc_count_options(t, mv.card) : 0;
    int64_t nmoves = nopt + ((nopt == 0 || mode == ESC_CAPTURE_OPTIONAL) ? 1 : 0);
    int64_t j = nmoves > 1 ? (int64_t)esc_below(rng, (uint32_t)nmoves) : 0;
    if (j < nopt) mv.take = esc_kth_option(t, mv.card, j);
    return mv;
}

static inline esc_move esc_key_move(int strategy, const esc_tbl *t, uint64_t hand, uint64_t cap) {
    esc_move mv = { -1, 0 };
    if (cap) {
        uint32_t best_key = 0; uint64_t best_taken = ~0ULL;
        uint64_t rest = cap;
        while (rest) {
            int c = __builtin_ctzll(rest);
            rest &= rest - 1;
            esc_best_option(t, strategy, c, 1, &best_key, &best_taken);
        }
        mv.card = __builtin_ctzll(best_taken & hand);
        mv.take = best_taken & ~(1ULL << mv.card);
        return mv;
    }
    uint64_t pool = hand;
    if (strategy == ESC_MAXOROS && (hand & ~ESC_OROS_MASK)) pool = hand & ~ESC_OROS_MASK;
    mv.card = esc_lowest_value_card(pool);
    return mv;
}

static inline esc_move esc_choose_move(int strategy, const esc_hand *h, const esc_tbl *t, uint64_t hand, uint64_t cap, esc_rng *rng) {
    switch (strategy) {
    case ESC_RANDOM: return esc_random_move(h, t, hand, cap, rng);
    default: return esc_key_move(strategy, t, hand, cap);
    }
}

/* a blow of the laid card `card`: returns the table cards taken with it, 0 = no blow */
static inline uint64_t esc_choose_blow(int strategy, const esc_tbl *t, int card, esc_rng *rng) {
    if (strategy == ESC_RANDOM) {
        int64_t n = esc_count_options(t, card);
        int64_t k = (int64_t)esc_below(rng, (uint32_t)(n + 1));
        return k == 0 ? 0 : esc_kth_option(t, card, k - 1);
    }
    uint32_t best_key = 0; uint64_t best_taken = ~0ULL;
    esc_best_option(t, strategy, card, 0, &best_key, &best_taken);
    return best_taken & ~(1ULL << card);
}

/* ---------- scoring ---------- */

static inline void esc_majority(const int *counts, int n, int ties, int16_t *out) {
    int top = counts[0], ntop = 0;
    for (int i = 1; i < n; i++) if (counts[i] > top) top = counts[i];
    for (int i = 0; i < n; i++) ntop += counts[i] == top;
    for (int i = 0; i < n; i++) out[i] = (int16_t)((ntop > 1 && ties == ESC_TIES_NONE) ? 0 : counts[i] == top);
}

static inline void esc_score(const esc_hand *h, int leftovers, esc_hand_result *res) {
    const esc_rules *R = h->R;
    const int ns = R->n_sides;
    int cards[ESC_MAX_SEATS], oros[ESC_MAX_SEATS], sevens[ESC_MAX_SEATS];
    res->dealer = (int8_t)h->dealer;
    res->lucky_deal = (int8_t)h->lucky_deal;
    res->leftovers = (int8_t)leftovers;
    res->leftover_taker = (int8_t)h->last_capturer;
    for (int s = 0; s < ns; s++) {
        uint64_t p = h->piles[s];
        cards[s] = __builtin_popcountll(p);
        oros[s] = __builtin_popcountll(p & ESC_OROS_MASK);
        sevens[s] = __builtin_popcountll(p & ESC_SEVENS_MASK);
        res->side[ESC_C_ESCOBAS][s] = (int16_t)h->escobas[s];
        res->side[ESC_C_LUCKY][s] = (int16_t)h->lucky_escobas[s];
        res->side[ESC_C_SIETE][s] = (int16_t)(p >> ESC_SIETE_OROS & 1);
        res->side[ESC_C_CARDS_TAKEN][s] = (int16_t)cards[s];
        res->side[ESC_C_OROS_TAKEN][s] = (int16_t)oros[s];
        res->side[ESC_C_SEVENS_TAKEN][s] = (int16_t)sevens[s];
        res->side[ESC_C_BONUS][s] = (int16_t)(R->bonus_all_oros * (oros[s] == 10) + R->bonus_all_sevens * (sevens[s] == 4));
    }
    if (R->sevens == ESC_SEVENS_ALL) {
        for (int s = 0; s < ns; s++) res->side[ESC_C_SEVENS][s] = (int16_t)(sevens[s] == 4);
    } else {
        esc_majority(sevens, ns, R->ties, res->side[ESC_C_SEVENS]);
    }
    esc_majority(oros, ns, R->ties, res->side[ESC_C_OROS]);
    esc_majority(cards, ns, R->ties, res->side[ESC_C_CARDS]);
    for (int s = 0; s < ns; s++)
        res->side[ESC_C_TOTAL][s] = (int16_t)(res->side[ESC_C_ESCOBAS][s] + res->side[ESC_C_SIETE][s]
            + res->side[ESC_C_SEVENS][s] + res->side[ESC_C_OROS][s] + res->side[ESC_C_CARDS][s] + res->side[ESC_C_BONUS][s]);
}

/* play one hand from the seeded streams (docs/engine.md, One hand) */
static inline void esc_play_hand(const esc_rules *R, const int *strategies, uint64_t seed,
                                 uint64_t game, uint64_t hand_index, int dealer, esc_hand_result *res) {
    esc_hand h;
    esc_rng rng = { esc_stream_state(seed, game, hand_index, ESC_STREAM_DECK) };
    esc_shuffle(&rng, h.deck);
    esc_deal(&h, R, dealer);
    rng.state = esc_stream_state(seed, game, hand_index, ESC_STREAM_PLAY);
    const int capture_mode = R->capture, draw = R->deal == ESC_DEAL_DRAW;
    int seat = esc_next_seat(&h, dealer);
    esc_tbl t;
    while (seat >= 0) {
        const int strategy = strategies[seat];
        const int side = esc_side(R, seat);
        if (h.pending >= 0) {
            /* the laid card's options are those it had before it was laid: nothing else moved since */
            const uint64_t pbit = 1ULL << h.pending;
            esc_tbl_init(&t, h.table & ~pbit);
            uint64_t take = esc_choose_blow(strategy, &t, h.pending, &rng);
            if (take) {
                h.table &= ~(take | pbit);
                h.piles[side] |= take | pbit;
                h.last_capturer = seat;
            }
            h.pending = -1;
        }
        const uint64_t hand = h.hands[seat];
        esc_tbl_init(&t, h.table);
        const uint64_t cap = esc_capturing_cards(&t, hand);
        esc_move mv = esc_choose_move(strategy, &h, &t, hand, cap, &rng);
        const uint64_t cbit = 1ULL << mv.card;
        h.hands[seat] = hand & ~cbit;
        if (mv.take) {
            h.table &= ~mv.take;
            h.piles[side] |= mv.take | cbit;
            h.last_capturer = seat;
            if (!h.table) h.escobas[side]++;
        } else {
            h.table |= cbit;
            if (R->soplar && (cap & cbit)) h.pending = mv.card;
        }
        (void)capture_mode;
        if (draw && h.pos < 40) h.hands[seat] |= 1ULL << h.deck[h.pos++];
        seat = esc_next_seat(&h, seat);
    }
    const int leftovers = __builtin_popcountll(h.table);
    if (h.last_capturer >= 0) h.piles[esc_side(R, h.last_capturer)] |= h.table;
    esc_score(&h, leftovers, res);
}

/* one game: hands until a unique top total reaches the target. Appends each
 * hand's result through `push` (returns 0 on failure); returns the number of
 * hands, -1 past max_hands, -2 if push failed. scores/winner are outputs. */
typedef int (*esc_push_fn)(void *ctx, const esc_hand_result *res);

static inline int esc_play_game(const esc_rules *R, const int *strategies, uint64_t seed, uint64_t game,
                                int max_hands, int32_t *scores, int *winner, esc_push_fn push, void *ctx) {
    const int first_dealer = (int)(game % (uint64_t)R->players);
    esc_hand_result res;
    for (int s = 0; s < R->n_sides; s++) scores[s] = 0;
    for (int hi = 0; hi < max_hands; hi++) {
        esc_play_hand(R, strategies, seed, game, (uint64_t)hi, (first_dealer + hi) % R->players, &res);
        if (!push(ctx, &res)) return -2;
        int32_t top = INT32_MIN; int ntop = 0, arg = 0;
        for (int s = 0; s < R->n_sides; s++) {
            scores[s] += res.side[ESC_C_TOTAL][s];
            if (scores[s] > top) { top = scores[s]; arg = s; }
        }
        for (int s = 0; s < R->n_sides; s++) ntop += scores[s] == top;
        if (top >= R->target && ntop == 1) { *winner = arg; return hi + 1; }
    }
    return -1;
}

#endif
