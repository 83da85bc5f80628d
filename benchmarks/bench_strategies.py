"""Cost per move of the strategies in the compiled core, one core.

Each row plays whole hands of `STRATEGY vs greedy` under a ruleset (default
ludoteka) on the compiled core for about --seconds of process CPU time (not
wall-clock time, so other jobs on a shared machine count less), subtracts what
the same hands cost as `greedy vs greedy` (the opponent and the engine), and divides by
the moves the measured strategy made: every play of its seat, forced ones (a
single legal move, which the search strategies make without searching)
included. With two players under ludoteka a seat makes 18 plays per hand.
Rows are the cheap built-ins and the search strategies at several budgets;
add a strategy by adding its spec to ROWS.

    python benchmarks/bench_strategies.py --seconds 5
    python benchmarks/bench_strategies.py --rows ismcts --json ismcts.json
    python benchmarks/bench_strategies.py --rules tradicional --against ismcts ismcts:iters=1000,infer=0
"""

from __future__ import annotations

import argparse
import json
import platform
import time

# (group, spec): group selects rows with --rows
ROWS = [
    ("builtin", "greedy"),
    ("builtin", "maxoros"),
    ("builtin", "random"),
    ("builtin", "sevens"),
    ("builtin", "defensive"),
    ("builtin", "heuristic"),
    ("builtin", "endgame"),  # its exact search runs only on the last deal (each seat's last 3 moves)
    ("ismcts", "ismcts:iters=100"),
    ("ismcts", "ismcts:iters=300"),
    ("ismcts", "ismcts"),  # the default: 950 iterations, inferred deals
    ("ismcts", "ismcts:iters=1000,infer=0"),  # the earlier default: 1000 iterations, uniform deals
    ("ismcts", "ismcts:iters=3000"),
    ("ismcts", "ismcts:exact=6"),  # exact play once the stock is empty
    ("ismcts", "ismcts:rollout=1"),  # heuristic rollouts
    ("ismcts", "ismcts:exact=6,leaf=40"),  # every simulation ends by exact search once its stock is empty
]


def plays_per_seat(rules) -> float:
    """Plays a seat makes in one hand: every card it is dealt (the table cards are never played)."""
    return (40 - rules.table_size) / rules.players


def _time_hands(rules, strategies, seconds: float, min_hands: int = 20) -> tuple[int, float]:
    from escoba_sim import _core

    _core.play_hands(rules, strategies, 1, 0, 2)  # warm up
    n, hands, t0 = 0, max(2, min_hands // 4), time.process_time()
    while True:
        _core.play_hands(rules, strategies, 1, n, hands)
        n += hands
        dt = time.process_time() - t0
        if dt >= seconds and n >= min_hands:
            return n, dt
        hands = min(hands * 2, max(hands, int(n * (seconds - dt) / max(dt, 1e-9)) + 1))


def measure(spec: str, rules_text: str = "ludoteka", seconds: float = 3.0) -> dict:
    """Microseconds per move of `spec` (seat 0 and seat 1 in turn) against greedy."""
    from escoba_sim.game.rules import parse_rules

    rules = parse_rules(rules_text)
    # both seats in turn, so the mano's extra search (if any) is averaged out
    n_a, t_a = _time_hands(rules, [spec, "greedy"], seconds / 2)
    n_b, t_b = _time_hands(rules, ["greedy", spec], seconds / 2)
    n_g, t_g = _time_hands(rules, ["greedy", "greedy"], min(seconds / 2, 1.0), min_hands=10_000)
    per_hand = (t_a + t_b) / (n_a + n_b) - t_g / n_g
    moves = plays_per_seat(rules)
    return {"spec": spec, "rules": rules_text, "hands": n_a + n_b, "seconds": round(t_a + t_b, 3),
            "us_per_hand": per_hand * 1e6, "plays_per_hand": moves, "us_per_move": per_hand * 1e6 / moves,
            "hands_per_s": (n_a + n_b) / (t_a + t_b)}


def alternate(spec: str, other: str, rules_text: str = "ludoteka", rounds: int = 40, deals: int = 16) -> dict:
    """`spec` against `other` in thread CPU time on the same fixed deals, alternated `rounds` times.

    Each round plays `deals` hands of each spec against greedy (seat 0, seed 7, the same hands every round) and
    times it with the thread's CPU clock; the quickest round of each is the least disturbed by a shared
    machine, so their ratio compares the two without the noise of a single timed stretch (which on this VM
    moves by 20-30% between runs of one spec).
    """
    from escoba_sim import _core
    from escoba_sim.game.rules import parse_rules

    rules = parse_rules(rules_text)
    times = {spec: [], other: []}
    for _ in range(rounds):
        for s in (spec, other):
            t0 = time.thread_time()
            _core.play_hands(rules, [s, "greedy"], 7, 0, deals)
            times[s].append(time.thread_time() - t0)
    best = {s: min(v) for s, v in times.items()}
    return {"rules": rules_text, "rounds": rounds, "deals": deals,
            "best_ms": {s: round(v * 1e3, 1) for s, v in best.items()},
            "median_ms": {s: round(sorted(v)[len(v) // 2] * 1e3, 1) for s, v in times.items()},
            "ratio": best[spec] / best[other]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per row")
    ap.add_argument("--rows", default=None, help="only these groups (comma-separated): " +
                    ", ".join(sorted({g for g, _ in ROWS})))
    ap.add_argument("--json", metavar="FILE", help="write the measurements here")
    ap.add_argument("--against", nargs=2, metavar=("SPEC", "OTHER"),
                    help="instead of the rows: SPEC's best-of-N thread CPU time on fixed deals over OTHER's, "
                         "alternated (e.g. ismcts ismcts:iters=1000,infer=0)")
    ap.add_argument("--rounds", type=int, default=40, help="with --against: alternations")
    args = ap.parse_args(argv)

    from escoba_sim import __version__, _core, native

    if native.ENGINE != "cython":
        raise SystemExit("bench_strategies measures the compiled core, which is not built")
    out = {"version": __version__, "engine": native.ENGINE, "impl": _core.IMPL, "python": platform.python_version(),
           "machine": platform.machine(), "rules": args.rules}
    if args.against:
        from escoba_sim.strategies import StrategyError, parse_strategy

        try:
            for spec in args.against:
                parse_strategy(spec)
        except StrategyError as e:
            raise SystemExit(f"bench_strategies: {e}") from None
        out.update(alternate(*args.against, args.rules, args.rounds))
        for spec in args.against:
            print(f"{spec:<40} best {out['best_ms'][spec]:>8.1f} ms  median {out['median_ms'][spec]:>8.1f} ms "
                  f"({out['deals']} hands against greedy, {out['rounds']} rounds, {args.rules})")
        print(f"ratio of the best rounds: {out['ratio']:.3f}")
    else:
        groups = set(args.rows.split(",")) if args.rows else None
        out["rows"] = []
        print(f"{'strategy':<24} {'us/move':>10} {'us/hand':>11} {'hands/s':>10}")  # us: microseconds
        for group, spec in ROWS:
            if groups and group not in groups:
                continue
            r = measure(spec, args.rules, args.seconds)
            out["rows"].append(r)
            print(f"{spec:<24} {r['us_per_move']:>10.3f} {r['us_per_hand']:>11.2f} {r['hands_per_s']:>10,.0f}",
                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
