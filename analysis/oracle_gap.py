"""Study: how much of the greedy-to-oracle gap each strategy closes, under each preset.

The yardstick is `oracle`, which cheats (sees every hand and the stock) and
plays the rest of the hand by exact search when at most 18 cards are left
(perfect-information tree search before). Each strategy S plays greedy on the
same N duplicate deals (seed SEED, each deal once per seat); m(S) is its points
margin per hand against greedy, so m(greedy) = 0 and m(oracle) is the gap. The
share of the gap S closes is m(S) / m(oracle), a ratio of means over the same
deals; its 95% interval is the delta method over deals (per deal
(s_i - share * o_i) / mean(o)). Its own count (ESCOBA_GAP_N, default 1000
deals): oracle and ismcts cost about 10 ms per hand.
"""

import concurrent.futures as cf
import math

import numpy as np
from _common import SEED, SETTINGS, save_numbers

from escoba_sim.game.rules import PRESETS, parse_rules
from escoba_sim.runs.stats import Z95
from escoba_sim.strategies import parse_strategy
from escoba_sim.tune import margins

N = SETTINGS.gap_n
JOBS = SETTINGS.gap_jobs  # worker processes
# a comma-separated subset of presets to re-run; the others keep their numbers (and the labels and script
# line they were made with) from results/oracle_gap.json
ONLY = SETTINGS.gap_presets
# the defaults of issue 14 and of issue 24's first registration, spelled in full, then today's default
STRATEGIES = ["heuristic", "heuristic:tuned", "endgame", "ismcts:iters=950,c=4,rollout=0,exact=0,stop=0,prior=0",
              "ismcts:iters=3800,c=4,rollout=0,exact=6,stop=0.25,prior=0", "ismcts", "oracle"]


def _margins(preset: str, spec: str) -> np.ndarray:
    return margins(parse_rules(preset), spec, "greedy", SEED, 0, N)


def share(s: np.ndarray, o: np.ndarray) -> list[float]:
    """m(S)/m(oracle) and its 95% delta-method interval over deals."""
    r = float(s.mean() / o.mean())
    z = (s - r * o) / o.mean()
    half = Z95 * float(z.std(ddof=1)) / math.sqrt(len(z))
    return [round(r, 4), round(r - half, 4), round(r + half, 4)]


def mean_ci(v: np.ndarray) -> list[float]:
    half = Z95 * float(v.std(ddof=1)) / math.sqrt(len(v))
    return [round(float(v.mean()), 4), round(float(v.mean()) - half, 4), round(float(v.mean()) + half, 4)]


def main() -> dict:
    import json

    from _common import RESULTS

    labels = {s: parse_strategy(s).canonical for s in STRATEGIES}
    script = f"python analysis/oracle_gap.py (ESCOBA_GAP_N={N}, seed={SEED})"
    presets = ONLY or list(PRESETS)
    numbers = {"script": script, "deals": N, "seed": SEED, "labels": labels, "presets": {}}
    old = RESULTS / "oracle_gap.json"
    if ONLY and old.exists():  # keep the presets not re-run, each with how it was made
        before = json.loads(old.read_text())
        for p, v in before["presets"].items():
            if p not in ONLY:
                numbers["presets"][p] = {**v, "script": v.get("script", before["script"]),
                                         "labels": v.get("labels", before["labels"])}
    tasks = [(p, s) for p in presets for s in STRATEGIES]
    with cf.ProcessPoolExecutor(JOBS) as pool:
        got = dict(zip(tasks, pool.map(_margins, *zip(*tasks))))
    for p in presets:
        o = got[(p, "oracle")]
        numbers["presets"][p] = {
            "vs_greedy": {s: mean_ci(got[(p, s)]) for s in STRATEGIES},
            "gap_share": {s: share(got[(p, s)], o) for s in STRATEGIES if s != "oracle"},
            "script": script, "labels": labels,
        }
        print(p, numbers["presets"][p], flush=True)
    numbers["presets"] = {p: numbers["presets"][p] for p in PRESETS if p in numbers["presets"]}
    save_numbers("oracle_gap", numbers)
    return numbers


if __name__ == "__main__":
    main()
