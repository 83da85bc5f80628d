"""Study: the levels' ratings (strategies/levels.py), measured on duplicate deals, written to levels.toml.

A round-robin tournament (``series.tournament``: every pair on the same duplicate deals, Bradley-Terry on
game wins, the Elo scale) of ``random`` and every level, per ruleset. The tournament's ratings have mean 0;
here they are shifted so that ``random`` is 0 (``levels.ANCHOR``), each interval from the fit's covariance
(var(r_i - r_random)), and so is each difference between consecutive levels, which must exclude 0. The
anchors greedy, heuristic and ismcts are the bases of levels 3, 4 and 6 with no random share: levels 3 and
4 play them move for move, level 6 the same search on a shifted random stream, so they take those ratings.
The ratings go to escoba_sim/strategies/levels.toml with this command; the library reads and checks them.
"""

import json
import math
import time

from _common import SEED, SETTINGS, fresh, save_numbers

from escoba_sim.series.tournament import tournament
from escoba_sim.strategies import parse_strategy
from escoba_sim.strategies.levels import ANCHOR, LEVELS, RATINGS_FILE, Z95, check_ratings

# the anchors that are a level's base with no random share, and that level
ANCHORS = {"greedy": 3, "heuristic": 4, "ismcts": 6}


def _cpu() -> float:
    """CPU seconds of this process and its finished workers."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(rules: str, n: int, jobs: int) -> dict:
    import polars as pl

    strategies = [ANCHOR] + [lv.spec for lv in LEVELS]
    out = fresh(f"levels_{rules}")
    t0 = _cpu()
    s = tournament(strategies, n, out, rules=rules, seed=SEED, jobs=jobs)
    cpu = _cpu() - t0
    cov = pl.read_parquet(out / "tables" / "rating_cov.parquet")
    labels = cov["label"].to_list()
    C = {a: dict(zip(labels, cov[a].to_list())) for a in labels}
    est = {r["label"]: r["estimate"] for r in s["ratings"]}
    short = {x: parse_strategy(x).short for x in strategies}

    def diff(a: str, b: str) -> list[float]:
        a, b = short[a], short[b]
        d = est[a] - est[b]
        half = Z95 * math.sqrt(max(C[a][a] + C[b][b] - 2 * C[a][b], 0.0))
        return [round(d, 1), round(d - half, 1), round(d + half, 1)]

    ratings = {x: diff(x, ANCHOR) if x != ANCHOR else [0.0, 0.0, 0.0] for x in strategies}
    steps = {f"{b} - {a}": diff(b, a) for a, b in zip(strategies[1:], strategies[2:])}
    return {"ratings": ratings, "steps": steps, "separated": all(v[1] > 0 for v in steps.values()),
            "games_per_pair": s["games_per_pair"], "cpu_seconds": round(cpu, 1)}


def write_toml(results: dict, command: str) -> None:
    lines = ["# The levels' ratings (strategies/levels.py), measured by analysis/levels.py: Bradley-Terry on game wins",
             "# on duplicate deals, the Elo scale, `random` = 0, 95% intervals. Written by the study; do not edit.",
             "# greedy, heuristic and ismcts are levels 3, 4 and 6 without their random share, and take their ratings.",
             ""]
    for rules, r in results.items():
        lines += [f'[rules."{rules}"]', f"command = {json.dumps(command)}", ""]
        rows = dict(r["ratings"])
        for anchor, level in ANCHORS.items():
            rows[parse_strategy(anchor).canonical] = r["ratings"][f"level:n={level}"]
        for spec, (e, lo, hi) in rows.items():
            lines += [f'[rules."{rules}".ratings."{spec}"]', f"estimate = {e}", f"lo = {lo}", f"hi = {hi}", ""]
    text = "\n".join(lines)
    import tomllib

    check_ratings(tomllib.loads(text))  # what the library will read back
    with open(RATINGS_FILE, "w") as f:
        f.write(text)


def main() -> dict:
    n, jobs = SETTINGS.levels_n, SETTINGS.levels_jobs
    rulesets = SETTINGS.levels_rules
    command = (f"python analysis/levels.py (ESCOBA_LEVELS_N={n} games per pair, ESCOBA_LEVELS_RULES="
               f"{','.join(rulesets)}, seed={SEED})")
    t0 = time.time()
    results = {rules: measure(rules, n, jobs) for rules in rulesets}
    numbers = {"command": command, "levels": {lv.spec: {"base": lv.base, "random_share": lv.random_share / 1000}
                                              for lv in LEVELS},
               "results": results, "wall_seconds": round(time.time() - t0)}
    print(json.dumps(numbers, indent=1))
    save_numbers("levels", numbers)
    write_toml(results, command)
    return numbers


if __name__ == "__main__":
    main()
