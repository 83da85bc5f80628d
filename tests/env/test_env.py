"""The PettingZoo environment (PettingZoo's api and seed tests, the engine's hands) and the vectorised
environment (compiled loop = reference backend step by step, the learner playing the real game,
autoreset, illegal actions, pure-Python mode); and that nothing else in the package imports them."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest


def _need(module: str):
    if os.environ.get("CI") == "true":  # CI installs the rl extra: missing is a failure there
        return importlib.import_module(module)
    return pytest.importorskip(module)


_need("pettingzoo")
_need("gymnasium")

from helpers import needs_core
from pettingzoo.test import api_test, seed_test  # noqa: E402

from escoba_sim.env import escoba_v0
from escoba_sim.env.actions import SeatStrategy, hand_returns
from escoba_sim.env.vector import EscobaVectorEnv, _vec
from escoba_sim.game import engine
from escoba_sim.game.rng import PLAY, SplitMix64
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import make_strategy

RULESETS = ["ludoteka", "tradicional", "cardgames", "robo", "tradicional(players=3)",
            "cardgames(players=4,teams=yes)"]


@pytest.mark.parametrize("rules", RULESETS)
def test_pettingzoo_api_and_seed_tests(rules):
    api_test(escoba_v0.env(rules=rules), num_cycles=200)
    seed_test(lambda: escoba_v0.env(rules=rules), num_cycles=200)


def test_pettingzoo_hands_are_the_engines():
    """Every seat played by a strategy through the AEC env: reset(seed) deals game 0, then game 1, ...
    and the rewards are the engine's hand points, margin per seat."""
    rules = parse_rules("tradicional")
    strategies = ["random", "heuristic"]
    env = escoba_v0.env(rules="tradicional")
    for g in range(8):
        env.reset(seed=21) if g == 0 else env.reset()
        raw = env.unwrapped
        rng = SplitMix64.for_hand(21, g, 0, PLAY)
        players = [SeatStrategy(s) for s in strategies]
        queue: list[int] = []
        finals = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                finals[agent] = (reward, info)
                env.step(None)
                continue
            if not queue:
                queue = raw.hand.actions_for(players[raw.hand.to_play].decide(raw.hand, rng))
            action = queue.pop(0)
            assert obs["action_mask"][action] == 1
            env.step(action)
        st = engine.play_hand(rules, [make_strategy(s) for s in strategies], 21, g, 0, dealer=g % 2)
        expected = hand_returns(rules, st.result.total)
        assert [finals[f"player_{i}"][0] for i in range(2)] == expected
        assert finals["player_0"][1]["totals"] == st.result.total


def test_pettingzoo_illegal_action_ends_the_hand_for_its_player():
    env = escoba_v0.env()
    env.reset(seed=1)
    agent = env.agent_selection
    obs, *_ = env.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(bad)
    assert env.rewards[agent] == -1 and all(env.terminations.values())


BACKEND_CASES = [("ludoteka", "greedy", 0), ("ludoteka", "random", 1), ("tradicional", "greedy", 0),
                 ("tradicional", "random", 1), ("cardgames", "heuristic", 0), ("robo", "defensive", 1),
                 ("tradicional(players=3)", "random", 2), ("cardgames(players=4,teams=yes)", "maxoros", 1),
                 ("robo(players=6,teams=yes)", "sevens", 0), ("ludoteka", "endgame", 1),
                 ("tradicional(hand_size=6,table_size=10)", "random", 0),  # big tables, many options
                 ("ludoteka", "ismcts:iters=20,infer=1", 1), ("tradicional", "ismcts:iters=20,infer=1", 0)]


@pytest.mark.core("the vectorised environment")
@pytest.mark.parametrize("rules,opponent,learner", BACKEND_CASES)
def test_vector_core_equals_reference_backend(rules, opponent, learner):
    """Observation, mask, reward and termination agree at every step, random legal actions, autoresets."""
    a = EscobaVectorEnv(12, rules=rules, opponent=opponent, learner=learner, backend="core")
    b = EscobaVectorEnv(12, rules=rules, opponent=opponent, learner=learner, backend="python")
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(250):
        for key in oa:
            np.testing.assert_array_equal(oa[key], ob[key])
        np.testing.assert_array_equal(a.games(), b.games())
        acts = a.sample_actions(oa["action_mask"], rng)
        oa, ra, ta, _, _ = a.step(acts)
        ob, rb, tb, _, _ = b.step(acts)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        ended += int(ta.sum())
    assert ended >= 12  # every env finished at least one hand on the way


@pytest.mark.parametrize("backend", ["core", "python"])
def test_vector_learner_plays_the_real_game(backend):
    """A learner choosing greedy's moves against greedy reproduces play_hands(greedy, greedy):
    every env's reward is the engine's margin for its game (env i plays games i, i+N, ...)."""
    if backend == "core":
        needs_core("the vectorised environment")
    rules = parse_rules("ludoteka")
    n = 6
    env = EscobaVectorEnv(n, rules="ludoteka", opponent="greedy", backend=backend)
    mirror = EscobaVectorEnv(n, rules="ludoteka", opponent="greedy", backend="python")  # to read hands from
    obs, _ = env.reset(seed=8)
    mirror.reset(seed=8)
    greedy = SeatStrategy("greedy")
    queues: list[list[int]] = [[] for _ in range(n)]
    rewards: dict[int, float] = {}
    for _ in range(400):
        acts = []
        for i, hand in enumerate(mirror._impl.hands):
            if hand.over:
                acts.append(0)
                continue
            if not queues[i]:
                queues[i] = hand.actions_for(greedy.decide(hand, SplitMix64(0)))
            acts.append(queues[i].pop(0))
        games = env.games()
        obs, reward, terminated, _, _ = env.step(acts)
        mirror.step(acts)
        for i in np.flatnonzero(terminated):
            rewards[int(games[i])] = float(reward[i])
    assert len(rewards) >= 2 * n
    for g, r in rewards.items():
        st = engine.play_hand(rules, [make_strategy("greedy")] * 2, 8, g, 0, dealer=g % 2)
        assert r == hand_returns(rules, st.result.total)[0]


def test_vector_autoreset_and_errors():
    env = EscobaVectorEnv(3, opponent="greedy", backend="python" if _vec is None else "core")
    obs, info = env.reset(seed=2)
    assert obs["observation"].shape == (3, env.single_observation_space["observation"].shape[0])
    assert obs["action_mask"].shape == (3, 82) and info == {}
    assert env.observation_space.contains(obs)
    assert list(env.games()) == [0, 1, 2]
    with pytest.raises(ValueError, match="env 1: action 81 is not legal"):
        env.step([int(np.flatnonzero(obs["action_mask"][0])[0]), 81, 81])
    np.testing.assert_array_equal(env.reset(seed=2)[0]["observation"], obs["observation"])
    rng = np.random.default_rng(1)
    for _ in range(200):
        games_before = env.games().copy()
        obs, reward, terminated, truncated, _ = env.step(env.sample_actions(obs["action_mask"], rng))
        assert not truncated.any()
        if terminated.any():
            break
    ended = np.flatnonzero(terminated)
    assert len(ended) and not obs["action_mask"][ended].any()
    # 99 is no action at all: accepted only where the hand ended (next-step autoreset ignores it)
    acts = np.where(terminated, 99, env.sample_actions(obs["action_mask"], rng))
    obs, reward, terminated2, _, _ = env.step(acts)
    assert (env.games()[ended] == games_before[ended] + 3).all()
    assert (reward[ended] == 0).all() and not terminated2[ended].any()
    assert obs["action_mask"][ended].any(axis=1).all()
    with pytest.raises(ValueError, match="opponent strategies"):
        EscobaVectorEnv(2, rules="tradicional(players=3)", opponent=["greedy"])
    with pytest.raises(ValueError, match="learner"):
        EscobaVectorEnv(2, learner=2)


def test_vector_env_under_pure_python():
    code = ("import numpy as np\n"
            "from escoba_sim.env.vector import EscobaVectorEnv\n"
            "e = EscobaVectorEnv(4, rules='tradicional', opponent='heuristic')\n"
            "o, _ = e.reset(seed=1)\n"
            "rng = np.random.default_rng(0)\n"
            "for _ in range(60): o, r, t, _, _ = e.step(e.sample_actions(o['action_mask'], rng))\n"
            "print(e.backend)\n")
    env = {**os.environ, "ESCOBA_SIM_PURE_PYTHON": "1"}
    env.pop("ESCOBA_SIM_REQUIRE_CORE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python"
    code_core = "from escoba_sim.env.vector import EscobaVectorEnv\nEscobaVectorEnv(2, backend='core')\n"
    out = subprocess.run([sys.executable, "-c", code_core], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode != 0 and "backend='core' needs the compiled core" in out.stderr


def test_nothing_else_imports_the_rl_libraries():
    code = ("import sys\n"
            "import escoba_sim, escoba_sim.cli, escoba_sim.runs.runner, escoba_sim.series.compare, escoba_sim.series.tournament\n"
            "import escoba_sim.output.report, escoba_sim.hands.record, escoba_sim.env.actions, escoba_sim.batch\n"
            "from escoba_sim.cli import main\n"
            "bad = [m for m in ('pyspiel', 'open_spiel', 'pettingzoo', 'gymnasium') if m in sys.modules]\n"
            "assert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


@pytest.mark.core("ismcts")
def test_vector_env_against_ismcts():
    env = EscobaVectorEnv(2, opponent="ismcts:iters=30")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        obs, reward, terminated, _, _ = env.step(env.sample_actions(obs["action_mask"], rng))
        ended += int(terminated.sum())
    assert ended >= 2
