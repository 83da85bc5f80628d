"""Study: the strength of the built-in strategies under each preset (a tournament per preset)."""

from _common import SEED, N, fresh, save_numbers

from escoba_sim.game.rules import PRESETS
from escoba_sim.output.report import write_report
from escoba_sim.series.tournament import tournament


def main() -> dict:
    numbers = {"command": f"python analysis/strategies_by_preset.py (n={N} games per pair, seed={SEED})"}
    for preset in PRESETS:
        out = fresh(f"strategies_{preset}")
        s = tournament(["greedy", "maxoros", "random"], N, out, rules=preset, seed=SEED)
        write_report(out)
        numbers[preset] = {r["label"]: [round(r["estimate"], 1), round(r["lo"], 1), round(r["hi"], 1)]
                           for r in s["ratings"]}
        print(preset, numbers[preset])
    save_numbers("strategies_by_preset", numbers)
    return numbers


if __name__ == "__main__":
    main()
