"""Study: ismcts' search options against its default (issue 14), under ludoteka and tradicional.

Each option plays the default as it was then (OLD below: 1000 iterations,
greedy rollouts, no exact solving, greedy's blows, uniform deals; spelled in
full so that the study keeps measuring it: `ismcts:iters=1000,infer=0` since
the default became the candidate below) on the same duplicate deals: every deal
(seed SEED) is played once with each seating, and the per-deal margin (option
minus default, points per hand, averaged over the two seatings) gives the mean
and its 95% interval over deals. The options: `exact=6` (exact play once the
stock is empty, two players) and `exact=6,exploit=1` (the same, choosing among
the minimax-best moves by a search over the replies) on ESCOBA_SEARCH_N deals
(default 2000); with `exact=6`, `blows=1` (blow decisions searched; soplar, so
tradicional only) and `leaf=40` (every simulation ends by exact search once
its stock is empty) on ESCOBA_SEARCH_N_OPTION deals (default 1000), and
`infer=1` (deals consistent with the values each seat showed it lacked) on
ESCOBA_SEARCH_N_INFER deals (default 6000: its gain, a few hundredths of a
point, needs them to show). ismcts costs about a millisecond per move, so the
studies' N would take days.

The candidate for a new default (CANDIDATE, ESCOBA_SEARCH_CANDIDATE, default
`ismcts:iters=950,infer=1`: inferred deals with fewer iterations, so that it
costs no more per move than the default) plays the default the same way on
ESCOBA_SEARCH_N_INFER deals, and its cost per move is measured twice: in
instructions counted by callgrind on fixed deals against greedy
(benchmarks/bench_ismcts_cost.py, ESCOBA_SEARCH_COST_DEALS deals of seed 1,
default 12; deterministic, so it is the cost the bar is judged on; skipped
with 0 or without valgrind), and in CPU time (below; the default and the
candidate alternated ESCOBA_SEARCH_CPU_RUNS times, default 3).

Against greedy: the default, the candidate and the options that do not cost
several times its CPU (exact, exploit, infer) each play greedy on the same
ESCOBA_SEARCH_N_GREEDY duplicate deals (default 1000, seed SEED: oracle_gap.py's
deals); the paired per-deal difference of each spec's margin and the default's
gives its 95% interval, so a weaker opponent's errors exploited less show as a
negative one.

Cost: CPU microseconds per move of each spec against greedy
(benchmarks/bench_strategies.py's measure: both seats in turn, greedy-vs-greedy
subtracted, process CPU time), measured default, each option, then again, and
averaged, so load that drifts during the run hits all alike.

The confirmation (part "confirm", registered before it was run, 2026-11-30):
the candidate against the default on fresh deals, CONFIRM_SEED (not SEED, on
whose deals the candidate was screened), ESCOBA_SEARCH_N_CONFIRM duplicate
deals per ruleset (default 30000, fixed beforehand so that a gain of 0.02
points per hand would show), and both against greedy on
ESCOBA_SEARCH_N_CONFIRM_GREEDY fresh deals (default 4000). The bar, also fixed
beforehand: head to head, the 95% interval above zero under both ludoteka and
tradicional; against greedy, the paired difference's interval not wholly below
zero. Its deals are played in chunks by ESCOBA_SEARCH_JOBS processes (default:
all cores); the per-deal margins do not depend on the chunking.

ESCOBA_SEARCH_PARTS (default "options,candidate") runs only some parts; the
others keep their numbers from results/search_strength.json ("candidate_cost":
only the candidate's instruction counts). Saves
results/search_strength.json for make_readme.py.
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
from _common import EARLIER_ISMCTS, RESULTS, SEED, SETTINGS, save_numbers

from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import parse_strategy
from escoba_sim.tune import interval, margins

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_ismcts_cost import instructions  # noqa: E402
from bench_strategies import measure, plays_per_seat  # noqa: E402

N = SETTINGS.search_n
N_OPTION = SETTINGS.search_n_option
N_GREEDY = SETTINGS.search_n_greedy
N_INFER = SETTINGS.search_n_infer
SECONDS = SETTINGS.search_seconds
COST_DEALS = SETTINGS.search_cost_deals
CPU_RUNS = SETTINGS.search_cpu_runs
PARTS = SETTINGS.search_parts
CONFIRM_SEED = 20261130
N_CONFIRM = SETTINGS.search_n_confirm
N_CONFIRM_GREEDY = SETTINGS.search_n_confirm_greedy
JOBS = SETTINGS.search_jobs
CONFIRM_CHUNK = 1000  # deals per task
RULES = ["ludoteka", "tradicional"]
# the default then (the search before the options existed; ismcts:iters=1000,infer=0 since the default became
# iters=950,infer=1)
OLD = parse_strategy(EARLIER_ISMCTS).canonical
# (spelled with what it then meant: exact, stop and prior were off, c 4 and greedy rollouts; bare `ismcts` is
# issue 24's default since)
CANDIDATE = parse_strategy(SETTINGS.search_candidate).canonical


def on_old(option: str) -> str:
    """OLD with the settings of `option` (key=value,...) in place of its own."""
    given = dict(kv.split("=") for kv in (OLD.split(":")[1] + "," + option).split(","))
    return parse_strategy("ismcts:" + ",".join(f"{k}={v}" for k, v in given.items())).canonical


# each option on top of OLD (measured against OLD, whatever the default becomes)
OPTIONS = {k: on_old(v) for k, v in (("exact", "exact=6"), ("exploit", "exact=6,exploit=1"),
                                     ("blows", "exact=6,blows=1"), ("leaf", "exact=6,leaf=40"), ("infer", "infer=1"))}
FULL_N = ("exact", "exploit")  # played on N deals, the others on N_OPTION
VS_GREEDY = ("exact", "exploit", "infer")


def cost(spec: str, rules: str) -> float:
    return measure(spec, rules, SECONDS)["us_per_move"]


def paired(rules: str, spec: str, n: int) -> dict:
    m = margins(parse_rules(rules), spec, OLD, SEED, 0, n)
    mean, lo, hi = interval(m)
    return {"minus_old": [round(mean, 4), round(lo, 4), round(hi, 4)], "deals": n,
            "deals_that_differ": int(np.count_nonzero(m))}


def against_greedy(rules: str, specs: dict) -> dict:
    """Each spec's margin over greedy on the same N_GREEDY deals, paired with OLD's."""
    r = parse_rules(rules)
    old = margins(r, OLD, "greedy", SEED, 0, N_GREEDY)
    out = {"old": [round(x, 4) for x in interval(old)]}
    for k, spec in specs.items():
        m = margins(r, spec, "greedy", SEED, 0, N_GREEDY)
        out[k] = {"vs_greedy": [round(x, 4) for x in interval(m)],
                  "minus_old": [round(x, 4) for x in interval(m - old)]}
    return out


def candidate_instructions(rules: str) -> dict:
    """OLD's and CANDIDATE's instructions per move against greedy (bench_ismcts_cost.py); {} without valgrind."""
    if COST_DEALS <= 0 or not shutil.which("valgrind"):
        return {}
    base = instructions("greedy", rules, 1, COST_DEALS)
    moves = 2 * COST_DEALS * plays_per_seat(parse_rules(rules))  # both seatings
    return {"instructions_per_move": {k: round((instructions(spec, rules, 1, COST_DEALS) - base) / moves)
                                      for k, spec in (("old", OLD), ("candidate", CANDIDATE))},
            "instruction_deals": COST_DEALS}


def candidate_against_old(rules: str) -> dict:
    """CANDIDATE against OLD: head to head, against greedy, and their cost per move (instructions, CPU time)."""
    out = {"paired": paired(rules, CANDIDATE, N_INFER), "vs_greedy": against_greedy(rules, {"candidate": CANDIDATE}),
           **candidate_instructions(rules)}
    us = {"old": [], "candidate": []}
    for _ in range(CPU_RUNS):  # alternated, so drifting load hits both alike
        us["old"].append(cost(OLD, rules))
        us["candidate"].append(cost(CANDIDATE, rules))
    out["us_per_move"] = {k: round(float(np.mean(v)), 1) for k, v in us.items()}
    out["us_per_move_runs"] = {k: [round(x, 1) for x in v] for k, v in us.items()}
    return out


def _margins_chunk(task: tuple) -> np.ndarray:
    rules, spec, opponent, first, deals = task
    return margins(parse_rules(rules), spec, opponent, CONFIRM_SEED, first, deals)


def confirm_margins(pool, rules: str, spec: str, opponent: str, n: int) -> np.ndarray:
    """margins() on CONFIRM_SEED's first n deals, played in chunks by the pool (the same numbers as one call)."""
    tasks = [(rules, spec, opponent, first, min(CONFIRM_CHUNK, n - first)) for first in range(0, n, CONFIRM_CHUNK)]
    return np.concatenate(list(pool.map(_margins_chunk, tasks)))


def confirm(rules: str, pool) -> dict:
    """The registered confirmation: CANDIDATE against OLD on fresh deals, and both against greedy."""
    m = confirm_margins(pool, rules, CANDIDATE, OLD, N_CONFIRM)
    old = confirm_margins(pool, rules, OLD, "greedy", N_CONFIRM_GREEDY)
    cand = confirm_margins(pool, rules, CANDIDATE, "greedy", N_CONFIRM_GREEDY)
    return {"paired": {"minus_old": [round(x, 4) for x in interval(m)], "deals": N_CONFIRM,
                       "deals_that_differ": int(np.count_nonzero(m))},
            "vs_greedy": {"old": [round(x, 4) for x in interval(old)],
                          "candidate": {"vs_greedy": [round(x, 4) for x in interval(cand)],
                                        "minus_old": [round(x, 4) for x in interval(cand - old)]}}}


def options_against_old(rules: str) -> dict:
    specs = {"old": OLD, **{k: v for k, v in OPTIONS.items() if k != "blows" or parse_rules(rules).soplar}}
    us = {k: [] for k in specs}
    for _ in range(2):
        for k, spec in specs.items():
            us[k].append(cost(spec, rules))
    return {
        "paired": {k: paired(rules, spec, N if k in FULL_N else N_INFER if k == "infer" else N_OPTION)
                   for k, spec in specs.items() if k != "old"},
        "vs_greedy": against_greedy(rules, {k: OPTIONS[k] for k in VS_GREEDY}),
        "us_per_move": {k: round(float(np.mean(v)), 1) for k, v in us.items()},
        "us_per_move_runs": {k: [round(x, 1) for x in v] for k, v in us.items()},
    }


def main() -> dict:
    script = (f"python analysis/search_strength.py (ESCOBA_SEARCH_N={N}, ESCOBA_SEARCH_N_OPTION={N_OPTION}, "
              f"ESCOBA_SEARCH_N_GREEDY={N_GREEDY}, ESCOBA_SEARCH_N_INFER={N_INFER}, seed={SEED})")
    before = json.loads((RESULTS / "search_strength.json").read_text()) if set(PARTS) != {"candidate", "options"} \
        and (RESULTS / "search_strength.json").exists() else {}
    numbers = {"seed": SEED, "old": OLD, "greedy_deals": N_GREEDY}
    if "candidate" in PARTS:
        numbers["candidate"] = {
            "script": f"ESCOBA_SEARCH_PARTS=candidate python analysis/search_strength.py (ESCOBA_SEARCH_N_INFER={N_INFER}, "
                      f"ESCOBA_SEARCH_N_GREEDY={N_GREEDY}, ESCOBA_SEARCH_COST_DEALS={COST_DEALS}, "
                      f"ESCOBA_SEARCH_CPU_RUNS={CPU_RUNS}, ESCOBA_SEARCH_SECONDS={SECONDS:g}, seed={SEED})",
            "spec": CANDIDATE, "rules": {rules: candidate_against_old(rules) for rules in RULES}}
        print("candidate", numbers["candidate"], flush=True)
    elif "candidate" in before:
        numbers["candidate"] = before["candidate"]
        if "candidate_cost" in PARTS:  # only its instruction counts again (the same spec)
            assert before["candidate"]["spec"] == CANDIDATE, "ESCOBA_SEARCH_CANDIDATE is not the saved candidate's"
            for rules, r in numbers["candidate"]["rules"].items():
                r.update(candidate_instructions(rules))
            numbers["candidate"]["cost_script"] = ("ESCOBA_SEARCH_PARTS=candidate_cost python analysis/search_strength.py "
                                                   f"(ESCOBA_SEARCH_COST_DEALS={COST_DEALS})")
    if "confirm" in PARTS:
        import concurrent.futures as cf
        import multiprocessing as mp

        with cf.ProcessPoolExecutor(JOBS, mp_context=mp.get_context("spawn")) as pool:
            numbers["confirm"] = {
                "script": f"ESCOBA_SEARCH_PARTS=confirm python analysis/search_strength.py (ESCOBA_SEARCH_N_CONFIRM="
                          f"{N_CONFIRM}, ESCOBA_SEARCH_N_CONFIRM_GREEDY={N_CONFIRM_GREEDY}, seed={CONFIRM_SEED})",
                "spec": CANDIDATE, "seed": CONFIRM_SEED, "greedy_deals": N_CONFIRM_GREEDY,
                "rules": {rules: confirm(rules, pool) for rules in RULES}}
        print("confirm", numbers["confirm"], flush=True)
    elif "confirm" in before:
        numbers["confirm"] = before["confirm"]
    if "options" in PARTS:
        numbers.update(script=script, options=OPTIONS, rules={rules: options_against_old(rules) for rules in RULES})
        print("options", numbers["rules"], flush=True)
    else:
        numbers.update({k: before[k] for k in ("script", "options", "rules") if k in before})
    save_numbers("search_strength", numbers)
    return numbers


if __name__ == "__main__":
    main()
