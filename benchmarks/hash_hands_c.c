/* The same-hands check for speed work on the core: an FNV-1a hash of every field of every hand's
 * result over 12 rule variants (ludoteka; soplar; draw with optional captures; 3 and 5 players; 4 and
 * 6 in teams; 8- and 10-card tables; 6-card hands; the other lucky-deal, sevens and ties settings) x 25
 * strategy pairings (random, greedy, maxoros, sevens, defensive) x HANDS hands (default 20,000):
 *   gcc -O3 -ffp-contract=off -Icsrc benchmarks/hash_hands_c.c -o /tmp/hash_hands -lm
 *   /tmp/hash_hands 4000          (fifth pass of issue 12: all f4ce862b965efe76, before and after)
 * A change to the core that must not change any hand must not change any line this prints. The
 * differential tests compare the core with the reference engine; this compares two builds of the core
 * on rules and pairings those tests sample less, in seconds. */
#include <stdio.h>
#include <stdlib.h>
#include "escoba_core.h"
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 0x100000001b3ULL; }
    return h;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000;
    if (esc_init_tables() != 0) return 1;
    /* players, teams, sides, hand, table, lucky deal, capture, soplar, deal, sevens, ties, bonuses, target */
    esc_rules V[] = {
        {2, 0, 2, 3, 4, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_CARD, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {2, 0, 2, 3, 4, ESC_LUCKY_CAPTURE, ESC_CAPTURE_ANY, 1, ESC_DEAL_ROUNDS, ESC_SEVENS_ALL, ESC_TIES_NONE, 1, 1, 21},
        {2, 0, 2, 3, 4, ESC_LUCKY_OFF, ESC_CAPTURE_OPTIONAL, 0, ESC_DEAL_DRAW, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {3, 0, 3, 3, 4, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_CARD, 1, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {4, 1, 2, 3, 4, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_ANY, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_NONE, 0, 0, 15},
        {6, 1, 2, 3, 4, ESC_LUCKY_CAPTURE, ESC_CAPTURE_CARD, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {2, 0, 2, 3, 8, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_OPTIONAL, 1, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {2, 0, 2, 4, 10, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_OPTIONAL, 0, ESC_DEAL_DRAW, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {2, 0, 2, 6, 4, ESC_LUCKY_CAPTURE, ESC_CAPTURE_ANY, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_ALL, ESC_TIES_NONE, 1, 1, 15},
        {2, 0, 2, 3, 10, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_OPTIONAL, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
        {2, 0, 2, 3, 4, ESC_LUCKY_OFF, ESC_CAPTURE_OPTIONAL, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_NONE, 0, 0, 15},
        {5, 0, 5, 2, 6, ESC_LUCKY_OFF, ESC_CAPTURE_CARD, 0, ESC_DEAL_ROUNDS, ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15},
    };
    int nv = sizeof V / sizeof V[0];
    uint64_t all = 0xcbf29ce484222325ULL;
    for (int v = 0; v < nv; v++) {
        uint64_t hv = 0xcbf29ce484222325ULL;
        for (int a = 0; a < 5; a++) for (int b = 0; b < 5; b++) {
            esc_player P[6] = {{0}};
            for (int s = 0; s < 6; s++) P[s].id = (s % 2) ? b : a; /* codes only: these need no parameters */
            esc_play_hand_fn f = esc_hand_fn(&V[v], P);
            for (long i = 0; i < n; i++) {
                esc_hand_result r; memset(&r, 0, sizeof r);
                f(&V[v], P, 7, (uint64_t)(i / 3), (uint64_t)(i % 3), (int)(i % V[v].players), &r); /* 3 hands a game */
                hv = fnv(hv, &r, sizeof r);
            }
        }
        printf("variant %d: %016llx\n", v, (unsigned long long)hv);
        all = fnv(all, &hv, 8);
    }
    printf("all: %016llx (impl %s)\n", (unsigned long long)all, esc_impl_name());
    return 0;
}
