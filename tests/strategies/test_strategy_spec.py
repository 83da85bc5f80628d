"""Strategy specs: parsing, canonical labels, clear errors, TOML weights, and user plugins end to end."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE_PLUGIN

from escoba_sim import batch, native
from escoba_sim.cli import main
from escoba_sim.game.rules import PRESETS
from escoba_sim.strategies import BUILTINS, StrategyError, StrategySpec, check_strategy, parse_strategy, plugins

HEURISTIC_DEFAULT = "heuristic:cards=1,oros=1,sevens=1.5,siete=3,escoba=4,risk=20,keep=0.5"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_plain_names_and_defaults_filled():
    assert check_strategy("greedy") == "greedy"
    assert check_strategy(" maxoros ") == "maxoros"
    assert check_strategy("heuristic") == HEURISTIC_DEFAULT
    spec = parse_strategy("heuristic:oros=2, risk=1.5")
    assert spec.canonical == "heuristic:cards=1,oros=2,sevens=1.5,siete=3,escoba=4,risk=1.5,keep=0.5"
    assert dict(spec.params)["oros"] == 2.0 and spec.core_code == BUILTINS["heuristic"].code
    # canonical strings parse back to the same spec, and equal specs are equal (hashable)
    assert parse_strategy(spec.canonical) == spec and hash(parse_strategy(spec.canonical)) == hash(spec)
    assert parse_strategy("heuristic:oros=1") == parse_strategy("heuristic")
    assert isinstance(parse_strategy(spec), StrategySpec)
    # the short form for people keeps only what differs from the defaults
    assert spec.short == "heuristic:oros=2,risk=1.5" and parse_strategy("endgame").short == "endgame"
    assert check_strategy("endgame:max_cards=4").endswith(",max_cards=4")


@pytest.mark.parametrize("text,message", [
    ("heurstic", "did you mean heuristic"),
    ("greddy", "did you mean greedy"),
    ("heuristic:orro=2", "unknown parameter `orro` (did you mean oros?)"),
    ("heuristic:oros=lots", "`oros` must be a number"),
    ("heuristic:oros=nan", "finite"),
    ("heuristic:oros=1,oros=2", "given twice"),
    ("heuristic:oros", "not key=value"),
    ("greedy:oros=2", "takes no parameters"),
    ("endgame:max_cards=2.5", "whole number"),
    ("endgame:max_cards=99", "between 0 and 12"),
    ("nothere.py:Cls", "does not exist"),
    ("bot.py", "name the strategy class too"),
    ("heuristic:missing.toml", "cannot read"),
])
def test_errors_are_clear(text, message):
    with pytest.raises(StrategyError, match=re.escape(message)):
        check_strategy(text)  # what the command line calls: a plugin is loaded, so a missing one fails


def test_cli_rejects_a_bad_spec_with_the_suggestion():
    r = invoke("run", "-s", "heuristic:orro=2", "--vs", "greedy", "-n", "2")
    assert r.exit_code == 2 and "did you mean oros?" in r.output


def test_toml_weights(tmp_path):
    f = tmp_path / "w.toml"
    f.write_text("oros = 2\nrisk = 1.5\n")
    assert parse_strategy(f"heuristic:{f}") == parse_strategy("heuristic:oros=2,risk=1.5")
    g = tmp_path / "t.toml"
    g.write_text("[heuristic]\nescoba = 7\n")
    assert dict(parse_strategy(f"heuristic:{g}").params)["escoba"] == 7.0
    bad = tmp_path / "bad.toml"
    bad.write_text("orros = 2\n")
    with pytest.raises(StrategyError, match="did you mean oros"):
        parse_strategy(f"heuristic:{bad}")


def test_batch_accepts_spec_strings_and_specs():
    rules = PRESETS["ludoteka"]
    a = batch.play_hands(rules, ["heuristic:oros=2", "greedy"], 5, 0, 20)
    b = batch.play_hands(rules, [parse_strategy("heuristic:oros=2"), "greedy"], 5, 0, 20)
    assert a == b
    # the weights reach the strategy: a very different weighting plays differently
    c = batch.play_hands(rules, ["heuristic:oros=50,cards=0", "greedy"], 5, 0, 20)
    assert a != c


def test_plugin_class_loads_and_plays(tmp_path):
    spec = parse_strategy(f"{EXAMPLE_PLUGIN}:LowCard")
    assert spec.plugin is not None and spec.canonical == f"{EXAMPLE_PLUGIN}:LowCard"
    assert batch.engine_for([spec, "greedy"]) == "python"
    with pytest.raises(StrategyError, match="has no `Lowcard` \\(did you mean LowCard\\?\\)"):
        check_strategy(f"{EXAMPLE_PLUGIN}:Lowcard")
    # a plugin without choose_blow never blows
    p = tmp_path / "noblow.py"
    p.write_text("class First:\n    def choose_move(self, state, moves, rng):\n        return moves[0]\n")
    rules = PRESETS["tradicional"]
    b = batch.play_hands(rules, [f"{p}:First", "greedy"], 1, 0, 30)
    assert b.n_hands == 30


def test_plugin_through_escoba_sim_run(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "_warned", set())
    out = tmp_path / "run"
    r = invoke("run", "-s", f"{EXAMPLE_PLUGIN}:LowCard", "--vs", "greedy", "-n", "40", "--seed", "3", "-j", "1",
               "--json", "--out", out)
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["status"] == "complete" and s["games"] == 40
    if native.ENGINE == "cython":  # without the core there is nothing faster to warn about
        assert "reference engine" in r.stderr and "slower" in r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["engine"] == "python"
    assert manifest["spec"]["strategies"][0] == f"{EXAMPLE_PLUGIN}:LowCard"


def test_strategies_command_lists_every_builtin():
    r = invoke("strategies", "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert list(data) == list(BUILTINS)
    assert data["heuristic"]["canonical"] == HEURISTIC_DEFAULT
    assert data["heuristic"]["params"]["risk"]["default"] == 20.0
    text = invoke("strategies").output
    assert "endgame" in text and "max_cards=6" in text


def test_entry_point_plugin(monkeypatch):

    class EP:
        name = "lowbot"

        def load(self):
            return plugins.plugin_class(f"{EXAMPLE_PLUGIN}:LowCard")

    monkeypatch.setattr(plugins, "entry_point", lambda name: EP() if name == "lowbot" else None)
    spec = parse_strategy("lowbot")
    assert spec.plugin == "entry-point:lowbot" and spec.canonical == "lowbot"
    assert batch.engine_for(["lowbot", "greedy"]) == "python"
    assert batch.play_hands(PRESETS["ludoteka"], ["lowbot", "greedy"], 1, 0, 5).n_hands == 5
    parse_strategy.cache_clear()  # the fake entry point must not outlive this test
    plugins.plugin_class.cache_clear()
