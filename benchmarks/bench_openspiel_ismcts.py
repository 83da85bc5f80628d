"""Cost of one move of OpenSpiel's own ISMCTS bot playing ``python_escoba``.

OpenSpiel's ``ISMCTSBot`` (random-rollout evaluator, as
analysis/openspiel_yardstick.py runs it) plays ``--hands`` hands against
``greedy`` at each ``--budgets`` simulation count; deal ``d`` is the yardstick's
deal ``d`` with the bot in seat 0. Reported per budget: process CPU ms per bot
move (every move the bot is asked for, forced ones included, as the yardstick
counts them) and per simulation (searched moves only), wall ms per move, and a
digest of every hand's action history and returns, so runs before and after a
speed change can be checked to play the very same hands. With ``--profile``
it prints the cProfile top functions of the first budget instead.

    python benchmarks/bench_openspiel_ismcts.py --budgets 100,1000 --hands 3
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))


def bench(budget: int, hands: int, seed: int, rules: str) -> dict:
    import pyspiel
    from openspiel_yardstick import play_hand

    import escoba_sim.env.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game(f"python_escoba(rules={rules})")
    digest = hashlib.sha256()
    cpu = wall = 0.0
    moves = searched = 0
    margins = []
    for d in range(hands):
        c0 = time.process_time()
        row = play_hand(game, "greedy", budget, seed, d, 0, history=True)
        cpu += time.process_time() - c0  # greedy's own share is ~0.1%: counted with the bot's
        wall += row["os_time"]
        moves += row["os_steps"]
        searched += row["os_searched"]
        margins.append(row["margin"])
        digest.update(json.dumps([row["history"], row["margin"]]).encode())
    return {"budget": budget, "hands": hands, "bot_moves": moves, "searched_moves": searched,
            "cpu_ms_per_move": 1000 * cpu / moves, "cpu_ms_per_simulation": 1000 * cpu / (searched * budget),
            "wall_ms_per_move": 1000 * wall / moves, "margins": margins, "digest": digest.hexdigest()[:16]}


def main(argv=None) -> None:
    from _common import SEED

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", default="100,1000", help="ISMCTS simulations per move, comma separated")
    ap.add_argument("--hands", type=int, default=3, help="hands per budget (deals 0, 1, ...; bot in seat 0)")
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--profile", action="store_true", help="cProfile the first budget instead of timing")
    ap.add_argument("--json", type=Path, help="also write the results here")
    a = ap.parse_args(argv)
    budgets = [int(b) for b in a.budgets.split(",")]
    if a.profile:
        prof = cProfile.Profile()
        prof.runcall(bench, budgets[0], a.hands, a.seed, a.rules)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    out = []
    for b in budgets:
        r = bench(b, a.hands, a.seed, a.rules)
        out.append(r)
        print(f"budget {b:>5}: {r['hands']} hands, {r['bot_moves']} bot moves ({r['searched_moves']} searched): "
              f"{r['cpu_ms_per_move']:.1f} CPU ms/move, {r['cpu_ms_per_simulation']:.3f} CPU ms/simulation, "
              f"{r['wall_ms_per_move']:.1f} wall ms/move; margins {r['margins']}, digest {r['digest']}",
              flush=True)
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
