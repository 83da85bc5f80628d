"""The games the page plays: one ``WebGame`` per game id, kept in a bounded ``GameStore``.

A game is the page's front end of the table (``hands.table.Table``, as ``play`` is the terminal's): the
same seats (``lineup.table_seats``), deals, dealers and computer draws (game 0, hand h), the same
hints, take-back and hand records (written into the server's folder under names the table makes). This
module turns requests into the table's decisions, and its state and events into JSON. Every request is
validated here: a move names a card and the cards it takes, and must be one of the engine's legal moves.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .. import files, i18n
from ..errors import EscobaError
from ..game import engine
from ..game.cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, CardError, card_str, cards_of, parse_card
from ..game.engine import Move
from ..game.rng import draw_seed
from ..game.rules import PRESETS, RulesError, parse_rules
from ..hands.evaluate import DEFAULT_SAMPLES, MAX_SAMPLES, EvaluationError, format_value, option_label
from ..hands.reading import format_reading, sweep_json, sweep_line
from ..hands.record import score_json
from ..hands.review import AnalysisError, analyze_record
from ..hands.table import Event, SaveFailed, Table
from ..i18n import N_
from ..lineup import PERSON_SEAT, LineupError, table_seats
from ..strategies import StrategyError, parse_strategy
from ..strategies.registry import BUILTINS

MAX_GAMES = 32  # games kept in memory; the least recently used one goes first
MAX_TEXT = 200  # the longest ruleset or strategy text a request may give
HINT_OPTIONS = 3  # as play's `?`
# the names the server makes (SEED-g0-hH.json) and play's (SEED-gG-hH[-unfinished][-K].json): the only names
# a request may read back
RECORD_NAME = re.compile(r"^[0-9]{1,20}-g[0-9]{1,20}-h[0-9]{1,5}(-unfinished)?(-[0-9]{1,4})?\.json$")


class WebError(EscobaError):
    """A request that cannot be done: one line for the page, and the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400, **fields):
        super().__init__(message, **fields)
        self.message, self.status = message, status

    def said(self, lang: str) -> str:
        """The message in ``lang`` (the page's): ours come from the catalogue, a library's reason as it came."""
        text = i18n.translation(lang).gettext(self.message)
        return text.format(**self.fields) if self.fields else text


def opponents() -> list[str]:
    """The strategies the page offers: every built-in that plays fair (not the oracle)."""
    return [name for name, d in BUILTINS.items() if not d.cheats]


def rulesets() -> list[str]:
    return list(PRESETS)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT or not value.isprintable():
        raise WebError(N_("`{what}` must be a short line of text"), what=what)
    return value.strip()


def _card(value: Any, what: str) -> int:
    if not isinstance(value, str) or len(value) > 4:
        raise WebError(N_("`{what}` must be a card such as 5o or Rc"), what=what)
    try:
        return parse_card(value)
    except CardError as e:
        raise WebError("`{what}`: {reason}", what=what, reason=str(e)) from None


def _seats(data: Any):
    """The seats a new-game request asks for: a ruleset (preset or preset(field=value)), one built-in
    opponent, and teams or not. A file or a plugin named by a request is refused, never opened or run."""
    if not isinstance(data, dict):
        raise WebError(N_("a new game is a JSON object with rules, vs and teams"))
    rules_text = _text(data.get("rules", "ludoteka"), "rules")
    vs = _text(data.get("vs", "greedy"), "vs")
    teams = data.get("teams", False)
    if not isinstance(teams, bool):
        raise WebError(N_("`teams` must be true or false"))
    try:
        rules = parse_rules(rules_text, files=False)
        spec = parse_strategy(vs, files=False)
    except (RulesError, StrategyError) as e:
        raise WebError(files.first_line(e)) from None
    if spec.plugin is not None:
        raise WebError(N_("`{vs}` is a plugin: the page plays the built-in strategies only"), vs=vs)
    try:
        return table_seats(rules.canonical(), [spec.canonical], teams=teams)
    except (LineupError, StrategyError) as e:
        raise WebError(files.first_line(e)) from None


class WebGame:
    """One game (hands to the ruleset's target, or one hand when it has none) between the person and the
    computer seats, at a ``Table``. Methods change it under its lock; ``state`` is what the page draws."""

    def __init__(self, game_id: str, request: Any, out: Path, samples: int = DEFAULT_SAMPLES, seed: int | None = None):
        self.id, self.out, self.samples = game_id, out, samples
        self.seats = _seats(request)
        self.rules = self.seats.rules
        self.seed = draw_seed() if seed is None else seed
        self.table = Table(self.rules, self.seats.specs, self.seed, out, samples=samples,
                           single_hand=not self.rules.target)
        self.records: list[str] = []  # the names of this game's saved records, hand by hand
        self.lock = threading.Lock()
        self.deal(0)

    @property
    def st(self):
        """The hand in play (``engine.HandState``)."""
        return self.table.st

    # ------------------------------------------------------------ play

    def deal(self, hand: int) -> None:
        self.table.deal(0, hand)
        self.table.advance()
        self.keep_finished()

    def keep_finished(self) -> None:
        """A hand that has just ended is saved (its name joins ``records``)."""
        if self.table.st.over:
            self.records.append(self.save().name)

    def decision(self) -> tuple[str, list]:
        """("blow", [None, *blows]), ("move", legal moves), or ("over", [])."""
        return self.table.decision()

    def play(self, data: Any) -> None:
        """The person plays ``{"card": "5o", "take": ["Rc"]}`` (an empty ``take`` lays the card)."""
        kind, options = self.decision()
        if kind != "move":
            raise WebError(N_("it is not your move: the hand is over") if kind == "over" else
                           N_("it is not your move: first say whether you blow"), 409)
        if not isinstance(data, dict) or not isinstance(data.get("take", []), list) or len(data.get("take", [])) > 10:
            raise WebError(N_("a move is a card and the cards it takes, such as 5o taking Rc"))
        card = _card(data.get("card"), "card")
        take = tuple(sorted(_card(t, "take") for t in data.get("take", [])))
        found = [m for m in options if m.card == card and m.take == take]
        if not found:
            probe = Move(PERSON_SEAT, card, take, escoba=bool(take) and set(take) == set(self.st.table))
            reason = engine.explain_illegal(self.st, probe, options).replace(f"seat {PERSON_SEAT}'s hand", "your hand")
            raise WebError(reason, 409)
        self.table.play(found[0])
        self.keep_finished()

    def blow(self, data: Any) -> None:
        """The person's blow decision: ``{"option": 0}`` not to blow, ``k`` for the k-th blow offered."""
        kind, options = self.decision()
        if kind != "blow":
            raise WebError(N_("there is no blow open to you"), 409)
        k = data.get("option") if isinstance(data, dict) else None
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(options):
            raise WebError(N_("`option` must be a number from 0 to {last}"), last=len(options) - 1)
        self.table.blow(options[k])

    def undo(self) -> None:
        """Take back the person's blow of this turn, or else their last move and the replies to it."""
        if self.st.over:
            raise WebError(N_("the hand is over: nothing to take back"), 409)
        if self.table.undo() is None:
            raise WebError(N_("nothing to take back in this hand"), 409)

    def hint(self, lang: str = i18n.DEFAULT) -> dict[str, Any]:
        """The evaluator's best options of the person's decision, as ``play``'s ``?`` gives them, and what the
        other seats probably hold (``reading``: numbers and card codes; ``reading_text``: lines in ``lang``)."""
        if self.decision()[0] == "over":
            raise WebError(N_("the hand is over: there is no decision to evaluate"), 409)
        try:
            hint = self.table.hint()
        except EvaluationError as e:
            raise WebError(str(e), 503) from None
        ev = hint.evaluation
        out = {"method": ev.method, "samples": ev.samples, "seconds": round(hint.seconds, 3), "options": []}
        if ev.method != "forced":
            for i in ev.ranked()[:HINT_OPTIONS]:
                o = ev.options[i]
                out["options"].append({**_option_json(o.move), "label": option_label(o.move),
                                       "value": round(o.value, 4), "spread": round(o.spread, 4),
                                       "text": format_value(o, ev.method)})
        best = ev.options[ev.best].move
        move = best if not hint.blow and best is not None else None
        out["reading"] = hint.reading.to_json() if hint.reading is not None else None
        out["sweep"] = sweep_json(hint.reading, ev.info, move) if move else None
        sweep = sweep_line(hint.reading, ev.info, move, option_label(move), lang=lang) if move else None
        out["reading_text"] = ([sweep] if sweep else []) + format_reading(hint.reading, width=1000, lang=lang)
        return out

    def next_hand(self) -> None:
        if not self.st.over:
            raise WebError(N_("the hand is still in play"), 409)
        if self.game_over:
            raise WebError(N_("the game is over: start a new one"), 409)
        self.deal(self.table.hand + 1)

    @property
    def game_over(self) -> bool:
        """The game ends when one side alone reaches the target (a ruleset without one: after one hand)."""
        return self.table.game_over

    def save(self, unfinished: str | None = None) -> Path:
        try:
            return self.table.save(unfinished)
        except SaveFailed as e:
            raise WebError(N_("cannot save the hand record: {reason}"), 500, reason=files.first_line(e.cause)) from None

    def save_unfinished(self, reason: str) -> str | None:
        """Save the hand in play as ``...-unfinished.json`` (as ``play`` does for a hand cut short), when it has
        begun and not ended; returns the file's name."""
        if self.st.over or not self.st.moves:
            return None
        return self.save(reason).name

    # ------------------------------------------------------------ what the page draws

    def state(self) -> dict[str, Any]:
        st, r, t = self.st, self.rules, self.table
        kind, options = self.decision()
        sides = []
        for side in range(r.n_sides):
            pile = st.piles[side]
            sides.append({"side": side, "seats": [s for s in range(r.players) if r.side_of(s) == side],
                          "cards": pile.bit_count(), "oros": (pile & OROS_MASK).bit_count(),
                          "sevens": (pile & SEVENS_MASK).bit_count(), "siete_oros": bool(pile >> SIETE_OROS & 1),
                          "escobas": st.escobas[side], "score": t.scores[side]})
        out: dict[str, Any] = {
            "id": self.id, "rules": r.canonical(), "players": r.players, "teams": r.teams, "target": r.target,
            "soplar": r.soplar, "seats": [{"seat": s, "strategy": None if spec is None else parse_strategy(spec).short,
                                           "side": r.side_of(s), "cards": len(st.hands[s])}
                                          for s, spec in enumerate(self.seats.specs)],
            "hand_number": t.hand + 1, "dealer": st.dealer, "to_play": st.to_play,
            "table": [card_str(c) for c in st.table], "hand": [card_str(c) for c in st.hands[PERSON_SEAT]],
            "stock": len(st.stock), "sides": sides, "events": [_event_json(e) for e in t.events], "decision": kind,
            "options": [_option_json(m) for m in options], "can_undo": t.can_undo,
            "hand_over": st.over, "game_over": self.game_over, "records": list(self.records),
        }
        if st.over:
            out["score"] = score_json(r, st.result)
            out["leftovers"] = {"cards": st.result.leftovers, "seat": st.result.leftover_taker}
        return out


def _option_json(m: Move | None) -> dict[str, Any]:
    if m is None:
        return {"card": None, "take": [], "escoba": False, "blow": False}
    return {"card": card_str(m.card), "take": [card_str(c) for c in m.take], "escoba": m.escoba, "blow": m.soplar}


def _event_json(e: Event) -> dict[str, Any]:
    if e.kind == "lucky":
        return {"kind": "lucky", "seat": e.seat, "escobas": e.escobas}
    if e.kind == "deal":
        return {"kind": "deal", "stock": e.stock}
    m = e.move
    return {"kind": e.kind, "seat": e.seat, "card": card_str(m.card), "take": [card_str(c) for c in m.take],
            "escoba": m.escoba}


def saved_records(out: Path) -> list[str]:
    """The names of the records in the server's folder, newest first (a restart loses none)."""
    if not out.is_dir():
        return []
    found = [p for p in out.iterdir() if RECORD_NAME.match(p.name) and p.is_file() and not p.is_symlink()]
    return [p.name for p in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)]


def read_record(out: Path, name: str) -> bytes:
    """The bytes of a saved record, by a name the server made (anything else is not found)."""
    if not isinstance(name, str) or not RECORD_NAME.match(name):
        raise WebError(N_("no such record"), 404)
    try:
        return files.read_bytes(out / name, limit=files.MiB)
    except (OSError, files.UntrustedFile):
        raise WebError(N_("no such record"), 404) from None


def analyze(data: Any, seats: list[int] | None, samples: int) -> dict[str, Any]:
    """The analysis of a hand record (``hands.review.analyze_record``, what ``analyze`` prints) with the
    position at each decision as the decider saw it, for the page to draw. Nothing a record names is run:
    its rules and strategies are parsed as text only (``parse_record``: ``files=False``)."""
    try:
        an = analyze_record(data, seats=seats, samples=samples)
    except AnalysisError as e:
        raise WebError(files.first_line(e), 422) from None
    except EvaluationError as e:
        raise WebError(str(e), 503) from None
    decisions = []
    for d in an.decisions:
        ev, info = d.evaluation, d.evaluation.info
        played = ev.options[d.played]
        row = {"number": d.number, "seat": d.seat, "kind": "blow" if d.blow else "move",
               "played": option_label(played.move), "forced": d.forced, "method": ev.method,
               "position": {"hand": [card_str(c) for c in cards_of(info.hand)],
                            "table": [card_str(c) for c in cards_of(info.table)],
                            "pending": card_str(info.pending) if info.pending is not None else None,
                            "piles": [p.bit_count() for p in info.piles], "escobas": list(info.escobas),
                            "stock": info.stock_left, "hand_sizes": list(info.hand_sizes)}}
        if not d.forced:
            best = ev.options[d.best]
            row.update({"value_played": format_value(played, ev.method), "best": option_label(best.move),
                        "value_best": format_value(best, ev.method), "loss": round(d.loss, 2),
                        "loss_spread": round(d.loss_spread, 2), "mark": d.mark})
        decisions.append(row)
    return {"rules": an.rules.canonical(), "samples": an.samples, "notes": an.notes, "decisions": decisions,
            "players": [t.to_json() for t in an.totals()]}


class GameStore:
    """The games in memory, by id: at most ``limit``; a new game past it drops the least recently used
    (its finished hands are saved already)."""

    def __init__(self, out: Path, limit: int = MAX_GAMES, samples: int = DEFAULT_SAMPLES):
        if not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be 1 to {MAX_SAMPLES:,}")
        self.out, self.limit, self.samples = out, limit, samples
        self.games: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()

    def new(self, request: Any) -> WebGame:
        game = WebGame(secrets.token_urlsafe(12), request, self.out, self.samples)
        with self.lock:
            self.games[game.id] = game
            dropped = [self.games.popitem(last=False)[1] for _ in range(len(self.games) - self.limit)]
        for old in dropped:  # its hand in play is kept on disk, as play keeps a hand cut short
            with old.lock:
                old.save_unfinished("quit: the server kept newer games")
        return game

    def close(self) -> None:
        """The server stops: every hand in play is saved as unfinished, so a restart loses none."""
        with self.lock:
            games, self.games = list(self.games.values()), OrderedDict()
        for game in games:
            with game.lock:
                try:
                    game.save_unfinished("interrupted: the server stopped")
                except WebError:  # a full disk: the other hands are still saved
                    pass

    def get(self, game_id: str) -> WebGame:
        with self.lock:
            game = self.games.get(game_id) if isinstance(game_id, str) else None
            if game is None:
                raise WebError(N_("no such game (the server keeps the most recent games only): start a new one"), 404)
            self.games.move_to_end(game_id)
            return game
