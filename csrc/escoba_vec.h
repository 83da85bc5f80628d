/* The vectorised environment of escoba-sim (escoba_sim/env/vector.py): N hands
 * in lock-step, one learner seat deciding through the fixed action encoding of
 * escoba_sim/env/actions.py, every other seat a built-in strategy played inside
 * this loop by the core's own decisions (esc_decide_move / esc_decide_blow)
 * and turns (esc_ismcts_play, the core's hand loop step by step).
 *
 * Action encoding (escoba_sim/env/actions.py is the definition): 0..39 play a card;
 * 40+t take table card t (captures and blows are built in ascending card id);
 * 80 lay; 81 no blow. A decision completes when exactly one legal move is left
 * that agrees with it. The candidate moves of a decision in progress are never
 * listed: they are the subsets of the table cards above the last one chosen
 * whose values sum to what is still needed, so they are counted with a small
 * subset-sum count (sums <= 14) and "t can come next" is one reachable-sum test.
 *
 * Observation planes: the layout of actions.observation_layout, int8, written
 * with an 8-bytes-per-lookup expansion of each 40-bit mask.
 * Everything is static inline with the prefix esc_vec_.
 */
#ifndef ESCOBA_VEC_H
#define ESCOBA_VEC_H

#include <stdint.h>
#include <string.h>
#include "escoba_core.h"
#include "escoba_ismcts.h"

#define ESC_VEC_TAKE 40
#define ESC_VEC_LAY 80
#define ESC_VEC_NO_BLOW 81
#define ESC_VEC_N_ACTIONS 82

enum { ESC_VEC_BLOW = 0, ESC_VEC_CARD = 1, ESC_VEC_TAKE_PHASE = 2, ESC_VEC_DONE = 3 };

typedef struct {
    esc_hand h;
    esc_plays plays;      /* the hand's moves, when a seat reads the other hands (infer) */
    esc_rng rng;          /* the hand's PLAY stream, drawn by the other seats' strategies */
    uint64_t game;        /* game index of the hand (deck and play streams) */
    uint64_t played;      /* cards played from a hand so far */
    uint64_t chosen;      /* table cards chosen in the decision in progress */
    int phase, card;      /* card: the chosen card (take), the laid card open to a blow (blow) */
    int rem;              /* value still needed by the decision in progress */
    int lay_ok;           /* take phase: the chosen card may still be laid */
    float reward;
} esc_vec_env;

typedef struct {
    esc_rules R;
    esc_player players[ESC_MAX_SEATS]; /* the learner's slot is unused */
    int learner, n_envs, obs_size;
    int infer; /* a seat reads the voids (ismcts' infer): the moves keep them, as the core's hand loop does */
    uint64_t seed;
    /* observation offsets (actions.observation_layout) */
    int o_hand, o_table, o_pile, o_played, o_blow, o_ccard, o_ctake, o_stock, o_hsize, o_escobas, o_to_play,
        o_dealer, o_phase;
    esc_vec_env *envs;
} esc_vec;

static uint64_t esc_vec_bytes[256]; /* byte b -> 8 bytes of 0/1 (bit i of b -> byte i) */

static inline void esc_vec_init_tables(void) {
    for (int b = 0; b < 256; b++) {
        uint64_t w = 0;
        for (int i = 0; i < 8; i++) if (b >> i & 1) w |= 1ULL << (8 * i);
        esc_vec_bytes[b] = w;
    }
}

static inline void esc_vec_layout(esc_vec *V) {
    const int ns = V->R.n_sides, np = V->R.players;
    int at = 0;
    V->o_hand = at; at += 40;
    V->o_table = at; at += 40;
    V->o_pile = at; at += 40 * ns;
    V->o_played = at; at += 40;
    V->o_blow = at; at += 40;
    V->o_ccard = at; at += 40;
    V->o_ctake = at; at += 40;
    V->o_stock = at; at += 1;
    V->o_hsize = at; at += np;
    V->o_escobas = at; at += ns;
    V->o_to_play = at; at += np;
    V->o_dealer = at; at += np;
    V->o_phase = at; at += 3;
    V->obs_size = at;
}

/* 40 bytes of 0/1 at `out`, one per card of `mask` */
static inline void esc_vec_put_mask(int8_t *out, uint64_t mask) {
    for (int k = 0; k < 5; k++) {
        const uint64_t w = esc_vec_bytes[(mask >> (8 * k)) & 255u];
        memcpy(out + 8 * k, &w, 8);
    }
}

/* ---------- counting the captures a decision can still become ---------- */

/* how many subsets of `cards` sum to `need` (1..14; 0 -> 1, the empty subset) */
static inline uint64_t esc_vec_count_subsets(uint64_t cards, int need) {
    uint64_t cnt[15] = {1};
    while (cards) {
        const int v = esc_val[__builtin_ctzll(cards)];
        cards &= cards - 1;
        for (int s = 14; s >= v; s--) cnt[s] += cnt[s - v];
    }
    return cnt[need];
}

static inline uint64_t esc_vec_above(int t) { return t >= 39 ? 0 : ~((2ULL << t) - 1); }

/* table cards that can come next: t above the last chosen card with value <= rem and the rest
 * (rem - value) made up of cards above t */
static inline uint64_t esc_vec_next_cards(uint64_t table, uint64_t chosen, int rem) {
    uint64_t pool = chosen ? table & esc_vec_above(63 - __builtin_clzll(chosen)) : table;
    uint64_t out = 0, p = pool;
    while (p) {
        const int t = __builtin_ctzll(p);
        p &= p - 1;
        const int v = esc_val[t];
        if (v > rem) continue;
        if (v == rem || ((esc_reach_of(pool & esc_vec_above(t)) >> (rem - v)) & 1)) out |= 1ULL << t;
    }
    return out;
}

/* the unique subset of `cards` summing to `need` (the caller counted exactly one) */
static inline uint64_t esc_vec_unique_subset(uint64_t cards, int need) {
    uint64_t out = 0, p = cards;
    while (need > 0 && p) {
        const int t = __builtin_ctzll(p);
        p &= p - 1;
        const int v = esc_val[t];
        if (v <= need && esc_vec_count_subsets(p, need - v) > 0) { out |= 1ULL << t; need -= v; }
    }
    return out;
}

/* ---------- the learner's turn ---------- */

/* the cards the learner may play (its legal moves' cards) */
static inline uint64_t esc_vec_legal_cards(const esc_hand *h, int seat) {
    const uint64_t hand = h->hands[seat];
    const uint64_t cap = esc_capturing_cards(h->reach, hand);
    return (h->R->capture == ESC_CAPTURE_ANY && cap) ? cap : hand;
}

/* the decision's table (blow: without the laid card) */
static inline uint64_t esc_vec_decision_table(const esc_vec_env *e) {
    return e->phase == ESC_VEC_BLOW ? e->h.table & ~(1ULL << e->card) : e->h.table;
}

static inline void esc_vec_write_mask(const esc_vec *V, const esc_vec_env *e, int8_t *mask) {
    memset(mask, 0, ESC_VEC_N_ACTIONS);
    if (e->phase == ESC_VEC_DONE) return;
    if (e->phase == ESC_VEC_CARD) {
        esc_vec_put_mask(mask, esc_vec_legal_cards(&e->h, V->learner));
        return;
    }
    esc_vec_put_mask(mask + ESC_VEC_TAKE, esc_vec_next_cards(esc_vec_decision_table(e), e->chosen, e->rem));
    if (!e->chosen) {
        if (e->phase == ESC_VEC_BLOW) mask[ESC_VEC_NO_BLOW] = 1;
        else if (e->lay_ok) mask[ESC_VEC_LAY] = 1;
    }
}

static inline void esc_vec_write_obs(const esc_vec *V, const esc_vec_env *e, int8_t *o) {
    const esc_hand *h = &e->h;
    const esc_rules *R = &V->R;
    const int me = V->learner, np = R->players, ns = R->n_sides, my_side = esc_side(R, me);
    memset(o, 0, (size_t)V->obs_size);
    esc_vec_put_mask(o + V->o_hand, h->hands[me]);
    esc_vec_put_mask(o + V->o_table, h->table);
    for (int s = 0; s < ns; s++) {
        const int rel = (s - my_side + ns) % ns;
        esc_vec_put_mask(o + V->o_pile + 40 * rel, h->piles[s]);
        o[V->o_escobas + rel] = (int8_t)h->escobas[s];
    }
    esc_vec_put_mask(o + V->o_played, e->played);
    if (e->phase == ESC_VEC_BLOW) o[V->o_blow + e->card] = 1;
    if (e->phase == ESC_VEC_TAKE_PHASE) o[V->o_ccard + e->card] = 1;
    if (e->phase == ESC_VEC_BLOW || e->phase == ESC_VEC_TAKE_PHASE) esc_vec_put_mask(o + V->o_ctake, e->chosen);
    o[V->o_stock] = (int8_t)(40 - h->pos);
    for (int s = 0; s < np; s++) o[V->o_hsize + (s - me + np) % np] = (int8_t)__builtin_popcountll(h->hands[s]);
    if (e->phase != ESC_VEC_DONE) {
        o[V->o_to_play] = 1; /* the learner is always the seat to play when it is asked */
        o[V->o_phase + e->phase] = 1;
    }
    o[V->o_dealer + (h->dealer - me + np) % np] = 1;
}

/* the end of the hand: leftovers to the last capturer, the learner's reward (own side minus the
 * mean of the other sides, as actions.hand_returns) */
static inline void esc_vec_finish(const esc_vec *V, esc_vec_env *e) {
    esc_hand *h = &e->h;
    const esc_rules *R = &V->R;
    esc_hand_result res;
    const int leftovers = __builtin_popcountll(h->table);
    if (h->last_capturer >= 0) {
        h->piles[esc_side(R, h->last_capturer)] |= h->table;
        h->table = 0; /* taken, as the reference engine shows the final table */
    }
    esc_score(h, leftovers, &res);
    const int my_side = esc_side(R, V->learner);
    int others = 0;
    for (int s = 0; s < R->n_sides; s++) if (s != my_side) others += res.side[ESC_C_TOTAL][s];
    /* in double, then rounded once: the reference backend's float64 margin stored as float32 */
    e->reward = (float)((double)res.side[ESC_C_TOTAL][my_side] - (double)others / (double)(R->n_sides - 1));
    e->phase = ESC_VEC_DONE;
}

/* a blow open to `seat` (pending laid card), decided by its strategy */
static inline void esc_vec_strategy_blow(esc_vec *V, esc_vec_env *e, int seat) {
    esc_hand *h = &e->h;
    const uint64_t pbit = 1ULL << h->pending;
    esc_tbl t;
    esc_tbl_init(&t, h->table & ~pbit);
    const uint64_t take = esc_decide_blow(&V->players[seat], h, seat, &t, h->pending, &e->rng);
    if (take) {
        h->table &= ~(take | pbit);
        h->reach = esc_reach_of(h->table);
        h->piles[esc_side(&V->R, seat)] |= take | pbit;
        h->last_capturer = seat;
    }
    h->pending = -1;
}

/* play `mv` for `seat` (cap: its capturing cards before the move); returns the next seat, -1 at the end */
static inline int esc_vec_play(const esc_vec *V, esc_hand *h, int seat, esc_move mv, uint64_t cap) {
    esc_apply_move(h, seat, esc_side(&V->R, seat), mv, cap, V->R.soplar, V->R.deal == ESC_DEAL_DRAW, V->infer);
    return esc_next_seat(h, seat);
}

/* play the other seats from `seat` until the learner has a decision or the hand ends */
static inline void esc_vec_advance(esc_vec *V, esc_vec_env *e, int seat) {
    esc_hand *h = &e->h;
    while (seat >= 0 && seat != V->learner) {
        if (h->pending >= 0) esc_vec_strategy_blow(V, e, seat);
        esc_tbl t;
        t.mask = h->table;
        t.reach = h->reach;
        const uint64_t cap = esc_capturing_cards(h->reach, h->hands[seat]);
        const esc_move mv = esc_decide_move(&V->players[seat], h, seat, &t, h->hands[seat], cap, &e->rng);
        e->played |= 1ULL << mv.card;
        seat = esc_vec_play(V, h, seat, mv, cap);
    }
    if (seat < 0) {
        esc_vec_finish(V, e);
        return;
    }
    e->chosen = 0;
    if (h->pending >= 0) {
        e->phase = ESC_VEC_BLOW;
        e->card = h->pending;
        e->rem = 15 - esc_val[h->pending];
    } else {
        e->phase = ESC_VEC_CARD;
        e->card = -1;
    }
}

static inline void esc_vec_deal(esc_vec *V, esc_vec_env *e, uint64_t game) {
    esc_rng deck_rng = { esc_stream_state(V->seed, game, 0, ESC_STREAM_DECK) };
    e->game = game;
    esc_shuffle(&deck_rng, e->h.deck);
    const int dealer = (int)(game % (uint64_t)V->R.players);
    esc_deal(&e->h, &V->R, dealer);
    if (V->infer) { e->plays.n = 0; e->h.plays = &e->plays; }
    e->rng.state = esc_stream_state(V->seed, game, 0, ESC_STREAM_PLAY);
    e->played = 0;
    e->reward = 0.0f;
    esc_vec_advance(V, e, esc_next_seat(&e->h, dealer));
}

/* the learner plays `mv` (cap: its capturing cards before the move) */
static inline void esc_vec_learner_play(esc_vec *V, esc_vec_env *e, esc_move mv) {
    esc_hand *h = &e->h;
    const int me = V->learner;
    const uint64_t cap = esc_capturing_cards(h->reach, h->hands[me]);
    e->played |= 1ULL << mv.card;
    esc_vec_advance(V, e, esc_vec_play(V, h, me, mv, cap));
}

/* the learner's blow (take: the table cards taken with the laid card; 0 = none) */
static inline void esc_vec_learner_blow(esc_vec *V, esc_vec_env *e, uint64_t take) {
    esc_hand *h = &e->h;
    if (take) {
        const uint64_t pbit = 1ULL << h->pending;
        h->table &= ~(take | pbit);
        h->reach = esc_reach_of(h->table);
        h->piles[esc_side(&V->R, V->learner)] |= take | pbit;
        h->last_capturer = V->learner;
    }
    h->pending = -1;
    e->phase = ESC_VEC_CARD;
    e->card = -1;
    e->chosen = 0;
}

/* whether `a` is legal for env `e` now */
static inline int esc_vec_is_legal(const esc_vec *V, const esc_vec_env *e, int64_t a) {
    if (e->phase == ESC_VEC_DONE) return 1; /* ignored: the env resets (autoreset, next step) */
    if (a < 0 || a >= ESC_VEC_N_ACTIONS) return 0;
    if (e->phase == ESC_VEC_CARD) return a < 40 && ((esc_vec_legal_cards(&e->h, V->learner) >> a) & 1);
    if (a == ESC_VEC_NO_BLOW) return e->phase == ESC_VEC_BLOW && !e->chosen;
    if (a == ESC_VEC_LAY) return e->phase == ESC_VEC_TAKE_PHASE && !e->chosen && e->lay_ok;
    if (a < ESC_VEC_TAKE) return 0;
    return (int)((esc_vec_next_cards(esc_vec_decision_table(e), e->chosen, e->rem) >> (a - ESC_VEC_TAKE)) & 1);
}

/* apply a legal action of the learner */
static inline void esc_vec_apply(esc_vec *V, esc_vec_env *e, int a) {
    esc_hand *h = &e->h;
    if (e->phase == ESC_VEC_CARD) {
        const int need = 15 - esc_val[a];
        const int can = (int)((esc_capturing_cards(h->reach, 1ULL << a) >> a) & 1);
        const uint64_t n_opts = can ? esc_vec_count_subsets(h->table, need) : 0;
        const int lay_ok = !can || V->R.capture == ESC_CAPTURE_OPTIONAL;
        if (n_opts + (uint64_t)lay_ok == 1) {
            esc_move mv = { a, n_opts ? esc_vec_unique_subset(h->table, need) : 0 };
            esc_vec_learner_play(V, e, mv);
            return;
        }
        e->phase = ESC_VEC_TAKE_PHASE;
        e->card = a;
        e->chosen = 0;
        e->rem = need;
        e->lay_ok = lay_ok;
        return;
    }
    if (a == ESC_VEC_NO_BLOW) { esc_vec_learner_blow(V, e, 0); return; }
    if (a == ESC_VEC_LAY) { esc_move mv = { e->card, 0 }; esc_vec_learner_play(V, e, mv); return; }
    const int t = a - ESC_VEC_TAKE;
    const uint64_t table = esc_vec_decision_table(e);
    e->chosen |= 1ULL << t;
    e->rem -= esc_val[t];
    const uint64_t rest = table & esc_vec_above(t);
    if (e->rem == 0 || esc_vec_count_subsets(rest, e->rem) == 1) {
        const uint64_t take = e->chosen | (e->rem ? esc_vec_unique_subset(rest, e->rem) : 0);
        if (e->phase == ESC_VEC_BLOW) {
            esc_vec_learner_blow(V, e, take);
        } else {
            esc_move mv = { e->card, take };
            esc_vec_learner_play(V, e, mv);
        }
    }
}

/* reset every env: env i deals game first_game + i */
static inline void esc_vec_reset_all(esc_vec *V, uint64_t first_game, int8_t *obs, int8_t *mask) {
    for (int i = 0; i < V->n_envs; i++) {
        esc_vec_env *e = &V->envs[i];
        esc_vec_deal(V, e, first_game + (uint64_t)i);
        esc_vec_write_obs(V, e, obs + (size_t)i * V->obs_size);
        esc_vec_write_mask(V, e, mask + (size_t)i * ESC_VEC_N_ACTIONS);
    }
}

/* one step of every env; returns -1, or the index of the first env whose action is illegal
 * (then nothing has moved). An env whose hand ended last step deals its next game (game + n_envs)
 * and ignores its action (Gymnasium's next-step autoreset). */
static inline int64_t esc_vec_step(esc_vec *V, const int64_t *actions, int8_t *obs, int8_t *mask, float *reward,
                                   uint8_t *terminated) {
    for (int i = 0; i < V->n_envs; i++)
        if (!esc_vec_is_legal(V, &V->envs[i], actions[i])) return i;
    for (int i = 0; i < V->n_envs; i++) {
        esc_vec_env *e = &V->envs[i];
        if (e->phase == ESC_VEC_DONE) {
            esc_vec_deal(V, e, e->game + (uint64_t)V->n_envs);
            reward[i] = 0.0f;
            terminated[i] = 0;
        } else {
            esc_vec_apply(V, e, (int)actions[i]);
            terminated[i] = e->phase == ESC_VEC_DONE;
            reward[i] = terminated[i] ? e->reward : 0.0f;
        }
        esc_vec_write_obs(V, e, obs + (size_t)i * V->obs_size);
        esc_vec_write_mask(V, e, mask + (size_t)i * ESC_VEC_N_ACTIONS);
    }
    return -1;
}

#endif
