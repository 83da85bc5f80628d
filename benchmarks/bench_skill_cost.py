"""Cost of `escoba-sim skill` per ruleset: the seconds each pair of the ladder takes per game, one core.

Each pair of the ladder plays N games (duplicate deals, the compiled core, one job) under each ruleset, as
`skill` plays them; the process CPU time of the run is divided by the games. The sum over the pairs is the
cost of one game per pair of one ruleset, so `-n N` of `skill` costs about N times that (divided by the
cores used) per ruleset; the script prints that for the given -n and the default ladder.

    python benchmarks/bench_skill_cost.py --rules ludoteka --games 40 --n 400
"""

from __future__ import annotations

import argparse
import tempfile
import time
from itertools import combinations
from pathlib import Path


def main() -> None:
    from escoba_sim.runs import runner
    from escoba_sim.runs.spec import make_spec
    from escoba_sim.series.skill import DEFAULT_LADDER, split_ladder

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="ludoteka", help="comma-separated presets")
    ap.add_argument("--ladder", default=",".join(DEFAULT_LADDER))
    ap.add_argument("--games", type=int, default=40, help="games per pair measured")
    ap.add_argument("--n", type=int, default=400, help="skill's -n to cost")
    ap.add_argument("--seed", type=int, default=2027)
    a = ap.parse_args()
    ladder = split_ladder(a.ladder)
    for rules in a.rules.split(","):
        total = 0.0
        print(f"\n{rules}: seconds per game (one core), {a.games} games per pair, seed {a.seed}")
        for i, j in combinations(range(len(ladder)), 2):
            spec = make_spec(ladder[i], [ladder[j]], rules, a.games, seed=a.seed, players_fixed=True, keep_deals=True)
            with tempfile.TemporaryDirectory() as d:
                t0 = time.process_time()
                runner.run(spec, Path(d) / "run", jobs=1)
                dt = time.process_time() - t0
            total += dt / a.games
            print(f"  {ladder[i]:>10} vs {ladder[j]:<10} {dt / a.games * 1000:9.2f} ms per game")
        print(f"  all pairs: {total * 1000:.1f} ms per game per pair; skill -n {a.n}: "
              f"{total * a.n:.0f} s on one core, {total * a.n / 2:.0f} s on two")


if __name__ == "__main__":
    main()
