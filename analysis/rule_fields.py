"""Study: what each rule field the design names does to the game (paired differences on the same deals)."""

from _common import SEED, N, fresh, save_numbers

from escoba_sim.output.report import write_report
from escoba_sim.series.compare import DESIGN_EFFECTS, build_variants, compare

KEEP = ("win_rate", "hands_per_game", "seat_advantage", "escobas", "total:greedy")


def main() -> dict:
    out = fresh("rule_fields")
    s = compare(build_variants(["ludoteka"], list(DESIGN_EFFECTS)), "greedy", "maxoros", N, out, seed=SEED)
    write_report(out)
    numbers = {"command": f"python analysis/rule_fields.py (n={N} games per ruleset, seed={SEED})",
               "effects": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in e.items()}
                           for e in s["effects"] if e["metric"] in KEEP]}
    for e in numbers["effects"]:
        print(e)
    save_numbers("rule_fields", numbers)
    return numbers


if __name__ == "__main__":
    main()
