# The plain-C core in csrc/ as the compiled modules see it (docs/engine.md is the contract): every module
# that cimports from here compiles its own copy of these static C headers (and so its own tables and stop flag).
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t

cdef extern from "escoba_rng.h" nogil:
    ctypedef struct esc_rng:
        uint64_t state
    uint64_t esc_mix64(uint64_t x)
    uint64_t esc_stream_state(uint64_t seed, uint64_t game, uint64_t hand, uint64_t stream)
    uint64_t esc_next(esc_rng *r)
    uint32_t esc_below(esc_rng *r, uint32_t n)
    int ESC_DEAL_STREAM_VERSION
    void esc_shuffle(esc_rng *r, uint8_t deck[40])

cdef extern from "escoba_common.h" nogil:
    # the strategy codes (StrategyDef.code in strategies.registry.BUILTINS; common.pyx checks the names)
    enum:
        ESC_RANDOM, ESC_GREEDY, ESC_MAXOROS, ESC_SEVENS, ESC_DEFENSIVE, ESC_HEURISTIC, ESC_ENDGAME, ESC_ISMCTS,
        ESC_ORACLE, ESC_LEVEL, ESC_N_STRATEGIES
    const char *esc_strategy_name(int id)

cdef extern from "escoba_tables.h" nogil:
    ctypedef struct esc_tbl:
        uint64_t mask
        uint16_t reach
    uint16_t esc_reach_of(uint64_t mask)
    void esc_tbl_init(esc_tbl *t, uint64_t mask)
    int64_t esc_count_options(const esc_tbl *t, int card)
    uint64_t esc_kth_option(const esc_tbl *t, int card, int64_t k)
    uint64_t esc_capturing_cards(uint16_t reach, uint64_t hand)

cdef extern from "escoba_hand.h" nogil:
    int ESC_MAX_SEATS
    int ESC_N_SIDE_COLS
    ctypedef struct esc_rules:
        int players, teams, n_sides, hand_size, table_size
        int lucky_deal, capture, soplar, deal, sevens, ties
        int bonus_all_oros, bonus_all_sevens, target
    ctypedef struct esc_hand_result:
        int8_t dealer, lucky_deal, leftovers, leftover_taker
        int16_t side[11][6]
    ctypedef struct esc_play:
        uint64_t take, table, seen
        int8_t seat, card
        uint8_t pos
    ctypedef struct esc_plays:
        int n
        esc_play m[40]
    ctypedef struct esc_hand:
        const esc_rules *R
        uint64_t hands[6]
        uint64_t table
        uint16_t reach
        uint64_t piles[6]
        int escobas[6]
        int lucky_escobas[6]
        uint8_t deck[40]
        int pos, dealer, last_capturer, lucky_deal, pending
        uint16_t voids[6]
        esc_plays *plays
    ctypedef struct esc_move:
        int card
        uint64_t take
    void esc_deal(esc_hand *h, const esc_rules *R, int dealer)
    int esc_next_seat(esc_hand *h, int last)
    void esc_score(const esc_hand *h, int leftovers, esc_hand_result *res)

cdef extern from "escoba_strategies.h" nogil:
    int ESC_MAX_PARAMS
    ctypedef struct esc_player:
        int id
        double p[12]
        int base
        int share

cdef extern from "escoba_ismcts.h" nogil:
    # the search's own copy of a turn (test hooks check it against the core's hand loop)
    void esc_ismcts_blow(esc_hand *h, int seat)
    int esc_ismcts_play(esc_hand *h, int seat, esc_move mv, uint64_t cap)
    # `infer`: the voids a move shows, and the determinizations that respect them (test hooks)
    void esc_note_voids(esc_hand *h, int seat, esc_move mv, uint64_t cap, int draw)
    int esc_ismcts_forbidden(const esc_hand *h, int seat, uint64_t unseen_mask, uint64_t *forbid)
    void esc_ismcts_determinize_inferred(esc_hand *d, const esc_hand *h, int seat, const uint8_t *unseen,
                                         int n_unseen, const uint64_t *forbid, esc_rng *rng)

cdef extern from "escoba_reading.h" nogil:
    # reading the other hands (ismcts' infer = 2, the hint, hands.reading)
    ctypedef struct esc_read_model:
        double temperature, uniform
    int esc_read_marginals(const esc_hand *h, int seat, const esc_read_model *m, int upto, uint64_t seed,
                           double *card, double *value)
    double esc_read_move_probability(const esc_hand *h, const esc_play *p, uint64_t held, const esc_read_model *m)
    double esc_read_probability(const esc_hand *h, int seat, const esc_read_model *m, uint64_t holding)

cdef extern from "escoba_core.h" nogil:
    ctypedef int (*esc_push_fn)(void *ctx, const esc_hand_result *res) noexcept nogil
    int esc_init_tables()
    const char *esc_impl_name()
    ctypedef struct esc_impl_copy:
        const char *name
    esc_impl_copy esc_impls[3]
    int esc_n_impls
    int esc_use_impl(const char *name)
    esc_move esc_decide_move(const esc_player *pl, const esc_hand *h, int seat, const esc_tbl *t,
                             uint64_t hand, uint64_t cap, esc_rng *rng)
    uint64_t esc_decide_blow(const esc_player *pl, const esc_hand *h, int seat, const esc_tbl *t, int card,
                             esc_rng *rng)
    ctypedef void (*esc_play_hand_fn)(const esc_rules *R, const esc_player *players, uint64_t seed, uint64_t game,
                                      uint64_t hand_index, int dealer, esc_hand_result *res) noexcept nogil
    esc_play_hand_fn esc_hand_fn(const esc_rules *R, const esc_player *players)
    const char *esc_param_name(int id, int k)
    int esc_players_infer(const esc_player *players, int n)
    int esc_play_game(const esc_rules *R, const esc_player *players, uint64_t seed, uint64_t game,
                      int max_hands, int32_t *scores, int *winner, esc_push_fn push, void *ctx)

cdef extern from "escoba_evaluate.h" nogil:
    int esc_eval_sample(const esc_hand *h, int seat, int blow, const esc_move *opts, int n, int samples, double c,
                        int rollout, double prior, uint64_t seed, int infer, const esc_read_model *model,
                        int16_t *out)
    void esc_eval_exact(const esc_hand *h, int seat, int blow, const esc_move *opts, int n, int *values)
