"""An example strategy plugin: captures with its lowest card, lays its highest.

Use it with `escoba-sim run --strategy examples/lowcard.py:LowCard --vs greedy -n 1000`.
A plugin is played by the pure-Python reference engine (much slower than the
built-ins); docs/strategies.md describes the interface.
"""

from escoba_sim.game.cards import value


class LowCard:
    name = "lowcard"

    def choose_move(self, state, moves, rng):
        # moves come in legal-move order: by card id, captures by mask, the lay last
        captures = [m for m in moves if m.take]
        if captures:
            return min(captures, key=lambda m: (value(m.card), m.card))
        return max(moves, key=lambda m: (value(m.card), m.card))

    def choose_blow(self, state, blows, rng):
        # blow whenever the rules allow it (soplar), taking the first option
        return blows[0]
