"""Escoba del 15 as a PettingZoo AEC environment, in the style of PettingZoo's classic card games.

    from escoba_sim.env import escoba_v0
    env = escoba_v0.env(rules="ludoteka")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

One episode is one hand. Agents ``player_0 .. player_{n-1}`` are the seats.
Observations are dicts: ``observation`` (int8 vector, the planes of
``escoba_sim.env.actions``, seen from the agent's seat) and ``action_mask`` (82
int8, the legal actions of the fixed encoding). Rewards come at the end of the
hand: each seat's side points minus the mean of the other sides' (two sides:
own minus opponent's), as in ``escoba_sim.env.openspiel``. ``infos[agent]`` holds
the hand's points per side (``"totals"``) once it is over.

Seeding: ``reset(seed=s)`` deals game 0 of seed ``s`` (``rng.shuffled_deck(s,
0, 0)``, dealer ``0``); each further ``reset()`` without a seed deals the next
game (game ``g``, dealer ``g % players``), exactly the hands of
``escoba-sim run --hands`` with that seed. Without any seed the first reset
draws one from the OS.

Misuse of the raw environment raises ``ValueError`` (an agent that does not
exist, an action or a seed that is not a whole number in range: a float is
refused, never truncated; an illegal action: ``engine.IllegalMove``, a
ValueError) or ``RuntimeError`` (``step`` or ``observe`` before ``reset``, any
call after ``close()``); ``env()``'s wrappers answer first as PettingZoo's do.

``copy.copy`` and ``copy.deepcopy`` of an environment (wrapped or raw) keep the episode in play: the copy
stands where the original stands and the two then play on independently.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.engine import IllegalMove
from ..game.rng import shuffled_deck
from ..game.rules import parse_rules
from . import actions
from .actions import N_ACTIONS, ActionHand, hand_returns, whole_number


def env(**kwargs):
    """The environment with PettingZoo's usual wrappers (an illegal move ends the hand with -1 for its player)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return OrderEnforcing(e)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's outer wrapper, whose ``copy.copy`` is a whole copy (a shallow one would share the hand)."""

    def __copy__(self):
        import copy

        return copy.deepcopy(self)


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": ["human", "ansi"], "name": "escoba_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, rules: str = "ludoteka", render_mode: str | None = None):
        EzPickle.__init__(self, rules, render_mode)
        super().__init__()
        self.rules = parse_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        self._obs_size = actions.observation_size(self.rules)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0, high=40, shape=(self._obs_size,), dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seed: int | None = None
        self._game = 0
        self.hand: ActionHand | None = None
        self._closed = False

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(f"{what}: the environment is closed")
        if self.hand is None and what != "reset()":
            raise RuntimeError(f"call reset() before {what}")

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        self._check_open("observe()")
        if agent not in self.possible_agents:
            raise ValueError(f"no agent {agent!r:.40}: the agents are {', '.join(self.possible_agents)}")
        seat = self.possible_agents.index(agent)
        obs = np.zeros(self._obs_size, np.int8)
        self.hand.observation_planes(seat, obs)
        mask = np.zeros(N_ACTIONS, np.int8)
        if not self.hand.over and self.hand.to_play == seat:
            mask[self.hand.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed=None, options=None):
        self._check_open("reset()")
        if seed is not None:
            self._seed, self._game = whole_number(seed, "seed", 0, 2**64), 0
        elif self._seed is None:
            self._seed, self._game = random.getrandbits(63), 0
        else:
            self._game += 1
        game = self._game
        self.hand = ActionHand.deal(self.rules, shuffled_deck(self._seed, game, 0), game % self.rules.players)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self.hand.over:  # a deal can't end a hand, but keep the API whole if a ruleset ever allows it
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.hand.to_play]

    def step(self, action):
        self._check_open("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = whole_number(action, "action", 0, N_ACTIONS, IllegalMove)  # 1.5 is refused, not truncated to 1
        self._cumulative_rewards[agent] = 0
        self.hand.apply(action)
        if self.hand.over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.hand.to_play]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self):
        totals = self.hand.st.result.total
        for a, r in zip(self.possible_agents, hand_returns(self.rules, totals)):
            self.rewards[a] = r
            self.terminations[a] = True
            self.infos[a] = {"totals": list(totals)}
        # the seat that finished the hand stays selected; agent_iter hands every agent its final reward
        self.agent_selection = self.possible_agents[self.hand.st.moves[-1].player] if self.hand.st.moves else \
            self.possible_agents[0]

    def render(self):
        if self.render_mode is None:
            return None
        seat = self.hand.to_play if not self.hand.over else 0
        text = self.hand.observation_string(seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        self._closed = True

    def __deepcopy__(self, memo):
        """The environment as it stands, mid-episode included (the hand, whose turn, the rewards so far); the copy
        and the original then play on independently. (EzPickle alone would give a fresh environment, not reset:
        pickling still does, as PettingZoo's environments do.)"""
        import copy

        new = object.__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            setattr(new, name, copy.deepcopy(value, memo))
        return new

    def __copy__(self):
        """``copy.copy`` is ``copy.deepcopy`` here: a copy sharing the hand would move when the original moves."""
        import copy

        return copy.deepcopy(self)
