"""Plugins that cheat the guard (issue 25): a Move subclass whose __eq__ is always true is not a
legal move, and a plugin's prints never reach stdout, where --json and hand records go."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from escoba_sim.cli import main
from escoba_sim.game.engine import Move
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import PluginError, parse_strategy

ALWAYS_EQUAL = '''
from escoba_sim.game.engine import Move

class Liar(Move):
    def __eq__(self, other):
        return True
    __hash__ = Move.__hash__

class P:
    def choose_move(self, st, moves, rng):
        return Liar(st.to_play, 39 if moves[0].card != 39 else 0, (1, 2, 3))
'''

SUBCLASS_OF_A_LEGAL_MOVE = '''
from escoba_sim.game.engine import Move

class Mine(Move):
    pass

class P:
    def choose_move(self, st, moves, rng):
        m = moves[0]
        return Mine(m.player, m.card, m.take, m.escoba, m.soplar)
'''

NOISY = '''
print("importing the noisy plugin")

class P:
    def __init__(self):
        print("a noisy player is made")

    def choose_move(self, st, moves, rng):
        print("thinking about", len(moves), "moves")
        return moves[0]
'''


def test_a_move_whose_eq_is_always_true_is_refused(tmp_path):
    f = tmp_path / "liar.py"
    f.write_text(ALWAYS_EQUAL)
    r = CliRunner().invoke(main, ["trace", "-s", f"{f}:P", "--vs", "greedy", "--seed", "2"])
    assert r.exit_code == 1 and "Traceback" not in r.stderr, r.output
    assert "choose_move returned a Liar (a Move subclass) that is not one of the" in r.stderr
    from escoba_sim.game import engine

    player = parse_strategy(f"{f}:P").make()
    st = engine.new_hand(parse_rules("ludoteka"), list(range(40)), 0)
    with pytest.raises(PluginError, match="Move subclass"):
        player.choose_move(st, engine.legal_moves(st), None)


def test_a_legal_move_in_a_subclass_plays_as_the_legal_move_itself(tmp_path):
    from escoba_sim.game import engine

    f = tmp_path / "mine.py"
    f.write_text(SUBCLASS_OF_A_LEGAL_MOVE)
    player = parse_strategy(f"{f}:P").make()
    st = engine.new_hand(parse_rules("ludoteka"), list(range(40)), 0)
    legal = engine.legal_moves(st)
    got = player.choose_move(st, legal, None)
    assert type(got) is Move and got is legal[0]  # the engine never holds the plugin's object


@pytest.mark.parametrize("cmd", [["trace", "-s", "{p}", "--vs", "greedy", "--seed", "2", "--json"],
                                 ["run", "-s", "{p}", "--vs", "greedy", "--hands", "-n", "4", "-j", "1", "-q",
                                  "--json"]])
def test_a_plugins_prints_do_not_corrupt_json(tmp_path, cmd):
    f = tmp_path / "noisy.py"
    f.write_text(NOISY)
    from escoba_sim.strategies.plugins import plugin_class

    plugin_class.cache_clear()  # the import-time print too
    r = CliRunner().invoke(main, [a.format(p=f"{f}:P") for a in cmd])
    assert r.exit_code == 0, r.output
    json.loads(r.stdout)  # stdout is the JSON and nothing else
    assert "thinking about" in r.stderr and "a noisy player is made" in r.stderr
    assert "importing the noisy plugin" in r.stderr
