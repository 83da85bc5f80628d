/* The `ismcts` strategy of escoba-sim: single-observer information-set Monte
 * Carlo tree search (SO-ISMCTS, Cowling, Powley & Whitehouse 2012, "Information
 * Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)), in plain C on top of the
 * core's hand state, capture walks and greedy decisions (escoba_hand.h,
 * escoba_strategies.h).
 *
 * One decision = `iters` iterations, each of which
 *  1. determinizes: every card the searching seat cannot see (not in its hand,
 *     not on the table, not in any pile) is shuffled and dealt into the other
 *     seats' hands (their sizes are public) and the stock order; partners'
 *     hands are unseen too;
 *  2. descends one tree shared by all determinizations, keyed by moves
 *     (card played, table cards taken), with UCB1 over the children legal in
 *     this determinization; a child's exploration term uses its availability
 *     count (how often it was legal when its parent was visited), not the
 *     parent's visits. Every seat's turns are tree nodes; a node's statistics
 *     are from the side of the seat that made its move, so opponents minimise
 *     and partners help the searching side;
 *  3. expands one untried legal move (drawn uniformly), then
 *  4. finishes the hand with greedy (the core's decision) for every seat: a
 *     greedy rollout is far stronger than a random one and costs about the
 *     same;
 *  5. backs up the hand's points margin: for a node made by side s,
 *     total(s) - max over the other sides of total(o), in points (the exact
 *     hand score of docs/engine.md, leftovers included). `c` is therefore in
 *     points: UCB = mean margin + c * sqrt(ln(availability) / visits).
 * The move played is the root child with the most visits (ties: the first in
 * legal-move order). A decision with one legal move is made without search.
 *
 * Blows (soplar) are not searched: whenever a seat may blow (the searching
 * seat at the real table, and every seat inside determinizations) it blows by
 * greedy's rule (always, best greedy key), which never loses cards.
 *
 * Chance: a decision that searches draws one value from the hand's PLAY stream
 * and seeds a private SplitMix64 with it for all its determinizations and
 * draws, so a hand stays a pure function of (rules, strategies, seed, game,
 * hand) and the PLAY stream advances by exactly one per searched decision.
 * Memory: the node pool (iters + 1 nodes: a root and at most one new node per
 * iteration) is allocated once per decision; nothing is allocated per
 * iteration. If that allocation fails the decision falls back to greedy.
 * More than two players and teams work unchanged (all unseen hands are
 * determinized; the margin is against the best other side).
 * Everything is static inline with the prefix esc_ismcts_.
 */
#ifndef ESCOBA_ISMCTS_H
#define ESCOBA_ISMCTS_H

#include <math.h>
#include <stdlib.h>
#include "escoba_strategies.h"

/* The parameters arrive per seat (esc_player.p: iters, c); their defaults live
 * in escoba_sim/strategies.py (BUILTINS["ismcts"]): iters 1000, c 4. c is in
 * points of margin: margins spread over several points, so the [0,1]-reward
 * habit c ~ 0.7 under-explores; against greedy at 1000 iterations c = 0.5, 1,
 * 2, 4, 8, 16 gave +0.52, +0.57, +1.12, +1.42, +1.39, +1.44 points per hand
 * (duplicate deals, 400 deals each, +-0.16). */
/* legal moves kept per position: a 3-card hand on a table of <= 8 cards has
 * far fewer; only huge tables (capture=optional, many lays) can exceed it and
 * then the moves past the cap are not searched (the ones kept are all legal) */
#define ESC_ISMCTS_MAX_MOVES 256

typedef struct {
    uint64_t take;              /* table cards taken, 0 = lay */
    int32_t child, sibling;     /* first child, next sibling: pool indices, -1 = none */
    int32_t visits, avail;
    double reward;              /* sum of margins from `side`'s point of view */
    int8_t card, side;
} esc_ismcts_node;

/* ---------- the turn, as esc_play_hand_body plays it ---------- */

/* a pending blow is resolved by the seat to play, with greedy's rule */
static inline void esc_ismcts_blow(esc_hand *h, int seat) {
    const uint64_t pbit = 1ULL << h->pending;
    esc_tbl t;
    esc_tbl_init(&t, h->table & ~pbit);
    const uint64_t take = esc_choose_blow(ESC_GREEDY, &t, h->pending, NULL); /* greedy draws nothing */
    if (take) {
        h->table &= ~(take | pbit);
        h->reach = esc_reach_of(h->table);
        h->piles[esc_side(h->R, seat)] |= take | pbit;
        h->last_capturer = seat;
    }
    h->pending = -1;
}

/* play `mv` for `seat` (cap: its capturing cards before the move), draw under
 * deal=draw; returns the next seat, -1 at the end of the hand */
static inline int esc_ismcts_play(esc_hand *h, int seat, esc_move mv, uint64_t cap) {
    const esc_rules *R = h->R;
    const uint64_t cbit = 1ULL << mv.card;
    h->hands[seat] &= ~cbit;
    if (mv.take) {
        const int side = esc_side(R, seat);
        h->table &= ~mv.take;
        h->reach = esc_reach_of(h->table);
        h->piles[side] |= mv.take | cbit;
        h->last_capturer = seat;
        if (!h->table) h->escobas[side]++;
    } else {
        h->table |= cbit;
        h->reach = esc_add_to_reach(h->reach, esc_val[mv.card]);
        if (R->soplar && (cap & cbit)) h->pending = mv.card;
    }
    if (R->deal == ESC_DEAL_DRAW && h->pos < 40) h->hands[seat] |= 1ULL << h->deck[h->pos++];
    return esc_next_seat(h, seat);
}

/* the legal moves of `hand` in docs/engine.md order (card id ascending; a
 * card's captures in mask order, then its lay if legal); returns the count */
static inline int esc_ismcts_legal(const esc_hand *h, uint64_t hand, esc_move *out) {
    const int mode = h->R->capture;
    const uint64_t cap = esc_capturing_cards(h->reach, hand);
    uint64_t cards = (mode == ESC_CAPTURE_ANY && cap) ? cap : hand;
    const int small = __builtin_popcountll(h->table) <= ESC_SLOT_MAX;
    esc_suits su;
    if (!small && cap) esc_suits_init(&su, h->table);
    int n = 0;
    while (cards) {
        const int c = __builtin_ctzll(cards);
        cards &= cards - 1;
        if ((cap >> c) & 1) {
            const int need = 15 - esc_val[c];
            if (small) {
                ESC_FOR_OPTIONS_SLOTS(h->table, 1u << need, sub, sum, {
                    (void)sum;
                    if (n < ESC_ISMCTS_MAX_MOVES) { out[n].card = c; out[n].take = sub; n++; }
                });
            } else {
                ESC_FOR_OPTIONS_SUITS(&su, need, sub, {
                    if (n < ESC_ISMCTS_MAX_MOVES) { out[n].card = c; out[n].take = sub; n++; }
                });
            }
            if (mode != ESC_CAPTURE_OPTIONAL) continue;
        }
        if (n < ESC_ISMCTS_MAX_MOVES) { out[n].card = c; out[n].take = 0; n++; }
    }
    return n;
}

/* ---------- the search ---------- */

/* the hand's margin for each side: own total minus the best other side's */
static inline void esc_ismcts_margins(const esc_hand *h, double *margin) {
    esc_hand_result res;
    esc_hand end = *h;
    const int ns = h->R->n_sides;
    if (end.last_capturer >= 0) end.piles[esc_side(h->R, end.last_capturer)] |= end.table;
    esc_score(&end, __builtin_popcountll(h->table), &res);
    for (int s = 0; s < ns; s++) {
        int best = -32768;
        for (int o = 0; o < ns; o++)
            if (o != s && res.side[ESC_C_TOTAL][o] > best) best = res.side[ESC_C_TOTAL][o];
        margin[s] = (double)(res.side[ESC_C_TOTAL][s] - best);
    }
}

/* deal the cards `seat` cannot see at random into the other hands and the stock */
static inline void esc_ismcts_determinize(esc_hand *d, const esc_hand *h, int seat, const uint8_t *unseen, int n_unseen,
                                          esc_rng *rng) {
    uint8_t u[40];
    memcpy(u, unseen, (size_t)n_unseen);
    for (int i = n_unseen - 1; i > 0; i--) {
        const uint32_t j = esc_below(rng, (uint32_t)(i + 1));
        const uint8_t x = u[i]; u[i] = u[j]; u[j] = x;
    }
    *d = *h;
    int k = 0;
    for (int s = 0; s < h->R->players; s++) {
        if (s == seat) continue;
        uint64_t m = 0;
        for (int i = __builtin_popcountll(h->hands[s]); i > 0; i--) m |= 1ULL << u[k++];
        d->hands[s] = m;
    }
    for (int p = h->pos; p < 40; p++) d->deck[p] = u[k++];
}

/* The move of `seat` (whose turn it is, blow already resolved) in hand `h`:
 * SO-ISMCTS with `iters` iterations and exploration `c`; `rng` is the hand's
 * PLAY stream. With `see_all` every iteration plays the true deal `h` instead
 * of a determinization: perfect-information UCT, for the cheating `oracle`
 * (escoba_oracle.h). */
static ESC_COLD esc_move esc_ismcts_search(const esc_hand *h, int seat, int iters, double c, esc_rng *rng,
                                           int see_all) {
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    const int n_root = esc_ismcts_legal(h, h->hands[seat], moves);
    if (n_root == 1) return moves[0];
    if (iters < 1) iters = 1;
    esc_ismcts_node *pool = (esc_ismcts_node *)malloc(sizeof(esc_ismcts_node) * ((size_t)iters + 1));
    if (pool == NULL) { /* out of memory: play greedy rather than fail the hand */
        esc_tbl t = { h->table, h->reach };
        return esc_key_move(ESC_GREEDY, &t, h->hands[seat], esc_capturing_cards(h->reach, h->hands[seat]));
    }
    esc_rng sub = { esc_next(rng) }; /* the one PLAY draw of this decision */
    const esc_rules *R = h->R;

    /* what the seat cannot see: everything outside its hand, the table and the piles */
    uint64_t known = h->hands[seat] | h->table;
    for (int s = 0; s < ESC_MAX_SEATS; s++) known |= h->piles[s];
    uint8_t unseen[40];
    int n_unseen = 0;
    for (uint64_t m = ~known & ((1ULL << 40) - 1); m; m &= m - 1) unseen[n_unseen++] = (uint8_t)__builtin_ctzll(m);

    int n_nodes = 1;
    pool[0].child = pool[0].sibling = -1;
    pool[0].visits = pool[0].avail = 0;
    pool[0].reward = 0;
    pool[0].card = -1; pool[0].side = -1; pool[0].take = 0;

    int32_t path[64 + 1]; /* a hand has at most 40 plays */
    int32_t matched[ESC_ISMCTS_MAX_MOVES];
    double margin[ESC_MAX_SEATS];
    esc_hand d;
    for (int it = 0; it < iters; it++) {
        if (see_all) d = *h;
        else esc_ismcts_determinize(&d, h, seat, unseen, n_unseen, &sub);
        int node = 0, depth = 0, cur = seat;
        path[depth++] = 0;
        /* selection and expansion */
        while (cur >= 0) {
            if (d.pending >= 0) esc_ismcts_blow(&d, cur);
            const uint64_t hand = d.hands[cur];
            const uint64_t cap = esc_capturing_cards(d.reach, hand);
            const int n = esc_ismcts_legal(&d, hand, moves);
            int n_untried = 0;
            for (int i = 0; i < n; i++) {
                int32_t ch = pool[node].child;
                while (ch >= 0 && !(pool[ch].card == moves[i].card && pool[ch].take == moves[i].take)) ch = pool[ch].sibling;
                matched[i] = ch;
                if (ch >= 0) pool[ch].avail++;
                else n_untried++;
            }
            int pick = -1;
            if (n_untried) {
                if (n_nodes > iters) break; /* pool full (cannot happen: one node per iteration) */
                int k = n_untried > 1 ? (int)esc_below(&sub, (uint32_t)n_untried) : 0;
                for (int i = 0; i < n; i++)
                    if (matched[i] < 0 && k-- == 0) { pick = i; break; }
                const int32_t nw = n_nodes++;
                esc_ismcts_node *x = &pool[nw];
                x->take = moves[pick].take; x->card = (int8_t)moves[pick].card;
                x->side = (int8_t)esc_side(R, cur);
                x->child = -1; x->sibling = pool[node].child; pool[node].child = nw;
                x->visits = 0; x->avail = 1; x->reward = 0;
                node = nw;
                path[depth++] = nw;
                cur = esc_ismcts_play(&d, cur, moves[pick], cap);
                break;
            }
            double best = -1e300;
            for (int i = 0; i < n; i++) {
                const esc_ismcts_node *x = &pool[matched[i]];
                const double u = x->reward / x->visits + c * sqrt(log((double)x->avail) / x->visits);
                if (u > best) { best = u; pick = i; }
            }
            node = matched[pick];
            path[depth++] = node;
            cur = esc_ismcts_play(&d, cur, moves[pick], cap);
        }
        /* rollout: greedy for everyone */
        while (cur >= 0) {
            if (d.pending >= 0) esc_ismcts_blow(&d, cur);
            const uint64_t hand = d.hands[cur];
            const uint64_t cap = esc_capturing_cards(d.reach, hand);
            esc_tbl t = { d.table, d.reach };
            cur = esc_ismcts_play(&d, cur, esc_key_move(ESC_GREEDY, &t, hand, cap), cap);
        }
        esc_ismcts_margins(&d, margin);
        pool[0].visits++;
        for (int i = 1; i < depth; i++) {
            esc_ismcts_node *x = &pool[path[i]];
            x->visits++;
            x->reward += margin[x->side];
        }
    }
    /* the most visited root move, ties to legal-move order */
    const int n = esc_ismcts_legal(h, h->hands[seat], moves);
    int best = 0, best_visits = -1;
    for (int i = 0; i < n; i++) {
        for (int32_t ch = pool[0].child; ch >= 0; ch = pool[ch].sibling) {
            if (pool[ch].card == moves[i].card && pool[ch].take == moves[i].take) {
                if (pool[ch].visits > best_visits) { best_visits = pool[ch].visits; best = i; }
                break;
            }
        }
    }
    free(pool);
    return moves[best];
}

static inline esc_move esc_ismcts_move(const esc_hand *h, int seat, int iters, double c, esc_rng *rng) {
    return esc_ismcts_search(h, seat, iters, c, rng, 0);
}

#endif
