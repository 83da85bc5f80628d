"""Study: how strong every built-in strategy is, and whether each does what its name says (ludoteka).

1. One `escoba-sim tournament` of STRATEGIES under ludoteka, duplicate deals,
   N games per pair: Bradley-Terry ratings (Elo scale) and every pair's points
   per hand, with 95% intervals.
2. Behaviour: each strategy against greedy on the same deals (hands, both
   seats): what it takes per hand (oros, sevens, the 7 of oros, escobas) and
   the escobas its opponent makes (conceded), each with a 95% interval over
   deals, so "maxoros takes more oros" or "defensive concedes fewer escobas"
   can be read off against greedy's own row.
Add a strategy (a spec string) to STRATEGIES to put it in both tables.
"""

import math

from _common import SEED, N, fresh, save_numbers

from escoba_sim.batch import play_hands
from escoba_sim.game.rules import PRESETS
from escoba_sim.output.report import write_report
from escoba_sim.series.tournament import tournament
from escoba_sim.strategies import parse_strategy

STRATEGIES = ["random", "greedy", "maxoros", "sevens", "defensive", "heuristic", "endgame"]
BEHAVIOUR_DEALS = 200_000
CHUNK = 50_000


def short(label: str) -> str:
    return label.split(":")[0]


def behaviour(spec: str, deals: int | None = None) -> dict:
    """Per-hand means against greedy over `deals` deals (both seats), with 95% intervals over deals."""
    deals = deals or BEHAVIOUR_DEALS
    rules = PRESETS["ludoteka"]
    sums: dict[str, list[float]] = {}
    for first in range(0, deals, CHUNK):
        n = min(CHUNK, deals - first)
        a = play_hands(rules, [spec, "greedy"], SEED, first, n).hands
        b = play_hands(rules, ["greedy", spec], SEED, first, n).hands
        cols = {"oros_taken": ("oros_taken", 0), "sevens_taken": ("sevens_taken", 0),
                "siete_oros": ("siete_oros", 0), "escobas": ("escobas", 0), "escobas_conceded": ("escobas", 1),
                "points_diff": None}
        for name, how in cols.items():
            if how is None:
                v = ((a["total"][:, 0] - a["total"][:, 1]) + (b["total"][:, 1] - b["total"][:, 0])) / 2
            else:
                col, who = how
                v = (a[col][:, who].astype(float) + b[col][:, 1 - who]) / 2
            s = sums.setdefault(name, [0.0, 0.0, 0])
            s[0] += float(v.sum())
            s[1] += float((v.astype(float) ** 2).sum())
            s[2] += n
    out = {}
    for name, (s1, s2, n) in sums.items():
        mean = s1 / n
        se = math.sqrt(max(s2 / n - mean * mean, 0.0) / (n - 1))
        out[name] = [round(mean, 4), round(mean - 1.96 * se, 4), round(mean + 1.96 * se, 4)]
    return out


def main() -> dict:
    names = [parse_strategy(s).canonical for s in STRATEGIES]
    out = fresh("strategy_strength")
    cmd = (f"escoba-sim tournament {' '.join(STRATEGIES)} -n {N} --rules ludoteka --seed {SEED} "
           "--out analysis/results/strategy_strength")
    s = tournament(names, N, out, rules="ludoteka", seed=SEED, jobs=2)
    write_report(out)
    numbers = {
        "command": cmd, "script": f"python analysis/strategy_strength.py (n={N} games per pair, seed={SEED})",
        "labels": {short(n): n for n in names}, "games_per_pair": s["games_per_pair"], "version": s["version"],
        "engine": s["engine"],
        "ratings": {short(r["label"]): [round(r["estimate"], 1), round(r["lo"], 1), round(r["hi"], 1)]
                    for r in s["ratings"]},
        "pairs": [{"a": short(p["row"]), "b": short(p["col"]), "games": p["games"],
                   "score": [round(p["score"], 4), round(p["score_lo"], 4), round(p["score_hi"], 4)],
                   "points_diff": [round(p["points_diff"], 3), round(p["points_diff_lo"], 3),
                                   round(p["points_diff_hi"], 3)]}
                  for p in s["pairs"]],
        "behaviour_deals": BEHAVIOUR_DEALS,
        "behaviour_vs_greedy": {short(n): behaviour(n) for n in names},
    }
    print(numbers)
    save_numbers("strategy_strength", numbers)
    return numbers


if __name__ == "__main__":
    main()
