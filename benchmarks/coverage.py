"""Coverage of the 95% intervals: many small runs against the value of one large run.

For each of four quantities, ``--runs`` small runs with seeds 1, 2, ... each give a 95%
interval; the table counts how often it holds the quantity's value in one large run
(seed 0, ``--scale`` times more games). The deal model (escoba_sim.runs.stats) should cover
close to 95%: 92-98% is what tests/runs/test_coverage.py requires (the large run's own error
pulls the figure down by about 0.1 point at scale 50).

    python benchmarks/coverage.py [--runs 250] [--scale 50] [--out benchmarks/COVERAGE.md]

Quantities: the score of greedy against maxoros (games, duplicate deals); greedy's points
per hand minus maxoros's; a compare effect (lucky_deal=off minus ludoteka on greedy's game
win rate, paired by deal); a rating difference (greedy minus maxoros in a three-strategy
Bradley-Terry tournament with random).

``--skill`` measures the intervals of ``escoba-sim skill`` instead (series/skill.py), on the ladder
random, greedy, maxoros under ludoteka and tradicional on the same deals (``SMALL["skill"]`` games per
pair): under ludoteka the skill share, the rating spread, the games the stronger neighbour needs at the
closest step, the seat advantage and hands per game; and the contrast of the two rulesets' skill shares
(tradicional minus ludoteka, paired by deal: ``share_contrast``). Its table is appended to ``--out`` under
its own heading.

    python benchmarks/coverage.py --skill --runs 300 --scale 50 --out benchmarks/COVERAGE.md

``--scorecard`` measures the skill scorecard's intervals (relative skill, the coin-flip equivalent,
restricted play, drama, and some of their paired differences) on the ladder random, greedy, heuristic
(``SMALL["scorecard"]`` games per pair), its table into the file ``--out`` names, alone:

    python benchmarks/coverage.py --scorecard --runs 80 --scale 15 --out SCORECARD.md

``--skill --rules R1 --rules R2`` measures the same under two other rulesets of one player count, e.g. the
3-player pairs of docs/skill.md ("Three players"): ``--rules 'ludoteka(players=3)' --rules
'tradicional(players=3)'``; its table is printed (and, with ``--out``, written to that file alone).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

SMALL = {"run": 2000, "compare": 1000, "tournament": 600, "skill": 300, "scorecard": 150}  # games (per pair)
SKILL_HEADING = "## escoba-sim skill"
SCORECARD_HEADING = "## escoba-sim skill: the scorecard"
SCORECARD_METRICS = ("relative_skill", "relative_skill_hands", "learning_effect", "coin_flip", "restricted_cards",
                     "restricted_oros", "restricted_escobas", "lead_changes", "comebacks", "hands_spread")
SCORECARD_EFFECTS = ("relative_skill", "restricted_cards", "lead_changes", "comebacks", "hands_spread")
SKILL_METRICS = ("skill_share", "rating_spread", "games_to_win", "seat_advantage", "hands_per_game")
SKILL_RULES = ("ludoteka", "tradicional")  # the contrast: the second's skill share minus the first's
STRATS = ("greedy", "maxoros", "random")


def quantities(seed: int, scale: int, work: Path) -> dict[str, tuple[float, float, float]]:
    """``name -> (estimate, lo, hi)`` for one seed; ``scale`` multiplies every run's games."""
    from escoba_sim.runs import runner
    from escoba_sim.runs import spec as runspec
    from escoba_sim.runs.stats import Z95
    from escoba_sim.series import compare, tournament

    out = {}
    s = runner.run(runspec.make_spec("greedy", ["maxoros"], "ludoteka", SMALL["run"] * scale, seed=seed)).summary
    el = s["elo"]
    out["score greedy vs maxoros"] = (el["score"], *el["score_ci95"])
    d = s["differences"][0]["points_per_hand"]
    out["points per hand, greedy - maxoros"] = (d["mean"], *d["ci95"])
    folder = work / f"c{seed}"
    c = compare.compare(compare.build_variants([], ["lucky_deal=escobas,off"]), "greedy", "maxoros",
                        SMALL["compare"] * scale, folder, seed=seed)
    e = next(x for x in c["effects"] if x["metric"] == "win_rate")
    out["compare effect: lucky_deal=off on win rate"] = (e["estimate"], e["lo"], e["hi"])
    shutil.rmtree(folder)
    folder = work / f"t{seed}"
    t = tournament.tournament(list(STRATS), SMALL["tournament"] * scale, folder, seed=seed)
    import numpy as np
    import polars as pl

    cov = pl.read_parquet(folder / "tables" / "rating_cov.parquet")
    r = {x["label"]: x["estimate"] for x in t["ratings"]}
    var = cov.filter(pl.col("label") == "greedy")["greedy"][0] + cov.filter(pl.col("label") == "maxoros")["maxoros"][0] \
        - 2 * cov.filter(pl.col("label") == "greedy")["maxoros"][0]
    diff = r["greedy"] - r["maxoros"]
    half = Z95 * float(np.sqrt(max(var, 0.0)))
    out["rating difference greedy - maxoros"] = (diff, diff - half, diff + half)
    shutil.rmtree(folder)
    return out


def skill_quantities(seed: int, scale: int, work: Path, rules: tuple[str, str] = SKILL_RULES
                     ) -> dict[str, tuple[float, float, float]]:
    """The skill ladder's quantities for one seed (``name -> (estimate, lo, hi)``; an unbounded end is inf):
    the first ruleset's, then the second's skill share minus the first's."""
    from escoba_sim.series import skill

    folder = work / f"s{seed}"
    s = skill.skill(skill.skill_variants(list(rules), []), ["random", "greedy", "maxoros"],
                    SMALL["skill"] * scale, folder, seed=seed, scorecard=False)
    shutil.rmtree(folder)
    out = {f"skill: {r['metric']}": _triple(r) for r in s["skill"]
           if r["label"] == rules[0] and r["metric"] in SKILL_METRICS}
    (effect,) = (r for r in s["effects"] if r["metric"] == "skill_share")
    out[f"skill: skill_share, {rules[1]} - {rules[0]}"] = _triple(effect)
    return out


def _triple(r: dict) -> tuple[float, float, float]:
    """A row's ``(estimate, lo, hi)``, an unbounded end infinite."""
    inf = float("inf")
    return (inf if r["estimate"] is None else r["estimate"], -inf if r["lo"] is None else r["lo"],
            inf if r["hi"] is None else r["hi"])


def scorecard_quantities(seed: int, scale: int, work: Path) -> dict[str, tuple[float, float, float]]:
    """The scorecard's figures for one seed (series/scorecard.py, series/drama.py) on the ladder random, greedy,
    heuristic under ludoteka, and some of their tradicional-minus-ludoteka differences (paired)."""
    from escoba_sim.series import skill

    folder = work / f"c{seed}"
    s = skill.skill(skill.skill_variants(list(SKILL_RULES), []), ["random", "greedy", "heuristic"],
                    SMALL["scorecard"] * scale, folder, seed=seed, jobs=2)
    shutil.rmtree(folder)
    out = {f"scorecard: {r['metric']}": _triple(r) for r in s["skill"]
           if r["label"] == SKILL_RULES[0] and r["metric"] in SCORECARD_METRICS}
    for r in s["effects"]:
        if r["metric"] in SCORECARD_EFFECTS:
            out[f"scorecard: {r['metric']}, {SKILL_RULES[1]} - {SKILL_RULES[0]}"] = _triple(r)
    return out


def coverage(runs: int = 250, scale: int = 50, measure=None) -> tuple[dict, dict]:
    """``(truth, hits)``: the large run's values and, per quantity, how many small intervals held them
    (``measure``: ``quantities`` by default, or ``skill_quantities``)."""
    measure = measure or quantities
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        truth = {k: v[0] for k, v in measure(0, scale, work).items()}
        hits = {k: 0 for k in truth}
        widths = {k: 0.0 for k in truth}
        for seed in range(1, runs + 1):
            for k, (_, lo, hi) in measure(seed, 1, work).items():
                hits[k] += lo <= truth[k] <= hi
                widths[k] += (hi - lo) / runs
    return truth, {k: (hits[k], runs, widths[k]) for k in hits}


def table(truth: dict, hits: dict, scale: int) -> str:
    lines = [f"| quantity | large-run value ({scale}x games, seed 0) | covered | runs | coverage | mean width |",
             "|---|---:|---:|---:|---:|---:|"]
    for k, (h, n, w) in hits.items():
        lines.append(f"| {k} | {truth[k]:.5f} | {h} | {n} | {100 * h / n:.1f}% | {w:.4f} |")
    return "\n".join(lines)


def notes(section: str) -> str:
    """The hand-written reading after a section's (first) table, kept when the measurement rewrites the section
    (a later table in the reading, such as the skill section's three-player one, stays with it)."""
    lines = section.rstrip("\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    last = None
    if first is not None:
        last = first
        while last + 1 < len(lines) and lines[last + 1].startswith("|"):
            last += 1
    rest = "\n".join(lines[last + 1:]).strip("\n") if last is not None else ""
    return f"\n{rest}\n" if rest else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=250)
    ap.add_argument("--scale", type=int, default=50)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--skill", action="store_true", help="the skill ladder's intervals (appended to --out)")
    ap.add_argument("--rules", action="append", help="with --skill: two other rulesets (repeat it)")
    ap.add_argument("--scorecard", action="store_true", help="the skill scorecard's intervals (written to --out)")
    a = ap.parse_args()
    if a.scorecard:
        t0 = time.perf_counter()
        truth, hits = coverage(a.runs, a.scale, scorecard_quantities)
        text = table(truth, hits, a.scale)
        print(text)
        if a.out:
            a.out.write_text(f"{SCORECARD_HEADING}\n\nMade by `python benchmarks/coverage.py --scorecard --runs "
                             f"{a.runs} --scale {a.scale} --out {a.out}` (ladder random, greedy, heuristic under "
                             f"{' and '.join(SKILL_RULES)} on the same deals; {SMALL['scorecard']} games per pair; "
                             f"seeds 1..{a.runs}); measured in {time.perf_counter() - t0:.0f} s.\n\n{text}\n")
        return
    if a.rules is not None and not (a.skill and len(a.rules) == 2):
        ap.error("--rules goes with --skill, twice")
    t0 = time.perf_counter()
    rules = tuple(a.rules or SKILL_RULES)
    truth, hits = coverage(a.runs, a.scale, (lambda seed, scale, work: skill_quantities(seed, scale, work, rules))
                           if a.skill else None)
    text = table(truth, hits, a.scale)
    print(text)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if a.out and a.rules:
        a.out.write_text(f"Made by `python benchmarks/coverage.py --skill --runs {a.runs} --scale {a.scale} "
                         + " ".join(f"--rules '{r}'" for r in rules) + f" --out {a.out}` (ladder random, greedy, "
                         f"maxoros; {SMALL['skill']} games per pair; seeds 1..{a.runs}); measured in "
                         f"{time.perf_counter() - t0:.0f} s.\n\n{text}\n")
    elif a.out:
        # the file has two sections, each rewritten by its own measurement and kept by the other's
        old = a.out.read_text() if a.out.exists() else ""
        main_part, _, skill_part = old.partition(SKILL_HEADING)
        if a.skill:
            skill_part = (f"\n\nMade by `python benchmarks/coverage.py --skill --runs {a.runs} --scale {a.scale} "
                          f"--out {a.out}` (ladder random, greedy, maxoros under {' and '.join(SKILL_RULES)} on the "
                          f"same deals; small ladders: "
                          f"{SMALL['skill']} games per pair; seeds 1..{a.runs}); measured in "
                          f"{time.perf_counter() - t0:.0f} s.\n\n{text}\n{notes(skill_part)}")
        else:
            main_part = (
                "# Coverage of the 95% intervals\n\nMade by `python benchmarks/coverage.py --runs "
                f"{a.runs} --scale {a.scale} --out {a.out}` (small runs: {SMALL['run']} games; compare "
                f"{SMALL['compare']} games per ruleset; tournament {SMALL['tournament']} games per pair; seeds "
                f"1..{a.runs}).\n\n{text}\n{notes(main_part)}\n")
        a.out.write_text(main_part.rstrip("\n") + "\n\n" + (SKILL_HEADING + skill_part if skill_part else ""))

if __name__ == "__main__":
    main()
