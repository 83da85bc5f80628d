"""A run's summary (``run --json`` and summary.json), computed from merged chunk aggregates only."""

from __future__ import annotations

import numpy as np

from .. import __version__
from ..batch import engine_for
from ..game.columns import POINT_COLUMNS, SIDE_COLUMNS
from . import stats
from .aggregates import DealLayout
from .spec import RunSpec


def position_names(spec: RunSpec) -> list[str]:
    if spec.rules.teams:
        return ["dealer side", "mano side"]
    names = ["dealer", "mano"]
    return names + [f"dealer+{q}" for q in range(2, spec.entrants)]


def summarize(spec: RunSpec, agg: dict[str, np.ndarray], chunks_used: int, status: str,
              sprt_state: dict | None = None) -> dict:
    """The run's report (``--json`` and summary.json) from merged aggregates only.

    Every interval is the deal model's (``stats``): the deal is the unit, from ``deal_sum``
    and ``deal_gram``; the game win rate of independent pairing (one game per deal) is a
    Wilson interval.
    """
    E = spec.entrants
    n_cl = int(agg["clusters"][0])
    hands = int(agg["hands"][0])
    games = int(agg["games"][0])
    labels = spec.labels()
    pos_names = position_names(spec)
    games_mode = spec.mode == "games"
    lay = DealLayout(E)
    S, G = agg["deal_sum"], agg["deal_gram"]
    one = lambda *at, weights=None: stats.unit(lay.core_size, *at, weights=weights)  # noqa: E731

    def per_hand(vec) -> dict:
        return {c: (int(v) / hands if hands else None) for c, v in zip(SIDE_COLUMNS, vec)}

    def wdl_dict(w, n) -> dict:
        return {"win": w[0] / n if n else None, "draw": w[1] / n if n else None, "loss": w[2] / n if n else None,
                "counts": [int(v) for v in w]}

    def interval(m: float, se: float) -> dict:
        ci = stats.normal_ci(m, se)
        return {"mean": stats.finite(m), "se": stats.finite(se), "ci95": [stats.finite(ci[0]), stats.finite(ci[1])]}

    def ratio(a, b) -> dict:
        return interval(*stats.deal_ratio(S, G, n_cl, a, b))

    entrants = []
    for e in range(E):
        pts = agg["points"][e]
        d = {"entrant": e, "strategy": spec.strategies[e], "label": labels[e],
             "seats_in_rotation_0": [s for s in range(spec.rules.players) if spec.rules.side_of(s) == e]}
        if games_mode:
            w = int(agg["game_wins"][e])
            if spec.rotations == 1:  # one game per deal: independent games
                lo, hi = stats.wilson(w, games)
                ci, se, how = [stats.finite(lo), stats.finite(hi)], None, "wilson"
            else:  # a share of games: the deal model's se, an interval kept in [0, 1]
                m, se_ = stats.deal_ratio(S, G, n_cl, one(lay.won(e)), one(lay.games))
                lo, hi = stats.proportion_interval(m, se_, n_cl)
                ci, se, how = [stats.finite(lo), stats.finite(hi)], stats.finite(se_), "deal"
            d["games"] = {"won": w, "played": games, "win_rate": w / games if games else None, "se": se,
                          "ci95": ci, "interval": how}
        d["points_per_hand"] = ratio(one(lay.points(e)), one(lay.hands))
        d["categories"] = {c: v for c, v in per_hand(pts).items() if c in POINT_COLUMNS or c == "lucky_escobas"}
        d["taken_per_hand"] = {c: v for c, v in per_hand(pts).items() if c.endswith("_taken")}
        d["hands"] = wdl_dict(agg["wdl"][e], hands)
        by_pos = []
        for q in range(E):
            nh = int(S[lay.pos_hands(e, q)])
            pp = agg["pos_points"][e, q]
            by_pos.append({
                "position": q, "name": pos_names[q], "hands": nh,
                "points_per_hand": ratio(one(lay.pos_total(e, q)), one(lay.pos_hands(e, q))),
                "categories": {c: (int(v) / nh if nh else None) for c, v in zip(SIDE_COLUMNS, pp)
                               if c in POINT_COLUMNS or c == "lucky_escobas"},
                "hands_result": wdl_dict(agg["pos_wdl"][e, q], nh)})
        d["by_position"] = by_pos
        if E >= 2:  # as mano minus as dealer, on the same deals
            m, se = stats.deal_ratio_diff(S, G, n_cl, one(lay.pos_total(e, 1)), one(lay.pos_hands(e, 1)),
                                          one(lay.pos_total(e, 0)), one(lay.pos_hands(e, 0)))
            d["seat_advantage"] = interval(m, se)
        hist = agg["points_hist"][e] if agg["points_hist"].size else np.zeros(0, np.int64)
        d["points_histogram"] = [int(v) for v in hist]
        entrants.append(d)

    diffs = []
    for a in range(E):
        for b in range(a + 1, E):
            diffs.append({"a": a, "b": b, "label": f"{labels[a]} - {labels[b]}",
                          "points_per_hand": ratio(one(lay.points(a), lay.points(b), weights=[1, -1]),
                                                   one(lay.hands))})

    hist = agg["game_hands_hist"]
    hpg = ratio(one(lay.hands), one(lay.games)) if games_mode else None
    summary = {
        "tool": "escoba-sim", "version": __version__, "engine": engine_for(spec.strategies),
        "rules": spec.rules.canonical(), "rules_digest": spec.rules.digest(),
        "players": spec.rules.players, "teams": spec.rules.teams,
        "seed": spec.seed, "mode": spec.mode, "pairing": spec.pairing, "rotations": spec.rotations,
        "requested": spec.n, "planned": spec.played, "deals": n_cl, "chunk_size": spec.chunk_size,
        "chunks": {"planned": spec.n_chunks, "used": chunks_used},
        "status": status, "games": games, "hands": hands,
        "interval": INTERVAL_TEXT,
        "entrants": entrants,
        "differences": diffs,
        "elo": stats.elo_summary([int(v) for v in agg["score_hist"]]) | {
            "unit": "games" if games_mode else "hands (draw = 1/2)",
            "score_histogram": [int(v) for v in agg["score_hist"]],
            "wdl": _wdl_of_deals(agg, spec)} if "score_hist" in agg else None,
        "hands_per_game": ({"mean": hands / games if games else None, "se": hpg["se"], "ci95": hpg["ci95"],
                            "histogram": {str(i): int(v) for i, v in enumerate(hist) if v}} if games_mode else None),
        "lucky_deal_rate": int(agg["lucky_hands"][0]) / hands if hands else None,
        "sprt": sprt_state,
    }
    return summary


INTERVAL_TEXT = ("95% intervals with the deal (all seat rotations of it) as the unit, from per-deal sums (delta "
                 "method): normal for points, Wilson at the deals' effective sample size for a win rate or score "
                 "(never outside [0, 1]); plain Wilson for the win rate of independent games")


def _wdl_of_deals(agg: dict, spec: RunSpec) -> list[int]:
    """The first entrant's games (or hands) won, drawn and lost, all rotations together."""
    if spec.mode == "games":
        won, played = int(agg["game_wins"][0]), int(agg["games"][0])
        return [won, 0, played - won]
    return [int(v) for v in agg["wdl"][0]]
