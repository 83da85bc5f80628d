"""What determines a run: its arguments validated into a ``RunSpec`` (and the SPRT's hypotheses).

A run plays ``deals`` deal indices, each once per *rotation* of the seating
(duplicate pairing: entrant ``e`` sits on side ``(e - r) % E`` in rotation
``r``, so every entrant plays every deal from every side with the same cards
and the same dealer seat; independent pairing: one rotation). ``-n`` counts
games (or hands with ``--hands``) played in total, so
``deals = ceil(n / rotations)`` and the run plays ``deals * rotations`` (n
rounded up to whole rotations). Deal index ``d`` is the engine's game index,
so a deal is fully determined by (seed, d) (docs/engine.md).

Chunk ``k`` covers deal indices ``[k * chunk_size, (k + 1) * chunk_size)``;
``chunk_size`` (``--chunk``, or ``default_chunk``: smaller for slow strategies) is
fixed when the run starts and kept in the manifest, so the chunks, their
aggregates and the summary are the same for any ``--jobs``, executor or resume.
The deal stream is per deal, so the same deals are played whatever the chunk
size: only the chunk boundaries (and what is reported per chunk) move.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from ..batch import engine_for
from ..errors import EscobaError, Parameter
from ..folders import fingerprint
from ..game.columns import MAX_COUNT
from ..game.rng import draw_seed
from ..game.rules import GivenRules, RulesError, Ruleset, parse_rules, read_rules
from ..i18n import N_
from ..i18n import translate as _
from ..lineup import LineupError, fit_sides
from ..strategies import StrategyError, check_strategy, parse_strategy

MODES = ("games", "hands")
PAIRINGS = ("duplicate", "independent")
# deals per chunk at most: ~100k hands per chunk keeps per-chunk overhead (aggregation, a
# Parquet write) at a few percent of the compiled core's time
MAX_CHUNK = {"hands": 50_000, "games": 12_500}
MIN_CHUNK = 250
TARGET_CHUNKS = 16  # small runs are still cut into a few chunks, so --jobs and progress help
# a slow strategy's chunk is cut so that it lands within about this many seconds of one core: every core
# gets work, the bar and the live standings move, and Ctrl-C keeps what landed
CHUNK_SECONDS = 1.0
# CPU seconds of one hand, estimated from benchmarks (never timed during a run, so a chunk's size never
# depends on the machine): the engine's own per hand, and what a searching strategy adds per hand for each
# seat it plays, per search iteration (measured with ludoteka against greedy: ismcts 10.6 ms a hand at
# 3,800 iterations of greedy rollouts, about as much at 2,000 of heuristic rollouts, the default since issue 24;
# oracle 4.8 ms at 1,000, on a 2.6 GHz core)
HAND_SECONDS = {"cython": 1e-6, "python": 1e-3}
ITERATION_SECONDS = {"ismcts": 2.8e-6, "oracle": 4.8e-6}
HEURISTIC_ROLLOUTS = 1.9  # ismcts' iterations cost this many times more with rollout=1
SEAT_SECONDS = {"endgame": 3e-6}
HANDS_PER_GAME = 4  # about 3.8 to 15 points (ludoteka); a guess is enough for a chunk's size


class RunError(EscobaError):
    """A run that cannot start or continue; the message is one line for the user, naming the parameter at
    fault (``Parameter``), which the command line renders as its flag."""


@dataclass(frozen=True)
class Sprt:
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
        """``elo0=0,elo1=20`` (the two hypotheses, logistic Elo)."""
        vals: dict[str, float] = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            k, sep, v = item.partition("=")
            k = k.strip()
            if not sep or k not in ("elo0", "elo1"):
                raise RunError(_("{sprt}: `{item}` must be elo0=<number> or elo1=<number> (e.g. elo0=0,elo1=20)"),
                               parameter="sprt", sprt=Parameter("sprt"), item=item)
            try:
                vals[k] = float(v)
            except ValueError:
                raise RunError(_("{sprt}: `{value}` is not a number"), parameter="sprt", sprt=Parameter("sprt"),
                               value=v.strip()) from None
        if set(vals) != {"elo0", "elo1"}:
            raise RunError(_("{sprt} needs both elo0 and elo1, e.g. {sprt} elo0=0,elo1=20"), parameter="sprt",
                           sprt=Parameter("sprt"))
        if not all(math.isfinite(v) for v in vals.values()) or vals["elo0"] >= vals["elo1"]:
            raise RunError(_("{sprt}: elo0 must be smaller than elo1"), parameter="sprt", sprt=Parameter("sprt"))
        for name, p in (("alpha", alpha), ("beta", beta)):
            if not 0 < p < 0.5:
                raise RunError(_("{option}: must be between 0 and 0.5, got {value}"), parameter=name,
                               option=Parameter(name), value=p)
        return cls(vals["elo0"], vals["elo1"], alpha, beta)


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (and nothing that does not, such as --jobs)."""

    rules: Ruleset
    strategies: tuple[str, ...]  # entrants: --strategy then each --vs
    seed: int
    n: int
    mode: str = "games"
    pairing: str = "duplicate"
    chunk_size: int = 0  # deals per chunk; 0 picks default_chunk()
    sprt: Sprt | None = None
    save_hands: bool = False
    keep_deals: bool = False  # write per-deal vectors (a series pairs them across runs)

    def __post_init__(self) -> None:
        if self.chunk_size == 0:
            object.__setattr__(self, "chunk_size", default_chunk(self.deals, self.mode, self.deal_seconds()))

    def deal_seconds(self) -> float:
        """An estimate of the CPU seconds one deal takes (every rotation; ``HAND_SECONDS``), for the
        default chunk size only: it never changes what a deal plays."""
        engine = engine_for(list(self.strategies))
        hand = HAND_SECONDS[engine]
        for text in self.lineup(0):
            spec = parse_strategy(text)
            params = dict(spec.params)
            iteration = ITERATION_SECONDS.get(spec.name, 0.0) * (HEURISTIC_ROLLOUTS if params.get("rollout") == 1 else 1)
            hand += SEAT_SECONDS.get(spec.name, 0.0) + iteration * params.get("iters", 0)
        return hand * self.rotations * (HANDS_PER_GAME if self.mode == "games" else 1)

    @property
    def entrants(self) -> int:
        return len(self.strategies)

    @property
    def rotations(self) -> int:
        return self.entrants if self.pairing == "duplicate" else 1

    @property
    def deals(self) -> int:
        return -(-self.n // self.rotations)

    @property
    def played(self) -> int:
        """Games (or hands) the run plays: n rounded up to whole rotations."""
        return self.deals * self.rotations

    @property
    def n_chunks(self) -> int:
        return -(-self.deals // self.chunk_size)

    def chunk_range(self, k: int) -> tuple[int, int]:
        first = k * self.chunk_size
        return first, min(self.chunk_size, self.deals - first)

    def lineup(self, r: int) -> list[str]:
        """Strategy per seat in rotation ``r``: the seat's side ``j`` is played by entrant ``(j + r) % E``."""
        return [self.strategies[(self.rules.side_of(s) + r) % self.entrants] for s in range(self.rules.players)]

    def labels(self) -> list[str]:
        """Names for people: the short spec (non-default parameters only), numbered when repeated."""
        short = [parse_strategy(s).short for s in self.strategies]
        seen: dict[str, int] = {}
        for s in short:
            seen[s] = seen.get(s, 0) + 1
        out, count = [], {}
        for s in short:
            count[s] = count.get(s, 0) + 1
            out.append(s if seen[s] == 1 else f"{s}#{count[s]}")
        return out

    def to_json(self) -> dict:
        d = {"rules": self.rules.canonical(), "rules_digest": self.rules.digest(), "strategies": list(self.strategies),
             "seed": self.seed, "n": self.n, "mode": self.mode, "pairing": self.pairing,
             "chunk_size": self.chunk_size, "sprt": asdict(self.sprt) if self.sprt else None,
             "save_hands": self.save_hands, "keep_deals": self.keep_deals}
        return d

    def fingerprint(self, k: int) -> str:
        """What chunk ``k``'s aggregates depend on, digested: seed, ruleset digest, strategies, mode,
        pairing, the chunk's deal range and the deal stream. A chunk file carries it, so one from another run (another
        seed, say) or another chunk is never taken for this one. The folders' digest, cut to 32 hex digits
        (the length every chunk file written so far carries)."""
        from ..game.rng import DEAL_STREAM_VERSION

        first, count = self.chunk_range(k)
        key = {"seed": self.seed, "rules_digest": self.rules.digest(), "strategies": list(self.strategies),
               "mode": self.mode, "pairing": self.pairing, "chunk": k, "first_deal": first, "deals": count,
               "deal_stream": DEAL_STREAM_VERSION}
        return fingerprint(key)[:32]

    @classmethod
    def from_json(cls, d: dict) -> RunSpec:
        """A spec as a manifest keeps it, checked as the command line checks its arguments.

        Every error is one RunError line. No plugin is loaded: a strategy is only parsed
        (docs/run.md, the plugin trust rule).
        """
        if not isinstance(d, dict):
            raise RunError(_("`spec` must be an object, got {kind}").format(kind=type(d).__name__))

        def field_(key: str, types, what: str):
            if key not in d:
                raise RunError(_("`spec` has no `{key}` ({what})").format(key=key, what=_(what)))
            v = d[key]
            if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
                raise RunError(_("`{key}` must be {what}, got {value}").format(key=key, what=_(what), value=repr(v)))
            if not isinstance(v, types):
                raise RunError(_("`{key}` must be {what}, got {value}").format(key=key, what=_(what), value=type(v).__name__))
            return v

        def whole(key: str, lo: int, hi: int, what: str) -> int:
            v = field_(key, int, what)
            if not lo <= v <= hi:
                raise RunError(_("`{key}` must be {what}, got {value}").format(key=key, what=_(what), value=_shown(v)))
            return v

        rules_text = field_("rules", str, N_("a ruleset such as ludoteka"))
        try:  # a file name is refused, never opened (docs/run.md, the untrusted-input rule)
            rules = parse_rules(rules_text, files=False)
        except RulesError as e:
            raise RunError(_("`rules`: {problem}").format(problem=e)) from None
        if rules.digest() != d.get("rules_digest"):
            raise RunError(_("ruleset `{rules}` does not have digest {digest} (another escoba-sim version, or an edited "
                             "manifest)").format(rules=_shown(rules_text), digest=_shown(d.get('rules_digest'))))
        strategies = field_("strategies", list, N_("a list of strategies"))
        if not 2 <= len(strategies) <= 6:
            raise RunError(_("`strategies` must name 2 to 6 strategies, got {n}").format(n=len(strategies)))
        for text in strategies:
            if not isinstance(text, str) or ".toml" in text:
                raise RunError(_("`strategies` must hold canonical strategy names, got {value}").format(value=repr(_shown(text))))
            try:
                parse_strategy(text, files=False)  # parsed only: a plugin named here is not imported
            except StrategyError as e:
                raise RunError(_("`strategies`: {problem}").format(problem=e)) from None
        seed = whole("seed", 0, 2**64 - 1, N_("a seed from 0 to 2^64-1"))
        n = whole("n", 1, MAX_COUNT, _("a count from 1 to {limit}").format(  # already in the language: _() keeps it
            limit=f"{MAX_COUNT:.0e}".replace("e+", "e")))
        mode, pairing = field_("mode", str, N_("games or hands")), field_("pairing", str, N_("duplicate or independent"))
        if mode not in MODES:
            raise RunError(_("`{key}` must be one of {values}, got {value}").format(
                key="mode", values=', '.join(MODES), value=repr(_shown(mode))))
        if pairing not in PAIRINGS:
            raise RunError(_("`{key}` must be one of {values}, got {value}").format(
                key="pairing", values=', '.join(PAIRINGS), value=repr(_shown(pairing))))
        chunk_size = whole("chunk_size", 1, MAX_COUNT, N_("a positive number of deals"))
        sprt = field_("sprt", (dict, type(None)), N_("null or the SPRT's elo0, elo1, alpha and beta"))
        if sprt is not None:
            try:
                vals = {k: float(sprt[k]) for k in ("elo0", "elo1", "alpha", "beta")}
            except (KeyError, TypeError, ValueError):
                raise RunError(_("`sprt` must hold numbers elo0, elo1, alpha and beta")) from None
            if set(sprt) != set(vals) or any(isinstance(v, bool) for v in sprt.values()):
                raise RunError(_("`sprt` must hold numbers elo0, elo1, alpha and beta, and nothing else"))
            Sprt.parse(f"elo0={vals['elo0']},elo1={vals['elo1']}", vals["alpha"], vals["beta"])  # the CLI's checks
            sprt = Sprt(**vals)
        save_hands = field_("save_hands", bool, N_("true or false"))
        keep_deals = d.get("keep_deals", False)
        if not isinstance(keep_deals, bool):
            raise RunError(_("`{key}` must be {what}, got {value}").format(
                key="keep_deals", what=_("true or false"), value=repr(_shown(keep_deals))))
        spec = cls(rules, tuple(strategies), seed, n, mode, pairing, chunk_size, sprt, save_hands, keep_deals)
        if rules.teams and (spec.entrants != 2 or rules.players not in (4, 6)):
            raise RunError(_("`rules` has teams: `strategies` must name 2 strategies, got {n}").format(n=spec.entrants))
        if not rules.teams and rules.players != spec.entrants:
            raise RunError(_("`rules` are for {players} players but `strategies` names {n}").format(
                players=rules.players, n=spec.entrants))
        if sprt is not None and spec.entrants != 2:
            raise RunError(_("`sprt` compares two strategies (or two teams), not more"))
        return spec


def default_chunk(deals: int, mode: str, deal_seconds: float = 0.0) -> int:
    """Deals per chunk: a 16th of the deals, at most MAX_CHUNK and at most what one core plays in
    CHUNK_SECONDS by the estimate ``deal_seconds`` (``RunSpec.deal_seconds``); at least MIN_CHUNK
    unless that estimate says less (then a small slow run is still cut into 16 chunks, so every
    core has work). A function of the run's definition only (never of --jobs or of a timing), so
    it is reproducible."""
    cap = MAX_CHUNK[mode]
    if deal_seconds > 0:
        cap = min(cap, max(1, int(CHUNK_SECONDS / deal_seconds)))
    floor = MIN_CHUNK if cap >= MIN_CHUNK else 1
    return max(1, min(cap, max(floor, -(-deals // TARGET_CHUNKS))))


def make_spec(strategy: str, vs: Iterable[str], rules: Ruleset | GivenRules | str | None = None, n: int = 1000, *,
              hands: bool = False, teams: bool = False, players_fixed: bool | None = None,
              pairing: str = "duplicate", seed: int | None = None, chunk_size: int = 0,
              sprt: Sprt | None = None, save_hands: bool = False, keep_deals: bool = False) -> RunSpec:
    """Validate a run's arguments and fix the table (``lineup.fit_sides``): the player count follows the
    strategies unless the rules as written set it (``GivenRules``, ``players_fixed``), teams from the rules."""
    entrants = tuple(check_strategy(s) for s in (strategy, *vs))
    if len(entrants) < 2:
        raise RunError(_("give at least one opponent with {vs}"), parameter="vs", vs=Parameter("vs"))
    given = rules if isinstance(rules, GivenRules) else read_rules(rules)
    r = given.rules
    resolved = []
    for s in entrants:  # NAME:tuned needs parameters tuned for this ruleset
        try:
            resolved.append(parse_strategy(s).for_rules(r))
        except StrategyError as e:
            raise RunError(str(e)) from None
    if engine_for(list(entrants)) == "python":
        # a core-only strategy (ismcts) fails here, before any worker starts, with its reason
        for spec in resolved:
            try:
                spec.make()
            except StrategyError as e:
                raise RunError(_("{error} (the reference engine is in use)").format(error=e)) from None
    try:
        r = fit_sides(given, entrants, teams=teams, players_fixed=players_fixed)
    except LineupError as e:
        raise RunError.around(e, "{problem}") from None
    if pairing not in PAIRINGS:
        raise RunError(_("{option}: `{pairing}` is not one of {choices}"), parameter="pairing",
                       option=Parameter("pairing"), pairing=pairing, choices=', '.join(PAIRINGS))
    if not 0 < n <= MAX_COUNT:
        raise RunError(_("{option} must be from 1 to {most}, got {n}"), parameter="n", option=Parameter("n"),
                       most=f"{MAX_COUNT:.0e}".replace("e+", "e"), n=n)
    if seed is None:
        seed = draw_seed()
    if not 0 <= seed < 2**64:
        raise RunError(_("{option} must be between 0 and 2**64 - 1, got {seed}"), parameter="seed",
                       option=Parameter("seed"), seed=seed)
    if not 0 <= chunk_size <= MAX_COUNT:
        raise RunError(_("{option} must be positive, got {chunk}"), parameter="chunk_size",
                       option=Parameter("chunk_size"), chunk=chunk_size)
    if sprt is not None and len(entrants) != 2:
        raise RunError(_("{sprt} compares two strategies (or two teams), not more"), parameter="sprt",
                       sprt=Parameter("sprt"))
    return RunSpec(r, entrants, seed, n, "hands" if hands else "games", pairing, chunk_size, sprt, save_hands,
                   keep_deals)


def _shown(value, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 3] + "..."
