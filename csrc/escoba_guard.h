/* The signal guard of escoba-sim's compiled core: while a call that may search runs in the main thread,
 * SIGINT and SIGTERM first set esc_stop (every search then ends at once: escoba_common.h), then do what they
 * did before: Python's handler is called (it trips Python's flag; the Python-level handler runs when the call
 * returns), the default action is taken as it would have been, and an ignored signal stays ignored.
 * Guards nest: only the outermost installs and restores the handlers. Only the thread that installed the guard
 * (the main thread) is stopped by it: esc_thread_guarded (escoba_common.h) marks it. The Cython side (escoba_sim/_core/
 * guard.pxd) decides when a call is guarded and what a stop means for its results.
 * POSIX C (sigaction), no Python.h; static, prefix esc_.
 */
#ifndef ESCOBA_GUARD_H
#define ESCOBA_GUARD_H

#include <signal.h>
#include <string.h>
#include "escoba_common.h"

static struct sigaction esc_prev_handlers[2]; /* SIGINT's, SIGTERM's: what the guard passes each signal on to */
static int esc_guard_depth = 0;

static void esc_on_signal(int sig, siginfo_t *info, void *context) {
    const struct sigaction *prev = &esc_prev_handlers[sig == SIGTERM];
    if (prev->sa_flags & SA_SIGINFO) { /* a handler that takes the details: it gets them */
        esc_stop = 1;
        prev->sa_sigaction(sig, info, context);
        return;
    }
    if (prev->sa_handler == SIG_IGN) return;
    if (prev->sa_handler == SIG_DFL) {
        sigaction(sig, prev, NULL);
        raise(sig);
        return;
    }
    esc_stop = 1;
    prev->sa_handler(sig);
}

/* install the guard (clearing any earlier stop request) unless one is installed */
static inline void esc_guard_on(void) {
    if (esc_guard_depth++ > 0) return;
    esc_stop = 0;
    esc_thread_guarded = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = esc_on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &esc_prev_handlers[0]);
    sigaction(SIGTERM, &sa, &esc_prev_handlers[1]);
}

/* the handlers found by the matching esc_guard_on again, once the outermost guard ends */
static inline void esc_guard_off(void) {
    if (--esc_guard_depth > 0) return;
    esc_thread_guarded = 0;
    sigaction(SIGINT, &esc_prev_handlers[0], NULL);
    sigaction(SIGTERM, &esc_prev_handlers[1], NULL);
}

/* whether a stop was requested since the guard went on (and clear the request) */
static inline int esc_stop_take(void) {
    const int s = esc_stop;
    esc_stop = 0;
    return s;
}

/* escoba_sim/stops.py's side (escoba_common.h, esc_stopping): point esc_attention at stops.py's count of set
 * Stops in force (once, at the module's import) */
static inline void esc_stop_attend(const int *count) {
    esc_attention = count;
}

/* the calling thread's searches read `flag` (NULL: no Stop of their own) until the next call; returns the one
 * they read before, to be put back when the call ends (calls nest) */
static inline const int *esc_stop_bind(const int *flag) {
    const int *prev = (const int *)esc_thread_stop;
    esc_thread_stop = flag;
    return prev;
}

/* whether a Stop's `flag` (NULL: none) is set: read as the searches read it */
static inline int esc_stop_flag_set(const int *flag) {
    return flag != NULL && *(const volatile int *)flag != 0;
}

#endif
