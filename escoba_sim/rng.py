"""SplitMix64 streams: the only source of chance, identical to csrc/escoba_rng.h.

A hand's deck order and its strategies' random draws come from generators
seeded by ``stream_state(seed, game, hand, stream)``, so any hand of any run
can be replayed alone, by either engine, on any worker (docs/engine.md).
"""

from __future__ import annotations

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
DECK, PLAY = 0, 1


def _finalize(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix64(x: int) -> int:
    """The value ``next()`` returns for a generator whose state is ``x``."""
    return _finalize((x + GOLDEN) & M64)


def stream_state(seed: int, game: int, hand: int, stream: int) -> int:
    return mix64(mix64(mix64(seed & M64) ^ (game & M64)) ^ (((hand << 2) | stream) & M64))


class SplitMix64:
    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & M64

    @classmethod
    def for_hand(cls, seed: int, game: int, hand: int, stream: int) -> SplitMix64:
        return cls(stream_state(seed, game, hand, stream))

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & M64
        return _finalize(self.state)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) from the high half of a 128-bit product."""
        return (self.next() * n) >> 64


def shuffled_deck(seed: int, game: int, hand: int) -> list[int]:
    """The deck of one hand in dealing order (Fisher-Yates on the DECK stream)."""
    rng = SplitMix64.for_hand(seed, game, hand, DECK)
    deck = list(range(40))
    for i in range(39, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
