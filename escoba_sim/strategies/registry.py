"""Strategy specs and the registry of built-ins: the one home of strategy names and parameters.

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

import functools
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Callable

from ..i18n import N_
from ..i18n import translate as _
from . import plugins
from .endgame import EndgameStrategy
from .errors import StrategyError, suggestion
from .ladder import LEVEL, LEVELS
from .reference import (
    DefensiveStrategy,
    GreedyStrategy,
    HeuristicStrategy,
    LevelStrategy,
    MaxOrosStrategy,
    RandomStrategy,
    SevensStrategy,
)


@dataclass(frozen=True)
class Param:
    default: float
    help: str
    integer: bool = False
    lo: float = -1e6
    hi: float = 1e6
    required: bool = False  # no default: a spec must give it (a level's n); `default` only fills the help


_WEIGHTS = {
    "cards": Param(1.0, N_("per card taken")),
    "oros": Param(1.0, N_("per oro taken")),
    "sevens": Param(1.5, N_("per seven taken")),
    "siete": Param(3.0, N_("for taking the 7 of oros")),
    "escoba": Param(4.0, N_("for an escoba")),
    "risk": Param(20.0, N_("times the chance an unseen card clears the table left")),
    "keep": Param(0.5, N_("times the oros/sevens/siete weights of a card laid")),
}


def _make_level(n):
    """A level's reference player: its base's reference class inside LevelStrategy (a core-only base is
    refused before, by StrategySpec.make)."""
    level = LEVELS[int(n) - 1]
    return LevelStrategy(parse_strategy(level.base).make(), level.random_share)


@dataclass(frozen=True)
class StrategyDef:
    """A built-in strategy: its reference class, parameters (in order) and C id (None: reference only)."""

    name: str
    help: str
    reference: Callable[..., Any] | None
    params: dict[str, Param] = field(default_factory=dict)
    code: int | None = None
    cheats: bool = False  # sees cards a player cannot (the oracle): a yardstick, never a fair opponent
    # plays a capture whenever one is legal (its reference class and C twin): the capture rule (card, any,
    # optional) and soplar, which only change whether a card that could capture may be laid, never change its play
    always_captures: bool = False


# Codes are the C strategy ids (ESC_RANDOM ... in csrc/escoba_tables.h); a new strategy takes the next one.
BUILTINS: dict[str, StrategyDef] = {d.name: d for d in [
    StrategyDef("random", N_("a uniformly random legal card, then a random capture option"), RandomStrategy, code=0),
    StrategyDef("greedy", N_("most cards, then escoba, 7 of oros, oros; lays its lowest card"), GreedyStrategy, code=1,
                always_captures=True),
    StrategyDef("maxoros", N_("most oros, then 7 of oros, cards, escoba; lays its lowest non-oro"), MaxOrosStrategy, code=2,
                always_captures=True),
    StrategyDef("sevens", N_("7 of oros, then sevens, cards, escoba, oros; never lays a seven if it can help it"),
                SevensStrategy, code=3, always_captures=True),
    StrategyDef("defensive", N_("greedy, but first leaves the table fewest unseen cards can clear"), DefensiveStrategy,
                code=4, always_captures=True),
    StrategyDef("heuristic", N_("weighted cards, oros, sevens, 7 of oros, escoba minus risk; weights settable"),
                HeuristicStrategy, dict(_WEIGHTS), code=5),
    StrategyDef("endgame", N_("heuristic until the stock is empty, then solves the hand exactly (2 players)"),
                EndgameStrategy, {**_WEIGHTS, "max_cards": Param(6, N_("solve only with at most this many cards in hand"),
                                                               integer=True, lo=0, hi=12)}, code=6),
    # randomised search: no reference version (reference=None makes the pure-Python engine refuse it clearly)
    StrategyDef("ismcts", N_("information-set Monte Carlo tree search over deals drawn from what the other seats' "
                "moves this round say of their hands, guided by the heuristic (its moves first, its rollouts), "
                "stopping once its choice is settled, the last deal solved exactly (2 players); options: greedy "
                "rollouts, no guidance, searched blows, exact leaves, exploiting exact play, deals from the voids "
                "alone or uniform deals; ismcts:infer=1 is the earlier default, "
                "ismcts:iters=950,c=4,rollout=0,exact=0,infer=1,stop=0,prior=0 the one before"),
                None, {"iters": Param(2000, N_("search iterations per move at most (see stop)"), integer=True, lo=1,
                                       hi=1_000_000),
                       "c": Param(8.0, N_("UCB1 exploration constant, in points of hand margin"), lo=0, hi=1000),
                       "rollout": Param(1, N_("rollout policy: 0 greedy, 1 heuristic (hand-set weights)"), integer=True,
                                        lo=0, hi=1),
                       "exact": Param(6, N_("2 players: solve the move exactly once the stock is empty with at most "
                                      "this many cards in both hands (0 never)"), integer=True, lo=0, hi=12),
                       "blows": Param(0, N_("soplar: 1 searches blow decisions, 0 blows by greedy's rule"), integer=True,
                                      lo=0, hi=1),
                       "leaf": Param(-1, N_("2 players, at most this many cards in the stock: simulations end by exact "
                                     "search once their stock is empty (within `exact`; -1 never)"), integer=True,
                                     lo=-1, hi=40),
                       "exploit": Param(0, N_("with `exact`: 1 chooses among the minimax-best moves by a search "
                                        "averaging over the replies, 0 plays the first best"), integer=True,
                                        lo=0, hi=1),
                       "infer": Param(2, N_("2: deal the unseen cards from the posterior over the other hands given "
                                      "their moves this round (see temperature, uniform); 1: consistently with "
                                      "the values each seat showed it lacked (it laid a card when one of them "
                                      "would have captured); 0 deals them uniformly"),
                                      integer=True, lo=0, hi=2),
                       "stop": Param(0.25, N_("stop a search once the runner-up could not overtake the most visited "
                                     "option with this share of the iterations left (1: the choice is settled; "
                                     "0 never: every iteration runs)"), lo=0, hi=1),
                       "prior": Param(16.0, N_("the hand-set heuristic guides the tree: untried moves are expanded best "
                                      "first and each move's score, minus its best sibling's, biases its UCB value "
                                      "by this times the score over visits + 1 (0: uniform expansion, no bias)"),
                                      lo=0, hi=100),
                       "temperature": Param(0.75, N_("infer=2, the opponent model: a seat plays each legal move in "
                                            "proportion to exp(heuristic score / temperature), 0: the heuristic's "
                                            "best"), lo=0, hi=100),
                       "uniform": Param(0.03, N_("infer=2, the opponent model: the share of uniformly random play"),
                                        lo=0, hi=1)},
                code=7),
    # cheats: it reads every hand and the stock order (core only, like ismcts)
    StrategyDef("oracle", N_("CHEATS: sees every hand and the stock; exact search of the rest of the hand when few "
                "cards are left, else perfect-information tree search; a yardstick only"),
                None, {"exact": Param(18, N_("solve exactly with at most this many cards left to play (hands + stock)"),
                                      integer=True, lo=0, hi=40),
                       "iters": Param(1000, N_("tree-search iterations per move before that"), integer=True, lo=1,
                                      hi=1_000_000),
                       "c": Param(4.0, N_("UCB1 exploration constant, in points of hand margin"), lo=0, hi=1000),
                       "sees": Param(0, N_("0: every hand and the stock order; 1: every hand but not the stock order "
                                     "(what reading the other hands alone is worth)"), integer=True, lo=0, hi=1),
                       "rollout": Param(0, N_("the tree search's rollout policy, as ismcts': 0 greedy, 1 heuristic"),
                                        integer=True, lo=0, hi=1),
                       "prior": Param(0.0, N_("the tree search's heuristic guidance, as ismcts' prior (0: none)"),
                                      lo=0, hi=100),
                       "stop": Param(0.0, N_("the tree search stops once settled, as ismcts' stop (0: never)"),
                                     lo=0, hi=1)},
                code=8, cheats=True),
    # a rung of the ladder (strategies/levels.py): its base strategy, core-only where that base is
    StrategyDef(LEVEL, N_("a rung of the ladder of opponents, weakest 1: a base strategy with a share of random "
                "moves, its rating measured (escoba-sim strategies lists them)"),
                _make_level, {"n": Param(1, N_("the level: 1 is the weakest, the highest the strongest"), integer=True, lo=1, hi=len(LEVELS), required=True)},
                code=9),
]}


def _core_names() -> tuple[str, ...]:
    coded = sorted((d.code, n) for n, d in BUILTINS.items() if d.code is not None)
    return tuple(n for _, n in coded)


# The built-ins the compiled core implements, in the order of their C codes.
STRATEGIES = {n: BUILTINS[n] for n in _core_names()}
STRATEGY_HELP = {n: d.help for n, d in BUILTINS.items()}


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
        return self.name + ":" + ",".join(f"{k}={format_number(v)}" for k, v in self.params)

    @property
    def short(self) -> str:
        """A label for people: the name and only the parameters that differ from their defaults."""
        d = self.builtin
        if d is None or not self.params:
            return self.canonical
        changed = [f"{k}={format_number(v)}" for k, v in self.params if v != d.params[k].default or d.params[k].required]
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
    def core_only(self) -> bool:
        """Whether only the compiled core can play it (ismcts, the oracle, a level whose base is one of them):
        the reference engine then asks the core for its decisions (``compiled.CoreStrategy``)."""
        d = self.builtin
        if d is None:
            return False
        if d.name == LEVEL and not self.tuned:
            return parse_strategy(LEVELS[int(dict(self.params)["n"]) - 1].base).core_only
        return d.reference is None

    @property
    def cheats(self) -> bool:
        """Whether the strategy sees cards a player cannot (the oracle)."""
        d = self.builtin
        return d is not None and d.cheats

    def for_rules(self, rules) -> StrategySpec:
        """This spec with its parameters fixed for ``rules``: ``NAME:tuned`` becomes the weights
        tuned for that preset (escoba_sim/strategies/tuned.toml); any other spec is itself."""
        if not self.tuned:
            return self
        table = tuned_params()[self.name]
        preset = rules.canonical()
        if preset not in table:
            raise StrategyError(_("`{spec}`: no parameters are tuned for the ruleset {rules}; tuned for {presets} "
                                  "(tune your own with `escoba-sim tune {name}`)").format(
                spec=self, rules=preset, presets=", ".join(table), name=self.name))
        return parse_strategy(self.name + ":" + ",".join(f"{k}={format_number(v)}" for k, v in table[preset].items()))

    def require_fixed(self) -> None:
        """Refuse a ``NAME:tuned`` spec not yet resolved for a ruleset (``for_rules``)."""
        if self.tuned:
            raise StrategyError(_("`{spec}` picks its parameters by ruleset: resolve it with for_rules(rules)").format(
                spec=self))

    def param_values(self) -> list[float]:
        self.require_fixed()
        return [float(v) for _, v in self.params]

    def make(self):
        """A fresh strategy object for the reference engine (this imports a plugin's code)."""
        self.require_fixed()
        if self.plugin is not None:
            return plugins.GuardedPlugin.create(self.canonical, plugins.plugin_class(self.plugin))
        d = BUILTINS[self.name]
        if self.core_only:
            raise StrategyError(_("`{name}` has no reference implementation: it runs only in the compiled core").format(
                name=self.short))
        return d.reference(**dict(self.params))


def format_number(v: float) -> str:
    """A parameter value as specs write it: ``4`` for 4.0, else the shortest repr."""
    if isinstance(v, int):
        return str(v)
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r


def _parse_value(name: str, key: str, raw: Any, p: Param) -> float:
    try:
        x = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        raise StrategyError(_("{name}: `{key}` must be a number, got `{raw}`").format(name=name, key=key, raw=raw)) \
            from None
    if not math.isfinite(x):
        raise StrategyError(_("{name}: `{key}` must be a finite number, got `{raw}`").format(name=name, key=key, raw=raw))
    if p.integer:
        if x != int(x):
            raise StrategyError(_("{name}: `{key}` must be a whole number, got `{raw}`").format(
                name=name, key=key, raw=raw))
        x = int(x)
    if not p.lo <= x <= p.hi:
        raise StrategyError(_("{name}: `{key}` must be between {lo} and {hi}, got `{raw}`").format(
            name=name, key=key, lo=format_number(p.lo), hi=format_number(p.hi), raw=raw))
    return x


def _read_toml(name: str, path: str) -> dict[str, Any]:
    """A weights file the person named: a regular file, its size and depth bounded (``files.read_toml``)."""
    from ..files import TOML_LIMIT, UntrustedFile, parse_toml, read_bytes

    try:
        text = read_bytes(path, TOML_LIMIT).decode("utf-8")
        data = parse_toml(text, path)
    except UnicodeDecodeError:
        raise StrategyError(_("{name}: `{path}` is not a text file (TOML is UTF-8 text)").format(
            name=name, path=path)) from None
    except UntrustedFile as e:
        raise StrategyError(_("{name}: cannot read {reason}").format(name=name, reason=e)) from None
    except ValueError as e:  # a NUL byte in the name
        raise StrategyError(_("{name}: `{path}` is not a file name ({reason})").format(
            name=name, path=path, reason=e)) from None
    # either top-level keys or a table named after the strategy
    if isinstance(data.get(name), dict):
        data = data[name]
    return data


TUNED = "tuned"
TUNED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tuned.toml")


@functools.lru_cache(maxsize=1)
def tuned_params() -> dict[str, dict[str, dict[str, float]]]:
    """The shipped tuned parameters: strategy -> preset -> {parameter: value} (escoba_sim/strategies/tuned.toml)."""
    import tomllib

    with open(TUNED_FILE, "rb") as f:
        return tomllib.load(f)


@functools.lru_cache(maxsize=256)
def parse_strategy(text: str | StrategySpec, files: bool = True) -> StrategySpec:
    """Parse a strategy spec string (see the module docstring); raises StrategyError with a suggestion.

    A plugin is only named here, never imported: ``load_strategy`` does that. ``files=False`` for a
    spec read from a folder, a record or a request: a weights file it names is refused, never opened
    (the canonical spec a folder keeps holds every weight inline).
    """
    if isinstance(text, StrategySpec):
        return text
    s = str(text).strip()
    head, sep, tail = s.rpartition(":") if s.split(":", 1)[0].endswith(".py") else s.partition(":")
    if not sep:
        head, tail = s, ""
    if head.endswith(".py"):
        if not sep or not tail:
            raise StrategyError(_("`{spec}`: name the strategy class too, e.g. {file}:MyStrategy").format(
                spec=s, file=head))
        return StrategySpec(tail, (), f"{head}:{tail}")
    d = BUILTINS.get(head)
    if d is None:
        if not sep and plugins.entry_point(head) is not None:
            return StrategySpec(head, (), f"entry-point:{head}")
        raise StrategyError(_("unknown strategy `{name}`{suggestion}; strategies: {names} or "
                              "path/to/file.py:ClassName").format(
            name=head, suggestion=suggestion(head, BUILTINS), names=", ".join(BUILTINS)))
    given: dict[str, Any] = {}
    if sep:
        if not d.params:
            raise StrategyError(_("`{name}` takes no parameters, got `{given}`").format(name=head, given=tail))
        if tail == TUNED:
            if head not in tuned_params():
                raise StrategyError(_("no tuned parameters are shipped for `{name}`; for: {names}").format(
                    name=head, names=", ".join(tuned_params())))
            return StrategySpec(head, tuned=True)
        if tail.endswith(".toml"):
            if not files:
                raise StrategyError(_("`{spec}` names a weights file; a strategy kept in a file or sent in a request "
                                      "must give its weights inline (a file it names is never opened)").format(
                    spec=f"{head}:{tail}"))
            given = _read_toml(head, tail)
        else:
            items = [x.strip() for x in tail.split(",") if x.strip()]
            if len(d.params) == 1 and len(items) == 1 and "=" not in items[0]:
                items = [f"{next(iter(d.params))}={items[0]}"]  # one parameter may go alone: level:3 = level:n=3
            for item in items:
                k, eq, v = item.partition("=")
                k = k.strip()
                if not eq:
                    raise StrategyError(_("{name}: `{item}` is not key=value (or give a .toml file)").format(
                        name=head, item=item))
                if k in given:
                    raise StrategyError(_("{name}: `{key}` is given twice").format(name=head, key=k))
                given[k] = v.strip()
    for k in given:
        if k not in d.params:
            raise StrategyError(_("{name}: unknown parameter `{key}`{suggestion}; parameters: {keys}").format(
                name=head, key=k, suggestion=suggestion(k, d.params), keys=", ".join(d.params)))
    missing = [k for k, p in d.params.items() if p.required and k not in given]
    if missing:
        raise StrategyError(_("{name}: give `{key}`, e.g. {example}").format(
            name=head, key=missing[0], example=f"{head}:{missing[0]}={format_number(d.params[missing[0]].default)}"))
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
    """The plugins among ``strategies`` (canonical specs, as a folder keeps them: a weights file named
    there is refused, never read): the ones whose code is not escoba-sim's."""
    return [s.canonical for s in (parse_strategy(x, files=False) for x in strategies) if s.plugin is not None]
