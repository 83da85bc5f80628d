"""Strategy-vs-strategy runs: deals cut into seeded chunks, exact aggregates, resumable output.

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
executor or resume. A chunk returns integer aggregates (below) that merge by
addition; statistics are computed from the merged integers (``stats``). The
GSPRT is evaluated on the contiguous prefix of finished chunks, in index
order, so an early stop happens at the same chunk however work was scheduled.

Output folder (``--out DIR``)::

    DIR/manifest.json           tool version, engine, deal stream, ruleset (canonical + digest), seed,
                                run arguments (``spec``), chunk size and count, status
                                (running / interrupted / complete / stopped-by-sprt), times
    DIR/chunks/chunk-000123.parquet   aggregates of chunk 123 (its presence marks it done)
    DIR/hands/chunk-000123.parquet    per-hand rows with --save-hands
    DIR/summary.json            the same as ``run --json``

Every file is written to a temporary name and ``os.replace``d.

Chunk aggregate schema (long format, one row per array element, zeros
included, so a reader rebuilds each array's shape from the maximum indices):
``chunk`` int64, ``first_deal`` int64, ``deals`` int64 (the chunk's own
range), ``stat`` utf8, ``i0``/``i1``/``i2`` int32 (indices; 0 where the stat
has fewer dimensions), ``value`` int64. ``E`` is the number of entrants (=
sides), ``Q = E`` positions relative to the dealer (0 dealer, 1 mano, then
turn order; with teams 0 = the dealer's side), ``K`` indexes
``batch.SIDE_COLUMNS`` (escobas, lucky_escobas, siete_oros, sevens, oros,
cards, bonus, total, cards_taken, oros_taken, sevens_taken). Per cluster
(deal group) ``c``: ``x_c`` hands, ``y_ce`` total points of entrant ``e``.

=================  ==========  ====================================================
stat               dims        meaning
=================  ==========  ====================================================
clusters           [1]         deal groups in the chunk
games              [1]         games played (all rotations; 0 with --hands)
hands              [1]         hands played (all rotations)
lucky_hands        [1]         hands with lucky_deal > 0
x2                 [1]         sum_c x_c^2
xy                 [E]         sum_c x_c y_ce
y2                 [E, E]      sum_c y_ce y_cf
points             [E, K]      sum over hands of each side column, by entrant
wdl                [E, 3]      hands won (strictly top total), drawn (tied top), lost
pos_points         [E, Q, K]   as points, split by position
pos_wdl            [E, Q, 3]   as wdl, split by position
pos_x1, pos_x2     [E, Q]      sum_c x_ceq, sum_c x_ceq^2 (hands of e in position q)
pos_y2, pos_xy     [E, Q]      sum_c y_ceq^2, sum_c x_ceq y_ceq (its total points)
game_wins          [E]         games won
game_hands_hist    [H]         games by number of hands (bin = hands)
points_hist        [E, B]      hands by the entrant's total points (bin = points)
score_hist         [2m+1]      2 entrants only: clusters by entrant 0's score in
                               half-points (win 2, draw 1, loss 0) over the
                               cluster's m = rotations games or hands
=================  ==========  ====================================================

Per-hand rows (``hands/``): the ``batch.HAND_COLUMNS`` plus each side column
split by side as ``total_0``, ``total_1``, ... (named exactly as batch
columns), plus ``rotation`` (int8); side ``j`` of rotation ``r`` is played
by entrant ``(j + r) % E``. ``game`` is the deal index.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from . import __version__, stats
from .rng import DEAL_STREAM_VERSION
from .batch import POINT_COLUMNS, SIDE_COLUMNS, engine_for, play_games, play_hands
from .rules import Ruleset, parse_rules
from .strategies import StrategyError, check_strategy, parse_strategy

MODES = ("games", "hands")
PAIRINGS = ("duplicate", "independent")
# deals per chunk at most: ~100k hands per chunk keeps per-chunk overhead (aggregation, a
# Parquet write) at a few percent of the compiled core's time
MAX_CHUNK = {"hands": 50_000, "games": 12_500}
MIN_CHUNK = 250
TARGET_CHUNKS = 16  # small runs are still cut into a few chunks, so --jobs and progress help
STATUS = ("running", "interrupted", "complete", "stopped-by-sprt")
FORMAT = 1  # the output-folder layout version

STAT_DIMS = {
    "clusters": 1, "games": 1, "hands": 1, "lucky_hands": 1, "x2": 1, "xy": 1, "y2": 2, "points": 2, "wdl": 2,
    "pos_points": 3, "pos_wdl": 3, "pos_x1": 2, "pos_x2": 2, "pos_y2": 2, "pos_xy": 2, "game_wins": 1,
    "game_hands_hist": 1, "points_hist": 2, "score_hist": 1,
}
TOTAL = SIDE_COLUMNS.index("total")


class RunError(ValueError):
    """A run that cannot start or continue; the message is one line for the user."""


class RunInterrupted(Exception):
    """Ctrl-C during a run: finished chunks are saved (when there is an output folder)."""

    def __init__(self, out: Path | None, done: int, total: int):
        super().__init__(f"interrupted with {done} of {total} chunks finished")
        self.out, self.done, self.total = out, done, total


# Ctrl-C or SIGTERM, remembered: Python drops a KeyboardInterrupt raised inside a finalizer
# (a Dask Future.__del__, for one), so the runner also checks this flag after every chunk.
_STOP = threading.Event()


def _stop_requested(signum, frame):
    _STOP.set()
    raise KeyboardInterrupt


@contextmanager
def stop_on_signals():
    """Within this block Ctrl-C and SIGTERM stop a run (main thread only) so that it can be resumed."""
    try:
        previous = {s: signal.signal(s, _stop_requested) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: leave signals alone
        previous = {}
    _STOP.clear()
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _STOP.clear()


def _check_stop() -> None:
    if _STOP.is_set():
        raise KeyboardInterrupt


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


# ---------------------------------------------------------------- one chunk

def play_chunk(spec: RunSpec, k: int, hands_dir: str | None = None) -> dict[str, np.ndarray]:
    """Play chunk ``k`` (every rotation of its deals) and return its integer aggregates.

    A top-level function of picklable arguments, so any executor can run it.
    With ``hands_dir`` the per-hand rows are written there (atomically) too.
    """
    if not 0 <= k < spec.n_chunks:
        raise IndexError(f"chunk {k} is not in 0..{spec.n_chunks - 1}")
    first, count = spec.chunk_range(k)
    R, E = spec.rotations, spec.entrants
    Q, K = E, len(SIDE_COLUMNS)
    rules = spec.rules
    games_mode = spec.mode == "games"
    # per-cluster arrays are laid out (what, cluster) so every reduction runs along contiguous rows
    x = np.zeros(count, np.int64)
    y = np.zeros((E, count), np.int64)
    if games_mode:
        pos_x = np.zeros((E * Q, count), np.int64)  # row e * Q + q: hands of entrant e in position q
        pos_y = np.zeros((E * Q, count), np.int64)  # the same hands' total points
    hand_x1 = np.zeros((E, Q), np.int64)  # --hands: hands of e in position q (= sum x and sum x^2)
    hand_y2 = np.zeros((E, Q), np.int64)  # --hands: sum of those hands' squared totals
    z = np.zeros(count, np.int64)
    pos_points = np.zeros((E, Q, K), np.int64)
    pos_wdl = np.zeros((E, Q, 3), np.int64)
    game_wins = np.zeros(E, np.int64)
    hists: list[np.ndarray] = [np.zeros(0, np.int64) for _ in range(E)]
    game_hist = np.zeros(0, np.int64)
    n_hands = n_games = lucky = 0
    rows = []
    for r in range(R):
        lineup = spec.lineup(r)
        b = (play_games if games_mode else play_hands)(rules, lineup, spec.seed, first, count)
        h = b.hands
        n = len(h["game"])
        n_hands += n
        side_of_e = [(e - r) % E for e in range(E)]
        tot_sides = h["total"]
        tot = [tot_sides[:, j].astype(np.int64) for j in side_of_e]  # tot[e]: entrant e's points per hand
        dealer_side = (h["dealer"] % 2 if rules.teams else h["dealer"]).astype(np.int64)
        code = _outcomes(tot)  # code[e]: 0 win, 1 draw, 2 loss
        lucky += int(np.count_nonzero(h["lucky_deal"]))
        # A side's position depends only on the dealer's side, so per-position sums are sums
        # over (dealer side, side) cells. In --hands mode the dealer side of hand i is
        # (first + i) % Q (docs/engine.md), so the cells are strided views: checked, not assumed.
        strided = (not games_mode and n >= Q and np.array_equal(dealer_side[:Q], (first + np.arange(Q)) % Q)
                   and np.array_equal(dealer_side[Q:], dealer_side[:-Q]))
        cell = None if strided else (dealer_side[:, None] * Q + np.arange(Q)[None, :]).ravel()

        def cell_sums(flat: np.ndarray) -> np.ndarray:
            """Sums of an (n, Q) side column, flattened (hand i, side j at i * Q + j), as [dealer side, side]."""
            if strided:  # hands with dealer side d are i = (d - first) % Q, then every Q-th
                return np.array([[int(flat[((d - first) % Q) * Q + j::Q * Q].sum(dtype=np.int64)) for j in range(Q)]
                                 for d in range(Q)], dtype=np.int64)
            # float weights are exact: the sums stay far below 2**53
            return np.bincount(cell, weights=flat, minlength=Q * Q).reshape(Q, Q).astype(np.int64)

        for kk, c in enumerate(SIDE_COLUMNS):
            sums = cell_sums(h[c].ravel())
            for e in range(E):
                j = side_of_e[e]
                for d in range(Q):
                    pos_points[e, (j - d) % Q, kk] += sums[d, j]
        if not games_mode:
            # With --hands, rotations put an entrant on distinct sides, hence in distinct
            # positions: each (entrant, position) gets at most one hand per cluster, so its
            # per-cluster sums are that hand's values and the cluster sums are per-hand sums.
            sq = cell_sums((tot_sides.astype(np.int64) ** 2).ravel())
            n_d = np.bincount(dealer_side, minlength=Q)
            for e in range(E):
                j = side_of_e[e]
                for d in range(Q):
                    qq = (j - d) % Q
                    hand_x1[e, qq] += n_d[d]
                    hand_y2[e, qq] += sq[d, j]
        if games_mode:
            # hands come game by game in game order and every game has a hand, so the
            # per-cluster sums are segment sums (exact integers, no scatter)
            starts = np.zeros(count, np.int64)
            np.cumsum(b.games["hands"][:-1], out=starts[1:])
            x += b.games["hands"]
            seg = np.zeros((E + 2 * E * Q, n), np.int64)  # tot | hands by (e, q) | points by (e, q)
        else:
            x += 1  # one hand per deal and rotation; hand i is deal first + i
        for e in range(E):
            if games_mode:
                q = (side_of_e[e] - dealer_side) % Q
                seg[e] = tot[e]
                for qq in range(Q):
                    at = q == qq
                    seg[E + e * Q + qq] = at
                    seg[E + E * Q + e * Q + qq] = at * tot[e]
            else:
                y[e] += tot[e]
            pw = np.bincount(dealer_side * 3 + code[e], minlength=Q * 3).reshape(Q, 3)
            for d in range(Q):
                pos_wdl[e, (side_of_e[e] - d) % Q] += pw[d]
            hists[e] = _add(hists[e], np.bincount(tot[e]))
        if games_mode:
            sums = np.add.reduceat(seg, starts, axis=1)
            y += sums[:E]
            pos_x += sums[E:E + E * Q]
            pos_y += sums[E + E * Q:]
        if E == 2:
            if games_mode:
                g = b.games
                won = (g["winner"].astype(np.int64) + r) % E == 0
                z += 2 * np.bincount(g["game"] - first, weights=won, minlength=count).astype(np.int64)
            else:
                z += 2 - code[0]
        if games_mode:
            g = b.games
            n_games += len(g["game"])
            game_wins += np.bincount((g["winner"].astype(np.int64) + r) % E, minlength=E)
            game_hist = _add(game_hist, np.bincount(g["hands"]))
        if hands_dir is not None:
            rows.append(_hand_rows(h, r))
    if hands_dir is not None:
        _write_hands(rows, Path(hands_dir) / chunk_name(k))
    rowdot = lambda a, b: np.einsum("ij,ij->i", a, b)  # noqa: E731  (row-wise sums of products, int64)
    agg = {
        "clusters": np.array([count]), "games": np.array([n_games]), "hands": np.array([n_hands]),
        "lucky_hands": np.array([lucky]), "x2": np.array([int(x @ x)]), "xy": y @ x, "y2": y @ y.T,
        "points": pos_points.sum(axis=1), "wdl": pos_wdl.sum(axis=1), "pos_points": pos_points, "pos_wdl": pos_wdl,
        "pos_x1": pos_x.sum(axis=1).reshape(E, Q) if games_mode else hand_x1,
        "pos_x2": rowdot(pos_x, pos_x).reshape(E, Q) if games_mode else hand_x1,
        "pos_y2": rowdot(pos_y, pos_y).reshape(E, Q) if games_mode else hand_y2,
        "pos_xy": rowdot(pos_x, pos_y).reshape(E, Q) if games_mode else pos_points[:, :, TOTAL].copy(),
        "game_wins": game_wins, "game_hands_hist": game_hist, "points_hist": _stack(hists),
    }
    if E == 2:
        agg["score_hist"] = np.bincount(z, minlength=2 * R + 1)
    return {k2: np.asarray(v, dtype=np.int64) for k2, v in agg.items()}


def _outcomes(tot: list[np.ndarray]) -> list[np.ndarray]:
    """Per entrant, per hand: 0 won (strictly the top total), 1 drew (shared top), 2 lost."""
    if len(tot) == 2:  # the common case, without the general path's temporaries
        a, b = tot
        tie = (a == b).astype(np.int64)
        return [2 * (a < b) + tie, 2 * (b < a) + tie]
    top = np.maximum.reduce(tot)
    n_top = sum((t == top).astype(np.int64) for t in tot)
    return [np.where(t == top, np.where(n_top == 1, 0, 1), 2) for t in tot]


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum of two arrays of possibly different shapes, zero-padded (histograms grow as needed)."""
    shape = tuple(max(i, j) for i, j in zip(a.shape, b.shape))
    out = np.zeros(shape, np.int64)
    out[tuple(slice(0, s) for s in a.shape)] += a
    out[tuple(slice(0, s) for s in b.shape)] += b
    return out


def _stack(hists: list[np.ndarray]) -> np.ndarray:
    width = max(len(h) for h in hists)
    return np.stack([np.pad(h, (0, width - len(h))) for h in hists])


def merge(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Exact merge of two aggregates (integer addition, histograms padded)."""
    if a is None:
        return {k: v.copy() for k, v in b.items()}
    return {k: _add(a[k], b[k]) if k in a else b[k].copy() for k in b} | {k: a[k] for k in a if k not in b}


def _hand_rows(h: dict[str, np.ndarray], r: int):
    cols: dict[str, np.ndarray] = {}
    for k, v in h.items():
        if v.ndim == 1:
            cols[k] = v
        else:
            for j in range(v.shape[1]):
                cols[f"{k}_{j}"] = v[:, j]
    cols["rotation"] = np.full(len(h["game"]), r, np.int8)
    return cols


def _write_hands(rows: list[dict[str, np.ndarray]], path: Path) -> None:
    import polars as pl

    df = pl.concat([pl.DataFrame(r) for r in rows]) if rows else pl.DataFrame()
    _atomic(path, lambda tmp: df.write_parquet(tmp))


def chunk_name(k: int) -> str:
    return f"chunk-{k:06d}.parquet"


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    # pid and thread in the name: a chunk redone elsewhere (a Dask retry, a worker thread) never shares a temp file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def agg_to_frame(k: int, spec: RunSpec, agg: dict[str, np.ndarray]):
    import polars as pl

    first, count = spec.chunk_range(k)
    stat, i0, i1, i2, value = [], [], [], [], []
    for name, arr in agg.items():
        a = np.asarray(arr).reshape(arr.shape if arr.ndim else (1,))
        idx = np.indices(a.shape).reshape(a.ndim, -1)
        n = a.size
        stat += [name] * n
        pads = [idx[d] if d < a.ndim else np.zeros(n, np.int64) for d in range(3)]
        i0.append(pads[0]), i1.append(pads[1]), i2.append(pads[2])
        value.append(a.reshape(-1))
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)  # noqa: E731
    n = len(stat)
    return pl.DataFrame({
        "chunk": np.full(n, k, np.int64), "first_deal": np.full(n, first, np.int64), "deals": np.full(n, count, np.int64),
        "stat": stat, "i0": cat(i0).astype(np.int32), "i1": cat(i1).astype(np.int32), "i2": cat(i2).astype(np.int32),
        "value": cat(value).astype(np.int64)})


def frame_to_agg(df) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, dims in STAT_DIMS.items():
        part = df.filter(df["stat"] == name)
        if part.height == 0:
            if name != "score_hist":
                out[name] = np.zeros((0,) * dims, np.int64)
            continue
        idx = [part[f"i{d}"].to_numpy().astype(np.int64) for d in range(dims)]
        shape = tuple(int(i.max()) + 1 for i in idx)
        a = np.zeros(shape, np.int64)
        a[tuple(idx)] = part["value"].to_numpy()
        out[name] = a
    return out


def write_chunk(out: Path, spec: RunSpec, k: int, agg: dict[str, np.ndarray]) -> None:
    df = agg_to_frame(k, spec, agg)
    _atomic(out / "chunks" / chunk_name(k), lambda tmp: df.write_parquet(tmp))


def read_chunk(path: Path) -> dict[str, np.ndarray]:
    import polars as pl

    return frame_to_agg(pl.read_parquet(path))


# ---------------------------------------------------------------- the summary

def position_names(spec: RunSpec) -> list[str]:
    if spec.rules.teams:
        return ["dealer side", "mano side"]
    names = ["dealer", "mano"]
    return names + [f"dealer+{q}" for q in range(2, spec.entrants)]


def summarize(spec: RunSpec, agg: dict[str, np.ndarray], chunks_used: int, status: str,
              sprt_state: dict | None = None) -> dict:
    """The run's report (``--json`` and summary.json) from merged aggregates only."""
    E = spec.entrants
    n_cl = int(agg["clusters"][0])
    hands = int(agg["hands"][0])
    games = int(agg["games"][0])
    sum_x, x2 = hands, int(agg["x2"][0])
    labels = spec.labels()
    pos_names = position_names(spec)
    games_mode = spec.mode == "games"

    def per_hand(vec) -> dict:
        return {c: (int(v) / hands if hands else None) for c, v in zip(SIDE_COLUMNS, vec)}

    def wdl_dict(w, n) -> dict:
        return {"win": w[0] / n if n else None, "draw": w[1] / n if n else None, "loss": w[2] / n if n else None,
                "counts": [int(v) for v in w]}

    def mean_ci(sy, sx, sy2, sxy, sx2) -> dict:
        m, se = stats.ratio_mean(sy, sx, sy2, sxy, sx2, n_cl)
        ci = stats.normal_ci(m, se)
        return {"mean": stats.finite(m), "se": stats.finite(se), "ci95": [stats.finite(ci[0]), stats.finite(ci[1])]}

    entrants = []
    for e in range(E):
        pts = agg["points"][e]
        d = {"entrant": e, "strategy": spec.strategies[e], "label": labels[e],
             "seats_in_rotation_0": [s for s in range(spec.rules.players) if spec.rules.side_of(s) == e]}
        if games_mode:
            w = int(agg["game_wins"][e])
            lo, hi = stats.wilson(w, games)
            d["games"] = {"won": w, "played": games, "win_rate": w / games if games else None,
                          "ci95": [stats.finite(lo), stats.finite(hi)]}
        d["points_per_hand"] = mean_ci(pts[TOTAL], sum_x, agg["y2"][e, e], agg["xy"][e], x2)
        d["categories"] = {c: v for c, v in per_hand(pts).items() if c in POINT_COLUMNS or c == "lucky_escobas"}
        d["taken_per_hand"] = {c: v for c, v in per_hand(pts).items() if c.endswith("_taken")}
        d["hands"] = wdl_dict(agg["wdl"][e], hands)
        by_pos = []
        for q in range(E):
            nh = int(agg["pos_x1"][e, q])
            pp = agg["pos_points"][e, q]
            by_pos.append({
                "position": q, "name": pos_names[q], "hands": nh,
                "points_per_hand": mean_ci(pp[TOTAL], nh, agg["pos_y2"][e, q], agg["pos_xy"][e, q], agg["pos_x2"][e, q]),
                "categories": {c: (int(v) / nh if nh else None) for c, v in zip(SIDE_COLUMNS, pp)
                               if c in POINT_COLUMNS or c == "lucky_escobas"},
                "hands_result": wdl_dict(agg["pos_wdl"][e, q], nh)})
        d["by_position"] = by_pos
        hist = agg["points_hist"][e] if agg["points_hist"].size else np.zeros(0, np.int64)
        d["points_histogram"] = [int(v) for v in hist]
        entrants.append(d)

    diffs = []
    for a in range(E):
        for b in range(a + 1, E):
            y2 = agg["y2"]
            sy = int(agg["points"][a, TOTAL]) - int(agg["points"][b, TOTAL])
            sd2 = int(y2[a, a]) - 2 * int(y2[a, b]) + int(y2[b, b])
            sxd = int(agg["xy"][a]) - int(agg["xy"][b])
            diffs.append({"a": a, "b": b, "label": f"{labels[a]} - {labels[b]}",
                          "points_per_hand": mean_ci(sy, sum_x, sd2, sxd, x2)})

    hist = agg["game_hands_hist"]
    summary = {
        "tool": "escoba-sim", "version": __version__, "engine": engine_for(spec.strategies),
        "rules": spec.rules.canonical(), "rules_digest": spec.rules.digest(),
        "players": spec.rules.players, "teams": spec.rules.teams,
        "seed": spec.seed, "mode": spec.mode, "pairing": spec.pairing, "rotations": spec.rotations,
        "requested": spec.n, "planned": spec.played, "deals": n_cl, "chunk_size": spec.chunk_size,
        "chunks": {"planned": spec.n_chunks, "used": chunks_used},
        "status": status, "games": games, "hands": hands,
        "entrants": entrants,
        "differences": diffs,
        "elo": stats.elo_summary([int(v) for v in agg["score_hist"]]) | {
            "unit": "games" if games_mode else "hands (draw = 1/2)",
            "score_histogram": [int(v) for v in agg["score_hist"]]} if "score_hist" in agg else None,
        "hands_per_game": ({"mean": hands / games if games else None,
                            "histogram": {str(i): int(v) for i, v in enumerate(hist) if v}} if games_mode else None),
        "lucky_deal_rate": int(agg["lucky_hands"][0]) / hands if hands else None,
        "sprt": sprt_state,
    }
    return summary


# ---------------------------------------------------------------- the output folder

def manifest_path(out: Path) -> Path:
    return out / "manifest.json"


def _write_json(path: Path, data: dict) -> None:
    text = json.dumps(data, indent=2) + "\n"
    _atomic(path, lambda tmp: tmp.write_text(text))


def read_manifest(out: Path) -> dict:
    p = manifest_path(out)
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise RunError(f"{out}: no run here (manifest.json is missing)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise RunError(f"{p}: cannot read the manifest ({e})") from None


def read_run_chunks(run_dir: Path, spec: RunSpec) -> list[dict]:
    """Every chunk's aggregates of a finished run, in chunk order."""
    done = finished_chunks(run_dir, spec)
    missing = [k for k in range(spec.n_chunks) if k not in done]
    if missing:
        raise RunError(f"{run_dir}: chunks {missing[:5]} are missing; finish it with escoba-sim resume")
    return [read_chunk(done[k]) for k in range(spec.n_chunks)]


def run_series(out: Path, manifest: dict, keys: tuple[str, ...], specs: list[RunSpec], what: str, *,
               jobs: int = 1, executor=None, argv: list[str] | None = None,
               on_run: Callable[[int], None] | None = None) -> list[list[dict]]:
    """Several runs in one folder (a comparison, a tournament): ``out/manifest.json`` plus
    ``out/runs/NN``, each an ordinary run folder.

    A folder holding another series (its manifest differs on ``keys``) or anything else is
    refused; finished runs are kept and unfinished ones resumed, so an interrupted series
    continues where it stopped. Returns every run's chunk aggregates in chunk order.
    """
    mpath = out / "manifest.json"
    if mpath.exists():
        old = json.loads(mpath.read_text())
        if {k: old.get(k) for k in keys} != {k: manifest[k] for k in keys}:
            raise RunError(f"{out} already holds a different {what}; choose another --out")
    elif out.exists() and any(out.iterdir()):
        raise RunError(f"--out {out}: the folder is not empty and holds no {what}")
    out.mkdir(parents=True, exist_ok=True)
    _write_json(mpath, manifest)
    aggregates = []
    for k, spec in enumerate(specs):
        run_dir = out / "runs" / f"{k:02d}"
        resume = (run_dir / "manifest.json").exists()
        if on_run:
            on_run(k)
        if not resume or read_manifest(run_dir).get("status") != "complete":
            run(spec, run_dir, jobs=jobs, executor=executor, resume=resume, argv=argv)
        aggregates.append(read_run_chunks(run_dir, spec))
    return aggregates


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def prepare_out(out: Path, spec: RunSpec, argv: list[str] | None = None) -> dict:
    """Create the output folder for a new run, refusing one that holds any run already."""
    if manifest_path(out).exists():
        old = read_manifest(out)
        if old.get("spec") == spec.to_json():
            raise RunError(f"{out} already holds this run (status {old.get('status')}); "
                           f"continue it with: escoba-sim resume {out}")
        diff = [k for k, v in spec.to_json().items() if old.get("spec", {}).get(k) != v]
        raise RunError(f"{out} already holds a different run (differs in {', '.join(diff) or 'format'}); "
                       f"choose another --out")
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise RunError(f"--out {out}: the folder is not empty and holds no escoba-sim run")
    try:
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        if spec.save_hands:
            (out / "hands").mkdir(exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise RunError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    manifest = {"format": FORMAT, "tool": "escoba-sim", "version": __version__, "engine": engine_for(spec.strategies),
                "deal_stream": DEAL_STREAM_VERSION, "rules": spec.rules.canonical(), "rules_digest": spec.rules.digest(),
                "rules_fields": spec.rules.as_dict(), "seed": spec.seed, "spec": spec.to_json(),
                "chunk_size": spec.chunk_size, "n_chunks": spec.n_chunks, "argv": argv or [],
                "status": "running", "started": _now(), "ended": None}
    _write_json(manifest_path(out), manifest)
    return manifest


def check_deal_stream(out: Path, manifest: dict) -> None:
    """Refuse to resume a run dealt with another deal stream (a manifest without one predates version 2)."""
    made = manifest.get("deal_stream", 1)
    if made != DEAL_STREAM_VERSION:
        raise RunError(f"{out} was dealt with deal stream {made} (escoba-sim {manifest.get('version', '?')}); this "
                       f"escoba-sim deals with stream {DEAL_STREAM_VERSION}, so the rest would be other hands: "
                       f"start the run again in a new folder (docs/engine.md, Shuffle)")


def finished_chunks(out: Path, spec: RunSpec) -> dict[int, Path]:
    done = {}
    for p in (out / "chunks").glob("chunk-*.parquet"):
        try:
            k = int(p.stem.split("-")[1])
        except (IndexError, ValueError):
            continue
        if 0 <= k < spec.n_chunks:
            done[k] = p
    return done


# ---------------------------------------------------------------- running

@dataclass
class Progress:
    """What a progress callback is told after each finished chunk."""

    chunk: int  # -1 for the first report of a resumed run (the saved chunks)
    chunks_done: int
    chunks_total: int
    units_done: int  # games (or hands) done, this session and loaded
    units_total: int
    hands_computed: int  # hands played in this session
    seconds: float


@dataclass
class RunResult:
    spec: RunSpec
    summary: dict
    out: Path | None = None
    aggregates: dict[str, np.ndarray] = field(default_factory=dict)


def _ignore_sigint() -> None:
    # only the parent reacts to Ctrl-C; it then cancels the workers' pending chunks
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def make_executor(jobs: int) -> cf.Executor:
    import multiprocessing as mp

    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_ignore_sigint)


def run(spec: RunSpec, out: str | Path | None = None, *, jobs: int = 1, executor: cf.Executor | None = None,
        on_chunk: Callable[[Progress], None] | None = None, resume: bool = False,
        argv: list[str] | None = None, only_chunks: Iterable[int] | None = None) -> RunResult:
    """Play (or finish, with ``resume``) a run and return its summary.

    ``executor``: any ``concurrent.futures.Executor``-like object (``submit``
    returning futures that ``concurrent.futures.wait`` understands, such as a
    Dask client's ``get_executor()``); it is used as given and not shut down.
    Without one, ``jobs == 1`` plays chunks in this process and ``jobs > 1``
    uses a process pool. ``only_chunks`` restricts the session to some chunks
    (tests use it to simulate an interrupted run). Ctrl-C raises
    ``RunInterrupted`` after saving what finished.
    """
    out = Path(out) if out is not None else None
    external = executor is not None
    loaded: dict[int, dict[str, np.ndarray]] = {}
    if out is not None:
        if resume:
            manifest = read_manifest(out)
            if manifest.get("spec") != spec.to_json():
                raise RunError(f"{out} holds a different run")
            check_deal_stream(out, manifest)
        else:
            manifest = prepare_out(out, spec, argv)
        for d in ("chunks", "hands"):  # temporaries of a killed process are never part of a run
            for tmp in (out / d).glob(".chunk-*.tmp") if (out / d).is_dir() else ():
                tmp.unlink(missing_ok=True)
        for k, p in sorted(finished_chunks(out, spec).items()):
            try:
                loaded[k] = read_chunk(p)
            except Exception as e:  # a damaged file is replayed rather than trusted
                print(f"warning: {p} is unreadable ({e}); playing chunk {k} again", file=sys.stderr)
        if spec.save_hands:
            (out / "hands").mkdir(exist_ok=True)
        manifest["status"] = "running"
        _write_json(manifest_path(out), manifest)
    else:
        manifest = {}
    hands_dir = str(out / "hands") if (out is not None and spec.save_hands) else None
    todo = [k for k in range(spec.n_chunks) if k not in loaded]
    if only_chunks is not None:
        keep = set(only_chunks)
        todo = [k for k in todo if k in keep]

    if out is not None:
        import polars  # noqa: F401  (start-up cost, like the process's own: kept out of hands/s)
    state = _Fold(spec, loaded)
    t0 = time.perf_counter()
    computed_hands = 0
    units_done = sum(spec.chunk_range(k)[1] for k in state.done) * spec.rotations  # a running count: O(1) per chunk
    if on_chunk is not None and state.done:  # a resumed run's bar starts where the saved chunks left it
        on_chunk(Progress(-1, len(state.done), spec.n_chunks, units_done, spec.played, 0, 0.0))

    def finished(k: int, agg: dict[str, np.ndarray]) -> None:
        nonlocal computed_hands, units_done
        if out is not None:
            write_chunk(out, spec, k, agg)
        computed_hands += int(agg["hands"][0])
        units_done += spec.chunk_range(k)[1] * spec.rotations
        state.add(k, agg)
        if on_chunk is not None:
            on_chunk(Progress(k, len(state.done), spec.n_chunks, units_done, spec.played, computed_hands,
                              time.perf_counter() - t0))

    own = None
    try:
        if state.stopped is None and todo:
            if executor is None and jobs <= 1:
                for k in todo:
                    if state.stopped is not None:
                        break
                    finished(k, play_chunk(spec, k, hands_dir))
                    _check_stop()
            else:
                if executor is None:
                    own = executor = make_executor(jobs)
                _run_pool(executor, spec, todo, hands_dir, max(2, 2 * jobs), state, finished)
    except KeyboardInterrupt:
        if own is not None:
            # workers ignore SIGINT; stop them now rather than wait for their chunks (which
            # are lost anyway): files are only ever renamed into place, so nothing is half-written
            for proc in list(getattr(own, "_processes", {}).values()):
                proc.terminate()
            own.shutdown(wait=False, cancel_futures=True)
            own = None
        if out is not None:
            manifest.update(status="interrupted", ended=_now())
            _write_json(manifest_path(out), manifest)
        raise RunInterrupted(out, len(state.done), spec.n_chunks) from None
    except BaseException:
        # a chunk that failed (or a lost worker): the finished chunks stay, and resume retries the rest
        if out is not None:
            manifest.update(status="interrupted", ended=_now())
            _write_json(manifest_path(out), manifest)
        raise
    finally:
        if own is not None:
            own.shutdown(wait=True, cancel_futures=True)
    seconds = time.perf_counter() - t0

    if state.stopped is not None:
        status = "stopped-by-sprt"
        used = state.stopped + 1
        if out is not None:  # chunks past the decision were played in parallel but are not part of the run
            for k in range(state.stopped + 1, spec.n_chunks):
                for d in ("chunks", "hands"):
                    (out / d / chunk_name(k)).unlink(missing_ok=True)
    elif len(state.done) == spec.n_chunks:
        status, used = "complete", spec.n_chunks
    else:
        status, used = "incomplete", state.prefix
    agg = state.merged_upto(used)
    summary = summarize(spec, agg, used, status, state.sprt_json())
    summary["performance"] = {"seconds": seconds, "hands_computed": computed_hands,
                              "hands_per_second": computed_hands / seconds if seconds > 0 and computed_hands else None,
                              "jobs": None if external else jobs}
    if out is not None:
        _write_json(out / "summary.json", summary)
        if status != "incomplete":
            manifest.update(status=status, ended=_now())
        else:
            manifest.update(status="interrupted", ended=_now())
        _write_json(manifest_path(out), manifest)
    return RunResult(spec, summary, out, agg)


def _run_pool(executor, spec: RunSpec, todo: list[int], hands_dir: str | None, window: int, state: _Fold,
              finished: Callable[[int, dict], None]) -> None:
    """Submit chunks lazily, keeping at most ``window`` played-but-unmerged chunks (flat memory)."""
    pending: dict[cf.Future, int] = {}
    it = iter(todo)
    exhausted = False
    try:
        while True:
            while not exhausted and state.stopped is None and len(pending) + state.held < window:
                k = next(it, None)
                if k is None:
                    exhausted = True
                    break
                pending[executor.submit(play_chunk, spec, k, hands_dir)] = k
            if not pending:
                return
            done, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
            for f in sorted(done, key=pending.get):
                k = pending.pop(f)
                finished(k, f.result())
            _check_stop()
            if state.stopped is not None:
                for f in pending:
                    f.cancel()
                return
    finally:
        for f in pending:
            f.cancel()


class _Fold:
    """Finished chunks, merged in chunk-index order as the contiguous prefix grows; the GSPRT decides there."""

    def __init__(self, spec: RunSpec, loaded: dict[int, dict[str, np.ndarray]]):
        self.spec = spec
        self.aggs: dict[int, dict[str, np.ndarray]] = {}
        self.done: set[int] = set()
        self.prefix = 0  # chunks 0 .. prefix-1 are merged
        self.merged: dict[str, np.ndarray] | None = None
        self.stopped: int | None = None
        self.llr = 0.0
        self.history: list[float] = []
        for k in sorted(loaded):
            self.add(k, loaded[k])

    @property
    def held(self) -> int:
        """Chunks finished out of order, waiting for the prefix to reach them."""
        return len(self.aggs)

    def add(self, k: int, agg: dict[str, np.ndarray]) -> None:
        self.done.add(k)
        if self.stopped is not None:
            return
        self.aggs[k] = agg
        while self.prefix in self.aggs and self.stopped is None:
            self.merged = merge(self.merged, self.aggs.pop(self.prefix))
            self.prefix += 1
            sp = self.spec.sprt
            if sp is not None:
                self.llr = stats.sprt_llr([int(v) for v in self.merged["score_hist"]], sp.elo0, sp.elo1)
                self.history.append(self.llr)
                if stats.sprt_decision(self.llr, sp.alpha, sp.beta) is not None:
                    self.stopped = self.prefix - 1
                    self.aggs.clear()

    def merged_upto(self, used: int) -> dict[str, np.ndarray]:
        assert used == self.prefix, (used, self.prefix)
        if self.merged is None:
            return empty_aggregates(self.spec)
        return self.merged

    def sprt_json(self) -> dict | None:
        sp = self.spec.sprt
        if sp is None:
            return None
        lower, upper = stats.sprt_bounds(sp.alpha, sp.beta)
        decision = stats.sprt_decision(self.llr, sp.alpha, sp.beta) if self.prefix else None
        return {"elo0": sp.elo0, "elo1": sp.elo1, "alpha": sp.alpha, "beta": sp.beta,
                "llr": stats.finite(self.llr) if math.isfinite(self.llr) else ("inf" if self.llr > 0 else "-inf"),
                "lower": lower, "upper": upper,
                "decision": {"H1": "accept H1 (elo >= elo1)", "H0": "accept H0 (elo <= elo0)"}.get(decision or "", None),
                "chunks_evaluated": self.prefix, "llr_by_chunk": [stats.finite(v) for v in self.history]}


def empty_aggregates(spec: RunSpec) -> dict[str, np.ndarray]:
    E, K = spec.entrants, len(SIDE_COLUMNS)
    z = lambda *s: np.zeros(s, np.int64)  # noqa: E731
    agg = {"clusters": z(1), "games": z(1), "hands": z(1), "lucky_hands": z(1), "x2": z(1), "xy": z(E),
           "y2": z(E, E), "points": z(E, K), "wdl": z(E, 3), "pos_points": z(E, E, K), "pos_wdl": z(E, E, 3),
           "pos_x1": z(E, E), "pos_x2": z(E, E), "pos_y2": z(E, E), "pos_xy": z(E, E), "game_wins": z(E),
           "game_hands_hist": z(0), "points_hist": z(E, 0)}
    if E == 2:
        agg["score_hist"] = z(2 * spec.rotations + 1)
    return agg


def resume(out: str | Path, **kw) -> RunResult:
    """Finish the run kept in ``out``; the result equals an uninterrupted run's."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest.get("format") != FORMAT:
        raise RunError(f"{out}: output format {manifest.get('format')} is not {FORMAT}; cannot resume it")
    try:
        spec = RunSpec.from_json(manifest["spec"])
    except (KeyError, TypeError, ValueError) as e:
        raise RunError(f"{out}: the manifest does not describe a run ({e})") from None
    return run(spec, out, resume=True, **kw)


# ---------------------------------------------------------------- terminal output

class ProgressBar:
    """A rich progress bar on stderr that advances as chunks finish (hands/s, ETA); silent when disabled."""

    def __init__(self, spec: RunSpec, enabled: bool):
        self.spec, self.enabled, self._p = spec, enabled, None

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                               console=Console(stderr=True), transient=False)
            self._p.__enter__()
            self._task = self._p.add_task(self.spec.mode, total=self.spec.played, rate="")
        return self

    def __call__(self, p: Progress) -> None:
        if self._p is not None:
            rate = p.hands_computed / p.seconds if p.seconds > 0 else 0.0
            self._p.update(self._task, completed=p.units_done, rate=f"{rate:,.0f} hands/s")

    def __exit__(self, *exc) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)


def _fmt(x, digits: int = 3, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.{max(digits - 2, 1)}f}%" if pct else f"{x:.{digits}f}"


def _ci(d: dict, digits: int = 3, pct: bool = False) -> str:
    lo, hi = d
    return f"[{_fmt(lo, digits, pct)}, {_fmt(hi, digits, pct)}]"


def print_report(summary: dict, console=None) -> None:
    """The summary as rich tables on stdout: one row per measure, one column per strategy (fits 80 columns)."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    s = summary
    unit = "games" if s["mode"] == "games" else "hands"
    ents = s["entrants"]
    con.print(f"[bold]{' vs '.join(e['label'] for e in ents)}[/bold]  rules {s['rules']} "
              f"({s['players']} players{', teams' if s['teams'] else ''})  seed {s['seed']}")
    con.print(f"{s[unit]:,} {unit} ({s['hands']:,} hands, {s['deals']:,} deals, {s['pairing']} pairing with "
              f"{s['rotations']} rotations) of {s['planned']:,} planned; {s['status']}; engine {s['engine']}")
    t = Table(title="Per strategy (95% intervals)", title_justify="left")
    t.add_column("", no_wrap=True)
    for e in ents:
        t.add_column(e["label"], justify="right")

    def row(name, f):
        t.add_row(name, *[f(e) for e in ents])

    wdl = lambda h: f"{_fmt(h['win'], 3, True)}/{_fmt(h['draw'], 3, True)}/{_fmt(h['loss'], 3, True)}"  # noqa: E731
    if s["mode"] == "games":
        row("games won", lambda e: _fmt(e["games"]["win_rate"], 3, True))
        row("  interval", lambda e: _ci(e["games"]["ci95"], 3, True))
    row("points per hand", lambda e: _fmt(e["points_per_hand"]["mean"]))
    row("  interval", lambda e: _ci(e["points_per_hand"]["ci95"]))
    for c, label in (("escobas", "escobas"), ("siete_oros", "siete de oros"), ("sevens", "sevens"),
                     ("oros", "oros"), ("cards", "cards"), ("bonus", "bonuses")):
        row(f"  {label}", lambda e, c=c: _fmt(e["categories"][c]))
    row("hands W/D/L", lambda e: wdl(e["hands"]))
    for q, pos in enumerate(ents[0]["by_position"]):
        row(f"as {pos['name']}", lambda e, q=q: _fmt(e["by_position"][q]["points_per_hand"]["mean"]))
        row("  interval", lambda e, q=q: _ci(e["by_position"][q]["points_per_hand"]["ci95"]))
        row("  W/D/L", lambda e, q=q: wdl(e["by_position"][q]["hands_result"]))
    con.print(t)
    t = Table(title="Comparison", title_justify="left")
    t.add_column("measure", no_wrap=True)
    t.add_column("value [95%]", justify="right")
    for d in s["differences"]:
        p = d["points_per_hand"]
        t.add_row(f"points/hand {d['label']}", f"{_fmt(p['mean'], 4)} {_ci(p['ci95'], 4)}")
    el = s.get("elo")
    if el and el["score"] is not None:
        t.add_row(f"score of {ents[0]['label']} ({el['unit']})", f"{_fmt(el['score'], 4)} {_ci(el['score_ci95'], 4)}")
        t.add_row("Elo difference", f"{_fmt(el['elo'], 1)} {_ci(el['elo_ci95'], 1)}")
        t.add_row("likelihood of superiority", _fmt(el["los"], 3, True))
    if s.get("hands_per_game"):
        t.add_row("hands per game", _fmt(s["hands_per_game"]["mean"], 3))
    t.add_row("lucky-deal rate", _fmt(s["lucky_deal_rate"], 4, True))
    sp = s.get("sprt")
    if sp:
        llr = sp["llr"] if isinstance(sp["llr"], str) else _fmt(sp["llr"], 3)
        t.add_row(f"SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g}", f"LLR {llr} in [{sp['lower']:.3f}, {sp['upper']:.3f}]")
        t.add_row(f"  alpha {sp['alpha']:g}, beta {sp['beta']:g}", sp["decision"] or "undecided")
    perf = s.get("performance") or {}
    if perf.get("hands_per_second"):
        t.add_row("hands/s (this session)", f"{perf['hands_per_second']:,.0f}")
    con.print(t)
