"""Learner steps per second of the game-AI interfaces, measured in one run, one core.

- the vectorised environment (``EscobaVectorEnv``, compiled loop): N hands in
  lock-step, the learner against ``--opponent``; only ``env.step`` is timed
  (the policy, a uniformly random legal action per env, is drawn between steps
  and timed apart);
- the PettingZoo AEC environment (``escoba_v0.env``, wrapped as users get it):
  every seat's decisions are steps, timed over ``env.last`` + ``env.step``;
- the OpenSpiel game (``python_escoba``): ``legal_actions`` + ``apply_action``.

Both wall-clock and process CPU time are reported: on a shared machine CPU time
is the figure for "one core".

    python benchmarks/bench_env.py --envs 4096 --opponent greedy --seconds 5 [--json bench_env.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np


def _timed(fn, seconds: float) -> tuple[int, float, float]:
    """Call fn() (returns steps done) until `seconds` of CPU time are spent in it; (steps, wall, cpu)."""
    steps = wall = cpu = 0.0
    while cpu < seconds:
        w0, c0 = time.perf_counter(), time.process_time()
        steps += fn()
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
    return int(steps), wall, cpu


def bench_vector(n_envs: int, rules: str, opponent: str, seconds: float, copy: bool) -> dict:
    from escoba_sim.env.vector import EscobaVectorEnv

    env = EscobaVectorEnv(n_envs, rules=rules, opponent=opponent, copy=copy)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    state = {"obs": obs, "policy_cpu": 0.0, "ended": 0}

    def one():
        c0 = time.process_time()
        actions = env.sample_actions(state["obs"]["action_mask"], rng)
        state["policy_cpu"] += time.process_time() - c0
        state["obs"], reward, terminated, _, _ = env.step(actions)
        state["ended"] += int(terminated.sum())
        return n_envs

    steps, wall, cpu = _timed(one, seconds)
    step_cpu = cpu - state["policy_cpu"]  # env.step alone
    return {"interface": f"vector ({env.backend}), N={n_envs}, copy={copy}", "opponent": opponent,
            "steps": steps, "hands_ended": state["ended"], "steps_per_cpu_s": steps / step_cpu,
            "steps_per_wall_s": steps / (wall - state["policy_cpu"]), "policy_cpu_share": state["policy_cpu"] / cpu}


def bench_aec(rules: str, seconds: float) -> dict:
    from escoba_sim.env import escoba_v0

    env = escoba_v0.env(rules=rules)
    env.reset(seed=1)
    rng = np.random.default_rng(1)

    def one():
        n = 0
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"]
                action = int(rng.choice(np.flatnonzero(mask)))
                n += 1
            env.step(action)
        env.reset()
        return n

    steps, wall, cpu = _timed(one, seconds)
    return {"interface": "PettingZoo AEC escoba_v0 (all seats, random legal actions)", "opponent": "-",
            "steps": steps, "steps_per_cpu_s": steps / cpu, "steps_per_wall_s": steps / wall}


def bench_openspiel(rules: str, seconds: float) -> dict:
    import pyspiel

    import escoba_sim.env.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game(f"python_escoba(rules={rules})")
    rng = np.random.default_rng(1)

    def one():
        st, n = game.new_initial_state(), 0
        while st.is_chance_node():
            outcomes = st.chance_outcomes()
            st.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        while not st.is_terminal():
            legal = st.legal_actions()
            st.apply_action(legal[int(rng.integers(len(legal)))])
            n += 1
        return n

    steps, wall, cpu = _timed(one, seconds)
    return {"interface": "OpenSpiel python_escoba (all seats, random legal actions)", "opponent": "-",
            "steps": steps, "steps_per_cpu_s": steps / cpu, "steps_per_wall_s": steps / wall}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", type=int, default=4096)
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    ap.add_argument("--json", help="also write the measurements here")
    a = ap.parse_args(argv)
    rows = [bench_vector(a.envs, a.rules, a.opponent, a.seconds, copy=False),
            bench_vector(a.envs, a.rules, a.opponent, a.seconds, copy=True),
            bench_aec(a.rules, a.seconds), bench_openspiel(a.rules, a.seconds)]
    print(f"rules {a.rules}; {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"{'interface':<62} {'steps/CPU s':>14} {'steps/wall s':>14}")
    for r in rows:
        print(f"{r['interface']:<62} {r['steps_per_cpu_s']:>14,.0f} {r['steps_per_wall_s']:>14,.0f}")
    v = rows[0]
    print(f"vector: {v['steps'] / max(1, v['hands_ended']):.1f} learner steps per hand (its autoreset step included); "
          f"the random policy between steps took {v['policy_cpu_share']:.0%} of the loop's CPU")
    ratio = rows[0]["steps_per_cpu_s"] / rows[2]["steps_per_cpu_s"]
    print(f"vector (copy=False) / AEC: {ratio:,.0f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
