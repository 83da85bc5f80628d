"""play (escoba_sim/hands/play.py): scripted sessions through stdin, a real terminal (pexpect), and the records."""

import json
import os
import re
import sys
from pathlib import Path

import pytest

from escoba_sim import native
from escoba_sim.game.rules import parse_rules
from escoba_sim.hands.play import Session
from escoba_sim.hands.record import replay_record
from escoba_sim.lineup import LineupError, seat_specs, table_seats

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def records(folder):
    return sorted(Path(folder).glob("*.json"))


def check_records(folder, finished=True):
    found = records(folder)
    assert found
    for f in found:
        data = json.loads(f.read_text())
        st, problems = replay_record(data)
        assert data["strategies"][0] == "person"
        if finished and "unfinished" not in f.name:
            assert problems == [] and st.over, (f, problems)
    return found


def test_a_scripted_game_finishes_and_every_hand_replays(cli, tmp_path):
    out = cli("play", "--vs", "greedy", "--seed", 5, "--out", tmp_path, input="1\n" * 400)
    assert out.exit_code == 0, out.output
    assert "game 1 over: " in out.output
    files = check_records(tmp_path)
    assert len(files) == out.output.count("saved the hand:") >= 2  # the path may wrap onto its own line at 80
    # the game score adds up the hand records' totals, and the game ended at the target
    totals = [0, 0]
    for f in files:
        for side in json.loads(f.read_text())["score"]:
            totals[side["side"]] += side["total"]
    assert max(totals) >= 15 and f"you {totals[0]}, greedy {totals[1]}" in out.output
    assert "\x1b[" not in out.output  # piped: no colour
    # what the person saw each turn
    for key in ("taken", "cards  oros  sevens  7o  escobas", "stock: ", "table: ", "your hand: ", " 1) "):
        assert key in out.output
    assert cli("replay", files[0]).exit_code == 0


def test_wrong_entries_hint_take_back_and_quit(cli, tmp_path):
    # seed 5, ludoteka: greedy opens with Re taking 4o 1e; the person holds Sc 5e 6e at the table Sb Cb
    script = ["?", "u", "9", "zz", "Rb", "5e Sb", "Sc", "u", "5e", "q"]
    out = cli("play", "--vs", "greedy", "--seed", 5, "--out", tmp_path, input="\n".join(script) + "\n")
    assert out.exit_code == 0, out.output
    text = out.output
    assert "your hand: Sc 5e 6e" in text
    core = native.ENGINE == "cython"  # hints and analyze use the evaluator, which runs in the compiled core
    if core:
        hint = text[text.index("hint ("):].splitlines()[1:4]
        assert len(hint) == 3 and all(re.search(r"[+-]\d\.\d\d ±\d\.\d\d$", x) for x in hint)
    else:
        assert "no hint: the evaluator runs in the compiled core, which is not loaded" in text
    for reason in ("nothing to take back in this hand", "choose a number from 1 to 3",
                   "`zz`: suit must be o, c, e or b", "Rb is not in your hand", "5e + Sb sum to 13, not 15",
                   "taken back: your last move and the replies to it", "saved the unfinished hand"):
        assert reason in text, reason
    (f,) = records(tmp_path)
    data = json.loads(f.read_text())
    assert "unfinished" in f.name and "score" not in data
    assert [m["card"] for m in data["moves"] if m["player"] == 0] == ["5e"]  # Sc was taken back
    st, problems = replay_record(data)
    assert len(problems) == 1 and "not finished" in problems[0].reason
    assert cli("analyze", f, "--samples", 200).exit_code == (0 if core else 1)


def test_the_person_blows_the_computers_misses(cli, tmp_path):
    # tradicional: random lays cards that could capture; answering 1 blows with the first option
    out = cli("play", "--vs", "random", "-r", "tradicional", "--seed", 3, "--hands", "-n", 2, "--out", tmp_path,
              input="1\n" * 200)
    assert out.exit_code == 0, out.output
    assert "you may blow (soplar)" in out.output and "you blow: take " in out.output
    blows = [m for f in check_records(tmp_path) for m in json.loads(f.read_text())["moves"] if m.get("soplar")]
    assert any(m["player"] == 0 for m in blows)


def test_the_computer_blows_the_persons_misses(tmp_path):
    # the person always picks the last option: the lay of its highest card, which often could capture
    lines = []

    def ask(prompt):
        m = re.search(r"\[(\d+)-(\d+)", prompt)
        return "1" if prompt.startswith("your only move") else m.group(2) if prompt.startswith("your move") else "0"

    s = Session(seat_specs(parse_rules("tradicional"), ["greedy"]), 4, tmp_path, ask=ask, say=lines.append)
    s.play(2, hands_mode=True)
    text = "\n".join(lines)
    assert "seat 1 (greedy) BLOWS your " in text
    assert any(m.get("soplar") and m["player"] == 1
               for f in check_records(tmp_path) for m in json.loads(f.read_text())["moves"])


def test_forced_moves_and_wrong_numbers_get_plain_prompts(tmp_path):
    # issue 26: a forced move was asked as "[1-1 ...]" and `-1` was answered "suit must be o, c, e or b"
    prompts, lines, answers = [], [], {}

    def ask(prompt):
        prompts.append(prompt)
        n = answers.get(prompt, 0)
        answers[prompt] = n + 1
        return ["-1", "0", "1.5", "1"][n] if n < 4 else "1"

    s = Session(seat_specs(parse_rules("ludoteka"), ["greedy"]), 7, tmp_path, ask=ask, say=lines.append)
    s.play(2, hands_mode=True)
    assert not [p for p in prompts if "[1-1," in p]
    forced = [p for p in prompts if p.startswith("your only move [1 or ")]
    assert forced, prompts
    text = "\n".join(lines)
    assert "suit must be" not in text
    assert "`-1` is not one of the numbers shown: choose a number from 1 to " in text
    assert "there is no move 0: choose a number from 1 to " in text
    assert "`-1` is not one of the numbers shown: type 1, the only one" in text
    assert "`1.5` is not one of the numbers shown: type 1, the only one" in text
    check_records(tmp_path)


@pytest.mark.parametrize("args,players", [
    (["--vs", "greedy", "--vs", "maxoros"], 3),
    (["--vs", "greedy", "-r", "ludoteka(players=4)"], 4),
    (["--vs", "greedy", "--teams", "--partner", "heuristic"], 4),
    (["--vs", "examples/lowcard.py:LowCard"], 2),
])
def test_more_players_teams_and_plugins(cli, tmp_path, args, players):
    out = cli("play", *args, "--seed", 2, "--hands", "--out", tmp_path, input="1\n" * 100)
    assert out.exit_code == 0, out.output
    (f,) = check_records(tmp_path)
    data = json.loads(f.read_text())
    assert len(data["strategies"]) == players
    if "--teams" in args:
        assert data["strategies"][2].startswith("heuristic") and "you + 2:heuristic" in out.output
        assert len(data["score"]) == 2


def test_bad_options_are_one_line_errors(cli, tmp_path):
    for args in (["--vs", "nosuch"], ["--vs", "greedy", "--partner", "greedy"],
                 ["--vs", "greedy", "--vs", "greedy", "-r", "ludoteka(players=4)"],
                 ["--vs", "greedy", "-r", "nosuch"]):
        out = cli("play", *args, "--out", tmp_path, input="q\n")
        assert out.exit_code == 2 or out.exit_code == 1, (args, out.output)
        assert "Error" in out.output and "Traceback" not in out.output


def test_the_cheating_oracle_is_refused_as_an_opponent_or_partner(cli, tmp_path):
    # the oracle reads every hand, the person's too: a yardstick, never someone to play against
    for args in (["--vs", "oracle"], ["--vs", "greedy", "--vs", "oracle:exact=10"],
                 ["--vs", "greedy", "--teams", "--partner", "oracle"]):
        out = cli("play", *args, "--seed", 1, "--hands", "--out", tmp_path, input="q\n")
        assert out.exit_code == 1, (args, out.output)
        lines = [ln for ln in out.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and "cheats" in lines[0] and "Traceback" not in out.output, out.output
    assert not any(tmp_path.iterdir())  # nothing was played or saved


def test_colour_when_asked(cli, tmp_path):
    out = cli("play", "--vs", "greedy", "--seed", 5, "--hands", "--color", "--out", tmp_path, input="q\n")
    assert "\x1b[" in out.output
    assert "your hand: Sc 5e 6e" in ANSI.sub("", out.output)


@pytest.mark.core("the hint evaluator")
def test_play_in_a_real_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    cmd = [sys.executable, "-c", "from escoba_sim.cli import main; main()", "play", "--vs", "ismcts:iters=200",
           "--seed", "5", "--hands", "--out", str(tmp_path)]
    child = pexpect.spawn(cmd[0], cmd[1:], env=dict(os.environ, TERM="xterm"), encoding="utf-8", timeout=60,
                          dimensions=(50, 160))
    try:
        child.expect(r"your move \[1-(\d+)")
        seen = ANSI.sub("", child.before)
        assert "your hand: Sc 5e 6e" in seen
        assert "\x1b[" in child.before  # a terminal gets colour
        child.sendline("?")
        child.expect(r"hint \(")
        child.expect(r"your move")
        assert len(re.findall(r"±\d\.\d\d", child.before)) == 3
        child.sendline("u")
        child.expect("nothing to take back")
        child.sendline("5e")
        child.expect(r"you lay .*5e")
        child.expect(r"your move")
        child.sendline("u")
        child.expect("taken back")
        child.expect(r"your move")
        child.sendline("Sc")
        child.expect(r"your move")
        child.sendline("q")
        child.expect("saved the unfinished hand")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    (f,) = records(tmp_path)
    moves = json.loads(f.read_text())["moves"]
    assert [m["card"] for m in moves if m["player"] == 0] == ["Sc"]


def test_without_the_core_play_still_works_and_hints_say_why(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(native, "core", None)
    out = cli("play", "--vs", "greedy", "--seed", 5, "--hands", "--out", tmp_path, input="?\n1\nq\n")
    assert out.exit_code == 0
    assert "no hint: the evaluator runs in the compiled core" in out.output and "you lay" in out.output
    out = cli("play", "--vs", "ismcts", "--out", tmp_path, input="q\n")
    assert out.exit_code == 1 and "runs only in the compiled core" in out.output


def test_table_seats():
    seats = table_seats("ludoteka", ["greedy", "random"])
    assert seats.rules.players == 3 and seats.specs == [None, "greedy", "random"]
    seats = table_seats("ludoteka", ["greedy"], teams=True, partner="maxoros")
    assert seats.rules.teams and seats.specs == [None, "greedy", "maxoros", "greedy"]
    assert table_seats("ludoteka(players=3)", ["greedy"]).specs == [None, "greedy", "greedy"]
    for kw, message in [
        (dict(rules_text="ludoteka", vs=["oracle"]), "cheats"),
        (dict(rules_text="nope", vs=["greedy"]), "^rules: unknown preset"),
        (dict(rules_text="ludoteka", vs=["greedy"] * 3, teams=True), "^teams: give one vs "),
        (dict(rules_text="ludoteka", vs=["greedy"], partner="maxoros"), "^partner needs teams$"),
        (dict(rules_text="ludoteka", vs=["greedy"] * 6), "^6 vs: "),
        (dict(rules_text="ludoteka(players=4)", vs=["greedy"] * 2), "is played by 4 players: give one vs "),
    ]:  # the library names its parameters; the command line names their flags (below)
        with pytest.raises(LineupError, match=message):
            table_seats(**kw)


@pytest.mark.parametrize("args, message", [
    (["-r", "nope"], "Error: --rules: unknown preset"),
    (["--vs", "greedy", "--vs", "greedy", "--vs", "greedy", "--teams"], "Error: --teams: give one --vs (both"),
    (["--partner", "maxoros"], "Error: --partner needs --teams\n"),
    (["-r", "ludoteka(players=4)", "--vs", "random"], "give one --vs (every computer seat) or 3"),
])
def test_play_names_the_flags_of_a_lineup_error(cli, tmp_path, args, message):
    out = cli("play", "--vs", "greedy", *args, "--out", tmp_path, input="q\n")
    assert out.exit_code == 2 and message in out.output, out.output  # a usage error (README, "Exit codes")
