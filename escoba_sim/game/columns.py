"""The result columns of many hands or games (``Batch``) and the words a person reads for them.

This is the one home of result column names (Parquet, JSON and the compiled core use them) and of
the two word tables for point categories: ``COLUMN_TEXT`` (run tables) and ``CATEGORY_TEXT``
(comparison tables and charts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import N_

# per hand: one value
HAND_COLUMNS = {"game": np.int64, "hand": np.int32, "dealer": np.int8, "lucky_deal": np.int8,
                "leftovers": np.int8, "leftover_taker": np.int8}
# per hand and side: points by category, then what the side's pile holds
POINT_COLUMNS = ("escobas", "siete_oros", "sevens", "oros", "cards", "bonus")
SIDE_COLUMNS = ("escobas", "lucky_escobas", "siete_oros", "sevens", "oros", "cards", "bonus", "total",
                "cards_taken", "oros_taken", "sevens_taken")
# what a person reads for each side column (machine names stay in JSON and Parquet)
# (marked for the catalogue: shown with the i18n translation, e.g. ``_(COLUMN_TEXT[k])``)
COLUMN_TEXT = {"escobas": N_("escobas"), "lucky_escobas": N_("lucky-deal escobas"), "siete_oros": N_("siete de oros"),
               "sevens": N_("sevens"), "oros": N_("oros"), "cards": N_("cards"), "bonus": N_("bonuses"),
               "total": N_("total"), "cards_taken": N_("cards taken"), "oros_taken": N_("oros taken"),
               "sevens_taken": N_("sevens taken")}
# how a point category reads in a comparison's legend or terminal table (the rule it scores by)
CATEGORY_TEXT = {"escobas": N_("escobas"), "siete_oros": N_("siete de oros"), "sevens": N_("sevens (majority)"),
                 "oros": N_("oros (majority)"), "cards": N_("cards (majority)"), "bonus": N_("bonuses"),
                 "total": N_("total")}
# the sevens point as the ruleset's ``sevens`` field scores it (RULES.md: majority, or all four only)
SEVENS_TEXT = {"majority": N_("sevens (majority)"), "all": N_("sevens (all four)")}


def category_text(category: str, sevens=()) -> str:
    """The (untranslated) name of a point category: ``CATEGORY_TEXT``'s, the sevens named by the rule of
    ``sevens``, the ``sevens`` field's values of the rulesets concerned (``sevens (all four)`` under tradicional);
    plain ``sevens`` when those rulesets differ or none is given."""
    if category == "sevens":
        values = set(sevens)
        return SEVENS_TEXT[values.pop()] if len(values) == 1 and values <= SEVENS_TEXT.keys() else N_("sevens")
    return CATEGORY_TEXT.get(category, category)


SIDE_DTYPE = np.int16
# per game
GAME_COLUMNS = {"game": np.int64, "first_dealer": np.int8, "hands": np.int32, "winner": np.int8}
GAME_SIDE_COLUMNS = ("score",)

# The most games or hands one request may ask for: 10^15 hands take ~30 years of one core at a
# million hands per second, so anything larger is a typo; it also keeps every count and deal
# index far inside int64 (chunk bookkeeping, Parquet columns, the C core's game index).
MAX_COUNT = 10**15


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
