"""The kinds of series in one table (``SERIES``, keyed by the manifest's ``kind``): a comparison of rulesets
(``Compare``), a tournament of strategies (``Tournament``) and a skill ladder (``Skill``).

Each kind says, in one class, what is switched on its name elsewhere: how it is built from its arguments
(``start``, keyword arguments) or from its manifest (``plan``: resume), how many runs it plays and its first
(for progress), the label of each run, and how it is played (its module's ``compare``, ``tournament`` or
``skill``, which writes the summary and the tables). A folder whose manifest names no kind of this table is a
single run (``runs.folder``). What a person reads of a kind (its terminal summary, report sections and
charts) is output's: ``output.views`` keeps a view per kind under the same names. A new kind of series is a
class here (and its view there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..errors import EscobaError
from ..game.rules import RulesError, parse_rules
from ..i18n import translate as _
from ..runs.runner import Progress
from ..runs.spec import RunError, RunSpec, make_spec
from ..strategies import StrategyError, parse_strategy
from .compare import CompareError, Variant, compare
from .lineups import pair_specs, runs_per_pair
from .scorecard import plan as scorecard_plan
from .skill import SkillError, check_ladder, check_rulesets, skill
from .tournament import TournamentError, tournament


class ResumeError(RunError, EscobaError):
    """A folder or series that cannot be resumed or rebuilt (a manifest that does not describe one, an
    untrusted plugin); the message is one line for the user."""


@dataclass(frozen=True)
class SeriesPlan:
    """A series (a comparison, a tournament or a skill ladder) rebuilt from its arguments, checked and ready
    to play."""

    kind: str  # a key of SERIES: "compare", "tournament" or "skill"
    args: dict  # what defines it, as its manifest keeps it (strategies, n, seed, chunk_size, rulesets or rules)
    out: str | Path  # its folder, as given
    first: RunSpec  # its first run: chunks and games per run, for progress
    runs: int  # runs in the series
    variants: list[Variant] | None = None  # a comparison's or skill ladder's rulesets
    new: bool = False  # started by its command (``start``), not resumed: a folder already holding it is refused

    @property
    def series(self) -> type[Series]:
        """Its kind's class (``SERIES[kind]``)."""
        return SERIES[self.kind]

    def label(self, what) -> str:
        """The label of one of its runs, from what its kind's function reports as the run starts."""
        return self.series.label(what)


class Series:
    """A kind of series: built from its arguments or its manifest, played into its folder (class methods only:
    the plan, ``SeriesPlan``, is the data)."""

    kind: ClassVar[str]  # the manifest's and the summary's "kind", the registry's key
    error: ClassVar[type[Exception]]  # what its function raises for arguments or a folder it cannot use

    @classmethod
    def check(cls, args: dict, out: str | Path) -> tuple[dict, RunSpec, int, list[Variant] | None]:
        """``(args, first run, runs, variants)`` of the series ``args`` define (their fields may raise KeyError,
        TypeError, ValueError, RulesError, StrategyError or RunError: ``plan`` turns each into one line)."""
        raise NotImplementedError

    @staticmethod
    def label(what) -> str:
        """A run's label, from what the kind's function passes to ``on_run`` as the run starts."""
        raise NotImplementedError

    @classmethod
    def play(cls, plan: SeriesPlan, **common) -> dict:
        """Play (or finish) the planned series and return its summary (``common``: seed, jobs, argv, executor,
        chunk_size, on_chunk, on_run)."""
        raise NotImplementedError

    @classmethod
    def plan(cls, args: dict, out: str | Path, new: bool = False) -> SeriesPlan:
        """Rebuild the series that ``args`` define (as its manifest keeps them), to be played in ``out`` (``new``:
        started by its command, see ``SeriesPlan``). Raises ``ResumeError`` when they do not describe one."""
        try:
            # a series read from its manifest names its strategies and rulesets inline: a file named there is
            # refused, never opened (the command line's own --rules FILE arrives here already parsed)
            for s in args["strategies"]:
                if not isinstance(s, str):
                    raise ResumeError(_("{folder}: the manifest's strategies must be strategy names, got {kind}").format(
                        folder=out, kind=type(s).__name__))
                parse_strategy(s, files=False)
            args, first, runs, variants = cls.check(args, out)
        except (RulesError, StrategyError) as e:
            raise ResumeError(_("{folder}: the manifest: {problem}").format(folder=out, problem=e)) from None
        except RunError as e:
            raise ResumeError.around(e, "{problem}") from None
        except (KeyError, TypeError, ValueError) as e:
            # a kind's own error (CompareError ...) stays an error inside: the command line names its flags
            raise ResumeError(_("{folder}: the manifest does not describe a {kind} ({problem})"), folder=out,
                              kind=cls.kind, problem=e) from None
        return SeriesPlan(cls.kind, args, out, first, runs, variants, new)


def _variants(args: dict) -> list[Variant]:
    """The rulesets of a comparison or skill ladder: as built by the command, or from the manifest."""
    return args["variants"] if "variants" in args else [
        Variant(_label(r), parse_rules(r["rules"], files=False)) for r in args["rulesets"]]


def _label(r) -> str:
    label = r["label"]
    if not isinstance(label, str):
        raise TypeError(_("a ruleset's label must be text, got {kind}").format(kind=type(label).__name__))
    return label


def _first_run(strategies: list[str], rules, args: dict) -> RunSpec:
    """The first run of a tournament or skill ladder (its first pair's first lineup), for progress."""
    if len(strategies) < 2:  # make_spec says what is missing, in one line
        return make_spec(strategies[0], [], rules, args["n"], seed=args["seed"], players_fixed=True)
    return pair_specs(strategies[0], strategies[1], rules, args["n"], seed=args["seed"],
                      chunk_size=args.get("chunk_size", 0))[0]


class Compare(Series):
    """Rulesets compared on the same deals, one run each, by two strategies (``series.compare``)."""

    kind = "compare"
    error = CompareError

    @classmethod
    def start(cls, out: str | Path, *, variants: list[Variant], strategy: str, vs: str, n: int, seed: int,
              chunk_size: int = 0) -> SeriesPlan:
        """A new comparison from its arguments (its manifest keeps the same)."""
        return cls.plan({"variants": variants, "strategies": [strategy, vs], "n": n, "seed": seed,
                         "chunk_size": chunk_size}, out, new=True)

    @classmethod
    def check(cls, args, out):
        variants = _variants(args)
        first = make_spec(args["strategies"][0], args["strategies"][1:], variants[0].rules, args["n"],
                          seed=args["seed"], players_fixed=True, chunk_size=args.get("chunk_size", 0))
        return args, first, len(variants), variants

    @staticmethod
    def label(what) -> str:  # the run's Variant
        return what.label

    @classmethod
    def play(cls, plan, **common):
        args = plan.args
        return compare(plan.variants, args["strategies"][0], args["strategies"][1], args["n"], plan.out, **common)


class Tournament(Series):
    """Every pair of strategies on the same duplicate deals under one ruleset (``series.tournament``)."""

    kind = "tournament"
    error = TournamentError

    @classmethod
    def start(cls, out: str | Path, *, strategies: list[str], n: int, seed: int, rules, chunk_size: int = 0,
              save_hands: bool = False) -> SeriesPlan:
        """A new tournament from its arguments (its manifest keeps the same)."""
        args = {"strategies": list(strategies), "n": n, "seed": seed, "rules": rules, "chunk_size": chunk_size}
        if save_hands:  # kept only when asked, as the manifest keeps it
            args["save_hands"] = True
        return cls.plan(args, out, new=True)

    @classmethod
    def check(cls, args, out):
        args = {**args, "rules": parse_rules(args["rules"], files=False)}
        runs = len(args["strategies"]) * (len(args["strategies"]) - 1) // 2 * runs_per_pair(args["rules"])
        return args, _first_run(args["strategies"], args["rules"], args), runs, None

    @staticmethod
    def label(what) -> str:  # the run's RunSpec
        return " vs ".join(what.labels())

    @classmethod
    def play(cls, plan, **common):
        args = plan.args
        return tournament(list(args["strategies"]), args["n"], plan.out, rules=args["rules"],
                          save_hands=args.get("save_hands") is True, **common)


class Skill(Series):
    """A ladder of strategies, every pair in every ruleset on the same duplicate deals (``series.skill``)."""

    kind = "skill"
    error = SkillError

    @classmethod
    def start(cls, out: str | Path, *, variants: list[Variant], strategies: list[str], n: int,
              seed: int, scorecard: bool = True) -> SeriesPlan:
        """A new skill ladder from its arguments (its manifest keeps the same; ``scorecard``: the scorecard's
        pairs too, which its manifest keeps as ``scorecard``, null in a folder without them)."""
        return cls.plan({"variants": variants, "strategies": strategies, "n": n, "seed": seed,
                         "scorecard": scorecard}, out, new=True)

    @classmethod
    def check(cls, args, out):
        variants = _variants(args)
        m = len(args["strategies"])
        check_rulesets(variants)
        ladder = check_ladder(list(args["strategies"]))
        extra = len(scorecard_plan(ladder)["runs"]) if args.get("scorecard") else 0
        runs = len(variants) * ((m * (m - 1) // 2 + extra) * runs_per_pair(variants[0].rules))
        return args, _first_run(args["strategies"], variants[0].rules, args), runs, variants

    @staticmethod
    def label(what) -> str:  # skill reports its run's label itself
        return what

    @classmethod
    def play(cls, plan, **common):
        return skill(plan.variants, list(plan.args["strategies"]), plan.args["n"], plan.out,
                     scorecard=bool(plan.args.get("scorecard")), **common)


# every kind of series by its manifest's "kind"; a folder of none of them is a single run
SERIES: dict[str, type[Series]] = {k.kind: k for k in (Compare, Tournament, Skill)}
SERIES_ERRORS = tuple(k.error for k in SERIES.values())  # what playing a series raises, one line each


def plan_series(kind: str, args: dict, out: str | Path) -> SeriesPlan:
    """Rebuild the series of kind ``kind`` that ``args`` define (as its manifest keeps them: the strategies,
    n, seed, chunk_size and the rulesets or the rules), to be played in ``out``. Raises ``ResumeError`` when
    they do not describe one."""
    if kind not in SERIES:
        raise ResumeError(_("{folder}: not a comparison or tournament (kind {kind})").format(folder=out, kind=repr(kind)))
    return SERIES[kind].plan(args, out)


def play_series(plan: SeriesPlan, *, jobs: int = 1, executor=None, argv: list[str] | None = None,
                on_run: Callable[[int, str], None] | None = None,
                on_chunk: Callable[[Progress], None] | None = None) -> dict:
    """Play (or finish) a planned series and return its summary.

    ``argv`` is recorded in the manifest unless the series' own arguments keep one; a ``new`` plan (its kind's
    ``start``) refuses a folder that already holds the series, pointing to ``resume``, as a new run does;
    ``on_run(k, label)`` is called as run k starts, ``on_chunk`` after each chunk; ``executor`` as
    for ``runs.runner.run``. Raises its kind's error (``SERIES_ERRORS``: ``CompareError``, ``TournamentError``,
    ``SkillError``; one line each).
    """
    args = plan.args
    return plan.series.play(plan, seed=args["seed"], jobs=jobs, argv=args.get("argv") or argv, executor=executor,
                            chunk_size=args.get("chunk_size", 0), on_chunk=on_chunk, new=plan.new,
                            on_run=None if on_run is None else (lambda k, what: on_run(k, plan.label(what))))
