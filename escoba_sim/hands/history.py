"""A person's history: the hand records of a folder (``play``'s or the page's) summed into games and figures.

``history_of`` reads every record of a folder as untrusted input (``files``: regular files, bounded; a file
that is not a finished hand of a person is counted as skipped, never fatal), puts them in the order they
were played (file times) and groups them into games (a game's hands are one seed and game, hand 0, 1, ...).
Per game: the opponent, hands, points and, played to the target, won or lost; per day and over the whole
folder, points per hand and, with ``luck``, the luck ledger's luck and decisions per hand (``hands.luck``),
each with its 95% interval (the hand as the unit: hands are independent deals); and the person's performance
rating against rated opponents (``strategies.levels``: two players, rulesets whose levels were measured).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import files
from ..errors import EscobaError, Parameter
from ..game import engine
from ..i18n import ngettext
from ..i18n import translate as _
from ..strategies.errors import StrategyError
from ..strategies.levels import Z95, Rating, performance_rating, rating_of, strategy_label
from ..strategies.registry import parse_strategy
from .evaluate import DEFAULT_SAMPLES
from .luck import ledger_of, margin
from .record import RecordError, fit_lines, parse_record, replay_record
from .table import PERSON

MAX_RECORDS = 20_000  # records read from one folder at most (the newest are kept)
RECORD_FILE = re.compile(r"^[0-9]{1,20}-g[0-9]{1,20}-h[0-9]{1,5}(-[0-9]{1,4})?\.json$")  # a finished hand's name
FIGURES = ("margin", "expected", "luck", "decisions", "others", "noise")  # per hand; the last five add up to the first


class HistoryError(EscobaError):
    """A folder that cannot be read as a history (missing, not a folder)."""


@dataclass
class HandLine:
    """One finished hand of the person: its record, its margin and, with luck, its ledger's parts."""

    name: str
    played: float  # the record's file time (seconds since the epoch)
    seed: int
    game: int
    hand: int
    rules: Any
    opponents: tuple[str, ...]
    side: int
    totals: list[int]
    margin: int
    # the ledger's parts (hands.luck), with luck: expected before the deal, what the cards gave, what the
    # decisions lost, what the others' play did, and the estimates' noise (residual and solver)
    expected: float | None = None
    luck: float | None = None
    decisions: float | None = None
    others: float | None = None
    noise: float | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"record": self.name, "hand": self.hand, "margin": self.margin}
        for what in FIGURES[1:]:
            v = getattr(self, what)
            out[what] = None if v is None else round(v, 4)
        return out


@dataclass
class GameLine:
    """The hands of one game in order; ``won`` True/False for a game played to the target, draws 0.5, None
    for one the folder does not hold to its end (or a ruleset without a target: every hand a game)."""

    number: int
    seed: int
    game: int
    rules: Any
    opponents: tuple[str, ...]
    hands: list[HandLine]
    scores: list[int]
    won: float | None

    def total(self, what: str) -> float | None:
        vs = [getattr(h, what) for h in self.hands]
        return None if any(v is None for v in vs) else sum(vs)

    @property
    def day(self) -> str:
        """The day its first hand was played (local time, from the record's file time)."""
        return time.strftime("%Y-%m-%d", time.localtime(self.hands[0].played))

    @property
    def rating(self) -> Rating | None:
        """The opponent's rating, where it has one (two players, a ruleset whose levels were measured)."""
        if self.rules.players != 2 or len(self.opponents) != 1:
            return None
        return rating_of(self.opponents[0], self.rules)

    def to_json(self) -> dict[str, Any]:
        r = self.rating
        return {"number": self.number, "seed": self.seed, "game": self.game, "rules": self.rules.canonical(),
                "opponents": list(self.opponents), "opponent_rating": None if r is None else r.estimate,
                "played": self.day,
                "scores": self.scores, "won": self.won, **{what: _round(self.total(what)) for what in FIGURES},
                "hands": [h.to_json() for h in self.hands]}


@dataclass
class Figure:
    """A mean per hand with its 95% interval (None ends with fewer than two hands)."""

    mean: float | None
    lo: float | None
    hi: float | None
    hands: int

    @classmethod
    def of(cls, xs: list[float]) -> Figure:
        n = len(xs)
        if n == 0:
            return cls(None, None, None, 0)
        m = sum(xs) / n
        if n == 1:
            return cls(m, None, None, 1)
        half = Z95 * math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)
        return cls(m, m - half, m + half, n)

    def to_json(self) -> dict[str, Any] | None:
        if not self.hands:
            return None
        return {"mean": _round(self.mean), "lo": _round(self.lo), "hi": _round(self.hi), "hands": self.hands}


@dataclass
class History:
    folder: Path
    games: list[GameLine] = field(default_factory=list)
    skipped: int = 0
    luck: bool = False
    samples: int = DEFAULT_SAMPLES
    seed: int | None = None  # None: analyze's default (each record searched as its hints were)
    interrupted: bool = False  # the ledgers stopped (Ctrl-C): luck is over the hands before

    @property
    def hands(self) -> list[HandLine]:
        return [h for g in self.games for h in g.hands]

    def figure(self, what: str, hands: list[HandLine] | None = None) -> Figure:
        """The mean per hand of ``what`` (``FIGURES``) over ``hands`` (default: all) that have it."""
        return Figure.of([getattr(h, what) for h in (self.hands if hands is None else hands)
                          if getattr(h, what) is not None])

    def days(self) -> list[tuple[str, list[GameLine]]]:
        """The games by the day their first hand was played (local time), in order."""
        out: dict[str, list[GameLine]] = {}
        for g in self.games:
            out.setdefault(g.day, []).append(g)
        return list(out.items())

    @property
    def rated(self) -> dict[str, list[tuple[float, float]]]:
        """Per ruleset (its canonical text), (opponent rating, score) of every game played to its end against
        a rated opponent: each ruleset's ratings have a scale of their own (random = 0 under each)."""
        out: dict[str, list[tuple[float, float]]] = {}
        for g in self.games:
            if g.won is not None and g.rating is not None:
                out.setdefault(g.rules.canonical(), []).append((g.rating.estimate, g.won))
        return out

    @property
    def ratings(self) -> dict[str, Rating]:
        """The person's performance rating per ruleset, on that ruleset's levels' scale (``performance_rating``)."""
        return {rules: performance_rating(games) for rules, games in self.rated.items()}

    def to_json(self) -> dict[str, Any]:
        finished = [g.won for g in self.games if g.won is not None]
        return {"folder": str(self.folder), "games": len(self.games), "finished_games": len(finished),
               "won": sum(1 for w in finished if w == 1), "drawn": sum(1 for w in finished if w == 0.5),
               "lost": sum(1 for w in finished if w == 0), "hands": len(self.hands), "skipped": self.skipped,
               "luck": self.luck, "samples": self.samples if self.luck else None, "seed": self.seed,
               "interrupted": self.interrupted,
               "per_hand": {what: self.figure(what).to_json() for what in FIGURES},
               "performance_ratings": [{"rules": rules, "estimate": _round(r.estimate), "lo": _round(r.lo),
                                        "hi": _round(r.hi), "games": len(self.rated[rules])}
                                       for rules, r in self.ratings.items()],
               "days": [{"day": day, "games": len(gs), "hands": sum(len(g.hands) for g in gs),
                         "per_hand": {what: self.figure(what, [h for g in gs for h in g.hands]).to_json()
                                      for what in FIGURES}} for day, gs in self.days()],
               "games_list": [g.to_json() for g in self.games]}


def _round(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else round(v, 4)


def _hand_line(path: Path, data: Any) -> HandLine | None:
    """The person's hand in a record, or None when it is not a finished, legal hand of one person."""
    if not isinstance(data, dict) or data.get("unfinished"):
        return None
    strategies = data.get("strategies")
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies) \
            or strategies.count(PERSON) != 1:
        return None
    seed, game, hand = data.get("seed"), data.get("game"), data.get("hand")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (seed, game, hand)):
        return None
    try:
        rules = parse_record(data).rules
        st, problems = replay_record(data)
    except RecordError:
        return None
    if problems or not st.over or len(strategies) != rules.players:
        return None
    seat = strategies.index(PERSON)
    side = rules.side_of(seat)
    opponents = tuple(s for i, s in enumerate(strategies) if rules.side_of(i) != side)
    return HandLine(path.name, path.stat().st_mtime, seed, game, hand, rules, opponents, side,
                    list(st.result.total), margin(st, side))


def read_folder(folder: str | Path) -> tuple[list[tuple[HandLine, dict]], int]:
    """The person's finished hands in ``folder`` with their records, in the order played, and the number of
    files skipped (not a finished hand of one person, unreadable). Raises HistoryError for no folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise HistoryError(_("{name}: {path} is not a folder of hand records"), parameter="folder",
                           name=Parameter("folder"), path=str(folder), folder=folder)
    try:
        found = [p for p in folder.iterdir() if RECORD_FILE.match(p.name) and not p.is_symlink() and p.is_file()]
    except OSError as e:
        raise HistoryError(_("{name}: cannot read {path} ({reason})"), parameter="folder",
                           name=Parameter("folder"), path=str(folder), folder=folder, reason=e.strerror or e) from None
    found.sort(key=lambda p: (_mtime(p), p.name))
    skipped = max(len(found) - MAX_RECORDS, 0)
    hands = []
    for p in found[skipped:]:
        try:
            data = files.parse_json(files.read_text(p, limit=files.MiB), p.name, finite=True)
            line = _hand_line(p, data)
        except (files.UntrustedFile, OSError, UnicodeDecodeError, ValueError):
            line = None
        if line is None:
            skipped += 1
        else:
            hands.append((line, data))
    return hands, skipped


def _mtime(p: Path) -> float:
    """When a record was written (a file removed meanwhile sorts first, and is then skipped unread)."""
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _games(lines: list[HandLine]) -> list[GameLine]:
    """The hands grouped into games: a game is one seed and game with hands 0, 1, ... in the order played
    (a hand that does not continue an open game starts a new one: the same seed played again)."""
    games: list[GameLine] = []
    open_game: dict[tuple[int, int], GameLine] = {}
    for h in lines:
        key = (h.seed, h.game)
        g = open_game.get(key)
        if g is None or g.hands[-1].hand + 1 != h.hand or g.rules != h.rules or g.opponents != h.opponents \
                or g.won is not None:
            g = GameLine(len(games) + 1, h.seed, h.game, h.rules, h.opponents, [], [0] * h.rules.n_sides, None)
            games.append(g)
            open_game[key] = g
        g.hands.append(h)
        g.scores = [a + b for a, b in zip(g.scores, h.totals)]
        if g.hands[0].hand == 0 and g.rules.target:
            winner = engine.game_winner(g.scores, g.rules.target)
            if winner is not None:
                g.won = 1.0 if winner == h.side else 0.0
    return games


def history_of(folder: str | Path, *, luck: bool = True, samples: int = DEFAULT_SAMPLES, seed: int | None = None,
               on_hand=None) -> History:
    """The history of the person's hands in ``folder`` (see the module). With ``luck`` every hand's ledger
    at ``samples`` deals per decision and ``seed`` (``analyze``'s for the same record: the same figures);
    ``on_hand(done, total)`` is told the progress. Ctrl-C during the ledgers keeps what is done
    (``interrupted``)."""
    lines, skipped = read_folder(folder)
    out = History(Path(folder), _games([h for h, _d in lines]), skipped, luck, samples, seed)
    if luck:
        try:
            for k, (line, data) in enumerate(lines):
                led = ledger_of(data, data["strategies"].index(PERSON), samples=samples, seed=seed)
                line.expected = led.expected
                line.luck, line.decisions, line.others = (led.part(p)[0] for p in ("luck", "decisions", "others"))
                line.noise = led.part("residual")[0] + led.part("solver")[0]
                if on_hand:
                    on_hand(k + 1, len(lines))
        except KeyboardInterrupt:
            out.interrupted = True
    return out


# ---------------------------------------------------------------- for people

def _num(v: float | None, digits: int = 2) -> str:
    if v is None:
        return "-"
    if not math.isfinite(v):
        return "+inf" if v > 0 else "-inf"
    return f"{round(v, digits) + 0.0:+.{digits}f}"  # + 0.0: no "-0.00"


def _figure_text(f: Figure) -> str:
    if f.mean is None:
        return "-"
    if f.lo is None:
        return _num(f.mean)
    return f"{_num(f.mean)} [{_num(f.lo)}, {_num(f.hi)}]"


def _label(spec: str, rules) -> str:
    """An opponent as a person reads it (a level with its rating); a spec that does not parse as it is,
    shortened (a record may name anything: nothing it names is opened)."""
    try:
        return strategy_label(parse_strategy(spec, files=False), rules)
    except StrategyError:
        return spec if len(spec) <= 40 else spec[:39] + "…"


def _rating_text(r: Rating) -> str:
    lo = "-inf" if r.lo is None else f"{r.lo:.0f}"
    hi = "+inf" if r.hi is None else f"{r.hi:.0f}"
    return f"{r} [{lo}, {hi}]"


def _result_text(won: float | None) -> str:
    return {1.0: _("a win"), 0.5: _("a draw"), 0.0: _("a loss")}.get(won, _("not played to the end"))


def format_history(h: History, width: int = 80) -> str:
    """The history for people: the folder's figures per hand with intervals, the performance rating, a line
    per day, then a line per game in the order played."""
    finished = [g.won for g in h.games if g.won is not None]
    out = [ngettext("{folder}: {n} game, {hands} hands; played to the end: {finished} ({won} won, {lost} lost)",
                    "{folder}: {n} games, {hands} hands; played to the end: {finished} ({won} won, {lost} lost)",
                    len(h.games)).format(folder=h.folder, n=len(h.games), hands=len(h.hands),
                                         finished=len(finished), won=finished.count(1.0), lost=finished.count(0.0))]
    if h.skipped:
        out.append(ngettext("{n} file skipped: not a finished hand of a person",
                            "{n} files skipped: not finished hands of a person", h.skipped).format(n=h.skipped))
    if not h.hands:
        return "\n".join(fit_lines(out, width))
    out += ["", _("per hand, in points of your side minus the other (95% CI):")]
    rows = [(_("points"), h.figure("margin"))]
    if h.luck:
        rows += [(_("expected before the deal (the seat)"), h.figure("expected")),
                 (_("luck (the cards)"), h.figure("luck")), (_("your decisions (their loss)"), h.figure("decisions")),
                 (_("the others' play"), h.figure("others")), (_("estimate noise"), h.figure("noise"))]
    label_width = max(len(label) for label, _f in rows)
    out += [f"  {label:<{label_width}}  {_figure_text(f)}" for label, f in rows]
    if h.luck:
        samples = ngettext("the luck ledger of every hand at {samples} deal per decision, as analyze gives it",
                           "the luck ledger of every hand at {samples} deals per decision, as analyze gives it",
                           h.samples).format(samples=h.samples) if h.seed is None else ngettext(
            "the luck ledger of every hand at {samples} deal per decision, seed {seed}",
            "the luck ledger of every hand at {samples} deals per decision, seed {seed}",
            h.samples).format(samples=h.samples, seed=h.seed)
        out.append("  " + samples)
        if h.interrupted:
            out.append("  " + _("interrupted: luck and decisions over the first {n} hands").format(
                n=h.figure("luck").hands))
    ratings = h.ratings
    if ratings:
        out.append("")
    for rules, r in ratings.items():
        n = len(h.rated[rules])
        text = ngettext("performance rating: {rating}, {n} game vs rated opponents (random = 0)",
                        "performance rating: {rating}, {n} games vs rated opponents (random = 0)",
                        n).format(rating=_rating_text(r), n=n)
        out.append(text if len(ratings) == 1 else f"{rules}: {text}")
    days = h.days()
    if len(days) > 1:
        out += ["", _("by day, per hand:")]
        for day, gs in days:
            hands = [x for g in gs for x in g.hands]
            parts = [ngettext("{n} game", "{n} games", len(gs)).format(n=len(gs)),
                     _("points {figure}").format(figure=_figure_text(h.figure("margin", hands)))]
            if h.luck:
                parts.append(_("luck {figure}").format(figure=_figure_text(h.figure("luck", hands))))
            out.append(f"  {day}: " + ", ".join(parts))
    out += ["", _("games, in the order played:")]
    for g in h.games:
        rating = g.rating
        opponent = ", ".join(_label(s, g.rules) for s in g.opponents)
        line = ngettext("{number}. vs {opponent}: {n} hand, {scores}, {result}",
                        "{number}. vs {opponent}: {n} hands, {scores}, {result}", len(g.hands)).format(
            number=g.number, opponent=opponent, n=len(g.hands), scores="-".join(map(str, g.scores)),
            result=_result_text(g.won))
        if h.luck and g.total("luck") is not None:
            line += "; " + _("luck {luck}, decisions {decisions}").format(
                luck=_num(g.total("luck")), decisions=_num(g.total("decisions")))
        if rating is None and g.won is not None and g.rules.players == 2:
            line += " " + _("(opponent not rated)")
        out.append("  " + line)
    return "\n".join(fit_lines(out, width))
