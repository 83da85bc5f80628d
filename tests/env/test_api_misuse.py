"""The public Python APIs under misuse (issue 25): wrong seats, actions, dtypes, seeds and calls
after close raise the documented exception (docs/ecosystem.md), never a stray AttributeError, never a silent cast."""

from __future__ import annotations

import numpy as np
import pytest

from escoba_sim.game.engine import IllegalMove
from escoba_sim.game.rng import shuffled_deck

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import escoba_sim.env.openspiel as eo  # noqa: E402  (needs pyspiel)
from escoba_sim.env import escoba_v0  # noqa: E402
from escoba_sim.env.actions import ActionHand  # noqa: E402
from escoba_sim.env.vector import EscobaVectorEnv  # noqa: E402
from escoba_sim.native import core  # noqa: E402

BACKENDS = ["python"] + (["core"] if core is not None else [])


def dealt_state():
    game = pyspiel.load_game("python_escoba")
    return game, eo.deal(game.new_initial_state(), shuffled_deck(1, 0, 0))


# ---------------------------------------------------------------- OpenSpiel

def test_strategy_bot_refuses_chance_and_terminal_states():
    game, state = dealt_state()
    bot = eo.StrategyBot("greedy")
    with pytest.raises(pyspiel.SpielError, match="chance node"):
        bot.step(game.new_initial_state())
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    with pytest.raises(pyspiel.SpielError, match="the hand is over"):
        bot.step(state)
    with pytest.raises(pyspiel.SpielError, match="python_escoba states"):
        bot.step("a state")


@pytest.mark.parametrize("dealer", [1.5, True, "1", 2, -1])
def test_the_game_refuses_a_dealer_that_is_not_a_seat(dealer):
    from escoba_sim.game.rules import RulesError

    with pytest.raises(RulesError, match="dealer \\(a seat\\) must be an integer from 0 to 1"):
        eo.EscobaGame({"dealer": dealer})
    assert eo.EscobaGame({"dealer": 1}).dealer == 1


@pytest.mark.parametrize("player", [9, 2, -1, 1.5, True, "0"])
def test_resample_refuses_a_seat_that_does_not_exist(player):
    _, state = dealt_state()
    with pytest.raises(pyspiel.SpielError, match="player must be an integer from 0 to 1"):
        state.resample_from_infostate(player, lambda: 0.5)
    assert state.resample_from_infostate(np.int64(1), lambda: 0.5).hand.st.hands[1] == state.hand.st.hands[1]


def test_an_action_hand_takes_whole_actions_and_real_seats():
    hand = ActionHand.deal(eo.parse_rules("ludoteka"), shuffled_deck(1, 0, 0), 0)
    legal = hand.legal_actions()
    for bad in (float(legal[0]), legal[0] + 0.5, True, 500, -1, None):
        with pytest.raises(IllegalMove, match="an action must be an integer from 0 to 81"):
            hand.apply(bad)
    hand.apply(np.int64(legal[0]))  # numpy integers are whole numbers
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 1"):
        hand.resample(9, None)


# ---------------------------------------------------------------- the vector environment

@pytest.mark.parametrize("backend", BACKENDS)
def test_the_vector_env_refuses_every_call_after_close(backend):
    envs = EscobaVectorEnv(2, backend=backend)
    obs, _ = envs.reset(seed=1)
    acts = envs.sample_actions(obs["action_mask"], np.random.default_rng(0))
    envs.close()
    for call in (lambda: envs.step(acts), lambda: envs.reset(seed=1), envs.games):
        with pytest.raises(RuntimeError, match="the environment is closed"):
            call()


@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_env_refuses_float_actions_and_seeds(backend):
    envs = EscobaVectorEnv(2, backend=backend)
    obs, _ = envs.reset(seed=1)
    acts = envs.sample_actions(obs["action_mask"], np.random.default_rng(0))
    games = envs.games().copy()
    for bad in (acts + 0.7, acts.astype(np.float64), acts.astype(bool), [str(a) for a in acts], [1.0, 2.0]):
        with pytest.raises(ValueError, match="actions must be integers"):
            envs.step(bad)
    with pytest.raises(ValueError, match="not an action"):
        envs.step(np.array([2**63, 2**63], np.uint64))
    with pytest.raises(ValueError, match="expected 2 actions"):
        envs.step(acts[:1])
    assert np.array_equal(envs.games(), games) and np.array_equal(envs._impl.mask, obs["action_mask"])  # nothing moved
    for seed in (1.7, -1, 2**64, "3", True):
        with pytest.raises(ValueError, match="seed must be an integer from 0 to"):
            envs.reset(seed=seed)
    envs.reset(seed=np.uint64(2**64 - 1))
    envs.step(list(envs.sample_actions(envs._impl.mask, np.random.default_rng(1))))  # a list of ints is fine
    for kw in ({"num_envs": 2.5}, {"num_envs": True}, {"num_envs": 0}, {"num_envs": 2, "learner": 1.0},
               {"num_envs": 2, "learner": 9}):
        with pytest.raises(ValueError, match="must be an integer"):
            EscobaVectorEnv(backend=backend, **kw)


# ---------------------------------------------------------------- PettingZoo

def test_pettingzoo_refuses_floats_unknown_agents_and_calls_out_of_order():
    env = escoba_v0.raw_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="no agent 'player_9'"):
        env.observe("player_9")
    mask = env.observe(env.agent_selection)["action_mask"]
    a = int(np.flatnonzero(mask)[0])
    moves = len(env.hand.st.moves)
    for bad in (a + 0.5, float(a), True):
        with pytest.raises(IllegalMove, match="action must be an integer"):
            env.step(bad)
    assert len(env.hand.st.moves) == moves
    for seed in (1.5, -3):
        with pytest.raises(ValueError, match="seed must be an integer"):
            env.reset(seed=seed)
    env.close()
    for call in (lambda: env.step(a), lambda: env.reset(seed=1), lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match="the environment is closed"):
            call()


# ---------------------------------------------------------------- issue 36: copies and action shapes

@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_env_refuses_an_action_array_of_the_wrong_shape(backend):
    envs = EscobaVectorEnv(4, backend=backend)
    obs, _ = envs.reset(seed=1)
    acts = envs.sample_actions(obs["action_mask"], np.random.default_rng(0))
    games = envs.games().copy()
    for bad in (acts.reshape(2, 2), acts.reshape(4, 1), acts.reshape(1, 4), np.int64(acts[0]), acts[:3]):
        with pytest.raises(ValueError, match=r"expected 4 actions \(one per env: an array of shape \(4,\)\), got an "
                                             r"array of shape"):
            envs.step(bad)
    assert np.array_equal(envs.games(), games) and np.array_equal(envs._impl.mask, obs["action_mask"])  # nothing moved
    envs.step(acts)


def _play(e, moves: int):
    for _ in range(moves):
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("make", [escoba_v0.env, escoba_v0.raw_env])
@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_a_pettingzoo_env_copied_mid_episode_keeps_its_episode_and_plays_on_alone(make, how):
    import copy

    e = make()
    e.reset(seed=3)
    _play(e, 3)
    c = getattr(copy, how)(e)
    assert c.agent_selection == e.agent_selection
    for agent in e.possible_agents:
        for key in ("observation", "action_mask"):
            assert np.array_equal(c.observe(agent)[key], e.observe(agent)[key])
    moves = list(e.unwrapped.hand.st.moves)
    _play(c, 1)  # the copy moves, the original stays where it was
    assert e.unwrapped.hand.st.moves == moves and len(c.unwrapped.hand.st.moves) == len(moves) + 1
    _play(e, 1)
    assert e.unwrapped.hand.st.moves == c.unwrapped.hand.st.moves  # the same deal, the same first legal moves
    # both finish the hand
    for env in (e, c):
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.unwrapped.hand.st.result.total == c.unwrapped.hand.st.result.total
