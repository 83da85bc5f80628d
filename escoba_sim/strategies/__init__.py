"""Strategies: the spec language and registry, the reference strategies, plugins and the compiled bridge.

A strategy is named everywhere by a spec string (``greedy``, ``heuristic:oros=2``, ``file.py:Class``);
``parse_strategy`` turns it into a ``StrategySpec``. Plugin authors subclass nothing: a class with
``choose_move(state, moves, rng)`` is enough (docs/strategies.md).
"""

from .endgame import EndgameStrategy
from .errors import PluginError, StrategyError
from .levels import LEVELS, Level, Rating, level_label, performance_rating, rating_of
from .plugins import ENTRY_POINT_GROUP, GuardedPlugin
from .reference import (
    HEURISTIC_PARAMS,
    DefensiveStrategy,
    GreedyStrategy,
    HeuristicStrategy,
    LevelStrategy,
    MaxOrosStrategy,
    RandomStrategy,
    SevensStrategy,
    clear_count,
    greedy_key,
    mask_sum,
    maxoros_key,
    risk_of,
    sevens_key,
    unseen_mask,
)
from .registry import (
    BUILTINS,
    STRATEGIES,
    STRATEGY_HELP,
    TUNED,
    TUNED_FILE,
    Param,
    StrategyDef,
    StrategySpec,
    check_strategy,
    format_number,
    load_strategy,
    make_strategy,
    parse_strategy,
    plugins_in,
    tuned_params,
)

__all__ = ["BUILTINS", "DefensiveStrategy", "ENTRY_POINT_GROUP", "EndgameStrategy", "GreedyStrategy", "GuardedPlugin",
           "HEURISTIC_PARAMS", "HeuristicStrategy", "LEVELS", "Level", "LevelStrategy", "MaxOrosStrategy", "Param", "PluginError", "RandomStrategy", "Rating",
           "STRATEGIES", "STRATEGY_HELP", "SevensStrategy", "StrategyDef", "StrategyError", "StrategySpec", "TUNED",
           "TUNED_FILE", "check_strategy", "clear_count", "format_number", "greedy_key", "level_label", "load_strategy",
           "make_strategy", "performance_rating", "rating_of", "mask_sum", "maxoros_key", "parse_strategy", "plugins_in", "risk_of", "sevens_key",
           "tuned_params", "unseen_mask"]
