"""Round-robin tournaments: every pair of strategies on the same duplicate deals, a crosstable, ratings.

Each pair (i, j), i before j in the given order, is one ``runner.run`` with
duplicate pairing, the tournament's seed and one chunk size, so every pair
plays the very same deals and chunk ``k`` holds the same deal indices in every
pair. The crosstable gives the row strategy's games won, drawn and lost, its
game score (wins / games) and its points per hand minus the opponent's, each
with the deal model's 95 % interval (``stats``). Ratings are a Bradley-Terry
fit on game wins (maximum likelihood by the MM algorithm, Hunter 2004) on the
Elo scale (400 log10 strength, mean 0); their covariance is a sandwich
estimator with the deal as unit (``stats.bradley_terry_cov``), from the
pairs' per-deal vectors side by side (every pair plays the same deals, so a
lucky deal moves every pair's result together).

Under 3 players without teams a pair (A, B) is two runs on the same deals, the
lineups (A, B, B) and (B, A, A) with ``ceil(n / 2)`` games each, read as one
two-sided pair (``lineups``: A's score is the share of games won by an A seat,
both lineups together; docs/skill.md, "Three players"); the manifest lists one
``pairs`` entry per run, with its ``lineup``.

Output folder: ``DIR/manifest.json`` (kind "tournament"), ``DIR/runs/NN/`` (one
runner folder per pair), ``DIR/tables/*.parquet`` (pairs, crosstable, ratings,
rating_cov, estimates, categories, points_hist, hands_hist, convergence) and ``DIR/summary.json``.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from .. import __version__
from ..batch import engine_for
from ..errors import EscobaError
from ..game.columns import POINT_COLUMNS, SIDE_COLUMNS
from ..game.rules import parse_rules
from ..i18n import N_
from ..i18n import translate as _
from ..runs import stats
from ..runs.aggregates import DealLayout, add_padded
from ..runs.spec import RunError, RunSpec
from ..strategies import StrategyError, check_strategy, parse_strategy
from .lineups import THREE_PLAYER_PAIRS, pair_specs, runs_per_pair, two_sided_totals
from .tables import (
    SERIES_FORMAT,
    category_frame,
    convergence_frame,
    count_frame,
    count_rows,
    interval,
    json_rows,
    proportion,
    run_series,
    run_totals,
    series_chunk_size,
    series_deal_sums,
    write_results,
)

KIND = "tournament"


class TournamentError(EscobaError):
    """Arguments that cannot make a tournament."""


def analyse(labels: list[str], pairs: list[tuple[int, int]], aggs_by_pair: list[list[dict]], run_dirs: list[Path],
            specs: list[RunSpec]):
    """All tables from the pairs' runs: crosstable cells and ratings with the deal model's intervals.

    ``aggs_by_pair``, ``run_dirs`` and ``specs`` hold each pair's runs in pair order: one run per pair, or a 3-player
    pair's two lineups (``lineups``), read as one two-sided pair."""
    import polars as pl

    m = len(labels)
    lay = DealLayout(2)
    size, P = lay.size, len(pairs)
    R = len(specs) // P  # runs per pair
    at = lambda p, col: p * size + col  # noqa: E731  (column of pair p's run in the series vector)
    one = lambda *cols, weights=None: stats.unit(size * P, *cols, weights=weights)  # noqa: E731
    conv = []
    n = S = G = None
    for k, n, S, G in series_deal_sums(run_dirs, specs, len(aggs_by_pair[0]), lineups=R):
        for p, (i, j) in enumerate(pairs):
            s, se = stats.deal_ratio(S, G, n, one(at(p, lay.won(0))), one(at(p, lay.games)))
            conv.append((f"{labels[i]} vs {labels[j]}", k + 1, float(S[at(p, lay.games)]), s, *proportion(s, se, n)))
    pair_rows, cross = [], []
    wins = np.zeros((m, m), np.int64)
    for p, (i, j) in enumerate(pairs):
        games = int(S[at(p, lay.games)])
        won = [int(S[at(p, lay.won(0))]), int(S[at(p, lay.won(1))])]
        wins[i, j], wins[j, i] = won
        for e, (r, c) in enumerate(((i, j), (j, i))):
            s, se = stats.deal_ratio(S, G, n, one(at(p, lay.won(e))), one(at(p, lay.games)))
            d, dse = stats.deal_ratio(S, G, n, one(at(p, lay.points(e)), at(p, lay.points(1 - e)), weights=[1, -1]),
                                      one(at(p, lay.hands)))
            pair_rows.append((labels[r], labels[c], games, won[e], games - won[0] - won[1], won[1 - e],
                              s, *proportion(s, se, n), d, *interval(d, dse)))
            cross.append((labels[r], labels[c], s))
    f = pl.Float64
    pairs_df = pl.DataFrame(pair_rows, orient="row", schema={
        "row": pl.String, "col": pl.String, "games": pl.Int64, "won": pl.Int64, "drawn": pl.Int64, "lost": pl.Int64,
        "score": f, "score_lo": f, "score_hi": f, "points_diff": f, "points_diff_lo": f, "points_diff_hi": f})
    crosstable = pl.DataFrame(cross, orient="row", schema={"row": pl.String, "col": pl.String, "value": f})

    rating = stats.bradley_terry(wins)
    cols = [c for p in range(P) for c in (at(p, lay.won(0)), at(p, lay.won(1)))]
    cov = stats.bradley_terry_cov(rating, pairs, [S[c] for c in cols], [[G[a, b] for b in cols] for a in cols], n)
    half = stats.Z95 * np.sqrt(np.maximum(np.diag(cov), 0.0))
    ratings = pl.DataFrame({"label": labels, "metric": ["rating"] * m, "estimate": rating.tolist(),
                            "lo": (rating - half).tolist(), "hi": (rating + half).tolist()})
    rating_cov = pl.DataFrame({"label": labels, **{lab: cov[:, c].tolist() for c, lab in enumerate(labels)}})

    # points per hand by category for each strategy, over all its games
    est_rows, ph = [], []
    pts = {s: np.zeros(len(SIDE_COLUMNS), np.int64) for s in range(m)}
    hands = {s: 0 for s in range(m)}
    hh = np.zeros(0, np.int64)
    for p, (i, j) in enumerate(pairs):
        merged = two_sided_totals([run_totals(aggs) for aggs in aggs_by_pair[p * R:(p + 1) * R]])
        for e, s in enumerate((i, j)):
            pts[s] += merged["points"][e]
            # per hand of one seat: with 3 players a side holds one seat or two (``side_hands``)
            hands[s] += int(merged["side_hands"][e] if "side_hands" in merged else merged["hands"][0])
            if merged["points_hist"].size:
                ph += count_rows(labels[s], merged["points_hist"][e])
        hh = add_padded(hh, merged["game_hands_hist"])
    cat_rows = [(labels[s], c, pts[s][SIDE_COLUMNS.index(c)] / hands[s]) for s in range(m) for c in POINT_COLUMNS
                if hands[s]]
    categories = category_frame(cat_rows)
    points_hist = count_frame(ph).group_by("label", "value", maintain_order=True).agg(pl.col("count").sum())
    hands_hist = count_frame(count_rows("all pairs", hh))
    # each strategy's score against all its opponents: a ratio over the pairs it played, on the same deals
    for s in range(m):
        mine = [(p, 0 if i == s else 1) for p, (i, j) in enumerate(pairs) if s in (i, j)]
        r, se = stats.deal_ratio(S, G, n, one(*(at(p, lay.won(e)) for p, e in mine)),
                                 one(*(at(p, lay.games) for p, _ in mine)))
        est_rows.append((labels[s], "win_rate", r, *proportion(r, se, n)))
    estimates = pl.concat([ratings, pl.DataFrame(est_rows, orient="row", schema=ratings.schema)])
    return {"pairs": pairs_df, "crosstable": crosstable, "ratings": ratings, "rating_cov": rating_cov,
            "estimates": estimates, "categories": categories, "points_hist": points_hist, "hands_hist": hands_hist,
            "convergence": convergence_frame(conv)}


def tournament(strategies: list[str], n: int, out: str | Path, *, rules=None, seed: int | None = None,
               jobs: int = 1, argv: list[str] | None = None, on_run=None,
               executor=None, chunk_size: int = 0, on_chunk=None, save_hands: bool = False,
               new: bool = False) -> dict:
    """Play every pair on the same duplicate deals (via the runner), then write the tables and summary.

    ``save_hands``: every hand of every pair is also kept as a hand record (``runs.hand_records``, in
    each pair's ``runs/NN/records/``) and as a per-hand row (``runs/NN/hands/``).

    ``executor`` (e.g. ``cluster.connect(...)``) is handed to ``runner.run`` for every run (``tables.run_series``). ``new``: a
    folder already holding this series is refused (``tables.run_series``).
    """
    if len(strategies) < 2:
        raise TournamentError(_("a tournament needs two or more strategies"))
    try:  # canonical spec strings: the labels, and `heuristic` equals `heuristic:oros=1`
        strategies = [check_strategy(x) for x in strategies]
    except StrategyError as e:
        raise TournamentError(str(e)) from None
    if len(set(strategies)) != len(strategies):
        raise TournamentError(_("each strategy may enter a tournament once"))
    r = parse_rules(rules)
    if r.players not in (2, 3) and not r.teams:
        raise TournamentError(_("tournament pairs are two-sided games: use 2 or 3 players, or 4 or 6 with teams"))
    out = Path(out)
    pairs = list(combinations(range(len(strategies)), 2))
    R = runs_per_pair(r)
    specs = []
    for i, j in pairs:
        try:
            s = pair_specs(strategies[i], strategies[j], r, n, seed=seed, keep_deals=True, chunk_size=chunk_size,
                           save_hands=save_hands)
        except RunError as e:
            raise TournamentError.around(e, "{problem}") from None
        seed = s[0].seed
        specs += s
    if not chunk_size:  # the default: one size for every run, the slowest run's (or the folder's)
        specs = series_chunk_size(out, KIND, specs)
    manifest = {"kind": KIND, "format": SERIES_FORMAT, "tool": "escoba-sim", "version": __version__, "engine": engine_for(list(strategies)),
                "seed": seed,
                "rules": r.canonical(), "rules_digest": r.digest(), "rules_fields": r.as_dict(),
                "strategies": list(strategies), "n": n, "chunk_size": specs[0].chunk_size,
                "pairs": [{"a": strategies[i], "b": strategies[j], "run": f"runs/{k:02d}"}
                          for k, (i, j) in enumerate(pairs)] if R == 1 else  # 3 players: one entry per lineup
                         [{"a": strategies[i], "b": strategies[j], "lineup": list(specs[k].strategies),
                           "run": f"runs/{k:02d}"} for k, (i, j) in enumerate(p for p in pairs for _ in range(R))],
                "argv": argv or []}
    if save_hands:  # kept only when asked, so the manifest of a tournament without records is unchanged
        manifest["save_hands"] = True
    try:
        aggs_by_pair = run_series(out, manifest, ("kind", "seed", "n", "rules", "strategies"), specs,
                                  "tournament", jobs=jobs, executor=executor, argv=argv,
                                  on_run=on_run and (lambda k: on_run(k, specs[k])), on_chunk=on_chunk, new=new)
    except RunError as e:
        raise TournamentError.around(e, "{problem}") from None
    tables = analyse([parse_strategy(x).short for x in strategies], pairs, aggs_by_pair, [out / p["run"] for p in manifest["pairs"]],
                     specs)
    summary = {"kind": KIND, "version": __version__, "engine": engine_for(list(strategies)), "seed": seed,
               "rules": r.canonical(),
               "rules_digest": r.digest(), "strategies": list(strategies), "labels": tables["ratings"]["label"].to_list(),
               "n_per_pair": n,
               "games_per_pair": specs[0].played * R, "chunks": specs[0].n_chunks,
               "ratings": json_rows(tables["ratings"]), "pairs": json_rows(tables["pairs"]),
               "estimates": json_rows(tables["estimates"].filter(tables["estimates"]["metric"] == "win_rate")),
               "interval": N_("95% CIs, the deal as unit (every pair plays the same deals): crosstable by the "
                              "delta method (scores: Wilson at the deals' effective sample size, never outside "
                              "[0, 1]), ratings by a sandwich estimator of the Bradley-Terry fit")}
    if R > 1:
        summary["three_players"] = THREE_PLAYER_PAIRS
    write_results(out, manifest, tables, summary)
    return summary
