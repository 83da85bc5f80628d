"""Engine dispatch: who plays a strategy, the compiled core or the reference engine.

``play_hands`` and ``play_games`` return a ``Batch`` (``game.columns``); they run on the compiled
core when it is loaded (``native``), otherwise on the reference engine; both give identical arrays
for the same inputs (docs/engine.md). A batch with a user plugin (or a built-in the core lacks) is
played by the reference engine, with a speed warning on stderr. ``make_player`` gives the step-by-step
player of a spec (trace, play, the environments): the reference class, or for a core-only built-in
(ismcts, oracle) the compiled core's own decisions.
"""

from __future__ import annotations

import sys

import numpy as np

from . import native
from .game import engine
from .game.columns import SIDE_COLUMNS, Batch, empty_games, empty_hands
from .game.rules import Ruleset
from .i18n import translate as _
from .native import ENGINE, CoreUnavailable
from .strategies import PluginError, StrategyError, StrategySpec, parse_strategy
from .strategies.compiled import CoreStrategy


def _check(rules: Ruleset, strategies: list, seed: int, first: int, count: int) -> list[StrategySpec]:
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, got {len(strategies)}")
    specs = [parse_strategy(s) for s in strategies]
    if not 0 <= seed < 2**64:
        raise ValueError("seed must be in [0, 2**64)")
    if first < 0 or count < 0:
        raise ValueError("first and count must be non-negative")
    return specs


def _fill_hand(cols: dict[str, np.ndarray], i: int, game: int, hand: int, res: engine.HandResult) -> None:
    cols["game"][i], cols["hand"][i], cols["dealer"][i] = game, hand, res.dealer
    cols["lucky_deal"][i], cols["leftovers"][i], cols["leftover_taker"][i] = res.lucky_deal, res.leftovers, res.leftover_taker
    for k in SIDE_COLUMNS:
        cols[k][i] = getattr(res, k)


def py_play_hands(rules: Ruleset, strategies: list, seed: int, first: int, count: int) -> Batch:
    """The reference engine behind ``play_hands``."""
    players = [parse_strategy(s).for_rules(rules).make() for s in strategies]
    cols = empty_hands(count, rules.n_sides)
    for i in range(count):
        try:
            st = engine.play_hand(rules, players, seed, first + i, 0)
        except PluginError as e:
            raise e.at(f"game {first + i} hand 0") from None
        _fill_hand(cols, i, first + i, 0, st.result)
    return Batch(cols)


def py_play_games(rules: Ruleset, strategies: list, seed: int, first: int, count: int) -> Batch:
    """The reference engine behind ``play_games``."""
    players = [parse_strategy(s).for_rules(rules).make() for s in strategies]
    games = empty_games(count, rules.n_sides)
    results: list[tuple[int, int, engine.HandResult]] = []
    for i in range(count):
        try:
            g = engine.play_game(rules, players, seed, first + i)
        except PluginError as e:
            raise e.at(f"game {first + i}") from None
        games["game"][i], games["first_dealer"][i] = first + i, g.first_dealer
        games["hands"][i], games["winner"][i], games["score"][i] = len(g.hands), g.winner, g.scores
        results.extend((first + i, h, r) for h, r in enumerate(g.hands))
    cols = empty_hands(len(results), rules.n_sides)
    for i, (game, h, r) in enumerate(results):
        _fill_hand(cols, i, game, h, r)
    return Batch(cols, games)


def play_hands(rules: Ruleset, strategies: list, seed: int, first: int = 0, count: int = 1,
               engine_name: str | None = None) -> Batch:
    """Hands ``first .. first+count-1`` of a run (game i, hand 0, dealer i % players)."""
    specs = _check(rules, strategies, seed, first, count)
    if _pick(engine_name, specs) == "cython":
        return native.core.play_hands(rules, specs, seed, first, count)
    return py_play_hands(rules, specs, seed, first, count)


def play_games(rules: Ruleset, strategies: list, seed: int, first: int = 0, count: int = 1,
               engine_name: str | None = None) -> Batch:
    """Games ``first .. first+count-1`` of a run, each to the ruleset's target."""
    specs = _check(rules, strategies, seed, first, count)
    if _pick(engine_name, specs) == "cython":
        return native.core.play_games(rules, specs, seed, first, count)
    return py_play_games(rules, specs, seed, first, count)


_warned: set[str] = set()  # specs already warned about in this process (one warning each, not one per chunk)

_warn = True  # False in pool workers: the parent process warns once for the whole run


def quiet_engine_warnings() -> None:
    """No speed warnings from this process (a pool worker: the parent has warned)."""
    global _warn
    _warn = False


def warn_if_slow(strategies: list) -> None:
    """The speed warning for strategies the compiled core cannot play, once per process."""
    _pick(None, [parse_strategy(s) for s in strategies])


def _core_supports(spec: StrategySpec) -> bool:
    return spec.core_code is not None and spec.core_code in getattr(native.core, "CODES", (0, 1, 2))


def engine_for(strategies: list, engine_name: str | None = None) -> str:
    """The engine a batch of these strategies runs on: a plugin forces the reference engine."""
    return _pick(engine_name, [parse_strategy(s) for s in strategies], warn=False)


def _pick(engine_name: str | None, specs: list[StrategySpec] = (), warn: bool = True) -> str:
    name = engine_name or ENGINE
    if name not in ("cython", "python"):
        raise ValueError(_("unknown engine `{engine}` (cython or python)").format(engine=name))
    if name == "cython" and native.core is None:
        raise CoreUnavailable(_("the compiled core is not built; reinstall with a C compiler (pip install -e .)"))
    slow = [s for s in specs if not _core_supports(s)] if name == "cython" else []
    if slow:
        if engine_name == "cython":
            raise CoreUnavailable(_("the compiled core cannot play `{strategy}`").format(strategy=slow[0]))
        for s in slow:
            if warn and _warn and s.canonical not in _warned:
                _warned.add(s.canonical)
                print(f"escoba-sim: warning: `{s}` is played by the pure-Python reference engine, "
                      f"hundreds of times slower than the compiled core", file=sys.stderr)
        return "python"
    return name


def make_player(spec: str | StrategySpec):
    """A strategy object that plays single hands step by step in the reference engine (trace, play,
    the environments): the reference class, or for a core-only built-in (ismcts) the compiled core's
    own decisions (``strategies.compiled.CoreStrategy``)."""
    spec = parse_strategy(spec)
    spec.require_fixed()
    if not spec.core_only:
        return spec.make()
    if native.core is None:
        raise StrategyError(_("`{name}` runs only in the compiled core, which is not loaded").format(name=spec.short))
    return CoreStrategy(spec, native.core)
