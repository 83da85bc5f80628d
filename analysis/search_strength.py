"""Study: how strong the search strategy ismcts is, at its default budget, against the other strategies.

One `escoba-sim tournament` under ludoteka with duplicate deals: ismcts (default
budget) against every strategy the compiled core plays, so each pair runs in
minutes. Its own game count (ESCOBA_ISMCTS_N, default 500 games per pair):
ismcts costs about a millisecond per move, so the studies' N (300k) would take
days. Saves the ratings and every ismcts pair (game score and points per hand
with 95% intervals) to results/search_strength.json for make_readme.py.
"""

import os

from _common import SEED, fresh, save_numbers

from escoba_sim.batch import engine_for
from escoba_sim.report import write_report
from escoba_sim.strategies import BUILTINS, parse_strategy
from escoba_sim.tournament import tournament

N = int(float(os.environ.get("ESCOBA_ISMCTS_N", "500")))


def entrants() -> list[str]:
    """ismcts first, then every other built-in the compiled core plays (reference-only ones would take hours)."""
    others = [n for n, d in BUILTINS.items() if n != "ismcts" and engine_for([parse_strategy(n)]) == "cython"]
    return ["ismcts", *others]


def main() -> dict:
    names = entrants()
    cmd = (f"escoba-sim tournament {' '.join(names)} -n {N} --rules ludoteka --seed {SEED} "
           f"--out analysis/results/search_strength")
    out = fresh("search_strength")
    s = tournament(names, N, out, rules="ludoteka", seed=SEED, jobs=2)
    write_report(out)
    label = parse_strategy("ismcts").canonical
    numbers = {"command": cmd, "script": f"python analysis/search_strength.py (ESCOBA_ISMCTS_N={N})",
               "ismcts": label, "games_per_pair": s["games_per_pair"], "version": s["version"],
               "engine": s["engine"],
               "ratings": {r["label"]: [round(r["estimate"], 1), round(r["lo"], 1), round(r["hi"], 1)]
                           for r in s["ratings"]},
               "ismcts_pairs": [
                   {"vs": p["col"], "games": p["games"],
                    "score": [round(p["score"], 4), round(p["score_lo"], 4), round(p["score_hi"], 4)],
                    "points_diff": [round(p["points_diff"], 3), round(p["points_diff_lo"], 3),
                                    round(p["points_diff_hi"], 3)]}
                   for p in s["pairs"] if p["row"] == label]}
    print(numbers)
    save_numbers("search_strength", numbers)
    return numbers


if __name__ == "__main__":
    main()
