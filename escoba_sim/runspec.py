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
``chunk_size`` is fixed when the run starts and kept in the manifest, so the
chunks, their aggregates and the summary are the same for any ``--jobs``,
executor or resume.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from .batch import engine_for
from .rules import Ruleset, parse_rules
from .strategies import StrategyError, check_strategy, parse_strategy

MODES = ("games", "hands")
PAIRINGS = ("duplicate", "independent")
# deals per chunk at most: ~100k hands per chunk keeps per-chunk overhead (aggregation, a
# Parquet write) at a few percent of the compiled core's time
MAX_CHUNK = {"hands": 50_000, "games": 12_500}
MIN_CHUNK = 250
TARGET_CHUNKS = 16  # small runs are still cut into a few chunks, so --jobs and progress help


class RunError(ValueError):
    """A run that cannot start or continue; the message is one line for the user."""


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
                raise RunError(f"--sprt: `{item}` must be elo0=<number> or elo1=<number> (e.g. elo0=0,elo1=20)")
            try:
                vals[k] = float(v)
            except ValueError:
                raise RunError(f"--sprt: `{v.strip()}` is not a number") from None
        if set(vals) != {"elo0", "elo1"}:
            raise RunError("--sprt needs both elo0 and elo1, e.g. --sprt elo0=0,elo1=20")
        if not all(math.isfinite(v) for v in vals.values()) or vals["elo0"] >= vals["elo1"]:
            raise RunError("--sprt: elo0 must be smaller than elo1")
        for name, p in (("alpha", alpha), ("beta", beta)):
            if not 0 < p < 0.5:
                raise RunError(f"--{name}: must be between 0 and 0.5, got {p}")
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

    def __post_init__(self) -> None:
        if self.chunk_size == 0:
            object.__setattr__(self, "chunk_size", default_chunk(self.deals, self.mode))

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
             "save_hands": self.save_hands}
        return d

    @classmethod
    def from_json(cls, d: dict) -> RunSpec:
        rules = parse_rules(d["rules"])
        if rules.digest() != d["rules_digest"]:
            raise RunError(f"manifest ruleset `{d['rules']}` no longer has digest {d['rules_digest']}")
        return cls(rules, tuple(d["strategies"]), int(d["seed"]), int(d["n"]), d["mode"], d["pairing"],
                   int(d["chunk_size"]), Sprt(**d["sprt"]) if d["sprt"] else None, bool(d["save_hands"]))


def default_chunk(deals: int, mode: str) -> int:
    """Deals per chunk: a function of the run's size only (never of --jobs), so it is reproducible."""
    return max(1, min(MAX_CHUNK[mode], max(MIN_CHUNK, -(-deals // TARGET_CHUNKS))))


def make_spec(strategy: str, vs: Iterable[str], rules: Ruleset | str | None = None, n: int = 1000, *,
              hands: bool = False, teams: bool = False, players_fixed: bool | None = None,
              pairing: str = "duplicate", seed: int | None = None, chunk_size: int = 0,
              sprt: Sprt | None = None, save_hands: bool = False) -> RunSpec:
    """Validate a run's arguments and fix the table: players from the strategies, teams from the rules."""
    entrants = tuple(check_strategy(s) for s in (strategy, *vs))
    if len(entrants) < 2:
        raise RunError("give at least one opponent with --vs")
    if engine_for(list(entrants)) == "python":
        # a core-only strategy (ismcts) fails here, before any worker starts, with its reason
        for s in entrants:
            try:
                parse_strategy(s).make()
            except StrategyError as e:
                raise RunError(f"{e} (the reference engine is in use)") from None
    r = parse_rules(rules)
    for s in entrants:  # NAME:tuned needs parameters tuned for this ruleset
        try:
            parse_strategy(s).for_rules(r)
        except StrategyError as e:
            raise RunError(str(e)) from None
    if players_fixed is None:
        players_fixed = r.players != 2
    if teams or r.teams:
        if len(entrants) != 2:
            raise RunError(f"--teams needs exactly two strategies (one per side), got {len(entrants)}")
        if r.players not in (4, 6):
            raise RunError(f"--teams needs 4 or 6 players: set them in the rules, e.g. --rules "
                           f"'{r.replace(players=4, teams=True).canonical()}'")
        r = r.replace(teams=True)
    elif r.players != len(entrants):
        if players_fixed:
            hint = " (add --teams for two teams)" if len(entrants) == 2 and r.players in (4, 6) else ""
            raise RunError(f"the rules are for {r.players} players but {len(entrants)} strategies were given "
                           f"(--strategy plus {len(entrants) - 1} --vs){hint}")
        r = parse_rules(r.replace(players=len(entrants)))  # validates the player count
    if pairing not in PAIRINGS:
        raise RunError(f"--pairing: `{pairing}` is not one of {', '.join(PAIRINGS)}")
    if n <= 0:
        raise RunError(f"-n must be positive, got {n}")
    if seed is None:
        seed = secrets.randbits(64)
    if not 0 <= seed < 2**64:
        raise RunError(f"--seed must be between 0 and 2**64 - 1, got {seed}")
    if chunk_size < 0:
        raise RunError(f"--chunk must be positive, got {chunk_size}")
    if sprt is not None and len(entrants) != 2:
        raise RunError("--sprt compares two strategies (or two teams), not more")
    return RunSpec(r, entrants, seed, n, "hands" if hands else "games", pairing, chunk_size, sprt, save_hands)
