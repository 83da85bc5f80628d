"""Study: the scorecard of every preset and every one-field design effect (docs/skill.md, "The scorecard" and
"Drama"): relative skill, the coin-flip equivalent, restricted play, drama, seat advantage and game length,
each with its 95% interval and its paired difference to ludoteka's, from one ``escoba-sim skill`` call.

The ladder is ``random,greedy,heuristic,endgame`` (skill's default without ismcts, which is most of its cost)
at skill's default ``-n`` (``ESCOBA_SCORECARD_N``, 1000 games per pair and ruleset), so the paired differences
say at the command's default size which fields move the seat advantage and the game length, and by how much.
The drama's win-probability model is checked on the games it did not see: a reliability diagram per ruleset
(``results/scorecard_calibration.png``) and its expected calibration error.

    python analysis/scorecard_study.py
    ESCOBA_SCORECARD_N=1000 python analysis/scorecard_study.py
    ESCOBA_SCORECARD_REUSE=1 python analysis/scorecard_study.py   # re-read a finished folder

Its folder (``results/scorecard``) is a skill folder with its report; ``results/scorecard_study.json`` holds
the numbers, each figure's command with them.
"""

from _common import RESULTS, SEED, SETTINGS, fresh, save_numbers
from skill_study import rulesets

from escoba_sim.output.report import write_report
from escoba_sim.series.skill import skill

N = SETTINGS.scorecard_n
LADDER = ["random", "greedy", "heuristic", "endgame"]
SHOWN = ("relative_skill", "relative_skill_hands", "coin_flip", "restricted_cards", "restricted_oros",
         "restricted_sevens", "restricted_siete", "restricted_escobas", "lead_changes", "comebacks",
         "hands_spread", "seat_advantage", "hands_per_game", "skill_share")


def _round(r: dict) -> list:
    return [None if x is None else round(x, 4) for x in (r["estimate"], r["lo"], r["hi"])]


def reliability_chart(frame, path) -> None:
    """Predicted against observed win share per tenth, one line per ruleset, the diagonal for reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    ax.plot([0, 1], [0, 1], color="#888", lw=1, ls="--", label="perfect calibration")
    for label in dict.fromkeys(frame["ruleset"].to_list()):
        rows = frame.filter(frame["ruleset"] == label)
        ax.plot(rows["predicted"].to_list(), rows["observed"].to_list(), marker="o", ms=3, lw=1, label=label)
    ax.set_xlabel("predicted chance side 0 wins, before a hand (model from hands on other deals)")
    ax.set_ylabel("observed share of those states whose game side 0 won")
    ax.set_title("Drama's win-probability model: reliability by tenths\n(two equal heuristics, every ruleset)",
                 fontsize=10)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncol=2, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# the reading of the numbers this script saved (seed 20261129, -n 1000, the ladder above)
READING = (
    "**Seat advantage** (mano minus dealer, points per hand; 0.24 under ludoteka): at skill's default size two "
    "fields move it, with intervals that exclude 0: turning the lucky deal off raises it by +0.098 [+0.073, "
    "+0.123] (the dealer loses its lucky escobas, 0.049 a hand), capture=any by +0.085 [+0.036, +0.134]; "
    "cardgames (capture=any, target 21, ties=none) by +0.161 [+0.095, +0.227]. No other field moves it "
    "detectably. **Game length** (3.96 hands under ludoteka): the target moves it most (+1.46 hands at 21, "
    "+3.93 at 31), then sevens=all (+0.69: fewer points a hand), ties=none (+0.59) and tradicional (+0.37); "
    "lucky_deal=off adds +0.028 [+0.016, +0.039]; capture=any and capture=optional leave it unchanged. "
    "**Relative skill** (the heuristic's edge over random as a share of the oracle's) is 0.78 under ludoteka; "
    "optional capture (capture=optional, tradicional) raises it to 0.92-0.94, forced capture of any card lowers "
    "it to 0.55-0.56 (capture=any, cardgames), and the target, ties and sevens leave it unchanged: they change how "
    "often skill is measured (more hands a game), not how much of the oracle's edge the skilled player reaches. "
    "The two fictive players agree within 0.03 under every ruleset: against a random beginner, seeing the "
    "stock's order adds nothing detectable to seeing the other hand. "
    "The **coin-flip equivalent** orders the rulesets as the skill share does (ludoteka 19%, tradicional 3%, "
    "capture=any 48%, robo 50%, target=31 9%). **Restricted play**: for the heuristic the most cards is the "
    "element worth most to pursue (+0.23 points per hand under ludoteka, +0.63 under tradicional), then oros and "
    "sevens (+0.08 each); the 7 of oros and escobas are worth +0.01 to +0.03, so the heuristic gets them by the "
    "way; under sevens=all pursuing sevens is worth nothing (-0.003). **Drama** between two equal heuristics: "
    "1.1 lead changes a game under ludoteka, more in longer games (1.8 at target 31) and almost none in robo "
    "(0.12: one hand); the side behind before the last hand wins 14% of the games, fewer when games are longer "
    "(7% at 31). The win-probability model's calibration error on games it did not see is 0.012-0.033 (1,100 to "
    "9,100 states), slightly overconfident in the tails (a predicted 0.15 comes true about 0.18 of the time). "
    "Caveats: the ladder has no search (ismcts, most of skill's cost), so the best player is endgame and the "
    "restricted player the heuristic; relative skill depends on the beginner (random here).")


def main() -> dict:
    from escoba_sim.series.tables import read_tables

    out = RESULTS / "scorecard" if SETTINGS.scorecard_reuse else fresh("scorecard")
    s = skill(rulesets(), LADDER, N, out, seed=SEED, jobs=2)
    write_report(out)
    reliability_chart(read_tables(out)["skill_calibration"], RESULTS / "scorecard_calibration.png")
    figures: dict[str, dict] = {}
    for r in s["skill"]:
        if r["metric"] in SHOWN:
            figures.setdefault(r["label"], {})[r["metric"]] = _round(r)
    minus: dict[str, dict] = {}
    for e in s["effects"]:
        minus.setdefault(e["label"], {})[e["metric"]] = _round(e)
    numbers = {"command": f"python analysis/scorecard_study.py (escoba-sim skill with every preset and design "
                          f"effect, --ladder {','.join(LADDER)} -n {N} --seed {SEED})",
               "ladder": LADDER, "n": N, "seed": SEED, "scorecard": s["scorecard"], "figures": figures,
               "minus_ludoteka": minus, "calibration": s.get("calibration"), "reading": READING}
    save_numbers("scorecard_study", numbers)
    return numbers


if __name__ == "__main__":
    main()
