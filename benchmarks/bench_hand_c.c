/* Pure-C driver for profiling the hand loop without Python around it:
 *   gcc -O3 -g -ffp-contract=off -Icsrc benchmarks/bench_hand_c.c -o /tmp/bench_hand_c -lm
 *   /tmp/bench_hand_c 1 2 2000000            (strategy codes: 0 random, 1 greedy, 2 maxoros)
 *   valgrind --tool=callgrind /tmp/bench_hand_c 1 2 20000
 * Rules are ludoteka (2 players, 3 cards, 4 on the table, rounds). The rate is
 * printed by wall clock and by the process's CPU time (on a shared machine the
 * second excludes the time spent waiting for a core). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "escoba_core.h"

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s STRAT0 STRAT1 HANDS\n", argv[0]); return 2; }
    if (esc_init_tables() != 0) return 1;
    esc_rules R = {2, 0, 2, 3, 4, ESC_LUCKY_ESCOBAS, ESC_CAPTURE_CARD, 0, ESC_DEAL_ROUNDS,
                   ESC_SEVENS_MAJORITY, ESC_TIES_SHARED, 0, 0, 15};
    esc_player strat[6] = {{0}};  /* codes only: strategies with parameters need them set */
    strat[0].id = atoi(argv[1]);
    strat[1].id = atoi(argv[2]);
    long n = atol(argv[3]), acc = 0;
    esc_hand_result res;
    struct timespec a, b, ca, cb;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    clock_gettime(CLOCK_MONOTONIC, &a);
    const esc_play_hand_fn play_hand = esc_hand_fn(&R, strat); /* as run's loop: once per batch */
    for (long i = 0; i < n; i++) {
        play_hand(&R, strat, 1, (uint64_t)i, 0, (int)(i % 2), &res);
        acc += res.side[ESC_C_TOTAL][0];
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    double dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    double ct = (double)(cb.tv_sec - ca.tv_sec) + (double)(cb.tv_nsec - ca.tv_nsec) * 1e-9;
    printf("%ld hands in %.3f s: %.0f hands/s, %.0f per CPU second (impl %s, checksum %ld)\n", n, dt, (double)n / dt,
           (double)n / ct, esc_impl_name(), acc);
    return 0;
}
