"""The evaluator behind hints (``play``'s ``?``) and ``analyze``: what each option of one decision is worth.

A decision is a seat's move or, under soplar, its blow decision (no blow, or one of
the blows open to it). An option's value is the expected points margin of the
decider's side at the end of the hand: its hand total minus the best total of the
other sides (docs/engine.md scoring, leftovers included; with two players, own
points minus the opponent's). It is estimated from the decider's information only,
an ``InfoSet`` (its hand, the table, the piles and escobas, the other hands' sizes,
the stock's size), never from the hidden cards of the state it is given:

- ``exact``: two players, no teams, empty stock, at most ``EXACT_MAX_CARDS`` in the
  two hands: the unseen cards are the opponent's hand, so nothing is hidden and the
  value is the exact minimax margin (both seats playing their best);
- ``search`` otherwise: ``samples`` random deals of the unseen cards, every option
  played on each deal and the hand finished by ISMCTS under that option (the
  machinery of the ``ismcts`` strategy); the value is the mean margin and the
  spread its standard error; differences between options are paired by deal.

Both run in the compiled core (csrc/escoba_evaluate.h); docs/evaluate.md says more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import EscobaError
from ..game import engine
from ..game.cards import card_str, cards_str, mask_of
from ..game.engine import HandState, Move
from ..game.rng import mix64
from ..game.rules import Ruleset
from ..i18n import N_
from ..i18n import translate as _
from ..strategies import BUILTINS, parse_strategy

DEFAULT_SAMPLES = 4000  # deals per decision; every option is played on each
MAX_OPTIONS_BUDGET = 30  # a decision gets at most samples x 30 playouts: past 30 options, fewer deals each
MIN_SAMPLES = 200  # ... but never fewer than this
MAX_SAMPLES = 1_000_000  # deals per decision: the margins alone take samples x options x 2 bytes (60 MB here)
# the evaluator searches as the ismcts strategy's default does: its exploration (points of margin), rollout
# policy and prior (strategies/registry.py)
_ISMCTS = BUILTINS["ismcts"].params
DEFAULT_C = _ISMCTS["c"].default
ROLLOUT, PRIOR = _ISMCTS["rollout"].default, _ISMCTS["prior"].default
EXACT_MAX_CARDS = 8  # solve exactly with at most this many cards in the two hands
FULL = (1 << 40) - 1


def opponent_model() -> tuple[int, float, float]:
    """How the default ismcts reads the other hands, which the evaluator and the reading follow: its
    ``infer`` (0 uniform deals, 1 the public voids, 2 the posterior given the moves of this round) and the
    opponent model's ``temperature`` and ``uniform`` (strategies/registry.py)."""
    params = dict(parse_strategy("ismcts").params)
    return int(params["infer"]), float(params["temperature"]), float(params["uniform"])


class EvaluationError(EscobaError, RuntimeError):
    """The evaluator cannot run here (no compiled core)."""


@dataclass(frozen=True)
class InfoSet:
    """What the deciding seat knows: card masks for its hand, the table and each side's pile; sizes only
    for the other hands and the stock. ``pending`` is the laid card the seat may blow, or None."""

    rules: Ruleset
    seat: int
    hand: int
    table: int
    piles: tuple[int, ...]
    escobas: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    stock_left: int
    dealer: int
    last_capturer: int
    pending: int | None
    # per seat, the public voids (engine.HandState.voids: values a seat showed it lacks by laying when they
    # would have captured); the searched values deal the unseen cards consistently with them, as ismcts does
    voids: tuple[int, ...] | None = None
    # the hand's moves as the table saw them (engine.HandState.plays: public), which the reading of the
    # other hands (hands.reading) and ismcts' infer = 2 weigh
    plays: tuple[tuple[int, int, int, int, int, int], ...] = ()

    @classmethod
    def of(cls, st: HandState) -> InfoSet:
        """The information set of the seat to play in ``st`` (the other hands give only their sizes)."""
        return cls(st.rules, st.to_play, mask_of(st.hands[st.to_play]), mask_of(st.table), tuple(st.piles),
                   tuple(st.escobas), tuple(len(h) for h in st.hands), len(st.stock), st.dealer,
                   st.last_capturer, st.pending_blow[0] if st.pending_blow else None, tuple(st.voids),
                   tuple(st.plays))

    def view(self, core, *, voids: bool = True, plays: bool = True):
        """The seat's view as the compiled core's ``Position``: the other hands as placeholders of their
        sizes (their cards are never passed), the stock as its size; the public ``voids`` and ``plays``
        unless left out."""
        return core.Position(hands=[self.hand if s == self.seat else (1 << n) - 1
                                    for s, n in enumerate(self.hand_sizes)],
                             table=self.table, piles=list(self.piles), escobas=list(self.escobas),
                             stock_left=self.stock_left, dealer=self.dealer, last_capturer=self.last_capturer,
                             pending=self.pending if self.pending is not None else -1,
                             voids=list(self.voids) if voids and self.voids is not None else None,
                             plays=list(self.plays) if plays else None)

    @property
    def unseen(self) -> int:
        """The cards the seat has not seen: not in its hand, on the table or in any pile."""
        m = FULL & ~self.hand & ~self.table
        for p in self.piles:
            m &= ~p
        return m

    @property
    def solvable(self) -> bool:
        """Nothing hidden: two players, no teams, no stock; small enough to solve exactly."""
        r = self.rules
        return (r.players == 2 and not r.teams and self.stock_left == 0
                and self.hand.bit_count() + self.unseen.bit_count() <= EXACT_MAX_CARDS)


@dataclass(frozen=True)
class OptionValue:
    """One option (a Move; None = not blowing) with its value and spread (0 when exact)."""

    move: Move | None
    value: float
    spread: float


def option_label(move: Move | None, translated: bool = False) -> str:
    """``5o Rc`` (captures Rc), ``5o`` (lays), ``blow 5o Rc``, ``no blow``: the notation play accepts (in the
    process's language when ``translated``: ``soplar 5o Rc``, ``no soplar``; a record or ``--json`` keeps English)."""
    tr = _ if translated else str
    if move is None:
        return tr(N_("no blow"))
    text = " ".join([card_str(move.card), cards_str(move.take)]).strip() if move.take else card_str(move.card)
    return tr(N_("blow {cards}")).format(cards=text) if move.soplar else text


@dataclass
class Evaluation:
    """Every option of one decision, in legal order, valued for the decider."""

    info: InfoSet
    blow: bool
    options: list[OptionValue]
    method: str  # "exact", "search", or "forced" (one option: nothing to evaluate)
    samples: int
    seed: int
    margins: np.ndarray | None = None  # search: (samples, options) margins, one row per deal

    @property
    def best(self) -> int:
        """Index of the best option (the first in legal order among equal values)."""
        values = [o.value for o in self.options]
        return values.index(max(values))

    def ranked(self) -> list[int]:
        """Option indices from best to worst (legal order among equals)."""
        return sorted(range(len(self.options)), key=lambda i: (-self.options[i].value, i))

    def loss(self, i: int) -> tuple[float, float]:
        """(value of the best option - value of option i, the standard error of that difference).

        With search, the difference is taken deal by deal (both options were played on the same deals),
        so its error is that of the paired differences, much smaller than the two spreads combined."""
        b = self.best
        diff = self.options[b].value - self.options[i].value
        if self.margins is None or i == b or self.samples < 2:
            return diff, 0.0
        d = self.margins[:, b].astype(np.float64) - self.margins[:, i]
        return diff, float(d.std(ddof=1) / math.sqrt(len(d)))

    def to_json(self) -> list[dict]:
        return [{"move": option_label(o.move), "value": round(o.value, 4), "spread": round(o.spread, 4)}
                for o in self.options]


def _core():
    from .. import native

    if native.core is None:
        raise EvaluationError(_("the evaluator runs in the compiled core, which is not loaded (build it with pip "
                                "install -e ., and unset ESCOBA_SIM_PURE_PYTHON)"))
    return native.core


def decision_seed(seed: int, index: int) -> int:
    """The search seed of decision ``index`` of an analysis run with a seed given, ``seed`` (SplitMix64 mixing)."""
    return mix64(mix64(seed) ^ index)


def position_seed(hand_seed: int, moves: int, blow: bool) -> int:
    """The search seed of the decision after ``moves`` moves (``blow``: the blow decision) of the hand whose play
    stream starts at ``hand_seed`` (``game.rng.stream_state(seed, game, hand, PLAY)``): a hint's, in the terminal
    and on the page, and by default the analysis's of the hand's record, so that both name the same best move
    with the same values."""
    return mix64(hand_seed ^ moves ^ (blow << 8))


def evaluate(st: HandState, *, blow: bool = False, samples: int = DEFAULT_SAMPLES, seed: int = 0,
             c: float = DEFAULT_C, rollout: int = ROLLOUT, prior: float = PRIOR) -> Evaluation:
    """Value every option of the seat to play in ``st``: its moves, or with ``blow`` its blow decision
    (``[no blow] + blows``). Only ``InfoSet.of(st)`` is used: the other hands and the stock order never are."""
    if st.over:
        raise ValueError(_("the hand is over: there is no decision to evaluate"))
    info = InfoSet.of(st)
    if blow:
        moves: list[Move | None] = [None, *engine.blow_options(st)]
        if len(moves) == 1:
            raise ValueError(_("there is no blow open to the seat to play"))
    else:
        moves = list(engine.legal_moves(st))
    return evaluate_info(info, moves, blow=blow, samples=samples, seed=seed, c=c, rollout=rollout, prior=prior)


def evaluate_info(info: InfoSet, moves: list[Move | None], *, blow: bool = False, samples: int = DEFAULT_SAMPLES,
                  seed: int = 0, c: float = DEFAULT_C, rollout: int = ROLLOUT, prior: float = PRIOR) -> Evaluation:
    """Value ``moves`` (legal in ``info``; with ``blow``, None = no blow) from the information set alone.
    ``c``, ``rollout`` and ``prior`` are ismcts' options of those names (by default, its default's)."""
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(_("samples must be a whole number from 1 to {limit}, got {samples}").format(
            limit=f"{MAX_SAMPLES:,}", samples=repr(samples)))
    options = [(m.card if m is not None else info.pending, mask_of(m.take) if m is not None else 0) for m in moves]
    r = info.rules
    if len(moves) == 1:
        return Evaluation(info, blow, [OptionValue(moves[0], math.nan, 0.0)], "forced", 0, seed)
    samples = min(samples, max(MIN_SAMPLES, samples * MAX_OPTIONS_BUDGET // len(moves)))
    core = _core()
    pending = info.pending if info.pending is not None else -1
    if info.solvable:
        hands = [0, 0]
        hands[info.seat], hands[1 - info.seat] = info.hand, info.unseen
        values = core.evaluate_exact(r, info.seat, core.Position(hands=hands, table=info.table, piles=list(info.piles),
                                     escobas=list(info.escobas), last_capturer=info.last_capturer, pending=pending),
                                     options, blow)
        return Evaluation(info, blow, [OptionValue(m, float(v), 0.0) for m, v in zip(moves, values)], "exact", 0, seed)
    # the other hands as placeholders of their sizes: the search reads only the decider's hand; the unseen
    # cards are dealt as the default ismcts deals them (opponent_model: its infer, temperature, uniform)
    infer, temperature, uniform = opponent_model()
    view = info.view(core, voids=infer >= 1, plays=infer == 2)
    margins = core.evaluate_sample(r, info.seat, view, options, blow=blow, samples=samples, c=c, seed=seed,
                                   rollout=rollout, prior=prior, model=(temperature, uniform) if infer == 2 else None)
    mean = margins.mean(axis=0, dtype=np.float64)
    sd = margins.std(axis=0, ddof=1, dtype=np.float64) if samples > 1 else np.zeros(len(moves))
    values = [OptionValue(m, float(v), float(s / math.sqrt(samples))) for m, v, s in zip(moves, mean, sd)]
    return Evaluation(info, blow, values, "search", samples, seed, margins)


def format_value(o: OptionValue, method: str, translated: bool = False) -> str:
    """``+0.84 ±0.05`` for a searched value, ``+2 exact`` for a solved one."""
    tr = _ if translated else str
    if method == "forced":
        return tr(N_("forced"))
    if method == "exact":
        return tr(N_("{value} exact")).format(value=f"{o.value:+.0f}")
    return f"{o.value:+.2f} ±{o.spread:.2f}"
