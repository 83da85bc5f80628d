"""``endgame``: the heuristic until the stock is empty, then an exact alpha-beta search of the rest of the hand."""

from __future__ import annotations

import math

from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, mask_of
from ..game.engine import HandState, Move, capture_options, majority_points
from ..game.rng import SplitMix64
from .reference import HeuristicStrategy


def _hand_totals(rules, piles: list[int], escobas: list[int]) -> list[int]:
    """Each side's hand total from its final pile (the same points as engine.score_piles)."""
    cards = [p.bit_count() for p in piles]
    oros = [(p & OROS_MASK).bit_count() for p in piles]
    sevens = [(p & SEVENS_MASK).bit_count() for p in piles]

    sv = [int(n == 4) for n in sevens] if rules.sevens == "all" else majority_points(sevens, rules.ties)
    ob, cb = majority_points(oros, rules.ties), majority_points(cards, rules.ties)
    return [escobas[i] + (piles[i] >> SIETE_OROS & 1) + sv[i] + ob[i] + cb[i]
            + rules.bonus_all_oros * (oros[i] == 10) + rules.bonus_all_sevens * (sevens[i] == 4)
            for i in range(len(piles))]


def _options(card: int, table: int) -> list[int]:
    return [mask_of(t) for t in capture_options(card, [c for c in range(40) if table >> c & 1])]


class EndgameStrategy(HeuristicStrategy):
    """Heuristic until the stock is empty; then, two players alone, minimax of the rest of the hand."""

    name = "endgame"

    def __init__(self, max_cards=6, **weights):
        super().__init__(**weights)
        self.max_cards = int(max_cards)

    def _solvable(self, st: HandState) -> bool:
        r = st.rules
        return (r.players == 2 and not r.teams and not st.stock
                and len(st.hands[0]) + len(st.hands[1]) <= self.max_cards)

    # -- the exact search: a node is (hands, table, piles, escobas, last capturer, seat, pending blow)
    def _leaf(self, rules, table, piles, escobas, last) -> int:
        piles = list(piles)
        if last >= 0:
            piles[last] |= table
        tot = _hand_totals(rules, piles, escobas)
        return tot[self.me] - tot[1 - self.me]

    def _after(self, rules, hands, table, piles, escobas, last, seat, pending, alpha, beta) -> int:
        """Value once ``seat`` has played: the next seat holding cards moves, or the hand ends."""
        other = 1 - seat
        nxt = other if hands[other] else (seat if hands[seat] else -1)
        if nxt < 0:
            return self._leaf(rules, table, piles, escobas, last)
        return self._turn(rules, hands, table, piles, escobas, last, nxt, pending, alpha, beta)

    def _turn(self, rules, hands, table, piles, escobas, last, seat, pending, alpha, beta) -> int:
        """Value of ``seat``'s turn, its blow decision first when a blow is open."""
        if pending is not None:
            card, opts = pending
            choices = [0] + opts
            return self._choose(seat, choices, alpha, beta, lambda take, a, b: self._blown(
                rules, hands, table, piles, escobas, last, seat, card, take, a, b))
        return self._moves_value(rules, hands, table, piles, escobas, last, seat, alpha, beta)

    def _blown(self, rules, hands, table, piles, escobas, last, seat, card, take, alpha, beta) -> int:
        if take:
            taken = take | 1 << card
            table &= ~taken
            piles = list(piles)
            piles[seat] |= taken
            last = seat
        return self._moves_value(rules, hands, table, piles, escobas, last, seat, alpha, beta)

    def _choose(self, seat, choices, alpha, beta, value_of) -> int:
        """Max (own seat) or min (opponent) over ``choices`` with alpha-beta (fail-hard)."""
        if seat == self.me:
            for c in choices:
                alpha = max(alpha, value_of(c, alpha, beta))
                if alpha >= beta:
                    return beta
            return alpha
        for c in choices:
            beta = min(beta, value_of(c, alpha, beta))
            if alpha >= beta:
                return alpha
        return beta

    def legal(self, rules, hand: int, table: int) -> list[tuple[int, int]]:
        """(card, take) in legal-move order (docs/engine.md); take 0 lays."""
        cards = [c for c in range(40) if hand >> c & 1]
        opts = {c: _options(c, table) for c in cards}
        any_capture = any(opts.values())
        out = []
        for c in cards:
            if rules.capture == "any" and any_capture and not opts[c]:
                continue
            out.extend((c, t) for t in opts[c])
            if not opts[c] or rules.capture == "optional":
                out.append((c, 0))
        return out

    def _moves_value(self, rules, hands, table, piles, escobas, last, seat, alpha, beta) -> int:
        moves = self.legal(rules, hands[seat], table)
        return self._choose(seat, moves, alpha, beta, lambda mv, a, b: self._played(
            rules, hands, table, piles, escobas, last, seat, mv, a, b))

    def _played(self, rules, hands, table, piles, escobas, last, seat, mv, alpha, beta) -> int:
        card, take = mv
        bit = 1 << card
        hands = list(hands)
        hands[seat] &= ~bit
        pending = None
        if take:
            table &= ~take
            piles = list(piles)
            piles[seat] |= take | bit
            last = seat
            if not table:
                escobas = list(escobas)
                escobas[seat] += 1
        else:
            if rules.soplar:
                opts = _options(card, table)
                if opts:
                    pending = (card, opts)
            table |= bit
        return self._after(rules, hands, table, piles, escobas, last, seat, pending, alpha, beta)

    def _root(self, st: HandState):
        self.me = st.to_play
        hands = [mask_of(h) for h in st.hands]
        return st.rules, hands, mask_of(st.table), list(st.piles), list(st.escobas), st.last_capturer

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        if not self._solvable(st):
            return self.heuristic_move(st, moves)
        rules, hands, table, piles, escobas, last = self._root(st)
        best, best_v = moves[0], -math.inf
        for m in moves:  # legal-move order; the first move with the highest value wins
            v = self._played(rules, hands, table, piles, escobas, last, self.me,
                             (m.card, mask_of(m.take)), best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        if not self._solvable(st):
            return super().choose_blow(st, blows, rng)
        rules, hands, table, piles, escobas, last = self._root(st)
        best, best_v = None, -math.inf
        for m in [None, *blows]:  # no blow first, then the blows by mask
            take = mask_of(m.take) if m else 0
            v = self._blown(rules, hands, table, piles, escobas, last, self.me, m.card if m else 0, take,
                            best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best
