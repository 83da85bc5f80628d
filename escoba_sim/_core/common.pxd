# What the compiled modules share (common.pyx): the ruleset, the seats and a position as C values, and
# whether a call runs under the signal guard. The other modules and escoba_sim/_vec.pyx cimport these.
from .csrc cimport esc_rules, esc_player, esc_hand, esc_plays


cdef class Position:
    cdef readonly object hands, table, piles, escobas, voids, stock, plays
    cdef esc_plays c_plays
    cdef readonly int stock_left, dealer, last_capturer, pending


cdef esc_rules c_rules(rules) except *
cdef int c_players(rules, strategies, esc_player *out) except -1
cdef int c_position(esc_hand *h, const esc_rules *R, Position position) except -1
cdef bint any_slow(const esc_player *strat, int players) noexcept
cdef bint guard_wanted(const esc_player *strat, int players, bint always) except -1
