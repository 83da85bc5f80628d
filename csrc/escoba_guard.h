/* The signal guard of escoba-sim's compiled core: while a call that may search runs in the main thread,
 * SIGINT and SIGTERM first set esc_stop (every search then ends at once: escoba_common.h), then do what they
 * did before: Python's handler is called (it trips Python's flag; the Python-level handler runs when the call
 * returns), the default action is taken as it would have been, and an ignored signal stays ignored.
 * Guards nest: only the outermost installs and restores the handlers. The Cython side (escoba_sim/_core/
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
    sigaction(SIGINT, &esc_prev_handlers[0], NULL);
    sigaction(SIGTERM, &esc_prev_handlers[1], NULL);
}

/* whether a stop was requested since the guard went on (and clear the request) */
static inline int esc_stop_take(void) {
    const int s = esc_stop;
    esc_stop = 0;
    return s;
}

#endif
