"""SplitMix64 streams: the only source of chance, identical to csrc/escoba_rng.h.

A hand's deck order and its strategies' random draws come from generators
seeded by ``stream_state(seed, game, hand, stream)``, so any hand of any run
can be replayed alone, by either engine, on any worker (docs/engine.md).
``DEAL_STREAM_VERSION`` names the way a DECK stream becomes a deck: run
folders and hand records store it, and a run dealt with another version is
not resumed (its hands would differ).
"""

from __future__ import annotations

import secrets

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
GOLDEN = 0x9E3779B97F4A7C15
DECK, PLAY = 0, 1
# 1 (escoba-sim 0.1.0 until this change): one below(i + 1) = (next() * (i + 1)) >> 64 per swap.
# 2: two swaps per next(), each from one 32-bit half with exact rejection (shuffled_deck).
DEAL_STREAM_VERSION = 2


def draw_seed() -> int:
    """A run seed (0 to 2^64-1) from the system's randomness, for a command given none; the one place a
    seed is drawn, so every command's drawn seed is of the same range as a typed ``--seed``."""
    return secrets.randbits(64)


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


def words32(rng: SplitMix64):
    """The generator's outputs as 32-bit words: each output's high half, then its low half."""
    while True:
        x = rng.next()
        yield x >> 32
        yield x & M32


def below32(words, n: int) -> int:
    """Uniform in [0, n) (1 <= n < 2^32), exactly: Lemire's multiply-shift on 32-bit words.

    ``m = w * n`` maps a word to ``m >> 32``; the ``2^32 mod n`` words whose low half
    ``m & M32`` falls below ``2^32 mod n`` are rejected (the next word is taken), so every
    result stands for exactly ``floor(2^32 / n)`` words. With n <= 40 a rejection happens
    about once in 14 million shuffles (the sum over n = 2..40 of (2^32 mod n) / 2^32).
    """
    reject_below = (1 << 32) % n
    while True:
        m = next(words) * n
        if m & M32 >= reject_below:
            return m >> 32


def shuffle(rng: SplitMix64) -> list[int]:
    """Fisher-Yates from the top on a DECK stream (deal stream 2): ``deck[0]`` is dealt first."""
    words = words32(rng)
    deck = list(range(40))
    for i in range(39, 0, -1):
        j = below32(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffled_deck(seed: int, game: int, hand: int) -> list[int]:
    """The deck of one hand in dealing order."""
    return shuffle(SplitMix64.for_hand(seed, game, hand, DECK))
