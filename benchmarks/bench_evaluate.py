"""Latency of the evaluator (a `play` hint, one `analyze` decision) at its default budget, one core.

Plays --hands hands per ruleset with --strategy everywhere (reference engine) and, at
every decision with more than one option (moves, and blow decisions under soplar),
times `evaluate(state)` with the default number of deals. Reports per ruleset the
decisions timed, how many were solved exactly, the median, 95th percentile and
maximum CPU time (process time: on a shared machine wall time also counts the
waits for a core), and the most options met. The hint target is under a second.

    python benchmarks/bench_evaluate.py --hands 20
    python benchmarks/bench_evaluate.py --rules tradicional --strategy random --json eval.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time

RULES = ["ludoteka", "tradicional", "cardgames", "robo", "ludoteka(players=3)", "cardgames(players=4,teams=true)"]


def measure(rules_text: str, strategy: str, hands: int, seed: int) -> dict:
    from escoba_sim.game import engine
    from escoba_sim.game.rng import PLAY, SplitMix64, shuffled_deck
    from escoba_sim.game.rules import parse_rules
    from escoba_sim.hands.evaluate import DEFAULT_SAMPLES, evaluate
    from escoba_sim.strategies import make_strategy

    r = parse_rules(rules_text)
    times, exact, most = [], 0, 0
    for g in range(hands):
        st = engine.new_hand(r, shuffled_deck(seed, g, 0), g % r.players)
        players = [make_strategy(strategy) for _ in range(r.players)]
        rng = SplitMix64.for_hand(seed, g, 0, PLAY)
        while not st.over:
            p = players[st.to_play]
            for blow in (True, False):
                options = [None, *engine.blow_options(st)] if blow else engine.legal_moves(st)
                if len(options) > 1:
                    t = time.process_time()  # CPU time of this process: the machine may be shared
                    ev = evaluate(st, blow=blow, seed=len(times))
                    times.append(time.process_time() - t)
                    exact += ev.method == "exact"
                    most = max(most, len(options))
                if blow and len(options) > 1:
                    engine.apply_blow(st, p.choose_blow(st, options[1:], rng))
            engine.apply_move(st, p.choose_move(st, engine.legal_moves(st), rng))
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))]  # noqa: E731
    return {"rules": rules_text, "strategy": strategy, "samples": DEFAULT_SAMPLES, "decisions": len(times),
            "exact": exact, "median_ms": round(q(0.5) * 1e3, 1), "p95_ms": round(q(0.95) * 1e3, 1),
            "max_ms": round(times[-1] * 1e3, 1), "most_options": most}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", action="append", help="rulesets (default: the presets and 3-4 players)")
    ap.add_argument("--strategy", default="greedy", help="who plays the hands (default greedy)")
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    rows = [measure(r, a.strategy, a.hands, a.seed) for r in (a.rules or RULES)]
    print(f"evaluator latency, one core ({platform.processor() or platform.machine()}), {a.hands} hands each, "
          f"{a.strategy} playing")
    print(f"{'rules':<34}{'decisions':>10}{'exact':>7}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'options':>9}")
    for row in rows:
        print(f"{row['rules']:<34}{row['decisions']:>10}{row['exact']:>7}{row['median_ms']:>11}{row['p95_ms']:>9}"
              f"{row['max_ms']:>9}{row['most_options']:>9}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
