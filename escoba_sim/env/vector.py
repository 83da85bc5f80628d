"""A Gymnasium vector environment: N hands in lock-step, one learner seat against built-in strategies.

    import numpy as np
    from escoba_sim.env.vector import EscobaVectorEnv
    envs = EscobaVectorEnv(4096, rules="ludoteka", opponent="greedy")
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(100):
        actions = envs.sample_actions(obs["action_mask"], rng)  # a random legal action per env
        obs, reward, terminated, truncated, info = envs.step(actions)

- Observations: ``{"observation": int8 (N, size), "action_mask": int8 (N, 82)}``,
  the planes and action encoding of ``escoba_sim.env.actions`` seen from the
  learner's seat (the same as ``escoba_v0`` shows that seat).
- One step is one learner decision (a card, a table card of a capture, a lay,
  a blow choice); the other seats (``opponent``: any built-in strategy spec,
  or one per other seat) play inside the loop until the learner decides again.
- ``reward`` is 0 until the hand ends, then the learner's side points minus
  the mean of the other sides' (two sides: own minus opponent's);
  ``terminated`` is True on that step; ``truncated`` is always False.
- Autoreset: Gymnasium's next-step mode (``metadata["autoreset_mode"]``): the
  step after a hand ended deals the next one, ignores that env's action (the
  final observation's mask is all zeros: any action is accepted) and returns
  reward 0. Env i plays games ``i, i + N, i + 2N, ...`` of the seed
  (deck ``rng.shuffled_deck(seed, game, 0)``, dealer ``game % players``), the
  hands of ``escoba-sim run --hands`` with that seed.
- An illegal action raises ``ValueError`` naming the env, before any env moves;
  so do actions that are not integers (a float array is refused, never
  truncated), a wrong count of actions, and a seed that is not a whole number
  from 0 to 2^64-1. ``step`` before ``reset`` or any call after ``close()``
  raises ``RuntimeError``.
- Under a Stop (``escoba_sim.stops.running_under``) that is set, ``reset`` and
  ``step`` raise ``stops.Stopped``: the other seats' searches were cut short,
  so the hands are no longer the seed's, and ``step`` then asks for ``reset``.
- ``copy=False`` returns the environment's own buffers (overwritten by the
  next step) instead of copies: faster, as Gymnasium's ``copy`` flag.

Backends: ``"core"`` steps in C (``escoba_sim._vec``; the other seats'
decisions are the compiled core's); ``"python"`` steps the reference engine
one hand at a time (``escoba_sim.env.actions.ActionHand``), the same hands and
numbers about 400 times slower, and cannot play ``ismcts``. ``"auto"``
(the default) takes the core when it is loaded, so under
``ESCOBA_SIM_PURE_PYTHON=1`` the environment still works, slowly.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..game.rng import PLAY, SplitMix64, shuffled_deck
from ..game.rules import parse_rules
from ..native import PURE_ENV, CoreUnavailable, core, load_compiled
from ..stops import Stopped
from ..strategies import parse_strategy
from . import actions
from .actions import N_ACTIONS, ActionHand, SeatStrategy, hand_returns, whole_number

_vec = load_compiled("_vec", "compiled vector loop") if core is not None else None


class EscobaVectorEnv(VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, rules="ludoteka", opponent="greedy", learner: int = 0, copy: bool = True,
                 backend: str = "auto"):
        self.rules = parse_rules(rules)
        learner = whole_number(learner, "learner (a seat)", 0, self.rules.players)
        num_envs = whole_number(num_envs, "num_envs", 1, 2**31)
        others = [s for s in range(self.rules.players) if s != learner]
        specs = [opponent] * len(others) if isinstance(opponent, str) else list(opponent)
        if len(specs) != len(others):
            raise ValueError(f"{len(others)} other seats need {len(others)} opponent strategies, got {len(specs)}")
        self.opponents = [parse_strategy(s).canonical for s in specs]
        seats = {s: spec for s, spec in zip(others, self.opponents)}
        self.strategies = [seats.get(s, self.opponents[0]) for s in range(self.rules.players)]
        if backend == "auto":
            backend = "core" if _vec is not None else "python"
        if backend == "core":
            if _vec is None:
                raise CoreUnavailable(f"backend='core' needs the compiled core (it is off: {PURE_ENV}=1 or not built)")
            self._impl = _vec.VecCore(self.rules, self.strategies, learner, num_envs)
        elif backend == "python":
            self._impl = _PythonVec(self.rules, self.strategies, learner, num_envs)
        else:
            raise ValueError(f"backend must be auto, core or python, got {backend!r}")
        self.backend, self.learner, self.num_envs, self.copy = backend, learner, num_envs, copy
        size = actions.observation_size(self.rules)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=0, high=40, shape=(size,), dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._truncated = np.zeros(num_envs, np.bool_)
        self._seed: int | None = None

    def _open(self, what: str):
        """The backend, or RuntimeError once the environment is closed."""
        if self._impl is None:
            raise RuntimeError(f"{what}: the environment is closed")
        return self._impl

    def _obs(self):
        o, m = self._impl.obs, self._impl.mask
        return {"observation": o.copy(), "action_mask": m.copy()} if self.copy else {"observation": o, "action_mask": m}

    def reset(self, *, seed: int | None = None, options=None):
        impl = self._open("reset()")
        if seed is None:
            seed = random.getrandbits(63)
        self._seed = whole_number(seed, "seed", 0, 2**64)  # 1.7 is refused, not truncated to 1
        try:
            impl.reset(self._seed, 0)
        except Stopped:
            self._seed = None  # the other seats played cut-short searches: these hands are not the seed's
            raise
        return self._obs(), {}

    def step(self, actions_):
        impl = self._open("step()")
        if self._seed is None:
            raise RuntimeError("call reset() before step()")
        acts = self._actions(actions_)
        try:
            bad = impl.step(acts)
        except Stopped:
            self._seed = None  # as in reset: step again only after a reset
            raise
        if bad >= 0:
            legal = np.flatnonzero(self._impl.mask[bad]).tolist()
            raise ValueError(f"env {bad}: action {acts[bad]} is not legal now; legal actions: {legal} "
                             f"(see the action_mask)")
        r, t = self._impl.reward, self._impl.terminated
        if self.copy:
            r, t = r.copy(), t.copy()
        return self._obs(), r, t, self._truncated.copy() if self.copy else self._truncated, {}

    def _actions(self, actions_) -> np.ndarray:
        """``actions_`` as int64, one per env; floats, booleans and anything else are refused, never cast."""
        a = np.asarray(actions_)
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (an action id per env, 0 to {N_ACTIONS - 1}), got an "
                             f"array of {a.dtype}")
        if a.shape != (self.num_envs,):  # a (2, 2) array for 4 envs is not flattened: whose action is whose?
            raise ValueError(f"expected {self.num_envs} actions (one per env: an array of shape ({self.num_envs},)), "
                             f"got an array of shape {a.shape}")
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            i = int(np.argmax(a > np.iinfo(np.int64).max))
            raise ValueError(f"env {i}: action {a[i]} is not an action (0 to {N_ACTIONS - 1})")
        return a.astype(np.int64, copy=False)

    def sample_actions(self, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per env (0 where none is legal: a hand that just ended)."""
        return np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)

    def games(self) -> np.ndarray:
        """The game index each env is playing now (its deck is ``rng.shuffled_deck(seed, game, 0)``)."""
        return self._open("games()").games()

    def close_extras(self, **kwargs):
        self._impl = None


class _PythonVec:
    """The reference-engine backend: the same buffers and hands as ``escoba_sim._vec.VecCore``."""

    def __init__(self, rules, strategies, learner: int, n_envs: int):
        self.rules, self.learner, self.n = rules, learner, n_envs
        self.players = [None if s == learner else SeatStrategy(spec) for s, spec in enumerate(strategies)]
        self.obs = np.zeros((n_envs, actions.observation_size(rules)), np.int8)
        self.mask = np.zeros((n_envs, N_ACTIONS), np.int8)
        self.reward = np.zeros(n_envs, np.float32)
        self.terminated = np.zeros(n_envs, np.bool_)
        self.hands: list[ActionHand] = []
        self.rngs: list[SplitMix64] = []
        self.game = np.zeros(n_envs, np.uint64)
        self.seed = 0

    def _deal(self, i: int, game: int) -> None:
        hand = ActionHand.deal(self.rules, shuffled_deck(self.seed, game, 0), game % self.rules.players)
        self.hands[i], self.rngs[i], self.game[i] = hand, SplitMix64.for_hand(self.seed, game, 0, PLAY), game
        self._advance(i)

    def _advance(self, i: int) -> None:
        hand = self.hands[i]
        while not hand.over and hand.to_play != self.learner:
            self.players[hand.to_play].play(hand, self.rngs[i])

    def _write(self, i: int) -> None:
        hand = self.hands[i]
        self.obs[i] = 0
        hand.observation_planes(self.learner, self.obs[i])
        self.mask[i] = 0
        if not hand.over:
            self.mask[i, hand.legal_actions()] = 1

    def reset(self, seed: int, first_game: int = 0) -> None:
        self.seed = seed
        self.hands, self.rngs = [None] * self.n, [None] * self.n
        for i in range(self.n):
            self._deal(i, first_game + i)
            self._write(i)
        self.reward[:] = 0
        self.terminated[:] = False

    def step(self, acts: np.ndarray) -> int:
        if len(acts) != self.n:
            raise ValueError(f"expected {self.n} actions, got {len(acts)}")
        for i, a in enumerate(acts):
            if not self.hands[i].over and int(a) not in self.hands[i].legal_actions():
                return i
        for i, a in enumerate(acts):
            hand = self.hands[i]
            if hand.over:
                self._deal(i, int(self.game[i]) + self.n)
                self.reward[i], self.terminated[i] = 0.0, False
            else:
                hand.apply(int(a))
                self._advance(i)
                done = hand.over
                self.terminated[i] = done
                self.reward[i] = hand_returns(self.rules, hand.st.result.total)[self.learner] if done else 0.0
            self._write(i)
        return -1

    def games(self) -> np.ndarray:
        return self.game.copy()
