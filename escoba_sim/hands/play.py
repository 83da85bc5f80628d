"""A person plays Escoba against the computer in the terminal (``escoba-sim play``): the terminal front end
of the table (``hands.table.Table``, which deals, plays the computer's seats, takes back, hints and saves).

This module reads what the person types and says what happens. The reference engine runs every hand, so
each move the person types is checked by the engine's own ``legal_moves`` and a wrong one is explained by
``explain_illegal``. The person holds seat 0; the other seats play strategy specs (``batch.make_player``:
ismcts decides through the compiled core). Decks, dealers and the computer's random draws come from the
seeded streams exactly as in a run (game g, hand h), so a session is reproducible from its seed. Hints come
from the evaluator (``evaluate``), which sees only the person's information. Every hand is saved as a hand
record (docs/records.md).

Input and output go through two callables (``ask`` returns a line or None at the end of input; ``say``
prints), so tests drive a session without a terminal.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import click

from ..game import engine
from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, CardError, card_str, parse_cards, suit
from ..game.engine import HandState, Move
from ..i18n import N_, ngettext
from ..i18n import translate as _
from ..lineup import PERSON_SEAT, Seats
from .evaluate import DEFAULT_SAMPLES, EvaluationError, format_value, option_label
from .reading import format_reading, sweep_line
from .record import fit_lines, format_score, score_json
from .table import Event, Table

SUIT_COLOURS = ("yellow", "red", "blue", "green")  # oros, copas, espadas, bastos
KEYS = N_("? hint, u take back, q quit")  # shown translated: keys() (the Spanish words work in both languages)
# What a person types at the prompt, in either language: Spanish players use pista, deshacer, salir, soplar
QUIT_WORDS = ("q", "quit", "salir")
HINT_WORDS = ("?", "hint", "pista")
UNDO_WORDS = ("u", "undo", "deshacer")
BLOW_WORDS = ("blow", "s", "soplar")
NO_BLOW_WORDS = ("n", "no", "-", "no soplar")
LAY_WORDS = ("-", "lay")
NUMBER = re.compile(r"[+-]?[0-9]+(?:[.,][0-9]*)?")  # what a person types meaning a number, a wrong one included
MAX_LINE = 200  # an answer longer than this is no move (the reply quotes no more of it)


UNDO = "undo"  # what `read` returns when the person asks to take back


class Quit(Exception):
    """The person typed q, or the input ended."""


def keys() -> str:
    """The keys the prompt takes, in the process's language."""
    return _(KEYS)


def unfinished_reason(e: BaseException) -> str:
    """Why a hand stopped, for the ``unfinished`` field of its record (one line)."""
    if isinstance(e, Quit):
        return "quit"
    if isinstance(e, KeyboardInterrupt):
        return "interrupted"
    text = "".join(c if c.isprintable() else "?" for c in " ".join(str(e).split()))  # one printable line
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"error: {text}" if text else f"error: {type(e).__name__}"


def number_choice(first: int, count: int) -> str:
    """What to type instead: ``type 1, the only move`` or ``choose a number from 1 to 5``."""
    if count == 1:
        return _("type {first}, the only one").format(first=first)
    return _("choose a number from {first} to {last}").format(first=first, last=first + count - 1)


class Session:
    """One sitting: games (or single hands) between the person and the computer seats."""

    def __init__(self, seats: Seats, seed: int, out: Path, *, ask: Callable[[str], str | None],
                 say: Callable[[str], None], colour: bool = False, samples: int = DEFAULT_SAMPLES):
        self.seats, self.rules, self.seed, self.out = seats, seats.rules, seed, out
        self.table = Table(seats.rules, seats.specs, seed, out, samples=samples, on_event=self.show_event)
        self.ask, self.say, self.colour, self.samples = ask, say, colour, samples
        self.saved: list[Path] = []
        self.unfinished: Path | None = None  # the record of a hand stopped by an error or a signal
        self.hands_mode = False
        self.record_strategies = self.table.strategies

    # ------------------------------------------------------------ text

    def card(self, c: int) -> str:
        text = card_str(c)
        return click.style(text, fg=SUIT_COLOURS[suit(c)], bold=True) if self.colour else text

    def cards(self, cs) -> str:
        return " ".join(self.card(c) for c in cs) or "-"

    def move_text(self, m: Move, person: bool) -> str:
        escoba = "  " + _("** ESCOBA **") if m.escoba else ""
        if not m.take:
            return (_("lay {card}") if person else _("lays {card}")).format(card=self.card(m.card))
        return (_("play {card} and take {cards}") if person else _("plays {card} and takes {cards}")).format(
            card=self.card(m.card), cards=self.cards(m.take)) + escoba

    def option_text(self, m: Move | None) -> str:
        if m is None:
            return _("no blow")
        if m.soplar:
            return _("blow: {card} + {cards}").format(card=self.card(m.card), cards=self.cards(m.take))
        if not m.take:
            return _("{card} (lay)").format(card=self.card(m.card))
        return _("{card} takes {cards}").format(card=self.card(m.card), cards=self.cards(m.take)) + (
            "  " + _("ESCOBA") if m.escoba else "")

    def show_position(self, st: HandState, where: str) -> None:
        r = self.rules
        head = _("-- {where} -- dealer: {dealer}").format(where=where, dealer=self.seats.name(st.dealer))
        score = ", ".join(f"{self.seats.side_name(s)} {p}" for s, p in enumerate(self.table.scores))
        if self.hands_mode:
            head += " " + _("-- points in the hands so far: {score}").format(score=score)
        elif r.target:
            head += " " + _("-- game score: {score} (to {target})").format(score=score, target=r.target)
        self.say(head)
        # the pile table, its headings in the process's language; a column is as wide as its heading
        heads = [_("cards"), _("oros"), _("sevens"), _("7o"), _("escobas")]
        width = max(8, len(_("taken")), *(len(self.seats.side_name(s)) for s in range(r.n_sides)))
        cols = [max(len(h), least) for h, least in zip(heads, (5, 4, 6, 3, 7))]  # a cell: "yes" under "7o"
        taken = _("taken")
        self.say(f"  {taken:<{width}}  " + "  ".join(heads))
        for side in range(r.n_sides):
            p = st.piles[side]
            cells = [p.bit_count(), (p & OROS_MASK).bit_count(), (p & SEVENS_MASK).bit_count(),
                     _("yes") if p >> SIETE_OROS & 1 else "-", st.escobas[side]]
            self.say(f"  {self.seats.side_name(side):<{width}}  "
                     + "  ".join(f"{c:>{w}}" for c, w in zip(cells, cols)))
        others = ", ".join(f"{self.seats.name(s)} {len(st.hands[s])}" for s in range(r.players) if s != PERSON_SEAT)
        self.say("  " + ngettext("stock: {n} card; cards in hand: {others}", "stock: {n} cards; cards in hand: {others}",
                                 len(st.stock)).format(n=len(st.stock), others=others))
        self.say("  " + _("table: {cards}").format(cards=self.cards(st.table)))
        self.say("  " + _("your hand: {cards}").format(cards=self.cards(st.hands[PERSON_SEAT])))

    # ------------------------------------------------------------ the person's decisions

    def hint(self) -> None:
        try:
            hint = self.table.hint()
        except (EvaluationError, ValueError) as e:
            self.say(_("no hint: {reason}").format(reason=e))
            return
        ev, blow = hint.evaluation, hint.blow
        if ev.method == "forced":
            self.say(_("hint: there is only one move"))
            return
        how = _("solved exactly") if ev.method == "exact" else _("{samples} deals").format(samples=ev.samples)
        self.say(_("hint ({how}, {seconds} s; hand margin in points, yours minus the best other's):").format(
            how=how, seconds=f"{hint.seconds:.2f}"))
        for i in ev.ranked()[:3]:
            o = ev.options[i]
            self.say(f"  {i + (0 if blow else 1):>2}) {option_label(o.move, translated=True):<16} "
                     f"{format_value(o, ev.method, translated=True)}")
        self.say_reading(hint)

    def say_reading(self, hint) -> None:
        """What the other seats probably hold (hands.reading), and why the best move is safe or not."""
        ev = hint.evaluation
        best = ev.options[ev.best].move
        if not hint.blow and best is not None:
            line = sweep_line(hint.reading, ev.info, best, option_label(best, translated=True), name=self.seats.name)
            if line:
                for part in fit_lines([line], 78, indent=2):
                    self.say("  " + part)
        for line in format_reading(hint.reading, name=self.seats.name, width=78):
            self.say("  " + line)

    def read(self, st: HandState, prompt: str, options: list, blow: bool):
        """The person's choice among ``options`` (None = no blow), or UNDO."""
        while True:
            line = self.ask(prompt)
            if line is None:
                self.say("")
                self.say(_("(end of input)"))
                raise Quit
            text = " ".join(line.split())  # tabs, form feeds and other separators read as spaces
            if not text:
                continue
            if not text.isprintable():  # an escape sequence (an arrow key), a NUL: never echoed back
                self.say(_("that line holds control characters, not a move: type a number, a card like 5o, or "
                           "{keys}").format(keys=keys()))
                continue
            if text.lower() in QUIT_WORDS:
                raise Quit
            if text.lower() in HINT_WORDS:
                self.hint()
                continue
            if len(text) > MAX_LINE:
                self.say(_("that is {length} characters, not a move: type a number, a card like 5o, or {keys}").format(
                    length=f"{len(text):,}", keys=keys()))
                continue
            if text.lower() in UNDO_WORDS:
                if self.table.can_undo:
                    return UNDO
                self.say(_("nothing to take back in this hand"))
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
            return None, (_("there is no blow option {k}: {choice}") if blow else _("there is no move {k}: {choice}")
                          ).format(k=k, choice=number_choice(first, len(options)))
        if NUMBER.fullmatch(text):  # `-1`, `+2` or `1.5` is a number, not a card with a bad suit
            return None, _("`{text}` is not one of the numbers shown: {choice}").format(
                text=text, choice=number_choice(first, len(options)))
        words = text.replace(",", " ").split()
        if not words:
            return None, _("type a number, a card like 5o, or {keys}").format(keys=keys())
        if blow:
            if words[0].lower() in NO_BLOW_WORDS or " ".join(words).lower() in NO_BLOW_WORDS:
                return options[0], None
            words = words[1:] if words[0].lower() in BLOW_WORDS else words
            if not words:
                if len(options) == 2:  # `s` alone: the one blow open
                    return options[1], None
                return None, _("name the blow, e.g. `{example}`, or `n` not to blow").format(
                    example=option_label(options[1], translated=True))
        lay = words[-1].lower() in LAY_WORDS and len(words) == 2
        try:
            cards = parse_cards(words[:-1] if lay else words)
        except CardError as e:
            return None, _("{reason} (or a number, {keys})").format(reason=e, keys=keys())
        if not cards:
            return None, _("name a card, e.g. {example}").format(example=option_label(options[-1], translated=True))
        card, take = cards[0], tuple(sorted(cards[1:]))
        seat = st.to_play
        if blow:
            found = [m for m in options[1:] if m.card == card and (not take or m.take == take)]
            if len(found) == 1:
                return found[0], None
            if not found:
                return None, _("{card} + {cards} is not a blow open to you").format(
                    card=card_str(card), cards=" ".join(map(card_str, take)))
            return None, _("name the cards the blow takes, e.g. {example}").format(
                example=option_label(found[0], translated=True))
        if take or lay:
            move = Move(seat, card, take, escoba=bool(take) and set(take) == set(st.table))
            if move in options:
                return move, None
            return None, engine.explain_illegal(st, move, options, translated=True, person=True)
        found = [m for m in options if m.card == card]
        if len(found) == 1:
            return found[0], None
        if not found:
            return None, engine.explain_illegal(st, Move(seat, card), options, translated=True, person=True)
        return None, (_("{card} has {n} moves: {moves} -- name the cards it takes, e.g. `{example}`").format(
            card=card_str(card), n=len(found), moves="; ".join(option_label(m, translated=True) for m in found),
            example=option_label(found[0], translated=True))
            + (_(", or `{card} -` to lay it").format(card=card_str(card)) if any(not m.take for m in found) else ""))

    # ------------------------------------------------------------ a hand

    def play_hand(self, game: int, hand: int, where: str) -> HandState:
        t = self.table
        t.deal(game, hand)
        try:
            st = t.st
            self.say("")
            self.say((_("== {where}: you deal ==") if st.dealer == PERSON_SEAT else _("== {where}: {dealer} deals ==")
                      ).format(where=where, dealer=self.seats.name(st.dealer)))
            if st.lucky_deal:
                what = ngettext("{n} escoba", "{n} escobas", st.lucky_deal).format(n=st.lucky_deal) \
                    if self.rules.lucky_deal == "escobas" else _("no escoba")
                self.say(_("lucky deal: the table summed to {total}; the dealer takes it ({what})").format(
                    total=15 * st.lucky_deal, what=what))
            else:
                self.say(_("table: {cards}").format(cards=self.cards(st.table)))
            t.advance()
            while not t.st.over:
                if not self.person_turn(where):
                    self.say(_("taken back: your blow") if t.undo() == "blow"
                             else _("taken back: your last move and the replies to it"))
            self.end_of_hand(t.st)
        except Quit:
            self.save(unfinished="quit")
            raise
        except BaseException as e:  # an error (a plugin's, a bug) or a signal: the hand so far is kept
            self.save_stopped(e)
            raise
        self.save()
        return t.st

    def person_turn(self, where: str) -> bool:
        """The person's turn (a blow decision first when one is open); False to take back."""
        t = self.table
        self.say("")
        self.show_position(t.st, where)
        kind, options = t.decision()
        if kind == "blow":
            laid = options[1].card
            self.say("  " + _("{who} laid {card}, which could have captured: you may blow (soplar)").format(
                who=self.seats.name(t.st.moves[-1].player), card=self.card(laid)))
            for i, m in enumerate(options):
                self.say(f"  {i:>2}) {self.option_text(m)}")
            choice = self.read(t.st, _("blow? [0-{last}, s to blow, {keys}]: ").format(last=len(options) - 1,
                                                                                      keys=keys()), options, True)
            if choice is UNDO:
                return False
            t.blow(choice)
            kind, options = t.decision()
        for i, m in enumerate(options, 1):
            self.say(f"  {i:>2}) {self.option_text(m)}")
        if len(options) == 1:  # a forced move: no range "1-1", and its card names it too
            ask = _("your only move [1 or {card}, {keys}]: ").format(card=card_str(options[0].card), keys=keys())
        else:
            ask = _("your move [1-{last}, a card like 5o or '5o Rc', {keys}]: ").format(last=len(options), keys=keys())
        choice = self.read(t.st, ask, options, False)
        if choice is UNDO:
            return False
        t.play(choice)
        return True

    def show_event(self, e: Event) -> None:
        """Say what happened at the table: a move (the person's as ``you lay 5o``), a blow, a new deal. The
        deal's table or lucky deal is said with the deal (``play_hand``)."""
        st, m = self.table.st, e.move
        person = e.seat == PERSON_SEAT
        if e.kind == "blow":
            if person:
                self.say(_("you blow: take {card} + {cards}").format(card=self.card(m.card), cards=self.cards(m.take)))
                self.say("  " + _("table: {cards}").format(cards=self.cards(st.table)))
            else:
                text = _("{who} BLOWS your {card}: takes {card} + {cards}") if st.moves[-2].player == PERSON_SEAT \
                    else _("{who} BLOWS the {card}: takes {card} + {cards}")
                self.say(text.format(who=self.seats.name(e.seat), card=self.card(m.card), cards=self.cards(m.take)))
        elif e.kind in ("lay", "capture"):
            self.say((_("you") if person else self.seats.name(e.seat)) + " " + self.move_text(m, person))
            if e.drew is not None and person:
                self.say(_("you draw {card}").format(card=self.card(e.drew)))
        elif e.kind == "deal":
            self.say(ngettext("-- new deal: {n} card each, {stock} left in the stock --",
                              "-- new deal: {n} cards each, {stock} left in the stock --",
                              self.rules.hand_size).format(n=self.rules.hand_size, stock=e.stock))

    def end_of_hand(self, st: HandState) -> None:
        res = st.result
        self.say("")
        if res.leftover_taker >= 0:
            if res.leftover_taker == PERSON_SEAT:
                self.say(ngettext("hand over: {n} card left on the table goes to you, the last to capture",
                                  "hand over: {n} cards left on the table go to you, the last to capture",
                                  res.leftovers).format(n=res.leftovers))
            else:
                self.say(ngettext("hand over: {n} card left on the table goes to {who}, the last to capture",
                                  "hand over: {n} cards left on the table go to {who}, the last to capture",
                                  res.leftovers).format(n=res.leftovers, who=self.seats.name(res.leftover_taker)))
        else:
            self.say(ngettext("hand over: {n} card left on the table goes to nobody",
                              "hand over: {n} cards left on the table go to nobody", res.leftovers).format(
                n=res.leftovers))
        self.say(format_score(self.rules, score_json(self.rules, res), self.record_strategies))

    def save(self, unfinished: str | None = None, quiet: bool = False) -> None:
        """Save the hand as a record (``Table.save``); ``unfinished`` (why it stopped: ``quit``, ``interrupted``,
        ``error: ...``) saves a hand still in play as ``...-unfinished.json`` (a quit before any move saves
        nothing)."""
        if unfinished == "quit" and not self.table.st.moves:
            return
        path = self.table.save(unfinished)
        self.saved.append(path)
        if quiet:
            return
        self.say((_("saved the unfinished hand: {path}") if unfinished else _("saved the hand: {path}")).format(
            path=path))

    def save_stopped(self, e: BaseException) -> None:
        """The hand in play when ``e`` stopped the session, saved (as unfinished unless it had ended);
        ``self.unfinished`` names the file. A failure to save is noted on ``e``, never raised over it."""
        try:
            self.save(unfinished=None if self.table.st.over else unfinished_reason(e), quiet=True)
            self.unfinished = self.saved[-1]
        except Exception as save_error:  # a full disk, a read-only folder: the first error is the story
            e.add_note(_("the hand could not be saved: {reason}").format(reason=save_error))

    # ------------------------------------------------------------ games

    def play(self, count: int, hands_mode: bool) -> None:
        """``count`` games to the ruleset's target, or with ``hands_mode`` ``count`` single hands."""
        t = self.table
        self.hands_mode = t.single_hand = hands_mode
        try:
            for g in range(count):
                if not hands_mode:
                    t.new_game()
                for h in range(engine.MAX_HANDS_PER_GAME):
                    self.play_hand(g, h, _("hand {n} of {count}").format(n=g + 1, count=count) if hands_mode
                                   else _("game {game}, hand {hand}").format(game=g + 1, hand=h + 1))
                    if t.game_over:
                        if not hands_mode:
                            self.say_game_over(g)
                        break
        except Quit:
            self.say(_("quit."))
        if self.saved:
            # this sitting's records, and what the folder holds in all (earlier sittings' too)
            total = sum(1 for p in self.out.glob("*.json") if p.is_file())
            self.say(ngettext("this session saved {n} hand record in {path} ({total} there in all)",
                              "this session saved {n} hand records in {path} ({total} there in all)",
                              len(self.saved)).format(n=len(self.saved), path=self.out, total=total))
            self.say(_("check one with `escoba-sim replay FILE`; where points were lost: `escoba-sim analyze FILE`"))
            self.say(_("all of them, luck and your rating: `escoba-sim history {path}`").format(
                path=shlex.quote(str(self.out))))

    def say_game_over(self, game: int) -> None:
        winner = self.seats.side_name(self.table.winner())
        score = ", ".join(f"{self.seats.side_name(s)} {p}" for s, p in enumerate(self.table.scores))
        self.say("")
        self.say((_("game {game} over: you win ({score})") if winner == _("you")
                  else _("game {game} over: {winner} wins ({score})")).format(game=game + 1, winner=winner, score=score))
