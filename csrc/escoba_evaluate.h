/* The evaluator of escoba-sim (escoba_sim/hands/evaluate.py, docs/evaluate.md): the
 * value of every option of one decision, seen from the deciding seat only.
 *
 * A decision is a seat's move (card played, table cards taken) or, under
 * soplar, its blow decision (no blow, or one of the captures the card just
 * laid could have made). An option's value is the hand's points margin at the
 * end of the hand for the decider's side: its hand total minus the best total
 * of the other sides (the scoring of docs/engine.md, leftovers included).
 *
 * Two methods:
 *  - esc_eval_sample: determinized search. Every sample deals the cards the
 *    decider cannot see (not in its hand, not on the table, in no pile) at
 *    random into the other hands (their sizes are public) and the stock
 *    order, then plays EVERY option on that same deal (common random numbers:
 *    the options are compared on the same deals; with `infer`, deals consistent
 *    with the public voids, as ismcts' infer = 1) and finishes the hand by one
 *    iteration of single-observer ISMCTS below that option: the option has its
 *    own tree, grown over the samples by the search's own iteration
 *    (esc_ismcts_iterate in escoba_ismcts.h: UCB1 with availability counts,
 *    exploration c, one expansion per iteration, ismcts' `rollout` policy and
 *    `prior`: the caller passes the ismcts strategy's defaults) and greedy
 *    blows. Each (sample, option) margin is written out, so
 *    the caller computes means, standard errors and paired differences.
 *  - esc_eval_exact: two players, no teams, empty stock: the unseen cards are
 *    exactly the opponent's hand, nothing is hidden, and each option's value
 *    is the exact minimax margin (the `endgame` search of
 *    escoba_strategies.h, both seats playing their best).
 *
 * Not peeking is by construction: the caller passes only the decider's view
 * (other hands as placeholders of the right size: only their sizes are read
 * before they are dealt afresh; no stock order at all), and a sample's deal
 * depends only on the seed and the set of unseen cards (in card-id order).
 * Everything is static inline with the prefix esc_eval_: every compiled module includes this header
 * (csrc.pxd declares the whole core) and only escoba_sim/_core/search.pyx calls it, so the others keep
 * no unused copy.
 */
#ifndef ESCOBA_EVALUATE_H
#define ESCOBA_EVALUATE_H

#include <stdlib.h>
#include "escoba_core.h" /* the hand, capture walks, the endgame search and the ismcts building blocks */

/* play option `o` for `seat` in the determinized hand `d`: a blow decision
 * (blow = 1: take 0 declines) or a move; returns the seat to play next */
static inline int esc_eval_apply(esc_hand *d, int seat, int blow, esc_move o) {
    if (blow) {
        esc_ismcts_apply_blow(d, seat, o.take);
        return seat; /* the blower then plays its turn */
    }
    d->pending = -1;
    return esc_ismcts_play(d, seat, o, esc_capturing_cards(d->reach, d->hands[seat]));
}

/* Determinized search over `samples` deals; out[k * n + i] = the margin of
 * option i on deal k. h: the decider's view (see the header comment; blow = 1:
 * h->pending is the laid card, the options are blows, take 0 = no blow).
 * Returns 0, or -1 when the trees' memory cannot be allocated. */
static inline int esc_eval_sample(const esc_hand *h, int seat, int blow, const esc_move *opts, int n, int samples,
                                  double c, int rollout, double prior, uint64_t seed, int infer,
                                  const esc_read_model *model, int16_t *out) {
    const size_t cap = (size_t)n * (size_t)samples + (size_t)n;
    esc_ismcts_node *pool = (esc_ismcts_node *)malloc(sizeof(esc_ismcts_node) * cap);
    if (pool == NULL) return -1;
    const int side = esc_side(h->R, seat);
    for (int i = 0; i < n; i++) { /* node i: the root of option i's tree */
        pool[i].child = pool[i].sibling = -1;
        pool[i].visits = pool[i].avail = 0;
        pool[i].reward = 0; pool[i].prior = 0;
        pool[i].card = (int8_t)opts[i].card; pool[i].take = opts[i].take;
        pool[i].side = (int8_t)side;
    }
    int32_t n_nodes = n;
    uint64_t known = h->hands[seat] | h->table;
    for (int s = 0; s < ESC_MAX_SEATS; s++) known |= h->piles[s];
    uint8_t unseen[40];
    int n_unseen = 0;
    for (uint64_t m = ~known & ((1ULL << 40) - 1); m; m &= m - 1) unseen[n_unseen++] = (uint8_t)__builtin_ctzll(m);
    esc_rng rng = { seed };
    /* ismcts' rollouts and prior, greedy blows */
    const esc_ismcts_cfg cfg = { c, rollout, 0, 0, -1, 0, 0, 0.0, prior, 0.0, 0.0 };
    double margin[ESC_MAX_SEATS];
    esc_hand deal, d;
    uint64_t forbid[ESC_MAX_SEATS];
    const int inferred = infer && esc_ismcts_forbidden(h, seat, ~known & ESC_ALL_CARDS, forbid);
    esc_reading reading; /* with a model: the posterior over the other hands (as ismcts' infer = 2) */
    const int read = model != NULL && esc_read_build(&reading, h, seat, unseen, n_unseen, model, -1, &rng) == 1;
    for (int k = 0; k < samples && !esc_stopping(); k++) {
        if (read) esc_read_deal(&deal, h, seat, &reading, unseen, n_unseen, &rng);
        else if (inferred) esc_ismcts_determinize_inferred(&deal, h, seat, unseen, n_unseen, forbid, &rng);
        else esc_ismcts_determinize(&deal, h, seat, unseen, n_unseen, &rng);
        for (int i = 0; i < n; i++) {
            d = deal;
            const int cur = esc_eval_apply(&d, seat, blow, opts[i]);
            esc_ismcts_iterate(pool, &n_nodes, (int32_t)cap, &d, cur, i, &cfg, &rng, margin);
            out[(size_t)k * (size_t)n + (size_t)i] = (int16_t)margin[side];
        }
    }
    free(pool);
    if (read) esc_read_free(&reading);
    return 0;
}

/* Exact values (two players, no teams, empty stock: h holds both real hands,
 * the opponent's being the decider's unseen cards): values[i] = the minimax
 * margin of option i for `seat`. */
static inline void esc_eval_exact(const esc_hand *h, int seat, int blow, const esc_move *opts, int n, int *values) {
    esc_ismcts_exact_values(h, seat, blow, opts, n, values);
}

#endif
