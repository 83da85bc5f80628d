"""Record the decisions of ismcts as it played before the search options existed (issue 14).

Run once on the build of main before the change (commit 4c5a461): it plays hands in the reference
engine with the compiled ismcts deciding (StrategySpec.player, as trace does) and writes every
decision (seat, card, table mask taken, the PLAY stream state after it) to ismcts_baseline.json,
with every result column of a few batches of the core's own hand loop and the evaluator's sampled
margins at a few dozen decisions (the evaluator shares the search's iteration).
tests/strategies/test_ismcts_options.py replays the same hands with `ismcts:<old settings>` and requires the
very same decisions and stream states: the old behaviour stays reachable, draw for draw. CASES spell
the specs as main did then: a bare `ismcts` was 1000 iterations over uniform deals (today's
`ismcts:iters=1000,infer=0`; the default is now iters=950,infer=1), so only that build can record them.

    PYTHONPATH=/path/to/main python tests/data/make_ismcts_baseline.py   # main's build, not this one
"""

import json
from pathlib import Path

from escoba_sim.batch import make_player
from escoba_sim.game.cards import mask_of
from escoba_sim.game.engine import play_hand
from escoba_sim.game.rules import parse_rules

# (rules, seat specs (None = greedy), seed, hands): two players at the old default budget, then smaller
# budgets with more seats and teams
CASES = [
    ("ludoteka", ["ismcts", "ismcts"], 5, 3),
    ("tradicional", ["ismcts", "ismcts"], 5, 8),
    ("cardgames", ["ismcts:iters=300", None], 7, 2),
    ("robo", [None, "ismcts:iters=300"], 7, 2),
    ("ludoteka(players=3)", ["ismcts:iters=200", None, "ismcts:iters=200"], 9, 2),
    ("tradicional(players=4,teams=true)", ["ismcts:iters=200", None, None, "ismcts:iters=100"], 9, 2),
]


class Recorder:
    """Wraps a player; logs each decision with the stream state after it."""

    def __init__(self, inner, seat, log):
        self.inner, self.seat, self.log = inner, seat, log

    def choose_move(self, st, moves, rng):
        m = self.inner.choose_move(st, moves, rng)
        self.log.append(["move", self.seat, m.card, mask_of(m.take), rng.state])
        return m

    def choose_blow(self, st, blows, rng):
        m = self.inner.choose_blow(st, blows, rng)
        self.log.append(["blow", self.seat, blows[0].card, mask_of(m.take) if m else 0, rng.state])
        return m


# whole hands of the compiled core (run's own loop): every result column, per hand
BATCHES = [("ludoteka", ["ismcts:iters=100", "greedy"], 3, 40), ("tradicional", ["greedy", "ismcts:iters=100"], 3, 40)]


def batches() -> list[dict]:
    from escoba_sim import batch

    out = []
    for rules, specs, seed, n in BATCHES:
        h = batch.play_hands(parse_rules(rules), specs, seed, 0, n).hands
        out.append({"rules": rules, "specs": specs, "seed": seed, "hands": n,
                    "columns": {k: h[k].tolist() for k in sorted(h)}})
    return out


def evaluations() -> list[dict]:
    """The evaluator's sampled margins (escoba_evaluate.h, which grows its trees with the search's own
    iteration) at every decision of seat 0 with cards in the stock, in a few hands of random vs greedy,
    and at one blow decision: they must not change when the search's code does."""
    from dataclasses import replace

    from escoba_sim import _core
    from escoba_sim.hands.evaluate import InfoSet, evaluate_info

    out = []

    class Probe:
        def __init__(self, inner):
            self.inner = inner

        def choose_move(self, st, moves, rng):
            if len(moves) > 1 and st.stock:
                # uniform deals (no voids, no plays), as the evaluator dealt them when this was recorded
                e = evaluate_info(replace(InfoSet.of(st), voids=None, plays=()), moves, samples=40, seed=len(out), c=4,
                                  rollout=0, prior=0)  # main's settings then
                out.append({"values": [o.value for o in e.options], "spreads": [o.spread for o in e.options]})
            return self.inner.choose_move(st, moves, rng)

        def choose_blow(self, st, blows, rng):
            return self.inner.choose_blow(st, blows, rng)

    from escoba_sim.strategies import GreedyStrategy, RandomStrategy

    for rules in ("ludoteka", "tradicional", "tradicional(players=3)"):
        r = parse_rules(rules)
        for g in range(2):
            play_hand(r, [Probe(RandomStrategy()) if s == 0 else GreedyStrategy() for s in range(r.players)], 7, g, 0)
    # seat 1 may blow the 5 of oros (4) laid on the 10, 6 and 4 of copas (19, 15, 13): no blow, 10, 6 + 4
    r = parse_rules("tradicional")
    table = (1 << 4) | (1 << 19) | (1 << 15) | (1 << 13)
    # seat 0's hand as a placeholder of its size (2 cards): the search reads only the decider's hand
    view = _core.Position(hands=[(1 << 2) - 1, (1 << 30) | (1 << 31) | (1 << 32)], table=table, piles=[0, 0],
                          escobas=[0, 0], stock_left=31, dealer=0, last_capturer=-1, pending=4)
    blow = _core.evaluate_sample(r, 1, view, [(4, 0), (4, 1 << 19), (4, (1 << 15) | (1 << 13))], blow=True,
                                 samples=40, c=4.0, seed=11)
    out.append({"blow": blow.tolist()})
    return out


def record_hand(rules: str, specs: list, seed: int, hand: int) -> tuple[list, list]:
    """One hand in the reference engine with the compiled ismcts deciding (specs per seat, None = greedy):
    its decisions as Recorder logs them, and its totals. tests/strategies/test_ismcts_options.py replays through it."""
    log = []
    players = [Recorder(make_player(s or "greedy"), i, log) for i, s in enumerate(specs)]
    st = play_hand(parse_rules(rules), players, seed, 0, hand)
    return log, list(st.result.total)


def record() -> list[dict]:
    out = []
    for rules, specs, seed, hands in CASES:
        for hand in range(hands):
            log, total = record_hand(rules, specs, seed, hand)
            out.append({"rules": rules, "specs": specs, "seed": seed, "hand": hand, "decisions": log,
                        "total": total})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("ismcts_baseline.json")
    path.write_text(json.dumps({"hands": record(), "batches": batches(), "evaluations": evaluations()}) + "\n")
    print(f"wrote {path}")
