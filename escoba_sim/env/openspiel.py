"""Escoba del 15 as an OpenSpiel game: ``python_escoba``, registered when this module is imported.

Needs the ``rl`` extra (``pip install "escoba-sim[rl]"``); see docs/ecosystem.md.

    import pyspiel
    import escoba_sim.env.openspiel
    game = pyspiel.load_game("python_escoba(rules=tradicional)")

One game is one hand (a "mano"). Parameters: ``rules`` (a preset name or
``preset(field=value,...)``; a game string is a request, so a file it names is
refused, never opened), ``dealer`` (the seat that
deals, default 0, so seat 1 leads with two players) and one override per
ruleset field (``players=4,teams=yes,ties=none``; ``-1`` or empty means "as
the preset"; yes/no fields take ``yes``/``no``).

- Chance: the first 40 moves deal the deck, one card at a time, uniformly
  among the cards not yet dealt (outcome = card id); then the reference
  engine deals hands and table from that order (docs/engine.md, One hand),
  settles the lucky deal, and refills or draws from the rest.
- Players' actions: the fixed encoding of ``escoba_sim.env.actions`` (82 actions:
  a card, then the table cards it takes one at a time, ``LAY``, ``NO_BLOW``).
- Returns at the end: for each player, its side's hand points minus the mean
  of the other sides' hand points (two sides: own minus opponent's), so the
  game is zero-sum; ``state.hand_result()`` has the points per side and
  category. Every move and point comes from ``escoba_sim.game.engine``.
- Observation tensor/string: ``actions.ActionHand.observation_planes`` /
  ``observation_string``. Information state: the observation plus, per seat,
  the cards it has played and every card this seat has held (tensor); the
  string adds the whole public move list and the cards this seat received, in
  order, so it has perfect recall.
- ``state.resample_from_infostate(player, sampler)`` deals the cards ``player``
  cannot see again (``ActionHand.resample``), which is what OpenSpiel's
  ``ISMCTSBot`` needs.

``StrategyBot`` plays any built-in strategy spec (``greedy``, ``endgame``,
``ismcts:iters=500``, ...) through the game, drawing from the hand's PLAY
stream exactly as the engine does.

Misuse raises ``pyspiel.SpielError``, as OpenSpiel's own checks do: a seat that
does not exist (``resample_from_infostate(9, ...)``), a bot asked to step a
chance node, a finished hand or a state of another game; an illegal action
raises ``engine.IllegalMove`` (a ValueError).
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from ..game.cards import card_str, cards_str
from ..game.rng import SplitMix64
from ..game.rules import FIELD_NAMES, RulesError, Ruleset, coerce_field, parse_rules
from . import actions
from .actions import N_ACTIONS, ActionHand, SeatStrategy, hand_returns

SHORT_NAME = "python_escoba"
_CHANCE, _TERMINAL = pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL
MAX_POINTS = 26  # a bound on one side's hand points without bonuses: 22 escobas + 4 categories
# the ruleset overrides as typed OpenSpiel parameters: ints -1 and strings "" mean "as the preset"
_OVERRIDE_DEFAULTS = {name: (-1 if isinstance(getattr(Ruleset(), name), int)
                             and not isinstance(getattr(Ruleset(), name), bool) else "")
                      for name in FIELD_NAMES}
PARAMETERS = {"rules": "ludoteka", "dealer": 0, **_OVERRIDE_DEFAULTS}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Escoba del 15 (escoba-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def rules_from_params(params: dict) -> Ruleset:
    """The ruleset a parameter dict names: the ``rules`` preset or inline spec (never a file), then every
    override that is set."""
    base = parse_rules(str(params.get("rules", "ludoteka")), files=False)
    changes = {}
    for name in FIELD_NAMES:
        v = params.get(name, _OVERRIDE_DEFAULTS[name])
        if v != _OVERRIDE_DEFAULTS[name]:
            changes[name] = coerce_field(name, v)
    try:
        return base.replace(**changes)
    except RulesError as e:
        raise RulesError(f"{SHORT_NAME}: {e}") from None


class EscobaGame(pyspiel.Game):
    """One hand of Escoba del 15 under a ruleset (module docstring)."""

    def __init__(self, params=None):
        params = dict(params or {})
        rules = rules_from_params({**PARAMETERS, **params})
        dealer = actions.whole_number(params.get("dealer", 0), f"{SHORT_NAME}: dealer (a seat)", 0, rules.players,
                                      RulesError)  # 1.5 is refused, not truncated
        self.rules, self.dealer = rules, dealer
        top = MAX_POINTS + rules.bonus_all_oros + rules.bonus_all_sevens
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=40,
            num_players=rules.players,
            min_utility=-float(top),
            max_utility=float(top),
            utility_sum=0.0,
            # 40 deals; each card played is at most 1 + 9 decisions, each blow at most 9
            max_game_length=40 + 40 * 19)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return EscobaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return EscobaObserver(self.rules, perfect_recall, params)


class EscobaState(pyspiel.State):
    """A hand in progress: the deck dealt so far, then an ``actions.ActionHand`` over the engine's state."""

    def __init__(self, game: EscobaGame):
        super().__init__(game)
        self.rules: Ruleset = game.rules
        self.dealer: int = game.dealer
        # the cards dealt so far, until the hand starts; then the deck is the hand's (clones copy less)
        self._dealt: list[int] | None = []
        self.hand: ActionHand | None = None

    @property
    def deck(self) -> list[int]:
        """The deck as dealt so far (all 40 cards once the hand has started)."""
        return self._dealt if self.hand is None else self.hand.st.deck

    # -------------------------------------------------------------- the OpenSpiel state API
    def current_player(self):  # called several times per action by OpenSpiel: no property lookups
        hand = self.hand
        if hand is None:
            return _CHANCE
        return _TERMINAL if hand.phase == actions.OVER else hand.st.to_play

    def is_terminal(self):
        return self.hand is not None and self.hand.phase == actions.OVER

    def chance_outcomes(self):
        left = sorted(set(range(40)) - set(self.deck))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _legal_actions(self, player):
        if self.hand is None or player != self.hand.to_play:
            return []
        return self.hand.legal_actions()

    def _apply_action(self, action):
        if self.hand is None:
            if action in self._dealt or not 0 <= action < 40:
                raise pyspiel.SpielError(f"chance outcome {action} is not a card left to deal")
            self._dealt.append(action)
            if len(self._dealt) == 40:
                self.hand = ActionHand.deal(self.rules, self._dealt, self.dealer)
                self._dealt = None
            return
        self.hand.apply(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_str(action)}"
        return actions.action_str(action)

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.rules.players
        return hand_returns(self.rules, self.hand.st.result.total)

    def hand_result(self):
        """The engine's ``HandResult`` of a finished hand (points per side and category)."""
        return self.hand.st.result if self.is_terminal() else None

    def __str__(self):
        if self.hand is None:
            return f"dealing: {cards_str(self.deck)}"
        st = self.hand.st
        lines = [f"dealer {st.dealer}; deck {cards_str(st.deck)}"]
        lines += [f"hand {s}: {cards_str(h) or '-'}" for s, h in enumerate(st.hands)]
        lines.append(f"table: {cards_str(st.table) or '-'}; stock {len(st.stock)}")
        lines.append(f"moves: {self.hand.public_history()}")
        if self.hand.card >= 0:
            lines.append(f"chosen: {card_str(self.hand.card)} taking {cards_str(self.hand.chosen) or '-'}")
        return "\n".join(lines)

    # -------------------------------------------------------------- for ISMCTS
    def resample_from_infostate(self, player, sampler):
        """A state that ``player`` cannot tell from this one, its unseen cards dealt again at random.

        ``ActionHand.resample`` does the dealing (exact, capture=any inferences included). The copy's
        ``hand.st.deck`` is its deck; its ``history()`` (kept by OpenSpiel itself) still lists the original
        chance outcomes, so serialize ``deal(new_state, clone.hand.st.deck)`` + the player actions if a
        resampled state must be stored.
        """
        player = actions.whole_number(player, "resample_from_infostate: player", 0, self.rules.players,
                                      pyspiel.SpielError)
        clone = self.clone()
        if self.hand is None:
            return clone
        seed = int(sampler() * 2 ** 53) if callable(sampler) else random.getrandbits(53)
        clone.hand, _ = self.hand.resample(player, random.Random(seed))
        return clone


class EscobaObserver:
    """Observation (and, with ``perfect_recall``, information state) tensors and strings."""

    def __init__(self, rules: Ruleset, perfect_recall: bool, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.rules, self.perfect_recall = rules, perfect_recall
        pieces = [(name, n) for name, n in actions.observation_layout(rules)]
        if perfect_recall:
            pieces += [("played_by", 40 * rules.players), ("held", 40)]
        self.tensor = np.zeros(sum(n for _, n in pieces), np.float32)
        self.dict, at = {}, 0
        for name, n in pieces:
            self.dict[name] = self.tensor[at:at + n]
            at += n
        self._obs_len = actions.observation_size(rules)

    def set_from(self, state: EscobaState, player: int):
        self.tensor.fill(0)
        if state.hand is None:
            return
        state.hand.observation_planes(player, self.tensor[:self._obs_len])
        if self.perfect_recall:
            n = self.rules.players
            for m in state.hand.st.moves:
                if not m.soplar:
                    self.dict["played_by"][40 * ((m.player - player) % n) + m.card] = 1
            for c in received_cards(state, player):
                self.dict["held"][c] = 1

    def string_from(self, state: EscobaState, player: int) -> str:
        hand = state.hand
        if hand is None:
            mine = received_cards(state, player)
            return f"seat {player} dealing ({len(state.deck)} dealt); hand: {cards_str(sorted(mine)) or '-'}"
        # ISMCTS asks for the same state's information state several times: kept until the state changes
        if hand.strings is None:
            hand.strings = {}
        key = (player, self.perfect_recall)
        text = hand.strings.get(key)
        if text is None:
            text = hand.observation_string(player)
            if self.perfect_recall:
                text += (f"\nreceived: {cards_str(received_cards(state, player))}"
                         f"\nhistory: {hand.public_history()}")
            hand.strings[key] = text
        return text


def received_cards(state: EscobaState, player: int) -> list[int]:
    """The cards dealt to ``player`` so far, in the order received (initial hand first)."""
    rules = state.rules
    if state.hand is None:
        # during the chance phase: the first hand_size * players cards go to the seats from dealer + 1
        k = rules.hand_size
        order = [(state.dealer + 1 + i) % rules.players for i in range(rules.players)]
        start = order.index(player) * k
        return state.deck[start:start + k]
    st = state.hand.st
    held = set(st.hands[player]) | {m.card for m in st.moves if m.player == player and not m.soplar}
    return [c for c in st.deck if c in held]


pyspiel.register_game(_GAME_TYPE, EscobaGame)


# ------------------------------------------------------------------ our strategies as OpenSpiel bots

class StrategyBot(pyspiel.Bot):
    """A built-in strategy (spec string) playing ``python_escoba`` through its actions.

    Bots of one hand share ``rng`` (the hand's PLAY stream: ``SplitMix64.for_hand(seed, game, 0, PLAY)``)
    so a hand plays exactly as ``engine.play_hand`` (or the compiled core, for ismcts) plays it.
    """

    def __init__(self, spec: str, rng: SplitMix64 | None = None):
        super().__init__()
        self.seat_strategy = SeatStrategy(spec)
        self.rng = rng or SplitMix64(random.getrandbits(64))
        self._queue: list[int] = []

    def restart_at(self, state):
        self._queue = []

    def inform_action(self, state, player_id, action):
        pass

    def step(self, state):
        if not isinstance(state, EscobaState):
            raise pyspiel.SpielError(f"StrategyBot plays {SHORT_NAME} states, got {type(state).__name__}")
        hand = state.hand
        if hand is None:
            raise pyspiel.SpielError("StrategyBot.step: the state is a chance node (the deck is being dealt); "
                                     "apply one of state.chance_outcomes() instead")
        if hand.over:
            raise pyspiel.SpielError("StrategyBot.step: the hand is over (a terminal state has no move)")
        if not self._queue or self._queue[0] not in hand.legal_actions():
            self._queue = hand.actions_for(self.seat_strategy.decide(hand, self.rng))
        return self._queue.pop(0)


def deal(state: EscobaState, deck: list[int]) -> EscobaState:
    """Apply the 40 chance outcomes that deal ``deck`` (e.g. ``rng.shuffled_deck(seed, game, 0)``)."""
    for c in deck:
        state.apply_action(c)
    return state
