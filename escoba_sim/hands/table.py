"""The table where a person plays the computer: one UI-free state machine that both front ends drive.

A ``Table`` deals each hand from the seeded streams exactly as a run does (game g, hand h: the deck, the
dealer and the computer's random draws), plays the computer's seats (their blows included), takes the
person's decision (a blow or a move, one of the engine's options), takes it back, hints from the
person's information only (``evaluate``, seeded by ``hint_seed``), finishes the hand (the scores; the game
ends by ``engine.game_winner``) and saves its hand record under a name of its own making. What happens at
the table is told as ``Event``s, in the order it happens, to the front end's ``on_event`` and into the
hand's ``events``: ``play`` (``hands.play``) renders them to a terminal, the page (``web.games``) to JSON.
The person holds seat ``PERSON_SEAT``; a seat whose spec is None is the person's.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import files
from ..batch import make_player
from ..errors import EscobaError, Parameter
from ..game import engine
from ..game.engine import HandState, Move
from ..game.rng import PLAY, SplitMix64, shuffled_deck
from ..game.rules import Ruleset
from ..i18n import translate as _
from ..strategies import parse_strategy
from .evaluate import DEFAULT_SAMPLES, MAX_SAMPLES, Evaluation, evaluate, position_seed
from .reading import Reading, read_hands
from .record import make_record

PERSON = "person"  # the `strategies` entry of the person's seat in a record
MOVE_KINDS = ("lay", "capture", "blow")  # the events that are moves of the hand (a take-back cuts them)


class PlayError(EscobaError):
    """The table asked for cannot be set (a cheating opponent, rules and seats that do not fit); one line."""


class SaveFailed(EscobaError):
    """A hand record could not be written (a full disk, a read-only or linked folder); one line. ``cause``
    is the error of the file system, for a front end that words it its own way."""

    def __init__(self, template: str, *, cause: BaseException, **fields):
        super().__init__(template, **fields)
        self.cause = cause


def hint_seed(hand_seed: int, st: HandState, blow: bool) -> int:
    """The evaluator's seed for a hint at this decision of the hand dealt with ``hand_seed`` (its play stream's
    start): the same question gets the same answer, in the terminal, on the page and in the analysis of the
    hand's record (``evaluate.position_seed``)."""
    return position_seed(hand_seed, len(st.moves), blow)


@dataclass(frozen=True)
class Event:
    """One thing that happened at the table. ``kind``: ``lucky`` (the deal's table went to the dealer
    ``seat``, ``escobas`` for its side), ``lay``, ``capture`` or ``blow`` (``seat`` made ``move``; ``drew``:
    the card it drew after it, under draw rules), or ``deal`` (new cards for every hand, ``stock`` left)."""

    kind: str
    seat: int | None = None
    move: Move | None = None
    drew: int | None = None
    escobas: int = 0
    stock: int = 0


@dataclass(frozen=True)
class Hint:
    """The evaluator's answer to the person's decision (``blow``: the blow decision), its time, and what the
    other seats probably hold (``reading``: hands.reading; None without the compiled core)."""

    evaluation: Evaluation
    blow: bool
    seconds: float
    reading: Reading | None = None


class Table:
    """A sitting of the person (seat 0) and the computer seats: one hand at a time, dealt by ``deal``.

    ``specs`` holds each seat's strategy spec (None for the person); ``samples`` the evaluator's deals per
    hint; ``single_hand``: every game is one hand (else a game ends by ``engine.game_winner``);
    ``on_event`` is told each ``Event`` as it happens. ``scores`` are the game's totals by side."""

    def __init__(self, rules: Ruleset, specs: list[str | None], seed: int, out: Path, *,
                 samples: int = DEFAULT_SAMPLES, single_hand: bool = False,
                 on_event: Callable[[Event], None] | None = None):
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise PlayError(_("{name}: {samples} deals per hint; give 1 to {limit}"), parameter="samples",
                            name=Parameter("samples"), samples=repr(samples), limit=f"{MAX_SAMPLES:,}")
        self.rules, self.specs, self.seed, self.out, self.samples = rules, list(specs), seed, out, samples
        self.single_hand, self.on_event = single_hand, on_event
        self.players = [None if s is None else make_player(parse_strategy(s).for_rules(rules)) for s in self.specs]
        self.strategies = [PERSON if s is None else s for s in self.specs]  # as the records name the seats
        self.scores = [0] * rules.n_sides
        self.game, self.hand = 0, -1

    # ------------------------------------------------------------ a hand

    def deal(self, game: int, hand: int) -> None:
        """Deal hand ``hand`` of game ``game`` (the dealer turns with them); ``advance`` then plays the
        computer seats up to the person's first decision."""
        self.game, self.hand = game, hand
        self.st = engine.new_hand(self.rules, shuffled_deck(self.seed, game, hand), (game + hand) % self.rules.players)
        self.rng = SplitMix64.for_hand(self.seed, game, hand, PLAY)
        self.hand_seed = self.rng.state
        self.history: list[tuple[HandState, int]] = []  # the position before each of the person's turns
        self.turn: tuple[HandState, int] | None = None  # the position at the start of the person's turn
        self.events: list[Event] = []
        if self.st.lucky_deal:
            self._emit(Event("lucky", self.st.dealer, escobas=self.st.lucky_escobas[self.rules.side_of(self.st.dealer)]))

    def advance(self) -> None:
        """Play the computer seats until the person is to decide or the hand is over (then finish it)."""
        st = self.st
        while not st.over and self.players[st.to_play] is not None:
            player = self.players[st.to_play]
            blows = engine.blow_options(st)
            if blows:
                blow = player.choose_blow(st, blows, self.rng)
                engine.apply_blow(st, blow)
                if blow is not None:
                    self._emit(Event("blow", blow.player, blow))
            self._apply(player.choose_move(st, engine.legal_moves(st), self.rng))
        self.turn = (copy.deepcopy(st), self.rng.state)
        if st.over:
            self.scores = [a + b for a, b in zip(self.scores, st.result.total)]

    def decision(self) -> tuple[str, list]:
        """The person's decision: ("blow", [None (no blow), *blows]), ("move", legal moves), or ("over", [])."""
        if self.st.over:
            return "over", []
        blows = engine.blow_options(self.st)
        if blows:
            return "blow", [None, *blows]
        return "move", engine.legal_moves(self.st)

    def blow(self, choice: Move | None) -> None:
        """The person's blow decision: one of the blows open, or None not to blow."""
        engine.apply_blow(self.st, choice)
        if choice is not None:
            self._emit(Event("blow", choice.player, choice))

    def play(self, move: Move) -> None:
        """The person plays ``move`` (one of the legal moves); the computer seats reply (``advance``)."""
        self.history.append(self.turn)
        self._apply(move)
        self.advance()

    @property
    def can_undo(self) -> bool:
        """Whether ``undo`` has something to take back."""
        return not self.st.over and (bool(self.history) or len(self.st.moves) != len(self.turn[0].moves))

    def undo(self) -> str | None:
        """Take back the person's blow of this turn (returns ``blow``), or else their last move and the
        replies to it (``move``); None when there is nothing to take back."""
        if not self.can_undo:
            return None
        taken = "blow" if len(self.st.moves) != len(self.turn[0].moves) else "move"
        st, state = self.turn if taken == "blow" else self.history.pop()
        self.st, self.rng.state = copy.deepcopy(st), state
        self.turn = (copy.deepcopy(self.st), self.rng.state)
        moves, kept = len(self.st.moves), 0
        for i, e in enumerate(self.events):  # the events of the moves taken back go with them
            if e.kind in MOVE_KINDS:
                if kept == moves:
                    del self.events[i:]
                    break
                kept += 1
        return taken

    def hint(self) -> Hint:
        """The evaluator's values of the person's decision (from their information only); the same
        position of the same deal always gets the same answer."""
        blow = self.decision()[0] == "blow"
        start = time.perf_counter()
        ev = evaluate(self.st, blow=blow, samples=self.samples, seed=hint_seed(self.hand_seed, self.st, blow))
        return Hint(ev, blow, time.perf_counter() - start, read_hands(self.st))

    def _apply(self, m: Move) -> None:
        st, stock = self.st, len(self.st.stock)
        engine.apply_move(st, m)
        drew = st.deck[40 - stock] if len(st.stock) < stock and self.rules.deal == "draw" else None
        self._emit(Event("capture" if m.take else "lay", m.player, m, drew=drew))
        if len(st.stock) < stock and not st.over and self.rules.deal == "rounds":
            self._emit(Event("deal", stock=len(st.stock)))

    def _emit(self, event: Event) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # ------------------------------------------------------------ games

    def new_game(self) -> None:
        """The scores start again (the next hand dealt opens a game)."""
        self.scores = [0] * self.rules.n_sides

    def winner(self) -> int | None:
        """The side that has won the game with the scores so far, or None (``engine.game_winner``)."""
        return engine.game_winner(self.scores, self.rules.target)

    @property
    def game_over(self) -> bool:
        """The hand is over, and with it the game: some side alone reached the target (or every game is one
        hand)."""
        return self.st.over and (self.single_hand or self.winner() is not None)

    # ------------------------------------------------------------ records

    def record(self, unfinished: str | None = None) -> tuple[str, dict]:
        """The hand's record and the stem of its name (``SEED-gG-hH``, ``-unfinished`` with ``unfinished``)."""
        rec = make_record(self.st, seed=self.seed, game=self.game, hand=self.hand, unfinished=unfinished or False,
                          strategies=self.strategies)
        return f"{self.seed}-g{self.game}-h{self.hand}{'-unfinished' if unfinished else ''}", rec

    def save(self, unfinished: str | None = None) -> Path:
        """Save the hand as a record in ``out``: ``SEED-gG-hH.json``, or with ``unfinished`` (why it stopped:
        ``quit``, ``interrupted``, ``error: ...``) the hand in play as ``...-unfinished.json``; never over a
        file that exists (``-2``, ``-3``, ... instead). Raises ``SaveFailed``."""
        return write_record(self.out, *self.record(unfinished))


def write_record(out: Path, stem: str, rec: dict) -> Path:
    """Write the record ``rec`` into ``out`` as ``STEM.json``, never over a file that exists (``STEM-2.json``,
    ...); whole or not at all. Raises ``SaveFailed``."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        path, k = out / f"{stem}.json", 2
        while path.exists() or path.is_symlink():
            path, k = path.with_name(f"{stem}-{k}.json"), k + 1
        files.write_text(path, json.dumps(rec, indent=2) + "\n", root=out)  # whole or not at all
    except files.UntrustedFile as e:
        raise SaveFailed(_("cannot save the hand record: {reason}"), cause=e, folder=out, reason=e) from None
    except OSError as e:
        raise SaveFailed(_("{path}: cannot save the hand record ({reason})"), cause=e, folder=out,
                         path=out, reason=e.strerror or e) from None
    return path
