/* The `oracle` strategy of escoba-sim: it sees every card (all hands and the
 * stock order) and plays the best move it can find for the rest of the hand.
 * It cheats by construction and exists only as a yardstick (how far the fair
 * strategies are from perfect play).
 *
 * With two sides (two players, or two teams) and at most `exact` cards left to
 * play (every hand plus the stock), it solves the rest of the hand exactly:
 * alpha-beta minimax of its side's hand total minus the other side's (the
 * exact hand score, leftovers included), over the true deal, refills and draws
 * included; the first move in legal-move order with the highest value wins.
 * Otherwise it runs perfect-information UCT: the ismcts search
 * (escoba_ismcts.h) with every iteration on the true deal instead of a
 * determinization (`iters` iterations, exploration `c`, greedy rollouts), so
 * its only uncertainty is the other seats' replies. Blows (soplar): in the
 * exact phase they are searched like moves (no blow, or each capture of the
 * laid card, then the blower's move), at the real table and inside the search;
 * in the tree-search phase they follow greedy's rule (always, best greedy key).
 * Everything is static inline with the prefix esc_oracle_.
 */
#ifndef ESCOBA_ORACLE_H
#define ESCOBA_ORACLE_H

#include "escoba_ismcts.h"

/* the parameter slots of oracle: X(SLOT, name) in the order of its parameters in strategies.registry.BUILTINS,
 * checked by name at import (ESC_PARAM_NAMES, escoba_core.h) */
#define ESC_ORACLE_PARAMS(X) \
    X(ESC_ORACLE_EXACT, "exact") X(ESC_ORACLE_ITERS, "iters") X(ESC_ORACLE_C, "c") X(ESC_ORACLE_SEES, "sees") \
    X(ESC_ORACLE_ROLLOUT, "rollout") X(ESC_ORACLE_PRIOR, "prior") X(ESC_ORACLE_STOP, "stop")
enum { ESC_ORACLE_PARAMS(ESC_ENUM_ID) ESC_N_ORACLE_PARAMS };

/* cards still to be played: every hand and the stock */
static inline int esc_oracle_cards_left(const esc_hand *h) {
    int n = 40 - h->pos;
    for (int s = 0; s < h->R->players; s++) n += __builtin_popcountll(h->hands[s]);
    return n;
}

static int esc_oracle_ab(const esc_hand *h, int cur, int me, int alpha, int beta);

/* the value of `h` for side `me` with `cur` to make its move (no blow pending): minimax of its margin
 * with alpha-beta (fail-hard); sides other than `me` minimise */
static int esc_oracle_moves(const esc_hand *d, int cur, int me, int alpha, int beta) {
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    const uint64_t hand = d->hands[cur];
    const uint64_t cap = esc_capturing_cards(d->reach, hand);
    const int n = esc_ismcts_legal(d, hand, moves);
    const int maxing = esc_side(d->R, cur) == me;
    for (int i = 0; i < n; i++) {
        esc_hand e = *d;
        const int next = esc_ismcts_play(&e, cur, moves[i], cap);
        const int v = esc_oracle_ab(&e, next, me, alpha, beta);
        if (maxing) { if (v > alpha) alpha = v; }
        else if (v < beta) beta = v;
        if (alpha >= beta) return maxing ? beta : alpha;
    }
    return maxing ? alpha : beta;
}

/* the value of `h` with `cur` to play (-1: the hand is over) for side `me`; a pending blow (soplar) is
 * searched too: [no blow] and each capture of the laid card, each followed by the blower's move */
static int esc_oracle_ab(const esc_hand *h, int cur, int me, int alpha, int beta) {
    if (esc_stopping()) return alpha; /* a stop request: the value is discarded with the hand */
    if (cur < 0) {
        double margin[ESC_MAX_SEATS];
        esc_ismcts_margins(h, margin);
        return (int)margin[me];
    }
    if (h->pending < 0) return esc_oracle_moves(h, cur, me, alpha, beta);
    esc_move blows[ESC_ISMCTS_MAX_MOVES];
    const int n = esc_ismcts_blow_options(h, blows);
    const int maxing = esc_side(h->R, cur) == me;
    for (int i = 0; i < n; i++) {
        esc_hand e = *h;
        esc_ismcts_apply_blow(&e, cur, blows[i].take);
        const int v = esc_oracle_moves(&e, cur, me, alpha, beta);
        if (maxing) { if (v > alpha) alpha = v; }
        else if (v < beta) beta = v;
        if (alpha >= beta) return maxing ? beta : alpha;
    }
    return maxing ? alpha : beta;
}

/* whether the oracle solves `h` exactly: two sides and at most `exact` cards left to play */
static inline int esc_oracle_exact(const double *p, const esc_hand *h) {
    return h->R->n_sides == 2 && esc_oracle_cards_left(h) <= (int)p[ESC_ORACLE_EXACT] && (p[ESC_ORACLE_SEES] == 0 || h->pos >= 40);
}

/* The move of `seat` (its turn, any blow settled) in the true hand `h`;
 * p: exact (cards left for the exact search), iters, c, sees (0: every hand and the stock order; 1: every
 * hand only: the tree search deals the stock at random and the exact search waits for an empty stock),
 * rollout, prior, stop (ismcts' options of those names: with ismcts' values, the tree search is ismcts'
 * own search seeing the hands, which prices what reading them is worth to it). */
static ESC_COLD esc_move esc_oracle_move(const double *p, const esc_hand *h, int seat, esc_rng *rng) {
    const int iters = (int)p[ESC_ORACLE_ITERS];
    const double c = p[ESC_ORACLE_C];
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    const int n = esc_ismcts_legal(h, h->hands[seat], moves);
    if (n == 1) return moves[0];
    if (!esc_oracle_exact(p, h)) {
        esc_ismcts_cfg cfg = { c, (int)p[ESC_ORACLE_ROLLOUT], 0, 0, -1 };
        cfg.prior = p[ESC_ORACLE_PRIOR];
        cfg.stop = p[ESC_ORACLE_STOP];
        return esc_ismcts_search(h, seat, iters, &cfg, rng, p[ESC_ORACLE_SEES] == 0 ? 1 : 2, 0);
    }
    const int me = esc_side(h->R, seat);
    const uint64_t cap = esc_capturing_cards(h->reach, h->hands[seat]);
    int best = 0, best_v = -1000;
    for (int i = 0; i < n; i++) {
        esc_hand e = *h;
        const int next = esc_ismcts_play(&e, seat, moves[i], cap);
        const int v = esc_oracle_ab(&e, next, me, best_v, 1000);
        if (v > best_v) { best_v = v; best = i; }
    }
    return moves[best];
}

/* The blow of `seat` on the laid `card` (t: the table without it) in the true hand `h`: in the exact
 * phase the best of [no blow] and each capture (the first best in that order), else greedy's rule. */
static ESC_COLD uint64_t esc_oracle_blow(const double *p, const esc_hand *h, int seat, const esc_tbl *t, int card,
                                         esc_rng *rng) {
    if (!esc_oracle_exact(p, h)) return esc_choose_blow(ESC_GREEDY, t, card, rng);
    esc_hand b = *h;
    b.pending = card;
    esc_move blows[ESC_ISMCTS_MAX_MOVES];
    const int n = esc_ismcts_blow_options(&b, blows);
    const int me = esc_side(h->R, seat);
    int best = 0, best_v = -1000;
    for (int i = 0; i < n; i++) {
        esc_hand e = b;
        esc_ismcts_apply_blow(&e, seat, blows[i].take);
        const int v = esc_oracle_moves(&e, seat, me, best_v, 1000);
        if (v > best_v) { best_v = v; best = i; }
    }
    return blows[best].take;
}

#endif
