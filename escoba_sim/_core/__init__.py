"""The compiled core: thin Cython adapters over the plain-C engine in csrc/, one module per concept.

- ``play``: hands and games (``play_hands``, ``play_games``; ``IMPLS``, ``IMPL``, ``use_impl``: the
  copies of the hand loop; ``DEAL_STREAM_VERSION``);
- ``search``: one compiled decision and the evaluator's searches (``decide_move``, ``decide_blow``,
  ``evaluate_sample``, ``evaluate_exact``) and the reading of the other hands (``read_hands``), each on
  one packed ``Position``;
- ``aggregates``: a chunk's sums in one pass (``add_rotation``, ``deal_moments``);
- ``hooks``: the C RNG, capture tables, scoring and ismcts' building blocks for the differential tests
  (and ``capture_options`` for ``env.actions``);
- ``common``: the ruleset, seats and ``Position`` as C values, and the strategy codes with their
  parameter slots (``CODES``, ``STRATEGIES``), checked against ``strategies.BUILTINS`` at import.

They share C-level helpers through ``common.pxd`` and ``guard.pxd`` and the C declarations of
``csrc.pxd``. This package gathers their public names into one namespace, as numpy.random's does:
``escoba_sim.native`` loads it (``native.core``) and every caller names a function of the core the same
way whichever module holds it. A module that does not load makes the whole core unavailable.
"""

from .aggregates import add_rotation, deal_moments
from .common import CODES, MAX_PARAMS, STRATEGIES, Position
from .hooks import (
                    below_values,
                    capture_options,
                    holding_probability,
                    inferred_deals,
                    ismcts_turns_hand,
                    mix64,
                    move_probability,
                    next_values,
                    note_voids,
                    reachable_sums,
                    score_piles,
                    shuffled_deck,
                    shuffled_deck_from_state,
                    stream_state,
)
from .play import (
                    CHECK_EVERY_GAMES,
                    CHECK_EVERY_HANDS,
                    DEAL_STREAM_VERSION,
                    IMPL,
                    IMPLS,
                    play_games,
                    play_hands,
                    use_impl,
)
from .search import decide_blow, decide_move, evaluate_exact, evaluate_sample, read_hands

__all__ = ["CHECK_EVERY_GAMES", "CHECK_EVERY_HANDS", "CODES", "DEAL_STREAM_VERSION", "IMPL", "IMPLS", "MAX_PARAMS",
           "STRATEGIES", "Position", "add_rotation", "below_values", "capture_options", "deal_moments",
           "decide_blow", "decide_move", "evaluate_exact", "evaluate_sample", "holding_probability", "inferred_deals",
           "ismcts_turns_hand", "mix64", "move_probability", "next_values", "note_voids", "play_games", "play_hands", "read_hands", "reachable_sums", "score_piles",
           "shuffled_deck", "shuffled_deck_from_state", "stream_state", "use_impl"]
