"""The training workload of the profile-guided build (setup.py, ProfileGuidedBuildExt).

With gcc, setup.py compiles the core's modules (``_core``) and ``_vec`` instrumented (``-fprofile-generate``), runs this
module against that build in a subprocess, and compiles them again with the branch and call counts
it recorded (``-fprofile-use``): gcc then lays out the hot paths (the hand loop, the capture search,
the shuffle) for the branches this workload takes. Code the workload never runs is optimised as
without a profile (``-fprofile-partial-training``), so nothing becomes slower than the plain build;
but a path trained here too rarely would be laid out as cold. So the workload touches every
built-in strategy, the presets and player counts, hands and games, the evaluator and the vectorised
environment, while most of its time goes where users spend theirs: two-player ludoteka hands of
greedy, maxoros and random (`escoba-sim bench`, `run --hands`). It takes a few seconds.

    python -m escoba_sim._pgo_training [BUILD_DIR]

BUILD_DIR, when given, is where the compiled modules must come from (the instrumented build); the
run fails rather than train a core imported from elsewhere. Profiles change layout, never
results: the built core plays the same hands as the plain build (tests/native/test_core_differential.py).
"""

from __future__ import annotations

import os
import sys
import time

# (rules, strategies, hands): the bulk, what `bench` and the main runs play
MAIN = [("ludoteka", ("greedy", "maxoros"), 120_000), ("ludoteka", ("random", "random"), 120_000),
        ("ludoteka", ("greedy", "greedy"), 40_000), ("ludoteka", ("maxoros", "random"), 30_000)]
# every preset, player count and teams, with each cheap strategy somewhere in them
RULES = ["ludoteka", "tradicional", "cardgames", "robo", "ludoteka(players=3)", "ludoteka(players=4,teams=true)",
         "tradicional(players=4,teams=true)", "cardgames(players=6,teams=true)", "robo(players=3)",
         "ludoteka(table_size=8,capture=optional)"]
CHEAP = ["random", "greedy", "maxoros", "sevens", "defensive", "heuristic", "endgame"]
# the searches, at small budgets (their cost is per move); ismcts' default infers (the hand loop that keeps
# the voids), its earlier default `infer=0` deals uniformly in the usual loop: both are trained
SEARCH = [("ludoteka", ("ismcts:iters=40", "greedy"), 40),
          ("ludoteka", ("ismcts:iters=40,infer=0", "greedy"), 16),
          ("ludoteka", ("ismcts:iters=30,exact=6,leaf=4", "random"), 16),
          ("tradicional", ("ismcts:iters=30,blows=1,rollout=1", "heuristic"), 16),
          ("ludoteka(players=4,teams=true)", ("ismcts:iters=30", "greedy"), 8),
          ("ludoteka", ("oracle:iters=40", "greedy"), 16),
          ("cardgames", ("oracle:iters=30,exact=10", "maxoros"), 8),
          # the levels: a random share over a cheap base, and the ismcts rung (its base searches), soplar's blows
          ("ludoteka", ("level:n=2", "level:n=4"), 400),
          ("tradicional", ("level:n=5", "level:n=1"), 16)]


def _lineup(rules, pairing):
    return [pairing[i % len(pairing)] for i in range(rules.players)]


def train(build_dir: str | None = None) -> dict:
    """Run the workload on the compiled core; returns hands played per part and the seconds taken."""
    import numpy as np

    from escoba_sim import _core, _vec
    from escoba_sim._core import aggregates, common, hooks, play, search
    from escoba_sim.game import engine
    from escoba_sim.game.rng import shuffled_deck
    from escoba_sim.game.rules import parse_rules
    from escoba_sim.hands import evaluate

    if build_dir is not None:
        # every compiled module (each leaves its own profile) must be the instrumented one
        root = os.path.abspath(build_dir)
        for mod in (aggregates, common, hooks, play, search, _vec):
            if os.path.commonpath([os.path.abspath(mod.__file__), root]) != root:
                raise RuntimeError(f"{mod.__name__} was imported from {mod.__file__}, not from {build_dir}")
    t0 = time.perf_counter()
    done = {"main": 0, "variants": 0, "games": 0, "search": 0, "evaluate": 0, "vec_steps": 0}
    for name, pairing, n in MAIN:
        r = parse_rules(name)
        _core.play_hands(r, _lineup(r, pairing), 1, 0, n)
        done["main"] += n
    for i, name in enumerate(RULES):
        r = parse_rules(name)
        for j, s in enumerate(CHEAP):
            other = CHEAP[(i + j + 1) % len(CHEAP)]
            n = 300 if s == "endgame" or other == "endgame" else 2_000
            _core.play_hands(r, _lineup(r, (s, other)), 2 + i, 0, n)
            done["variants"] += n
        # whole games, where the target and the dealer's rotation matter
        _core.play_games(r, _lineup(r, (CHEAP[i % len(CHEAP)], "greedy")), 3 + i, 0, 60)
        done["games"] += 60
    for name, pairing, n in SEARCH:
        r = parse_rules(name)
        _core.play_hands(r, _lineup(r, pairing), 4, 0, n)
        done["search"] += n
    # the hint evaluator: sampled decisions early in a hand, exact ones at its end
    for name in ("ludoteka", "tradicional"):
        r = parse_rules(name)
        st = engine.new_hand(r, shuffled_deck(5, 0, 0), 0)
        while not st.over:
            if engine.blow_options(st):  # soplar: the blow decision first
                evaluate.evaluate(st, blow=True, samples=40, seed=done["evaluate"])
                done["evaluate"] += 1
                engine.apply_blow(st, engine.blow_options(st)[0])
            moves = engine.legal_moves(st)
            if len(moves) > 1:
                evaluate.evaluate(st, samples=40, seed=done["evaluate"])
                done["evaluate"] += 1
            engine.apply_move(st, moves[0], legal=moves)
    # the vectorised environment's stepping loop, a random legal learner against several opponents
    rng = np.random.default_rng(6)
    for name, opponent in (("ludoteka", "greedy"), ("tradicional", "heuristic"), ("ludoteka(players=3)", "random"),
                           ("cardgames", "maxoros")):
        r = parse_rules(name)
        vec = _vec.VecCore(r, [opponent] * r.players, 0, 256)
        vec.reset(7)
        for _ in range(120):
            actions = np.argmax(rng.random(vec.mask.shape, dtype=np.float32) * vec.mask, axis=1)
            vec.step(actions)
            done["vec_steps"] += 256
    done["seconds"] = round(time.perf_counter() - t0, 2)
    return done


def main(argv: list[str]) -> int:
    done = train(argv[1] if len(argv) > 1 else None)
    print("profile training: " + ", ".join(f"{k} {v:,}" for k, v in done.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
