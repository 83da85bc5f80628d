"""Hostile play and analyze (issue 25): `play` never loses a hand, every prompt answer
is one line, repeated --vs are honoured or refused, --samples is bounded, and analyze reads any file calmly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from escoba_sim.cli import main
from escoba_sim.game.rules import parse_rules
from escoba_sim.hands import table as table_mod
from escoba_sim.hands.play import Session
from escoba_sim.hands.record import record_for_hand, replay_record
from escoba_sim.hands.table import PlayError
from escoba_sim.lineup import LineupError, seat_specs, table_seats

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 40))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

RAISING_PLUGIN = '''
class Boom:
    def choose_move(self, state, moves, rng):
        if len(state.moves) > 2:
            raise RuntimeError("boom\\nand a second line\\x1b[31m")
        return moves[0]
'''


def error_line(result, code=1) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    if code == 2 and lines and lines[0].startswith("Usage:"):  # click's usage lines precede a bad option
        lines = lines[2:]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def unfinished_records(folder):
    return sorted(Path(folder).glob("*-unfinished*.json"))


def scripted(lines, then=None):
    """An ``ask`` that answers ``lines`` in turn, then ``then`` (None: the end of input)."""
    it = iter(lines)

    def ask(prompt):
        return next(it, then)
    return ask


# ---------------------------------------------------------------- finding 7: every input gets one line

@pytest.mark.parametrize("text", ["²", "①", "9" * 5000, "5" * 250 + "o", "²o", "①o 5c", "\x1b[A", "5o\x00"])
def test_odd_digits_and_long_lines_get_a_one_line_answer(tmp_path, text):
    said = []
    s = Session(seat_specs(parse_rules("ludoteka"), ["greedy"]), 5, tmp_path, ask=scripted([text, "q"]),
                say=said.append)
    s.play(1, hands_mode=True)
    answer = said[said.index("quit.") - 2]  # the line said to `text`, then the save, then quit
    assert answer.isprintable() and 0 < len(answer) < 200 and not answer.startswith("saved"), said[-6:]
    # quit, then the session's closing: its records, then how to look at them
    assert said[-4] == "quit." and said[-3].startswith("this session saved 1 hand record in"), said[-5:]
    assert said[-2].startswith("check one with `escoba-sim replay FILE`")
    assert said[-1] == f"all of them, luck and your rating: `escoba-sim history {tmp_path}`"


def test_a_bare_blow_under_tradicional_is_answered(tmp_path):
    said, asked = [], []

    def ask(prompt):
        asked.append(prompt)
        if prompt.startswith("blow?"):
            return "blow" if sum(p.startswith("blow?") for p in asked) == 1 else "q"
        return "1"

    s = Session(seat_specs(parse_rules("tradicional"), ["random"]), 3, tmp_path, ask=ask, say=said.append)
    s.play(2, hands_mode=True)
    assert sum(p.startswith("blow?") for p in asked) == 2  # asked again after the answer
    assert any(x.startswith("name the blow, e.g. `blow ") for x in said), said
    (f,) = unfinished_records(tmp_path)
    assert json.loads(f.read_text())["unfinished"] == "quit"


def test_a_raising_plugin_keeps_the_hand(cli, tmp_path):
    plugin = tmp_path / "boom.py"
    plugin.write_text(RAISING_PLUGIN)
    r = CliRunner().invoke(main, ["play", "--vs", f"{plugin}:Boom", "--seed", 5, "--hands", "--out",
                                  str(tmp_path / "out")], input="1\n" * 20)
    line = error_line(r)
    assert "choose_move raised RuntimeError: boom and a second line" in line
    (f,) = unfinished_records(tmp_path / "out")
    assert line.endswith(f"; the hand so far is saved as {f}")
    data = json.loads(f.read_text())
    assert data["unfinished"].startswith("error: strategy plugin") and "score" not in data
    assert len(data["moves"]) == 4
    rp = cli("replay", f)
    assert rp.exit_code == 1 and "not finished" in rp.output and "(play stopped: error: strategy plugin" in rp.output
    st, problems = replay_record(data)
    assert len(st.moves) == 4 and len(problems) == 1


def test_a_bug_anywhere_keeps_the_hand(tmp_path, monkeypatch):
    """Whatever raises inside a hand (here the hint, as `--samples 1e10` did), the hand is saved, one line."""
    def broken(*a, **k):
        raise OverflowError("value too large to convert to int")

    monkeypatch.setattr(table_mod, "evaluate", broken)
    out = tmp_path / "o"
    r = CliRunner().invoke(main, ["play", "--vs", "greedy", "--seed", 5, "--hands", "--out", str(out)],
                           input="1\n?\n")
    line = error_line(r)
    (f,) = sorted(out.glob("*.json"))
    assert line == f"Error: unexpected OverflowError: value too large to convert to int (please report it); " \
                   f"the hand so far is saved as {f}"
    data = json.loads(f.read_text())
    assert data["unfinished"] == "error: value too large to convert to int" and len(data["moves"]) == 3


def test_samples_above_a_million_are_refused_in_one_line(cli, tmp_path):
    for args in (["play", "--vs", "greedy", "--hands"], ["analyze", "x.json"],
                 ["trace", "-s", "greedy", "--vs", "greedy", "--seed", "1", "--analyze"]):
        for n in ("1e10", "3e9", "1e9", "1000001"):
            r = CliRunner().invoke(main, [*args, "--samples", n, *(["--out", str(tmp_path)] if args[0] == "play"
                                                                     else [])], input="?\nq\n")
            line = error_line(r, 2)
            assert "at most 1,000,000" in line, line
    with pytest.raises(PlayError, match="1,000,000"):
        Session(seat_specs(parse_rules("ludoteka"), ["greedy"]), 1, tmp_path, ask=scripted([]), say=print,
                samples=10**10)
    assert not any(tmp_path.iterdir())


def test_a_full_disk_leaves_no_truncated_record(tmp_path, monkeypatch):
    from escoba_sim import files

    real = files.write_bytes

    def full(path, data, root=None):
        def put(tmp):
            with open(tmp, "wb") as f:
                f.write(data[:10])
            raise OSError(28, "No space left on device")
        files.atomic_write(path, put, root)

    monkeypatch.setattr(files, "write_bytes", full)
    r = CliRunner().invoke(main, ["play", "--vs", "greedy", "--seed", 5, "--hands", "--out", str(tmp_path)],
                           input="1\n" * 40)
    line = error_line(r)
    assert "cannot save the hand record (No space left on device)" in line
    assert list(tmp_path.iterdir()) == []  # no half record, no temporary left behind
    monkeypatch.setattr(files, "write_bytes", real)


def test_an_out_where_nothing_can_be_saved_is_refused_before_the_deal(tmp_path):
    (tmp_path / "f").write_text("not a folder")
    out = tmp_path / "f" / "records"  # (--out naming a file itself is click's refusal, exit 2)
    r = CliRunner().invoke(main, ["play", "--vs", "greedy", "--seed", "5", "--hands", "--out", str(out)],
                           input="1\n" * 40)
    assert f"{tmp_path / 'f'} is not a folder; the hand records could not be saved" in error_line(r)
    assert r.stdout == ""  # refused before a card was dealt: no hand played and then lost


def _play_process(tmp_path, sig):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out_file = tmp_path / "stdout"
    with open(out_file, "w") as stdout:
        p = subprocess.Popen([sys.executable, "-c", "from escoba_sim.cli import main; main()", "play", "--vs",
                              "greedy", "--seed", "5", "--hands", "--out", str(tmp_path / "o")],
                             stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
        try:
            p.stdin.write("1\n")
            p.stdin.flush()
            deadline = time.time() + 60
            while time.time() < deadline and "you lay" not in out_file.read_text():
                time.sleep(0.05)
            time.sleep(0.2)  # blocked reading the next line
            p.send_signal(sig)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    return p.returncode, err


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_save_the_hand(tmp_path, sig, code):
    rc, err = _play_process(tmp_path, sig)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == code, err
    assert len(lines) == 1 and lines[0].startswith("Interrupted; the hand so far is saved as "), err
    (f,) = unfinished_records(tmp_path / "o")
    data = json.loads(f.read_text())
    assert data["unfinished"] == "interrupted" and [m["player"] for m in data["moves"]].count(0) == 1


def _wait_until_reading(pid, timeout=30.0):
    """Wait until the process blocks in select() for its input. CPython's readline prints the prompt and then
    selects on stdin; a SIGINT that lands between the two only trips a flag that select() never sees, so the
    KeyboardInterrupt waits for the next key. A person cannot press Ctrl-C within that microsecond; a test
    that answers the prompt at once can (1 run in 40 on a loaded machine)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if Path(f"/proc/{pid}/syscall").read_text().split()[0] in ("7", "23", "270", "271"):  # poll, select
                return
        except (OSError, IndexError):
            time.sleep(0.5)  # no /proc: give the process time to reach select()
            return
        time.sleep(0.01)


def test_ctrl_c_at_a_terminal_prompt_saves_the_hand(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-c", "from escoba_sim.cli import main; main()", "play", "--vs", "greedy",
                                           "--seed", "5", "--hands", "--no-color", "--out", str(tmp_path)],
                          env=dict(os.environ, PYTHONPATH=str(REPO), TERM="xterm"), encoding="utf-8", timeout=60)
    try:
        child.expect("your move")
        child.sendline("1")
        child.expect("your move")
        _wait_until_reading(child.pid)
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    (f,) = unfinished_records(tmp_path)
    assert child.exitstatus == 130
    assert f"\nInterrupted; the hand so far is saved as {f}" in child.before.replace("\r", "")
    assert "Aborted!" not in child.before and "Traceback" not in child.before


# ---------------------------------------------------------------- finding 7: the prompt under any text

line_text = st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=30)
prompt_line = st.one_of(line_text, st.sampled_from(["?", "u", "undo", "q", "0", "1", "2", "9", "-1", "²", "①", "blow",
                                                    "blow 5o", "n", "no", "-", "5o -", "5o lay", "Rb 5c", "7o, 1e",
                                                    "1 2", "lay", "blow -", " ", "9" * 300]))


@FUZZ
@example(lines=["blow", "²", "①", "1"], rules="tradicional", then="1")
@given(st.lists(prompt_line, max_size=25), st.sampled_from(["ludoteka", "tradicional", "ludoteka(players=3)"]),
       st.sampled_from([None, "1", "q"]))
def test_the_prompt_answers_any_line(tmp_path_factory, lines, rules, then):
    folder = tmp_path_factory.mktemp("play")
    said: list[str] = []
    asked: list[tuple[str, int, str | None]] = []  # (prompt, lines said before it, the answer)
    answers = scripted(lines, then)

    def ask(prompt):
        line = answers(prompt)
        asked.append((prompt, len(said), line))
        return line

    s = Session(seat_specs(parse_rules(rules), ["random"]), 3, folder, ask=ask, say=said.append, samples=200)
    s.play(1, hands_mode=True)  # returns: the hand ended, or it was quit (q or the end of input)
    # the session closes with its records and how to look at them (after "quit." if it was quit), or with
    # "quit." alone when nothing was saved
    assert (said[-3].startswith("this session saved 1 hand record in") and said[-2].startswith("check one with")
            and said[-1].startswith("all of them, luck and your rating")) or said[-1] == "quit.", said[-4:]
    for (prompt, i, line), (again, j, _) in zip(asked, asked[1:]):
        answer = said[i:j]
        moved = any(x.startswith(("you ", "taken back", "seat ")) or not x for x in answer)
        if again == prompt and not moved and line is not None and line.strip() != "?":
            assert len(answer) <= 1 and all(x.isprintable() for x in answer), (line, answer)  # one line
    for f in folder.glob("*.json"):
        replay_record(json.loads(f.read_text()))  # a well-formed record (finished or not)


# ---------------------------------------------------------------- finding 8: repeated --vs

def test_three_opponents_in_teams_take_their_seats_in_order(cli, tmp_path):
    seats = table_seats("tradicional(players=4,teams=yes)", ["greedy", "random", "maxoros"])
    assert seats.specs == [None, "greedy", "random", "maxoros"]
    out = cli("play", "--vs", "greedy", "--vs", "random", "--vs", "maxoros", "-r", "tradicional(players=4,teams=yes)",
              "--seed", 1, "--hands", "--out", tmp_path, input="q\n")
    # the seats line may wrap at 80 columns (onto indented lines): read it as one
    assert "seat 1 (greedy), seat 2 (random), seat 3 (maxoros)" in " ".join(out.output.split())
    r = parse_rules("ludoteka(players=4,teams=yes)")
    assert seat_specs(r, ["greedy", "random"]).specs == [None, "greedy", "greedy", "random"]  # opponents, partner
    assert seat_specs(r, ["greedy"]).specs == [None, "greedy", "greedy", "greedy"]
    for vs in (["greedy"] * 4, ["greedy"] * 2 + ["random"] * 3):
        with pytest.raises(LineupError, match=f"not {len(vs)}"):
            seat_specs(r, vs)
    with pytest.raises(LineupError):
        seat_specs(parse_rules("ludoteka(players=6,teams=yes)"), ["a", "b", "c", "d"])
    # the other repeated options of play, trace and analyze are honoured or refused too:
    # trace: one strategy per seat, all of them
    r = CliRunner().invoke(main, ["trace", "-s", "greedy", "--vs", "random", "--vs", "maxoros", "--vs", "greedy",
                                  "-r", "tradicional(players=3)", "--seed", "1"])
    assert "give --strategy and 2 --vs (got 4 strategies)" in error_line(r, 2)  # a usage error
    # analyze --seat: a seat that does not exist is refused, the others are each analysed once
    rec = tmp_path / "h.json"
    rec.write_text(json.dumps(record_for_hand("ludoteka", ["greedy", "greedy"], 1)))
    r = CliRunner().invoke(main, ["analyze", str(rec), "--seat", "0", "--seat", "5", "--samples", "200"])
    assert "seat 5 is not a seat" in error_line(r, 2)


@pytest.mark.parametrize("args,message", [
    (["--rules", "ludoteka", "--rules", "cardgames", "--rules", "ludoteka"], "--rules ludoteka is given twice"),
    (["--rules", "ludoteka", "--rules", "ludoteka(target=15)", "--rules", "cardgames"], "is given twice"),
    (["--vary", "ties=shared,none", "--vary", "ties=none"], "--vary ties=none is given twice"),
])
def test_compare_refuses_a_repeated_ruleset_instead_of_dropping_it(tmp_path, args, message):
    r = CliRunner().invoke(main, ["compare", *args, "-n", "2", "--seed", "1", "-j", "1", "-q",
                                  "--out", str(tmp_path / "c")])
    assert message in error_line(r, 2)  # a usage error
    assert not (tmp_path / "c").exists()  # refused before anything was played


# ---------------------------------------------------------------- analyze reads any file calmly

value = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=20),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                     max_leaves=12)


@st.composite
def tampered_records(draw):
    """A hand record from play or trace with a field or a move changed, cut short, or marked unfinished."""
    rules = draw(st.sampled_from(["ludoteka", "tradicional"]))
    rec = record_for_hand(rules, ["greedy", "random"], draw(st.integers(0, 3)))
    kind = draw(st.sampled_from(["field", "move", "cut", "unfinished", "bigint"]))
    if kind == "field":
        key = draw(st.sampled_from(["strategies", "seed", "game", "hand", "rules", "dealer", "deck", "moves", "score",
                                    "unfinished", "analysis", "extra"]))
        rec[key] = draw(value)
    elif kind == "move":
        i = draw(st.integers(0, len(rec["moves"]) - 1))
        rec["moves"][i][draw(st.sampled_from(["player", "card", "take", "escoba", "soplar"]))] = draw(value)
    elif kind == "cut":
        rec["moves"] = rec["moves"][:draw(st.integers(0, len(rec["moves"])))]
        rec.pop("score", None)
        rec["unfinished"] = draw(st.sampled_from(["quit", "interrupted", "error: x", ""]) | value)
    elif kind == "unfinished":
        rec["unfinished"] = draw(value)
    text = json.dumps(rec)
    if kind == "bigint":
        key = draw(st.sampled_from(["dealer", "seed", "game"]))
        text = text.replace(f'"{key}": {rec[key]}', f'"{key}": ' + "9" * 5000, 1)
    return text


@FUZZ
@given(tampered_records(), st.lists(st.integers(-1, 5).map(str) | st.just(str(2**70)), max_size=2), st.booleans())
def test_analyze_reads_any_record_calmly(tmp_path_factory, text, seats, as_json):
    f = tmp_path_factory.mktemp("rec") / "h-unfinished.json"
    f.write_text(text)
    args = ["analyze", str(f), "--samples", "200"] + [x for s in seats for x in ("--seat", s)]
    r = CliRunner().invoke(main, args + (["--json"] if as_json else []))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"{args!r} raised {type(r.exception).__name__}: {r.exception}") from r.exception
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.stderr)
    lines = [ln for ln in r.stderr.split("\n") if ln.strip()]
    assert "Traceback" not in r.stderr and len(lines) <= 3, r.stderr
    if r.exit_code:
        assert any(ln.startswith("Error") for ln in lines), r.stderr


def test_unfinished_marks_are_read_sensibly(cli, tmp_path):
    rec = record_for_hand("ludoteka", ["greedy", "random"], 2)
    cut = dict(rec, moves=rec["moves"][:5], unfinished="interrupted")
    cut.pop("score")
    f = tmp_path / "cut.json"
    f.write_text(json.dumps(cut))
    r = cli("replay", f)
    assert r.exit_code == 1 and "(play stopped: interrupted)" in r.output
    whole = dict(rec, unfinished="quit")
    f.write_text(json.dumps(whole))
    r = cli("replay", f)
    assert r.exit_code == 1 and "marked unfinished, but its moves finish the hand" in r.output
    for bad in (5, ["x"], "two\nlines", "x" * 400, "an \x1b[31mescape", ""):
        f.write_text(json.dumps(dict(cut, unfinished=bad)))
        r = CliRunner().invoke(main, ["replay", str(f)])
        assert "field `unfinished` must be one line" in error_line(r, 2)


# ---------------------------------------------------------------- issue 36, finding 7: rules that seat no teams

def test_play_teams_with_rules_whose_deal_does_not_fit_four_hands_is_one_line_naming_rules(tmp_path):
    with pytest.raises(LineupError, match="deck holds 40") as e:
        table_seats("robo(hand_size=10)", ["greedy"], teams=True)
    assert e.value.parameter == "rules"
    r = subprocess.run([sys.executable, "-m", "escoba_sim.cli", "play", "--vs", "greedy", "--teams", "--rules",
                        "robo(hand_size=10)", "--out", str(tmp_path)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "ESCOBA_SIM_LANG": "en"})
    # a usage error (it names --rules): 2, as Click's own (README, Exit codes)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == ["Error: --rules with --teams: hand_size/table_size: 4 x 10 cards plus 4 "
                                             "on the table deals 44 cards, but the deck holds 40"]
