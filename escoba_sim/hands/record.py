"""Hand records: one hand as a JSON document a person can read and a program can check.

A record holds everything needed to re-play a hand without any strategy or
seed: the canonical ruleset string, the dealer, the 40 cards in dealing order
and the moves in order (plays and blows, cards in ``7o`` notation), plus the
score per side by category (the ``game.columns.SIDE_COLUMNS`` names). ``seed``,
``game``, ``hand`` and ``strategies`` are informational provenance only: a
strategy named there is printed, never loaded, so replaying a record from
elsewhere never runs a plugin it names.

``replay_record`` re-applies the moves with the reference engine's own
``new_hand``/``apply_blow``/``apply_move``, so the rules are never restated
here; ``walk`` yields the state before each move, which the ``trace`` and
``replay`` commands print. ``record_for_hand`` rebuilds any hand of a batch
run from (rules, strategies, seed, game, hand), which is how a hand played
by the compiled core becomes a replayable record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..batch import make_player
from ..errors import EscobaError
from ..game import engine
from ..game.cards import CardError, card_str, cards_str, parse_card, parse_cards, value
from ..game.columns import COLUMN_TEXT, SIDE_COLUMNS
from ..game.engine import HandState, IllegalMove, Move
from ..game.rng import DEAL_STREAM_VERSION, shuffled_deck
from ..game.rules import RulesError, Ruleset, parse_rules
from ..i18n import N_, ngettext
from ..i18n import translate as _
from ..strategies import parse_strategy

FORMAT = "escoba-sim/hand"
VERSION = 1


class RecordError(EscobaError):
    """A record that is not a well-formed hand record (as opposed to one with an illegal move)."""


@dataclass(frozen=True)
class Problem:
    """Something wrong with a well-formed record: an illegal move, a short or long hand, a wrong score."""

    reason: str  # in English: the record's language-neutral word (``replay --json``)
    move: int | None = None  # 1-based move number, None for the hand as a whole
    player: int | None = None
    said: str = field(default="", compare=False)  # the reason in the process's language, for a person

    def __str__(self) -> str:
        reason = self.said or self.reason
        if self.move is None:
            return reason
        if self.player is None:
            return _("move {n}: {reason}").format(n=self.move, reason=reason)
        return _("move {n} (seat {seat}): {reason}").format(n=self.move, seat=self.player, reason=reason)

    def as_dict(self) -> dict[str, Any]:
        return {"move": self.move, "player": self.player, "reason": self.reason}


# ---------------------------------------------------------------- building records

def move_to_json(m: Move) -> dict[str, Any]:
    if m.soplar:
        return {"player": m.player, "soplar": True, "card": card_str(m.card), "take": [card_str(c) for c in m.take]}
    return {"player": m.player, "card": card_str(m.card), "take": [card_str(c) for c in m.take], "escoba": m.escoba}


def score_json(rules: Ruleset, result: engine.HandResult) -> list[dict[str, Any]]:
    """Per side: its seats and every SIDE_COLUMNS category."""
    out = []
    for side in range(rules.n_sides):
        row: dict[str, Any] = {"side": side, "seats": [s for s in range(rules.players) if rules.side_of(s) == side]}
        row.update({k: getattr(result, k)[side] for k in SIDE_COLUMNS})
        out.append(row)
    return out


def make_record(st: HandState, *, seed: int | None = None, game: int | None = None, hand: int | None = None,
                strategies: list[str] | None = None, unfinished: bool | str = False) -> dict[str, Any]:
    """The record of a finished hand (``st.deck`` holds the dealing order, ``st.moves`` every move).

    With ``unfinished`` a hand still in play has a record too (no score; ``replay`` reports it unfinished);
    a string says why it stopped (``quit``, ``interrupted``, ``error: ...``) in the field ``unfinished``."""
    if not unfinished and (not st.over or st.result is None):
        raise ValueError("only a finished hand has a record")
    rec: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": st.rules.canonical(),
                           "dealer": st.dealer, "deck": cards_str(st.deck)}
    for k, v in (("seed", seed), ("game", game), ("hand", hand), ("strategies", strategies)):
        if v is not None:
            rec[k] = v
    if seed is not None:  # the deck came from the seed through this deal stream
        rec["deal_stream"] = DEAL_STREAM_VERSION
    rec["moves"] = [move_to_json(m) for m in st.moves]
    if st.over and st.result is not None:
        rec["score"] = score_json(st.rules, st.result)
    elif isinstance(unfinished, str) and unfinished:
        rec["unfinished"] = unfinished
    return rec


def play_record(rules: Ruleset, strategies: list[str], seed: int, game: int = 0, hand: int = 0,
                dealer: int | None = None, deck: list[int] | None = None) -> tuple[HandState, dict[str, Any]]:
    """Play one hand with the reference engine and return its final state and record."""
    if len(strategies) != rules.players:
        raise ValueError(_("{players} players need {players} strategies (one per seat), got {given}").format(
            players=rules.players, given=len(strategies)))
    st = engine.play_hand(rules, [make_player(parse_strategy(s).for_rules(rules)) for s in strategies], seed, game, hand, dealer=dealer, deck=deck)
    return st, make_record(st, seed=seed, game=game, hand=hand, strategies=list(strategies))


def record_for_hand(rules: Ruleset | str, strategies: list[str], seed: int, game: int = 0, hand: int = 0) -> dict[str, Any]:
    """Re-play hand ``hand`` of game ``game`` of a run (``--hands`` mode: game i, hand 0) as a record.

    Deck and play streams come from ``rng`` exactly as in a batch run, and the
    dealer is ``(game + hand) % players`` as in ``engine.play_game``, so the
    record describes the very hand either engine played.
    """
    rules = parse_rules(rules)
    return play_record(rules, strategies, seed, game, hand, dealer=(game + hand) % rules.players,
                       deck=shuffled_deck(seed, game, hand))[1]


# ---------------------------------------------------------------- reading records

def _need(data: dict[str, Any], key: str, types: type | tuple[type, ...], what: str) -> Any:
    if key not in data:
        raise RecordError(_("missing field `{key}` ({what})").format(key=key, what=what))
    v = data[key]
    if isinstance(v, bool) or not isinstance(v, types):  # JSON true/false is not a seat number
        raise RecordError(_("field `{key}` must be {what}, got {got}").format(key=key, what=what, got=json_type(v)))
    return v


def _brief(v: Any) -> str:
    """A value for an error line: a number too long to print (or any long text) is described, not printed."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return _("a number of {bits} bits").format(bits=v.bit_length())
    text = repr(v) if not isinstance(v, int) else str(v)
    return text if len(text) <= 60 else text[:57] + "..."


def json_type(v: Any) -> str:
    """What a JSON value is, for an error line (in the process's language)."""
    return {bool: _("true/false"), int: _("a number"), float: _("a number"), str: _("a string"), list: _("a list"),
            dict: _("an object"), type(None): "null"}.get(type(v), type(v).__name__)


def _card(text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise RecordError(_("{where}: a card must be a string like \"7o\", got {got}").format(
            where=where, got=json_type(text)))
    try:
        return parse_card(text)
    except CardError as e:
        raise RecordError(f"{where}: {e}") from None


@dataclass(frozen=True)
class RecordedMove:
    """A move as written in a record; ``escoba`` is None when the record leaves it out."""

    player: int
    card: int
    take: tuple[int, ...]
    soplar: bool
    escoba: bool | None


def parse_moves(raw: Any) -> list[RecordedMove]:
    if not isinstance(raw, list):
        raise RecordError(_("field `moves` must be a list of moves, got {got}").format(got=json_type(raw)))
    out = []
    for i, m in enumerate(raw, 1):
        where = _("move {n}").format(n=i)
        if not isinstance(m, dict):
            raise RecordError(_("{where}: must be an object with player, card and take, got {got}").format(
                where=where, got=json_type(m)))
        for k in ("player", "card"):
            if k not in m:
                raise RecordError(_("{where}: missing `{key}`").format(where=where, key=k))
        player = m["player"]
        if not isinstance(player, int) or isinstance(player, bool):
            raise RecordError(_("{where}: `player` must be a seat number, got {got}").format(
                where=where, got=json_type(player)))
        if player.bit_length() > 64:
            raise RecordError(_("{where}: `player` must be a seat number, got {got}").format(
                where=where, got=_brief(player)))
        take_raw = m.get("take", [])
        if isinstance(take_raw, str):
            take_raw = take_raw.replace(",", " ").split()
        if not isinstance(take_raw, list):
            raise RecordError(_("{where}: `take` must be a list of cards, got {got}").format(
                where=where, got=json_type(take_raw)))
        take = [_card(t, f"{where} take") for t in take_raw]
        if len(set(take)) != len(take):
            raise RecordError(_("{where}: `take` lists a card twice").format(where=where))
        soplar = m.get("soplar", False)
        escoba = m.get("escoba")
        if not isinstance(soplar, bool):
            raise RecordError(_("{where}: `soplar` must be true or false").format(where=where))
        if escoba is not None and not isinstance(escoba, bool):
            raise RecordError(_("{where}: `escoba` must be true or false").format(where=where))
        out.append(RecordedMove(player, _card(m["card"], f"{where} card"), tuple(sorted(take)), soplar, escoba))
    return out


@dataclass
class Parsed:
    rules: Ruleset
    dealer: int
    deck: list[int]
    moves: list[RecordedMove]


def parse_record(data: Any) -> Parsed:
    """Check a record's structure (not the legality of its moves) and decode it."""
    if not isinstance(data, dict):
        raise RecordError(_("a hand record is a JSON object, got {got}").format(got=json_type(data)))
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(_("`format` is {got}, not a hand record ({format})").format(got=_brief(fmt),
                                                                                     format=repr(FORMAT)))
    version = data.get("version", VERSION)
    if type(version) is not int or version != VERSION:  # `true` and 1.0 are equal to 1, yet not a version
        raise RecordError(_("record version {got} is not supported (this escoba-sim reads version {version})").format(
            got=_brief(version), version=VERSION))
    rules_text = _need(data, "rules", str, _("a ruleset such as \"ludoteka\""))
    try:
        rules = parse_rules(rules_text, files=False)  # a file the record names is never opened
    except RulesError as e:
        raise RecordError(_("field `rules`: {reason}").format(reason=e)) from None
    dealer = _need(data, "dealer", int, _("a seat number"))
    if not 0 <= dealer < rules.players:
        raise RecordError(_("field `dealer`: {got} is not a seat (0 to {last} with {players} players)").format(
            got=_brief(dealer), last=rules.players - 1, players=rules.players))
    deck_raw = _need(data, "deck", (str, list), _("the 40 cards in dealing order"))
    deck_field = _("field `deck`")
    if isinstance(deck_raw, list):
        deck_raw = [_card(t, deck_field) for t in deck_raw]
        deck_raw = " ".join(card_str(c) for c in deck_raw)
    try:
        deck = parse_cards(deck_raw, distinct=False)
    except CardError as e:
        raise RecordError(f"{deck_field}: {e}") from None
    check_deck(deck, deck_field, exc=RecordError)
    moves = parse_moves(_need(data, "moves", list, _("a list of moves")))
    _check_provenance(data, rules)
    return Parsed(rules, dealer, deck, moves)


def _check_provenance(data: dict[str, Any], rules: Ruleset) -> None:
    """The informational fields, when present, have the shapes ``make_record`` writes (they are printed)."""
    for key in ("seed", "game", "hand"):
        if key in data:
            v = data[key]
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**64:
                raise RecordError(_("field `{key}` must be a whole number from 0 to 2^64-1, got {got}").format(
                    key=key, got=json_type(v)))
    if "unfinished" in data:
        v = data["unfinished"]
        if not isinstance(v, str) or not 0 < len(v) <= 300 or not v.isprintable():
            got = json_type(v) if not isinstance(v, str) else _("{n} characters").format(n=len(v)) + (
                "" if v.isprintable() else " " + _("with line breaks or control characters"))
            raise RecordError(_("field `unfinished` must be one line saying why play stopped (quit, interrupted, "
                                "error: ...), got {got}").format(got=got))
    if "strategies" in data:
        v = data["strategies"]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise RecordError(_("field `strategies` must be a list of strategy names, one per seat, got {got}").format(
                got=json_type(v)))
        if len(v) != rules.players:
            raise RecordError(_("field `strategies` names {n} strategies for {players} seats").format(
                n=len(v), players=rules.players))


def check_deck(deck: list[int], where: str, exc: type[Exception] = ValueError) -> None:
    """A full deck: 40 cards, each once; the error names what is wrong."""
    seen: set[int] = set()
    dups = sorted({c for c in deck if c in seen or seen.add(c)})
    if dups:
        raise exc(_("{where}: {cards} listed twice; a deck holds each of the 40 cards once").format(
            where=where, cards=cards_str(dups)))
    if len(deck) != 40:
        missing = sorted(set(range(40)) - set(deck))
        shown = cards_str(missing) if len(missing) <= 8 else _("{n} cards").format(n=len(missing))
        raise exc(_("{where}: {n} cards, a deck needs all 40 (missing: {missing})").format(
            where=where, n=len(deck), missing=shown))


@dataclass
class Step:
    """One move and what the mover saw: its hand and the table just before it."""

    number: int  # 1-based position in the record's moves
    move: Move
    hand: list[int]
    table: list[int]
    dealt: bool = False  # a new round was dealt after this move
    drew: int | None = None  # the card drawn after this move (deal = draw)


def _problem(message: str, move: int | None = None, player: int | None = None, **fields) -> Problem:
    """A Problem whose reason is ``message`` (marked with N_) filled with ``fields``: in English for the record's
    JSON, and in the process's language for a person."""
    return Problem(message.format(**fields), move, player, said=_(message).format(**fields))


def _problem_for_blow(st: HandState, rm: RecordedMove, n: int) -> Problem | None:
    if st.pending_blow is None:
        return _problem(N_("there is nothing to blow: the previous play was not a laid card that could have "
                           "captured"), n, rm.player)
    if rm.player != st.to_play:
        return _problem(N_("only seat {seat}, who plays next, may blow"), n, rm.player, seat=st.to_play)
    laid, options = st.pending_blow
    if rm.card != laid:
        return _problem(N_("a blow takes the card just laid ({laid}), not {card}"), n, rm.player,
                        laid=card_str(laid), card=card_str(rm.card))
    if rm.take not in options:
        missing = [c for c in rm.take if c not in st.table]
        if missing:
            return _problem(N_("{cards} is not on the table") if len(missing) == 1 else N_("{cards} are not on the table"),
                            n, rm.player, cards=cards_str(missing))
        total = value(rm.card) + sum(value(c) for c in rm.take)
        if not rm.take:
            return _problem(N_("a blow must take table cards with the laid card"), n, rm.player)
        return _problem(N_("{card} + {cards} sum to {total}, not 15"), n, rm.player, card=card_str(rm.card),
                        cards=cards_str(rm.take), total=total)
    return None


# a legal move with a wrong `escoba` mark (indexed by the mark): reported, but the walk goes on
WRONG_ESCOBA_LABEL = {True: N_("marked as an escoba but cards stay on the table"),
                      False: N_("takes the whole table, so it is an escoba, but it is not marked as one")}


def walk(rules: Ruleset, deck: list[int], dealer: int, moves: list[RecordedMove],
         problems: list[Problem]) -> Iterator[tuple[HandState, Step]]:
    """Apply ``moves`` from the deal, yielding the state after each legal move with its ``Step``.

    Stops at the first illegal move (appending a Problem): what follows it
    cannot be judged. Moves after the end and an unfinished hand are Problems too.
    """
    st = engine.new_hand(rules, deck, dealer)
    for n, rm in enumerate(moves, 1):
        if st.over:
            problems.append(_problem(N_("the hand is already over; {left} move(s) left over"), n, rm.player,
                                     left=len(moves) - n + 1))
            return
        hand_before, table_before, stock_before = list(st.hands[st.to_play]), list(st.table), len(st.stock)
        if rm.soplar:
            p = _problem_for_blow(st, rm, n)
            if p:
                problems.append(p)
                return
            move = Move(rm.player, rm.card, rm.take, soplar=True)
            try:
                engine.apply_blow(st, move)
            except IllegalMove as e:
                problems.append(Problem(str(e), n, rm.player))
                return
            yield st, Step(n, move, hand_before, table_before)
            continue
        if rm.player != st.to_play:
            problems.append(_problem(N_("it is seat {seat}'s turn, not seat {mover}'s"), n, rm.player,
                                     seat=st.to_play, mover=rm.player))
            return
        clears = bool(rm.take) and set(rm.take) == set(st.table)
        move = Move(rm.player, rm.card, rm.take, escoba=clears)
        try:
            engine.apply_move(st, move)
        except IllegalMove as e:  # the state is as before the move: its reason is said again for a person
            said = engine.explain_illegal(st, move, engine.legal_moves(st), translated=True) \
                if rm.player == st.to_play else ""
            problems.append(Problem(str(e), n, rm.player, said=said))
            return
        if rm.escoba is not None and rm.escoba != clears:
            # the move is legal; only its label is wrong, so report it and carry on
            problems.append(_problem(WRONG_ESCOBA_LABEL[rm.escoba], n, rm.player))
        step = Step(n, move, hand_before, table_before)
        if rules.deal == "draw" and len(st.stock) < stock_before:
            step.drew = st.deck[40 - stock_before]
        elif rules.deal == "rounds" and len(st.stock) < stock_before:
            step.dealt = True
        yield st, step
    if not st.over:
        left = sum(len(h) for h in st.hands) + len(st.stock)
        problems.append(_problem(N_("the hand is not finished: seat {seat} is to play and {left} card(s) are still "
                                    "in hands or the stock"), seat=st.to_play, left=left))


def replay_record(data: Any) -> tuple[HandState, list[Problem]]:
    """Check a record move by move under its ruleset; raise RecordError if it is not a hand record.

    Returns the state reached (finished, with ``result``, when the record is
    complete and legal) and the problems found; no problems means the record
    is a legal, complete hand whose recorded score (if any) is right.
    """
    parsed = parse_record(data)
    problems: list[Problem] = []
    st = None
    for st, _step in walk(parsed.rules, parsed.deck, parsed.dealer, parsed.moves, problems):
        pass
    if st is None:
        st = engine.new_hand(parsed.rules, parsed.deck, parsed.dealer)
    if "unfinished" in data:  # play saved the hand when it stopped: say why
        if st.over and not problems:
            problems.append(_problem(N_("the record is marked unfinished, but its moves finish the hand")))
        elif problems and problems[-1].move is None and problems[-1].reason.startswith("the hand is not finished"):
            why = data["unfinished"]
            problems[-1] = Problem(f"{problems[-1].reason} (play stopped: {why})",
                                   said=problems[-1].said + " " + _("(play stopped: {why})").format(why=why))
    if st.over and not problems and "score" in data:
        expected = score_json(parsed.rules, st.result)
        if data["score"] != expected:
            diff = _score_diff(data["score"], expected)
            problems.append(Problem("the recorded score does not match the moves: " + diff,
                                    said=_("the recorded score does not match the moves: {difference}").format(
                                        difference=diff)))
    return st, problems


def _score_diff(recorded: Any, expected: list[dict[str, Any]]) -> str:
    if not isinstance(recorded, list) or len(recorded) != len(expected):
        return f"expected {len(expected)} sides"
    for side, (r, e) in enumerate(zip(recorded, expected)):
        if not isinstance(r, dict):
            return f"side {side} is not an object"
        for k, v in e.items():
            if r.get(k) != v:
                return f"side {side} {k} is {r.get(k)!r}, the moves give {v!r}"
    return "unexpected extra fields"


# ---------------------------------------------------------------- text for people

def side_label(rules: Ruleset, side: int, strategies: list[str] | None = None) -> str:
    seats = [s for s in range(rules.players) if rules.side_of(s) == side]
    if rules.teams:
        return _("team {seats}").format(seats="+".join(str(s) for s in seats))
    if not strategies or side >= len(strategies):
        return _("seat {seat}").format(seat=side)
    name = strategies[side]
    if name == "person":  # the person's seat of a record from `play` (hands.table.PERSON), in the language shown
        return _("seat {seat} {strategy}").format(seat=side, strategy=_("person"))
    if ".py:" not in name and ".toml" not in name:  # a file named in a record is shown, never read or run
        try:  # the record keeps canonical specs (every weight); a person reads the short form
            from ..strategies import parse_strategy

            name = parse_strategy(name).short
        except ValueError:
            pass
    return _("seat {seat} {strategy}").format(seat=side, strategy=name)


def format_score(rules: Ruleset, score: list[dict[str, Any]], strategies: list[str] | None = None) -> str:
    """The score sheet: one row per SIDE_COLUMNS category, one column per side. The lucky deal's escobas are
    counted in the escobas row (docs/engine.md): their row, under it, says they are part of it."""
    heads = [side_label(rules, s, strategies) for s in range(len(score))]
    width = max(12, *(len(h) + 2 for h in heads))
    labels = {k: "  " + _("of which lucky deal") if k == "lucky_escobas" else _(COLUMN_TEXT[k]) for k in SIDE_COLUMNS}
    left = max(20, *(len(t) + 1 for t in labels.values()))
    lines = [_("score sheet").ljust(left) + "".join(h.rjust(width) for h in heads)]
    for k in SIDE_COLUMNS:
        if k == "cards_taken":
            lines.append("-" * (left + width * len(heads)))
        lines.append(labels[k].ljust(left) + "".join(str(row[k]).rjust(width) for row in score))
    return "\n".join(lines)


def fit_lines(lines: list[str], width: int, indent: int = 6) -> list[str]:
    """Lines no wider than ``width``: a longer one wraps at spaces onto lines indented by ``indent``
    (a card, a number or a word is never split)."""
    import textwrap

    out = []
    for line in "\n".join(lines).split("\n"):  # an entry may hold several lines (the score sheet)
        if len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        out += textwrap.wrap(line.strip(), width, initial_indent=" " * lead, subsequent_indent=" " * max(indent, lead),
                             break_long_words=False, break_on_hyphens=False)
    return out


def format_trace(data: dict[str, Any], notes: dict[int, str] | None = None, width: int = 80) -> str:
    """A hand record told play by play: seat, hand and table before each move, the move, escobas, the sheet.

    ``notes`` (by move number) are printed on a line under their move, e.g. the evaluator's view of it,
    headed by a second header line. Columns are as wide as their widest entry; no line is wider than
    ``width`` (a longer one wraps at spaces)."""
    parsed = parse_record(data)
    rules, strategies = parsed.rules, data.get("strategies")
    out: list[str] = []
    origin = []
    if "seed" in data:
        origin.append(_("seed {seed}").format(seed=data["seed"]))
    if "game" in data:
        origin.append(_("game {game} hand {hand}").format(game=data["game"], hand=data.get("hand", 0)))
    out.append(_("rules {rules}").format(rules=rules.canonical()) + (f"  ({', '.join(origin)})" if origin else ""))
    seats = ", ".join(_("seat {seat}: {strategy}").format(seat=s, strategy=strategies[s])
                      if strategies and s < len(strategies) else _("seat {seat}").format(seat=s)
                      for s in range(rules.players))
    out.append(_("{seats}; dealer seat {dealer}").format(seats=seats, dealer=parsed.dealer))
    out.append(_("deck  {cards}").format(cards=cards_str(parsed.deck)))
    st0 = engine.new_hand(rules, parsed.deck, parsed.dealer)
    for seat in st0.seat_order(parsed.dealer + 1):
        out.append(_("seat {seat} is dealt {cards}").format(seat=seat, cards=cards_str(st0.hands[seat])))
    pos = rules.players * rules.hand_size
    initial = sorted(parsed.deck[pos:pos + rules.table_size])
    out.append(_("table {cards}").format(cards=cards_str(initial) or _("(empty)")))
    if st0.lucky_deal:
        side = rules.side_of(parsed.dealer)
        what = (ngettext("{n} escoba", "{n} escobas", st0.lucky_deal).format(n=st0.lucky_deal)
                if rules.lucky_deal == "escobas" else _("no escoba (lucky_deal = capture)"))
        out.append(_("lucky deal: the dealer (seat {seat}, side {side}) takes the table: {what}").format(
            seat=parsed.dealer, side=side, what=what))
    out.append("")
    problems: list[Problem] = []
    # the walk updates one state in place: the stock left after each step is read as it goes
    steps = [(st, step, len(st.stock)) for st, step in walk(rules, parsed.deck, parsed.dealer, parsed.moves, problems)]
    hw = max([4, *(len(cards_str(step.hand)) for _, step, _ in steps)]) + 2
    tw = max([5, *(len(cards_str(step.table)) for _, step, _ in steps)]) + 2
    seat_head, hand_head, table_head = _("seat"), _("hand"), _("table")
    sw = max(5, len(seat_head) + 1)
    hw = max(hw, len(hand_head) + 2)
    tw = max(tw, len(table_head) + 2)
    move_head = _("move")
    out.append(f"{'#':>3}  {seat_head:<{sw}}{hand_head:<{hw}}{table_head:<{tw}}{move_head}")
    if notes:
        out.append(f"{'':10}" + _("value ±se of the move played; a better move, its value, the loss"))
    st = st0
    for st, step, stock in steps:
        m = step.move
        if m.soplar:
            text = _("BLOWS: takes {card} + {cards}").format(card=card_str(m.card), cards=cards_str(m.take))
        elif m.take:
            text = _("{card} takes {cards}").format(card=card_str(m.card), cards=cards_str(m.take)) + (
                "  " + _("** ESCOBA **") if m.escoba else "")
        else:
            text = _("lays {card}").format(card=card_str(m.card))
        if step.drew is not None:
            text += "  " + _("(draws {card})").format(card=card_str(step.drew))
        hand = "" if m.soplar else cards_str(step.hand)
        out.append(f"{step.number:>3}  {m.player:<{sw}}{hand:<{hw}}{cards_str(step.table) or '-':<{tw}}{text}")
        if notes and step.number in notes:
            out.append(f"{'':10}{notes[step.number]}")
        if step.dealt:
            out.append("     " + _("-- new deal, {stock} cards left in the stock --").format(stock=stock))
    for p in problems:
        out.append(_("PROBLEM: {problem}").format(problem=p))
    if st.over and st.result is not None:
        res = st.result
        out.append("")
        if res.leftover_taker >= 0:
            out.append(_("leftovers: {n} card(s) to seat {seat}, the last capturer (not an escoba)").format(
                n=res.leftovers, seat=res.leftover_taker))
        else:
            out.append(_("leftovers: {n} card(s) to nobody (no capture in the hand)").format(n=res.leftovers))
        out.append("")
        out.append(format_score(rules, score_json(rules, res), strategies))
    return "\n".join(fit_lines(out, width))


def legal_moves_for(rules: Ruleset, hand: list[int], table: list[int]) -> list[Move]:
    """The legal moves of a seat holding ``hand`` at ``table``, without a full deal.

    Builds a bare HandState (seat 0 to play, nothing else dealt) so the
    engine's own ``legal_moves`` decides; no rule is restated here.
    """
    both = sorted(set(hand) & set(table))
    if both:
        raise CardError(_("{cards} cannot be both in the hand and on the table").format(cards=cards_str(both)))
    if not hand:
        raise CardError(_("the hand is empty: give at least one card"))
    n = rules.n_sides
    st = HandState(rules, 0, [], [sorted(hand)] + [[] for _ in range(rules.players - 1)], sorted(table), [],
                   [0] * n, [0] * n, [0] * n, to_play=0)
    return engine.legal_moves(st)
