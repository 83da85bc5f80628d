# The signal guard around a call that may search (csrc/escoba_guard.h), and the thread's own Stop
# (escoba_sim/stops.py) its searches read. Inline, so that each module that cimports it guards with its own copy
# of the C stop flags: the ones its own searches read.
from cpython.exc cimport PyErr_CheckSignals

from .common cimport guard_wanted
from .csrc cimport esc_player

cdef extern from "escoba_guard.h" nogil:
    void esc_guard_on() noexcept
    void esc_guard_off() noexcept
    int esc_stop_take() noexcept
    void esc_stop_attend(const int *count) noexcept
    const int *esc_stop_bind(const int *flag) noexcept
    int esc_stop_flag_set(const int *flag) noexcept


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


cdef inline int attend(count) except -1:
    """At a module's import: its searches read stops.ATTENTION (``count``), the count of set Stops in force."""
    esc_stop_attend(<const int *> <size_t> count.buffer_info()[0])
    return 0


cdef inline const int *flag_address(flag) noexcept:
    """The C address of a Stop flag from stops.current_flag() (an array of one int; None: NULL). The caller
    keeps ``flag`` referenced while the searches read it."""
    if flag is None:
        return NULL
    return <const int *> <size_t> flag.buffer_info()[0]
