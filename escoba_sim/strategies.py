"""The built-in strategies of the reference engine, defined exactly (docs/engine.md).

The compiled core implements the same three decisions bit for bit; the names
in ``STRATEGIES`` are the ones the CLI, the core and the result files use.
"""

from __future__ import annotations

import difflib

from .cards import OROS_MASK, SIETE_OROS, is_oro, value
from .engine import HandState, Move
from .rng import SplitMix64


def greedy_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return (t.bit_count(), int(m.escoba), t >> SIETE_OROS & 1, (t & OROS_MASK).bit_count(), -t)


def maxoros_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return ((t & OROS_MASK).bit_count(), t >> SIETE_OROS & 1, t.bit_count(), int(m.escoba), -t)


def _lowest_value_lay(cards: list[int]) -> int:
    # lowest value first, ties to the highest card id
    return min(cards, key=lambda c: (value(c), -c))


class RandomStrategy:
    name = "random"

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        cards = sorted({m.card for m in moves})
        card = cards[rng.below(len(cards))] if len(cards) > 1 else cards[0]
        options = [m for m in moves if m.card == card]
        return options[rng.below(len(options))] if len(options) > 1 else options[0]

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        k = rng.below(len(blows) + 1)
        return None if k == 0 else blows[k - 1]


class _KeyStrategy:
    """Best capture by a key, ties to the lowest taken mask; a fixed rule for laying."""

    name = ""

    def key(self, m: Move) -> tuple[int, ...]:
        raise NotImplementedError

    def lay(self, cards: list[int]) -> int:
        return _lowest_value_lay(cards)

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        captures = [m for m in moves if m.take]
        if captures:
            return max(captures, key=self.key)
        card = self.lay([m.card for m in moves])
        return next(m for m in moves if m.card == card)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return max(blows, key=self.key)


class GreedyStrategy(_KeyStrategy):
    name = "greedy"
    key = staticmethod(greedy_key)


class MaxOrosStrategy(_KeyStrategy):
    name = "maxoros"
    key = staticmethod(maxoros_key)

    def lay(self, cards: list[int]) -> int:
        plain = [c for c in cards if not is_oro(c)]
        return _lowest_value_lay(plain or cards)


STRATEGIES = {"random": RandomStrategy, "greedy": GreedyStrategy, "maxoros": MaxOrosStrategy}
STRATEGY_HELP = {
    "random": "a uniformly random legal card, then a random capture option",
    "greedy": "most cards, then escoba, 7 of oros, oros; lays its lowest card",
    "maxoros": "most oros, then 7 of oros, cards, escoba; lays its lowest non-oro",
}


class StrategyError(ValueError):
    """An unknown strategy name."""


def check_strategy(name: str) -> str:
    if name not in STRATEGIES:
        close = difflib.get_close_matches(name, list(STRATEGIES), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise StrategyError(f"unknown strategy `{name}`{hint}; strategies: {', '.join(STRATEGIES)}")
    return name


def make_strategy(name: str):
    return STRATEGIES[check_strategy(name)]()
