"""Study: ismcts' search options against its default (issue 14), under ludoteka and tradicional.

Each option plays the default `ismcts` (greedy rollouts, no exact solving,
greedy's blows; spelled in full below) on the same duplicate deals: every deal
(seed SEED) is played once with each seating, and the per-deal margin (option
minus default, points per hand, averaged over the two seatings) gives the mean
and its 95% interval over deals. The options: `exact=6` (exact play once the
stock is empty, two players) and `exact=6,exploit=1` (the same, choosing among
the minimax-best moves by a search over the replies) on ESCOBA_SEARCH_N deals
(default 2000); with `exact=6`, `blows=1` (blow decisions searched; soplar, so
tradicional only) and `leaf=40` (every simulation ends by exact search once its
stock is empty) on ESCOBA_SEARCH_N_OPTION deals (default 1000), and `infer=1`
(deals consistent with the values each seat showed it lacked) on
ESCOBA_SEARCH_N_INFER deals (default 6000: its gain, a few hundredths of a
point, needs them to show). ismcts costs
about a millisecond per move, so the studies' N would take days.

Against greedy: the default and the options that do not cost several times its
CPU (exact, exploit, infer) each play greedy on the same ESCOBA_SEARCH_N_GREEDY
duplicate deals (default 1000, seed SEED: oracle_gap.py's deals); the paired
per-deal difference of each option's margin and the default's gives its 95%
interval, so a weaker opponent's errors exploited less show as a negative one.

Cost: CPU microseconds per move of each spec against greedy
(benchmarks/bench_strategies.py's measure: both seats in turn, greedy-vs-greedy
subtracted, process CPU time), measured default, each option, then again, and
averaged, so load that drifts during the run hits all alike. Saves
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
N_GREEDY = int(float(os.environ.get("ESCOBA_SEARCH_N_GREEDY", "1000")))
N_INFER = int(float(os.environ.get("ESCOBA_SEARCH_N_INFER", "6000")))
SECONDS = float(os.environ.get("ESCOBA_SEARCH_SECONDS", "6"))
RULES = ["ludoteka", "tradicional"]
# the default (the search before the options existed), spelled in full so that the study keeps measuring it
OLD = parse_strategy("ismcts:iters=1000,c=4,rollout=0,exact=0,blows=0,leaf=-1,exploit=0,infer=0").canonical
OPTIONS = {k: parse_strategy(v).canonical for k, v in
           (("exact", "ismcts:exact=6"), ("exploit", "ismcts:exact=6,exploit=1"),
            ("blows", "ismcts:exact=6,blows=1"), ("leaf", "ismcts:exact=6,leaf=40"), ("infer", "ismcts:infer=1"))}
FULL_N = ("exact", "exploit")  # played on N deals, the others on N_OPTION
VS_GREEDY = ("exact", "exploit", "infer")


def cost(spec: str, rules: str) -> float:
    return measure(spec, rules, SECONDS)["us_per_move"]


def paired(rules: str, spec: str, n: int) -> dict:
    m = margins(parse_rules(rules), spec, OLD, SEED, 0, n)
    mean, lo, hi = interval(m)
    return {"minus_old": [round(mean, 4), round(lo, 4), round(hi, 4)], "deals": n,
            "deals_that_differ": int(np.count_nonzero(m))}


def against_greedy(rules: str, keys) -> dict:
    """Each spec's margin over greedy on the same N_GREEDY deals; the options paired with the default."""
    r = parse_rules(rules)
    old = margins(r, OLD, "greedy", SEED, 0, N_GREEDY)
    out = {"old": [round(x, 4) for x in interval(old)]}
    for k in keys:
        m = margins(r, OPTIONS[k], "greedy", SEED, 0, N_GREEDY)
        out[k] = {"vs_greedy": [round(x, 4) for x in interval(m)],
                  "minus_old": [round(x, 4) for x in interval(m - old)]}
    return out


def main() -> dict:
    numbers = {"script": f"python analysis/search_strength.py (ESCOBA_SEARCH_N={N}, ESCOBA_SEARCH_N_OPTION={N_OPTION}, "
               f"ESCOBA_SEARCH_N_GREEDY={N_GREEDY}, ESCOBA_SEARCH_N_INFER={N_INFER}, seed={SEED})",
               "seed": SEED, "old": OLD, "options": OPTIONS,
               "greedy_deals": N_GREEDY, "rules": {}}
    for rules in RULES:
        specs = {"old": OLD, **{k: v for k, v in OPTIONS.items() if k != "blows" or parse_rules(rules).soplar}}
        us = {k: [] for k in specs}
        for _ in range(2):
            for k, spec in specs.items():
                us[k].append(cost(spec, rules))
        numbers["rules"][rules] = {
            "paired": {k: paired(rules, spec, N if k in FULL_N else N_INFER if k == "infer" else N_OPTION)
                       for k, spec in specs.items() if k != "old"},
            "vs_greedy": against_greedy(rules, VS_GREEDY),
            "us_per_move": {k: round(float(np.mean(v)), 1) for k, v in us.items()},
            "us_per_move_runs": {k: [round(x, 1) for x in v] for k, v in us.items()},
        }
        print(rules, numbers["rules"][rules], flush=True)
    save_numbers("search_strength", numbers)
    return numbers


if __name__ == "__main__":
    main()
