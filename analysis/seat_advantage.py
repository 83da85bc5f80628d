"""Study: how much dealing or playing first (mano) is worth, per preset, with equal strategies."""

from _common import SEED, N, fresh, save_numbers

from escoba_sim.game.rules import PRESETS
from escoba_sim.output.report import write_report
from escoba_sim.series.compare import build_variants, compare


def main() -> dict:
    out = fresh("seat_advantage")
    s = compare(build_variants(list(PRESETS), []), "greedy", "greedy", N, out, seed=SEED)
    write_report(out)
    numbers = {"command": f"python analysis/seat_advantage.py (n={N} games per preset, seed={SEED})",
               "seat_advantage_points_per_hand": {e["label"]: [round(e["estimate"], 4), round(e["lo"], 4),
                                                               round(e["hi"], 4)]
                                                  for e in s["estimates"] if e["metric"] == "seat_advantage"}}
    print(numbers)
    save_numbers("seat_advantage", numbers)
    return numbers


if __name__ == "__main__":
    main()
