"""The games the page plays: one ``WebGame`` per game id, kept in a bounded ``GameStore``.

A game is the page's front end of the table (``hands.table.Table``, as ``play`` is the terminal's): the
same seats (``lineup.table_seats``), deals, dealers and computer draws (game 0, hand h), the same
hints, take-back and hand records (written into the server's folder under names the table makes). This
module turns requests into the table's decisions, and its state and events into JSON. Every request is
validated here: a move names a card and the cards it takes, and must be one of the engine's legal moves.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import re
import secrets
import shutil
import threading
import time
from collections import OrderedDict, deque
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
from ..hands.luck import ledger_of, ledger_seats
from ..hands.reading import format_reading, sweep_json, sweep_line
from ..hands.record import RecordError, score_json
from ..hands.review import AnalysisError, analyze_record
from ..hands.table import Event, SaveFailed, Table, write_record
from ..i18n import N_
from ..lineup import PERSON_SEAT, LineupError, table_seats
from ..stops import Stopped
from ..strategies import StrategyError, format_number, parse_strategy
from ..strategies.levels import LEVEL, LEVELS, level_label
from ..strategies.registry import BUILTINS

log = logging.getLogger("escoba_sim.web")

MAX_GAMES = 64  # games kept in memory in all
CLIENT_GAMES = 16  # games kept for one client address; its own least recently used one goes first
IDLE_SECONDS = 15 * 60  # a game untouched this long may make room for another client's new game
RECORDS_PER_HOUR = 600  # records one client's games may write in an hour (a person plays a few dozen hands)
MIN_FREE_BYTES = 64 * 1024 * 1024  # no new game when the folder's disk has less room than this
JOURNAL = ".in-play"  # the folder (inside the server's) of the hands in play, one file per game
# The page's bounds on a computer opponent's search, below the registry's (the terminal's): a move of the
# computer at these bounds takes well under a second on one core, and the server's wall budget (app.py)
# stops whatever is left; searching built-ins not named here are bounded by the registry alone (cheap).
PAGE_LIMITS = {"ismcts": {"iters": 20_000, "exact": 8, "leaf": 12}, "endgame": {"max_cards": 8}}
MAX_TEXT = 200  # the longest ruleset or strategy text a request may give
HINT_OPTIONS = 3  # as play's `?`
# the names the server makes (SEED-g0-hH.json) and play's (SEED-gG-hH[-unfinished][-K].json): the only names
# a request may read back
IN_PLAY = "interrupted: the server stopped"  # why a hand recovered from the journal ended
# a journal's file: the game's id (secrets.token_urlsafe(12))
JOURNAL_NAME = re.compile(r"^[A-Za-z0-9_-]{16}\.json$")
RECORD_NAME = re.compile(r"^[0-9]{1,20}-g[0-9]{1,20}-h[0-9]{1,5}(-unfinished)?(-[0-9]{1,4})?\.json$")


MAX_REASON = 2000  # characters of a library's refusal the page is sent


class WebError(EscobaError):
    """A request that cannot be done: one line for the page, and the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400, **fields):
        super().__init__(message, **fields)
        self.message, self.status = message, status

    @classmethod
    def of(cls, error: BaseException, status: int = 400) -> WebError:
        """A library's refusal as the page shows it: its whole message (said in the request's language as it was
        raised) on one line, never cut short with "..." (it is bounded: a request's values are); 2000 characters
        at most, ended at a word."""
        text = " ".join(str(error).split()) or type(error).__name__
        if len(text) > MAX_REASON:
            text = text[:MAX_REASON].rsplit(" ", 1)[0] + " …"
        return cls(text, status)

    def said(self, lang: str) -> str:
        """The message in ``lang`` (the page's): ours come from the catalogue, a library's reason as it came."""
        text = i18n.translation(lang).gettext(self.message)
        return text.format(**self.fields) if self.fields else text


def opponents() -> list[tuple[str, str]]:
    """The opponents the page offers, (spec, label) each in the current language: every built-in that plays
    fair (not the oracle), the ladder's levels one by one with their ratings under ludoteka ("level 3 (≈480)")."""
    out = []
    for name, d in BUILTINS.items():
        if d.cheats:
            continue
        if name == LEVEL:
            out += [(lv.spec, level_label(lv)) for lv in LEVELS]
        else:
            out.append((name, name))
    return out


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
        raise WebError.of(e) from None
    if spec.plugin is not None:
        raise WebError(N_("`{vs}` is a plugin: the page plays the built-in strategies only"), vs=vs)
    try:
        seats = table_seats(rules.canonical(), [spec.canonical], teams=teams)
        check_budget(spec.for_rules(seats.rules))
    except (LineupError, StrategyError, RulesError) as e:
        raise WebError.of(e) from None
    return seats


def check_budget(spec) -> None:
    """Refuse (422) an opponent whose search is over the page's bounds (``PAGE_LIMITS``), naming the bound."""
    for key, limit in PAGE_LIMITS.get(spec.name, {}).items():
        value = dict(spec.params).get(key)
        if value is not None and value > limit:
            raise WebError(N_("`{name}`: the page allows `{key}` up to {limit}, got {value} (the terminal's play "
                              "allows more)"), 422, name=spec.name, key=key, limit=f"{limit:,}",
                           value=format_number(value))


class WebGame:
    """One game (hands to the ruleset's target, or one hand when it has none) between the person and the
    computer seats, at a ``Table``. Methods change it under its lock; ``state`` is what the page draws."""

    def __init__(self, game_id: str, request: Any, out: Path, samples: int = DEFAULT_SAMPLES, seed: int | None = None,
                 *, saver: Saver | None = None, client: str = "local"):
        self.id, self.out, self.samples, self.client = game_id, out, samples, client
        self.saver = saver or Saver(out)
        self.seats = _seats(request)
        self.rules = self.seats.rules
        self.seed = draw_seed() if seed is None else seed
        self.table = Table(self.rules, self.seats.specs, self.seed, out, samples=samples,
                           single_hand=not self.rules.target)
        self.records: list[str] = []  # the names of this game's saved records, hand by hand
        self.sheet: list[dict[str, Any]] = []  # the score sheet: one row per finished hand of the game (``sheet_row``)
        self.pending: list[tuple[str, dict]] = []  # records whose save failed (stem, record): tried again
        self.lock = threading.Lock()
        self.used = time.monotonic()
        self._failing = False  # a save is failing: said once in the server's log, not at every retry
        self.closed = False
        self._journaled = (0, 0, -1)  # what the journal holds: (pending, hand, moves of the hand in play or -1)
        self.deal(0)

    @property
    def st(self):
        """The hand in play (``engine.HandState``)."""
        return self.table.st

    # ------------------------------------------------------------ play

    @contextlib.contextmanager
    def _or_as_before(self):
        """The table as it was if the computer's search is stopped (its budget spent, the client gone, the
        server stopping): the person's move is taken back with the replies begun, never half applied."""
        t = self.table
        if not hasattr(t, "st"):
            yield
            return
        saved = dict(t.__dict__)
        st, rng, history, events = copy.deepcopy(t.st), t.rng.state, list(t.history), list(t.events)
        try:
            yield
        except Stopped:
            t.__dict__.clear()
            t.__dict__.update(saved)
            t.st, t.history, t.events = st, history, events
            t.rng.state = rng
            raise

    def deal(self, hand: int) -> None:
        with self._or_as_before():
            self.table.deal(0, hand)
            self.table.advance()
        self.keep_finished()

    def keep_finished(self) -> None:
        """A hand that has just ended is saved (its name joins ``records``); a save that fails is kept
        pending (``unsaved`` in the state) and tried again at the next request and when the game goes."""
        if self.table.st.over:
            self.pending.append(self.table.record())
            if not self.sheet or self.sheet[-1]["hand"] != self.table.hand + 1:
                self.sheet.append(self.sheet_row())
        self.flush()

    def sheet_row(self) -> dict[str, Any]:
        """The score sheet's row of the hand just ended: per side what it took (cards, oros, sevens, the siete de
        oros, escobas: the lucky deal's counted inside them, ``lucky_escobas`` of them), the hand's points
        (``score_json``'s total) and the game's running score after it (the table's ``scores``); ``record``:
        the name of its saved record, once saved."""
        st, r = self.st, self.rules
        sides = []
        for row in score_json(r, st.result):
            pile = st.piles[row["side"]]
            sides.append({"side": row["side"], "cards": row["cards_taken"], "oros": row["oros_taken"],
                          "sevens": row["sevens_taken"], "siete_oros": bool(pile >> SIETE_OROS & 1),
                          "escobas": row["escobas"], "lucky_escobas": row["lucky_escobas"], "points": row["total"],
                          "running": self.table.scores[row["side"]]})
        return {"hand": self.table.hand + 1, "record": None, "sides": sides}

    def flush(self) -> None:
        """Write the pending records (oldest first), then the journal of what is still in memory only."""
        while self.pending:
            stem, rec = self.pending[0]
            try:
                path = self.saver.write(stem, rec, self.client)
            except SaveFailed as e:
                if not self._failing:
                    log.warning("escoba-sim serve: %s (kept in memory, tried again)", files.first_line(e))
                self._failing = True
                break
            self._failing = False
            self.pending.pop(0)
            if "unfinished" not in rec:
                self.records.append(path.name)
                for row in self.sheet:
                    if row["hand"] == rec.get("hand", -1) + 1 and row["record"] is None:
                        row["record"] = path.name
        in_play = self.person_moved() and not self.closed
        mark = (len(self.pending), self.table.hand, len(self.st.moves) if in_play else -1)
        if mark != self._journaled:  # a request that changed nothing (a state, a hint) writes nothing
            self.saver.journal(self.id, self.pending + ([self.table.record(IN_PLAY)] if in_play else []))
            self._journaled = mark

    def person_moved(self) -> bool:
        """Whether the person has made a move or a blow in the hand in play (and it has not ended)."""
        return not self.st.over and any(m.player == PERSON_SEAT for m in self.st.moves)

    def close(self, reason: str) -> None:
        """The game leaves memory (made room for another, the server stops): its hand in play is saved as
        unfinished when the person moved in it; what cannot be saved stays in the journal for a restart."""
        if self.person_moved() and not self.closed:
            self.pending.append(self.table.record(reason))
        self.closed = True  # said once: a second close saves nothing more
        self.flush()
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
        with self._or_as_before():
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
        self.flush()

    def undo(self) -> None:
        """Take back the person's blow of this turn, or else their last move and the replies to it."""
        if self.st.over:
            raise WebError(N_("the hand is over: nothing to take back"), 409)
        if self.table.undo() is None:
            raise WebError(N_("nothing to take back in this hand"), 409)
        self.flush()

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
            "soplar": r.soplar, "sevens_rule": r.sevens, "seats": [{"seat": s, "strategy": None if spec is None else parse_strategy(spec).short,
                                           "side": r.side_of(s), "cards": len(st.hands[s])}
                                          for s, spec in enumerate(self.seats.specs)],
            "hand_number": t.hand + 1, "dealer": st.dealer, "to_play": st.to_play,
            "table": [card_str(c) for c in st.table], "hand": [card_str(c) for c in st.hands[PERSON_SEAT]],
            "stock": len(st.stock), "sides": sides, "events": [_event_json(e) for e in t.events], "decision": kind,
            "options": [_option_json(m) for m in options], "can_undo": t.can_undo,
            "hand_over": st.over, "game_over": self.game_over, "records": list(self.records),
            "unsaved": len(self.pending), "sheet": copy.deepcopy(self.sheet),
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
        raise WebError.of(e, 422) from None
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


LEDGERS_KEPT = 256  # ledgers kept in memory (a record's ledger is asked again at the game's end)
_ledgers: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
_ledgers_lock = threading.Lock()


def ledger(raw: bytes, seat: int | None, samples: int) -> dict[str, Any]:
    """The luck ledger (``hands.luck.ledger_of``, what ``analyze`` prints under the decisions) of a saved
    record's bytes, for ``seat`` (None: the person's seat of a page's record, else seat 0), with the page's
    words for its arrivals left to the script. Kept by the record's content: asked again, it costs nothing.
    Nothing a record names is run (``parse_record``: ``files=False``)."""
    key = (hashlib.sha256(raw).hexdigest(), seat, samples)
    with _ledgers_lock:
        if key in _ledgers:
            _ledgers.move_to_end(key)
            return _ledgers[key]
    try:
        data = files.parse_json(raw.decode("utf-8"), "the record", finite=True)
        chosen = seat if seat is not None else ledger_seats(data, None)[0]
        led = ledger_of(data, chosen, samples=samples)
    except (UnicodeDecodeError, files.UntrustedFile, RecordError):
        raise WebError(N_("the saved record is not a hand record"), 422) from None
    except AnalysisError as e:
        raise WebError(files.first_line(e), 422) from None
    except EvaluationError as e:
        raise WebError(str(e), 503) from None
    out = {**led.to_json(), "samples": samples, "game": data.get("game"), "hand": data.get("hand")}
    with _ledgers_lock:
        _ledgers[key] = out
        while len(_ledgers) > LEDGERS_KEPT:
            _ledgers.popitem(last=False)
    return out


class Saver:
    """Writes the records of the server's folder: under names the table makes, at most ``RECORDS_PER_HOUR``
    per client, and the journal of the hands in play (``JOURNAL``/GAME.json: the unfinished record of a hand
    in which the person moved and the records not yet saved), so a crash or SIGKILL loses at most the move
    being made; ``recover`` turns a journal left by a server that died into records."""

    def __init__(self, out: Path):
        self.out = out
        self.lock = threading.Lock()
        self.written: dict[str, deque] = {}

    def write(self, stem: str, rec: dict, client: str = "local") -> Path:
        path = write_record(self.out, stem, rec)
        with self.lock:
            times = self.written.setdefault(client, deque())
            times.append(time.monotonic())
        return path

    def written_last_hour(self, client: str) -> int:
        with self.lock:
            times = self.written.get(client)
            if not times:
                return 0
            while times and times[0] < time.monotonic() - 3600:
                times.popleft()
            return len(times)

    def journal(self, game_id: str, entries: list[tuple[str, dict]]) -> None:
        """What game ``game_id`` holds only in memory (whole or not at all, through ``files``); nothing: no file."""
        path = self.out / JOURNAL / f"{game_id}.json"
        try:
            if not entries:
                if path.is_file():
                    path.unlink()
                return
            files.make_dirs(path.parent, self.out)
            files.write_json(path, {"records": [{"stem": stem, "record": rec} for stem, rec in entries]},
                             root=self.out, finite=True)
        except (OSError, files.UntrustedFile, ValueError) as e:
            log.warning("escoba-sim serve: cannot journal the hand in play: %s", files.first_line(e))

    def recover(self) -> list[str]:
        """Write as records what journals of an earlier server hold (it died: SIGKILL, a crash, power); a
        journal is removed once all of it is written. Returns the names written."""
        folder = self.out / JOURNAL
        if not folder.is_dir() or folder.is_symlink():
            return []
        names = []
        for path in sorted(folder.iterdir()):
            if not JOURNAL_NAME.match(path.name) or path.is_symlink() or not path.is_file():
                continue
            try:
                entries = files.read_json(path, limit=files.MiB, finite=True)["records"]
                for entry in entries:
                    stem, rec = entry["stem"], entry["record"]
                    if not isinstance(rec, dict) or not RECORD_NAME.match(f"{stem}.json"):
                        raise ValueError(f"{path.name}: not a journal of the server's")
                for entry in entries:
                    names.append(write_record(self.out, entry["stem"], entry["record"]).name)
                path.unlink()
            except (OSError, files.UntrustedFile, ValueError, KeyError, TypeError, SaveFailed) as e:
                log.warning("escoba-sim serve: cannot recover %s: %s", path.name, files.first_line(e))
        return names


class GameStore:
    """The games in memory, by id: at most ``limit`` in all and ``client_limit`` per client address. A new
    game past a client's own limit drops that client's least recently used game; past the total it drops
    the least recently used game nobody has moved in, or one untouched for ``IDLE_SECONDS``, and else is
    refused (429). A game dropped is saved as unfinished only if the person moved in its hand in play."""

    def __init__(self, out: Path, limit: int = MAX_GAMES, samples: int = DEFAULT_SAMPLES,
                 client_limit: int = CLIENT_GAMES):
        if not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be 1 to {MAX_SAMPLES:,}")
        self.out, self.limit, self.samples, self.client_limit = out, limit, samples, client_limit
        self.games: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()
        self.saver = Saver(out)
        self.recovered = self.saver.recover()

    def check_room(self, client: str) -> None:
        """Refuse a new game when the client has written its share of records this hour (429) or the
        folder's disk is nearly full (507)."""
        if self.saver.written_last_hour(client) >= RECORDS_PER_HOUR:
            raise WebError(N_("your games have saved {count} hand records this hour, the most the server "
                              "takes: try again later"), 429, count=RECORDS_PER_HOUR)
        folder = self.out
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        try:
            free = shutil.disk_usage(folder).free
        except OSError:
            return
        if free < MIN_FREE_BYTES:
            raise WebError(N_("the server's disk is nearly full: no new game until room is made"), 507)

    def new(self, request: Any, client: str = "local") -> WebGame:
        self.check_room(client)
        game = WebGame(secrets.token_urlsafe(12), request, self.out, self.samples, saver=self.saver, client=client)
        now = time.monotonic()
        with self.lock:
            mine = [g for g in self.games.values() if g.client == client]  # least recently used first
            dropped = mine[:max(0, len(mine) + 1 - self.client_limit)]
            for g in dropped:
                del self.games[g.id]
            for g in list(self.games.values()):
                if len(self.games) < self.limit:
                    break
                if not g.person_moved() or now - g.used > IDLE_SECONDS:
                    del self.games[g.id]
                    dropped.append(g)
            if len(self.games) >= self.limit:
                raise WebError(N_("the server is full ({count} games in play): try again in a few minutes"), 429,
                               count=len(self.games))
            self.games[game.id] = game
        for old in dropped:
            with old.lock:
                old.close("quit: the server kept newer games")
        return game

    def close(self) -> None:
        """The server stops: every hand in play the person moved in is saved as unfinished (and what cannot be
        saved stays in the journal), so a restart loses none."""
        with self.lock:
            games, self.games = list(self.games.values()), OrderedDict()
        for game in games:
            with game.lock:
                game.close(IN_PLAY)

    def get(self, game_id: str) -> WebGame:
        with self.lock:
            game = self.games.get(game_id) if isinstance(game_id, str) else None
            if game is None:
                raise WebError(N_("no such game (the server keeps the most recent games only): start a new one"), 404)
            self.games.move_to_end(game_id)
            game.used = time.monotonic()
            return game

    @property
    def unsaved(self) -> int:
        """Records held in memory only (their save failed), over every game."""
        with self.lock:
            return sum(len(g.pending) for g in self.games.values())
