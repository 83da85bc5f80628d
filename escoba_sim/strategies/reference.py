"""The built-in strategies of the reference engine, defined exactly (docs/engine.md, docs/strategies.md).

Each class decides from a ``HandState`` what its player may see; the compiled core implements the
same decisions bit for bit (csrc/escoba_strategies.h). The endgame solver lives in ``endgame``.
"""

from __future__ import annotations

from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, is_oro, mask_of, value
from ..game.engine import HandState, Move
from ..game.rng import SplitMix64

FULL = (1 << 40) - 1
# VALUE_MASK[v]: every card of value v (1..10), e.g. the four sevens for v = 7
VALUE_MASK = [0] + [sum(1 << (s * 10 + v - 1) for s in range(4)) for v in range(1, 11)]


def greedy_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return (t.bit_count(), int(m.escoba), t >> SIETE_OROS & 1, (t & OROS_MASK).bit_count(), -t)


def maxoros_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return ((t & OROS_MASK).bit_count(), t >> SIETE_OROS & 1, t.bit_count(), int(m.escoba), -t)


def sevens_key(m: Move) -> tuple[int, int, int, int, int, int]:
    t = m.taken_mask
    return (t >> SIETE_OROS & 1, (t & SEVENS_MASK).bit_count(), t.bit_count(), int(m.escoba),
            (t & OROS_MASK).bit_count(), -t)


def _lowest_value_lay(cards: list[int]) -> int:
    # lowest value first, ties to the highest card id
    return min(cards, key=lambda c: (value(c), -c))


def mask_sum(mask: int) -> int:
    return sum(value(c) for c in range(40) if mask >> c & 1)


def unseen_mask(st: HandState) -> int:
    """Cards the seat to play has not seen: not in its hand, on the table or in any pile (docs/engine.md)."""
    m = FULL & ~mask_of(st.hands[st.to_play]) & ~mask_of(st.table)
    for p in st.piles:
        m &= ~p
    return m


def clear_count(table: int, unseen: int) -> int:
    """How many unseen cards would clear ``table`` alone (its sum plus their value is 15); 0 for an empty table."""
    if not table:
        return 0
    need = 15 - mask_sum(table)
    return (unseen & VALUE_MASK[need]).bit_count() if 1 <= need <= 10 else 0


def risk_of(table: int, unseen: int) -> float:
    """The chance that one unseen card, drawn at random, clears ``table`` (0.0 when nothing is unseen)."""
    u = unseen.bit_count()
    return clear_count(table, unseen) / u if u else 0.0


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


class SevensStrategy(_KeyStrategy):
    name = "sevens"
    key = staticmethod(sevens_key)

    def lay(self, cards: list[int]) -> int:
        plain = [c for c in cards if not SEVENS_MASK >> c & 1]
        return _lowest_value_lay(plain or cards)


class DefensiveStrategy(_KeyStrategy):
    """Greedy, but first it leaves the table that the fewest unseen cards can clear."""

    name = "defensive"
    key = staticmethod(greedy_key)

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        unseen, table = unseen_mask(st), mask_of(st.table)
        captures = [m for m in moves if m.take]
        if captures:
            return max(captures, key=lambda m: (-clear_count(table & ~m.taken_mask, unseen), *greedy_key(m)))
        card = min((m.card for m in moves),
                   key=lambda c: (clear_count(table | 1 << c, unseen), value(c), -c))
        return next(m for m in moves if m.card == card)


HEURISTIC_PARAMS = ("cards", "oros", "sevens", "siete", "escoba", "risk", "keep")


class HeuristicStrategy:
    """A weighted score per move (docs/engine.md, heuristic): the best score, ties as documented."""

    name = "heuristic"

    def __init__(self, cards=1.0, oros=1.0, sevens=1.5, siete=3.0, escoba=4.0, risk=20.0, keep=0.5, **_):
        self.w = (float(cards), float(oros), float(sevens), float(siete), float(escoba), float(risk), float(keep))

    def capture_score(self, taken: int, escoba: int, risk: float) -> float:
        wc, wo, ws, wt, we, wr, _ = self.w
        # the order of the terms is part of the contract: the C core sums them the same way
        return (wc * taken.bit_count() + wo * (taken & OROS_MASK).bit_count() + ws * (taken & SEVENS_MASK).bit_count()
                + wt * (taken >> SIETE_OROS & 1) + we * escoba - wr * risk)

    def lay_score(self, card: int, risk: float) -> float:
        _, wo, ws, wt, _, wr, wk = self.w
        return -(wr * risk) - wk * (wo * is_oro(card) + ws * (SEVENS_MASK >> card & 1) + wt * (card == SIETE_OROS))

    def heuristic_move(self, st: HandState, moves: list[Move]) -> Move:
        unseen, table = unseen_mask(st), mask_of(st.table)
        best, best_key = None, None
        for m in moves:
            if m.take:
                t = m.taken_mask
                key = (self.capture_score(t, int(m.escoba), risk_of(table & ~t, unseen)), 1, -t, 0, 0)
            else:
                key = (self.lay_score(m.card, risk_of(table | 1 << m.card, unseen)), 0, 0, -value(m.card), m.card)
            if best_key is None or key > best_key:
                best, best_key = m, key
        assert best is not None
        return best

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        return self.heuristic_move(st, moves)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return max(blows, key=lambda m: (self.capture_score(m.taken_mask, 0, 0.0), -m.taken_mask))


class LevelStrategy:
    """A rung of the ladder (strategies.levels): at each decision one draw ``below(1000)``; under
    ``random_share`` random's choice (its own draws following), else the base strategy's."""

    name = "level"

    def __init__(self, base, random_share: int):
        self.base, self.random_share, self.random = base, int(random_share), RandomStrategy()

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        if rng.below(1000) < self.random_share:
            return self.random.choose_move(st, moves, rng)
        return self.base.choose_move(st, moves, rng)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        if rng.below(1000) < self.random_share:
            return self.random.choose_blow(st, blows, rng)
        return self.base.choose_blow(st, blows, rng)
