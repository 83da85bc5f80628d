/* The compiled core of escoba-sim: the dispatch from a seat's strategy to its
 * decision, the loop that plays one hand from its seeded streams, the game
 * loop, and the choice of the POPCNT build at run time; plain C (no Python.h)
 * following docs/engine.md. Last of the headers, which read in one direction:
 *   escoba_common.h  the stop flag, macros, card constants, strategy codes
 *   escoba_rng.h     SplitMix64 streams and the shuffle
 *   escoba_tables.h  cards, capture lookup tables, options, keys, best capture
 *   escoba_hand.h    rules, hand state, deal, refills, scoring
 *   escoba_strategies.h  every strategy's decision but ismcts
 *   escoba_ismcts.h  the ismcts search (greedy rollouts through the hand state)
 *   escoba_oracle.h  the cheating oracle (exact search, perfect-information UCT)
 *   escoba_core.h    this file
 * A seat's strategy is an esc_player: a small int code (ESC_RANDOM ...,
 * escoba_common.h) and a few double parameters in named slots (ESC_PARAM_NAMES
 * below); esc_decide_move / esc_decide_blow switch on the code, one case per
 * strategy, so more can be added. esc_init_tables() must run once before any
 * hand is played.
 */
#ifndef ESCOBA_CORE_H
#define ESCOBA_CORE_H

#include "escoba_oracle.h"

/* ---------- dispatch: one case per strategy ---------- */

/* a level (below): its base strategy, or now and then a random choice */
static ESC_COLD esc_move esc_level_move(const esc_player *pl, const esc_hand *h, int seat, const esc_tbl *t, uint64_t hand,
                                        uint64_t cap, esc_rng *rng);

/* always inlined: as a plain `inline` GCC does not inline it into the turn (ismcts' case is large), and
 * the out-of-line call costs 13% of greedy-maxoros' instructions, 19% of random's.
 * `id` is pl->id, or the seat's strategy as a constant where the caller knows it (the two-seat
 * loop's copies per pairing), so the tests below fold away */
static ESC_ALWAYS_INLINE esc_move esc_decide_move_as(const int id, const esc_player *pl, const esc_hand *h, int seat,
                                                     const esc_tbl *t, uint64_t hand, uint64_t cap, esc_rng *rng) {
    /* the keyed strategies first, each with its key known to the compiler */
    if (id == ESC_GREEDY) return esc_key_move(ESC_GREEDY, t, hand, cap);
    if (id == ESC_MAXOROS) return esc_key_move(ESC_MAXOROS, t, hand, cap);
    if (id == ESC_RANDOM) return esc_random_move(h, t, hand, cap, rng); /* no jump table for it */
    switch (id) {
    case ESC_DEFENSIVE: return esc_defensive_move(h, seat, t, hand, cap);
    case ESC_HEURISTIC: return esc_heuristic_move(pl->p, h, seat, t, hand, cap);
    case ESC_ENDGAME: return esc_endgame_move(pl->p, h, seat, t, hand, cap);
    case ESC_ISMCTS: return esc_ismcts_move(pl->p, h, seat, rng);
    case ESC_ORACLE: return esc_oracle_move(pl->p, h, seat, rng);
    case ESC_LEVEL: return esc_level_move(pl, h, seat, t, hand, cap, rng);
    default: return esc_key_move(id, t, hand, cap); /* greedy, maxoros, sevens */
    }
}

/* a level: one draw below(1000) from the hand's PLAY stream at every decision, move or blow; under `share`,
 * random's choice (drawn from the same stream), else its base strategy's (strategies.reference.LevelStrategy) */
static ESC_COLD esc_move esc_level_move(const esc_player *pl, const esc_hand *h, int seat, const esc_tbl *t,
                                        uint64_t hand, uint64_t cap, esc_rng *rng) {
    if ((int)esc_below(rng, 1000) < pl->share) return esc_random_move(h, t, hand, cap, rng);
    esc_player base = *pl;
    base.id = pl->base; /* never a level: the ladder's bases are plain strategies */
    return esc_decide_move_as(base.id, &base, h, seat, t, hand, cap, rng);
}

static ESC_ALWAYS_INLINE esc_move esc_decide_move(const esc_player *pl, const esc_hand *h, int seat,
                                                  const esc_tbl *t, uint64_t hand, uint64_t cap, esc_rng *rng) {
    return esc_decide_move_as(pl->id, pl, h, seat, t, hand, cap, rng);
}

/* t: the table without the laid card `card`; returns the table cards taken with it, 0 = no blow */
static inline uint64_t esc_decide_blow(const esc_player *pl, const esc_hand *h, int seat, const esc_tbl *t, int card,
                                       esc_rng *rng) {
    switch (pl->id) {
    case ESC_DEFENSIVE: return esc_choose_blow(ESC_GREEDY, t, card, rng);
    case ESC_HEURISTIC: return esc_heuristic_blow(pl->p, t, card);
    case ESC_ENDGAME: return esc_endgame_blow(pl->p, h, seat, t, card);
    case ESC_ISMCTS: return esc_ismcts_blow_decision(pl->p, h, seat, t, card, rng);
    case ESC_ORACLE: return esc_oracle_blow(pl->p, h, seat, t, card, rng);
    case ESC_LEVEL: {
        if ((int)esc_below(rng, 1000) < pl->share) return esc_choose_blow(ESC_RANDOM, t, card, rng);
        esc_player base = *pl;
        base.id = pl->base;
        return esc_decide_blow(&base, h, seat, t, card, rng);
    }
    default: return esc_choose_blow(pl->id, t, card, rng); /* random, greedy, maxoros, sevens */
    }
}


/* the name of parameter slot `k` of strategy `id` (NULL past its last slot): the names of its parameters
 * in strategies.registry.BUILTINS, in order; the core checks them at import, so that a slot read by name
 * here is the parameter of that name there */
static inline const char *esc_param_name(int id, int k) {
    static const char *const heuristic[] = { ESC_HEURISTIC_PARAMS(ESC_ENUM_NAME) NULL };
    static const char *const endgame[] = { ESC_ENDGAME_PARAMS(ESC_ENUM_NAME) NULL };
    static const char *const ismcts[] = { ESC_ISMCTS_PARAMS(ESC_ENUM_NAME) NULL };
    static const char *const oracle[] = { ESC_ORACLE_PARAMS(ESC_ENUM_NAME) NULL };
    const char *const *names;
    switch (id) {
    case ESC_HEURISTIC: names = heuristic; break;
    case ESC_ENDGAME: names = endgame; break;
    case ESC_ISMCTS: names = ismcts; break;
    case ESC_ORACLE: names = oracle; break;
    default: return NULL; /* random and the keyed strategies have no parameters */
    }
    for (int i = 0; i <= k; i++)
        if (names[i] == NULL) return NULL;
    return names[k];
}

/* does a seat read the voids (esc_hand.voids)? ismcts with `infer`, alone or as a level's base */
static inline int esc_players_infer(const esc_player *players, int n) {
    for (int i = 0; i < n; i++)
        if ((players[i].id == ESC_ISMCTS || (players[i].id == ESC_LEVEL && players[i].base == ESC_ISMCTS))
            && players[i].p[ESC_ISMCTS_INFER] != 0) return 1;
    return 0;
}

/* one turn of `seat`: a blow of the card the previous seat laid (soplar only),
 * then its move, then its draw (deal=draw) */
static ESC_ALWAYS_INLINE void esc_turn(esc_hand *h, const esc_player *players, int seat, const int teams,
                                       const int soplar, const int draw, const int infer, const int known,
                                       esc_rng *rng) {
    const esc_player *pl = &players[seat];
    const int side = teams ? (seat & 1) : seat; /* esc_side, with the rule read once per hand */
    esc_tbl t;
    if (soplar && h->pending >= 0) { /* only soplar leaves a card open to a blow */
        /* the laid card's options are those it had before it was laid: nothing else moved since */
        const uint64_t pbit = 1ULL << h->pending;
        esc_tbl_init(&t, h->table & ~pbit);
        uint64_t take = esc_decide_blow(pl, h, seat, &t, h->pending, rng);
        if (take) {
            h->table &= ~(take | pbit);
            h->reach = esc_reach_of(h->table);
            h->piles[side] |= take | pbit;
            h->last_capturer = seat;
        }
        h->pending = -1;
    }
    const uint64_t hand = h->hands[seat];
    t.mask = h->table;
    t.reach = h->reach;
    const uint64_t cap = esc_capturing_cards(h->reach, hand);
    const esc_move mv = esc_decide_move_as(known >= 0 ? known : pl->id, pl, h, seat, &t, hand, cap, rng);
    esc_apply_move(h, seat, side, mv, cap, soplar, draw, infer);
}

/* rounds dealt from the stock without drawing, and the cards after the table make whole rounds
 * (ludoteka: 36 = 6 rounds of 2 x 3): the seats then play on a fixed schedule */
static inline int esc_full_rounds(const esc_rules *R) {
    const int dealt = 40 - R->table_size, per_round = R->players * R->hand_size;
    return R->deal == ESC_DEAL_ROUNDS && dealt >= per_round && dealt % per_round == 0;
}

/* the rounds of a two-seat hand (esc_plays_two): `first` then `dealer`, hand_size times, then both
 * refilled; no teams, soplar or voids, the round's two turns written out (no seat wrap to predict).
 * known_first/known_dealer: the seats' strategies as constants, or -1 (esc_decide_move_as) */
static ESC_ALWAYS_INLINE void esc_two_rounds(esc_hand *h, const esc_rules *R, const esc_player *players, int first,
                                             int dealer, const int known_first, const int known_dealer,
                                             esc_rng *rng) {
    for (;;) {
        for (int k = 0; k < R->hand_size; k++) {
            esc_turn(h, players, first, 0, 0, 0, 0, known_first, rng);
            esc_turn(h, players, dealer, 0, 0, 0, 0, known_dealer, rng);
        }
        if (h->pos >= 40) break;
        h->hands[first] = esc_take_cards(h, R->hand_size);
        h->hands[dealer] = esc_take_cards(h, R->hand_size);
    }
}

/* play one hand from the seeded streams (docs/engine.md, One hand); `infer`: keep the seats' voids
 * (a constant: the loop that keeps them is a copy of its own, esc_play_hand_inferring) */
static ESC_ALWAYS_INLINE void esc_play_hand_body(const esc_rules *R, const esc_player *players, uint64_t seed,
                                 uint64_t game, uint64_t hand_index, int dealer, esc_hand_result *res,
                                 const int infer, const int two) {
    esc_hand h;
    /* both streams share mix64(mix64(seed) ^ game) */
    const uint64_t base = esc_mix64(esc_mix64(seed) ^ game);
    esc_rng rng = { esc_mix64(base ^ ((hand_index << 2) | ESC_STREAM_DECK)) };
    esc_shuffle(&rng, h.deck);
    esc_deal(&h, R, dealer);
    esc_plays plays; /* the moves, for a seat that reads the other hands (infer: a constant) */
    if (infer) { plays.n = 0; h.plays = &plays; }
    rng.state = esc_mix64(base ^ ((hand_index << 2) | ESC_STREAM_PLAY));
    const int draw = R->deal == ESC_DEAL_DRAW, soplar = R->soplar, teams = R->teams;
    const int n = R->players, per_round = n * R->hand_size;
    if (two) {
        /* esc_plays_two (the caller checked): the fixed schedule for two seats, a copy per pairing of
         * greedy, maxoros and random (esc_two_rounds), and a general copy for any other lineup */
        const int first = dealer ^ 1, sf = players[first].id, sd = players[dealer].id;
#define ESC_TWO(A, B) if (sf == A && sd == B) esc_two_rounds(&h, R, players, first, dealer, A, B, &rng); else
        ESC_TWO(ESC_GREEDY, ESC_MAXOROS) ESC_TWO(ESC_MAXOROS, ESC_GREEDY) ESC_TWO(ESC_RANDOM, ESC_RANDOM)
        ESC_TWO(ESC_GREEDY, ESC_GREEDY) ESC_TWO(ESC_MAXOROS, ESC_MAXOROS)
        ESC_TWO(ESC_GREEDY, ESC_RANDOM) ESC_TWO(ESC_RANDOM, ESC_GREEDY)
        ESC_TWO(ESC_MAXOROS, ESC_RANDOM) ESC_TWO(ESC_RANDOM, ESC_MAXOROS)
        esc_two_rounds(&h, R, players, first, dealer, -1, -1, &rng);
#undef ESC_TWO
    } else if (esc_full_rounds(R)) {
        /* every round is full (ludoteka: 6 rounds of 3 cards each): the seats play in
         * turn from the dealer's left, hand_size times round the table, then the
         * next round is dealt; the same order esc_next_seat finds, without its search */
        for (;;) {
            int seat = dealer;
            for (int k = 0; k < per_round; k++) {
                seat = seat + 1 == n ? 0 : seat + 1;
                esc_turn(&h, players, seat, teams, soplar, 0, infer, -1, &rng);
            }
            if (h.pos >= 40) break;
            for (int k = 0; k < n; k++) {
                seat = seat + 1 == n ? 0 : seat + 1;
                h.hands[seat] = esc_take_cards(&h, R->hand_size);
                if (infer) h.voids[seat] = 0;
            }
        }
    } else {
        for (int seat = esc_next_seat(&h, dealer); seat >= 0; seat = esc_next_seat(&h, seat))
            esc_turn(&h, players, seat, teams, soplar, draw, infer, -1, &rng);
    }
    const int leftovers = __builtin_popcountll(h.table);
    if (h.last_capturer >= 0) h.piles[esc_side(R, h.last_capturer)] |= h.table;
    esc_score(&h, leftovers, res);
}

/* The same hand compiled three times: for baseline x86-64, with the POPCNT
 * instruction (the strategy keys and table sizes are popcounts; without it
 * each is a libgcc call), and with POPCNT plus BMI1, BMI2 and LZCNT (Intel
 * Core since Haswell, AMD since Excavator: x & (x - 1), x & -x, shifts by a
 * register and trailing/leading zero counts are then one instruction each,
 * 4-9% fewer instructions per hand, benchmarks/README.md). The choice is
 * made once at run time from the CPU, so the build stays portable (no -march
 * flags). */
typedef void (*esc_play_hand_fn)(const esc_rules *, const esc_player *, uint64_t, uint64_t, uint64_t, int, esc_hand_result *);

/* two seats, no teams, no soplar, every round full: the hand loop's fixed schedule in its two-seat copy */
static inline int esc_plays_two(const esc_rules *R) {
    return R->players == 2 && !R->teams && !R->soplar && esc_full_rounds(R);
}

/* a hand in which a seat reads the voids (ismcts' infer): out of line, so that the usual loop keeps none */
static ESC_COLD void esc_play_hand_inferring(const esc_rules *R, const esc_player *players, uint64_t seed,
                                             uint64_t game, uint64_t hand_index, int dealer, esc_hand_result *res) {
    esc_play_hand_body(R, players, seed, game, hand_index, dealer, res, 1, 0);
}

/* one instruction set's copies of the hand: the general loop (_hand_) and the two-seat one (_two_, esc_plays_two) */
#define ESC_HAND_COPIES(ISA, ATTR)                                                                              \
    ATTR static void esc_play_hand_##ISA(const esc_rules *R, const esc_player *players, uint64_t seed,           \
                                         uint64_t game, uint64_t hand_index, int dealer, esc_hand_result *res) { \
        esc_play_hand_body(R, players, seed, game, hand_index, dealer, res, 0, 0);                              \
    }                                                                                                           \
    ATTR static void esc_play_two_##ISA(const esc_rules *R, const esc_player *players, uint64_t seed,            \
                                        uint64_t game, uint64_t hand_index, int dealer, esc_hand_result *res) {  \
        esc_play_hand_body(R, players, seed, game, hand_index, dealer, res, 0, 1);                              \
    }
ESC_HAND_COPIES(base, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ESC_POPCNT_DISPATCH 1
ESC_HAND_COPIES(popcnt, __attribute__((target("popcnt"))))
#if defined(__GNUC__) && !defined(__clang__) /* GCC's __builtin_cpu_supports knows "lzcnt" */
#define ESC_BMI2_DISPATCH 1
ESC_HAND_COPIES(bmi2, __attribute__((target("popcnt,bmi,bmi2,lzcnt"))))
#endif
#endif
#undef ESC_HAND_COPIES

/* the copies this CPU runs, from baseline up; esc_select_impl (below) picks the last */
typedef struct { const char *name; esc_play_hand_fn hand, two; } esc_impl_copy;
static esc_impl_copy esc_impls[3] = { { "baseline", esc_play_hand_base, esc_play_two_base } };
static int esc_n_impls = 1;
static int esc_impl = 0; /* the one in use: esc_hand_fn (below) reads its functions */

/* use the copy named `name` (one of esc_impls: tests play every copy); 0 on success, -1 if this CPU has none */
static inline int esc_use_impl(const char *name) {
    for (int i = 0; i < esc_n_impls; i++) {
        if (strcmp(esc_impls[i].name, name) != 0) continue;
        esc_impl = i;
        return 0;
    }
    return -1;
}

/* list the copies this CPU runs and use the fastest; called by esc_init_tables (below) */
static inline void esc_select_impl(void) {
    esc_n_impls = 1; /* the baseline; a second call lists the same copies again */
#ifdef ESC_POPCNT_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) {
        esc_impls[esc_n_impls++] = (esc_impl_copy){ "popcnt", esc_play_hand_popcnt, esc_play_two_popcnt };
#ifdef ESC_BMI2_DISPATCH
        if (__builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("lzcnt"))
            esc_impls[esc_n_impls++] = (esc_impl_copy){ "bmi2", esc_play_hand_bmi2, esc_play_two_bmi2 };
#endif
    }
#endif
    esc_impl = esc_n_impls - 1;
}

/* build the lookup tables and pick the hand implementation for this CPU; 0 on success (inline: a module
 * that includes the core without playing hands, escoba_sim/_core/common.pyx, keeps no unused copy) */
static inline int esc_init_tables(void) {
    if (esc_build_tables() != 0) return -1;
    esc_select_impl();
    return 0;
}

/* which copy runs: "bmi2", "popcnt" or "baseline" (reported by benchmarks) */
static inline const char *esc_impl_name(void) { return esc_impls[esc_impl].name; }

/* the hand function for a lineup: the loop for this CPU, or the copy that keeps the voids when a seat
 * reads them (ismcts' infer). Callers that play many hands of one lineup ask once, not per hand (the
 * question loops over the seats: asked per hand it would cost 27 instructions per greedy-maxoros hand). */
static inline esc_play_hand_fn esc_hand_fn(const esc_rules *R, const esc_player *players) {
    if (esc_players_infer(players, R->players)) return esc_play_hand_inferring;
    return esc_plays_two(R) ? esc_impls[esc_impl].two : esc_impls[esc_impl].hand;
}

/* one game: hands until a unique top total reaches the target. Appends each
 * hand's result through `push` (returns 0 on failure); returns the number of
 * hands, -1 past max_hands, -2 if push failed. scores/winner are outputs. */
typedef int (*esc_push_fn)(void *ctx, const esc_hand_result *res);

static inline int esc_play_game(const esc_rules *R, const esc_player *players, uint64_t seed, uint64_t game,
                                int max_hands, int32_t *scores, int *winner, esc_push_fn push, void *ctx) {
    int dealer = (int)(game % (uint64_t)R->players); /* the deal passes on each hand */
    esc_hand_result res;
    const esc_play_hand_fn play_hand = esc_hand_fn(R, players);
    for (int s = 0; s < R->n_sides; s++) scores[s] = 0;
    for (int hi = 0; hi < max_hands; hi++) {
        play_hand(R, players, seed, game, (uint64_t)hi, dealer, &res);
        dealer = dealer + 1 == R->players ? 0 : dealer + 1;
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
