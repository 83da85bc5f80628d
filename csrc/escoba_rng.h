/* SplitMix64 streams: the only source of chance, identical to escoba_sim/game/rng.py.
 *
 * docs/engine.md ("Random numbers") is the contract: a hand's DECK stream
 * shuffles the deck, its PLAY stream feeds randomised strategy decisions.
 * Plain C, no Python.h; every helper is static inline and prefixed esc_.
 */
#ifndef ESCOBA_RNG_H
#define ESCOBA_RNG_H

#include <stdint.h>

#define ESC_GOLDEN 0x9E3779B97F4A7C15ULL
#define ESC_STREAM_DECK 0
#define ESC_STREAM_PLAY 1

typedef struct { uint64_t state; } esc_rng;

static inline uint64_t esc_finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* the value next() returns for a generator whose state is x */
static inline uint64_t esc_mix64(uint64_t x) { return esc_finalize(x + ESC_GOLDEN); }

static inline uint64_t esc_stream_state(uint64_t seed, uint64_t game, uint64_t hand, uint64_t stream) {
    return esc_mix64(esc_mix64(esc_mix64(seed) ^ game) ^ ((hand << 2) | stream));
}

static inline uint64_t esc_next(esc_rng *r) {
    r->state += ESC_GOLDEN;
    return esc_finalize(r->state);
}

/* uniform in [0, n): high half of the 128-bit product (no modulo bias games) */
static inline uint32_t esc_below(esc_rng *r, uint32_t n) {
    return (uint32_t)(((unsigned __int128)esc_next(r) * n) >> 64);
}

/* The deal stream (docs/engine.md, Shuffle): version 2 takes two swaps from
 * each 64-bit output, one per 32-bit half (high half first), each mapped to
 * [0, n) by Lemire's multiply-shift with exact rejection of the low products
 * below 2^32 mod n. Version 1 (escoba-sim 0.1.0 before it) used one
 * esc_below per swap. escoba_sim/game/rng.py (DEAL_STREAM_VERSION) must agree. */
#define ESC_DEAL_STREAM_VERSION 2

/* the exact shuffle word by word, as game/rng.py writes it: the fast one below falls
 * back to it when a rejection is possible */
static inline void esc_shuffle_words(esc_rng *r, uint8_t deck[40]) {
    uint64_t x = 0;
    int low_left = 0; /* the low half of x is the next word */
    for (int i = 0; i < 40; i++) deck[i] = (uint8_t)i;
    for (int i = 39; i > 0; i--) {
        const uint32_t n = (uint32_t)(i + 1), reject_below = (uint32_t)((1ULL << 32) % n);
        uint64_t m;
        do {
            uint32_t w;
            if (low_left) { w = (uint32_t)x; low_left = 0; }
            else { x = esc_next(r); w = (uint32_t)(x >> 32); low_left = 1; }
            m = (uint64_t)w * n;
        } while ((uint32_t)m < reject_below);
        const uint32_t j = (uint32_t)(m >> 32);
        uint8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t;
    }
}

/* a * N for a constant N: one IMUL with an immediate. GCC otherwise expands each of the shuffle's
 * constant multipliers into 2-4 LEA/SHL/SUB steps (its latency choice), ~3 instructions more per output. */
#if defined(__x86_64__) && defined(__GNUC__)
#define ESC_MUL_IMM(A, N) ({ uint64_t _p; __asm__("imulq %2, %1, %0" : "=r"(_p) : "rm"((uint64_t)(A)), "i"(N)); _p; })
#else
#define ESC_MUL_IMM(A, N) ((uint64_t)(A) * (uint64_t)(N))
#endif

/* one output's two swaps, positions I and I - 1 (constants: the shuffle below is written out, so each
 * multiplier is an immediate and no loop counter is kept) */
#define ESC_SHUFFLE_PAIR(I) do {                                                                  \
    const uint64_t x = esc_next(&g);                                                              \
    const uint64_t m1 = ESC_MUL_IMM(x >> 32, (I) + 1), m2 = ESC_MUL_IMM(x & 0xFFFFFFFFu, (I));     \
    low = (uint32_t)m1 < low ? (uint32_t)m1 : low;                                                \
    low = (uint32_t)m2 < low ? (uint32_t)m2 : low;                                                \
    const uint32_t j1 = (uint32_t)(m1 >> 32), j2 = (uint32_t)(m2 >> 32);                          \
    uint8_t t = deck[(I)]; deck[(I)] = deck[j1]; deck[j1] = t;                                    \
    t = deck[(I) - 1]; deck[(I) - 1] = deck[j2]; deck[j2] = t;                                    \
} while (0)

/* Fisher-Yates from the top, deck[0] dealt first: 20 outputs for 39 swaps.
 * A word can be rejected only if its low product is below n <= 40; when any
 * is (about one shuffle in 2.8 million; an actual rejection, one in 14
 * million) the whole shuffle is redone word by word. */
static inline void esc_shuffle(esc_rng *r, uint8_t deck[40]) {
    const uint64_t start = r->state;
    esc_rng g = *r; /* a local copy: the deck's byte stores could alias *r, which kept its state in memory */
    for (int i = 0; i < 40; i++) deck[i] = (uint8_t)i;
    uint32_t low = 0xFFFFFFFFu; /* the smallest low product: below 40, a rejection is possible */
    ESC_SHUFFLE_PAIR(39); ESC_SHUFFLE_PAIR(37); ESC_SHUFFLE_PAIR(35); ESC_SHUFFLE_PAIR(33); ESC_SHUFFLE_PAIR(31);
    ESC_SHUFFLE_PAIR(29); ESC_SHUFFLE_PAIR(27); ESC_SHUFFLE_PAIR(25); ESC_SHUFFLE_PAIR(23); ESC_SHUFFLE_PAIR(21);
    ESC_SHUFFLE_PAIR(19); ESC_SHUFFLE_PAIR(17); ESC_SHUFFLE_PAIR(15); ESC_SHUFFLE_PAIR(13); ESC_SHUFFLE_PAIR(11);
    ESC_SHUFFLE_PAIR(9); ESC_SHUFFLE_PAIR(7); ESC_SHUFFLE_PAIR(5); ESC_SHUFFLE_PAIR(3);
    const uint64_t m = (esc_next(&g) >> 32) * 2u; /* i = 1: n = 2 divides 2^32, never rejected */
    *r = g;
    const uint32_t j = (uint32_t)(m >> 32);
    uint8_t t = deck[1]; deck[1] = deck[j]; deck[j] = t;
    if (__builtin_expect(low < 40u, 0)) {
        r->state = start;
        esc_shuffle_words(r, deck);
    }
}
#undef ESC_SHUFFLE_PAIR

#endif
