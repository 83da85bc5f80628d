# The signal guard around a call that may search (csrc/escoba_guard.h). Inline, so that each module that
# cimports it guards with its own copy of the C stop flag: the one its own searches read.
from cpython.exc cimport PyErr_CheckSignals

from .common cimport guard_wanted
from .csrc cimport esc_player

cdef extern from "escoba_guard.h" nogil:
    void esc_guard_on() noexcept
    void esc_guard_off() noexcept
    int esc_stop_take() noexcept


cdef inline bint guard(const esc_player *strat, int players, bint always) except -1:
    """Install the stop guard for a call that may search (main thread only); True if installed: the caller
    then ends it with esc_guard_off(). With ``always``, ``strat`` is not read."""
    if not guard_wanted(strat, players, always):
        return False
    esc_guard_on()
    return True


cdef inline bint stopped() except -1:
    """After a guarded call: a signal cut its searches short. Its Python handler's exception (KeyboardInterrupt,
    a run's stop) propagates from here; True when none was raised: the caller plays the work again."""
    if esc_stop_take():
        PyErr_CheckSignals()
        return True
    return False
