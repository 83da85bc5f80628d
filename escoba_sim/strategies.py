"""The built-in strategies of the reference engine, defined exactly (docs/engine.md), and strategy specs.

A strategy is named everywhere (CLI, batch, runner, result files) by a *spec*
string: a built-in name with optional parameters (``heuristic:oros=2,risk=1.5``,
``heuristic:weights.toml``, or ``heuristic:tuned``: the weights shipped in
tuned.toml for the ruleset in use, fixed by ``StrategySpec.for_rules``), or a user plugin (``path/to/file.py:ClassName``,
or the name of an ``escoba_sim.strategies`` entry point). ``parse_strategy``
turns it into a hashable ``StrategySpec`` whose canonical string (every
parameter filled, in definition order) is the label results and manifests
carry. ``BUILTINS`` is the one home of strategy names and parameters; the
compiled core implements those with a ``code`` (the C strategy id) bit for bit.

Parsing a spec never runs code: a plugin's file is imported only by
``load_strategy`` (which ``check_strategy`` and the CLI call for a spec the
person typed) or when the engine makes a player of it. So a plugin named in a
file (a hand record's ``strategies``, a run folder's manifest) stays text
until someone who trusts it asks for it to be run (docs/run.md, the plugin
trust rule). The engine sees a plugin through ``GuardedPlugin``, which turns
every way a plugin can fail into one ``PluginError`` line.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib.util
import math
import os
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any, Callable

from .cards import OROS_MASK, SEVENS_MASK, SIETE_OROS, is_oro, mask_of, value
from .engine import HandState, Move, capture_options, majority_points
from .rng import SplitMix64

FULL = (1 << 40) - 1
# VALUE_MASK[v]: every card of value v (1..10), e.g. the four sevens for v = 7
VALUE_MASK = [0] + [sum(1 << (s * 10 + v - 1) for s in range(4)) for v in range(1, 11)]


def greedy_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return (t.bit_count(), int(m.escoba), t >> SIETE_OROS & 1, (t & OROS_MASK).bit_count(), -t)


def maxoros_key(m: Move) -> tuple[int, int, int, int, int]:
    t = m.taken_mask
    return ((t & OROS_MASK).bit_count(), t >> SIETE_OROS & 1, t.bit_count(), int(m.escoba), -t)


def sevens_key(m: Move) -> tuple[int, int, int, int, int, int]:
    t = m.taken_mask
    return (t >> SIETE_OROS & 1, (t & SEVENS_MASK).bit_count(), t.bit_count(), int(m.escoba),
            (t & OROS_MASK).bit_count(), -t)


def _lowest_value_lay(cards: list[int]) -> int:
    # lowest value first, ties to the highest card id
    return min(cards, key=lambda c: (value(c), -c))


def mask_sum(mask: int) -> int:
    return sum(value(c) for c in range(40) if mask >> c & 1)


def unseen_mask(st: HandState) -> int:
    """Cards the seat to play has not seen: not in its hand, on the table or in any pile (docs/engine.md)."""
    m = FULL & ~mask_of(st.hands[st.to_play]) & ~mask_of(st.table)
    for p in st.piles:
        m &= ~p
    return m


def clear_count(table: int, unseen: int) -> int:
    """How many unseen cards would clear ``table`` alone (its sum plus their value is 15); 0 for an empty table."""
    if not table:
        return 0
    need = 15 - mask_sum(table)
    return (unseen & VALUE_MASK[need]).bit_count() if 1 <= need <= 10 else 0


def risk_of(table: int, unseen: int) -> float:
    """The chance that one unseen card, drawn at random, clears ``table`` (0.0 when nothing is unseen)."""
    u = unseen.bit_count()
    return clear_count(table, unseen) / u if u else 0.0


class RandomStrategy:
    name = "random"

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        cards = sorted({m.card for m in moves})
        card = cards[rng.below(len(cards))] if len(cards) > 1 else cards[0]
        options = [m for m in moves if m.card == card]
        return options[rng.below(len(options))] if len(options) > 1 else options[0]

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        k = rng.below(len(blows) + 1)
        return None if k == 0 else blows[k - 1]


class _KeyStrategy:
    """Best capture by a key, ties to the lowest taken mask; a fixed rule for laying."""

    name = ""

    def key(self, m: Move) -> tuple[int, ...]:
        raise NotImplementedError

    def lay(self, cards: list[int]) -> int:
        return _lowest_value_lay(cards)

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        captures = [m for m in moves if m.take]
        if captures:
            return max(captures, key=self.key)
        card = self.lay([m.card for m in moves])
        return next(m for m in moves if m.card == card)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return max(blows, key=self.key)


class GreedyStrategy(_KeyStrategy):
    name = "greedy"
    key = staticmethod(greedy_key)


class MaxOrosStrategy(_KeyStrategy):
    name = "maxoros"
    key = staticmethod(maxoros_key)

    def lay(self, cards: list[int]) -> int:
        plain = [c for c in cards if not is_oro(c)]
        return _lowest_value_lay(plain or cards)


class SevensStrategy(_KeyStrategy):
    name = "sevens"
    key = staticmethod(sevens_key)

    def lay(self, cards: list[int]) -> int:
        plain = [c for c in cards if not SEVENS_MASK >> c & 1]
        return _lowest_value_lay(plain or cards)


class DefensiveStrategy(_KeyStrategy):
    """Greedy, but first it leaves the table that the fewest unseen cards can clear."""

    name = "defensive"
    key = staticmethod(greedy_key)

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        unseen, table = unseen_mask(st), mask_of(st.table)
        captures = [m for m in moves if m.take]
        if captures:
            return max(captures, key=lambda m: (-clear_count(table & ~m.taken_mask, unseen), *greedy_key(m)))
        card = min((m.card for m in moves),
                   key=lambda c: (clear_count(table | 1 << c, unseen), value(c), -c))
        return next(m for m in moves if m.card == card)


HEURISTIC_PARAMS = ("cards", "oros", "sevens", "siete", "escoba", "risk", "keep")


class HeuristicStrategy:
    """A weighted score per move (docs/engine.md, heuristic): the best score, ties as documented."""

    name = "heuristic"

    def __init__(self, cards=1.0, oros=1.0, sevens=1.5, siete=3.0, escoba=4.0, risk=20.0, keep=0.5, **_):
        self.w = (float(cards), float(oros), float(sevens), float(siete), float(escoba), float(risk), float(keep))

    def capture_score(self, taken: int, escoba: int, risk: float) -> float:
        wc, wo, ws, wt, we, wr, _ = self.w
        # the order of the terms is part of the contract: the C core sums them the same way
        return (wc * taken.bit_count() + wo * (taken & OROS_MASK).bit_count() + ws * (taken & SEVENS_MASK).bit_count()
                + wt * (taken >> SIETE_OROS & 1) + we * escoba - wr * risk)

    def lay_score(self, card: int, risk: float) -> float:
        _, wo, ws, wt, _, wr, wk = self.w
        return -(wr * risk) - wk * (wo * is_oro(card) + ws * (SEVENS_MASK >> card & 1) + wt * (card == SIETE_OROS))

    def heuristic_move(self, st: HandState, moves: list[Move]) -> Move:
        unseen, table = unseen_mask(st), mask_of(st.table)
        best, best_key = None, None
        for m in moves:
            if m.take:
                t = m.taken_mask
                key = (self.capture_score(t, int(m.escoba), risk_of(table & ~t, unseen)), 1, -t, 0, 0)
            else:
                key = (self.lay_score(m.card, risk_of(table | 1 << m.card, unseen)), 0, 0, -value(m.card), m.card)
            if best_key is None or key > best_key:
                best, best_key = m, key
        assert best is not None
        return best

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        return self.heuristic_move(st, moves)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return max(blows, key=lambda m: (self.capture_score(m.taken_mask, 0, 0.0), -m.taken_mask))


def _hand_totals(rules, piles: list[int], escobas: list[int]) -> list[int]:
    """Each side's hand total from its final pile (the same points as engine.score_piles)."""
    cards = [p.bit_count() for p in piles]
    oros = [(p & OROS_MASK).bit_count() for p in piles]
    sevens = [(p & SEVENS_MASK).bit_count() for p in piles]

    sv = [int(n == 4) for n in sevens] if rules.sevens == "all" else majority_points(sevens, rules.ties)
    ob, cb = majority_points(oros, rules.ties), majority_points(cards, rules.ties)
    return [escobas[i] + (piles[i] >> SIETE_OROS & 1) + sv[i] + ob[i] + cb[i]
            + rules.bonus_all_oros * (oros[i] == 10) + rules.bonus_all_sevens * (sevens[i] == 4)
            for i in range(len(piles))]


def _options(card: int, table: int) -> list[int]:
    return [mask_of(t) for t in capture_options(card, [c for c in range(40) if table >> c & 1])]


class EndgameStrategy(HeuristicStrategy):
    """Heuristic until the stock is empty; then, two players alone, minimax of the rest of the hand."""

    name = "endgame"

    def __init__(self, max_cards=6, **weights):
        super().__init__(**weights)
        self.max_cards = int(max_cards)

    def _solvable(self, st: HandState) -> bool:
        r = st.rules
        return (r.players == 2 and not r.teams and not st.stock
                and len(st.hands[0]) + len(st.hands[1]) <= self.max_cards)

    # -- the exact search: a node is (hands, table, piles, escobas, last capturer, seat, pending blow)
    def _leaf(self, rules, table, piles, escobas, last) -> int:
        piles = list(piles)
        if last >= 0:
            piles[last] |= table
        tot = _hand_totals(rules, piles, escobas)
        return tot[self.me] - tot[1 - self.me]

    def _after(self, rules, hands, table, piles, escobas, last, seat, pending, alpha, beta) -> int:
        """Value once ``seat`` has played: the next seat holding cards moves, or the hand ends."""
        other = 1 - seat
        nxt = other if hands[other] else (seat if hands[seat] else -1)
        if nxt < 0:
            return self._leaf(rules, table, piles, escobas, last)
        return self._turn(rules, hands, table, piles, escobas, last, nxt, pending, alpha, beta)

    def _turn(self, rules, hands, table, piles, escobas, last, seat, pending, alpha, beta) -> int:
        """Value of ``seat``'s turn, its blow decision first when a blow is open."""
        if pending is not None:
            card, opts = pending
            choices = [0] + opts
            return self._choose(seat, choices, alpha, beta, lambda take, a, b: self._blown(
                rules, hands, table, piles, escobas, last, seat, card, take, a, b))
        return self._moves_value(rules, hands, table, piles, escobas, last, seat, alpha, beta)

    def _blown(self, rules, hands, table, piles, escobas, last, seat, card, take, alpha, beta) -> int:
        if take:
            taken = take | 1 << card
            table &= ~taken
            piles = list(piles)
            piles[seat] |= taken
            last = seat
        return self._moves_value(rules, hands, table, piles, escobas, last, seat, alpha, beta)

    def _choose(self, seat, choices, alpha, beta, value_of) -> int:
        """Max (own seat) or min (opponent) over ``choices`` with alpha-beta (fail-hard)."""
        if seat == self.me:
            for c in choices:
                alpha = max(alpha, value_of(c, alpha, beta))
                if alpha >= beta:
                    return beta
            return alpha
        for c in choices:
            beta = min(beta, value_of(c, alpha, beta))
            if alpha >= beta:
                return alpha
        return beta

    def legal(self, rules, hand: int, table: int) -> list[tuple[int, int]]:
        """(card, take) in legal-move order (docs/engine.md); take 0 lays."""
        cards = [c for c in range(40) if hand >> c & 1]
        opts = {c: _options(c, table) for c in cards}
        any_capture = any(opts.values())
        out = []
        for c in cards:
            if rules.capture == "any" and any_capture and not opts[c]:
                continue
            out.extend((c, t) for t in opts[c])
            if not opts[c] or rules.capture == "optional":
                out.append((c, 0))
        return out

    def _moves_value(self, rules, hands, table, piles, escobas, last, seat, alpha, beta) -> int:
        moves = self.legal(rules, hands[seat], table)
        return self._choose(seat, moves, alpha, beta, lambda mv, a, b: self._played(
            rules, hands, table, piles, escobas, last, seat, mv, a, b))

    def _played(self, rules, hands, table, piles, escobas, last, seat, mv, alpha, beta) -> int:
        card, take = mv
        bit = 1 << card
        hands = list(hands)
        hands[seat] &= ~bit
        pending = None
        if take:
            table &= ~take
            piles = list(piles)
            piles[seat] |= take | bit
            last = seat
            if not table:
                escobas = list(escobas)
                escobas[seat] += 1
        else:
            if rules.soplar:
                opts = _options(card, table)
                if opts:
                    pending = (card, opts)
            table |= bit
        return self._after(rules, hands, table, piles, escobas, last, seat, pending, alpha, beta)

    def _root(self, st: HandState):
        self.me = st.to_play
        hands = [mask_of(h) for h in st.hands]
        return st.rules, hands, mask_of(st.table), list(st.piles), list(st.escobas), st.last_capturer

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        if not self._solvable(st):
            return self.heuristic_move(st, moves)
        rules, hands, table, piles, escobas, last = self._root(st)
        best, best_v = moves[0], -math.inf
        for m in moves:  # legal-move order; the first move with the highest value wins
            v = self._played(rules, hands, table, piles, escobas, last, self.me,
                             (m.card, mask_of(m.take)), best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        if not self._solvable(st):
            return super().choose_blow(st, blows, rng)
        rules, hands, table, piles, escobas, last = self._root(st)
        best, best_v = None, -math.inf
        for m in [None, *blows]:  # no blow first, then the blows by mask
            take = mask_of(m.take) if m else 0
            v = self._blown(rules, hands, table, piles, escobas, last, self.me, m.card if m else 0, take,
                            best_v, math.inf)
            if v > best_v:
                best, best_v = m, v
        return best


# ---------------------------------------------------------------- specs and the registry

@dataclass(frozen=True)
class Param:
    default: float
    help: str
    integer: bool = False
    lo: float = -1e6
    hi: float = 1e6


_WEIGHTS = {
    "cards": Param(1.0, "per card taken"),
    "oros": Param(1.0, "per oro taken"),
    "sevens": Param(1.5, "per seven taken"),
    "siete": Param(3.0, "for taking the 7 of oros"),
    "escoba": Param(4.0, "for an escoba"),
    "risk": Param(20.0, "times the chance an unseen card clears the table left"),
    "keep": Param(0.5, "times the oros/sevens/siete weights of a card laid"),
}


@dataclass(frozen=True)
class StrategyDef:
    """A built-in strategy: its reference class, parameters (in order) and C id (None: reference only)."""

    name: str
    help: str
    reference: Callable[..., Any] | None
    params: dict[str, Param] = field(default_factory=dict)
    code: int | None = None
    cheats: bool = False  # sees cards a player cannot (the oracle): a yardstick, never a fair opponent


# Codes are the C strategy ids (ESC_RANDOM ... in csrc/escoba_tables.h); a new strategy takes the next one.
BUILTINS: dict[str, StrategyDef] = {d.name: d for d in [
    StrategyDef("random", "a uniformly random legal card, then a random capture option", RandomStrategy, code=0),
    StrategyDef("greedy", "most cards, then escoba, 7 of oros, oros; lays its lowest card", GreedyStrategy, code=1),
    StrategyDef("maxoros", "most oros, then 7 of oros, cards, escoba; lays its lowest non-oro", MaxOrosStrategy, code=2),
    StrategyDef("sevens", "7 of oros, then sevens, cards, escoba, oros; never lays a seven if it can help it",
                SevensStrategy, code=3),
    StrategyDef("defensive", "greedy, but first leaves the table fewest unseen cards can clear", DefensiveStrategy,
                code=4),
    StrategyDef("heuristic", "weighted cards, oros, sevens, 7 of oros, escoba minus risk; weights settable",
                HeuristicStrategy, dict(_WEIGHTS), code=5),
    StrategyDef("endgame", "heuristic until the stock is empty, then solves the hand exactly (2 players)",
                EndgameStrategy, {**_WEIGHTS, "max_cards": Param(6, "solve only with at most this many cards in hand",
                                                               integer=True, lo=0, hi=12)}, code=6),
    # randomised search: no reference version (reference=None makes the pure-Python engine refuse it clearly)
    StrategyDef("ismcts", "information-set Monte Carlo tree search over deals inferred from the values each seat "
                "showed it lacked, greedy rollouts; options: exact endgame, heuristic rollouts, searched blows, "
                "exact leaves, exploiting exact play, uniform deals; ismcts:iters=1000,infer=0 is the earlier "
                "default",
                None, {"iters": Param(950, "search iterations per move", integer=True, lo=1, hi=1_000_000),
                       "c": Param(4.0, "UCB1 exploration constant, in points of hand margin", lo=0, hi=1000),
                       "rollout": Param(0, "rollout policy: 0 greedy, 1 heuristic (hand-set weights)", integer=True,
                                        lo=0, hi=1),
                       "exact": Param(0, "2 players: solve the move exactly once the stock is empty with at most "
                                      "this many cards in both hands (0 never)", integer=True, lo=0, hi=12),
                       "blows": Param(0, "soplar: 1 searches blow decisions, 0 blows by greedy's rule", integer=True,
                                      lo=0, hi=1),
                       "leaf": Param(-1, "2 players, at most this many cards in the stock: simulations end by exact "
                                     "search once their stock is empty (within `exact`; -1 never)", integer=True,
                                     lo=-1, hi=40),
                       "exploit": Param(0, "with `exact`: 1 chooses among the minimax-best moves by a search "
                                        "averaging over the replies, 0 plays the first best", integer=True,
                                        lo=0, hi=1),
                       "infer": Param(1, "1: deal the unseen cards consistently with the values each seat showed "
                                      "it lacked (it laid a card when one of them would have captured); "
                                      "0 deals them uniformly",
                                      integer=True, lo=0, hi=1)},
                code=7),
    # cheats: it reads every hand and the stock order (core only, like ismcts)
    StrategyDef("oracle", "CHEATS: sees every hand and the stock; exact search of the rest of the hand when few "
                "cards are left, else perfect-information tree search; a yardstick only",
                None, {"exact": Param(18, "solve exactly with at most this many cards left to play (hands + stock)",
                                      integer=True, lo=0, hi=40),
                       "iters": Param(1000, "tree-search iterations per move before that", integer=True, lo=1,
                                      hi=1_000_000),
                       "c": Param(4.0, "UCB1 exploration constant, in points of hand margin", lo=0, hi=1000)},
                code=8, cheats=True),
]}


def _core_names() -> tuple[str, ...]:
    coded = sorted((d.code, n) for n, d in BUILTINS.items() if d.code is not None)
    return tuple(n for _, n in coded)


# The built-ins the compiled core implements, in the order of their C codes.
STRATEGIES = {n: BUILTINS[n] for n in _core_names()}
STRATEGY_HELP = {n: d.help for n, d in BUILTINS.items()}
ENTRY_POINT_GROUP = "escoba_sim.strategies"


class StrategyError(ValueError):
    """A strategy spec that does not parse: unknown name or parameter, bad value, missing plugin."""


class PluginError(StrategyError):
    """A plugin that failed while playing (raised, returned a wrong move, changed the state, exited).

    ``where`` is filled in by whoever knows the deal (``batch``: game and hand).
    """

    def __init__(self, plugin: str, what: str, seat: int | None = None, move: int | None = None,
                 where: str | None = None):
        self.plugin, self.what, self.seat, self.move, self.where = plugin, what, seat, move, where
        at = ", ".join(x for x in (where, f"seat {seat}" if seat is not None else None,
                                   f"move {move}" if move is not None else None) if x)
        super().__init__(f"strategy plugin `{plugin}`" + (f" ({at})" if at else "") + f": {what}")

    def at(self, where: str) -> PluginError:
        """The same failure, placed in a deal (e.g. ``game 12 hand 3``)."""
        return PluginError(self.plugin, self.what, self.seat, self.move, where)

    def __reduce__(self):  # raised in a worker process, re-raised in the parent
        return PluginError, (self.plugin, self.what, self.seat, self.move, self.where)


@dataclass(frozen=True)
class StrategySpec:
    """A parsed strategy: a built-in with every parameter filled, or a plugin (file.py:Class / entry point)."""

    name: str
    params: tuple[tuple[str, float], ...] = ()
    plugin: str | None = None  # "path.py:Class" or "entry-point:NAME"
    tuned: bool = False  # NAME:tuned: the parameters shipped in tuned.toml for the ruleset in use (for_rules)

    def __str__(self) -> str:
        return self.canonical

    @property
    def canonical(self) -> str:
        if self.plugin is not None:
            return self.plugin.removeprefix("entry-point:")
        if self.tuned:
            return f"{self.name}:{TUNED}"
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params)

    @property
    def short(self) -> str:
        """A label for people: the name and only the parameters that differ from their defaults."""
        d = self.builtin
        if d is None or not self.params:
            return self.canonical
        changed = [f"{k}={_fmt(v)}" for k, v in self.params if v != d.params[k].default]
        return self.name + (":" + ",".join(changed) if changed else "")

    @property
    def builtin(self) -> StrategyDef | None:
        return None if self.plugin is not None else BUILTINS[self.name]

    @property
    def core_code(self) -> int | None:
        """The C strategy id, or None when only the reference engine can play it."""
        d = self.builtin
        return d.code if d is not None else None

    @property
    def cheats(self) -> bool:
        """Whether the strategy sees cards a player cannot (the oracle)."""
        d = self.builtin
        return d is not None and d.cheats

    def for_rules(self, rules) -> StrategySpec:
        """This spec with its parameters fixed for ``rules``: ``NAME:tuned`` becomes the weights
        tuned for that preset (escoba_sim/tuned.toml); any other spec is itself."""
        if not self.tuned:
            return self
        table = tuned_params()[self.name]
        preset = rules.canonical()
        if preset not in table:
            raise StrategyError(f"`{self}`: no parameters are tuned for the ruleset {preset}; tuned for "
                                f"{', '.join(table)} (tune your own with `escoba-sim tune {self.name}`)")
        return parse_strategy(self.name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in table[preset].items()))

    def _fixed(self) -> None:
        if self.tuned:
            raise StrategyError(f"`{self}` picks its parameters by ruleset: resolve it with for_rules(rules)")

    def param_values(self) -> list[float]:
        self._fixed()
        return [float(v) for _, v in self.params]

    def make(self):
        """A fresh strategy object for the reference engine (this imports a plugin's code)."""
        self._fixed()
        if self.plugin is not None:
            return GuardedPlugin.create(self.canonical, _plugin_class(self.plugin))
        d = BUILTINS[self.name]
        if d.reference is None:
            raise StrategyError(f"`{self.name}` has no reference implementation: it runs only in the compiled core")
        return d.reference(**dict(self.params))

    def player(self):
        """A strategy object that plays single hands step by step in the reference engine (trace, play):
        the reference class, or for a core-only built-in (ismcts) the compiled core's own decisions."""
        self._fixed()
        d = self.builtin
        if d is None or d.reference is not None:
            return self.make()
        from .batch import _core

        if _core is None:
            raise StrategyError(f"`{self.name}` runs only in the compiled core, which is not loaded")
        return CoreStrategy(self, _core)


class CoreStrategy:
    """A core-only built-in (ismcts) inside the reference engine: each decision is made by the compiled
    core's own decision functions (``_core.decide_move`` / ``decide_blow``, which its hand loop calls),
    from the same position and the same PLAY stream, so a hand played this way is the very hand a batch
    run plays, and the reference engine still checks every move it makes."""

    def __init__(self, spec: StrategySpec, core):
        self.spec, self.name, self._core = spec, spec.name, core

    def _view(self, st: HandState) -> tuple:
        return (st.rules, self.spec, [mask_of(h) for h in st.hands], mask_of(st.table), list(st.piles),
                list(st.escobas), len(st.stock), st.dealer, st.last_capturer, st.to_play)

    def _stock(self, st: HandState) -> list[int] | None:
        # only a cheating strategy is shown the stock's order; the others decide without it
        return list(st.stock) if self.spec.cheats else None

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        card, take, rng.state = self._core.decide_move(*self._view(st), rng.state, self._stock(st), st.voids)
        for m in moves:
            if m.card == card and mask_of(m.take) == take:
                return m
        raise RuntimeError(f"the compiled `{self.spec}` chose a move that is not legal (card {card}, take {take:#x})")

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        take, rng.state = self._core.decide_blow(*self._view(st), blows[0].card, rng.state, self._stock(st),
                                                 st.voids)
        if not take:
            return None
        for m in blows:
            if mask_of(m.take) == take:
                return m
        raise RuntimeError(f"the compiled `{self.spec}` chose a blow that is not open (take {take:#x})")


def _fmt(v: float) -> str:
    if isinstance(v, int):
        return str(v)
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f" (did you mean {close[0]}?)" if close else ""


def _parse_value(name: str, key: str, raw: Any, p: Param) -> float:
    try:
        x = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        raise StrategyError(f"{name}: `{key}` must be a number, got `{raw}`") from None
    if not math.isfinite(x):
        raise StrategyError(f"{name}: `{key}` must be a finite number, got `{raw}`")
    if p.integer:
        if x != int(x):
            raise StrategyError(f"{name}: `{key}` must be a whole number, got `{raw}`")
        x = int(x)
    if not p.lo <= x <= p.hi:
        raise StrategyError(f"{name}: `{key}` must be between {_fmt(p.lo)} and {_fmt(p.hi)}, got `{raw}`")
    return x


def _read_toml(name: str, path: str) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise StrategyError(f"{name}: cannot read `{path}`: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise StrategyError(f"{name}: `{path}` is not a text file (TOML is UTF-8 text)") from None
    except tomllib.TOMLDecodeError as e:
        raise StrategyError(f"{name}: `{path}` is not valid TOML: {e}") from None
    # either top-level keys or a table named after the strategy
    if isinstance(data.get(name), dict):
        data = data[name]
    return data


TUNED = "tuned"
TUNED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tuned.toml")


@functools.lru_cache(maxsize=1)
def tuned_params() -> dict[str, dict[str, dict[str, float]]]:
    """The shipped tuned parameters: strategy -> preset -> {parameter: value} (escoba_sim/tuned.toml)."""
    import tomllib

    with open(TUNED_FILE, "rb") as f:
        return tomllib.load(f)


@functools.lru_cache(maxsize=256)
def parse_strategy(text: str | StrategySpec) -> StrategySpec:
    """Parse a strategy spec string (see the module docstring); raises StrategyError with a suggestion.

    A plugin is only named here, never imported: ``load_strategy`` does that.
    """
    if isinstance(text, StrategySpec):
        return text
    s = str(text).strip()
    head, sep, tail = s.rpartition(":") if s.split(":", 1)[0].endswith(".py") else s.partition(":")
    if not sep:
        head, tail = s, ""
    if head.endswith(".py"):
        if not sep or not tail:
            raise StrategyError(f"`{s}`: name the strategy class too, e.g. {head}:MyStrategy")
        return StrategySpec(tail, (), f"{head}:{tail}")
    d = BUILTINS.get(head)
    if d is None:
        if not sep and _entry_point(head) is not None:
            return StrategySpec(head, (), f"entry-point:{head}")
        raise StrategyError(f"unknown strategy `{head}`{_suggest(head, BUILTINS)}; strategies: "
                            f"{', '.join(BUILTINS)} or path/to/file.py:ClassName")
    given: dict[str, Any] = {}
    if sep:
        if not d.params:
            raise StrategyError(f"`{head}` takes no parameters, got `{tail}`")
        if tail == TUNED:
            if head not in tuned_params():
                raise StrategyError(f"no tuned parameters are shipped for `{head}`; for: {', '.join(tuned_params())}")
            return StrategySpec(head, tuned=True)
        if tail.endswith(".toml"):
            given = _read_toml(head, tail)
        else:
            for item in filter(None, (x.strip() for x in tail.split(","))):
                k, eq, v = item.partition("=")
                k = k.strip()
                if not eq:
                    raise StrategyError(f"{head}: `{item}` is not key=value (or give a .toml file)")
                if k in given:
                    raise StrategyError(f"{head}: `{k}` is given twice")
                given[k] = v.strip()
    for k in given:
        if k not in d.params:
            raise StrategyError(f"{head}: unknown parameter `{k}`{_suggest(k, d.params)}; parameters: "
                                f"{', '.join(d.params)}")
    params = tuple((k, _parse_value(head, k, given[k], p) if k in given else p.default) for k, p in d.params.items())
    return StrategySpec(head, params)


def load_strategy(text: str | StrategySpec) -> StrategySpec:
    """Parse a spec and, for a plugin, import it and make one player now: a broken plugin fails here,
    with a clear message, rather than in a worker. This runs the plugin's code: call it only for a
    spec the person named (the command line), never for one read from a file."""
    spec = parse_strategy(text)
    if spec.plugin is not None:
        spec.make()
    return spec


def check_strategy(text: str | StrategySpec) -> str:
    """The canonical string of a spec the person named (``load_strategy``: a plugin is imported)."""
    return load_strategy(text).canonical


def make_strategy(text: str | StrategySpec):
    return parse_strategy(text).make()


def plugins_in(strategies: Iterable[str | StrategySpec]) -> list[str]:
    """The plugins among ``strategies`` (canonical specs): the ones whose code is not escoba-sim's."""
    return [s.canonical for s in map(parse_strategy, strategies) if s.plugin is not None]


# ---------------------------------------------------------------- plugins

def _entry_point(name: str):
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    return found[0] if found else None


@functools.lru_cache(maxsize=64)
def _plugin_class(plugin: str):
    """Load a plugin class once per process: ``path.py:Class`` or ``entry-point:NAME``."""
    if plugin.startswith("entry-point:"):
        ep = _entry_point(plugin.removeprefix("entry-point:"))
        if ep is None:
            raise StrategyError(f"no `{ENTRY_POINT_GROUP}` entry point named `{plugin}`")
        try:
            cls = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            raise StrategyError(f"strategy plugin `{plugin}` failed to import: {_describe(e)}") from None
    else:
        path, _, cls_name = plugin.rpartition(":")
        if not os.path.isfile(path):
            raise StrategyError(f"strategy plugin `{path}` does not exist")
        mod_name = "escoba_plugin_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # SystemExit too: a plugin does not end the program
            raise StrategyError(f"strategy plugin `{path}` failed to import: {_describe(e)}") from None
        cls = getattr(module, cls_name, None)
        if cls is None:
            names = [n for n in vars(module) if not n.startswith("_")]
            raise StrategyError(f"`{path}` has no `{cls_name}`{_suggest(cls_name, names)}")
    if not isinstance(cls, type):
        raise StrategyError(f"plugin `{plugin}` must name a class, not {type(cls).__name__} {_short_repr(cls)}")
    if not callable(getattr(cls, "choose_move", None)):
        raise StrategyError(f"plugin `{plugin}` must define choose_move(state, moves, rng)")
    if not callable(getattr(cls, "choose_blow", None)):
        # a plugin that never blows need not say so
        cls = type(cls.__name__, (cls,), {"choose_blow": lambda self, st, blows, rng: None})
    return cls


def _describe(e: BaseException) -> str:
    """An exception in one line (a plugin's message may span several)."""
    if isinstance(e, SystemExit):
        return f"it called sys.exit({e.code!r})"
    text = " ".join(str(e).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _snapshot(st: HandState) -> tuple:
    """What a strategy may read of a hand; it must be the same after the strategy has decided."""
    return (tuple(map(tuple, st.hands)), tuple(st.table), tuple(st.stock), tuple(st.piles), tuple(st.escobas),
            tuple(st.lucky_escobas), len(st.moves), st.to_play, st.pending_blow, st.last_capturer, st.over)


class GuardedPlugin:
    """A plugin as the engine sees it: each decision is checked, and any failure is one ``PluginError``.

    The plugin gets its own copy of the move list; what it returns must be one of
    those moves, and the hand must be exactly as it was (a strategy only reads
    it). Exceptions and ``sys.exit`` inside the plugin become a PluginError that
    names the plugin, the seat, the move number and the reason; Ctrl-C passes through.
    """

    def __init__(self, label: str, player):
        self.label, self.player = label, player
        self.name = str(getattr(player, "name", label))

    @classmethod
    def create(cls, label: str, plugin_class) -> GuardedPlugin:
        try:
            player = plugin_class()
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            raise PluginError(label, f"cannot make a player: {plugin_class.__name__}() "
                                     f"failed ({_describe(e)}); a plugin class takes no arguments") from None
        return cls(label, player)

    def _decide(self, method: str, st: HandState, options: list[Move], rng: SplitMix64, may_pass: bool):
        seat, number = st.to_play, len(st.moves) + 1
        before = _snapshot(st)
        try:
            choice = getattr(self.player, method)(st, list(options), rng)
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            how = f"called sys.exit({e.code!r})" if isinstance(e, SystemExit) else f"raised {_describe(e)}"
            raise PluginError(self.label, f"{method} {how}", seat, number) from None
        if _snapshot(st) != before:
            raise PluginError(self.label, f"{method} changed the hand's state (a strategy may only read it)",
                              seat, number)
        if choice is None and may_pass:
            return None
        if not isinstance(choice, Move) or choice not in options:
            got = f"{choice} (not one of the {len(options)} legal moves)" if isinstance(choice, Move) else (
                f"{type(choice).__name__} {_short_repr(choice)}, not a Move")
            raise PluginError(self.label, f"{method} returned {got}", seat, number)
        return choice

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        return self._decide("choose_move", st, moves, rng, may_pass=False)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return self._decide("choose_blow", st, blows, rng, may_pass=True)


def _short_repr(x: Any) -> str:
    try:
        r = repr(x)
    except Exception:
        r = "?"
    return r if len(r) <= 40 else r[:37] + "..."
