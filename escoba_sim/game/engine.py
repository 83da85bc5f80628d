"""The reference engine: one readable, pure-Python hand and game of Escoba del 15.

It is the oracle the compiled core is tested against, so it follows
docs/engine.md line by line and favours clarity over speed. A hand is a
``HandState`` that moves forward one ``Move`` at a time; ``play_hand`` and
``play_game`` drive it with strategies and the seeded streams of ``rng``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..errors import EscobaError
from ..i18n import N_, ngettext
from ..i18n import translate as _
from .cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, card_str, cards_str, mask_of, value
from .rng import PLAY, SplitMix64, shuffled_deck
from .rules import Ruleset

MAX_HANDS_PER_GAME = 10_000  # a game ends with probability 1; this only guards a broken ruleset


VOIDS_OFF = 1  # HandState.voids: the seat's play contradicted the reading this deal


class IllegalMove(EscobaError):
    """A move that the rules do not allow in the current state."""


@dataclass(frozen=True)
class Move:
    """One action: ``card`` played with ``take`` (table cards, sorted) captured.

    An empty ``take`` lays the card. A blow (``soplar``) takes the card the
    previous player laid (``card``) together with ``take``.
    """

    player: int
    card: int
    take: tuple[int, ...] = ()
    escoba: bool = False
    soplar: bool = False

    @property
    def is_capture(self) -> bool:
        return bool(self.take)

    @property
    def taken_mask(self) -> int:
        return mask_of(self.take) | (1 << self.card) if self.take else 0

    def __str__(self) -> str:
        if self.soplar:
            return f"blows {card_str(self.card)} + {cards_str(self.take)}"
        if not self.take:
            return f"lays {card_str(self.card)}"
        return f"plays {card_str(self.card)} takes {cards_str(self.take)}" + (" ESCOBA" if self.escoba else "")


def capture_options(card: int, table: list[int] | tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every non-empty subset of ``table`` that sums with ``card`` to 15, ordered by mask."""
    need = 15 - value(card)
    cards = sorted(table)
    found: list[tuple[int, ...]] = []

    def extend(start: int, remaining: int, chosen: list[int]) -> None:
        if remaining == 0:
            found.append(tuple(chosen))
            return
        for i in range(start, len(cards)):
            v = value(cards[i])
            if v <= remaining:
                chosen.append(cards[i])
                extend(i + 1, remaining - v, chosen)
                chosen.pop()

    extend(0, need, [])
    found.sort(key=mask_of)
    return found


def has_fifteen_split(cards: list[int]) -> bool:
    """Whether some non-empty subset of ``cards`` sums to 15."""
    sums = {0}
    for c in cards:
        sums |= {s + value(c) for s in sums if s + value(c) <= 15}
    return 15 in sums


@dataclass
class HandResult:
    """The outcome of one hand; per-side lists are indexed by side."""

    dealer: int
    lucky_deal: int  # groups of 15 the dealer took from the initial table (0, 1 or 2)
    leftovers: int  # cards left on the table at the end
    leftover_taker: int  # seat that took them, -1 for nobody
    escobas: list[int]
    lucky_escobas: list[int]
    siete_oros: list[int]
    sevens: list[int]
    oros: list[int]
    cards: list[int]
    bonus: list[int]
    total: list[int]
    cards_taken: list[int]
    oros_taken: list[int]
    sevens_taken: list[int]


def majority_points(counts: list[int], ties: str) -> list[int]:
    """1 for the side(s) with strictly the most; a side that took none never scores, tie or not."""
    top = max(counts)
    winners = [i for i, c in enumerate(counts) if c == top]
    if top == 0 or (len(winners) > 1 and ties == "none"):
        return [0] * len(counts)
    return [1 if c == top else 0 for c in counts]


def score_piles(rules: Ruleset, piles: list[int], escobas: list[int], lucky_escobas: list[int],
                dealer: int = 0, lucky_deal: int = 0, leftovers: int = 0, leftover_taker: int = -1) -> HandResult:
    """Score each side's pile (a card mask) by category (docs/engine.md, Scoring)."""
    cards_taken = [p.bit_count() for p in piles]
    oros_taken = [(p & OROS_MASK).bit_count() for p in piles]
    sevens_taken = [(p & SEVENS_MASK).bit_count() for p in piles]
    siete = [p >> SIETE_OROS & 1 for p in piles]
    if rules.sevens == "all":
        sevens = [1 if n == 4 else 0 for n in sevens_taken]
    else:
        sevens = majority_points(sevens_taken, rules.ties)
    oros = majority_points(oros_taken, rules.ties)
    cards = majority_points(cards_taken, rules.ties)
    bonus = [rules.bonus_all_oros * (o == 10) + rules.bonus_all_sevens * (s == 4)
             for o, s in zip(oros_taken, sevens_taken)]
    total = [sum(x) for x in zip(escobas, siete, sevens, oros, cards, bonus)]
    return HandResult(dealer, lucky_deal, leftovers, leftover_taker, list(escobas), list(lucky_escobas),
                      siete, sevens, oros, cards, bonus, total, cards_taken, oros_taken, sevens_taken)


@dataclass
class HandState:
    """Everything about a hand in progress. Seats hold sorted hands; ``piles`` are per side."""

    rules: Ruleset
    dealer: int
    deck: list[int]
    hands: list[list[int]]
    table: list[int]
    stock: list[int]
    piles: list[int]
    escobas: list[int]
    lucky_escobas: list[int]
    lucky_deal: int = 0
    to_play: int = -1  # -1 once the hand is over
    last_capturer: int = -1
    pending_blow: tuple[int, list[tuple[int, ...]]] | None = None
    moves: list[Move] = field(default_factory=list)
    result: HandResult | None = None
    # per seat, public (derived from the moves): bit v (1..10) = the seat laid a card while a card of value v
    # would have captured, so, if it captures whenever it can, it holds none until its next refill; bit 0
    # (VOIDS_OFF) = its play contradicted that this deal (note_voids). ismcts' `infer` reads it.
    voids: list[int] = field(default_factory=list)
    # public, one per move (blows apart), as the table saw it just before: (seat, card, take mask, table mask,
    # the piles' cards, stock left). ismcts' infer = 2 and the hand reading (hands.reading) weigh a seat's
    # moves of this round (stock left unchanged since) by what it could see then (csrc/escoba_reading.h).
    plays: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)

    def __post_init__(self):
        if not self.voids:
            self.voids = [0] * self.rules.players

    @property
    def over(self) -> bool:
        return self.to_play < 0

    def seat_order(self, start: int) -> list[int]:
        n = self.rules.players
        return [(start + k) % n for k in range(n)]


def new_hand(rules: Ruleset, deck: list[int], dealer: int) -> HandState:
    """Deal ``deck`` (all 40 cards in dealing order) and settle the lucky deal."""
    if sorted(deck) != list(range(40)):
        raise ValueError("a deck must hold each of the 40 cards exactly once")
    if not 0 <= dealer < rules.players:
        raise ValueError(f"dealer must be a seat from 0 to {rules.players - 1}")
    n_sides = rules.n_sides
    st = HandState(rules, dealer, list(deck), [[] for _ in range(rules.players)], [], [],
                   [0] * n_sides, [0] * n_sides, [0] * n_sides)
    pos = 0
    for seat in st.seat_order(dealer + 1):
        st.hands[seat] = sorted(deck[pos:pos + rules.hand_size])
        pos += rules.hand_size
    st.table = sorted(deck[pos:pos + rules.table_size])
    st.stock = list(deck[pos + rules.table_size:])
    _lucky_deal(st)
    st.to_play = _next_seat(st, dealer)
    return st


def _lucky_deal(st: HandState) -> None:
    mode = st.rules.lucky_deal
    total = sum(value(c) for c in st.table)
    groups = 0
    if mode != "off" and st.table:
        if total == 15:
            groups = 1
        elif total == 30 and mode == "escobas" and has_fifteen_split(st.table):
            groups = 2
    if groups:
        side = st.rules.side_of(st.dealer)
        st.piles[side] |= mask_of(st.table)
        st.table = []
        st.lucky_deal = groups
        if mode == "escobas":
            st.escobas[side] += groups
            st.lucky_escobas[side] += groups


def _next_seat(st: HandState, last: int) -> int:
    """The seat after ``last`` that holds cards, refilling by rounds if none does; -1 at the end."""
    for seat in st.seat_order(last + 1):
        if st.hands[seat]:
            return seat
    if st.rules.deal == "rounds" and st.stock:
        for seat in st.seat_order(st.dealer + 1):
            k = min(st.rules.hand_size, len(st.stock))
            st.hands[seat] = sorted(st.stock[:k])
            st.voids[seat] = 0
            del st.stock[:k]
        return _next_seat(st, last)
    return -1


def legal_moves(st: HandState, options_of=capture_options) -> list[Move]:
    """The legal moves of the seat to play, ordered by card id, captures by mask, lay last.

    ``options_of``: the ``capture_options`` function to use (search passes the compiled core's, which
    gives the same lists faster).
    """
    seat, table, mode = st.to_play, st.table, st.rules.capture
    options = {c: options_of(c, table) for c in st.hands[seat]}
    any_capture = any(options.values())
    moves: list[Move] = []
    for c in st.hands[seat]:
        opts = options[c]
        if mode == "any" and any_capture and not opts:
            continue
        for take in opts:
            moves.append(Move(seat, c, take, escoba=len(take) == len(table)))
        if not opts or mode == "optional":
            moves.append(Move(seat, c))
    return moves


def blow_options(st: HandState) -> list[Move]:
    """The blows open to the seat to play (empty when the last play can't be blown)."""
    if st.pending_blow is None:
        return []
    card, opts = st.pending_blow
    return [Move(st.to_play, card, take, soplar=True) for take in opts]


def capture_values(table: list[int]) -> int:
    """The values that would capture on ``table`` as a bit mask (bit v: 15 - v is the sum of some of its cards)."""
    sums = {0}
    for c in table:
        sums |= {x + value(c) for x in sums if x + value(c) <= 15}
    return sum(1 << v for v in range(1, 11) if 15 - v in sums)


def note_voids(st: HandState, move: Move, missed: bool) -> None:
    """Update the voids of the seat making ``move`` (before it is applied; ``missed``: a lay whose card could
    have captured). Playing a card of a value it was read not to hold, or laying a card that could capture,
    turns the reading off for this deal; a lay adds the values that would have captured."""
    seat, v = move.player, st.voids[move.player]
    if v & VOIDS_OFF:
        return
    if v >> value(move.card) & 1 or missed:
        v = VOIDS_OFF
    elif not move.take:
        v |= capture_values(st.table)
    st.voids[seat] = v


def apply_blow(st: HandState, move: Move | None) -> None:
    """Blow (or pass with ``None``) before the seat to play takes its turn."""
    if st.pending_blow is None:
        if move is not None:
            raise IllegalMove("there is nothing to blow: the last play was not a missed capture")
        return
    if move is not None:
        if move not in blow_options(st):
            raise IllegalMove(f"{card_str(move.card)} + {cards_str(move.take)} is not a capture the laid card could have made")
        taken = set(move.take) | {move.card}
        st.table = [c for c in st.table if c not in taken]
        st.piles[st.rules.side_of(move.player)] |= mask_of(taken)
        st.last_capturer = move.player
        st.moves.append(move)
    st.pending_blow = None


def apply_move(st: HandState, move: Move, *, legal: list[Move] | None = None, options_of=capture_options) -> None:
    """Play ``move`` for the seat to play, draw if the rules say so, and pass the turn.

    ``legal``: the seat's ``legal_moves(st)`` if the caller already has them (saves recomputing them);
    ``options_of`` as in ``legal_moves``.
    """
    if st.over:
        raise IllegalMove("the hand is over")
    if st.pending_blow is not None:
        st.pending_blow = None  # a blow not taken before the turn is forgone
    seat = st.to_play
    if move.player != seat:
        raise IllegalMove(f"it is seat {seat}'s turn, not seat {move.player}'s")
    if legal is None:
        legal = legal_moves(st, options_of)
    if move not in legal:
        raise IllegalMove(explain_illegal(st, move, legal))
    missed = [] if move.take else options_of(move.card, st.table)
    note_voids(st, move, bool(missed))
    seen = 0
    for p in st.piles:
        seen |= p
    st.plays.append((seat, move.card, mask_of(move.take), mask_of(st.table), seen, len(st.stock)))
    st.hands[seat].remove(move.card)
    if move.take:
        st.table = [c for c in st.table if c not in move.take]
        side = st.rules.side_of(seat)
        st.piles[side] |= move.taken_mask
        st.last_capturer = seat
        if move.escoba:
            st.escobas[side] += 1
    else:
        st.table = sorted(st.table + [move.card])
        if st.rules.soplar and missed:
            st.pending_blow = (move.card, missed)
    st.moves.append(move)
    if st.rules.deal == "draw" and st.stock:
        st.hands[seat] = sorted(st.hands[seat] + [st.stock.pop(0)])
        st.voids[seat] &= VOIDS_OFF  # the drawn card is unknown
    st.to_play = _next_seat(st, seat)
    if st.to_play < 0:
        st.pending_blow = None
        _finish(st)


def explain_illegal(st: HandState, move: Move, legal: list[Move], translated: bool = False,
                    person: bool = False) -> str:
    """Why ``move`` is not legal, in words a player understands: in English (an IllegalMove, a program's
    error), or ``translated`` into the process's language for a person (``person``: the one at the table,
    whose hand is "your hand")."""
    tr = _ if translated else str
    if move.card not in st.hands[st.to_play]:
        if person:
            return _("{card} is not in your hand").format(card=card_str(move.card))
        return tr(N_("{card} is not in seat {seat}'s hand")).format(card=card_str(move.card), seat=st.to_play)
    missing = [c for c in move.take if c not in st.table]
    if missing:
        if translated:
            return ngettext("{cards} is not on the table", "{cards} are not on the table", len(missing)).format(
                cards=cards_str(missing))
        return f"{cards_str(missing)} {'is' if len(missing) == 1 else 'are'} not on the table"
    if move.take:
        total = value(move.card) + sum(value(c) for c in move.take)
        if total != 15:
            return tr(N_("{card} + {cards} sum to {total}, not 15")).format(
                card=card_str(move.card), cards=cards_str(move.take), total=total)
        return tr(N_("a capture that takes the whole table must be marked as an escoba")) if move.escoba != (
            len(move.take) == len(st.table)) else tr(N_("the capture is not allowed"))
    if any(m.card == move.card and m.take for m in legal):
        return tr(N_("a capture was required: {card} can capture, so it may not be laid")).format(
            card=card_str(move.card))
    return tr(N_("a capture was required: another card in hand can capture (capture={capture})")).format(
        capture=st.rules.capture)


def _finish(st: HandState) -> None:
    leftovers = len(st.table)
    if st.last_capturer >= 0:
        st.piles[st.rules.side_of(st.last_capturer)] |= mask_of(st.table)
        st.table = []
    st.result = score_piles(st.rules, st.piles, st.escobas, st.lucky_escobas, st.dealer,
                            st.lucky_deal, leftovers, st.last_capturer)


class Strategy(Protocol):
    """What a strategy decides. It may read ``st.hands[st.to_play]``, ``st.table`` and public history."""

    name: str

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move: ...

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None: ...


def run_hand(st: HandState, strategies: list[Strategy], rng: SplitMix64) -> HandResult:
    """Play ``st`` to the end with one strategy per seat; ``rng`` is the hand's PLAY stream."""
    while not st.over:
        seat = st.to_play
        blows = blow_options(st)
        if blows:
            apply_blow(st, strategies[seat].choose_blow(st, blows, rng))
        apply_move(st, strategies[seat].choose_move(st, legal_moves(st), rng))
    assert st.result is not None
    return st.result


def play_hand(rules: Ruleset, strategies: list[Strategy], seed: int, game: int = 0, hand: int = 0,
              dealer: int | None = None, deck: list[int] | None = None) -> HandState:
    """Play one hand from the seeded streams (or a given deck) and return its final state."""
    if dealer is None:
        dealer = (game + hand) % rules.players
    st = new_hand(rules, deck if deck is not None else shuffled_deck(seed, game, hand), dealer)
    run_hand(st, strategies, SplitMix64.for_hand(seed, game, hand, PLAY))
    return st


@dataclass
class GameResult:
    first_dealer: int
    scores: list[int]
    winner: int  # side
    hands: list[HandResult]


def game_winner(scores: list[int], target: int) -> int | None:
    """The side that wins a game with these totals after a hand, or None to play another hand:
    some side has at least ``target`` and the highest total is not tied."""
    top = max(scores)
    return scores.index(top) if top >= target and scores.count(top) == 1 else None


def play_game(rules: Ruleset, strategies: list[Strategy], seed: int, game: int = 0) -> GameResult:
    """Hands until some side reaches the target with a unique top score (docs/engine.md, A game)."""
    first_dealer = game % rules.players
    scores = [0] * rules.n_sides
    results: list[HandResult] = []
    for h in range(MAX_HANDS_PER_GAME):
        st = play_hand(rules, strategies, seed, game, h, dealer=(first_dealer + h) % rules.players)
        assert st.result is not None
        results.append(st.result)
        scores = [s + p for s, p in zip(scores, st.result.total)]
        winner = game_winner(scores, rules.target)
        if winner is not None:
            return GameResult(first_dealer, scores, winner, results)
    raise RuntimeError(f"game {game} did not end after {MAX_HANDS_PER_GAME} hands")
