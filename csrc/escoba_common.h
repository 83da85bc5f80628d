/* What every header of escoba-sim's plain-C core shares: the stop flag the searches read, the
 * inlining and cloning macros, the card constants and the strategy codes. Plain C (no Python.h),
 * following docs/engine.md. The headers read in one direction:
 *   escoba_common.h, escoba_rng.h -> escoba_tables.h -> escoba_hand.h -> escoba_strategies.h
 *   -> escoba_ismcts.h -> escoba_oracle.h -> escoba_core.h (decision dispatch, hand and game loops)
 * and beside them escoba_evaluate.h (the evaluator), escoba_vec.h (the vectorised environment),
 * escoba_aggregate.h (a chunk's sums) and escoba_guard.h (the signal guard that sets the stop flag).
 */
#ifndef ESCOBA_COMMON_H
#define ESCOBA_COMMON_H

#include <stdint.h>
#include <signal.h>

/* A stop request: set by the signal guard on SIGINT and SIGTERM (escoba_guard.h, while a call that may
 * search runs in the main thread) and read by every search (ismcts, oracle, the endgame solver, the evaluator)
 * in that thread, which then ends at once with any legal choice; the caller discards what was played under it
 * (or plays it again when the signal's Python handler did not stop the program), so no result ever depends on
 * it. Each extension module compiles its own copy, set by its own guard. */
static volatile sig_atomic_t esc_stop = 0;

/* A thread's own stop (escoba_sim/stops.py, a Stop set from any thread or past its deadline): `esc_attention`
 * points at stops.py's count of Stops that are set while some thread runs under them (the module points it
 * there at import), and `esc_thread_stop` at the flag of the Stop the calling thread's searches run under
 * (NULL: none; the Cython entry points set it around each search). The searches read both through
 * esc_stopping(): while nothing is set anywhere it costs them one more load, and only then do they look at
 * their own thread's flags (esc_stop_check, out of line). `esc_thread_guarded`: this thread installed the
 * signal guard, so esc_stop is its request (another thread's searches ignore it). */
#if defined(__GNUC__)
#define ESC_THREAD_LOCAL __thread
#else
#define ESC_THREAD_LOCAL _Thread_local
#endif
static const volatile int esc_no_attention = 0;
static const volatile int *esc_attention = &esc_no_attention;
static ESC_THREAD_LOCAL const volatile int *esc_thread_stop = NULL;
static ESC_THREAD_LOCAL int esc_thread_guarded = 0;

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int esc_stop_check(void) {
    const volatile int *mine = esc_thread_stop;
    return (esc_thread_guarded && esc_stop) || (mine != NULL && *mine != 0);
}

/* whether the calling thread's searches should end now (a signal under its guard, or its Stop set) */
#if defined(__GNUC__)
__attribute__((always_inline, unused))
#endif
static inline int esc_stopping(void) {
    return (esc_stop || *esc_attention) && esc_stop_check();
}

#if defined(__GNUC__)
#define ESC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ESC_ALWAYS_INLINE inline
#endif

/* functions the compiler keeps out of the hand loop (esc_best_capture_*,
 * esc_draw_option) get their own clones, picked at load time like the loop's
 * copy (escoba_core.h): POPCNT (without it every popcount in them is a libgcc
 * call) and x86-64-v3 (POPCNT, BMI1/2, LZCNT and AVX2: the one arch level with
 * BMI that target_clones can name; under -ffp-contract=off the cold strategies'
 * floating point stays unfused and in source order, so every clone gives the same results) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define ESC_CLONES __attribute__((target_clones("arch=x86-64-v3", "popcnt", "default")))
#else
#define ESC_CLONES
#endif
/* the heavier strategies (defensive, heuristic, endgame, ismcts) stay out of
 * line, so the hand loop of the simple ones keeps its registers and i-cache */
#if defined(__GNUC__)
#define ESC_COLD __attribute__((noinline)) ESC_CLONES
#else
#define ESC_COLD
#endif

#define ESC_MAX_SEATS 6
#define ESC_OROS_MASK 0x3FFULL
#define ESC_SEVENS_MASK ((1ULL << 6) | (1ULL << 16) | (1ULL << 26) | (1ULL << 36))
#define ESC_SIETE_OROS 6

/* The strategy codes, each with the name strategies.registry.BUILTINS gives it (whose StrategyDef.code must
 * be this code: the core checks every name at import). A new strategy takes the next line here and one case
 * in esc_decide_move / esc_decide_blow (escoba_core.h); its parameter slots are named the same way
 * (ESC_PARAM_NAMES, escoba_core.h). X(ID, name) lists them in code order. */
#define ESC_STRATEGIES(X) \
    X(ESC_RANDOM, "random") X(ESC_GREEDY, "greedy") X(ESC_MAXOROS, "maxoros") X(ESC_SEVENS, "sevens") \
    X(ESC_DEFENSIVE, "defensive") X(ESC_HEURISTIC, "heuristic") X(ESC_ENDGAME, "endgame") \
    X(ESC_ISMCTS, "ismcts") X(ESC_ORACLE, "oracle") X(ESC_LEVEL, "level")
#define ESC_ENUM_ID(id, name) id,
#define ESC_ENUM_NAME(id, name) name,
enum { ESC_STRATEGIES(ESC_ENUM_ID) ESC_N_STRATEGIES };
/* the name of strategy code `id` (NULL past the last) */
static inline const char *esc_strategy_name(int id) {
    static const char *const names[ESC_N_STRATEGIES] = { ESC_STRATEGIES(ESC_ENUM_NAME) };
    return id >= 0 && id < ESC_N_STRATEGIES ? names[id] : NULL;
}

#endif
