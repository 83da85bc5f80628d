/* One hand's state in escoba-sim: the ruleset, the deal, whose turn it is,
 * the refills and the scoring of the piles (docs/engine.md, "One hand" and
 * "Scoring a hand"). The decisions are in escoba_strategies.h, the loop that
 * plays a hand in escoba_core.h. Plain C, static inline, prefix esc_.
 */
#ifndef ESCOBA_HAND_H
#define ESCOBA_HAND_H

#include <string.h>
#include "escoba_tables.h"

/* ruleset field codes: the index of the value in escoba_sim.game.rules' tuples */
enum { ESC_LUCKY_ESCOBAS = 0, ESC_LUCKY_CAPTURE = 1, ESC_LUCKY_OFF = 2 };
enum { ESC_CAPTURE_CARD = 0, ESC_CAPTURE_ANY = 1, ESC_CAPTURE_OPTIONAL = 2 };
enum { ESC_DEAL_ROUNDS = 0, ESC_DEAL_DRAW = 1 };
enum { ESC_SEVENS_MAJORITY = 0, ESC_SEVENS_ALL = 1 };
enum { ESC_TIES_SHARED = 0, ESC_TIES_NONE = 1 };

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

/* ---------- one hand ---------- */

/* one move as the table saw it (public): who played which card and took what, the table and every card
 * in the piles just before it, and the stock's position then (deck[pos..] was the stock). Kept, in
 * esc_plays, only when a seat reads the other hands (ismcts' infer = 2, escoba_reading.h). */
typedef struct { uint64_t take, table, seen; int8_t seat, card; uint8_t pos; } esc_play;
typedef struct { int n; esc_play m[40]; } esc_plays; /* the hand's moves in order (blows apart): at most 40 */

typedef struct {
    const esc_rules *R;
    uint64_t hands[ESC_MAX_SEATS];
    uint64_t table;
    uint16_t reach; /* subset sums of the table, kept in step with it */
    uint64_t piles[ESC_MAX_SEATS];
    int escobas[ESC_MAX_SEATS], lucky_escobas[ESC_MAX_SEATS];
    uint8_t deck[40];
    int pos; /* the stock is deck[pos..39], dealt from the front */
    int dealer, last_capturer, lucky_deal, pending; /* pending: laid card open to a blow, or -1 */
    /* per seat, public: bit v (1..10) = the seat showed, by laying a card while the table offered a
     * capture to a v, that it holds no card of value v (esc_note_voids); bit 0 (ESC_VOIDS_OFF) = it
     * played against that reading this deal, so nothing is inferred for it until its next refill.
     * Kept only when a seat reads it (esc_apply_move's `infer`); ismcts' `infer` option reads it. */
    uint16_t voids[ESC_MAX_SEATS];
    /* the hand's moves (esc_plays), kept with the voids when a seat reads them (esc_apply_move's `infer`)
     * and the hand loop supplies the log; NULL otherwise. Determinizations copy the pointer and never
     * write through it (the searches play with infer = 0). */
    esc_plays *plays;
} esc_hand;

#define ESC_VOIDS_OFF 1u

static inline int esc_side(const esc_rules *R, int seat) { return R->teams ? (seat & 1) : seat; }

static inline uint64_t esc_take_cards(esc_hand *h, int k) {
    const uint8_t *d = h->deck + h->pos;
    h->pos += k;
    if (k == 3) return 1ULL << d[0] | 1ULL << d[1] | 1ULL << d[2]; /* every preset's hand size */
    uint64_t m = 0;
    for (int i = 0; i < k; i++) m |= 1ULL << d[i];
    return m;
}

/* the sum of the values of `mask` without a loop: each card counts 1 plus the bits of value - 1
 * (bit 0: values 2, 4, 6, 8, 10; bit 1: 3, 4, 7, 8; bit 2: 5-8; bit 3: 9, 10; in every suit) */
static inline int esc_table_sum(uint64_t mask) {
    return __builtin_popcountll(mask) + __builtin_popcountll(mask & ESC_SPREAD(0x2AA))
         + 2 * __builtin_popcountll(mask & ESC_SPREAD(0x0CC)) + 4 * __builtin_popcountll(mask & ESC_SPREAD(0x0F0))
         + 8 * __builtin_popcountll(mask & ESC_SPREAD(0x300));
}

/* the seat after `last` holding cards, refilling by rounds when none does; -1 ends the hand */
static inline int esc_next_seat(esc_hand *h, int last) {
    const esc_rules *R = h->R;
    const int n = R->players;
    const int next = last + 1 == n ? 0 : last + 1;
    if (h->hands[next]) return next; /* nearly every turn */
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
            h->voids[seat2] = 0;
        }
    }
}

static ESC_ALWAYS_INLINE void esc_deal(esc_hand *h, const esc_rules *R, int dealer) {
    h->R = R;
    h->dealer = dealer;
    h->pos = 0;
    h->last_capturer = -1;
    h->lucky_deal = 0;
    h->pending = -1;
    h->plays = NULL;
    /* whole arrays, each a few vector stores (a loop over the seats would mispredict its exit) */
    memset(h->hands, 0, sizeof h->hands);
    memset(h->piles, 0, sizeof h->piles);
    memset(h->escobas, 0, sizeof h->escobas);
    memset(h->lucky_escobas, 0, sizeof h->lucky_escobas);
    memset(h->voids, 0, sizeof h->voids);
    int seat = dealer;
    for (int k = 0; k < R->players; k++) {
        seat = seat + 1 == R->players ? 0 : seat + 1;
        h->hands[seat] = esc_take_cards(h, R->hand_size);
    }
    h->table = esc_take_cards(h, R->table_size);
    h->reach = esc_reach_of(h->table);
    /* lucky deal on the initial table */
    if (R->lucky_deal != ESC_LUCKY_OFF && h->table) {
        int total = esc_table_sum(h->table), groups = 0;
        if (total == 15) groups = 1;
        else if (total == 30 && R->lucky_deal == ESC_LUCKY_ESCOBAS && ((h->reach >> 15) & 1)) groups = 2;
        if (groups) {
            int side = esc_side(R, dealer);
            h->piles[side] |= h->table;
            h->table = 0;
            h->reach = 1;
            h->lucky_deal = groups;
            if (R->lucky_deal == ESC_LUCKY_ESCOBAS) { h->escobas[side] += groups; h->lucky_escobas[side] += groups; }
        }
    }
}

/* a move: card played and table cards taken (0 = lay) */
typedef struct { int card; uint64_t take; } esc_move;

/* the values that would capture on a table whose subset sums are `reach`: v when 15 - v is one */
static inline uint16_t esc_capture_values(uint16_t reach) {
    uint16_t m = 0;
    for (int v = 1; v <= 10; v++) m |= (uint16_t)(((reach >> (15 - v)) & 1u) << v);
    return m;
}

/* what `seat`'s move `mv` (before it is applied; cap: its capturing cards) shows of its hand to a reader
 * who assumes it captures whenever it can: a lay while the table offered captures to values V means it
 * holds no card of V, and (deal=rounds) it still holds, until its next refill, only cards it held then.
 * Playing a card of a value it was read not to hold, or laying a card that could capture, proves the
 * reading wrong for this seat: ESC_VOIDS_OFF until the refill. With `draw` (deal=draw, a card left to
 * draw) the seat draws an unknown card after the move, so only ESC_VOIDS_OFF is kept. */
static inline void esc_note_voids(esc_hand *h, int seat, esc_move mv, uint64_t cap, int draw) {
    uint16_t v = h->voids[seat];
    if (!(v & ESC_VOIDS_OFF)) {
        if (((v >> esc_val[mv.card]) & 1u) || (!mv.take && ((cap >> mv.card) & 1))) v = ESC_VOIDS_OFF;
        else if (!mv.take) v |= esc_capture_values(h->reach);
    }
    if (draw && h->pos < 40) v &= ESC_VOIDS_OFF;
    h->voids[seat] = v;
}

/* play `mv` for `seat` of `side` (cap: its capturing cards before the move): a capture
 * takes its cards (an escoba when the table empties), a lay may leave a pending blow
 * under soplar; one card is drawn under deal=draw. With `infer` the seats' voids are
 * kept (esc_note_voids), and the move is logged in h->plays when there is a log. The
 * hand loop and the searches (ismcts, evaluate, oracle) share it, so the rule lives in one place. */
static ESC_ALWAYS_INLINE void esc_apply_move(esc_hand *h, int seat, int side, esc_move mv, uint64_t cap, int soplar,
                                             int draw, int infer) {
    if (infer) {
        esc_note_voids(h, seat, mv, cap, draw);
        if (h->plays && h->plays->n < 40) {
            esc_play *p = &h->plays->m[h->plays->n++];
            p->take = mv.take; p->table = h->table; p->seat = (int8_t)seat; p->card = (int8_t)mv.card;
            p->pos = (uint8_t)h->pos;
            p->seen = 0;
            for (int s = 0; s < ESC_MAX_SEATS; s++) p->seen |= h->piles[s];
        }
    }
    const uint64_t cbit = 1ULL << mv.card;
    h->hands[seat] &= ~cbit;
    if (mv.take) {
        h->table &= ~mv.take;
        h->reach = esc_reach_of(h->table);
        h->piles[side] |= mv.take | cbit;
        h->last_capturer = seat;
        h->escobas[side] += h->table == 0; /* an escoba: data, so no branch on it */
    } else {
        h->table |= cbit;
        h->reach = esc_add_to_reach(h->reach, esc_val[mv.card]);
        if (soplar && (cap & cbit)) h->pending = mv.card;
    }
    if (draw && h->pos < 40) h->hands[seat] |= 1ULL << h->deck[h->pos++];
}

/* ---------- scoring ---------- */

static ESC_ALWAYS_INLINE void esc_majority(const int *counts, int n, int ties, int16_t *out) {
    int top = counts[0], ntop = 0;
    for (int i = 1; i < n; i++) if (counts[i] > top) top = counts[i];
    for (int i = 0; i < n; i++) ntop += counts[i] == top;
    /* a side that took none never scores: top == 0 (nobody took any) gives nobody the point */
    const int none = (top == 0) | ((ntop > 1) & (ties == ESC_TIES_NONE)); /* no branch: both are data */
    for (int i = 0; i < n; i++) out[i] = (int16_t)(!none & (counts[i] == top));
}

/* esc_score for `ns` sides; a constant ns unrolls every loop */
static ESC_ALWAYS_INLINE void esc_score_sides(const esc_hand *h, int leftovers, esc_hand_result *res, const int ns) {
    const esc_rules *R = h->R;
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
static ESC_ALWAYS_INLINE void esc_score(const esc_hand *h, int leftovers, esc_hand_result *res) {
    if (h->R->n_sides == 2) esc_score_sides(h, leftovers, res, 2); /* two seats, or four in two teams */
    else esc_score_sides(h, leftovers, res, h->R->n_sides);
}

#endif
