"""Round-robin tournaments: every pair of strategies on the same duplicate deals, a crosstable, ratings.

Each pair (i, j), i before j in the given order, is one ``runner.run`` with
duplicate pairing, the tournament's seed and one chunk size, so every pair
plays the very same deals and chunk ``k`` holds the same deal indices in every
pair. The crosstable gives the row strategy's game score (wins / games) and its
points per hand minus the opponent's, each with a 95 % interval over chunks
(clusters). Ratings are a Bradley-Terry fit on game wins (maximum likelihood by
the MM algorithm, Hunter 2004) on the Elo scale (400 log10 strength, mean 0);
their 95 % intervals come from a percentile bootstrap over chunk indices
(resampled jointly for all pairs, since a chunk is the same deals in every
pair), drawn from a SplitMix64 seeded with ``BOOTSTRAP_SEED`` so they are
reproducible.

Output folder: ``DIR/manifest.json`` (kind "tournament"), ``DIR/runs/NN/`` (one
runner folder per pair), ``DIR/tables/*.parquet`` (pairs, crosstable, ratings,
estimates, categories, points_hist, hands_hist, convergence) and ``DIR/summary.json``.
"""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np

from . import __version__, runner, stats
from .chunk import add_padded, merge
from .runfolder import write_json
from .runspec import RunError, make_spec
from .batch import POINT_COLUMNS, SIDE_COLUMNS, engine_for
from .compare import _interval, _json_rows, chunk_size_for, write_tables
from .rng import SplitMix64
from .rules import parse_rules
from .strategies import StrategyError, check_strategy, parse_strategy

KIND = "tournament"
BOOTSTRAP = 200
BOOTSTRAP_SEED = 20261129
T = SIDE_COLUMNS.index("total")


class TournamentError(ValueError):
    """Arguments that cannot make a tournament."""


def bradley_terry(wins: np.ndarray, iters: int = 10_000, tol: float = 1e-12) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings (mean 0) from ``wins[i, j]`` = games i won against j.

    MM updates ``p_i = W_i / sum_j n_ij / (p_i + p_j)``. A strategy that never
    wins (or never loses) has no finite MLE: a half win is added to every
    played pairing in both directions so the fit always exists (a mild prior).
    """
    w = np.asarray(wins, dtype=float)
    n = w + w.T
    played = n > 0
    w = w + 0.5 * played
    n = w + w.T
    p = np.ones(len(w))
    for _ in range(iters):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = w.sum(axis=1) / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = 400 * np.log10(p)
    return r - r.mean()


def _pair_wins(aggs_by_pair, pairs, m, chunk_idx) -> np.ndarray:
    w = np.zeros((m, m))
    for (i, j), aggs in zip(pairs, aggs_by_pair):
        for k in chunk_idx:
            a = aggs[k]
            w[i, j] += a["game_wins"][0]
            w[j, i] += a["game_wins"][1]
    return w


def analyse(labels: list[str], pairs: list[tuple[int, int]], aggs_by_pair: list[list[dict]]):
    import polars as pl

    m = len(labels)
    pair_rows, cross, conv = [], [], []
    for (i, j), aggs in zip(pairs, aggs_by_pair):
        ys = [int(a["game_wins"][0]) for a in aggs]
        xs = [int(a["games"][0]) for a in aggs]
        dy = [int(a["points"][0, T]) - int(a["points"][1, T]) for a in aggs]
        hx = [int(a["hands"][0]) for a in aggs]
        for (r, c, sgn) in ((i, j, 1), (j, i, -1)):
            wy = ys if sgn == 1 else [x - y for x, y in zip(xs, ys)]
            s, se = stats.ratio_mean(sum(wy), sum(xs), sum(y * y for y in wy), sum(y * x for y, x in zip(wy, xs)),
                                     sum(x * x for x in xs), len(xs))
            py = [sgn * v for v in dy]
            d, dse = stats.ratio_mean(sum(py), sum(hx), sum(v * v for v in py), sum(v * x for v, x in zip(py, hx)),
                                      sum(x * x for x in hx), len(hx))
            pair_rows.append((labels[r], labels[c], sum(xs), s, *_interval(s, se), d, *_interval(d, dse)))
            cross.append((labels[r], labels[c], s))
        conv += [(f"{labels[i]} vs {labels[j]}", k, float(y), float(x)) for k, (y, x) in enumerate(zip(ys, xs))]
    f = pl.Float64
    pairs_df = pl.DataFrame(pair_rows, orient="row", schema={
        "row": pl.String, "col": pl.String, "games": pl.Int64, "score": f, "score_lo": f, "score_hi": f,
        "points_diff": f, "points_diff_lo": f, "points_diff_hi": f})
    crosstable = pl.DataFrame(cross, orient="row", schema={"row": pl.String, "col": pl.String, "value": f})

    n_chunks = len(aggs_by_pair[0])
    rating = bradley_terry(_pair_wins(aggs_by_pair, pairs, m, range(n_chunks)))
    rng = SplitMix64(BOOTSTRAP_SEED)
    boots = []
    for _ in range(BOOTSTRAP):
        idx = [rng.below(n_chunks) for _ in range(n_chunks)]
        boots.append(bradley_terry(_pair_wins(aggs_by_pair, pairs, m, idx)))
    boots = np.array(boots)
    lo, hi = np.percentile(boots, 2.5, axis=0), np.percentile(boots, 97.5, axis=0)
    ratings = pl.DataFrame({"label": labels, "metric": ["rating"] * m, "estimate": rating.tolist(),
                            "lo": lo.tolist(), "hi": hi.tolist()})

    # points per hand by category for each strategy, over all its games
    est_rows, ph = [], []
    pts = {s: np.zeros(len(SIDE_COLUMNS), np.int64) for s in range(m)}
    hands = {s: 0 for s in range(m)}
    hh = np.zeros(0, np.int64)
    for (i, j), aggs in zip(pairs, aggs_by_pair):
        merged = None
        for a in aggs:
            merged = merge(merged, a)
        for e, s in enumerate((i, j)):
            pts[s] += merged["points"][e]
            hands[s] += int(merged["hands"][0])
            if merged["points_hist"].size:
                ph += [(labels[s], b, int(c)) for b, c in enumerate(merged["points_hist"][e]) if c]
        hh = add_padded(hh, merged["game_hands_hist"])
    cat_rows = [(labels[s], c, pts[s][SIDE_COLUMNS.index(c)] / hands[s]) for s in range(m) for c in POINT_COLUMNS
                if hands[s]]
    categories = pl.DataFrame(cat_rows, orient="row", schema={"label": pl.String, "category": pl.String, "points": f})
    count_schema = {"label": pl.String, "value": pl.Int64, "count": pl.Int64}
    points_hist = (pl.DataFrame(ph, orient="row", schema=count_schema)
                     .group_by("label", "value", maintain_order=True).agg(pl.col("count").sum()))
    hands_hist = pl.DataFrame([("all pairs", b, int(c)) for b, c in enumerate(hh) if c], orient="row",
                              schema=count_schema)
    wins = pairs_df.group_by("row", maintain_order=True).agg(
        (pl.col("score") * pl.col("games")).sum().alias("w"), pl.col("games").sum().alias("g"))
    for r in wins.iter_rows(named=True):
        lo_, hi_ = stats.wilson(round(r["w"]), r["g"])
        est_rows.append((r["row"], "win_rate", r["w"] / r["g"], lo_, hi_))
    estimates = pl.concat([ratings, pl.DataFrame(est_rows, orient="row", schema=ratings.schema)])
    return {"pairs": pairs_df, "crosstable": crosstable, "ratings": ratings, "estimates": estimates,
            "categories": categories, "points_hist": points_hist, "hands_hist": hands_hist,
            "convergence": pl.DataFrame(conv, orient="row", schema={"label": pl.String, "chunk": pl.Int64,
                                                                   "numer": f, "denom": f})}


def tournament(strategies: list[str], n: int, out: str | Path, *, rules=None, seed: int | None = None,
               jobs: int = 1, argv: list[str] | None = None, on_run=None,
               executor=None) -> dict:
    """Play every pair on the same duplicate deals (via the runner), then write the tables and summary.

    ``executor`` (e.g. ``cluster.connect(...)``) is handed to ``runner.run`` for every run.
    """
    if len(strategies) < 2:
        raise TournamentError("a tournament needs two or more strategies")
    try:  # canonical spec strings: the labels, and `heuristic` equals `heuristic:oros=1`
        strategies = [check_strategy(x) for x in strategies]
    except StrategyError as e:
        raise TournamentError(str(e)) from None
    if len(set(strategies)) != len(strategies):
        raise TournamentError("each strategy may enter a tournament once")
    r = parse_rules(rules)
    if r.players != 2 and not r.teams:
        raise TournamentError("tournament pairs are two-sided games: use 2 players, or 4 or 6 with teams")
    out = Path(out)
    pairs = list(combinations(range(len(strategies)), 2))
    specs = []
    for i, j in pairs:
        try:
            s = make_spec(strategies[i], [strategies[j]], r, n, seed=seed, players_fixed=True,
                                 chunk_size=chunk_size_for(n))
        except RunError as e:
            raise TournamentError(str(e)) from None
        seed = s.seed
        specs.append(s)
    manifest = {"kind": KIND, "tool": "escoba-sim", "version": __version__, "engine": engine_for(list(strategies)),
                "seed": seed,
                "rules": r.canonical(), "rules_digest": r.digest(), "rules_fields": r.as_dict(),
                "strategies": list(strategies), "n": n, "chunk_size": specs[0].chunk_size,
                "pairs": [{"a": strategies[i], "b": strategies[j], "run": f"runs/{k:02d}"}
                          for k, (i, j) in enumerate(pairs)],
                "bootstrap": {"replicates": BOOTSTRAP, "seed": BOOTSTRAP_SEED}, "argv": argv or []}
    try:
        aggs_by_pair = runner.run_series(out, manifest, ("kind", "seed", "n", "rules", "strategies"), specs,
                                         "tournament", jobs=jobs, executor=executor, argv=argv,
                                         on_run=on_run and (lambda k: on_run(k, specs[k])))
    except RunError as e:
        raise TournamentError(str(e)) from None
    tables = analyse([parse_strategy(x).short for x in strategies], pairs, aggs_by_pair)
    write_tables(out, tables)
    summary = {"kind": KIND, "version": __version__, "engine": engine_for(list(strategies)), "seed": seed,
               "rules": r.canonical(),
               "rules_digest": r.digest(), "strategies": list(strategies), "n_per_pair": n,
               "games_per_pair": specs[0].played, "chunks": specs[0].n_chunks,
               "ratings": _json_rows(tables["ratings"]), "pairs": _json_rows(tables["pairs"]),
               "interval": "95%: crosstable over chunks as clusters; ratings by a chunk bootstrap"}
    write_json(out / "summary.json", summary)
    return summary
