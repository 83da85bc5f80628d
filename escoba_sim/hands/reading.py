"""What each other seat probably holds, read from its moves this round: the posterior shown to the player.

Hands are refilled from a shuffled stock and every earlier card is public, so only a seat's moves since
the last deal say anything about the cards it holds now. Each such move is weighed by the opponent model
of the default ``ismcts`` (a softmax over the hand-set heuristic's scores with its ``temperature``, plus a
``uniform`` share; ``evaluate.opponent_model``), and the compiled core (csrc/escoba_reading.h) gives the
exact posterior with two players (sampled with more). ``read_hands`` returns, for each other seat, the
probability that it holds each card and at least one card of each value, the same before any of its moves
(the prior: every holding of the unseen cards as likely), and for each value the move that revealed most
about it (the one whose weighing moved that value's probability most).

Only the reader's information set is read (``evaluate.InfoSet``: its hand, the table, the piles, the
public moves, the other hands' sizes): the other hands reach the core as placeholders of their sizes.
Without the compiled core nothing is read (``read_hands`` returns None; ``NOT_READ`` says so).
``play``'s ``?``, the page's Hint, ``analyze`` and ``trace --analyze`` show it; docs/evaluate.md says more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import i18n
from ..game.cards import RANK_LETTERS, card_str, cards_of, mask_of, value
from ..game.engine import HandState, Move
from ..i18n import N_
from .evaluate import InfoSet, opponent_model

Play = tuple[int, int, int, int, int, int]  # engine.HandState.plays: seat, card, take, table, piles' cards, stock left
SHOWN_SHIFT = 0.05  # a value is worth saying when the moves moved its probability by at least this much
SHOWN_VALUES = 3  # ... and at most this many per seat, the ones moved most
NOT_READ = N_("(what the other seats hold is not read: that needs the compiled core)")


def value_label(v: int) -> str:
    """``7``; ``S``, ``C``, ``R`` for 8, 9, 10 (the letters a card is written with)."""
    return RANK_LETTERS.get(v, str(v))


PERCENT = N_("{number}%")  # a percentage as the language writes it (Spanish: ``92 %``)


def percent(p: float, t=None) -> str:
    """``92%`` (in ``t``'s language: ``PERCENT``); a probability that is not exactly 0 or 1 never prints as ``0%``
    or ``100%``."""
    number = "<1" if 0 < p < 0.005 else ">99" if 0.995 < p < 1 else f"{p:.0%}"[:-1]
    return (t or i18n.translation(i18n.current())).gettext(PERCENT).format(number=number)


@dataclass(frozen=True)
class SeatReading:
    """What the reader may believe of one other seat. ``cards[c]``: the probability that it holds card c;
    ``values[v]`` (v = 1 to 10; index 0 unused): that it holds at least one card of value v; ``prior_*``
    the same before any of its moves this round; ``moves``: its moves this round (engine.HandState.plays
    entries), and ``revealed_by[v]`` the index in ``moves`` of the one that moved value v most (None: no
    move did). ``read``: some move was weighed (else the prior is all there is)."""

    seat: int
    hand_size: int
    moves: tuple[Play, ...]
    cards: tuple[float, ...]
    values: tuple[float, ...]
    prior_cards: tuple[float, ...]
    prior_values: tuple[float, ...]
    revealed_by: tuple[int | None, ...]
    read: bool

    def shift(self, v: int) -> float:
        """How far the moves moved value v's probability from the prior."""
        return self.values[v] - self.prior_values[v]

    def ruled_out(self) -> list[int]:
        """The values its moves proved it holds none of (a lay that one of them would have had to capture)."""
        return [v for v in range(1, 11) if self.values[v] == 0 < self.prior_values[v]]

    def shown(self) -> list[int]:
        """The other values worth saying: moved at least ``SHOWN_SHIFT``, the most moved first (at most
        ``SHOWN_VALUES``)."""
        out = set(self.ruled_out())
        moved = [v for v in range(1, 11) if abs(self.shift(v)) >= SHOWN_SHIFT and v not in out]
        return sorted(moved, key=lambda v: (-abs(self.shift(v)), v))[:SHOWN_VALUES]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "hand_size": self.hand_size, "read": self.read,
                "moves": [play_json(p) for p in self.moves],
                "values": {str(v): {"p": round(self.values[v], 4), "prior": round(self.prior_values[v], 4),
                                    "revealed_by": self.revealed_by[v]} for v in range(1, 11)},
                "cards": {card_str(c): {"p": round(self.cards[c], 4), "prior": round(self.prior_cards[c], 4)}
                          for c in range(40) if self.prior_cards[c] > 0},
                "ruled_out": self.ruled_out(), "shown": self.shown()}


def play_json(p: Play) -> dict[str, Any]:
    """A move of this round, language-neutral: the card, what it took, the table it was played on."""
    return {"card": card_str(p[1]), "take": [card_str(c) for c in cards_of(p[2])],
            "table": [card_str(c) for c in cards_of(p[3])]}


@dataclass(frozen=True)
class Reading:
    """The reader's reading of every other seat (``seats``, in seat order) under the opponent model
    ``temperature``, ``uniform``."""

    reader: int
    temperature: float
    uniform: float
    seats: tuple[SeatReading, ...]

    def of(self, seat: int) -> SeatReading:
        return next(r for r in self.seats if r.seat == seat)

    def to_json(self) -> dict[str, Any]:
        return {"reader": self.reader, "model": {"temperature": self.temperature, "uniform": self.uniform},
                "seats": [r.to_json() for r in self.seats]}


def this_round(info: InfoSet, seat: int) -> tuple[Play, ...]:
    """``seat``'s moves since the last deal (the stock has not moved since), as csrc/escoba_reading.h reads
    them."""
    return tuple(p for p in info.plays if p[0] == seat and p[5] == info.stock_left)


def read_hands(st: HandState) -> Reading | None:
    """What the seat to play in ``st`` may believe of the other hands (``read_info`` of its information set)."""
    return read_info(InfoSet.of(st))


def read_info(info: InfoSet) -> Reading | None:
    """The reading of every other seat from ``info`` alone; None without the compiled core."""
    from .. import native

    core = native.core
    if core is None:
        return None
    _infer, temperature, uniform = opponent_model()
    view = info.view(core, voids=False)
    rules = info.rules
    others = [s for s in range(rules.players) if s != info.seat and info.hand_sizes[s]]
    moves = {s: this_round(info, s) for s in others}
    most = max((len(m) for m in moves.values()), default=0)
    # upto = j reads each seat's first j moves: step j's change is its j-th move's doing
    steps = [core.read_hands(rules, info.seat, view, temperature, uniform, upto=j) for j in range(most + 1)]
    cards, values, read = steps[-1]
    prior_cards, prior_values, _read = steps[0]
    seats = []
    for s in others:
        revealed: list[int | None] = [None] * 11
        for v in range(1, 11):
            best, by = 0.005, None
            for j in range(1, len(moves[s]) + 1):
                d = abs(steps[j][1][s][v] - steps[j - 1][1][s][v])
                if d > best:
                    best, by = d, j - 1
            revealed[v] = by
        seats.append(SeatReading(s, info.hand_sizes[s], moves[s], tuple(map(float, cards[s])),
                                 tuple(map(float, values[s])), tuple(map(float, prior_cards[s])),
                                 tuple(map(float, prior_values[s])), tuple(revealed), bool(read and moves[s])))
    return Reading(info.seat, temperature, uniform, tuple(seats))


def sweep_value(table: int) -> int | None:
    """The one card value that would take the whole of ``table`` (a mask) alone: an escoba; None if none can."""
    need = 15 - sum(value(c) for c in cards_of(table))
    return need if table and 1 <= need <= 10 else None


# ------------------------------------------------------------ for people


def move_text(p: Play, t) -> str:
    """``it laid 3c on 5o 7e``, ``it took 2o 4c with Cb``: a move of this round, in ``t``'s language."""
    if p[2]:
        return t.gettext(N_("it took {cards} with {card}")).format(
            cards=" ".join(card_str(c) for c in cards_of(p[2])), card=card_str(p[1]))
    if not p[3]:
        return t.gettext(N_("it laid {card} on an empty table")).format(card=card_str(p[1]))
    return t.gettext(N_("it laid {card} on {cards}")).format(card=card_str(p[1]),
                                                            cards=" ".join(card_str(c) for c in cards_of(p[3])))


def seat_lines(r: SeatReading, who: str, t) -> list[str]:
    """What to say of one seat: a head line, then one line per value worth saying."""
    if not r.read:
        return [t.gettext(N_("{who} has not played since the deal: every hand of the cards you cannot see is "
                             "as likely")).format(who=who)]
    n = len(r.moves)
    shown, ruled_out = r.shown(), r.ruled_out()
    if not shown and not ruled_out:
        return [t.ngettext("{who}: its move since the deal says little about its hand",
                           "{who}: its {n} moves since the deal say little about its hand", n).format(who=who, n=n)]
    out = [t.ngettext("{who} probably holds, from its move since the deal:",
                      "{who} probably holds, from its {n} moves since the deal:", n).format(who=who, n=n)]
    if ruled_out:
        text = t.gettext(N_("none of {values}: certain")).format(values=", ".join(map(value_label, ruled_out)))
        if r.revealed_by[ruled_out[0]] is not None:
            text += " -- " + move_text(r.moves[r.revealed_by[ruled_out[0]]], t)
        out.append("  " + text)
    for v in shown:
        p, prior = r.values[v], r.prior_values[v]
        if p < prior:
            text = t.gettext(N_("no {value}: {p}, was {prior}")).format(
                value=value_label(v), p=percent(1 - p, t), prior=percent(1 - prior, t))
        else:
            text = t.gettext(N_("a {value}: {p}, was {prior}")).format(
                value=value_label(v), p=percent(p, t), prior=percent(prior, t))
        if r.revealed_by[v] is not None:
            text += " -- " + move_text(r.moves[r.revealed_by[v]], t)
        out.append("  " + text)
    return out


def format_reading(reading: Reading | None, *, name: Callable[[int], str] | None = None, width: int = 80,
                   lang: str | None = None, news: bool = False) -> list[str]:
    """The reading for people, in ``lang`` (default: the process's language), no line wider than ``width``:
    per other seat a head line and the values its moves said most about. ``name(seat)`` names a seat
    (default ``seat 2``). ``news``: only the seats whose moves said something (a review of every decision).
    Without a reading (no compiled core) one line says so."""
    from .record import fit_lines

    t = i18n.translation(lang or i18n.current())
    if reading is None:
        return fit_lines([t.gettext(NOT_READ)], width, indent=2)
    lines = []
    for r in reading.seats:
        if news and not (r.read and (r.shown() or r.ruled_out())):
            continue
        who = name(r.seat) if name else t.gettext(N_("seat {seat}")).format(seat=r.seat)
        lines += seat_lines(r, who, t)
    return fit_lines(lines, width, indent=4) if lines else []


def left_after(info: InfoSet, move: Move) -> tuple[int, int | None]:
    """The table ``move`` (of the seat to play in ``info``) leaves, and the seat that plays on it next
    (None: nobody holds a card, the next deal comes first)."""
    table = info.table & ~mask_of(move.take) if move.take else info.table | 1 << move.card
    n = info.rules.players
    after = [s for s in ((info.seat + k) % n for k in range(1, n)) if info.hand_sizes[s]]
    if info.hand_sizes[info.seat] > 1:
        after.append(info.seat)
    return table, after[0] if after else None


def sweep_json(reading: Reading | None, info: InfoSet, move: Move) -> dict[str, Any] | None:
    """Why ``move`` is safe or not, read from the posterior: the one value that would sweep the table it
    leaves, and the chance that the next seat to play holds one (``p``; ``prior`` before its moves).
    None when nothing is read, no single card sweeps that table, or the next to play is the reader."""
    table, seat = left_after(info, move)
    v = sweep_value(table)
    if reading is None or v is None or seat is None or not any(r.seat == seat for r in reading.seats):
        return None
    r = reading.of(seat)
    return {"seat": seat, "value": v, "p": round(r.values[v], 4), "prior": round(r.prior_values[v], 4)}


def sweep_line(reading: Reading | None, info: InfoSet, move: Move, label: str, *,
               name: Callable[[int], str] | None = None, lang: str | None = None) -> str | None:
    """``sweep_json`` for people: ``after 5o, seat 1 needs a 7 to sweep the table: 8%, was 35%``; ``label``
    names the move."""
    j = sweep_json(reading, info, move)
    if j is None:
        return None
    t = i18n.translation(lang or i18n.current())
    who = name(j["seat"]) if name else t.gettext(N_("seat {seat}")).format(seat=j["seat"])
    return t.gettext(N_("after {move}, {who} needs a {value} to sweep the table: {p}, was {prior}")).format(move=label, who=who, value=value_label(j["value"]), p=percent(j["p"], t),
                                            prior=percent(j["prior"], t))
