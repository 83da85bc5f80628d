"""``endgame``: the heuristic until the stock is empty, then an exact alpha-beta search of the rest of the hand."""

from __future__ import annotations

import math
from typing import NamedTuple

from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, mask_of
from ..game.engine import HandState, Move, capture_options, majority_points
from ..game.rng import SplitMix64
from ..game.rules import Ruleset
from ..stops import check as check_stop
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


class Node(NamedTuple):
    """A position of the exact search: the cards as bit masks (hands and piles by seat) and the points so far.

    The rules ride along so a node is the whole position; a move makes a new node (the lists are copied
    where they change, so a node is never modified after it is made).
    """

    rules: Ruleset
    hands: list[int]
    table: int
    piles: list[int]
    escobas: list[int]
    last: int  # the last capturer, -1 before any capture (who takes the table at the end)


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

    # -- the exact search: a Node (the cards and points so far), the seat to act and a pending blow
    def _leaf(self, node: Node) -> int:
        piles = list(node.piles)
        if node.last >= 0:
            piles[node.last] |= node.table
        tot = _hand_totals(node.rules, piles, node.escobas)
        return tot[self.me] - tot[1 - self.me]

    def _after(self, node: Node, seat: int, pending, alpha, beta) -> int:
        """Value once ``seat`` has played: the next seat holding cards moves, or the hand ends."""
        hands = node.hands
        other = 1 - seat
        nxt = other if hands[other] else (seat if hands[seat] else -1)
        if nxt < 0:
            return self._leaf(node)
        return self._turn(node, nxt, pending, alpha, beta)

    def _turn(self, node: Node, seat: int, pending, alpha, beta) -> int:
        """Value of ``seat``'s turn, its blow decision first when a blow is open."""
        if pending is not None:
            card, opts = pending
            choices = [0] + opts
            return self._choose(seat, choices, alpha, beta,
                                lambda take, a, b: self._blown(node, seat, card, take, a, b))
        return self._moves_value(node, seat, alpha, beta)

    def _blown(self, node: Node, seat: int, card: int, take: int, alpha, beta) -> int:
        if take:
            taken = take | 1 << card
            piles = list(node.piles)
            piles[seat] |= taken
            node = node._replace(table=node.table & ~taken, piles=piles, last=seat)
        return self._moves_value(node, seat, alpha, beta)

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

    def _moves_value(self, node: Node, seat: int, alpha, beta) -> int:
        check_stop()  # a Stop the thread runs under (escoba_sim/stops.py), set: the search ends with Stopped
        moves = self.legal(node.rules, node.hands[seat], node.table)
        return self._choose(seat, moves, alpha, beta, lambda mv, a, b: self._played(node, seat, mv, a, b))

    def _played(self, node: Node, seat: int, mv: tuple[int, int], alpha, beta) -> int:
        rules, table, piles, escobas, last = node.rules, node.table, node.piles, node.escobas, node.last
        card, take = mv
        bit = 1 << card
        hands = list(node.hands)
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
        return self._after(Node(rules, hands, table, piles, escobas, last), seat, pending, alpha, beta)

    def _root(self, st: HandState) -> Node:
        self.me = st.to_play
        return Node(st.rules, [mask_of(h) for h in st.hands], mask_of(st.table), list(st.piles), list(st.escobas),
                     st.last_capturer)

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        if not self._solvable(st):
            return self.heuristic_move(st, moves)
        root = self._root(st)
        best, best_v = moves[0], -math.inf
        for m in moves:  # legal-move order; the first move with the highest value wins
            v = self._played(root, self.me, (m.card, mask_of(m.take)), best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        if not self._solvable(st):
            return super().choose_blow(st, blows, rng)
        root = self._root(st)
        best, best_v = None, -math.inf
        for m in [None, *blows]:  # no blow first, then the blows by mask
            take = mask_of(m.take) if m else 0
            v = self._blown(root, self.me, m.card if m else 0, take, best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best
