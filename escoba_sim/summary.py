"""A run's summary (``run --json`` and summary.json), computed from merged chunk aggregates only."""

from __future__ import annotations

import numpy as np

from . import __version__, stats
from .batch import POINT_COLUMNS, SIDE_COLUMNS, engine_for
from .chunk import TOTAL
from .runspec import RunSpec


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
