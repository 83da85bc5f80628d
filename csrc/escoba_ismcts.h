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
 *     (card played, table cards taken) and, with `blows`, blow decisions (the
 *     laid card, the table cards taken with it or none), with UCB1 over the
 *     children legal in this determinization; a child's exploration term uses
 *     its availability count (how often it was legal when its parent was
 *     visited), not the parent's visits. Every seat's turns are tree nodes; a
 *     node's statistics are from the side of the seat that made its move, so
 *     opponents minimise and partners help the searching side;
 *  3. expands one untried legal option (drawn uniformly; with `prior`, the
 *     one the hand-set heuristic scores best), then
 *  4. finishes the hand with the rollout policy (greedy, or heuristic with its
 *     hand-set weights) for every seat; with `leaf` (two players) a
 *     simulation whose stock is empty ends by exact minimax of its deal;
 *  5. backs up the hand's points margin: for a node made by side s,
 *     total(s) - max over the other sides of total(o), in points (the exact
 *     hand score of docs/engine.md, leftovers included). `c` is therefore in
 *     points: UCB = mean margin + c * sqrt(ln(availability) / visits).
 * The option played is the root child with the most visits (ties: the first in
 * legal order). A decision with one legal option is made without search.
 * With `exact` (two players, no teams) a decision taken once the stock is
 * empty is solved exactly instead: the other hand is then exactly the unseen
 * cards, so the position is one of perfect information (endgame's minimax,
 * escoba_strategies.h, blows included); with `exploit` every option is solved
 * and perfect-information UCT chooses among the optimal ones (esc_ismcts_exploit).
 * With `infer` the determinizations respect the public voids (esc_hand.voids:
 * values a seat showed it lacks by laying when they would have captured); with infer = 2 they are
 * drawn from the posterior over the other hands given their moves this round (escoba_reading.h).
 *
 * Blows (soplar): with blows = 0 every blow follows
 * greedy's rule (always, best greedy key), at the real table and inside the
 * simulations; with blows = 1 the real blow decision is a search of its own
 * whose root options are the blows, and blows are tree nodes in every search.
 *
 * Chance: a decision that searches draws one value from the hand's PLAY stream
 * and seeds a private SplitMix64 with it for all its determinizations and
 * draws, so a hand stays a pure function of (rules, strategies, seed, game,
 * hand) and the PLAY stream advances by exactly one per searched decision
 * (exact and forced decisions draw nothing; an `exploit` decision draws one
 * only when two or more options are optimal and it searches among them).
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
#include "escoba_ismcts_moves.h" /* the turn, legal moves, option scores, determinizations */
#include "escoba_reading.h"      /* infer = 2: the posterior over the other hands */

/* The parameters arrive per seat (esc_player.p: iters, c, rollout, exact, blows, leaf, exploit, infer, stop,
 * prior; their slots are named at the end of this file, their defaults are in strategies/registry.py
 * and docs/ismcts.md says what each does). c is in
 * points of margin: margins spread over several points, so the [0,1]-reward
 * habit c ~ 0.7 under-explores; against greedy at 1000 iterations c = 0.5, 1,
 * 2, 4, 8, 16 gave +0.52, +0.57, +1.12, +1.42, +1.39, +1.44 points per hand
 * (duplicate deals, 400 deals each, +-0.16). */

typedef struct {
    uint64_t take;              /* table cards taken, 0 = lay */
    int32_t child, sibling;     /* first child, next sibling: pool indices, -1 = none */
    int32_t visits, avail;
    double reward;              /* sum of margins from `side`'s point of view */
    float prior;                /* `prior`: the heuristic's score of this option minus its best sibling's (<= 0),
                                   from the determinization that created the node */
    int8_t card, side;
} esc_ismcts_node;


/* `infer`: the cards each other seat is read not to hold (its voids' values, esc_hand.voids), 0 for a seat
 * with no reading, proved wrong (ESC_VOIDS_OFF), or too few allowed unseen cards to fill its hand; returns
 * whether any seat is constrained */
static inline int esc_ismcts_forbidden(const esc_hand *h, int seat, uint64_t unseen_mask, uint64_t *forbid) {
    int any = 0;
    for (int s = 0; s < h->R->players; s++) {
        forbid[s] = 0;
        const uint16_t v = h->voids[s];
        if (s == seat || (v & ESC_VOIDS_OFF) || !v) continue;
        uint64_t f = 0;
        for (uint64_t m = unseen_mask; m; m &= m - 1) {
            const int c = __builtin_ctzll(m);
            if ((v >> esc_val[c]) & 1) f |= 1ULL << c;
        }
        if (__builtin_popcountll(unseen_mask & ~f) < __builtin_popcountll(h->hands[s])) continue; /* no such deal */
        forbid[s] = f;
        any |= f != 0;
    }
    return any;
}

/* a determinization in which no other seat s holds a card of forbid[s]. Two players: the other hand is
 * the first cards of a uniform shuffle that it may hold and the stock the rest in shuffled order, i.e.
 * uniform over the consistent deals. More seats: uniform deals by rejection (at most 16 tries), then, as
 * the fallback, each seat in turn takes the first cards of a shuffle that it may hold (consistent, not
 * exactly uniform), filling up with any card if too few are left */
static inline void esc_ismcts_determinize_inferred(esc_hand *d, const esc_hand *h, int seat, const uint8_t *unseen,
                                                   int n_unseen, const uint64_t *forbid, esc_rng *rng) {
    const int n = h->R->players;
    if (n > 2) {
        for (int t = 0; t < 16; t++) {
            esc_ismcts_determinize(d, h, seat, unseen, n_unseen, rng);
            int ok = 1;
            for (int s = 0; s < n && ok; s++) ok = s == seat || !(d->hands[s] & forbid[s]);
            if (ok) return;
        }
    }
    uint8_t u[40];
    esc_ismcts_shuffle(u, unseen, n_unseen, rng);
    *d = *h;
    if (n == 2) { /* the same deal as below in one pass (esc_ismcts_forbidden left enough allowed cards) */
        const int other = 1 - seat;
        const uint64_t f = forbid[other];
        int k = __builtin_popcountll(h->hands[other]), p = h->pos;
        uint64_t m = 0;
        for (int i = 0; i < n_unseen; i++) {
            const uint64_t b = 1ULL << u[i];
            if (k && !(f & b)) { m |= b; k--; }
            else d->deck[p++] = u[i];
        }
        d->hands[other] = m;
        return;
    }
    uint64_t used = 0;
    for (int s = 0; s < n; s++) {
        if (s == seat) continue;
        int k = __builtin_popcountll(h->hands[s]);
        uint64_t m = 0;
        for (int pass = 0; pass < 2 && k; pass++) /* pass 1 only when too few allowed cards are left */
            for (int i = 0; i < n_unseen && k; i++) {
                const uint64_t b = 1ULL << u[i];
                if ((used & b) || (!pass && (forbid[s] & b))) continue;
                m |= b; used |= b; k--;
            }
        d->hands[s] = m;
    }
    int p = h->pos;
    for (int i = 0; i < n_unseen; i++) if (!((used >> u[i]) & 1)) d->deck[p++] = u[i];
}

/* log(n) of the UCB term from a table for the availability counts a search meets (n < 4096), filled by
 * log() itself when the core is loaded, so every value is the same bit for bit */
#define ESC_ISMCTS_LOG_N 4096
static double esc_ismcts_log_table[ESC_ISMCTS_LOG_N];
__attribute__((constructor)) static void esc_ismcts_log_init(void) {
    for (int i = 0; i < ESC_ISMCTS_LOG_N; i++) esc_ismcts_log_table[i] = i ? log((double)i) : -INFINITY;
}
static inline double esc_ismcts_log(int n) {
    return n < ESC_ISMCTS_LOG_N ? esc_ismcts_log_table[n] : log((double)n);
}

/* One iteration below `node` of a tree in `pool` (*n_nodes used of `cap_nodes`) in the determinized
 * hand `d`, `cur` to play (-1: the hand is over): selection by UCB1 with availability counts, one
 * expansion (an untried option drawn uniformly from `rng`), a rollout to the end of the hand, and the
 * backup of each side's margin (written to `margin`) into `node` and every node below it on the path.
 * The one loop of the ismcts search (esc_ismcts_search) and the evaluator (escoba_evaluate.h). */
static ESC_COLD void esc_ismcts_iterate(esc_ismcts_node *pool, int32_t *n_nodes, int32_t cap_nodes, esc_hand *d,
                                      int cur, int32_t node, const esc_ismcts_cfg *cfg, esc_rng *rng,
                                      double *margin) {
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    int32_t matched[ESC_ISMCTS_MAX_MOVES];
    int32_t path[2 * 64 + 1]; /* a hand has at most 40 plays and as many blows */
    const esc_rules *R = d->R;
    const double c = cfg->c;
    int depth = 0, solved = 0;
    const int leaf = cfg->leaf >= 0 && 40 - d->pos <= cfg->leaf;
    path[depth++] = node;
    /* selection and expansion */
    while (cur >= 0) {
        /* (never at the start node: its options must get their own statistics) */
        if (depth > 1 && leaf && esc_ismcts_solvable(d, cfg->exact)) { solved = 1; break; }
        const int blow = d->pending >= 0;
        if (blow && !cfg->blows) esc_ismcts_blow(d, cur);
        const int tree_blow = blow && cfg->blows;
        const uint64_t hand = d->hands[cur];
        const uint64_t cap = esc_capturing_cards(d->reach, hand);
        const int n = tree_blow ? esc_ismcts_blow_options(d, moves) : esc_ismcts_legal(d, hand, moves);
        /* each child read once (the pool is large: its nodes are the cache misses), matched to its option */
        for (int i = 0; i < n; i++) matched[i] = -1;
        int n_untried = n;
        for (int32_t ch = pool[node].child; ch >= 0; ch = pool[ch].sibling) {
            const int card = pool[ch].card;
            const uint64_t take = pool[ch].take;
            for (int i = 0; i < n; i++) {
                if (moves[i].card == card && moves[i].take == take) {
                    matched[i] = ch; pool[ch].avail++; n_untried--;
                    break;
                }
            }
        }
        int pick = -1;
        if (n_untried) {
            if (*n_nodes >= cap_nodes) break; /* pool full (cannot happen: one node per iteration) */
            double prior = 0.0;
            if (cfg->prior > 0) { /* the untried option the heuristic likes best (ties: legal order) */
                double score[ESC_ISMCTS_MAX_MOVES], top = -1e300, best = -1e300;
                esc_ismcts_scores(d, cur, moves, n, tree_blow, score);
                for (int i = 0; i < n; i++) {
                    if (score[i] > top) top = score[i];
                    if (matched[i] < 0 && score[i] > best) { best = score[i]; pick = i; }
                }
                prior = best - top;
            } else {
                int k = n_untried > 1 ? (int)esc_below(rng, (uint32_t)n_untried) : 0;
                for (int i = 0; i < n; i++)
                    if (matched[i] < 0 && k-- == 0) { pick = i; break; }
            }
            const int32_t nw = (*n_nodes)++;
            esc_ismcts_node *x = &pool[nw];
            x->take = moves[pick].take; x->card = (int8_t)moves[pick].card;
            x->side = (int8_t)esc_side(R, cur);
            x->child = -1; x->sibling = pool[node].child; pool[node].child = nw;
            x->visits = 0; x->avail = 1; x->reward = 0; x->prior = (float)prior;
            path[depth++] = nw;
            if (tree_blow) esc_ismcts_apply_blow(d, cur, moves[pick].take);
            else cur = esc_ismcts_play(d, cur, moves[pick], cap);
            break;
        }
        double best = -1e300;
        for (int i = 0; i < n; i++) {
            const esc_ismcts_node *x = &pool[matched[i]];
            double u = x->reward / x->visits + c * sqrt(esc_ismcts_log(x->avail) / x->visits);
            if (cfg->prior > 0) u += cfg->prior * (double)x->prior / (double)(x->visits + 1);
            if (u > best) { best = u; pick = i; }
        }
        node = matched[pick];
        path[depth++] = node;
        if (tree_blow) esc_ismcts_apply_blow(d, cur, moves[pick].take);
        else cur = esc_ismcts_play(d, cur, moves[pick], cap);
    }
    /* rollout: the rollout policy for everyone, until the end or an exactly solvable position */
    const int heuristic = cfg->rollout == ESC_ISMCTS_ROLLOUT_HEURISTIC;
    while (cur >= 0 && !solved) {
        if (leaf && esc_ismcts_solvable(d, cfg->exact)) { solved = 1; break; }
        if (d->pending >= 0) {
            if (heuristic) {
                esc_tbl bt;
                esc_tbl_init(&bt, d->table & ~(1ULL << d->pending));
                esc_ismcts_apply_blow(d, cur, esc_heuristic_blow(esc_ismcts_rollout_w, &bt, d->pending));
            } else {
                esc_ismcts_blow(d, cur);
            }
        }
        const uint64_t hand = d->hands[cur];
        const uint64_t cap = esc_capturing_cards(d->reach, hand);
        esc_tbl t = { d->table, d->reach };
        const esc_move mv = heuristic ? esc_heuristic_move(esc_ismcts_rollout_w, d, cur, &t, hand, cap)
                                      : esc_key_move(ESC_GREEDY, &t, hand, cap);
        cur = esc_ismcts_play(d, cur, mv, cap);
    }
    if (solved) { /* the rest of this deal by exact minimax (two players: seat = side) */
        esc_eg s;
        esc_eg_from_hand(&s, d);
        const int v = esc_eg_turn(R, &s, cur, d->pending, -ESC_EG_INF, ESC_EG_INF, 0);
        margin[0] = (double)v; margin[1] = (double)-v;
    } else {
        esc_ismcts_margins(d, margin);
    }
    for (int i = 0; i < depth; i++) {
        esc_ismcts_node *x = &pool[path[i]];
        x->visits++;
        x->reward += margin[x->side];
    }
}

/* `stop`: whether the most visited root option (pool[0]'s children) leads every other by more than `left`
 * visits. With `left` = the iterations left nothing can overtake it (ties go to legal order, so the lead
 * must be strict); with a fraction of them, the search assumes the runner-up would not take more than
 * that share of the rest. Options never tried have 0 visits. */
static inline int esc_ismcts_settled(const esc_ismcts_node *pool, double left) {
    int v1 = 0, v2 = 0;
    for (int32_t ch = pool[0].child; ch >= 0; ch = pool[ch].sibling) {
        const int v = pool[ch].visits;
        if (v > v1) { v2 = v1; v1 = v; }
        else if (v > v2) v2 = v;
    }
    return (double)v2 + left < (double)v1;
}

/* The decision of `seat` in hand `h` (blow = 0: its move, its turn, any blow settled; blow = 1: its blow
 * of the laid card h->pending): SO-ISMCTS with `iters` iterations; `rng` is the hand's PLAY stream.
 * With `see_all` every iteration plays the true deal `h` instead of a determinization:
 * perfect-information UCT, for the cheating `oracle` (escoba_oracle.h); see_all = 2 sees every hand but
 * deals the stock in a random order (`oracle:sees=1`). */
static ESC_COLD esc_move esc_ismcts_search(const esc_hand *h, int seat, int iters, const esc_ismcts_cfg *cfg,
                                           esc_rng *rng, int see_all, int blow) {
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    const int n_root = blow ? esc_ismcts_blow_options(h, moves) : esc_ismcts_legal(h, h->hands[seat], moves);
    if (n_root == 1) return moves[0];
    if (iters < 1) iters = 1;
    esc_ismcts_node *pool = (esc_ismcts_node *)malloc(sizeof(esc_ismcts_node) * ((size_t)iters + 1));
    if (pool == NULL) { /* out of memory: play greedy rather than fail the hand */
        esc_tbl t = { h->table, h->reach };
        if (blow) {
            esc_tbl_init(&t, h->table & ~(1ULL << h->pending));
            esc_move mv = { h->pending, esc_choose_blow(ESC_GREEDY, &t, h->pending, NULL) };
            return mv;
        }
        return esc_key_move(ESC_GREEDY, &t, h->hands[seat], esc_capturing_cards(h->reach, h->hands[seat]));
    }
    esc_rng sub = { esc_next(rng) }; /* the one PLAY draw of this decision */

    /* what the seat cannot see: everything outside its hand, the table and the piles */
    uint64_t known = h->hands[seat] | h->table;
    for (int s = 0; s < ESC_MAX_SEATS; s++) known |= h->piles[s];
    uint8_t unseen[40];
    int n_unseen = 0;
    for (uint64_t m = ~known & ((1ULL << 40) - 1); m; m &= m - 1) unseen[n_unseen++] = (uint8_t)__builtin_ctzll(m);
    uint64_t forbid[ESC_MAX_SEATS];
    const int inferred = cfg->infer && !see_all && esc_ismcts_forbidden(h, seat, ~known & ESC_ALL_CARDS, forbid);
    esc_reading reading;
    const esc_read_model model = { cfg->temperature, cfg->uniform };
    /* nothing read (no other seat has moved this round) or no memory: the voids, as infer = 1 */
    const int read = cfg->infer == 2 && !see_all
        && esc_read_build(&reading, h, seat, unseen, n_unseen, &model, -1, &sub) == 1;

    int32_t n_nodes = 1;
    pool[0].child = pool[0].sibling = -1;
    pool[0].visits = pool[0].avail = 0;
    pool[0].reward = 0;
    pool[0].card = -1; pool[0].side = (int8_t)esc_side(h->R, seat); pool[0].take = 0; pool[0].prior = 0;

    double margin[ESC_MAX_SEATS];
    esc_hand d;
    for (int it = 0; it < iters && !esc_stopping(); it++) {
        if (see_all == 1) d = *h;
        else if (see_all == 2) esc_ismcts_determinize_stock(&d, h, seat, &sub);
        else if (read) esc_read_deal(&d, h, seat, &reading, unseen, n_unseen, &sub);
        else if (inferred) esc_ismcts_determinize_inferred(&d, h, seat, unseen, n_unseen, forbid, &sub);
        else esc_ismcts_determinize(&d, h, seat, unseen, n_unseen, &sub);
        esc_ismcts_iterate(pool, &n_nodes, iters + 1, &d, seat, 0, cfg, &sub, margin);
        if (cfg->stop > 0 && (it & 15) == 15 && esc_ismcts_settled(pool, cfg->stop * (double)(iters - it - 1))) break;
    }
    /* the most visited root option, ties to legal order */
    const int n = blow ? esc_ismcts_blow_options(h, moves) : esc_ismcts_legal(h, h->hands[seat], moves);
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
    if (read) esc_read_free(&reading);
    return moves[best];
}

/* Exact values (two players, no teams, empty stock: h holds both real hands, the opponent's being the
 * decider's unseen cards): values[i] = the minimax margin of option i for `seat` (blow = 1: options are
 * blows of h->pending, take 0 = no blow). The evaluator (escoba_evaluate.h) and `exploit` share it. */
static void esc_ismcts_exact_values(const esc_hand *h, int seat, int blow, const esc_move *opts, int n, int *values) {
    esc_eg s;
    esc_eg_from_hand(&s, h);
    for (int i = 0; i < n; i++) {
        if (blow) {
            esc_eg b = s;
            if (opts[i].take) {
                const uint64_t taken = opts[i].take | 1ULL << h->pending;
                b.table &= ~taken; b.piles[seat] |= taken; b.last = seat;
            }
            values[i] = esc_eg_moves(h->R, &b, seat, -ESC_EG_INF, ESC_EG_INF, seat, NULL);
        } else {
            values[i] = esc_eg_played(h->R, &s, seat, opts[i].card, opts[i].take, -ESC_EG_INF, ESC_EG_INF, seat);
        }
    }
}

/* `exact` with `exploit`: the decision of `seat` in the solvable hand `v` (both real hands: the other
 * one is the unseen cards), blow = 1 for its blow of v->pending. Every root option is solved exactly
 * and only the minimax-optimal ones are kept, so the choice is never worse than minimax; when more than
 * one remains, perfect-information UCT (the exact view is the true deal, no determinization) restricted
 * to them chooses, backing up each simulated hand's margin with greedy rollouts, so among equally good
 * moves it prefers the one whose replies a weaker opponent gets wrong. Chance: like a searched decision,
 * it draws one value from the PLAY stream (`rng`) only when it searches (two or more optimal options). */
static ESC_COLD esc_move esc_ismcts_exploit(const esc_hand *v, int seat, int iters, const esc_ismcts_cfg *cfg,
                                            esc_rng *rng, int blow) {
    /* zeroed: gcc cannot see that esc_ismcts_exact_values reads only the n_all options written and would
     * warn that `moves` may be used uninitialized (the memset is nothing beside the exact search) */
    esc_move moves[ESC_ISMCTS_MAX_MOVES] = {{0}};
    int values[ESC_ISMCTS_MAX_MOVES];
    const int n_all = blow ? esc_ismcts_blow_options(v, moves) : esc_ismcts_legal(v, v->hands[seat], moves);
    esc_ismcts_exact_values(v, seat, blow, moves, n_all, values);
    int best = -ESC_EG_INF, n = 0;
    for (int i = 0; i < n_all; i++) if (values[i] > best) best = values[i];
    for (int i = 0; i < n_all; i++) if (values[i] == best) moves[n++] = moves[i]; /* legal order kept */
    if (n == 1) return moves[0];
    if (iters < 1) iters = 1;
    const int32_t cap_nodes = iters + n;
    esc_ismcts_node *pool = (esc_ismcts_node *)malloc(sizeof(esc_ismcts_node) * (size_t)cap_nodes);
    if (pool == NULL) return moves[0]; /* out of memory: the first optimal option, as exploit = 0 */
    esc_rng sub = { esc_next(rng) }; /* the one PLAY draw of this decision */
    const int side = esc_side(v->R, seat);
    for (int i = 0; i < n; i++) { /* node i: root option i */
        pool[i].child = pool[i].sibling = -1;
        pool[i].visits = pool[i].avail = 0;
        pool[i].reward = 0;
        pool[i].card = (int8_t)moves[i].card; pool[i].take = moves[i].take; pool[i].side = (int8_t)side;
        pool[i].prior = 0;
    }
    int32_t n_nodes = n;
    double margin[ESC_MAX_SEATS];
    esc_hand d;
    for (int it = 0; it < iters && !esc_stopping(); it++) {
        /* UCB1 over the optimal options (all legal every time, so availability = iterations so far);
         * each is tried once first, in legal order */
        int pick = 0;
        if (it < n) {
            pick = it;
        } else {
            double top = -1e300;
            for (int i = 0; i < n; i++) {
                const double u = pool[i].reward / pool[i].visits + cfg->c * sqrt(log((double)it) / pool[i].visits);
                if (u > top) { top = u; pick = i; }
            }
        }
        d = *v;
        int cur = seat;
        if (blow) esc_ismcts_apply_blow(&d, seat, moves[pick].take); /* the blower then plays its move */
        else cur = esc_ismcts_play(&d, seat, moves[pick], esc_capturing_cards(d.reach, d.hands[seat]));
        esc_ismcts_iterate(pool, &n_nodes, cap_nodes, &d, cur, pick, cfg, &sub, margin);
    }
    int top = 0;
    for (int i = 1; i < n; i++) if (pool[i].visits > pool[top].visits) top = i; /* ties: legal order */
    free(pool);
    return moves[top];
}

/* the parameter slots of ismcts: X(SLOT, name) in the order of its parameters in strategies.registry.BUILTINS,
 * checked by name at import (ESC_PARAM_NAMES, escoba_core.h) */
#define ESC_ISMCTS_PARAMS(X) \
    X(ESC_ISMCTS_ITERS, "iters") X(ESC_ISMCTS_C, "c") X(ESC_ISMCTS_ROLLOUT, "rollout") X(ESC_ISMCTS_EXACT, "exact") \
    X(ESC_ISMCTS_BLOWS, "blows") X(ESC_ISMCTS_LEAF, "leaf") X(ESC_ISMCTS_EXPLOIT, "exploit") \
    X(ESC_ISMCTS_INFER, "infer") X(ESC_ISMCTS_STOP, "stop") X(ESC_ISMCTS_PRIOR, "prior") \
    X(ESC_ISMCTS_TEMPERATURE, "temperature") X(ESC_ISMCTS_UNIFORM, "uniform")
enum { ESC_ISMCTS_PARAMS(ESC_ENUM_ID) ESC_N_ISMCTS_PARAMS };

static inline esc_ismcts_cfg esc_ismcts_cfg_of(const double *p) {
    esc_ismcts_cfg cfg = { p[ESC_ISMCTS_C], (int)p[ESC_ISMCTS_ROLLOUT], (int)p[ESC_ISMCTS_EXACT],
                           (int)p[ESC_ISMCTS_BLOWS], (int)p[ESC_ISMCTS_LEAF], (int)p[ESC_ISMCTS_EXPLOIT],
                           (int)p[ESC_ISMCTS_INFER], p[ESC_ISMCTS_STOP], p[ESC_ISMCTS_PRIOR],
                           p[ESC_ISMCTS_TEMPERATURE], p[ESC_ISMCTS_UNIFORM] };
    return cfg;
}

/* the real hand as `seat` can know it once it is solvable: the other hand is exactly the cards `seat`
 * has not seen (nothing is left in the stock), so the exact decisions read nothing hidden */
static inline void esc_ismcts_exact_view(esc_hand *v, const esc_hand *h, int seat) {
    *v = *h;
    v->hands[1 - seat] = ESC_ALL_CARDS & ~(h->hands[seat] | h->table | h->piles[0] | h->piles[1]);
}

/* the move of `seat` (its turn, any blow settled); p: iters, c, rollout, exact, blows, leaf, exploit, infer */
static inline esc_move esc_ismcts_move(const double *p, const esc_hand *h, int seat, esc_rng *rng) {
    const esc_ismcts_cfg cfg = esc_ismcts_cfg_of(p);
    if (esc_ismcts_solvable(h, cfg.exact)) {
        esc_hand v;
        esc_ismcts_exact_view(&v, h, seat);
        if (cfg.exploit) return esc_ismcts_exploit(&v, seat, (int)p[ESC_ISMCTS_ITERS], &cfg, rng, 0);
        esc_eg s;
        esc_eg_from_hand(&s, &v);
        esc_move mv = { -1, 0 };
        esc_eg_moves(h->R, &s, seat, -ESC_EG_INF, ESC_EG_INF, seat, &mv);
        return mv;
    }
    return esc_ismcts_search(h, seat, (int)p[ESC_ISMCTS_ITERS], &cfg, rng, 0, 0);
}

/* the blow of `seat` on the laid `card` (t: the table without it): the table cards taken with it, 0 = no
 * blow; searched (blows = 1) or by greedy's rule, solved exactly once the hand is (exact) */
static inline uint64_t esc_ismcts_blow_decision(const double *p, const esc_hand *h, int seat, const esc_tbl *t,
                                                int card, esc_rng *rng) {
    const esc_ismcts_cfg cfg = esc_ismcts_cfg_of(p);
    if (esc_ismcts_solvable(h, cfg.exact)) {
        esc_hand v;
        esc_ismcts_exact_view(&v, h, seat);
        v.pending = card;
        if (cfg.exploit) return esc_ismcts_exploit(&v, seat, (int)p[ESC_ISMCTS_ITERS], &cfg, rng, 1).take;
        esc_eg s;
        esc_eg_from_hand(&s, &v);
        uint64_t take = 0;
        esc_eg_blow(h->R, &s, seat, card, -ESC_EG_INF, ESC_EG_INF, seat, &take);
        return take;
    }
    if (!cfg.blows) return esc_choose_blow(ESC_GREEDY, t, card, rng);
    esc_hand b = *h;
    b.pending = card;
    return esc_ismcts_search(&b, seat, (int)p[ESC_ISMCTS_ITERS], &cfg, rng, 0, 1).take;
}

#endif
