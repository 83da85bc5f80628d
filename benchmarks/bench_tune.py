"""Cost of one `escoba-sim tune` evaluation, one core.

An evaluation plays the candidate against each opponent of the pool on
`--games` deals, each deal once per side (two hands per deal with two
players), on the compiled core. This times `tune.evaluate` (CPU time of this
process, best of --repeat) for a strategy and pool at a few deal counts, and
prints seconds per evaluation and microseconds per deal, from which a tune's
cost is evals x that (divided by --jobs).

    python benchmarks/bench_tune.py
    python benchmarks/bench_tune.py --strategy endgame --games 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import time

from escoba_sim.tune import evaluate, make_tune_spec


def measure(strategy: str, pool: list[str], rules: str, games: int, repeat: int) -> dict:
    spec = make_tune_spec(strategy, rules=rules, pool=pool, evals=1, games=games, popsize=2)
    x = [1.0] * len(spec.params)
    best = float("inf")
    for r in range(repeat):
        t0 = time.process_time()
        evaluate(spec, r, 0, x)
        best = min(best, time.process_time() - t0)
    return {"strategy": strategy, "pool": pool, "rules": rules, "games": games,
            "seconds_per_eval": round(best, 4), "us_per_deal": round(best / games / len(pool) * 1e6, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", action="append", help="strategy to tune (repeat; default heuristic, endgame)")
    ap.add_argument("--vs", action="append", help="pool (repeat; default greedy)")
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--games", type=int, action="append", help="deals per evaluation (default 2000, 20000)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    rows = [measure(s, a.vs or ["greedy"], a.rules, g, a.repeat)
            for s in (a.strategy or ["heuristic", "endgame"]) for g in (a.games or [2000, 20000])]
    print(f"{'strategy':<10} {'pool':<16} {'deals':>7} {'s/eval':>8} {'us/deal':>8}")
    for r in rows:
        print(f"{r['strategy']:<10} {','.join(r['pool']):<16} {r['games']:>7} {r['seconds_per_eval']:>8.3f} "
              f"{r['us_per_deal']:>8.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
