"""`heuristic:tuned`: the weights shipped in escoba_sim/strategies/tuned.toml for the ruleset in use."""

import numpy as np
import pytest
from helpers import needs_core

from escoba_sim import batch
from escoba_sim.game.rules import PRESETS, parse_rules
from escoba_sim.runs.spec import RunError, make_spec
from escoba_sim.strategies import StrategyError, parse_strategy, tuned_params


def test_every_preset_has_tuned_heuristic_weights():
    table = tuned_params()["heuristic"]
    assert set(table) == set(PRESETS)
    hand_set = dict(parse_strategy("heuristic").params)
    for preset, weights in table.items():
        spec = parse_strategy("heuristic:tuned").for_rules(PRESETS[preset])
        assert dict(spec.params) == weights and set(weights) == set(hand_set)
        assert dict(spec.params) != hand_set


def test_the_label_stays_tuned_and_resolves_per_ruleset():
    spec = parse_strategy("heuristic:tuned")
    assert spec.canonical == "heuristic:tuned" and spec.tuned
    a = spec.for_rules(PRESETS["ludoteka"])
    b = spec.for_rules(PRESETS["tradicional"])
    assert a != b and a.name == b.name == "heuristic"
    with pytest.raises(StrategyError, match="resolve it"):
        spec.make()


@pytest.mark.parametrize("engine", ["cython", "python"])
def test_it_plays_exactly_the_resolved_weights(engine):
    if engine == "cython":
        needs_core("the compiled engine's run")
    r = parse_rules("tradicional")
    resolved = parse_strategy("heuristic:tuned").for_rules(r).canonical
    a = batch.play_hands(r, ["heuristic:tuned", "greedy"], 4, 0, 30, engine_name=engine)
    b = batch.play_hands(r, [resolved, "greedy"], 4, 0, 30, engine_name=engine)
    c = batch.play_hands(r, ["heuristic", "greedy"], 4, 0, 30, engine_name=engine)
    assert a == b
    assert not np.array_equal(a.hands["total"], c.hands["total"])  # the weights do change the play


def test_rulesets_without_tuned_weights_and_strategies_without_any_are_refused():
    with pytest.raises(RunError, match="no parameters are tuned for the ruleset"):
        make_spec("heuristic:tuned", ["greedy"], "ludoteka(target=21)")
    with pytest.raises(StrategyError, match="no tuned parameters are shipped for `ismcts`"):
        parse_strategy("ismcts:tuned")
    with pytest.raises(StrategyError, match="takes no parameters"):
        parse_strategy("greedy:tuned")
