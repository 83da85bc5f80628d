/* Reading the other hands: the posterior over what each other seat holds, given everything public and
 * the moves it made this round (docs/ismcts.md, Reading the other hands). ismcts' infer = 2 draws its
 * determinizations from it, the evaluator (the hint) too, and hands.reading shows it to the player.
 *
 * Why only this round: hands are refilled from a shuffled stock and every earlier card is public, so
 * before a seat's first move of a round every holding of the cards the reader cannot see is equally
 * likely. Each move of the round is then weighed by the opponent model, the probability that a seat
 * holding those cards plays that move:
 *     P(move | held) = (1 - uniform) * softmax(score / temperature) + uniform / (legal moves)
 * where score is the hand-set heuristic's score of each legal option from that seat's own view
 * (esc_ismcts_scores: cards, oros, sevens, the 7 of oros, escobas, minus the risk of the table left;
 * its unseen cards are the ones it could not see then). A move illegal for a holding (capture=any: a lay
 * while another card captured) has probability 0, so the hard voids are the limit of this reading.
 * temperature 0 is the heuristic's own choice (ties shared). The holding before a move is the one now
 * plus the cards the seat played since, so the weight of a holding is a product over its moves.
 *
 * Two players: every holding of the other seat is enumerated (at most C(33, 2) = 528 once it has moved
 * with 3-card hands; ESC_READ_EXACT_MAX bounds it) and weighed exactly. More seats, teams (a partner is
 * read like an opponent) and large hands: sampling importance resampling, ESC_READ_SAMPLES uniform deals
 * of the unseen cards weighed by the product of every read seat's weights. Under deal=draw a seat draws
 * an unknown card after each move, so only moves made once the stock is empty are read (a play is this
 * round's when the stock has not moved since: esc_play.pos == h->pos).
 * Everything is static inline with the prefix esc_read_; it uses the legal moves, option scores and
 * determinizations of escoba_ismcts_moves.h (shared with the search, escoba_ismcts.h, which includes this file).
 */
#ifndef ESCOBA_READING_H
#define ESCOBA_READING_H

#include <math.h>
#include <stdlib.h>
#include "escoba_ismcts_moves.h"

#define ESC_READ_EXACT_MAX 6000 /* two players: holdings enumerated up to this many (else sampled) */
#define ESC_READ_SAMPLES 1024   /* deals weighed when the holdings are not enumerated */

/* the opponent model: softmax temperature in the heuristic's score units, and the share of uniform play */
typedef struct { double temperature, uniform; } esc_read_model;

/* a posterior: n candidate deals of the other hands (cand[i * ESC_MAX_SEATS + s]: seat s's cards, 0 for
 * the reader), cum[i] the cumulative weight up to candidate i */
typedef struct {
    int n;
    uint64_t *cand;
    double *cum;
} esc_reading;

static inline void esc_read_free(esc_reading *r) {
    free(r->cand); free(r->cum);
    r->cand = NULL; r->cum = NULL; r->n = 0;
}

/* the moves seat `s` made this round (at most `cap`), in order; their count */
static inline int esc_read_plays(const esc_hand *h, int s, const esc_play **out, int cap) {
    int k = 0;
    if (h->plays == NULL) return 0;
    for (int i = 0; i < h->plays->n && k < cap; i++) {
        const esc_play *p = &h->plays->m[i];
        if (p->seat == s && p->pos == h->pos) out[k++] = p;
    }
    return k;
}

/* the model's probability that p's seat, holding `held` just before it (p's card among them), plays p */
static inline double esc_read_likelihood(const esc_hand *h, const esc_play *p, uint64_t held, const esc_read_model *m) {
    esc_hand e;
    memset(&e, 0, sizeof e);
    e.R = h->R;
    e.table = p->table;
    e.reach = esc_reach_of(p->table);
    e.pending = -1;
    e.hands[p->seat] = held;
    e.piles[0] = p->seen; /* only their union is read: the cards the seat could see */
    esc_move moves[ESC_ISMCTS_MAX_MOVES];
    const int n = esc_ismcts_legal(&e, held, moves);
    int at = -1;
    for (int i = 0; i < n && at < 0; i++)
        if (moves[i].card == p->card && moves[i].take == p->take) at = i;
    if (at < 0) return 0.0; /* illegal with this holding */
    if (n == 1) return 1.0;
    double score[ESC_ISMCTS_MAX_MOVES];
    esc_ismcts_scores(&e, p->seat, moves, n, 0, score);
    double top = score[0];
    for (int i = 1; i < n; i++) if (score[i] > top) top = score[i];
    double pi;
    if (m->temperature <= 0) {
        int ties = 0;
        for (int i = 0; i < n; i++) ties += score[i] == top;
        pi = score[at] == top ? 1.0 / ties : 0.0;
    } else {
        double z = 0.0;
        for (int i = 0; i < n; i++) z += exp((score[i] - top) / m->temperature);
        pi = exp((score[at] - top) / m->temperature) / z;
    }
    return (1.0 - m->uniform) * pi + m->uniform / n;
}

/* the weight of seat s holding `holding` now, given its first `upto` moves of `np` this round (the
 * cards of all np moves were held before each of them) */
static inline double esc_read_weight(const esc_hand *h, uint64_t holding, const esc_play *const *plays, int np,
                                     int upto, const esc_read_model *m) {
    double w = 1.0;
    uint64_t later = 0;
    for (int j = np - 1; j >= 0; j--) {
        later |= 1ULL << plays[j]->card;
        if (j < upto) {
            w *= esc_read_likelihood(h, plays[j], holding | later, m);
            if (w == 0.0) break;
        }
    }
    return w;
}

static inline double esc_read_choose(int n, int k) {
    double c = 1.0;
    if (k < 0 || k > n) return 0.0;
    for (int i = 0; i < k; i++) c = c * (n - i) / (i + 1);
    return c;
}

/* The posterior of `seat` (the reader) over the other hands, from each other seat's first `upto` moves
 * this round (-1: all). unseen: the cards the reader cannot see. Returns 1 with r filled (free it with
 * esc_read_free), 0 when nothing is read (no other seat has moved this round, or no candidate explains
 * the moves: the caller deals as before), -1 when memory runs out. `rng` draws the sampled deals. */
static inline int esc_read_build(esc_reading *r, const esc_hand *h, int seat, const uint8_t *unseen, int n_unseen,
                                 const esc_read_model *m, int upto, esc_rng *rng) {
    const int P = h->R->players;
    const esc_play *plays[ESC_MAX_SEATS][40];
    int np[ESC_MAX_SEATS] = {0}, any = 0;
    r->n = 0; r->cand = NULL; r->cum = NULL;
    for (int s = 0; s < P; s++) {
        if (s == seat || !h->hands[s]) continue;
        np[s] = esc_read_plays(h, s, plays[s], 40);
        any |= np[s] > 0 && upto != 0;
    }
    if (!any) return 0;
    const int lim = upto < 0 ? 40 : upto;
    const int other = 1 - seat, k = P == 2 ? __builtin_popcountll(h->hands[other]) : 0;
    const int exact = P == 2 && esc_read_choose(n_unseen, k) <= ESC_READ_EXACT_MAX;
    const int cap = exact ? (int)esc_read_choose(n_unseen, k) : ESC_READ_SAMPLES;
    r->cand = (uint64_t *)malloc(sizeof(uint64_t) * ESC_MAX_SEATS * (size_t)cap);
    r->cum = (double *)malloc(sizeof(double) * (size_t)cap);
    if (r->cand == NULL || r->cum == NULL) { esc_read_free(r); return -1; }
    double total = 0.0;
    int n = 0;
    if (exact) { /* every k-subset of the unseen cards, in lexicographic order of their indices */
        int idx[40];
        for (int i = 0; i < k; i++) idx[i] = i;
        while (n < cap) {
            uint64_t x = 0;
            for (int i = 0; i < k; i++) x |= 1ULL << unseen[idx[i]];
            uint64_t *c = &r->cand[(size_t)n * ESC_MAX_SEATS];
            memset(c, 0, sizeof(uint64_t) * ESC_MAX_SEATS);
            c[other] = x;
            total += esc_read_weight(h, x, plays[other], np[other], lim, m);
            r->cum[n++] = total;
            int i = k - 1;
            while (i >= 0 && idx[i] == n_unseen - k + i) i--;
            if (i < 0) break;
            idx[i]++;
            for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
        }
    } else { /* uniform deals, weighed */
        esc_hand d;
        for (; n < cap; n++) {
            esc_ismcts_determinize(&d, h, seat, unseen, n_unseen, rng);
            uint64_t *c = &r->cand[(size_t)n * ESC_MAX_SEATS];
            double w = 1.0;
            for (int s = 0; s < ESC_MAX_SEATS; s++) {
                c[s] = s < P && s != seat ? d.hands[s] : 0;
                if (s < P && np[s] && w > 0.0) w *= esc_read_weight(h, c[s], plays[s], np[s], lim, m);
            }
            total += w;
            r->cum[n] = total;
        }
    }
    r->n = n;
    if (!(total > 0.0)) { esc_read_free(r); return 0; }
    return 1;
}

/* a candidate drawn in proportion to its weight */
static inline int esc_read_pick(const esc_reading *r, esc_rng *rng) {
    const double x = (double)(esc_next(rng) >> 11) * 0x1.0p-53 * r->cum[r->n - 1];
    int lo = 0, hi = r->n - 1;
    while (lo < hi) { /* the first candidate whose cumulative weight exceeds x */
        const int mid = (lo + hi) / 2;
        if (r->cum[mid] > x) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/* a determinization from the posterior: the other hands from a candidate drawn by weight, the rest of
 * the unseen cards shuffled into the stock */
static inline void esc_read_deal(esc_hand *d, const esc_hand *h, int seat, const esc_reading *r,
                                 const uint8_t *unseen, int n_unseen, esc_rng *rng) {
    const uint64_t *c = &r->cand[(size_t)esc_read_pick(r, rng) * ESC_MAX_SEATS];
    *d = *h;
    uint64_t used = 0;
    for (int s = 0; s < h->R->players; s++) {
        if (s == seat) continue;
        d->hands[s] = c[s];
        used |= c[s];
    }
    uint8_t rest[40];
    int k = 0;
    for (int i = 0; i < n_unseen; i++)
        if (!((used >> unseen[i]) & 1)) rest[k++] = unseen[i];
    uint8_t u[40];
    esc_ismcts_shuffle(u, rest, k, rng);
    memcpy(d->deck + h->pos, u, (size_t)k);
}

/* What the reader `seat` may believe of each other seat s (others 0): card[s * 40 + c] = the
 * probability that s holds card c, value[s * 11 + v] (v = 1..10) = that it holds at least one card of
 * value v, from each seat's first `upto` moves this round (-1: all; 0: none, the uniform prior). Exact
 * for two players (and for any seat without a read move: the hypergeometric prior), sampled otherwise.
 * Returns 1 when a move was read, 0 when the prior is shown, -1 when memory runs out. */
static inline int esc_read_marginals(const esc_hand *h, int seat, const esc_read_model *m, int upto, uint64_t seed,
                                     double *card, double *value) {
    const int P = h->R->players;
    const uint64_t unseen_mask = esc_unseen(h, seat);
    uint8_t unseen[40];
    int n_unseen = 0, per_value[11] = {0};
    for (uint64_t x = unseen_mask; x; x &= x - 1) {
        const int c = __builtin_ctzll(x);
        unseen[n_unseen++] = (uint8_t)c;
        per_value[esc_val[c]]++;
    }
    memset(card, 0, sizeof(double) * ESC_MAX_SEATS * 40);
    memset(value, 0, sizeof(double) * ESC_MAX_SEATS * 11);
    esc_rng rng = { seed };
    esc_reading r;
    const int rc = esc_read_build(&r, h, seat, unseen, n_unseen, m, upto, &rng);
    if (rc < 0) return -1;
    for (int s = 0; s < P; s++) { /* the prior: every holding of the unseen cards equally likely */
        if (s == seat) continue;
        const int k = __builtin_popcountll(h->hands[s]);
        for (int i = 0; i < n_unseen && n_unseen; i++) card[s * 40 + unseen[i]] = (double)k / n_unseen;
        const double all = esc_read_choose(n_unseen, k);
        for (int v = 1; v <= 10; v++)
            value[s * 11 + v] = all > 0 ? 1.0 - esc_read_choose(n_unseen - per_value[v], k) / all : 0.0;
    }
    if (rc == 0) return 0;
    /* the seats the posterior reads: with two players the other one; with more, every other seat
     * (the sampled deals are joint: a seat without moves is still shifted by the others' readings) */
    const double total = r.cum[r.n - 1];
    for (int s = 0; s < P; s++) {
        if (s == seat) continue;
        for (int c = 0; c < 40; c++) card[s * 40 + c] = 0.0;
        for (int v = 1; v <= 10; v++) value[s * 11 + v] = 0.0;
    }
    double prev = 0.0;
    for (int i = 0; i < r.n; i++) {
        const double w = (r.cum[i] - prev) / total;
        prev = r.cum[i];
        if (w == 0.0) continue;
        const uint64_t *c = &r.cand[(size_t)i * ESC_MAX_SEATS];
        for (int s = 0; s < P; s++) {
            if (s == seat) continue;
            uint16_t vals = 0;
            for (uint64_t x = c[s]; x; x &= x - 1) {
                const int cc = __builtin_ctzll(x);
                card[s * 40 + cc] += w;
                vals |= (uint16_t)(1u << esc_val[cc]);
            }
            for (int v = 1; v <= 10; v++) if ((vals >> v) & 1) value[s * 11 + v] += w;
        }
    }
    esc_read_free(&r);
    return 1;
}

/* the model's probability of play p (its seat holding `held` before it): esc_read_likelihood, for the
 * fit of the model (analysis/hand_reading.py) and the tests */
static inline double esc_read_move_probability(const esc_hand *h, const esc_play *p, uint64_t held,
                                               const esc_read_model *m) {
    return esc_read_likelihood(h, p, held, m);
}

/* two players: the posterior probability that the other seat holds exactly `holding` (the study's
 * log-loss of the true holding); -1 when the holdings are not enumerated, -2 when memory runs out */
static inline double esc_read_probability(const esc_hand *h, int seat, const esc_read_model *m, uint64_t holding) {
    const int other = 1 - seat, k = __builtin_popcountll(h->hands[other]);
    const uint64_t unseen_mask = esc_unseen(h, seat);
    uint8_t unseen[40];
    int n_unseen = 0;
    for (uint64_t x = unseen_mask; x; x &= x - 1) unseen[n_unseen++] = (uint8_t)__builtin_ctzll(x);
    if (h->R->players != 2 || esc_read_choose(n_unseen, k) > ESC_READ_EXACT_MAX) return -1.0;
    if ((holding & ~unseen_mask) || __builtin_popcountll(holding) != k) return 0.0;
    esc_rng rng = { 0 }; /* enumerated: nothing is drawn */
    esc_reading r;
    const int rc = esc_read_build(&r, h, seat, unseen, n_unseen, m, -1, &rng);
    if (rc < 0) return -2.0;
    if (rc == 0) return 1.0 / esc_read_choose(n_unseen, k);
    double p = 0.0, prev = 0.0;
    for (int i = 0; i < r.n; i++) {
        if (r.cand[(size_t)i * ESC_MAX_SEATS + other] == holding) { p = r.cum[i] - prev; break; }
        prev = r.cum[i];
    }
    p /= r.cum[r.n - 1];
    esc_read_free(&r);
    return p;
}

#endif
