"""Cost per move of search specs in instructions, counted by valgrind's callgrind: deterministic, so two
specs' costs can be compared to a fraction of a percent on a loaded machine (CPU time cannot).

For each ruleset, each spec plays `SPEC vs greedy` on a fixed set of duplicate deals (deals 0 .. N-1 of
--seed, each with the spec in both seats) on the compiled core, in a fresh interpreter run under
`valgrind --tool=callgrind`, counting only the instructions inside the core's play_hands (callgrind's
--toggle-collect on its Cython wrapper: the interpreter's start-up, whose count varies by a few million
instructions from one process to the next, is left out); the same deals as `greedy vs greedy` are counted
too and subtracted (the opponent and the engine), and the rest is divided by the moves the spec made
(every play of its seat, forced ones included: 18 per hand under ludoteka, as bench_strategies.py).
A count repeats to a few thousand instructions in all (malloc's paths vary a little from process to
process): about 0.001% of a spec's count, where whole-process counts varied by 0.3%.

    python benchmarks/bench_ismcts_cost.py --rules ludoteka,tradicional --deals 20 \\
        ismcts:iters=1000,c=4,rollout=0,exact=0,blows=0,leaf=-1,exploit=0,infer=0 ismcts:iters=950,infer=1

Valgrind needs the real interpreter, not a pyenv shim: run this script with it (sys.executable is what
runs under valgrind), e.g. /root/.pyenv/versions/3.11.7/bin/python. Under callgrind a move of the default
search takes about 0.1 s, so 20 deals (40 hands, 720 moves) take about a minute per spec.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
_PLAY_HANDS = "__pyx_pw_*_core_*play_hands"  # the Cython wrapper of _core.play_hands (its inner __pyx_pf_ is
# not matched: a second matching function nested in it would toggle the collection off again)


def _play(spec: str, rules_text: str, seed: int, deals: int) -> None:
    """The counted work: `spec` against greedy in both seats on deals 0 .. deals-1 (greedy alone: the base)."""
    from escoba_sim import _core
    from escoba_sim.game.rules import parse_rules

    rules = parse_rules(rules_text)
    for names in ([spec, "greedy"], ["greedy", spec]):
        _core.play_hands(rules, names, seed, 0, deals)


def instructions(spec: str, rules_text: str, seed: int, deals: int) -> int:
    """Instructions callgrind counts inside _core.play_hands for one fresh interpreter playing _play(spec, ...)."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--collect-atstart=no",
           f"--toggle-collect={_PLAY_HANDS}", sys.executable, __file__,
           "--play", spec, "--rules", rules_text, "--seed", str(seed), "--deals", str(deals)]
    env = dict(os.environ, PYTHONHASHSEED="0")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    m = _COLLECTED.search(r.stderr)
    if r.returncode != 0 or m is None or int(m.group(1)) == 0:
        raise SystemExit(f"callgrind run failed for {spec} ({rules_text}): {r.stderr.strip().splitlines()[-1:]}")
    return int(m.group(1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="*", help="the specs to count (the first is the reference of the ratio column)")
    ap.add_argument("--rules", default="ludoteka", help="comma-separated rulesets")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deals", type=int, default=20, help="duplicate deals (each played in both seatings)")
    ap.add_argument("--json", metavar="FILE", help="write the counts here")
    ap.add_argument("--play", metavar="SPEC", help=argparse.SUPPRESS)  # the counted child process
    args = ap.parse_args(argv)
    if args.play:
        _play(args.play, args.rules, args.seed, args.deals)
        return 0
    if not args.specs:
        ap.error("name at least one spec")

    from bench_strategies import plays_per_seat

    from escoba_sim import native
    from escoba_sim.game.rules import parse_rules
    from escoba_sim.strategies import parse_strategy

    if native.ENGINE != "cython":
        raise SystemExit("bench_ismcts_cost measures the compiled core, which is not built")
    specs = [parse_strategy(s).canonical for s in args.specs]
    out = {"seed": args.seed, "deals": args.deals, "python": sys.executable, "rules": {}}
    for rules_text in args.rules.split(","):
        rules = parse_rules(rules_text)
        moves = 2 * args.deals * plays_per_seat(rules)  # the spec's plays, both seatings
        t0 = time.time()
        base = instructions("greedy", rules_text, args.seed, args.deals)
        rows = []
        for spec in specs:
            total = instructions(spec, rules_text, args.seed, args.deals)
            rows.append({"spec": spec, "instructions": total, "per_move": (total - base) / moves})
        ref = rows[0]["per_move"]
        for r in rows:
            r["ratio"] = r["per_move"] / ref
        out["rules"][rules_text] = {"greedy_instructions": base, "moves": moves, "rows": rows}
        print(f"{rules_text}: {args.deals} duplicate deals (seed {args.seed}), {moves:.0f} moves per spec, "
              f"greedy base {base:,} instructions ({time.time() - t0:.0f} s)")
        print(f"  {'spec':<76} {'instructions/move':>18} {'ratio':>7}")
        for r in rows:
            print(f"  {r['spec']:<76} {r['per_move']:>18,.0f} {r['ratio']:>7.4f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
