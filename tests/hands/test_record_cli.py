"""Hand records and the trace / replay / moves / rules commands, through the CLI as a user runs them."""

import copy
import json
import re

import pytest

from escoba_sim import batch
from escoba_sim.game import columns
from escoba_sim.game.cards import card_str
from escoba_sim.game.rules import FIELD_HELP, PRESETS, describe_value, parse_rules
from escoba_sim.hands.record import RecordError, legal_moves_for, parse_record, record_for_hand, replay_record, walk

SEEDS = (0, 1, 7, 2024, 2**64 - 1)
SEATS = {2: ("greedy", "random"), 3: ("random", "maxoros", "greedy"), 4: ("greedy", "random", "maxoros", "random"),
         6: ("random", "greedy", "random", "maxoros", "greedy", "random")}


def trace_args(rules, seed, *extra):
    names = SEATS[parse_rules(rules).players]
    args = ["trace", "--strategy", names[0]]
    for n in names[1:]:
        args += ["--vs", n]
    return args + ["--rules", rules, "--seed", seed, *extra]


def one_line_error(result, code):
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


# --- round trips

@pytest.mark.parametrize("rules", [*sorted(PRESETS), "robo(players=4,teams=yes)", "tradicional(players=3)",
                                   "robo(players=6,teams=yes)", "cardgames(players=4,teams=yes)"])
@pytest.mark.parametrize("seed", SEEDS)
def test_trace_json_replays_clean(cli, tmp_path, rules, seed):
    out = cli(*trace_args(rules, seed, "--json"))
    assert out.exit_code == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["format"] == "escoba-sim/hand" and record["version"] == 1
    assert record["rules"] == parse_rules(rules).canonical() and record["seed"] == seed
    assert record["deal_stream"] == 2  # the stream that made the deck from the seed
    assert len(record["deck"].split()) == 40
    path = tmp_path / "hand.json"
    path.write_text(out.stdout)
    rep = cli("replay", path, "--json")
    assert rep.exit_code == 0, rep.stdout
    verdict = json.loads(rep.stdout)
    assert verdict["ok"] and verdict["problems"] == [] and verdict["score"] == record["score"]
    piped = cli("replay", "-", input=out.stdout)  # trace --json | replay -
    assert piped.exit_code == 0 and "all legal" in piped.stdout


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_record_for_hand_matches_the_batch_run(rules):
    """Any hand of a run (whichever engine played it) re-plays into a record with the same score."""
    r = PRESETS[rules]
    names = ["random", "maxoros"]
    b = batch.play_hands(r, names, 99, first=3, count=4)
    for i in range(4):
        rec = record_for_hand(r, names, 99, game=3 + i, hand=0)
        assert rec["dealer"] == (3 + i) % 2
        for row in rec["score"]:
            for k in columns.SIDE_COLUMNS:
                assert row[k] == b.hands[k][i][row["side"]], (k, i)
        assert replay_record(rec)[1] == []
    g = batch.play_games(r, names, 5, first=1, count=1)
    rec = record_for_hand(r, names, 5, game=1, hand=int(g.hands["hand"][-1]))
    assert [row["total"] for row in rec["score"]] == list(g.hands["total"][-1])


def test_trace_deck_replays_the_same_deal(cli):
    rec = json.loads(cli(*trace_args("ludoteka", 11, "--json")).stdout)
    again = cli("trace", "-s", "greedy", "--vs", "random", "--deck", rec["deck"], "--dealer", rec["dealer"],
                "--seed", 11, "--json")
    assert json.loads(again.stdout)["moves"] == rec["moves"]
    # greedy vs greedy never draws a random number, so the deck alone fixes the hand
    a = cli("trace", "-s", "greedy", "--vs", "greedy", "--deck", rec["deck"], "--dealer", 1, "--json")
    b = cli("trace", "-s", "greedy", "--vs", "greedy", "--deck", rec["deck"], "--dealer", 1, "--seed", 5, "--json")
    assert json.loads(a.stdout)["moves"] == json.loads(b.stdout)["moves"]
    assert json.loads(a.stdout)["dealer"] == 1


def test_trace_without_seed_draws_one_and_says_so(cli):
    out = cli("trace", "-s", "random", "--vs", "random", "--json")
    seed = json.loads(out.stdout)["seed"]
    assert f"--seed {seed}" in out.stderr
    again = cli("trace", "-s", "random", "--vs", "random", "--seed", seed, "--json")
    assert again.stdout == out.stdout


def test_trace_hand_index_and_the_old_spelling(cli):
    args = ("trace", "-s", "greedy", "--vs", "maxoros", "--seed", 3, "--game", 1, "--json")
    new = cli(*args, "--hand-index", 2)
    assert new.exit_code == 0 and json.loads(new.stdout)["hand"] == 2 and not new.stderr
    old = cli(*args, "--hand", 2)  # the old name still works, with a note on stderr
    assert old.exit_code == 0 and old.stdout == new.stdout
    assert old.stderr == "note: trace's --hand is now --hand-index (--hand still works, for now)\n"
    assert "nota: el --hand de trace ahora es --hand-index" in cli(*args, "--hand", 2, lang="es").stderr
    assert "--hand-index: 10000 is past the last hand" in cli(*args, "--hand-index", 10000).stderr
    assert "Error: --hand: 10000 is past the last hand" in cli(*args, "--hand", 10000).stderr  # named as typed
    assert "--hand " not in cli("trace", "--help").output  # hidden


def test_human_trace_shows_turns_escobas_and_the_sheet(cli):
    for seed in range(50):
        out = cli("trace", "-s", "greedy", "--vs", "greedy", "--seed", seed)
        if "ESCOBA" in out.stdout:
            break
    else:
        pytest.fail("no escoba in 50 greedy hands")
    text = out.stdout
    assert out.exit_code == 0
    assert "seat 0: greedy, seat 1: greedy; dealer seat 0" in text  # game 0, hand 0: seat 0 deals
    assert "#  seat hand" in text
    assert "leftovers:" in text and "score sheet" in text
    rec = json.loads(cli("trace", "-s", "greedy", "--vs", "greedy", "--seed", seed, "--json").stdout)
    numbered = [line.split()[0] for line in text.splitlines() if re.match(r"^ *\d+  ", line)]
    assert numbered == [str(n) for n in range(1, len(rec["moves"]) + 1)]  # one line per move
    total_row = next(line for line in text.splitlines() if line.startswith("total"))
    assert total_row.split()[1:] == [str(s["total"]) for s in rec["score"]]


def test_trace_draw_and_teams_show_draws_and_teams(cli):
    out = cli(*trace_args("robo(players=4,teams=yes)", 3))
    assert "(draws " in out.stdout and "team 0+2" in out.stdout and "team 1+3" in out.stdout


# --- illegal moves: number, player, reason, exit 1

def _record(rules="ludoteka", seed=0):
    return record_for_hand(rules, ["greedy", "random"], seed)


def _first(rec, pred):
    for i, m in enumerate(rec["moves"]):
        if pred(m):
            return i
    raise AssertionError("no such move")


def _tables(rec):
    """The table before each move (from the record module's own walk)."""
    p = parse_record(rec)
    return [step.table for _, step in walk(p.rules, p.deck, p.dealer, p.moves, [])]


def _replay(cli, tmp_path, rec):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    return cli("replay", path), cli("replay", path, "--json")


def _assert_illegal(cli, tmp_path, rec, number, reason):
    human, js = _replay(cli, tmp_path, rec)
    player = rec["moves"][number - 1]["player"] if number <= len(rec["moves"]) else None
    assert human.exit_code == 1 and js.exit_code == 1
    assert f"ILLEGAL move {number} (seat {player}): " in human.stdout
    assert reason in human.stdout
    problems = json.loads(js.stdout)["problems"]
    assert problems[0]["move"] == number and problems[0]["player"] == player and reason in problems[0]["reason"]


def test_cards_that_do_not_sum_to_15(cli, tmp_path):
    rec = _record()
    i = _first(rec, lambda m: len(m["take"]) >= 2)
    dropped = rec["moves"][i]["take"].pop()
    assert dropped
    _assert_illegal(cli, tmp_path, rec, i + 1, "not 15")


def test_a_card_not_on_the_table(cli, tmp_path):
    rec = _record()
    i = _first(rec, lambda m: m["take"])
    on_table = {c for c in _tables(rec)[i]}
    absent = next(c for c in rec["deck"].split() if c not in on_table and c != rec["moves"][i]["card"])
    rec["moves"][i]["take"] = [absent]
    _assert_illegal(cli, tmp_path, rec, i + 1, f"{absent} is not on the table")


def test_a_capture_was_required(cli, tmp_path):
    rec = _record("ludoteka")
    i = _first(rec, lambda m: m["take"])
    rec["moves"][i].update(take=[], escoba=False)
    _assert_illegal(cli, tmp_path, rec, i + 1, f"a capture was required: {rec['moves'][i]['card']} can capture")


def test_another_card_had_to_capture_under_cardgames(cli, tmp_path):
    for seed in range(200):
        rec = _record("cardgames", seed)
        p = parse_record(rec)
        # find a turn where a capture was made with one card while another could only lay
        for n, (_, step) in enumerate(walk(p.rules, p.deck, p.dealer, p.moves, []), 1):
            m = step.move
            if m.take and not m.soplar:
                layers = [c for c in step.hand if c != m.card
                          and not any(x.take for x in legal_moves_for(p.rules, [c], step.table))]
                if layers:
                    rec["moves"][n - 1].update(card=card_str(layers[0]), take=[], escoba=False)
                    _assert_illegal(cli, tmp_path, rec, n, "another card in hand can capture (capture=any)")
                    return
    pytest.fail("no suitable turn found")


def test_wrong_player_and_card_not_in_hand(cli, tmp_path):
    rec = _record()
    wrong = copy.deepcopy(rec)
    wrong["moves"][2]["player"] = 1 - wrong["moves"][2]["player"]
    _assert_illegal(cli, tmp_path, wrong, 3, f"it is seat {rec['moves'][2]['player']}'s turn")
    other = copy.deepcopy(rec)
    other["moves"][0].update(card=other["moves"][1]["card"], take=[], escoba=False)
    # move 2's card belongs to the other seat (or arrives later): not in this seat's hand
    _assert_illegal(cli, tmp_path, other, 1, "is not in seat")


def test_wrong_escoba_mark_is_reported(cli, tmp_path):
    rec = _record()
    i = _first(rec, lambda m: m["take"] and not m["escoba"])
    rec["moves"][i]["escoba"] = True
    _assert_illegal(cli, tmp_path, rec, i + 1, "marked as an escoba but cards stay on the table")


def test_blow_with_nothing_to_blow(cli, tmp_path):
    rec = _record("tradicional")
    mv = rec["moves"][1]
    rec["moves"].insert(1, {"player": mv["player"], "soplar": True, "card": rec["moves"][0]["card"], "take": []})
    _assert_illegal(cli, tmp_path, rec, 2, "there is nothing to blow")


def test_unfinished_hand_extra_moves_and_wrong_score(cli, tmp_path):
    rec = _record()
    short = copy.deepcopy(rec)
    del short["moves"][-3:]
    human, js = _replay(cli, tmp_path, short)
    assert human.exit_code == 1 and "the hand is not finished" in human.stdout
    assert json.loads(js.stdout)["score"] is None
    extra = copy.deepcopy(rec)
    extra["moves"].append(dict(extra["moves"][-1]))
    _assert_illegal(cli, tmp_path, extra, len(rec["moves"]) + 1, "the hand is already over")
    cheat = copy.deepcopy(rec)
    cheat["score"][1]["total"] += 1
    human, _ = _replay(cli, tmp_path, cheat)
    assert human.exit_code == 1 and "recorded score does not match" in human.stdout


def test_replay_prints_the_score_by_category(cli, tmp_path):
    rec = _record()
    human, _ = _replay(cli, tmp_path, rec)
    assert human.exit_code == 0
    lines = human.stdout.splitlines()
    assert "siete_oros" not in human.stdout  # what a person reads: human names (machine names stay in JSON)
    for k in columns.SIDE_COLUMNS:
        # the lucky deal's escobas are part of the escobas row: the row under it says so
        name = "  of which lucky deal" if k == "lucky_escobas" else columns.COLUMN_TEXT[k]
        row = next(line for line in lines if line.startswith(name + " ") and line[len(name):].split()[0].isdigit())
        assert row[len(name):].split() == [str(s[k]) for s in rec["score"]]


# --- records that are not records: one-line error, exit 2

@pytest.mark.parametrize("change,message", [
    (lambda r: r.pop("deck"), "missing field `deck`"),
    (lambda r: r.pop("rules"), "missing field `rules`"),
    (lambda r: r.update(rules="ludotek"), "did you mean ludoteka"),
    (lambda r: r.update(dealer=2), "`dealer`: 2 is not a seat"),
    (lambda r: r.update(dealer=True), "field `dealer` must be a seat number"),
    (lambda r: r.update(deck=r["deck"].replace("7o", "Xo")), "`Xo`: rank must be 1-7, S, C, R or 8-10"),
    (lambda r: r.update(deck=r["deck"].replace("7o", "Ro")), "Ro listed twice"),
    (lambda r: r.update(deck=" ".join(r["deck"].split()[:39])), "39 cards, a deck needs all 40"),
    (lambda r: r["moves"][0].update(card="Zz"), "move 1 card: `Zz`"),
    (lambda r: r["moves"][0].pop("player"), "move 1: missing `player`"),
    (lambda r: r.update(format="something-else"), "not a hand record"),
    (lambda r: r.update(version=9), "version 9 is not supported"),
    (lambda r: r.update(version=True), "version True is not supported"),  # issue 36: a bool is not version 1
    (lambda r: r.update(version=1.0), "version 1.0 is not supported"),
])
def test_invalid_record_is_a_one_line_error(cli, tmp_path, change, message):
    rec = _record()
    change(rec)
    with pytest.raises(RecordError, match=None):
        replay_record(rec)
    human, _ = _replay(cli, tmp_path, rec)
    assert message in one_line_error(human, 2)


def test_unreadable_or_non_json_record(cli, tmp_path):
    assert "cannot read the record" in one_line_error(cli("replay", tmp_path / "missing.json"), 2)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not valid JSON (line 1" in one_line_error(cli("replay", bad), 2)
    bad.write_text("[1, 2]")
    assert "a hand record is a JSON object" in one_line_error(cli("replay", bad), 2)


# --- trace errors

def test_trace_errors(cli):  # usage errors: exit 2 (README, "Exit codes")
    assert "give --strategy and 1 --vs (got 3 strategies)" in one_line_error(
        cli("trace", "-s", "greedy", "--vs", "random", "--vs", "greedy", "--seed", 1), 2)
    assert "give --strategy and 2 --vs" in one_line_error(
        cli("trace", "-s", "greedy", "--vs", "random", "-r", "ludoteka(players=3)", "--seed", 1), 2)
    deck = " ".join(["Xo"] + record_for_hand("ludoteka", ["greedy", "greedy"], 0)["deck"].split()[1:])
    assert "--deck: `Xo`: rank must be" in one_line_error(cli("trace", "-s", "greedy", "--vs", "greedy", "--deck", deck), 2)
    assert "--deck: 3 cards, a deck needs all 40" in one_line_error(
        cli("trace", "-s", "greedy", "--vs", "greedy", "--deck", "1o 2o 3o"), 2)
    full = record_for_hand("ludoteka", ["greedy", "greedy"], 0)["deck"]
    assert "--dealer: 2 is not a seat" in one_line_error(
        cli("trace", "-s", "greedy", "--vs", "greedy", "--deck", full, "--dealer", 2), 2)
    bad_strategy = cli("trace", "-s", "gredy", "--vs", "random", "--seed", 1)
    assert bad_strategy.exit_code == 2 and "did you mean greedy" in bad_strategy.stderr
    bad_rules = cli("trace", "-s", "greedy", "--vs", "random", "--seed", 1, "-r", "ludoteka(soplar=yes)")
    assert bad_rules.exit_code == 2 and "blowing needs capture=optional" in bad_rules.stderr


# --- moves

def test_moves_example(cli):
    out = cli("moves", "--table", "1o 4c Rb", "--hand", "5b 7o")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[1].split() == ["7o", "lays"]
    assert lines[2].split()[:3] == ["5b", "takes", "Rb"] and "(5 + 10 = 15)" in lines[2]
    js = json.loads(cli("moves", "--table", "1o 4c Rb", "--hand", "5b 7o", "--json").stdout)
    assert js["moves"] == [{"card": "7o", "take": [], "capture": False, "escoba": False},
                           {"card": "5b", "take": ["Rb"], "capture": True, "escoba": False}]


def test_moves_escoba_and_rules(cli):
    js = json.loads(cli("moves", "--table", "4c Rb", "--hand", "1o", "--json").stdout)
    assert js["moves"] == [{"card": "1o", "take": ["4c", "Rb"], "capture": True, "escoba": True}]
    assert "ESCOBA" in cli("moves", "--table", "4c Rb", "--hand", "1o").stdout
    anyc = json.loads(cli("moves", "--table", "1o 4c Rb", "--hand", "5b 7o", "-r", "cardgames", "--json").stdout)
    assert [m["card"] for m in anyc["moves"]] == ["5b"]
    opt = json.loads(cli("moves", "--table", "1o 4c Rb", "--hand", "5b 7o", "-r", "tradicional", "--json").stdout)
    assert [(m["card"], m["capture"]) for m in opt["moves"]] == [("7o", False), ("5b", True), ("5b", False)]
    empty = json.loads(cli("moves", "--hand", "Rb", "--json").stdout)
    assert empty["moves"] == [{"card": "Rb", "take": [], "capture": False, "escoba": False}]


def test_moves_errors(cli):
    assert "--hand: `Xo`: rank must be" in one_line_error(cli("moves", "--hand", "Xo"), 2)
    assert "--table: `7q`: suit must be" in one_line_error(cli("moves", "--hand", "1o", "--table", "7q"), 2)
    assert "1o cannot be both in the hand and on the table" in one_line_error(
        cli("moves", "--hand", "1o", "--table", "1o 4c"), 2)
    assert "the hand is empty" in one_line_error(cli("moves", "--hand", ""), 2)
    assert "listed twice" in one_line_error(cli("moves", "--hand", "8c Sc"), 2)


# --- rules list / show

def test_rules_list(cli):
    out = cli("rules", "list")
    assert out.exit_code == 0
    for name in PRESETS:
        assert name in out.stdout.splitlines()[0] and f"  {name}: " in out.stdout
    assert "rule text 003" in out.stdout and "seed" not in out.stdout
    assert out.stdout.count("default") == 1  # once, not "(default) [default]"
    assert all(len(line) <= 80 for line in out.stdout.splitlines())
    rows = {line.split()[0]: line for line in out.stdout.split("\n\n")[0].splitlines()}
    assert rows["target"].endswith("21         0 (one hand)")  # robo's target 0 is one hand, not a 0-point game
    shown = [line.split()[0] for line in out.stdout.split("\n\n")[0].splitlines()[1:]]
    explained = dict(line.split(None, 1) for line in out.stdout.split("\n\n")[1].splitlines() if not line.startswith("("))
    assert shown and set(shown) == set(explained)
    assert all(explained[f] == FIELD_HELP[f] for f in shown)
    js = json.loads(cli("rules", "list", "--json").stdout)
    assert {k: parse_rules(k).as_dict() for k in PRESETS} == {k: v["fields"] for k, v in js.items()}


def test_rules_show(cli):
    out = cli("rules", "show", "ludoteka(ties=none)")
    assert out.exit_code == 0
    lines = dict(line.split(None, 1) for line in out.stdout.splitlines() if line.strip() and line[0] != " ")
    assert lines["canonical"] == "ludoteka(ties=none)"
    assert lines["digest"] == parse_rules("ludoteka(ties=none)").digest()
    assert lines["ties"].split(None, 1) == ["none", describe_value("ties", "none") + " (preset: shared)"]
    assert lines["capture"].split(None, 1) == ["card", describe_value("capture", "card")]
    assert lines["preset"].startswith("ludoteka, after a Spanish player's guide")
    assert "seed" not in out.stdout
    shown = cli("rules", "show", "tradicional").stdout  # every value explained, as a phrase of its own
    assert re.search(r"^sevens +all +the sevens point only for all four sevens$", shown, re.M)
    assert "one hand is the game" in cli("rules", "show", "robo").stdout
    js = json.loads(cli("rules", "show", "robo(players=6,teams=yes)", "--json").stdout)
    assert js["canonical"] == "robo(players=6,teams=yes)" and js["preset"] == "robo"
    assert js["fields"] == parse_rules("robo(players=6,teams=yes)").as_dict()
    bad = cli("rules", "show", "ludotek")
    assert bad.exit_code == 2 and "did you mean ludoteka" in bad.stderr
