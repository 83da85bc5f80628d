"""Study: heuristic's weights tuned by CMA-ES (`escoba-sim tune`) for each preset, against the hand-set ones.

For each preset, one `escoba-sim tune heuristic --vs greedy` (TUNE_EVALS
evaluations of TUNE_GAMES duplicate deals each, seed SEED), whose final check
plays the tuned weights against the hand-set defaults on CHECK fresh duplicate
deals (points per hand, 95% interval). Also each of the two against greedy on
the same CHECK fresh deals. The tuned weights are what escoba_sim/strategies/tuned.toml
ships as `heuristic:tuned`: after reading the checks,
`python analysis/tuned_weights.py --ship` writes them from
results/tuned_weights.json into escoba_sim/strategies/tuned.toml. Counts: ESCOBA_TUNE_EVALS, ESCOBA_TUNE_GAMES,
ESCOBA_TUNE_CHECK override them.
"""

import json
import sys
from pathlib import Path

from _common import RESULTS, SEED, SETTINGS, fresh, save_numbers

from escoba_sim.game.rules import PRESETS, parse_rules
from escoba_sim.tune import check_seed, interval, make_tune_spec, margins, tune

EVALS = SETTINGS.tune_evals
GAMES = SETTINGS.tune_games
CHECK = SETTINGS.tune_check


def main() -> dict:
    numbers = {"script": f"python analysis/tuned_weights.py (ESCOBA_TUNE_EVALS={EVALS}, ESCOBA_TUNE_GAMES={GAMES}, "
                         f"ESCOBA_TUNE_CHECK={CHECK})", "seed": SEED, "evals": EVALS, "games": GAMES, "check": CHECK,
               "presets": {}}
    for preset in PRESETS:
        out = fresh(f"tune_{preset}")
        cmd = (f"escoba-sim tune heuristic --vs greedy --rules {preset} --evals {EVALS} --games {GAMES} "
               f"--check {CHECK} --seed {SEED} --out analysis/results/tune_{preset}")
        spec = make_tune_spec("heuristic", rules=preset, pool=["greedy"], evals=EVALS, games=GAMES, seed=SEED,
                              check=CHECK)
        s = tune(spec, out, jobs=2)
        c = s["check"]
        rules = parse_rules(preset)
        vs_greedy = {}
        for who, name in (("tuned", s["tuned"]), ("hand-set", spec.strategy)):
            est, lo, hi = interval(margins(rules, name, "greedy", check_seed(SEED), 0, CHECK))
            vs_greedy[who] = [round(est, 4), round(lo, 4), round(hi, 4)]
        numbers["presets"][preset] = {
            "command": cmd, "tuned": s["tuned"], "evaluations": spec.evals, "popsize": spec.popsize,
            "tuned_minus_handset": [round(c["points_per_hand"], 4), round(c["lo"], 4), round(c["hi"], 4)],
            "vs_greedy": vs_greedy, "check_seed": c["seed"], "check_deals": c["deals"],
            "history_best": [round(h["best"], 4) for h in s["history"]]}
        print(preset, numbers["presets"][preset], flush=True)
    save_numbers("tuned_weights", numbers)
    return numbers


def ship() -> None:
    """Write escoba_sim/strategies/tuned.toml (what `heuristic:tuned` reads) from the saved study."""
    from escoba_sim.strategies import parse_strategy

    numbers = json.loads((RESULTS / "tuned_weights.json").read_text())
    lines = ["# Parameters tuned per preset, read by `heuristic:tuned` (escoba_sim.strategies.tuned_params).",
             f"# Written by `python analysis/tuned_weights.py --ship` from the study `{numbers['script']}`, seed {numbers['seed']};",
             "# each preset's command and check (tuned minus hand-set, points per hand, 95%) are in analysis/README.md."]
    for preset, p in numbers["presets"].items():
        c = p["tuned_minus_handset"]
        lines += ["", f"# {p['command']}", f"# check: {c[0]:+.4f} [{c[1]:+.4f}, {c[2]:+.4f}] on {p['check_deals']} deals",
                  f"[heuristic.{preset}]"]
        lines += [f"{k} = {float(v)!r}" for k, v in parse_strategy(p["tuned"]).params]
    target = Path(__file__).resolve().parent.parent / "escoba_sim" / "tuned.toml"
    target.write_text("\n".join(lines) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    ship() if sys.argv[1:] == ["--ship"] else main()
