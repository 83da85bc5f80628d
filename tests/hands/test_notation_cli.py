"""The notation on the command line: `trace --notation` and `replay --notation` print it, `replay` and `analyze`
read it as their FILE (the text itself, a link, a file holding it or stdin), and refuse bad text in one line."""

import json
import os
import subprocess
import sys

import pytest

from escoba_sim.hands.notation import from_notation, to_notation

TRACE = ("trace", "-s", "greedy", "--vs", "random", "--seed", "7")


def one_line_error(result, code=2):
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(("Error: ", "Error:")), result.stderr
    return lines[0]


@pytest.fixture
def hand(cli):
    """(the record trace --json prints, the notation trace --notation prints) of one hand."""
    record = json.loads(cli(*TRACE, "--json").stdout)
    out = cli(*TRACE, "--notation")
    assert out.exit_code == 0, out.stderr
    return record, out.stdout.strip()


def test_trace_notation_is_the_records_notation(hand):
    record, line = hand
    assert line == to_notation(record) and "\n" not in line
    assert from_notation(line) == record


def test_replay_notation_prints_a_files_notation(cli, hand, tmp_path):
    record, line = hand
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    out = cli("replay", path, "--notation")
    assert out.exit_code == 0 and out.stdout.strip() == line and out.stderr == ""


def test_replay_notation_of_an_illegal_record_prints_it_and_says_the_problem(cli, hand, tmp_path):
    record, _line = hand
    record["moves"][1], record["moves"][2] = record["moves"][2], record["moves"][1]
    del record["score"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    out = cli("replay", path, "--notation")
    assert out.exit_code == 1
    assert from_notation(out.stdout.strip())["moves"][1]["card"] == record["moves"][1]["card"]
    assert "ILLEGAL move 2" in out.stderr


@pytest.mark.parametrize("how", ["text", "link", "file", "stdin"])
def test_replay_reads_the_notation_as_text_link_file_or_stdin(cli, hand, tmp_path, how):
    record, line = hand
    path = tmp_path / "hand.txt"
    path.write_text(line + "\n")
    arg = {"text": line, "link": f"http://127.0.0.1:8015/#hand={line}", "file": path, "stdin": "-"}[how]
    out = cli("replay", arg, "--json", input=line + "\n" if how == "stdin" else None)
    assert out.exit_code == 0, out.stderr
    verdict = json.loads(out.stdout)
    assert verdict["ok"] and verdict["score"] == record["score"]
    said = cli("replay", arg, input=line if how == "stdin" else None).stdout
    name = {"file": str(path), "stdin": "-"}.get(how, "the notation")
    assert said.splitlines()[0].startswith(f"{name}: 36 moves, all legal")


def test_a_file_wins_over_text_that_looks_like_a_notation(cli, hand, tmp_path, monkeypatch):
    record, _line = hand
    monkeypatch.chdir(tmp_path)
    os.mkdir("escoba1")
    with open("escoba1/h.json", "w") as f:
        json.dump(record, f)
    out = cli("replay", "escoba1/h.json")
    assert out.exit_code == 0 and out.stdout.startswith("escoba1/h.json: 36 moves")


@pytest.mark.core("the evaluator")
def test_analyze_reads_the_notation(cli, hand):
    record, line = hand
    from_text = cli("analyze", line, "--samples", "40", "--seat", "0", "--json")
    assert from_text.exit_code == 0, from_text.stderr
    from_json = cli("analyze", "-", "--samples", "40", "--seat", "0", "--json", input=json.dumps(record))
    assert json.loads(from_text.stdout) == json.loads(from_json.stdout)
    assert cli("analyze", line, "--samples", "40", "--seat", "0").stdout.startswith("analysis of the notation: ")


@pytest.mark.parametrize("spoil,words", [
    (lambda s: s.replace("/d0/", "/d7/"), "the notation: field `dealer`"),
    (lambda s: s.replace("/7e", "/Xe", 1), "the notation: the deck"),
    (lambda s: s.split("/", 1)[0] + "/evil.toml/" + s.split("/", 2)[2], "the notation: field `rules`"),
    (lambda s: s[:40], "the notation: the notation ends"),
    (lambda s: s + "/seed=1", "twice"),
])
def test_bad_notation_is_one_line_exit_2(cli, hand, spoil, words):
    _record, line = hand
    for command in ("replay", "analyze"):
        assert words in one_line_error(cli(command, spoil(line)))


def test_a_notation_file_with_garbage_is_one_line(cli, tmp_path):
    path = tmp_path / "h.txt"
    path.write_text("escoba1/ludoteka/d0/" + "7o" * 3)
    assert "the notation ends" in one_line_error(cli("replay", path))
    path.write_text("not a record")
    assert "not valid JSON" in one_line_error(cli("replay", path))


def test_notation_with_json_or_analyze_is_a_usage_error(cli, hand):
    assert "--notation" in one_line_error(cli(*TRACE, "--notation", "--json"))
    assert "--notation" in one_line_error(cli(*TRACE, "--notation", "--analyze"))
    _record, line = hand
    assert "--notation" in one_line_error(cli("replay", line, "--notation", "--json"))


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_help_and_messages_fit_80_columns_in_both_languages(lang, hand):
    env = {**os.environ, "ESCOBA_SIM_LANG": lang, "COLUMNS": "80"}
    for command in ("replay", "analyze", "trace"):
        text = subprocess.run([sys.executable, "-m", "escoba_sim.cli", command, "--help"], capture_output=True,
                              text=True, env=env, check=True).stdout
        assert "notation" in text or "notación" in text
        # trace's help has a wider example of its own (not this feature's): its notation lines are checked
        lines = [line for line in text.splitlines() if command != "trace" or "notat" in line]
        assert [line for line in lines if len(line) > 80] == []
    _record, line = hand
    bad = subprocess.run([sys.executable, "-m", "escoba_sim.cli", "replay", line.replace("/7e", "/Xe", 1)],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    assert ("la notación: la baraja" if lang == "es" else "the notation: the deck") in bad.stderr
    assert len(bad.stderr.strip()) <= 80 * 2
