"""Many hands or games at once: the result columns and the engine that fills them.

``play_hands`` and ``play_games`` return a ``Batch`` of numpy arrays with the
columns named here (the one home of result column names). They run on the
compiled core when it is built and loaded, otherwise on the reference engine;
both give identical arrays for the same inputs (docs/engine.md).
``ESCOBA_SIM_PURE_PYTHON=1`` forces the reference engine; ``ESCOBA_SIM_REQUIRE_CORE=1``
makes a missing core an error instead of a silent fallback. Strategies are spec
strings (strategies.parse_strategy); a batch with a user plugin (or a built-in
the core lacks) is played by the reference engine, with a speed warning on stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass

import numpy as np

from . import engine
from .rules import Ruleset
from .strategies import PluginError, StrategySpec, parse_strategy

# per hand: one value
HAND_COLUMNS = {"game": np.int64, "hand": np.int32, "dealer": np.int8, "lucky_deal": np.int8,
                "leftovers": np.int8, "leftover_taker": np.int8}
# per hand and side: points by category, then what the side's pile holds
POINT_COLUMNS = ("escobas", "siete_oros", "sevens", "oros", "cards", "bonus")
SIDE_COLUMNS = ("escobas", "lucky_escobas", "siete_oros", "sevens", "oros", "cards", "bonus", "total",
                "cards_taken", "oros_taken", "sevens_taken")
# what a person reads for each side column (machine names stay in JSON and Parquet)
COLUMN_TEXT = {"escobas": "escobas", "lucky_escobas": "lucky-deal escobas", "siete_oros": "siete de oros",
               "sevens": "sevens", "oros": "oros", "cards": "cards", "bonus": "bonuses", "total": "total",
               "cards_taken": "cards taken", "oros_taken": "oros taken", "sevens_taken": "sevens taken"}
SIDE_DTYPE = np.int16
# per game
GAME_COLUMNS = {"game": np.int64, "first_dealer": np.int8, "hands": np.int32, "winner": np.int8}
GAME_SIDE_COLUMNS = ("score",)

PURE_ENV, REQUIRE_ENV = "ESCOBA_SIM_PURE_PYTHON", "ESCOBA_SIM_REQUIRE_CORE"

# The most games or hands one request may ask for: 10^15 hands take ~30 years of one core at a
# million hands per second, so anything larger is a typo; it also keeps every count and deal
# index far inside int64 (chunk bookkeeping, Parquet columns, the C core's game index).
MAX_COUNT = 10**15


class CoreUnavailable(ImportError):
    pass


def load_compiled(module: str, what: str):
    """The compiled extension ``escoba_sim.<module>``, or None when it is not built; with
    ESCOBA_SIM_REQUIRE_CORE=1 a failed import is an error naming ``what`` it is."""
    try:
        return importlib.import_module(f"{__package__}.{module}")
    except ImportError as e:
        if os.environ.get(REQUIRE_ENV) == "1":
            raise CoreUnavailable(f"the {what} is required ({REQUIRE_ENV}=1) but did not load: {e}") from e
        return None


def _load_core():
    if os.environ.get(PURE_ENV) == "1":
        if os.environ.get(REQUIRE_ENV) == "1":
            raise CoreUnavailable(f"{PURE_ENV}=1 and {REQUIRE_ENV}=1 contradict each other")
        return None
    return load_compiled("_core", "compiled core")


_core = _load_core()
ENGINE = "cython" if _core is not None else "python"


@dataclass
class Batch:
    """Per-hand columns (side columns have shape (n_hands, n_sides)) and, for games, per-game columns."""

    hands: dict[str, np.ndarray]
    games: dict[str, np.ndarray] | None = None

    @property
    def n_hands(self) -> int:
        return len(self.hands["game"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Batch):
            return NotImplemented
        return _same(self.hands, other.hands) and (
            (self.games is None and other.games is None)
            or (self.games is not None and other.games is not None and _same(self.games, other.games)))


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _column_block(columns: tuple[tuple[str, np.dtype], ...], n: int, width: int, zeroed: bool) -> dict[str, np.ndarray]:
    """Columns (name, dtype) of n rows as views of one allocation; ``width`` > 0 gives (n, width) columns,
    0 gives (n,). Pass them widest dtype first, so that every view is aligned to its item.

    One block instead of one array per column: the allocator reuses the same memory call after call (a
    block below glibc's 32 MB mmap ceiling stays on the heap), where a dozen separate arrays were mapped
    afresh, page-faulted and zeroed by the kernel on every call of 30,000 hands or more (10-14 faults per
    1000 hands, 4-6% of a batch's time; benchmarks/README.md, "Seventh pass")."""
    rows = n * max(width, 1)  # values per column
    block = (np.zeros if zeroed else np.empty)(rows * sum(dt.itemsize for _, dt in columns), dtype=np.uint8)
    shape = (n, width) if width else (n,)
    cols, off = {}, 0
    for k, dt in columns:
        cols[k] = np.ndarray(shape, dt, block, off)
        off += rows * dt.itemsize
    return cols


def _widest_first(columns: dict[str, type]) -> tuple[tuple[str, np.dtype], ...]:
    return tuple(sorted(((k, np.dtype(t)) for k, t in columns.items()), key=lambda c: -c[1].itemsize))


_HAND_BLOCK = _widest_first(HAND_COLUMNS)
_SIDE_BLOCK = _widest_first(dict.fromkeys(SIDE_COLUMNS, SIDE_DTYPE))
_GAME_BLOCK = _widest_first(GAME_COLUMNS)


def empty_hands(n: int, n_sides: int, zeroed: bool = True) -> dict[str, np.ndarray]:
    """The hand columns for n hands; ``zeroed=False`` leaves them unset, for a caller that writes every row."""
    cols = _column_block(_HAND_BLOCK, n, 0, zeroed)
    cols.update(_column_block(_SIDE_BLOCK, n, n_sides, zeroed))
    return {k: cols[k] for k in (*HAND_COLUMNS, *SIDE_COLUMNS)}


def empty_games(n: int, n_sides: int) -> dict[str, np.ndarray]:
    cols = _column_block(_GAME_BLOCK, n, 0, zeroed=True)
    cols = {k: cols[k] for k in GAME_COLUMNS}
    cols["score"] = np.zeros((n, n_sides), dtype=np.int32)
    return cols


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
        return _core.play_hands(rules, specs, seed, first, count)
    return py_play_hands(rules, specs, seed, first, count)


def play_games(rules: Ruleset, strategies: list, seed: int, first: int = 0, count: int = 1,
               engine_name: str | None = None) -> Batch:
    """Games ``first .. first+count-1`` of a run, each to the ruleset's target."""
    specs = _check(rules, strategies, seed, first, count)
    if _pick(engine_name, specs) == "cython":
        return _core.play_games(rules, specs, seed, first, count)
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
    return spec.core_code is not None and spec.core_code in getattr(_core, "CODES", (0, 1, 2))


def engine_for(strategies: list, engine_name: str | None = None) -> str:
    """The engine a batch of these strategies runs on: a plugin forces the reference engine."""
    return _pick(engine_name, [parse_strategy(s) for s in strategies], warn=False)


def _pick(engine_name: str | None, specs: list[StrategySpec] = (), warn: bool = True) -> str:
    name = engine_name or ENGINE
    if name not in ("cython", "python"):
        raise ValueError(f"unknown engine `{name}` (cython or python)")
    if name == "cython" and _core is None:
        raise CoreUnavailable("the compiled core is not built; reinstall with a C compiler (pip install -e .)")
    slow = [s for s in specs if not _core_supports(s)] if name == "cython" else []
    if slow:
        if engine_name == "cython":
            raise CoreUnavailable(f"the compiled core cannot play `{slow[0]}`")
        for s in slow:
            if warn and _warn and s.canonical not in _warned:
                _warned.add(s.canonical)
                print(f"escoba-sim: warning: `{s}` is played by the pure-Python reference engine, "
                      f"hundreds of times slower than the compiled core", file=sys.stderr)
        return "python"
    return name
