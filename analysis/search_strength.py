"""Study: ismcts' default search against the search it replaced (issue 14), under ludoteka and tradicional.

The new default `ismcts` (exact play once the stock is empty) plays the old
default, spelled with the old settings
(`ismcts:iters=1000,c=4,rollout=0,exact=0,blows=0,leaf=-1`: greedy rollouts, no
exact solving, greedy's blows), on the same duplicate deals: every deal (seed
SEED) is played once with each seating, and the per-deal margin (new minus old,
points per hand, averaged over the two seatings) gives the mean and its 95%
interval over deals. Its own count (ESCOBA_SEARCH_N, default 2000 deals):
ismcts costs about a millisecond per move, so the studies' N would take days.
The same for two options that are not the default: `ismcts:blows=1` (blow
decisions searched, under soplar: tradicional only) and `ismcts:leaf=40` (every
simulation ends by exact search once its stock is empty; several times the
CPU), on ESCOBA_SEARCH_N_OPTION deals (default 1000).

Cost: CPU microseconds per move of each side against greedy
(benchmarks/bench_strategies.py's measure: both seats in turn, greedy-vs-greedy
subtracted, process CPU time), measured old, new, each option, then again, and averaged, so
load that drifts during the run hits both alike. Saves
results/search_strength.json for make_readme.py.
"""

import os
import sys
from pathlib import Path

import numpy as np
from _common import SEED, save_numbers

from escoba_sim.rules import parse_rules
from escoba_sim.strategies import parse_strategy
from escoba_sim.tune import interval, margins

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_strategies import measure  # noqa: E402

N = int(float(os.environ.get("ESCOBA_SEARCH_N", "2000")))
N_OPTION = int(float(os.environ.get("ESCOBA_SEARCH_N_OPTION", "1000")))
SECONDS = float(os.environ.get("ESCOBA_SEARCH_SECONDS", "6"))
RULES = ["ludoteka", "tradicional"]
NEW = parse_strategy("ismcts").canonical
OLD = "ismcts:iters=1000,c=4,rollout=0,exact=0,blows=0,leaf=-1"
OPTIONS = {"blows": parse_strategy("ismcts:blows=1").canonical, "leaf": parse_strategy("ismcts:leaf=40").canonical}


def cost(spec: str, rules: str) -> float:
    return measure(spec, rules, SECONDS)["us_per_move"]


def paired(rules: str, spec: str, n: int) -> dict:
    m = margins(parse_rules(rules), spec, OLD, SEED, 0, n)
    mean, lo, hi = interval(m)
    return {"minus_old": [round(mean, 4), round(lo, 4), round(hi, 4)], "deals": n,
            "deals_that_differ": int(np.count_nonzero(m))}


def main() -> dict:
    numbers = {"script": f"python analysis/search_strength.py (ESCOBA_SEARCH_N={N}, ESCOBA_SEARCH_N_OPTION={N_OPTION}, "
               f"seed={SEED})", "seed": SEED, "new": NEW, "old": OLD, "options": OPTIONS, "rules": {}}
    for rules in RULES:
        specs = {"old": OLD, "new": NEW, **{k: v for k, v in OPTIONS.items()
                                            if k != "blows" or parse_rules(rules).soplar}}
        us = {k: [] for k in specs}
        for _ in range(2):
            for k, spec in specs.items():
                us[k].append(cost(spec, rules))
        numbers["rules"][rules] = {
            "paired": {k: paired(rules, spec, N if k == "new" else N_OPTION) for k, spec in specs.items() if k != "old"},
            "us_per_move": {k: round(float(np.mean(v)), 1) for k, v in us.items()},
            "us_per_move_runs": {k: [round(x, 1) for x in v] for k, v in us.items()},
        }
        print(rules, numbers["rules"][rules], flush=True)
    save_numbers("search_strength", numbers)
    return numbers


if __name__ == "__main__":
    main()
