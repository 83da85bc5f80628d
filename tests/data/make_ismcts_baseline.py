"""Record the decisions of ismcts as it played before the search options existed (issue 14).

Run once on the build of main before the change (commit 4c5a461): it plays hands in the reference
engine with the compiled ismcts deciding (StrategySpec.player, as trace does) and writes every
decision (seat, card, table mask taken, the PLAY stream state after it) to ismcts_baseline.json,
with every result column of a few batches of the core's own hand loop.
tests/test_ismcts_options.py replays the same hands with `ismcts:<old settings>` and requires the
very same decisions and stream states: the old behaviour stays reachable, draw for draw.

    PYTHONPATH=. python tests/data/make_ismcts_baseline.py
"""

import json
from pathlib import Path

from escoba_sim.cards import mask_of
from escoba_sim.engine import play_hand
from escoba_sim.rules import parse_rules
from escoba_sim.strategies import parse_strategy

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


def record() -> list[dict]:
    out = []
    for rules, specs, seed, hands in CASES:
        r = parse_rules(rules)
        for hand in range(hands):
            log = []
            players = [Recorder(parse_strategy(s or "greedy").player(), i, log) for i, s in enumerate(specs)]
            st = play_hand(r, players, seed, 0, hand)
            out.append({"rules": rules, "specs": specs, "seed": seed, "hand": hand, "decisions": log,
                        "total": list(st.result.total)})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("ismcts_baseline.json")
    path.write_text(json.dumps({"hands": record(), "batches": batches()}) + "\n")
    print(f"wrote {path}")
