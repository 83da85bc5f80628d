"""The fixed action encoding and observation planes of the game-AI interfaces.

The OpenSpiel game (``escoba_sim.env.openspiel``), the PettingZoo environment and
the vectorised environment (``escoba_sim.env``) all speak this one encoding;
the moves themselves are the reference engine's (``engine.legal_moves``,
``apply_move``, ``apply_blow``), so no rule is restated here. Nothing in this
module needs an optional dependency.

Actions (``N_ACTIONS`` = 82), the same meaning in every state:

- ``0..39`` (``card``): play that card from the hand.
- ``40..79`` (``TAKE + t``): take table card ``t`` into the capture (or blow)
  being built; captures are built in ascending card id.
- ``80`` (``LAY``): lay the chosen card without capturing.
- ``81`` (``NO_BLOW``): decline a blow (soplar).

A turn is one to a few decisions: the seat first picks a card; if that card
has a single legal move it is played at once, otherwise the seat picks the
table cards it takes one at a time in ascending id (or ``LAY``) until exactly
one legal move is left, which is then played (a capture is complete when its
sum is reached). Offered a blow, the seat first answers ``NO_BLOW`` or builds
the blow the same way. So every legal move of docs/engine.md is reachable and
each has exactly one action sequence.

Observation planes (``observation_planes``), from one seat's point of view,
sides and seats counted from that seat (0 = its own), all small integers:
``hand``, ``table``, ``pile[side]`` (cards each side has taken so far),
``played`` (every card played from a hand so far), ``blow`` (the laid card open
to a blow), ``chosen_card`` and ``chosen_take`` (the decision in progress),
then scalars ``stock`` (cards left), ``hand_sizes[seat]``, ``escobas[side]``,
``to_play[seat]`` (one-hot), ``dealer[seat]`` (one-hot) and ``phase``
(one-hot: blow, card, take). ``PLANES`` and ``observation_size`` give the
layout.

Wrong arguments (a seat that does not exist, an action that is not an integer)
raise ``ValueError`` (an illegal action: ``engine.IllegalMove``, a ValueError);
docs/ecosystem.md lists what each interface raises.
"""

from __future__ import annotations

import numbers
import random

import numpy as np

from ..game import engine
from ..game.cards import card_str, cards_of, cards_str, mask_of
from ..game.engine import HandState, Move
from ..game.rules import Ruleset
from ..native import core

N_CARDS = 40
TAKE = 40
LAY = 80
NO_BLOW = 81
N_ACTIONS = 82

BLOW, CARD, TAKE_PHASE, OVER = 0, 1, 2, 3
# the compiled core's capture_options gives the reference engine's lists ~4x faster (search calls it a lot)
_options_of = core.capture_options if core is not None else engine.capture_options
_PHASE_TEXT = ("answer a blow", "play a card", "choose the table cards to take", "")


def whole_number(value, what: str, low: int, high: int, exc: type[Exception] = ValueError) -> int:
    """``value`` as an int when it is a whole number (a Python or numpy integer, never a bool or a float)
    with ``low <= value < high``; else ``exc`` with one line naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral | np.integer):
        raise exc(f"{what} must be an integer from {low} to {high - 1}, got {type(value).__name__} {value!r:.40}")
    v = int(value)
    if not low <= v < high:
        raise exc(f"{what} must be an integer from {low} to {high - 1}, got {v}")
    return v


def action_str(action: int) -> str:
    if action < TAKE:
        return f"play {card_str(action)}"
    if action < LAY:
        return f"take {card_str(action - TAKE)}"
    return "lay" if action == LAY else "no blow"


def observation_layout(rules: Ruleset) -> list[tuple[str, int]]:
    """(name, length) of each block of the observation vector, in order."""
    ns, np_ = rules.n_sides, rules.players
    return [("hand", 40), ("table", 40), ("pile", 40 * ns), ("played", 40), ("blow", 40), ("chosen_card", 40),
            ("chosen_take", 40), ("stock", 1), ("hand_sizes", np_), ("escobas", ns), ("to_play", np_),
            ("dealer", np_), ("phase", 3)]


def observation_size(rules: Ruleset) -> int:
    return sum(n for _, n in observation_layout(rules))


def observation_offsets(rules: Ruleset) -> dict[str, int]:
    out, at = {}, 0
    for name, n in observation_layout(rules):
        out[name] = at
        at += n
    return out


def hand_returns(rules: Ruleset, totals) -> list[float]:
    """Each player's return: its side's points minus the mean of the other sides' points."""
    ns = rules.n_sides
    out = []
    for seat in range(rules.players):
        s = rules.side_of(seat)
        others = sum(totals[o] for o in range(ns) if o != s) / (ns - 1)
        out.append(float(totals[s] - others))
    return out


class ActionHand:
    """One hand of the reference engine driven by the action encoding above.

    ``st`` is the engine's ``HandState``; ``phase`` says what the seat to play
    decides now; ``candidates`` are the engine moves still consistent with the
    decision in progress (``None`` stands for "no blow").
    """

    __slots__ = ("st", "phase", "card", "chosen", "candidates", "_moves", "lay_checks", "_legal", "strings",
                 "_history", "_history_n")

    def __init__(self, st: HandState):
        self.st = st
        self.card = -1
        self.chosen: tuple[int, ...] = ()
        self.candidates: list[Move | None] = []
        self._moves: list[Move] | None = None
        # capture=any: each lay tells that the layer's whole hand could not capture (see resample)
        self.lay_checks: list[tuple[int, int, int]] = []
        # caches for search (OpenSpiel's ISMCTS asks for these many times per state): the legal actions of
        # the decision in progress, strings of this state by key (None after any change), the public history
        self._legal: list[int] | None = None
        self.strings: dict | None = None
        self._history, self._history_n = "", 0
        self._start_turn()

    @classmethod
    def deal(cls, rules: Ruleset, deck: list[int], dealer: int) -> ActionHand:
        return cls(engine.new_hand(rules, deck, dealer))

    def copy(self) -> ActionHand:
        st = self.st
        new_st = HandState(st.rules, st.dealer, st.deck, [list(h) for h in st.hands], list(st.table),
                           list(st.stock), list(st.piles), list(st.escobas), list(st.lucky_escobas),
                           st.lucky_deal, st.to_play, st.last_capturer, st.pending_blow, list(st.moves),
                           st.result, list(st.voids))
        new = ActionHand.__new__(ActionHand)
        new.st, new.phase, new.card, new.chosen = new_st, self.phase, self.card, self.chosen
        new.candidates, new._moves, new.lay_checks = list(self.candidates), self._moves, list(self.lay_checks)
        new._legal, new.strings, new._history, new._history_n = self._legal, None, self._history, self._history_n
        return new

    def __deepcopy__(self, memo) -> ActionHand:  # OpenSpiel clones states with deepcopy
        return self.copy()

    # ---------------------------------------------------------------- turns
    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def to_play(self) -> int:
        return self.st.to_play

    def _start_turn(self) -> None:
        self.card, self.chosen, self._moves, self._legal = -1, (), None, None
        st = self.st
        if st.over:
            self.phase, self.candidates = OVER, []
            return
        blows = engine.blow_options(st)
        if blows:
            self.phase, self.candidates = BLOW, [None, *blows]
        else:
            self.phase, self.candidates = CARD, []

    def moves(self) -> list[Move]:
        """The engine's legal moves of the seat to play (its card decision; cached for the turn)."""
        if self._moves is None:
            self._moves = engine.legal_moves(self.st, _options_of)
        return self._moves

    def legal_actions(self) -> list[int]:
        """The legal actions now, ascending (a new list; computed once per decision)."""
        if self._legal is None:
            self._legal = self._legal_now()
        return list(self._legal)

    def _legal_now(self) -> list[int]:
        if self.phase == CARD:
            return sorted({m.card for m in self.moves()})
        if self.phase == OVER:
            return []
        k = len(self.chosen)
        acts = {TAKE + m.take[k] for m in self.candidates if m is not None and len(m.take) > k}
        if k == 0:
            if self.phase == BLOW:
                acts.add(NO_BLOW)
            elif any(m is not None and not m.take for m in self.candidates):
                acts.add(LAY)
        return sorted(acts)

    def apply(self, action: int) -> None:
        """Apply one action; raises ``engine.IllegalMove`` if it is not legal here (or not an integer)."""
        if type(action) is not int or not 0 <= action < N_ACTIONS:
            action = whole_number(action, "an action", 0, N_ACTIONS, engine.IllegalMove)
        legal = self._legal if self._legal is not None else self.legal_actions()
        if action not in legal:
            raise engine.IllegalMove(f"action {action} ({action_str(action)}) is not legal now "
                                     f"(legal: {self.legal_actions()})")
        self._legal, self.strings = None, None
        if self.phase == CARD:
            self.card = action
            self.candidates = [m for m in self.moves() if m.card == action]
            self.phase = TAKE_PHASE
        elif action == NO_BLOW:
            engine.apply_blow(self.st, None)
            self.candidates, self.phase = [], CARD
            return
        elif action == LAY:
            self.candidates = [m for m in self.candidates if m is not None and not m.take]
        else:
            self.chosen += (action - TAKE,)
            k = len(self.chosen)
            self.candidates = [m for m in self.candidates if m is not None and m.take[:k] == self.chosen]
        if len(self.candidates) == 1:
            self._play(self.candidates[0])

    def _play(self, move: Move | None) -> None:
        st = self.st
        if self.phase == BLOW:
            engine.apply_blow(st, move)
            self.card, self.chosen, self.candidates, self.phase = -1, (), [], CARD
            return
        assert move is not None
        if not move.take and st.rules.capture == "any":
            self.lay_checks.append((move.player, mask_of(st.table), len(st.stock)))
        engine.apply_move(st, move, legal=self.moves(), options_of=_options_of)
        self._start_turn()

    def actions_for(self, decision: Move | None) -> list[int]:
        """The action sequence that makes ``decision`` (a legal move, or a blow / ``None`` in the blow phase)."""
        if self.phase == BLOW:
            if decision is None:
                return [NO_BLOW]
            cands: list[Move | None] = list(self.candidates)
            out: list[int] = []
        else:
            assert decision is not None
            out = [decision.card]
            cands = [m for m in self.moves() if m.card == decision.card]
            if len(cands) > 1 and not decision.take:
                return out + [LAY]
        for k, t in enumerate(decision.take):
            if len(cands) == 1:
                break
            out.append(TAKE + t)
            cands = [m for m in cands if m is not None and m.take[:k + 1] == decision.take[:k + 1]]
        return out

    # ---------------------------------------------------------------- what a seat sees
    def observation_planes(self, seat: int, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` (zeroed, ``observation_size`` long) with ``seat``'s view (module docstring)."""
        st, rules = self.st, self.st.rules
        n, ns = rules.players, rules.n_sides
        off = observation_offsets(rules)
        my_side = rules.side_of(seat)
        piles = [st.piles[(my_side + k) % ns] for k in range(ns)]  # own side first
        blow = 1 << st.pending_blow[0] if self.phase == BLOW else 0
        card = 1 << self.card if self.card >= 0 else 0
        planes = [mask_of(st.hands[seat]), mask_of(st.table), *piles,
                  mask_of(m.card for m in st.moves if not m.soplar), blow, card, mask_of(self.chosen)]
        # the 40-card planes are the first blocks of the layout, in this order
        out[:40 * len(planes)] = np.unpackbits(
            np.frombuffer(b"".join(m.to_bytes(5, "little") for m in planes), np.uint8), bitorder="little")
        for s in range(ns):
            out[off["escobas"] + (s - my_side) % ns] = st.escobas[s]
        out[off["stock"]] = len(st.stock)
        for s in range(n):
            out[off["hand_sizes"] + (s - seat) % n] = len(st.hands[s])
        if not st.over:
            out[off["to_play"] + (st.to_play - seat) % n] = 1
            out[off["phase"] + self.phase] = 1
        out[off["dealer"] + (st.dealer - seat) % n] = 1
        return out

    def observation_string(self, seat: int) -> str:
        st, rules = self.st, self.st.rules
        piles = " | ".join(f"side {s} took {cards_str(cards_of(p)) or '-'}" for s, p in enumerate(st.piles))
        lines = [f"seat {seat} (side {rules.side_of(seat)}), dealer {st.dealer}",
                 f"hand: {cards_str(st.hands[seat]) or '-'}",
                 f"table: {cards_str(st.table) or '-'}",
                 piles,
                 f"escobas: {' '.join(map(str, st.escobas))}; stock: {len(st.stock)}; "
                 f"hands: {' '.join(str(len(h)) for h in st.hands)}"]
        if self.over:
            lines.append("hand over")
        else:
            lines.append(f"seat {st.to_play} to {_PHASE_TEXT[self.phase]}")
            if self.phase == BLOW:
                lines.append(f"blow open: {card_str(st.pending_blow[0])}")
            if self.card >= 0:
                lines.append(f"chosen: {card_str(self.card)} taking {cards_str(self.chosen) or '-'}")
        return "\n".join(lines)

    def public_history(self) -> str:
        """Every move so far as ``seat:move``, ``; ``-separated (extended, not rebuilt, as moves are added)."""
        moves = self.st.moves
        if self._history_n != len(moves):
            new = "; ".join(f"{m.player}:{m}" for m in moves[self._history_n:])
            self._history = f"{self._history}; {new}" if self._history_n else new
            self._history_n = len(moves)
        return self._history

    # ---------------------------------------------------------------- hidden information
    def unseen_by(self, seat: int) -> list[int]:
        """Cards ``seat`` cannot see: the other hands and the stock."""
        return sorted([c for s, h in enumerate(self.st.hands) if s != seat for c in h] + self.st.stock)

    def resample(self, seat: int, rng: random.Random, max_tries: int = 10_000) -> tuple[ActionHand, bool]:
        """A copy with the cards ``seat`` cannot see dealt again at random, consistent with what it saw.

        The unseen cards are shuffled into the same places (other hands, stock,
        the deck positions they came from), so every public fact stays true.
        Under ``capture=any`` a lay also says the layer's whole hand could not
        capture: samples breaking that are rejected (exact rejection sampling).
        Returns (copy, True), or after ``max_tries`` rejections the true
        hidden cards and False.
        """
        st = self.st
        seat = whole_number(seat, "seat", 0, st.rules.players)
        positions = {c: i for i, c in enumerate(st.deck)}
        unseen = self.unseen_by(seat)
        checks = [(s, table, stock) for s, table, stock in self.lay_checks if s != seat]
        for _ in range(max_tries):
            new = unseen[:]
            rng.shuffle(new)
            mapping = dict(zip(unseen, new))
            if checks and not self._consistent(mapping, positions, checks):
                continue
            out = self.copy()
            nst = out.st
            for s in range(len(nst.hands)):
                if s != seat:
                    nst.hands[s] = sorted(mapping[c] for c in nst.hands[s])
            nst.stock = [mapping[c] for c in nst.stock]
            nst.deck = [mapping.get(c, c) for c in st.deck]
            if out.to_play != seat:
                out._moves, out._legal = None, None
            return out, True
        return self.copy(), False

    def _consistent(self, mapping: dict[int, int], positions: dict[int, int], checks) -> bool:
        st = self.st
        for s, table, stock_then in checks:
            # cards of s now that it already held at that lay: dealt before the stock had `stock_then` cards
            dealt_before = 40 - stock_then
            table_cards = cards_of(table)
            for c in st.hands[s]:
                if positions[c] < dealt_before and _options_of(mapping[c], table_cards):
                    return False
        return True


class SeatStrategy:
    """A built-in strategy spec deciding for the seat to play of an ``ActionHand``.

    ``decide`` returns the engine decision the strategy makes at the start of a
    turn (a blow or ``None`` in the blow phase, else a move), drawing from the
    hand's PLAY stream ``rng`` as ``engine.run_hand`` does; ``play`` applies it.
    ``ismcts`` has no reference implementation: its decisions are the compiled
    core's own (``batch.make_player``), as in ``trace``.
    """

    def __init__(self, spec):
        from ..batch import make_player
        from ..strategies import parse_strategy

        self.spec = parse_strategy(spec)
        self.impl = make_player(self.spec)

    def decide(self, hand: ActionHand, rng) -> Move | None:
        st = hand.st
        if hand.phase == BLOW:
            return self.impl.choose_blow(st, [m for m in hand.candidates if m is not None], rng)
        return self.impl.choose_move(st, hand.moves(), rng)

    def play(self, hand: ActionHand, rng) -> None:
        for a in hand.actions_for(self.decide(hand, rng)):
            hand.apply(a)
