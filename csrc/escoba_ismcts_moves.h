/* What ismcts' search (escoba_ismcts.h) and the reading of the other hands (escoba_reading.h) share: the
 * turn as the search plays it, the legal moves in docs/engine.md order, the hand-set option scores and
 * the determinizations. Apart from both so that each includes it and neither includes the other.
 * Everything is static inline with the prefix esc_ismcts_.
 */
#ifndef ESCOBA_ISMCTS_MOVES_H
#define ESCOBA_ISMCTS_MOVES_H

#include <stdlib.h>
#include <string.h>
#include "escoba_strategies.h"

/* legal moves kept per position: a 3-card hand on a table of <= 8 cards has
 * far fewer; only huge tables (capture=optional, many lays) can exceed it and
 * then the moves past the cap are not searched (the ones kept are all legal) */
#define ESC_ISMCTS_MAX_MOVES 256

/* ---------- the turn, as esc_play_hand_body plays it ---------- */

/* the pending blow of `seat` taking `take` with the laid card (0: no blow) */
static inline void esc_ismcts_apply_blow(esc_hand *h, int seat, uint64_t take) {
    if (take) {
        const uint64_t pbit = 1ULL << h->pending;
        h->table &= ~(take | pbit);
        h->reach = esc_reach_of(h->table);
        h->piles[esc_side(h->R, seat)] |= take | pbit;
        h->last_capturer = seat;
    }
    h->pending = -1;
}

/* a pending blow is resolved by the seat to play, with greedy's rule */
static inline void esc_ismcts_blow(esc_hand *h, int seat) {
    esc_tbl t;
    esc_tbl_init(&t, h->table & ~(1ULL << h->pending));
    esc_ismcts_apply_blow(h, seat, esc_choose_blow(ESC_GREEDY, &t, h->pending, NULL)); /* greedy draws nothing */
}

/* play `mv` for `seat` (cap: its capturing cards before the move), draw under
 * deal=draw; returns the next seat, -1 at the end of the hand */
static inline int esc_ismcts_play(esc_hand *h, int seat, esc_move mv, uint64_t cap) {
    const esc_rules *R = h->R;
    esc_apply_move(h, seat, esc_side(R, seat), mv, cap, R->soplar, R->deal == ESC_DEAL_DRAW, 0); /* voids: unread */
    return esc_next_seat(h, seat);
}

/* the legal moves of `hand` in docs/engine.md order (card id ascending; a
 * card's captures in mask order, then its lay if legal); returns the count */
static ESC_ALWAYS_INLINE int esc_ismcts_legal(const esc_hand *h, uint64_t hand, esc_move *out) {
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

/* How the search plays (the parameters after iters; docs/ismcts.md). The old
 * search is { c, greedy rollouts, exact 0, blows 0, leaf 0 }. */
enum { ESC_ISMCTS_ROLLOUT_GREEDY = 0, ESC_ISMCTS_ROLLOUT_HEURISTIC = 1 };
typedef struct {
    double c;      /* UCB1 exploration, in points of margin */
    int rollout;   /* the policy that finishes a simulated hand: ESC_ISMCTS_ROLLOUT_* */
    int exact;     /* two players: with an empty stock and at most this many cards in both hands, solve the
                      real decision exactly (the unseen cards are the other hand); 0 = never */
    int blows;     /* 1: blow decisions are searched (tree nodes); 0: greedy's rule everywhere */
    int leaf;      /* two players, a decision with at most this many cards in the stock (-1: none): its
                      simulations end by exact search of their (determinized) deal once its stock is empty
                      with at most `exact` cards in both hands */
    int exploit;   /* with `exact`: 1 chooses among the minimax-optimal options by a perfect-information search
                      averaging over the replies (esc_ismcts_exploit); 0 plays the first optimal one */
    int infer;     /* 1: determinizations respect the values each seat showed it did not hold (esc_hand.voids);
                      2: they are drawn from the posterior over the other hands given their moves this round
                      (escoba_reading.h), with the opponent model below */
    double stop;   /* > 0: the search ends once the runner-up root option could not reach the most visited one's
                      visits even with `stop` times the iterations left (1: the choice can no longer change) */
    double prior;  /* > 0: the hand-set heuristic's view of each option guides the tree: untried options are
                      expanded best first, and UCB adds prior * (score - best sibling's score) / (visits + 1),
                      a progressive bias (Chaslot et al. 2008) that fades as an option's own visits grow */
    double temperature, uniform; /* infer = 2: the opponent model (esc_read_model) */
} esc_ismcts_cfg;

/* the hand-set heuristic weights (strategies/registry.py, _WEIGHTS) that heuristic rollouts play with */
static const double esc_ismcts_rollout_w[ESC_EG_MAX_CARDS] = { 1.0, 1.0, 1.5, 3.0, 4.0, 20.0, 0.5 };

/* `prior`: the hand-set heuristic's score of each option of `cur` in the (determinized) hand `d`, in its
 * own units (escoba_strategies.h: cards, oros, sevens, 7 of oros, escoba, minus risk; a lay keeps), the
 * unseen cards being those `cur` cannot see there; blow options score their capture (no blow: 0) */
static inline void esc_ismcts_scores(const esc_hand *d, int cur, const esc_move *moves, int n, int blow,
                                     double *score) {
    const double *w = esc_ismcts_rollout_w;
    const uint64_t unseen = esc_unseen(d, cur), table = d->table;
    for (int i = 0; i < n; i++) {
        const uint64_t take = moves[i].take;
        if (blow) {
            score[i] = take ? esc_h_capture_score(w, take | 1ULL << d->pending, 0, 0.0) : 0.0;
        } else if (take) {
            score[i] = esc_h_capture_score(w, take | 1ULL << moves[i].card, take == table,
                                           esc_risk(table & ~take, unseen));
        } else {
            score[i] = esc_h_lay_score(w, moves[i].card, esc_risk(table | 1ULL << moves[i].card, unseen));
        }
    }
}

/* a blow node's key: the laid card plus this, so it never equals a move's card */
#define ESC_ISMCTS_BLOW_KEY 64

/* the blow options of the pending card in legal order: [no blow] then its captures in mask order;
 * card = ESC_ISMCTS_BLOW_KEY + the laid card, take = the table cards taken with it (0: no blow) */
static inline int esc_ismcts_blow_options(const esc_hand *h, esc_move *out) {
    const int card = h->pending, key = ESC_ISMCTS_BLOW_KEY + card;
    const uint64_t t = h->table & ~(1ULL << card);
    const int need = 15 - esc_val[card];
    int n = 0;
    out[n].card = key; out[n].take = 0; n++;
    if (__builtin_popcountll(t) <= ESC_SLOT_MAX) {
        ESC_FOR_OPTIONS_SLOTS(t, 1u << need, sub, sum, {
            (void)sum;
            if (n < ESC_ISMCTS_MAX_MOVES) { out[n].card = key; out[n].take = sub; n++; }
        });
    } else {
        esc_suits su; esc_suits_init(&su, t);
        ESC_FOR_OPTIONS_SUITS(&su, need, sub, {
            if (n < ESC_ISMCTS_MAX_MOVES) { out[n].card = key; out[n].take = sub; n++; }
        });
    }
    return n;
}

/* the hand's margin for each side: own total minus the best other side's */
static ESC_ALWAYS_INLINE void esc_ismcts_margins(const esc_hand *h, double *margin) {
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

/* two players, no teams, an empty stock and at most `cards` cards in both hands: the rest of the hand
 * can be solved exactly (esc_eg, escoba_strategies.h) */
static inline int esc_ismcts_solvable(const esc_hand *h, int cards) {
    return cards > 0 && h->R->players == 2 && !h->R->teams && h->pos >= 40
        && __builtin_popcountll(h->hands[0] | h->hands[1]) <= cards;
}

/* the unseen cards in a uniformly shuffled order (u) */
static inline void esc_ismcts_shuffle(uint8_t *u, const uint8_t *unseen, int n_unseen, esc_rng *rng) {
    memcpy(u, unseen, (size_t)n_unseen);
    for (int i = n_unseen - 1; i > 0; i--) {
        const uint32_t j = esc_below(rng, (uint32_t)(i + 1));
        const uint8_t x = u[i]; u[i] = u[j]; u[j] = x;
    }
}

/* deal the cards `seat` cannot see at random into the other hands and the stock */
static inline void esc_ismcts_determinize(esc_hand *d, const esc_hand *h, int seat, const uint8_t *unseen, int n_unseen,
                                          esc_rng *rng) {
    uint8_t u[40];
    esc_ismcts_shuffle(u, unseen, n_unseen, rng);
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

/* the true hands, the stock in a uniformly shuffled order: the view of `oracle:sees=1` (every hand, not the
 * stock order) */
static inline void esc_ismcts_determinize_stock(esc_hand *d, const esc_hand *h, int seat, esc_rng *rng) {
    uint64_t m = 0; /* the stock's cards in card-id order: the deal depends on the set, never on its order */
    for (int p = h->pos; p < 40; p++) m |= 1ULL << h->deck[p];
    uint8_t stock[40];
    int n = 0;
    for (; m; m &= m - 1) stock[n++] = (uint8_t)__builtin_ctzll(m);
    (void)seat;
    uint8_t u[40];
    esc_ismcts_shuffle(u, stock, n, rng);
    *d = *h;
    memcpy(d->deck + h->pos, u, (size_t)n);
}

#endif /* ESCOBA_ISMCTS_MOVES_H */
