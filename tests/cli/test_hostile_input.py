"""Hostile input (issue 11): a one-line error and a clean exit for every bad argument or file, plugins
that fail in every way, and the plugin trust rule: a plugin named in a file never runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLE_PLUGIN

from escoba_sim.hands.record import record_for_hand
from escoba_sim.runs.runner import run
from escoba_sim.runs.spec import make_spec
from escoba_sim.strategies import PluginError, StrategyError, check_strategy, parse_strategy, plugins
from escoba_sim.strategies.plugins import GuardedPlugin


def one_error(result, code=None) -> str:
    """The single stderr line of a failed command (exit 1 or 2, no traceback, nothing on stdout)."""
    assert result.exit_code in ((1, 2) if code is None else (code,)), (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    assert len(lines) <= 3, result.stderr  # click's usage lines may precede the error
    return errors[0]


# ---------------------------------------------------------------- bad arguments

LONG_RULES = "ludoteka(" + ",".join(["target=21"] * 30) + ")"  # 309 characters: was `OSError: File name too long`
VALID_LONG_RULES = "ludoteka(" + " " * 260 + "target=21)"


@pytest.mark.parametrize("args,message", [
    (["rules", "show", LONG_RULES], "set twice"),
    (["rules", "show", "ludoteka(target=" + "9" * 5000 + ")"], "at most 30 digits"),
    (["rules", "show", "ludo\0teka"], "expected a preset"),
    (["moves", "--hand", "5b", "-r", LONG_RULES], "set twice"),
    (["run", "-s", "greedy", "--vs", "random", "-n", "1e400"], "at most 1e15"),
    (["run", "-s", "greedy", "--vs", "random", "-n", "1e20"], "at most 1e15"),
    (["run", "-s", "greedy", "--vs", "random", "-n", str(2**63)], "at most 1e15"),
    (["run", "-s", "greedy", "--vs", "random", "-n", "1e99999999999"], "not a count"),
    (["run", "-s", "greedy", "--vs", "random", "-n", "10", "--chunk", "1e400"], "at most 1e15"),
    (["run", "-s", "greedy", "--vs", "random", "-n", "10", "-r", LONG_RULES], "set twice"),
    (["compare", "-n", "1e30", "--out", "x"], "at most 1e15"),
    (["bench", "--seconds", "nan"], "not a number of seconds"),
    (["bench", "--seconds", "inf"], "--seconds"),
    (["trace", "-s", "greedy", "--vs", "random", "--seed", "1", "--game", "18446744073709551621"], "--game"),
    (["trace", "-s", "greedy", "--vs", "random", "--seed", "1", "--hand-index", "10000"], "--hand-index"),
])
def test_bad_arguments_are_one_line(cli, args, message):
    assert message in one_error(cli(*args))


def test_long_valid_rules_string_works(cli):
    r = cli("rules", "show", VALID_LONG_RULES, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["fields"]["target"] == 21
    r = cli("run", "-s", "greedy", "--vs", "random", "--hands", "-n", "4", "--seed", "1", "-j", "1", "-q", "--json",
            "-r", VALID_LONG_RULES)
    assert r.exit_code == 0 and json.loads(r.stdout)["rules"] == "ludoteka(target=21)"


def test_counts_are_read_exactly(cli):
    from escoba_sim.cli.options import COUNT

    assert COUNT.convert("1e15", None, None) == 10**15
    assert COUNT.convert("999_999_999_999_999", None, None) == 999_999_999_999_999
    with pytest.raises(Exception, match="at most 1e15"):
        COUNT.convert("1000000000000001", None, None)
    assert COUNT.convert("2.5e5", None, None) == 250_000


def test_non_utf8_weights_file(cli, tmp_path):
    f = tmp_path / "w.toml"
    f.write_bytes(b"\xff\xfe\x00oros = 2\n")
    assert "not a text file" in one_error(cli("run", "-s", f"heuristic:{f}", "--vs", "random", "-n", "4"), 2)
    r = tmp_path / "rules.toml"
    r.write_bytes(b"\xff\xfe\x00target = 2\n")
    assert "not valid TOML" in one_error(cli("rules", "show", str(r)))


def _record():
    return record_for_hand("ludoteka", ["greedy", "random"], 3)


@pytest.mark.parametrize("change,message", [
    (lambda r: r.update(strategies=5), "field `strategies` must be a list"),
    (lambda r: r.update(strategies=["greedy", 7]), "field `strategies` must be a list"),
    (lambda r: r.update(strategies={"a": 1}), "field `strategies` must be a list"),
    (lambda r: r.update(strategies=["greedy"]), "names 1 strategies for 2 seats"),
    (lambda r: r.update(seed="seven"), "field `seed` must be a whole number"),
    (lambda r: r.update(game=-1), "field `game` must be a whole number"),
    (lambda r: r.update(hand=[[[1]]]), "field `hand` must be a whole number"),
])
def test_malformed_provenance_is_a_record_error(cli, tmp_path, change, message):
    rec = _record()
    change(rec)
    f = tmp_path / "h.json"
    f.write_text(json.dumps(rec))
    assert message in one_error(cli("replay", f), 2)
    assert message in one_error(cli("replay", f, "--json"), 2)


def test_deeply_nested_json(cli, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in one_error(cli("replay", f), 2)
    rec = _record()
    rec["moves"] = [{"player": 0, "card": "[" * 50_000}]
    f.write_text(json.dumps(rec))
    one_error(cli("replay", f), 2)


def test_report_on_a_broken_folder(cli, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "manifest.json").write_text("[1]")
    assert "not a results manifest" in one_error(cli("report", d))
    (d / "manifest.json").write_text("[" * 100_000)
    one_error(cli("report", d))
    run(make_spec("greedy", ["random"], None, 8, hands=True, seed=1, chunk_size=4), tmp_path / "r")
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert "cannot write the report" in one_error(cli("report", tmp_path / "r", "--out", blocked / "x"))


# ---------------------------------------------------------------- the plugin trust rule

EVIL = '''
import pathlib
pathlib.Path({marker!r}).write_text("ran")

class P:
    def choose_move(self, state, moves, rng):
        return moves[0]
'''


def _evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "EVIL-RAN"
    plugin = tmp_path / "dl" / "evil.py"
    plugin.parent.mkdir(exist_ok=True)
    plugin.write_text(EVIL.format(marker=str(marker)))
    return plugin, marker


def test_parsing_never_imports_a_plugin(tmp_path):
    plugin, marker = _evil(tmp_path)
    spec = parse_strategy(f"{plugin}:P")
    assert spec.plugin is not None and spec.short == f"{plugin}:P"
    assert not marker.exists()
    check_strategy(f"{plugin}:P")  # the command line's own check loads it: the person named it
    assert marker.exists()


def test_replay_shows_a_records_plugin_as_text(cli, tmp_path):
    plugin, marker = _evil(tmp_path)
    rec = _record()
    rec["strategies"] = [f"{plugin}:P", "heuristic:/etc/passwd.toml"]
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(rec))
    r = cli("replay", f)
    assert r.exit_code == 0, r.output
    assert f"{plugin}:P" in r.stdout and "all legal" in r.stdout  # checked and scored, the name shown as text
    assert not marker.exists()


def _plugin_run_folder(tmp_path: Path, finished: list[int] | None) -> tuple[Path, Path, Path]:
    """A run folder played with a plugin, then its plugin file replaced by code that leaves a marker
    (a folder downloaded from elsewhere)."""
    plugin = tmp_path / "dl" / "evil.py"
    plugin.parent.mkdir(exist_ok=True)
    plugin.write_text(EXAMPLE_PLUGIN.read_text())
    out = tmp_path / "dl" / "run"
    spec = make_spec(f"{plugin}:LowCard", ["greedy"], None, 12, hands=True, seed=5, chunk_size=3)
    run(spec, out, only_chunks=finished)
    marker = tmp_path / "EVIL-RAN"
    plugin.write_text(EVIL.format(marker=str(marker)).replace("class P:", "class LowCard:"))
    from escoba_sim import strategies

    plugins.plugin_class.cache_clear()  # this process loaded the old file; a fresh one would load the new
    strategies.parse_strategy.cache_clear()
    return out, marker, plugin


def test_report_of_a_plugin_run_runs_no_code(cli, tmp_path):
    out, marker, plugin = _plugin_run_folder(tmp_path, None)
    r = cli("report", out)
    assert r.exit_code == 0, r.output
    assert not marker.exists()
    assert "evil.py:LowCard" in (out / "report" / "index.html").read_text()


def test_resume_of_a_plugin_run_needs_trust(cli, tmp_path):
    out, marker, plugin = _plugin_run_folder(tmp_path, [0])
    refused = one_error(cli("resume", out, "-j", "1", "-q"), 1)
    assert "evil.py:LowCard" in refused and "--trust-plugins" in refused
    assert not marker.exists()
    trusted = cli("resume", out, "-j", "1", "-q", "--trust-plugins", "--json")
    assert trusted.exit_code == 0, trusted.output
    assert marker.exists() and json.loads(trusted.stdout)["status"] == "complete"


# ---------------------------------------------------------------- plugins that fail

FAILING = {
    "needs_argument": ("class P:\n    def __init__(self, depth):\n        pass\n"
                       "    def choose_move(self, st, moves, rng):\n        return moves[0]\n",
                       "cannot make a player: P() failed (TypeError"),
    "raises": ("class P:\n    def choose_move(self, st, moves, rng):\n        raise ValueError('no idea\\nat all')\n",
               "choose_move raised ValueError: no idea at all"),
    "illegal": ("from escoba_sim.game.engine import Move\nclass P:\n    def choose_move(self, st, moves, rng):\n"
                "        return Move(st.to_play, moves[0].card, (39,))\n", "not one of the"),
    "none": ("class P:\n    def choose_move(self, st, moves, rng):\n        return None\n",
             "choose_move returned NoneType None, not a Move"),
    "int": ("class P:\n    def choose_move(self, st, moves, rng):\n        return 3\n",
            "choose_move returned int 3, not a Move"),
    "mutates": ("class P:\n    def choose_move(self, st, moves, rng):\n        st.table.clear()\n"
                "        return moves[0]\n", "changed the hand's state"),
    "exits": ("import sys\nclass P:\n    def choose_move(self, st, moves, rng):\n        sys.exit(0)\n",
              "choose_move called sys.exit(0)"),
    "exits_on_import": ("import sys\nsys.exit(3)\n", "failed to import: it called sys.exit(3)"),
    "not_a_class": ("P = 5\n", "must name a class"),
}


@pytest.mark.parametrize("kind", list(FAILING))
def test_a_failing_plugin_is_one_line(cli, tmp_path, kind):
    code, message = FAILING[kind]
    f = tmp_path / f"{kind}.py"
    f.write_text(code)
    for cmd in (["trace", "-s", f"{f}:P", "--vs", "greedy", "--seed", "2"],
                ["run", "-s", f"{f}:P", "--vs", "greedy", "--hands", "-n", "4", "-j", "1", "-q"]):
        line = one_error(cli(*cmd))
        assert message in line and f"{kind}.py" in line, line
        if kind not in ("needs_argument", "exits_on_import", "not_a_class"):
            assert "seat 0, move" in line  # the decision that failed: seat and move number


def test_guarded_plugin_places_the_failure_in_a_deal(tmp_path):
    from escoba_sim import batch
    from escoba_sim.game.rules import PRESETS

    f = tmp_path / "late.py"
    f.write_text("class P:\n    n = 0\n    def choose_move(self, st, moves, rng):\n        P.n += 1\n"
                 "        if P.n > 30:\n            raise RuntimeError('tired')\n        return moves[-1]\n")
    with pytest.raises(PluginError, match=r"\(game \d+ hand 0, seat \d, move \d+\): choose_move raised "
                                          r"RuntimeError: tired") as e:
        batch.play_hands(PRESETS["ludoteka"], [f"{f}:P", "greedy"], 1, 0, 10)
    assert isinstance(e.value, StrategyError)
    assert isinstance(parse_strategy(f"{f}:P").make(), GuardedPlugin)
