"""The ladder of levels and the rating scale: opponents at measured strengths, and a person's rating on it.

A *level* (spec ``level:n=3``, or ``level:3``) is a base strategy at fixed parameters that plays, at each
decision (move or blow), a uniformly random legal choice ``random_share`` times in 1000: one draw
``below(1000)`` from the hand's PLAY stream decides, then random's own draws or the base's follow
(``reference.LevelStrategy``; its C twin is ``esc_level_move`` in csrc/escoba_core.h). ``LEVELS`` (``ladder``) is
the one home of the ladder. Under soplar a level blows as its base does (greedy's rule for ismcts, which does not
search blows by default), or, with the same share, as random does.

The ratings are measured, not set: analysis/levels.py plays the levels and the anchors (random, greedy,
heuristic, ismcts) against each other on duplicate deals (``series.tournament``: Bradley-Terry on game wins,
the Elo scale) and writes ``levels.toml`` beside this module, which ``ratings`` reads and checks. The scale
is fixed by ``ANCHOR``: ``random`` is 0; a difference of 400 means the stronger wins ten games for each it
loses (docs/strategies.md, "Levels"). ``performance_rating`` puts a person on that scale from the games
they played against rated opponents.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..i18n import translate as _
from .errors import StrategyError
from .ladder import LEVEL, LEVELS, Level  # noqa: F401  (the ladder, re-exported beside its ratings)
from .registry import parse_strategy

ANCHOR = "random"  # the strategy rated 0
ELO = 400.0 / math.log(10.0)  # rating points per unit of log-strength (the Elo scale)
RATINGS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "levels.toml")
Z95 = 1.959963984540054
CHI2_95 = Z95 * Z95  # the profile likelihood's two-sided 95% cut (chi-square, 1 degree of freedom)
Z95_ONE_SIDED = 1.6448536269514722


def level_of(spec) -> Level:
    """The rung a ``level:n=N`` spec names."""
    spec = parse_strategy(spec)
    if spec.name != LEVEL or spec.plugin is not None:
        raise StrategyError(_("`{spec}` is not a level").format(spec=spec))
    return LEVELS[int(dict(spec.params)["n"]) - 1]


@dataclass(frozen=True)
class Rating:
    """A rating on the scale (``ANCHOR`` = 0) with its 95% interval; ``lo``/``hi`` is None where the interval
    is open on that side (a person who won every game has no upper bound)."""

    estimate: float
    lo: float | None
    hi: float | None

    def __str__(self) -> str:
        return f"{self.estimate:.0f}" if math.isfinite(self.estimate) else ("+inf" if self.estimate > 0 else "-inf")


@dataclass(frozen=True)
class Ratings:
    """The measured ratings of one ruleset: spec -> Rating, and how they were made."""

    rules: str
    command: str
    ratings: dict[str, Rating]


_KEY = re.compile(r"^[a-z]+(:[a-z_]+=[0-9.e+-]+(,[a-z_]+=[0-9.e+-]+)*)?$")


class RatingsFileError(StrategyError):
    """The shipped ratings file does not say what it must."""


def _number(x, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or abs(x) > 1e5:
        raise RatingsFileError(_("{file}: `{where}` must be a finite number").format(file=RATINGS_FILE, where=where))
    return float(x)


def check_ratings(data) -> dict[str, Ratings]:
    """The ratings read from a levels.toml (a dict): checked, as every file is (docs/security.md): every
    rules table has a command and ``[rules.ratings."SPEC"]`` tables of estimate <= ... with lo <= estimate <= hi,
    the anchor at 0 and every level of ``LEVELS``; the specs are canonical strategy specs."""
    from ..game.rules import RulesError, parse_rules
    def bad(what: str):
        return RatingsFileError(_("{file}: {what}").format(file=RATINGS_FILE, what=what))

    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict) or not data["rules"]:
        raise bad(_("no `rules` tables"))
    out = {}
    for rules, table in data["rules"].items():
        try:
            canonical = parse_rules(rules).canonical()
        except RulesError as e:
            raise bad(str(e)) from None
        if canonical != rules or not isinstance(table, dict):
            raise bad(_("`{rules}` is not a canonical ruleset").format(rules=rules))
        command = table.get("command")
        entries = table.get("ratings")
        if not isinstance(command, str) or not isinstance(entries, dict):
            raise bad(_("`{rules}` needs a command and ratings").format(rules=rules))
        ratings = {}
        for spec, r in entries.items():
            if not isinstance(spec, str) or not _KEY.match(spec):
                raise bad(_("`{spec}` is not a strategy spec").format(spec=spec))
            try:
                canonical_spec = parse_strategy(spec, files=False).canonical
            except StrategyError as e:
                raise bad(str(e)) from None
            if canonical_spec != spec or not isinstance(r, dict) or set(r) != {"estimate", "lo", "hi"}:
                raise bad(_("`{spec}` needs estimate, lo and hi, under its canonical spec").format(spec=spec))
            est, lo, hi = (_number(r[k], f"{spec}.{k}") for k in ("estimate", "lo", "hi"))
            if not lo <= est <= hi:
                raise bad(_("`{spec}`: lo <= estimate <= hi").format(spec=spec))
            ratings[spec] = Rating(est, lo, hi)
        missing = [x for x in [ANCHOR, *(lv.spec for lv in LEVELS)] if x not in ratings]
        if missing:
            raise bad(_("`{rules}` has no rating of {specs}").format(rules=rules, specs=", ".join(missing)))
        if ratings[ANCHOR].estimate != 0:
            raise bad(_("`{anchor}` must be rated 0").format(anchor=ANCHOR))
        out[rules] = Ratings(rules, command, ratings)
    return out


@functools.lru_cache(maxsize=1)
def ratings() -> dict[str, Ratings]:
    """The shipped ratings by canonical ruleset (escoba_sim/strategies/levels.toml, checked)."""
    from ..files import TOML_LIMIT, UntrustedFile, parse_toml, read_bytes

    try:
        data = parse_toml(read_bytes(RATINGS_FILE, TOML_LIMIT).decode("utf-8"), RATINGS_FILE)
    except (UntrustedFile, UnicodeDecodeError) as e:
        raise RatingsFileError(_("cannot read {reason}").format(reason=e)) from None
    return check_ratings(data)


def rating_of(spec, rules=None) -> Rating | None:
    """The measured rating of an opponent ``spec`` (a level, or an anchor strategy the study rated) under
    ``rules`` (a Ruleset or its text; None: ludoteka), or None when that strategy or ruleset was not measured.
    A spec that does not parse is None too: a record may name anything."""
    from ..game.rules import RulesError, parse_rules
    try:
        canonical = parse_strategy(spec, files=False).canonical
        key = parse_rules(rules).canonical()
    except (StrategyError, RulesError):
        return None
    table = ratings().get(key)
    return None if table is None else table.ratings.get(canonical)


def level_label(level: Level, rules=None) -> str:
    """How a person sees a rung: "level 3 (≈1200)", or "level 3" where its rating under ``rules`` is unknown."""
    r = rating_of(level.spec, rules)
    name = _("level {n}").format(n=level.n)
    return name if r is None else f"{name} (≈{round(r.estimate, -1):.0f})"


def _expected(r: float, opp: float) -> float:
    return 1.0 / (1.0 + math.exp(-(r - opp) / ELO))


def _loglik(r: float, games: list[tuple[float, float]]) -> float:
    total = 0.0
    for opp, s in games:
        x = (r - opp) / ELO
        # log P(win) = -log(1 + e^-x), log P(loss) = -log(1 + e^x), computed without overflow
        lw = -math.log1p(math.exp(-x)) if x > -700 else x
        ll = -math.log1p(math.exp(x)) if x < 700 else -x
        total += s * lw + (1.0 - s) * ll
    return total


def _root(f, lo: float, hi: float) -> float:
    """A root of increasing-or-decreasing ``f`` in [lo, hi] (f(lo), f(hi) of opposite signs), by bisection."""
    flo = f(lo)
    for _i in range(200):
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return 0.5 * (lo + hi)


def performance_rating(games: Iterable[tuple[float, float]]) -> Rating:
    """A person's performance rating from their games against rated opponents, on the levels' scale.

    ``games``: one (opponent_rating, score) per game, score 1 a win, 0.5 a draw, 0 a loss (any value in
    [0, 1] is taken as a share of a win). The model is the ratings' own (Bradley-Terry, Elo scale): a player
    rated r scores against one rated q with probability 1 / (1 + 10^((q - r) / 400)), games independent,
    the opponents' ratings taken as known. Returns the maximum-likelihood r and its 95% profile-likelihood
    interval (the r whose log-likelihood is within 1.92 of the best). When every game is won (or every game
    lost) the likelihood keeps growing: the estimate is +inf (-inf) and the interval is one-sided, a 95%
    lower (upper) bound at the r whose log-likelihood is 1.35 below its limit (chi-square 2.71, the one-sided
    95% cut), the other end None. Raises ValueError for no games or a score outside [0, 1].
    """
    games = [(float(q), float(s)) for q, s in games]
    if not games:
        raise ValueError(_("a performance rating needs at least one game"))
    for q, s in games:
        if not (math.isfinite(q) and 0.0 <= s <= 1.0):
            raise ValueError(_("each game needs a finite opponent rating and a score from 0 to 1, got ({q}, {s})")
                             .format(q=q, s=s))
    total = sum(s for _q, s in games)
    span = max(q for q, _s in games) - min(q for q, _s in games)
    lo0, hi0 = min(q for q, _s in games) - 4000.0, max(q for q, _s in games) + 4000.0
    if total >= len(games) or total <= 0.0:
        # all wins (or all losses): the log-likelihood rises to 0 as r -> +inf (-inf)
        cut = -0.5 * Z95_ONE_SIDED ** 2
        wins = total > 0
        bound = _root(lambda r: _loglik(r, games) - cut, lo0 - span, hi0 + span)
        return Rating(math.inf if wins else -math.inf, bound if wins else None, None if wins else bound)
    # the score equation: expected total = actual total, increasing in r
    est = _root(lambda r: sum(_expected(r, q) for q, _s in games) - total, lo0, hi0)
    best = _loglik(est, games)
    drop = lambda r: _loglik(r, games) - (best - 0.5 * CHI2_95)  # noqa: E731
    return Rating(est, _root(drop, lo0 - 4000.0, est), _root(drop, est, hi0 + 4000.0))


def describe(level: Level) -> str:
    """A rung in words: its base, and its share of random moves when it has one."""
    base = parse_strategy(level.base).short
    if not level.random_share:
        return base
    return _("{base}, random moves: {share} percent").format(base=base, share=format(level.random_share / 10, "g"))


def ladder(rules=None) -> list[tuple[Level, Rating | None]]:
    """Every rung with its rating under ``rules`` (None: ludoteka; None where that ruleset was not measured)."""
    return [(lv, rating_of(lv.spec, rules)) for lv in LEVELS]


def strategy_label(spec, rules=None) -> str:
    """A seat's strategy as a person reads it: a level with its rating ("level 3 (≈480)"), else its short spec."""
    spec = parse_strategy(spec)
    if spec.name == LEVEL and spec.plugin is None:
        return level_label(level_of(spec), rules)
    return spec.short
