"""Study: how long games last (hands per game) under each preset and target."""

from _common import SEED, N, fresh, save_numbers

from escoba_sim.output.report import write_report
from escoba_sim.series.compare import build_variants, compare


def main() -> dict:
    out = fresh("game_length")
    s = compare(build_variants(["ludoteka"], ["target=15,21,31"]), "greedy", "maxoros", N, out, seed=SEED)
    write_report(out)
    numbers = {"command": f"python analysis/game_length.py (n={N} games per target, seed={SEED})",
               "hands_per_game": {e["label"]: [round(e["estimate"], 3), round(e["lo"], 3), round(e["hi"], 3)]
                                  for e in s["estimates"] if e["metric"] == "hands_per_game"}}
    print(numbers)
    save_numbers("game_length", numbers)
    return numbers


if __name__ == "__main__":
    main()
