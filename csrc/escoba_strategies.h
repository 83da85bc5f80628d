/* The built-in strategies of escoba-sim but ismcts (escoba_ismcts.h):
 * `random` and the keyed ones (greedy, maxoros, sevens), whose best capture
 * is in escoba_tables.h, then those that look past the taken set: `defensive`,
 * `heuristic` and `endgame` (docs/engine.md, "What a strategy has seen, and
 * risk"). They read the hand state (escoba_hand.h); the dispatch from a seat's
 * strategy code to its decision is in escoba_core.h.
 *
 * Exactness with the reference (strategies/reference.py) matters more than speed here:
 * - `unseen` = 40 cards minus the seat's hand, the table and every pile;
 * - risk counts are integers; heuristic scores are doubles summed left to right
 *   in the order the reference writes them (the build sets -ffp-contract=off so
 *   no multiply-add is fused), so both engines compute the same bits;
 * - endgame's search returns exact integer minimax values, so the move it picks
 *   (the first in legal-move order with the best value) does not depend on how
 *   the search is pruned.
 * Everything is static inline with the prefix esc_.
 */
#ifndef ESCOBA_STRATEGIES_H
#define ESCOBA_STRATEGIES_H

#include "escoba_hand.h"

/* a seat's strategy: its code and parameters (doubles, in the order of StrategyDef.params). A level
 * (ESC_LEVEL, escoba_core.h) is its base strategy `base` with `p` that base's parameters, and plays a
 * uniformly random choice `share` times in 1000 (strategies/levels.py LEVELS; common.pyx c_players
 * fills them); every other strategy leaves base and share at 0 */
#define ESC_MAX_PARAMS 12
typedef struct { int id; double p[ESC_MAX_PARAMS]; int base; int share; } esc_player;

/* ---------- random and the keyed strategies (greedy, maxoros, sevens): the hand loop inlines these ---------- */

/* lowest value, ties to the highest card id */
static inline int esc_lowest_value_card(uint64_t cards) {
    const int v = __builtin_ctz(esc_values_of(cards)); /* value - 1 */
    return 63 - __builtin_clzll(cards & ESC_SPREAD(1u << v));
}

static inline esc_move esc_random_move(const esc_hand *h, const esc_tbl *t, uint64_t hand, uint64_t cap, esc_rng *rng) {
    const int mode = h->R->capture;
    /* must capture when it can: its capturing cards, else the hand (cap is part of the hand); without a
     * branch on cap, which is data (the branch cost 6 simulated mispredicts per random-random hand) */
    const uint64_t must = mode == ESC_CAPTURE_ANY ? cap : 0;
    uint64_t legal = must | (hand & (0 - (uint64_t)(must == 0)));
    int n = __builtin_popcountll(legal);
    int k = n > 1 ? (int)esc_below(rng, (uint32_t)n) : 0;
    if (n <= 3) { /* the usual hand: drop the k lowest cards without a branch (GCC made selects branches) */
        legal &= legal - ((uint64_t)k + 1) / 2; /* k >= 1, as k <= 2 */
        legal &= legal - (uint64_t)k / 2;       /* k >= 2 */
    } else {
        while (k--) legal &= legal - 1;
    }
    esc_move mv = { __builtin_ctzll(legal), 0 };
    if ((cap >> mv.card) & 1) { /* its captures in mask order, then the lay if laying is legal */
        const int tk = __builtin_popcountll(t->mask), lay = mode == ESC_CAPTURE_OPTIONAL;
        if (tk <= 4) mv.take = esc_draw_option_small(t->mask, mv.card, lay, 0, rng);
#if defined(__SSE2__)
        else if (tk <= 6) mv.take = esc_draw_capture_mid(t->mask, mv.card, lay, rng);
#endif
        else mv.take = esc_draw_option(t, mv.card, lay, 0, rng);
    }
    return mv;
}

static inline esc_move esc_key_move(int strategy, const esc_tbl *t, uint64_t hand, uint64_t cap) {
    esc_move mv = { -1, 0 };
    if (cap) {
        const uint64_t best = esc_best_capture(t, strategy, cap, 1);
        mv.card = __builtin_ctzll(best & hand);
        mv.take = best & ~(1ULL << mv.card);
        return mv;
    }
    /* maxoros keeps its oros, sevens its sevens, unless it holds nothing else */
    const uint64_t keep = strategy == ESC_MAXOROS ? ESC_OROS_MASK : (strategy == ESC_SEVENS ? ESC_SEVENS_MASK : 0);
    const uint64_t plain = hand & ~keep;
    const uint64_t pool = (plain != 0) ? plain : hand;
    mv.card = esc_lowest_value_card(pool);
    return mv;
}

/* a blow of the laid card `card` (t: the table without it): the table cards taken with it, 0 = no blow */
static inline uint64_t esc_choose_blow(int strategy, const esc_tbl *t, int card, esc_rng *rng) {
    if (strategy == ESC_RANDOM) return esc_draw_option(t, card, 1, 1, rng); /* [no blow] + options */
    return esc_best_capture(t, strategy, 1ULL << card, 0) & ~(1ULL << card);
}

/* the decision of a seat's strategy (escoba_strategies.h, included at the end) */

#define ESC_ALL_CARDS ((1ULL << 40) - 1)

/* the parameter slots of heuristic (its weights) and endgame (the weights, then max_cards): X(SLOT, name) in
 * the order of their parameters in strategies.registry.BUILTINS, checked by name at import (ESC_PARAM_NAMES) */
#define ESC_HEURISTIC_PARAMS(X) \
    X(ESC_W_CARDS, "cards") X(ESC_W_OROS, "oros") X(ESC_W_SEVENS, "sevens") X(ESC_W_SIETE, "siete") \
    X(ESC_W_ESCOBA, "escoba") X(ESC_W_RISK, "risk") X(ESC_W_KEEP, "keep")
#define ESC_ENDGAME_PARAMS(X) ESC_HEURISTIC_PARAMS(X) X(ESC_EG_MAX_CARDS, "max_cards")
enum { ESC_ENDGAME_PARAMS(ESC_ENUM_ID) ESC_N_ENDGAME_PARAMS };

/* ---------- what the seat has not seen, and risk ---------- */

static inline uint64_t esc_unseen(const esc_hand *h, int seat) {
    uint64_t known = h->hands[seat] | h->table;
    for (int s = 0; s < ESC_MAX_SEATS; s++) known |= h->piles[s];
    return ESC_ALL_CARDS & ~known;
}

/* unseen cards that would take the whole of `table` alone; 0 for an empty table */
static inline int esc_clears(uint64_t table, uint64_t unseen) {
    if (!table) return 0;
    const int need = 15 - esc_table_sum(table);
    if (need < 1 || need > 10) return 0;
    return __builtin_popcountll(unseen & ESC_SPREAD(1u << (need - 1)));
}

static inline double esc_risk(uint64_t table, uint64_t unseen) {
    const int u = __builtin_popcountll(unseen);
    return u ? (double)esc_clears(table, unseen) / (double)u : 0.0;
}

/* Run BODY for every capture (CARD of `cap`, table subset SUB) on table T, in
 * no particular order: callers break ties explicitly. */
#define ESC_FOR_CAPTURES(T, CAP, CARD, SUB, BODY) do {                                         \
    const esc_tbl *_ft = (T);                                                                 \
    const uint64_t _fcap = (CAP);                                                             \
    const uint32_t _fneeds = esc_needs_of(_fcap);                                             \
    if (!_fcap || !(_ft->reach & _fneeds)) break;                                             \
    if (__builtin_popcountll(_ft->mask) <= ESC_SLOT_MAX) {                                    \
        ESC_FOR_OPTIONS_SLOTS(_ft->mask, _fneeds, SUB, _fsum, {                               \
            uint64_t _fc = _fcap & ESC_SPREAD(1u << (14 - _fsum));                            \
            while (_fc) { const int CARD = __builtin_ctzll(_fc); _fc &= _fc - 1; BODY }       \
        });                                                                                   \
    } else {                                                                                  \
        esc_suits _fsu; esc_suits_init(&_fsu, _ft->mask);                                     \
        ESC_FOR_OPTIONS_ANY_SUITS(&_fsu, _fneeds, SUB, _fsum, {                               \
            uint64_t _fc = _fcap & ESC_SPREAD(1u << (14 - _fsum));                            \
            while (_fc) { const int CARD = __builtin_ctzll(_fc); _fc &= _fc - 1; BODY }       \
        });                                                                                   \
    }                                                                                         \
} while (0)

/* ---------- defensive ---------- */

static ESC_COLD esc_move esc_defensive_move(const esc_hand *h, int seat, const esc_tbl *t, uint64_t hand, uint64_t cap) {
    const uint64_t unseen = esc_unseen(h, seat), table = t->mask;
    esc_move mv = { -1, 0 };
    if (cap) {
        uint64_t best_key = 0, best_taken = ~0ULL;
        ESC_FOR_CAPTURES(t, cap, card, sub, {
            const uint64_t taken = sub | (1ULL << card);
            /* fewer clearing cards first (40 - clears > 0), then greedy's key */
            const uint64_t key = ((uint64_t)(40 - esc_clears(table & ~sub, unseen)) << 32)
                               | esc_greedy_key(taken, sub == table);
            if (key > best_key || (key == best_key && taken < best_taken)) { best_key = key; best_taken = taken; }
        });
        mv.card = __builtin_ctzll(best_taken & hand);
        mv.take = best_taken & ~(1ULL << mv.card);
        return mv;
    }
    int best_c = 99, best_v = 99;
    for (uint64_t m = hand; m; m &= m - 1) { /* ascending id; `<=` leaves ties to the highest id */
        const int c = __builtin_ctzll(m);
        const int cl = esc_clears(table | (1ULL << c), unseen), v = esc_val[c];
        if (cl < best_c || (cl == best_c && v <= best_v)) { best_c = cl; best_v = v; mv.card = c; }
    }
    return mv;
}

/* ---------- heuristic ---------- */

static inline double esc_h_capture_score(const double *w, uint64_t taken, int escoba, double risk) {
    return w[ESC_W_CARDS] * (double)__builtin_popcountll(taken)
         + w[ESC_W_OROS] * (double)__builtin_popcountll(taken & ESC_OROS_MASK)
         + w[ESC_W_SEVENS] * (double)__builtin_popcountll(taken & ESC_SEVENS_MASK)
         + w[ESC_W_SIETE] * (double)(taken >> ESC_SIETE_OROS & 1)
         + w[ESC_W_ESCOBA] * (double)escoba
         - w[ESC_W_RISK] * risk;
}

static inline double esc_h_lay_score(const double *w, int card, double risk) {
    return -(w[ESC_W_RISK] * risk)
         - w[ESC_W_KEEP] * (w[ESC_W_OROS] * (double)(card < 10) + w[ESC_W_SEVENS] * (double)(ESC_SEVENS_MASK >> card & 1)
                            + w[ESC_W_SIETE] * (double)(card == ESC_SIETE_OROS));
}

static ESC_COLD esc_move esc_heuristic_move(const double *w, const esc_hand *h, int seat, const esc_tbl *t,
                                          uint64_t hand, uint64_t cap) {
    const uint64_t unseen = esc_unseen(h, seat), table = t->mask;
    const int mode = h->R->capture;
    double best = 0.0;
    int have = 0, best_is_cap = 0;
    uint64_t best_taken = 0;
    esc_move mv = { -1, 0 };
    ESC_FOR_CAPTURES(t, cap, card, sub, {
        const uint64_t taken = sub | (1ULL << card);
        const double sc = esc_h_capture_score(w, taken, sub == table, esc_risk(table & ~sub, unseen));
        if (!have || sc > best || (sc == best && taken < best_taken)) {
            have = 1; best = sc; best_taken = taken; best_is_cap = 1;
        }
    });
    /* the cards it may lay: none under `any` with a capture, the non-capturing ones under `card` */
    const uint64_t lays = mode == ESC_CAPTURE_OPTIONAL ? hand : (mode == ESC_CAPTURE_ANY ? (cap ? 0 : hand) : hand & ~cap);
    for (uint64_t m = lays; m; m &= m - 1) {
        const int c = __builtin_ctzll(m);
        const double sc = esc_h_lay_score(w, c, esc_risk(table | (1ULL << c), unseen));
        /* ties: a capture beats a lay; among lays the lowest value, then the highest id (ascending walk, `<=`) */
        if (!have || sc > best || (sc == best && !best_is_cap && esc_val[c] <= esc_val[mv.card])) {
            have = 1; best = sc; best_is_cap = 0; mv.card = c; mv.take = 0;
        }
    }
    if (best_is_cap) {
        mv.card = __builtin_ctzll(best_taken & hand);
        mv.take = best_taken & ~(1ULL << mv.card);
    }
    return mv;
}

/* a blow always, by the capture score with no escoba and no risk; ties to the lowest mask */
static ESC_COLD uint64_t esc_heuristic_blow(const double *w, const esc_tbl *t, int card) {
    const uint64_t cbit = 1ULL << card;
    double best = 0.0;
    uint64_t best_taken = 0;
    int have = 0;
    ESC_FOR_CAPTURES(t, cbit, c, sub, {
        (void)c;
        const uint64_t taken = sub | cbit;
        const double sc = esc_h_capture_score(w, taken, 0, 0.0);
        if (!have || sc > best || (sc == best && taken < best_taken)) { have = 1; best = sc; best_taken = taken; }
    });
    return have ? best_taken & ~cbit : 0;
}

/* ---------- endgame: exact minimax of the rest of a two-player hand ---------- */

typedef struct {
    uint64_t hands[2], table, piles[2];
    int escobas[2], last;
} esc_eg;

#define ESC_EG_INF 1000000

/* own hand total minus the opponent's at the end of the hand (leftovers to the last capturer) */
static inline int esc_eg_leaf(const esc_rules *R, const esc_eg *s, int me) {
    uint64_t piles[2] = { s->piles[0], s->piles[1] };
    if (s->last >= 0) piles[s->last] |= s->table;
    int cards[2], oros[2], sevens[2];
    int16_t sv[2], ob[2], cb[2];
    for (int i = 0; i < 2; i++) {
        cards[i] = __builtin_popcountll(piles[i]);
        oros[i] = __builtin_popcountll(piles[i] & ESC_OROS_MASK);
        sevens[i] = __builtin_popcountll(piles[i] & ESC_SEVENS_MASK);
    }
    if (R->sevens == ESC_SEVENS_ALL) { sv[0] = sevens[0] == 4; sv[1] = sevens[1] == 4; }
    else esc_majority(sevens, 2, R->ties, sv);
    esc_majority(oros, 2, R->ties, ob);
    esc_majority(cards, 2, R->ties, cb);
    int tot[2];
    for (int i = 0; i < 2; i++)
        tot[i] = s->escobas[i] + (int)(piles[i] >> ESC_SIETE_OROS & 1) + sv[i] + ob[i] + cb[i]
               + R->bonus_all_oros * (oros[i] == 10) + R->bonus_all_sevens * (sevens[i] == 4);
    return tot[me] - tot[1 - me];
}

static inline int esc_eg_turn(const esc_rules *R, const esc_eg *s, int seat, int pending, int alpha, int beta, int me);
static inline int esc_eg_moves(const esc_rules *R, const esc_eg *s, int seat, int alpha, int beta, int me,
                               esc_move *best_move);

/* fail-hard alpha-beta step: fold value v into the window of a max (seat == me) or min node; 1 = cut */
#define ESC_EG_FOLD(MAXNODE, V, ALPHA, BETA) \
    ((MAXNODE) ? (((V) > (ALPHA) ? ((ALPHA) = (V)) : 0), (ALPHA) >= (BETA)) \
               : (((V) < (BETA) ? ((BETA) = (V)) : 0), (ALPHA) >= (BETA)))

/* after `seat` played (pending: a laid card open to a blow, or -1) */
static inline int esc_eg_after(const esc_rules *R, const esc_eg *s, int seat, int pending, int alpha, int beta, int me) {
    const int other = 1 - seat;
    const int nxt = s->hands[other] ? other : (s->hands[seat] ? seat : -1);
    if (nxt < 0) return esc_eg_leaf(R, s, me);
    return esc_eg_turn(R, s, nxt, pending, alpha, beta, me);
}

static inline int esc_eg_played(const esc_rules *R, const esc_eg *s0, int seat, int card, uint64_t take,
                                int alpha, int beta, int me) {
    esc_eg s = *s0;
    const uint64_t bit = 1ULL << card;
    int pending = -1;
    s.hands[seat] &= ~bit;
    if (take) {
        s.table &= ~take;
        s.piles[seat] |= take | bit;
        s.last = seat;
        if (!s.table) s.escobas[seat]++;
    } else {
        if (R->soplar && ((esc_reach_of(s.table) >> (15 - esc_val[card])) & 1)) pending = card;
        s.table |= bit;
    }
    return esc_eg_after(R, &s, seat, pending, alpha, beta, me);
}

/* the seat's blow decision ([no blow] + options by mask), then its move */
static inline int esc_eg_blow(const esc_rules *R, const esc_eg *s, int seat, int card, int alpha, int beta, int me,
                              uint64_t *best_take) {
    const int maxnode = seat == me;
    const uint64_t cbit = 1ULL << card;
    int v = esc_eg_moves(R, s, seat, alpha, beta, me, NULL);
    int best = v;
    if (best_take) *best_take = 0;
    if (ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
    esc_tbl t; esc_tbl_init(&t, s->table & ~cbit);
    const int need = 15 - esc_val[card];
    esc_eg b;
    if (__builtin_popcountll(t.mask) <= ESC_SLOT_MAX) {
        ESC_FOR_OPTIONS_SLOTS(t.mask, 1u << need, sub, sum, {
            (void)sum;
            b = *s; b.table &= ~(sub | cbit); b.piles[seat] |= sub | cbit; b.last = seat;
            v = esc_eg_moves(R, &b, seat, best_take ? best : alpha, beta, me, NULL);
            if (best_take && v > best) { best = v; *best_take = sub; }
            if (ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
        });
    } else {
        esc_suits su; esc_suits_init(&su, t.mask);
        ESC_FOR_OPTIONS_SUITS(&su, need, sub, {
            b = *s; b.table &= ~(sub | cbit); b.piles[seat] |= sub | cbit; b.last = seat;
            v = esc_eg_moves(R, &b, seat, best_take ? best : alpha, beta, me, NULL);
            if (best_take && v > best) { best = v; *best_take = sub; }
            if (ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
        });
    }
    return maxnode ? alpha : beta;
}

static inline int esc_eg_turn(const esc_rules *R, const esc_eg *s, int seat, int pending, int alpha, int beta, int me) {
    if (pending >= 0) return esc_eg_blow(R, s, seat, pending, alpha, beta, me, NULL);
    return esc_eg_moves(R, s, seat, alpha, beta, me, NULL);
}

/* the seat's moves in legal-move order. At the root (best_move != NULL, seat == me)
 * each move is searched with the window (best so far, beta) and the first move
 * with the highest value is kept. */
static inline int esc_eg_moves(const esc_rules *R, const esc_eg *s, int seat, int alpha, int beta, int me,
                               esc_move *best_move) {
    /* a stop request: the value is discarded with the hand (the root still picks a legal move) */
    if (!best_move && esc_stopping()) return alpha;
    const int maxnode = seat == me, mode = R->capture;
    const uint64_t hand = s->hands[seat];
    esc_tbl t; esc_tbl_init(&t, s->table);
    const uint64_t cap = esc_capturing_cards(t.reach, hand);
    int best = -ESC_EG_INF, v;
    for (uint64_t m = hand; m; m &= m - 1) {
        const int c = __builtin_ctzll(m);
        const int has = (int)(cap >> c & 1);
        if (mode == ESC_CAPTURE_ANY && cap && !has) continue;
        if (has) {
            const int need = 15 - esc_val[c];
            if (__builtin_popcountll(t.mask) <= ESC_SLOT_MAX) {
                ESC_FOR_OPTIONS_SLOTS(t.mask, 1u << need, sub, sum, {
                    (void)sum;
                    v = esc_eg_played(R, s, seat, c, sub, best_move ? (best > alpha ? best : alpha) : alpha, beta, me);
                    if (best_move && v > best) { best = v; best_move->card = c; best_move->take = sub; }
                    if (!best_move && ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
                });
            } else {
                esc_suits su; esc_suits_init(&su, t.mask);
                ESC_FOR_OPTIONS_SUITS(&su, need, sub, {
                    v = esc_eg_played(R, s, seat, c, sub, best_move ? (best > alpha ? best : alpha) : alpha, beta, me);
                    if (best_move && v > best) { best = v; best_move->card = c; best_move->take = sub; }
                    if (!best_move && ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
                });
            }
        }
        if (!has || mode == ESC_CAPTURE_OPTIONAL) {
            v = esc_eg_played(R, s, seat, c, 0, best_move ? (best > alpha ? best : alpha) : alpha, beta, me);
            if (best_move && v > best) { best = v; best_move->card = c; best_move->take = 0; }
            if (!best_move && ESC_EG_FOLD(maxnode, v, alpha, beta)) return maxnode ? beta : alpha;
        }
    }
    if (best_move) return best;
    return maxnode ? alpha : beta;
}

static inline int esc_endgame_applies(const double *p, const esc_hand *h) {
    const esc_rules *R = h->R;
    return R->players == 2 && !R->teams && h->pos >= 40
        && __builtin_popcountll(h->hands[0] | h->hands[1]) <= (int)p[ESC_EG_MAX_CARDS];
}

static inline void esc_eg_from_hand(esc_eg *s, const esc_hand *h) {
    for (int i = 0; i < 2; i++) { s->hands[i] = h->hands[i]; s->piles[i] = h->piles[i]; s->escobas[i] = h->escobas[i]; }
    s->table = h->table;
    s->last = h->last_capturer;
}

static ESC_COLD esc_move esc_endgame_move(const double *p, const esc_hand *h, int seat, const esc_tbl *t,
                                        uint64_t hand, uint64_t cap) {
    if (!esc_endgame_applies(p, h)) return esc_heuristic_move(p, h, seat, t, hand, cap);
    esc_eg s; esc_eg_from_hand(&s, h);
    esc_move mv = { -1, 0 };
    esc_eg_moves(h->R, &s, seat, -ESC_EG_INF, ESC_EG_INF, seat, &mv);
    return mv;
}

static ESC_COLD uint64_t esc_endgame_blow(const double *p, const esc_hand *h, int seat, const esc_tbl *t, int card) {
    if (!esc_endgame_applies(p, h)) return esc_heuristic_blow(p, t, card);
    esc_eg s; esc_eg_from_hand(&s, h);
    uint64_t take = 0;
    esc_eg_blow(h->R, &s, seat, card, -ESC_EG_INF, ESC_EG_INF, seat, &take);
    return take;
}

#endif
