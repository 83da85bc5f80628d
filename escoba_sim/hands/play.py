"""A person plays Escoba against the computer in the terminal (``escoba-sim play``).

The reference engine runs every hand, so each move the person types is checked
by the engine's own ``legal_moves`` and a wrong one is explained by
``explain_illegal``. The person holds seat 0; the other seats play strategy
specs (``batch.make_player``: ismcts decides through the compiled core).
Decks, dealers and the computer's random draws come from the seeded streams
exactly as in a run (game g, hand h), so a session is reproducible from its seed.
Hints come from the evaluator (``evaluate``), which sees only the person's
information. Every hand is saved as a hand record (docs/records.md).

Input and output go through two callables (``ask`` returns a line or None at the
end of input; ``say`` prints), so tests drive a session without a terminal.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from .. import files
from ..batch import make_player
from ..game import engine
from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, CardError, card_str, parse_cards, suit
from ..game.engine import HandState, Move
from ..game.rng import PLAY, SplitMix64, mix64, shuffled_deck
from ..game.rules import RulesError, Ruleset, parse_rules, sets_player_count
from ..strategies import parse_strategy
from .evaluate import DEFAULT_SAMPLES, MAX_SAMPLES, EvaluationError, evaluate, format_value, option_label
from .record import format_score, make_record, score_json

PERSON = "person"  # the `strategies` entry of the person's seat in a record
PERSON_SEAT = 0
SUIT_COLOURS = ("yellow", "red", "blue", "green")  # oros, copas, espadas, bastos
KEYS = "? hint, u take back, q quit"
MAX_LINE = 200  # an answer longer than this is no move (the reply quotes no more of it)


UNDO = "undo"  # what `read` returns when the person asks to take back


class Quit(Exception):
    """The person typed q, or the input ended."""


class SaveFailed(Exception):
    """A hand record could not be written (a full disk, a read-only or linked folder); one line."""


class PlayError(ValueError):
    """The table asked for cannot be set (a cheating opponent, rules and seats that do not fit); one line."""


def unfinished_reason(e: BaseException) -> str:
    """Why a hand stopped, for the ``unfinished`` field of its record (one line)."""
    if isinstance(e, Quit):
        return "quit"
    if isinstance(e, KeyboardInterrupt):
        return "interrupted"
    text = "".join(c if c.isprintable() else "?" for c in " ".join(str(e).split()))  # one printable line
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"error: {text}" if text else f"error: {type(e).__name__}"


def hint_seed(hand_seed: int, st: HandState, blow: bool) -> int:
    """The evaluator's seed for a hint at this decision of the hand dealt with ``hand_seed`` (its play stream's
    start): the same question gets the same answer, in the terminal and on the page (escoba_sim.web)."""
    return mix64(hand_seed ^ len(st.moves) ^ (blow << 8))


@dataclass
class Seats:
    """Who plays each seat: the person (None) or a strategy spec."""

    rules: Ruleset
    specs: list[str | None]

    def name(self, seat: int) -> str:
        if self.specs[seat] is None:
            return "you"
        return f"seat {seat} ({parse_strategy(self.specs[seat]).short})"

    def side_name(self, side: int) -> str:
        seats = [s for s in range(self.rules.players) if self.rules.side_of(s) == side]
        if len(seats) == 1:
            return "you" if self.specs[seats[0]] is None else parse_strategy(self.specs[seats[0]]).short
        return " + ".join("you" if self.specs[s] is None else f"{s}:{parse_strategy(self.specs[s]).short}"
                          for s in seats)


def seat_specs(rules: Ruleset, vs: list[str], partner: str | None = None) -> Seats:
    """Seat 0 is the person; the others play ``vs``: one spec plays every computer seat, one per computer seat
    plays them in seat order (1, 2, ...), and with teams one per opponent plays the opponents' seats (1, 3)
    while the partner (seat 2, and 4) plays ``partner`` (default: the first ``vs``). Any other count is a
    PlayError: a strategy given is never dropped."""
    computer = list(range(1, rules.players))
    opponents = [s for s in computer if rules.side_of(s) != rules.side_of(PERSON_SEAT)]
    if not vs:
        raise PlayError("give the computer's strategy with --vs")
    if len(vs) == len(computer) and len(vs) > 1 and partner is None:
        return Seats(rules, [None, *vs])
    if len(vs) != 1 and len(vs) != len(opponents):
        fits = " or ".join(dict.fromkeys(str(n) for n in (1, len(opponents), len(computer)) if n))
        raise PlayError(f"{rules.canonical()} seats {len(computer)} computer players ({len(opponents)} against "
                        f"you): give {fits} --vs, not {len(vs)}")
    specs: list[str | None] = [None]
    for seat in computer:
        if seat in opponents:
            k = opponents.index(seat)
            specs.append(vs[k] if len(vs) > 1 else vs[0])
        else:
            specs.append(partner or vs[0])
    return Seats(rules, specs)


def table_seats(rules_text: str | None, vs: list[str], *, teams: bool = False, partner: str | None = None) -> Seats:
    """The seats of a sitting: the ruleset ``rules_text`` names, fitted to the computer seats, and who plays each.

    Without ``teams`` the player count follows ``vs`` (one computer seat per spec) unless
    ``rules_text`` sets it, and then one ``vs`` plays every computer seat; with ``teams`` four
    players sit in two teams, the person and ``partner`` (default: the first ``vs``) against one or
    two ``vs``. A strategy that cheats (reads hidden cards) is refused as an opponent or partner.
    Raises ``PlayError`` with one line naming the option at fault.
    """
    for spec in (*vs, *([partner] if partner else [])):
        if parse_strategy(spec).cheats:
            raise PlayError(f"`{parse_strategy(spec).short}` cheats (it reads every hand, yours included, and the "
                            "stock): it is a yardstick for analysis, not an opponent")
    try:
        rules = parse_rules(rules_text)
    except RulesError as e:
        raise PlayError(f"--rules: {e}") from None
    if teams:
        if len(vs) > 2:
            raise PlayError("--teams: give one --vs (both opponents) or two (seat 1, seat 3)")
        rules = rules.replace(players=4, teams=True)
    elif partner:
        raise PlayError("--partner needs --teams")
    elif not sets_player_count(rules_text) and rules.players != 1 + len(vs):
        try:
            rules = parse_rules(rules.replace(players=1 + len(vs)))
        except RulesError as e:
            raise PlayError(f"{len(vs)} --vs: {e}") from None
    elif len(vs) > 1 and len(vs) != rules.players - 1:
        raise PlayError(f"{rules.canonical()} is played by {rules.players} players: give one --vs (every computer "
                        f"seat) or {rules.players - 1}")
    return seat_specs(rules, list(vs), partner)


class Session:
    """One sitting: games (or single hands) between the person and the computer seats."""

    def __init__(self, seats: Seats, seed: int, out: Path, *, ask: Callable[[str], str | None],
                 say: Callable[[str], None], colour: bool = False, samples: int = DEFAULT_SAMPLES):
        self.seats, self.rules, self.seed, self.out = seats, seats.rules, seed, out
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise PlayError(f"--samples: {samples!r} deals per hint; give 1 to {MAX_SAMPLES:,}")
        self.ask, self.say, self.colour, self.samples = ask, say, colour, samples
        self.players = [None if s is None else make_player(parse_strategy(s).for_rules(seats.rules)) for s in seats.specs]
        self.saved: list[Path] = []
        self.unfinished: Path | None = None  # the record of a hand stopped by an error or a signal
        self.scores = [0] * self.rules.n_sides  # the game's, or with hands_mode the total over the hands
        self.hands_mode = False
        self.record_strategies = [PERSON if s is None else s for s in seats.specs]

    # ------------------------------------------------------------ text

    def card(self, c: int) -> str:
        text = card_str(c)
        return click.style(text, fg=SUIT_COLOURS[suit(c)], bold=True) if self.colour else text

    def cards(self, cs) -> str:
        return " ".join(self.card(c) for c in cs) or "-"

    def move_text(self, m: Move, person: bool) -> str:
        s = "" if person else "s"
        if not m.take:
            return f"lay{s} {self.card(m.card)}"
        return f"play{s} {self.card(m.card)} and take{s} {self.cards(m.take)}" + ("  ** ESCOBA **" if m.escoba else "")

    def option_text(self, m: Move | None) -> str:
        if m is None:
            return "no blow"
        if m.soplar:
            return f"blow: {self.card(m.card)} + {self.cards(m.take)}"
        if not m.take:
            return f"{self.card(m.card)} (lay)"
        return f"{self.card(m.card)} takes {self.cards(m.take)}" + ("  ESCOBA" if m.escoba else "")

    def show_position(self, st: HandState, where: str) -> None:
        r = self.rules
        head = f"-- {where} -- dealer: {self.seats.name(st.dealer)}"
        score = ", ".join(f"{self.seats.side_name(s)} {p}" for s, p in enumerate(self.scores))
        if self.hands_mode:
            head += f" -- points in the hands so far: {score}"
        elif r.target:
            head += f" -- game score: {score} (to {r.target})"
        self.say(head)
        width = max(8, *(len(self.seats.side_name(s)) for s in range(r.n_sides)))
        self.say(f"  {'taken':<{width}}  cards  oros  sevens  7o  escobas")
        for side in range(r.n_sides):
            p = st.piles[side]
            self.say(f"  {self.seats.side_name(side):<{width}}  {p.bit_count():>5}  {(p & OROS_MASK).bit_count():>4}"
                     f"  {(p & SEVENS_MASK).bit_count():>6}  {'yes' if p >> SIETE_OROS & 1 else '-':>3}"
                     f"  {st.escobas[side]:>7}")
        others = ", ".join(f"{self.seats.name(s)} {len(st.hands[s])}" for s in range(r.players) if s != PERSON_SEAT)
        self.say(f"  stock: {len(st.stock)} cards; cards in hand: {others}")
        self.say(f"  table: {self.cards(st.table)}")
        self.say(f"  your hand: {self.cards(st.hands[PERSON_SEAT])}")

    # ------------------------------------------------------------ the person's decisions

    def hint(self, st: HandState, blow: bool, options: list) -> None:
        start = time.perf_counter()
        try:
            ev = evaluate(st, blow=blow, samples=self.samples, seed=hint_seed(self.hand_seed, st, blow))
        except (EvaluationError, ValueError) as e:
            self.say(f"no hint: {e}")
            return
        took = time.perf_counter() - start
        if ev.method == "forced":
            self.say("hint: there is only one move")
            return
        how = "solved exactly" if ev.method == "exact" else f"{ev.samples} deals of the unseen cards"
        self.say(f"hint ({how}, {took:.2f} s; points of hand margin, yours minus the best other side's):")
        for i in ev.ranked()[:3]:
            o = ev.options[i]
            self.say(f"  {i + (0 if blow else 1):>2}) {option_label(o.move):<16} {format_value(o, ev.method)}")

    def read(self, st: HandState, prompt: str, options: list, blow: bool):
        """The person's choice among ``options`` (None = no blow), or UNDO."""
        while True:
            line = self.ask(prompt)
            if line is None:
                self.say("")
                self.say("(end of input)")
                raise Quit
            text = " ".join(line.split())  # tabs, form feeds and other separators read as spaces
            if not text:
                continue
            if not text.isprintable():  # an escape sequence (an arrow key), a NUL: never echoed back
                self.say(f"that line holds control characters, not a move: type a number, a card like 5o, or {KEYS}")
                continue
            if text.lower() in ("q", "quit"):
                raise Quit
            if text == "?":
                self.hint(st, blow, options)
                continue
            if len(text) > MAX_LINE:
                self.say(f"that is {len(text):,} characters, not a move: type a number, a card like 5o, or {KEYS}")
                continue
            if text.lower() in ("u", "undo"):
                if self.can_undo or len(st.moves) != self.turn_start:
                    return UNDO
                self.say("nothing to take back in this hand")
                continue
            choice, reason = self.parse_choice(st, text, options, blow)
            if reason is None:
                return choice
            self.say(reason)

    def parse_choice(self, st: HandState, text: str, options: list, blow: bool):
        """(the option ``text`` names, None) or (None, a one-line reason)."""
        first = 0 if blow else 1
        if text.isdecimal():  # `٣` or `３` is 3 to int; `²` and `①` are digits to str.isdigit, yet not to int
            k = int(text)
            if first <= k < first + len(options):
                return options[k - first], None
            return None, f"choose a number from {first} to {first + len(options) - 1}"
        words = text.replace(",", " ").split()
        if not words:
            return None, f"type a number, a card like 5o, or {KEYS}"
        if blow:
            if words[0].lower() in ("n", "no", "-"):
                return options[0], None
            words = words[1:] if words[0].lower() == "blow" else words
            if not words:
                return None, f"name the blow, e.g. `{option_label(options[1])}`, or `n` not to blow"
        lay = words[-1].lower() in ("-", "lay") and len(words) == 2
        try:
            cards = parse_cards(words[:-1] if lay else words)
        except CardError as e:
            return None, f"{e} (or a number, {KEYS})"
        if not cards:
            return None, f"name a card, e.g. {option_label(options[-1])}"
        card, take = cards[0], tuple(sorted(cards[1:]))
        seat = st.to_play
        if blow:
            found = [m for m in options[1:] if m.card == card and (not take or m.take == take)]
            if len(found) == 1:
                return found[0], None
            if not found:
                return None, f"{card_str(card)} + {' '.join(map(card_str, take))} is not a blow open to you"
            return None, "name the cards the blow takes, e.g. " + option_label(found[0])
        if take or lay:
            move = Move(seat, card, take, escoba=bool(take) and set(take) == set(st.table))
            if move in options:
                return move, None
            return None, engine.explain_illegal(st, move, options).replace(f"seat {seat}'s hand", "your hand")
        found = [m for m in options if m.card == card]
        if len(found) == 1:
            return found[0], None
        if not found:
            return None, engine.explain_illegal(st, Move(seat, card), options).replace(f"seat {seat}'s hand",
                                                                                      "your hand")
        return None, (f"{card_str(card)} has {len(found)} moves: "
                      + "; ".join(option_label(m) or "lay" for m in found)
                      + f" -- name the cards it takes, e.g. `{option_label(found[0])}`"
                      + (f", or `{card_str(card)} -` to lay it" if any(not m.take for m in found) else ""))

    # ------------------------------------------------------------ a hand

    def play_hand(self, game: int, hand: int, dealer: int, where: str) -> HandState:
        st = engine.new_hand(self.rules, shuffled_deck(self.seed, game, hand), dealer)
        rng = SplitMix64.for_hand(self.seed, game, hand, PLAY)
        self.hand_seed = rng.state
        history: list[tuple[HandState, int]] = []  # the position before each of the person's turns, for undo
        try:
            self.say("")
            self.say(f"== {where}: {self.seats.name(dealer)} deal{'s' if dealer != PERSON_SEAT else ''} ==")
            if st.lucky_deal:
                what = f"{st.lucky_deal} escoba{'s' if st.lucky_deal > 1 else ''}" \
                    if self.rules.lucky_deal == "escobas" else "no escoba"
                self.say(f"lucky deal: the table summed to {15 * st.lucky_deal}; the dealer takes it ({what})")
            else:
                self.say(f"table: {self.cards(st.table)}")
            while not st.over:
                seat = st.to_play
                if self.players[seat] is None:
                    snapshot = (copy.deepcopy(st), rng.state)
                    self.can_undo, self.turn_start = bool(history), len(st.moves)
                    if self.person_turn(st, where):
                        history.append(snapshot)
                        continue
                    if len(st.moves) != len(snapshot[0].moves):  # a blow made in this turn
                        st, rng.state = snapshot
                        self.say("taken back: your blow")
                    else:
                        st, rng.state = history.pop()
                        self.say("taken back: your last move and the replies to it")
                    continue
                self.computer_turn(st, rng)
            self.end_of_hand(st)
        except Quit:
            self.save(st, game, hand, unfinished="quit")
            raise
        except BaseException as e:  # an error (a plugin's, a bug) or a signal: the hand so far is kept
            self.save_stopped(st, game, hand, e)
            raise
        self.save(st, game, hand)
        return st

    def person_turn(self, st: HandState, where: str) -> bool:
        """The person's turn (a blow decision first when one is open); False to take back."""
        self.say("")
        self.show_position(st, where)
        blows = engine.blow_options(st)
        if blows:
            laid = blows[0].card
            options: list = [None, *blows]
            self.say(f"  {self.seats.name(st.moves[-1].player)} laid {self.card(laid)}, which could have captured: "
                     f"you may blow (soplar)")
            for i, m in enumerate(options):
                self.say(f"  {i:>2}) {self.option_text(m)}")
            choice = self.read(st, f"blow? [0-{len(blows)}, {KEYS}]: ", options, True)
            if choice is UNDO:
                return False
            engine.apply_blow(st, choice)
            if choice is not None:
                self.say(f"you blow: take {self.card(laid)} + {self.cards(choice.take)}")
                self.say(f"  table: {self.cards(st.table)}")
        moves = engine.legal_moves(st)
        for i, m in enumerate(moves, 1):
            self.say(f"  {i:>2}) {self.option_text(m)}")
        choice = self.read(st, f"your move [1-{len(moves)}, a card like 5o or '5o Rc', {KEYS}]: ", moves, False)
        if choice is UNDO:
            return False
        self.apply(st, choice, "you")
        return True

    def computer_turn(self, st: HandState, rng: SplitMix64) -> None:
        seat, player = st.to_play, self.players[st.to_play]
        name = self.seats.name(seat)
        blows = engine.blow_options(st)
        if blows:
            blow = player.choose_blow(st, blows, rng)
            engine.apply_blow(st, blow)
            if blow is not None:
                whose = "your" if st.moves[-2].player == PERSON_SEAT else "the"
                self.say(f"{name} BLOWS {whose} {self.card(blow.card)}: takes {self.card(blow.card)} + "
                         f"{self.cards(blow.take)}")
        self.apply(st, player.choose_move(st, engine.legal_moves(st), rng), name)

    def apply(self, st: HandState, m: Move, who: str) -> None:
        stock = len(st.stock)
        engine.apply_move(st, m)
        self.say(f"{who} {self.move_text(m, who == 'you')}")
        if len(st.stock) < stock:
            if self.rules.deal == "draw":
                if m.player == PERSON_SEAT:
                    self.say(f"you draw {self.card(st.deck[40 - stock])}")
            elif not st.over:
                self.say(f"-- new deal: {self.rules.hand_size} cards each, {len(st.stock)} left in the stock --")

    def end_of_hand(self, st: HandState) -> None:
        res = st.result
        self.say("")
        if res.leftover_taker >= 0:
            self.say(f"hand over: {res.leftovers} card(s) left on the table go to {self.seats.name(res.leftover_taker)}, "
                     f"the last to capture")
        else:
            self.say(f"hand over: {res.leftovers} card(s) left on the table go to nobody")
        self.say(format_score(self.rules, score_json(self.rules, res), self.record_strategies))
        self.scores = [a + b for a, b in zip(self.scores, res.total)]

    def save(self, st: HandState, game: int, hand: int, unfinished: str | None = None, quiet: bool = False) -> None:
        """Save the hand as a record; ``unfinished`` (why it stopped: ``quit``, ``interrupted``, ``error: ...``)
        saves a hand still in play as ``...-unfinished.json`` (a quit before any move saves nothing)."""
        if unfinished == "quit" and not st.moves:
            return
        rec = make_record(st, seed=self.seed, game=game, hand=hand, unfinished=unfinished or False,
                          strategies=self.record_strategies)
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            path = self.out / f"{self.seed}-g{game}-h{hand}{'-unfinished' if unfinished else ''}.json"
            k = 2
            while path.exists() or path.is_symlink():
                path = path.with_name(f"{self.seed}-g{game}-h{hand}{'-unfinished' if unfinished else ''}-{k}.json")
                k += 1
            files.write_text(path, json.dumps(rec, indent=2) + "\n", root=self.out)  # whole or not at all
        except files.UntrustedFile as e:
            raise SaveFailed(f"cannot save the hand record: {e}") from None
        except OSError as e:
            raise SaveFailed(f"{self.out}: cannot save the hand record ({e.strerror or e})") from None
        self.saved.append(path)
        if quiet:
            return
        self.say(f"saved {'the unfinished hand' if unfinished else 'the hand'}: {path}")

    def save_stopped(self, st: HandState, game: int, hand: int, e: BaseException) -> None:
        """The hand in play when ``e`` stopped the session, saved (as unfinished unless it had ended);
        ``self.unfinished`` names the file. A failure to save is noted on ``e``, never raised over it."""
        try:
            self.save(st, game, hand, unfinished=None if st.over else unfinished_reason(e), quiet=True)
            self.unfinished = self.saved[-1]
        except Exception as save_error:  # a full disk, a read-only folder: the first error is the story
            e.add_note(f"the hand could not be saved: {save_error}")

    # ------------------------------------------------------------ games

    def play(self, count: int, hands_mode: bool) -> None:
        """``count`` games to the ruleset's target, or with ``hands_mode`` ``count`` single hands."""
        r = self.rules
        self.hands_mode = hands_mode
        try:
            for g in range(count):
                if hands_mode:
                    self.play_hand(g, 0, g % r.players, f"hand {g + 1} of {count}")
                    continue
                self.scores = [0] * r.n_sides
                for h in range(engine.MAX_HANDS_PER_GAME):
                    self.play_hand(g, h, (g + h) % r.players, f"game {g + 1}, hand {h + 1}")
                    top = max(self.scores)
                    if top >= r.target and self.scores.count(top) == 1:
                        winner = self.seats.side_name(self.scores.index(top))
                        self.say("")
                        self.say(f"game {g + 1} over: {'you win' if winner == 'you' else winner + ' wins'} "
                                 f"({', '.join(f'{self.seats.side_name(s)} {p}' for s, p in enumerate(self.scores))})")
                        break
        except Quit:
            self.say("quit.")
        if self.saved:
            self.say(f"{len(self.saved)} hand record(s) in {self.out}; check one with `escoba-sim replay FILE`, "
                     f"see where points were lost with `escoba-sim analyze FILE`")
