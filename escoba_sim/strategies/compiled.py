"""The compiled-strategy bridge: a core-only built-in (ismcts, oracle) playing inside the reference engine.

``CoreStrategy`` is given the loaded core module by its maker (``batch.make_player``): this package
never loads the extension itself, so the strategy layer stays below ``native``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game.cards import mask_of
from ..game.engine import HandState, Move
from ..game.rng import SplitMix64

if TYPE_CHECKING:
    from .registry import StrategySpec


class CoreStrategy:
    """A core-only built-in (ismcts) inside the reference engine: each decision is made by the compiled
    core's own decision functions (``_core.decide_move`` / ``decide_blow``, which its hand loop calls),
    from the same position and the same PLAY stream, so a hand played this way is the very hand a batch
    run plays, and the reference engine still checks every move it makes."""

    def __init__(self, spec: StrategySpec, core):
        self.spec, self.name, self._core = spec, spec.name, core

    def _view(self, st: HandState) -> tuple:
        position = self._core.Position(hands=[mask_of(h) for h in st.hands], table=mask_of(st.table),
                                       piles=list(st.piles), escobas=list(st.escobas), stock_left=len(st.stock),
                                       dealer=st.dealer, last_capturer=st.last_capturer, voids=st.voids,
                                       stock=self._stock(st), plays=st.plays)
        return st.rules, self.spec, position, st.to_play

    def _stock(self, st: HandState) -> list[int] | None:
        # only a cheating strategy is shown the stock's order; the others decide without it
        return list(st.stock) if self.spec.cheats else None

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        card, take, rng.state = self._core.decide_move(*self._view(st), rng.state)
        for m in moves:
            if m.card == card and mask_of(m.take) == take:
                return m
        raise RuntimeError(f"the compiled `{self.spec}` chose a move that is not legal (card {card}, take {take:#x})")

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        take, rng.state = self._core.decide_blow(*self._view(st), blows[0].card, rng.state)
        if not take:
            return None
        for m in blows:
            if mask_of(m.take) == take:
                return m
        raise RuntimeError(f"the compiled `{self.spec}` chose a blow that is not open (take {take:#x})")
