/* SplitMix64 streams: the only source of chance, identical to escoba_sim/rng.py.
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

/* Fisher-Yates from the top, deck[0] dealt first (docs/engine.md, Shuffle) */
static inline void esc_shuffle(esc_rng *r, uint8_t deck[40]) {
    for (int i = 0; i < 40; i++) deck[i] = (uint8_t)i;
    for (int i = 39; i > 0; i--) {
        uint32_t j = esc_below(r, (uint32_t)(i + 1));
        uint8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t;
    }
}

#endif
