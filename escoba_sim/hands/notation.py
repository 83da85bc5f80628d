"""The hand notation: a hand record as one line of text a person can read, paste in a chat or put in a link.

    escoba1/RULES/dDEALER/DECK/MOVES[/KEY=VALUE]...

``RULES`` is the canonical ruleset string, ``DEALER`` the dealing seat, ``DECK`` the 40 cards in dealing order
as their 2-character codes run together, ``MOVES`` the moves joined by ``.`` (``-`` for none): a play is its
card, then ``:`` and the cards it takes (``3o:4eSe``; a lay is the card alone), a blow is ``!`` and the laid
card it takes with (``!3c:6c6b``); a move's seat is written (``2@4b``) only where the turn order does not give
it. Then the provenance, each ``KEY=VALUE`` under the record's own key: ``seed``, ``game``, ``hand``,
``strategies`` (one per seat, joined by ``;``), ``deal_stream`` and ``unfinished``. The ``escoba`` marks and
the ``score`` are left out and computed again by replaying the moves (``record.walk``), and ``analysis`` is not
carried (``analyze`` computes it). docs/records.md, "One line of text", has the grammar.

Every character is one a URL fragment takes as it is (RFC 3986): a link is ``http://HOST/#hand=`` and the
notation unchanged. A character of a strategy name or of ``unfinished`` outside that set (a space, ``/``,
``;``, ``%``, any non-ASCII letter) is written ``%XX`` (its UTF-8 bytes); every field is percent-decoded
after the line is split, so a link whose ``(`` a chat program wrote ``%28`` still reads. ``from_notation``
takes untrusted text: its length is bounded, every field checked, and the rules are parsed as text only
(``parse_rules(files=False)``: a file name is refused, never opened).
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from ..game import engine
from ..game.cards import CardError, card_str, parse_card
from ..game.engine import IllegalMove, Move
from ..game.rules import Ruleset
from ..i18n import translate as _
from .record import FORMAT, VERSION, RecordedMove, RecordError, parse_moves, parse_record, score_json, walk

TAG = "escoba1"  # the format's name and version: a later format gets escoba2
MAX_LENGTH = 4096  # characters; a hand of 6 players with long strategy specs takes about 1,000
PROVENANCE = ("seed", "game", "hand", "strategies", "deal_stream", "unfinished")  # the record's keys, in its order
NUMBERS = ("seed", "game", "hand", "deal_stream")
LINK_KEY = "#hand="  # the page's link: http://HOST/#hand=NOTATION
# what a text value (a strategy name, `unfinished`) keeps as it is: RFC 3986's unreserved characters and the
# sub-delimiters a fragment takes, but for those the notation uses (`/`, `;`, `%`) and those a chat program or
# a form may change (`&`, `+`, `'`)
_SAFE = "!$()*,:=@"  # beside the letters, digits and -._~ that urllib's quote always keeps
_NUMBER = re.compile(r"0|[1-9][0-9]{0,19}")
_SEAT = re.compile(r"-?(?:0|[1-9][0-9]{0,19})")


class NotationError(RecordError):
    """Text that is not a hand in the notation (or a record that cannot be written as one); one line naming what
    is wrong."""


# ---------------------------------------------------------------- writing

def _quote(text: str) -> str:
    """``text`` with every character but the unreserved ones and ``_SAFE`` as ``%XX`` (its UTF-8 bytes)."""
    return urllib.parse.quote(text, safe=_SAFE)


class _Turns:
    """Who is to play, as the notation infers it: the seat to play while every move so far was accepted by the
    reference engine in turn; ``None`` once one was not (then every later move names its seat)."""

    def __init__(self, rules: Ruleset, deck: list[int], dealer: int):
        self.st: engine.HandState | None = engine.new_hand(rules, deck, dealer)

    def seat(self) -> int | None:
        return None if self.st is None or self.st.over else self.st.to_play

    def step(self, m: RecordedMove) -> None:
        st = self.st
        if st is None or m.player != self.seat():
            self.st = None
            return
        take = tuple(sorted(m.take))
        try:
            if m.soplar:
                engine.apply_blow(st, Move(m.player, m.card, take, soplar=True))
            else:
                engine.apply_move(st, Move(m.player, m.card, take, escoba=bool(take) and set(take) == set(st.table)))
        except (IllegalMove, ValueError, IndexError):
            self.st = None


def _move_text(m: RecordedMove, written: list[str], implicit: bool) -> str:
    return ("" if implicit else f"{m.player}@") + ("!" if m.soplar else "") + card_str(m.card) + (
        ":" + "".join(written) if written else "")


def to_notation(record: dict[str, Any]) -> str:
    """The one-line notation of a hand record (any record ``parse_record`` accepts); RecordError if it is not one,
    NotationError if it cannot be written (a provenance value of another shape, longer than ``MAX_LENGTH``)."""
    parsed = parse_record(record)
    turns = _Turns(parsed.rules, parsed.deck, parsed.dealer)
    moves = []
    for raw, m in zip(record["moves"], parsed.moves):
        take = raw.get("take", [])  # the record's order of the cards taken (parse_moves sorts them)
        take = take.replace(",", " ").split() if isinstance(take, str) else take
        moves.append(_move_text(m, [card_str(parse_card(t)) for t in take], turns.seat() == m.player))
        turns.step(m)
    parts = [TAG, _quote(parsed.rules.canonical()), f"d{parsed.dealer}", "".join(card_str(c) for c in parsed.deck),
             ".".join(moves) or "-"]
    for key in PROVENANCE:
        if key not in record:
            continue
        v = record[key]
        if key in NUMBERS:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**64:
                raise NotationError(_("field `{key}` must be a whole number from 0 to 2^64-1 to be written as a "
                                      "notation"), key=key)
            parts.append(f"{key}={v}")
        elif key == "strategies":
            try:
                parts.append("strategies=" + ";".join(_quote(s) for s in v))
            except UnicodeEncodeError:
                raise NotationError(_("field `strategies`: a name that is not Unicode text cannot be written as a "
                                      "notation")) from None
        else:
            parts.append(f"{key}={_quote(v)}")
    text = "/".join(parts)
    if len(text) > MAX_LENGTH:
        raise NotationError(_("the notation of this record would be {n} characters, more than the {limit} a "
                              "notation may have"), n=len(text), limit=MAX_LENGTH)
    return text


# ---------------------------------------------------------------- reading

def _unquote(text: str, where: str) -> str:
    if "%" not in text:
        return text
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        raise NotationError(_("{where}: a percent sign must be followed by two hexadecimal digits"), where=where)
    try:  # strict: bytes that are not UTF-8 are an error, not replacement characters
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError:
        raise NotationError(_("{where}: its percent escapes are not UTF-8 text"), where=where) from None


def _cards(text: str, where: str) -> list[str]:
    """The 2-character cards run together in ``text``, each checked (a card of 3 characters such as 10o is not
    one of the notation's: write Ro)."""
    if len(text) % 2:
        raise NotationError(_("{where}: cards are 2 characters each (7o, Rb), but {text} has {n} characters"),
                            where=where, text=_shown(text), n=len(text))
    out = []
    for i in range(0, len(text), 2):
        try:
            out.append(card_str(parse_card(text[i:i + 2])))
        except CardError as e:
            raise NotationError(_("{where}: {problem}"), where=where, problem=e) from None
    return out


def _shown(text: str) -> str:
    """A piece of untrusted text for an error line: short, one line."""
    text = text if text.isprintable() else repr(text)[1:-1]
    return text if len(text) <= 40 else text[:37] + "..."


def _move(text: str, n: int, seat: int | None) -> tuple[dict[str, Any], RecordedMove]:
    where = _("move {n}").format(n=n)
    player_text, at, rest = text.rpartition("@")
    if at:
        if not _SEAT.fullmatch(player_text):
            raise NotationError(_("{where}: {text} before @ is not a seat number"), where=where,
                                text=_shown(player_text))
        player = int(player_text)
    elif seat is None:
        raise NotationError(_("{where}: the turn order does not say who plays it (a move before it was not "
                              "legal, or the hand is over): write the seat, as 1@{move}"), where=where, move=_shown(rest))
    else:
        player = seat
    soplar = rest.startswith("!")
    card_text, colon, take_text = rest[soplar:].partition(":")
    if len(card_text) != 2:
        raise NotationError(_("{where}: {text} is not a move (a card like 7o, then :cards taken)"), where=where,
                            text=_shown(text))
    if colon and not take_text:
        raise NotationError(_("{where}: nothing after `:`; a lay is the card alone"), where=where)
    card = _cards(card_text, where)[0]
    take = _cards(take_text, where)
    move: dict[str, Any] = {"player": player, "soplar": True} if soplar else {"player": player}
    move.update({"card": card, "take": take})
    return move, parse_moves([move])[0]


def from_notation(text: str) -> dict[str, Any]:
    """The hand record (the dict ``parse_record`` reads, as ``make_record`` writes it) of a notation, or of a link
    holding one (``...#hand=NOTATION``); NotationError (a RecordError) naming what is wrong in one line."""
    if not isinstance(text, str):
        raise NotationError(_("a notation is text, got {got}"), got=type(text).__name__)
    if len(text) > MAX_LENGTH + 200:  # before anything else: the text is untrusted
        raise NotationError(_("the notation is {n} characters, more than the {limit} a notation may have"),
                            n=len(text), limit=MAX_LENGTH)
    text = text.strip()
    if not text.startswith(TAG) and LINK_KEY in text:  # a link: the notation is its fragment
        text = text.split(LINK_KEY, 1)[1]
    if len(text) > MAX_LENGTH:
        raise NotationError(_("the notation is {n} characters, more than the {limit} a notation may have"),
                            n=len(text), limit=MAX_LENGTH)
    if text.startswith(TAG) and any(c.isspace() for c in text):
        raise NotationError(_("a notation has no spaces or line breaks (its parts are joined by /)"))
    fields = text.split("/")
    if fields[0] != TAG:
        tag = fields[0]
        if re.fullmatch(r"escoba[0-9]{1,4}", tag):
            raise NotationError(_("notation {tag} is not supported (this escoba-sim reads {version})"), tag=tag,
                                version=TAG)
        raise NotationError(_("not a hand notation: it starts with {start}, not {version}/"),
                            start=_shown(text[:12]) or "''", version=TAG)
    if len(fields) < 5:
        named = [_("the rules"), _("the dealer"), _("the deck"), _("the moves")]
        raise NotationError(_("the notation ends after {n} of its 5 parts: {missing} missing (cut short?)"),
                            n=len(fields), missing=", ".join(named[len(fields) - 1:]))
    rules_text = _unquote(fields[1], _("the rules"))
    dealer_text = _unquote(fields[2], _("the dealer"))
    if not (dealer_text.startswith("d") and _NUMBER.fullmatch(dealer_text[1:]) and len(dealer_text) <= 3):
        raise NotationError(_("the dealer: {text} is not d and a seat number, like d0"), text=_shown(dealer_text))
    deck_text = _unquote(fields[3], _("the deck"))
    deck = _cards(deck_text, _("the deck"))
    if len(deck) != 40:
        raise NotationError(_("the deck: {n} cards, a deck needs all 40"), n=len(deck))
    record: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": rules_text, "dealer": int(dealer_text[1:]),
                              "deck": " ".join(deck)}
    provenance = _provenance(fields[5:])
    record.update(provenance)
    record["moves"] = []
    parsed = parse_record(record)  # the rules (as text only), the dealer's seat, the deck's 40 distinct cards
    record["rules"] = parsed.rules.canonical()
    moves_text = _unquote(fields[4], _("the moves"))
    turns = _Turns(parsed.rules, parsed.deck, parsed.dealer)
    recorded = []
    for n, move_text in enumerate([] if moves_text == "-" else moves_text.split("."), 1):
        move, rm = _move(move_text, n, turns.seat())
        turns.step(rm)
        record["moves"].append(move)
        recorded.append(rm)
    _derive(record, parsed.rules, parsed.deck, parsed.dealer, recorded)
    return record


def _provenance(fields: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields:
        key, eq, value = f.partition("=")
        if not eq or key not in PROVENANCE:
            raise NotationError(_("{text} is not one of the notation's KEY=VALUE parts ({keys})"),
                                text=_shown(f), keys=", ".join(PROVENANCE))
        if key in out:
            raise NotationError(_("{key} is given twice"), key=key)
        if key in NUMBERS:
            if not _NUMBER.fullmatch(value) or int(value) >= 2**64:
                raise NotationError(_("{key}: {text} is not a whole number from 0 to 2^64-1"), key=key,
                                    text=_shown(value))
            out[key] = int(value)
        elif key == "strategies":
            out[key] = [_unquote(s, key) for s in value.split(";")]
        else:
            out[key] = _unquote(value, key)
    return {k: out[k] for k in PROVENANCE if k in out}  # the record's order, whatever the text's


def _derive(record: dict[str, Any], rules: Ruleset, deck: list[int], dealer: int, moves: list[RecordedMove]) -> None:
    """The fields the notation leaves out, from a replay: each play's ``escoba`` mark (as far as the moves are
    legal) and, for a finished legal hand not marked unfinished, the ``score``."""
    problems: list = []
    st = None
    for st, step in walk(rules, deck, dealer, moves, problems):
        if not step.move.soplar:
            record["moves"][step.number - 1]["escoba"] = step.move.escoba
    if "unfinished" in record:
        record["unfinished"] = record.pop("unfinished")  # last, as make_record writes it
    elif st is not None and st.over and st.result is not None and not problems:
        record["score"] = score_json(rules, st.result)


# ---------------------------------------------------------------- a record given as text

def looks_like_notation(text: str) -> bool:
    """Whether ``text`` is meant as a notation (or a link holding one) rather than JSON or a file's name."""
    head = text.lstrip()[:len(TAG) + 8]
    return bool(re.match(r"escoba[0-9]{1,4}/", head)) or LINK_KEY in text[:MAX_LENGTH]


def read_record_text(text: str, what: str) -> dict[str, Any]:
    """A hand record from a file's or stdin's text (``what`` names it in errors): the notation (or a link holding
    one) when the text is one, else JSON (``files.parse_json``: UntrustedFile when it is not)."""
    from ..files import parse_json

    if not text.lstrip().startswith("{") and looks_like_notation(text):
        return from_notation(text)
    return parse_json(text, what)
