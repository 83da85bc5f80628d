"""The hand notation (hands/notation.py): every record converts to one line and back without loss (every
preset, random rulesets, 2 to 6 players and teams, blows, unfinished hands, a person's hands, illegal records),
the line converts back to itself, and hostile text is refused with one RecordError line."""

import copy
import json
from pathlib import Path

import pytest
from helpers import rulesets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from escoba_sim.game.rules import PRESETS, RulesError, parse_rules
from escoba_sim.hands.notation import MAX_LENGTH, TAG, NotationError, from_notation, to_notation
from escoba_sim.hands.record import RecordError, record_for_hand, replay_record
from escoba_sim.hands.table import PERSON, Table

PLAYERS = [(2, False), (3, False), (4, False), (4, True), (6, False), (6, True)]
NAMES = ["greedy", "random", "heuristic", "maxoros", "sevens", "defensive"]


def seated(preset: str, players: int, teams: bool):
    """``preset`` for ``players`` (in teams), or None where its deal does not fit the deck."""
    try:
        return PRESETS[preset].replace(players=players, teams=teams)
    except RulesError:
        return None


def assert_round_trip(record: dict) -> str:
    """record -> notation -> record is the record (the same keys in the same order), and the notation reads back to
    itself; returns the notation."""
    text = to_notation(record)
    back = from_notation(text)
    assert back == record, (text, back, record)
    assert json.dumps(back) == json.dumps(record)  # the keys in make_record's order too: a download reads the same
    assert to_notation(back) == text
    assert text.startswith(TAG + "/") and len(text) <= MAX_LENGTH
    return text


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players,teams", PLAYERS)
def test_every_preset_at_every_table_round_trips(preset, players, teams):
    rules = seated(preset, players, teams)
    if rules is None:
        pytest.skip(f"{preset} does not deal {players} players")
    for game in range(3):
        rec = record_for_hand(rules, [NAMES[(game + s) % len(NAMES)] for s in range(players)], 11, game, 0)
        text = assert_round_trip(rec)
        assert "@" not in text  # a legal hand: every seat comes from the turn order
        assert "escoba" not in text.split("/", 1)[1]  # the marks and the score are derived, never written


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=hs.integers(0, 2**64 - 1), game=hs.integers(0, 2**64 - 1), hand=hs.integers(0, 5))
def test_random_rulesets_round_trip(rules, seed, game, hand):
    names = ["greedy", "random", "heuristic", "maxoros", "sevens", "random"][:rules.players]
    assert_round_trip(record_for_hand(rules, names, seed, game, hand))


def test_soplar_hands_with_blows_round_trip():
    blows = 0
    for seed in range(40):
        rec = record_for_hand("tradicional", ["random", "random"], seed)
        text = assert_round_trip(rec)
        blows += sum(1 for m in rec["moves"] if m.get("soplar"))
        assert text.count("!") == sum(1 for m in rec["moves"] if m.get("soplar"))
    assert blows >= 3, "the seeds gave no blows: the test would test nothing"


def person_table(tmp_path: Path, rules: str, specs, seed: int) -> Table:
    table = Table(parse_rules(rules), specs, seed, tmp_path, samples=1)
    table.deal(0, 0)
    table.advance()
    return table


def person_moves(table: Table, stop_after: int | None = None) -> None:
    """The person blows whenever a blow is open (else plays their first legal move), up to ``stop_after`` moves."""
    made = 0
    while not table.st.over and (stop_after is None or made < stop_after):
        kind, options = table.decision()
        if kind == "blow":
            table.blow(options[1])
            continue
        table.play(options[0])
        made += 1


@pytest.mark.parametrize("rules,specs", [("ludoteka", [None, "greedy"]), ("tradicional", [None, "random"]),
                                         ("ludoteka(players=4,teams=yes)", [None, "greedy", "random", "maxoros"])])
def test_a_persons_hands_and_unfinished_hands_round_trip(tmp_path, rules, specs):
    for seed in range(4):
        table = person_table(tmp_path, rules, specs, seed)
        person_moves(table, stop_after=2)
        for why in ("quit", "interrupted: the server stopped", "error: plugin x.py failed; 100% sure"):
            _stem, rec = table.record(why)
            assert "unfinished" in rec and "score" not in rec
            text = assert_round_trip(rec)
            assert f"/strategies={PERSON};" in text and "/unfinished=" in text
        person_moves(table)
        _stem, rec = table.record()
        assert rec["strategies"][0] == PERSON and "score" in rec
        assert_round_trip(rec)


def test_an_unfinished_record_with_no_move_round_trips():
    rec = record_for_hand("ludoteka", ["greedy", "greedy"], 3)
    rec["moves"] = []
    del rec["score"]
    rec["unfinished"] = "quit"
    text = assert_round_trip(rec)
    assert "/-/" in text


def test_a_record_with_illegal_moves_names_the_seats_the_turn_order_does_not_give():
    rec = record_for_hand("ludoteka", ["greedy", "random"], 5)
    rec["moves"][3], rec["moves"][4] = rec["moves"][4], rec["moves"][3]  # out of turn from move 4 on
    del rec["score"]
    _st, problems = replay_record(rec)
    assert problems and problems[0].move == 4
    text = to_notation(rec)
    moves = text.split("/")[4].split(".")
    assert all("@" not in m for m in moves[:3]) and all("@" in m for m in moves[3:])
    back = from_notation(text)
    # the marks are derived as far as the moves are legal: past the illegal move they are left out
    expected = copy.deepcopy(rec)
    for m in expected["moves"][3:]:
        m.pop("escoba", None)
    assert back == expected
    assert to_notation(back) == text
    assert replay_record(back)[1] == problems


def test_a_record_in_another_spelling_reads_back_canonical():
    rec = record_for_hand("ludoteka(players=3)", ["greedy", "random", "greedy"], 9)
    other = copy.deepcopy(rec)
    other["rules"] = "players=3"  # the default preset with an override
    other["deck"] = other["deck"].split()  # a list of cards
    for m in other["moves"]:
        m.pop("escoba", None)  # marks left out
    del other["score"]
    assert to_notation(other) == to_notation(rec)
    assert from_notation(to_notation(other)) == rec


@pytest.mark.parametrize("names", [["person", "my plugin/x.py:Low;1 ñ%"], ["a&b+c'd", "~ok-._!$()*,:=@"]])
def test_strategy_names_of_any_text_are_percent_encoded_and_read_back(names):
    rec = record_for_hand("ludoteka", ["greedy", "greedy"], 1)
    rec["strategies"] = names
    text = assert_round_trip(rec)
    provenance = text.split("/", 5)[5]
    assert " " not in provenance and "ñ" not in provenance and "&" not in provenance
    assert all(c.isascii() and c.isprintable() for c in text)


def test_the_notation_is_short_and_fits_a_link_as_it_is():
    from urllib.parse import quote

    rec = record_for_hand("ludoteka", ["greedy", "random"], 7)
    text = assert_round_trip(rec)
    assert len(text) < 400
    # every character is one a fragment keeps: percent-encoding the link changes nothing
    assert quote(text, safe="/:@!$&'()*+,;=-._~") == text
    assert from_notation(f"http://127.0.0.1:8015/#hand={text}") == rec
    assert from_notation(f"  {text}\n") == rec
    # a chat program that escapes the parentheses or the ! does not break it
    four = record_for_hand("tradicional(players=4,teams=yes)", ["random"] * 4, 2)
    text4 = assert_round_trip(four)
    assert from_notation(text4.replace("(", "%28").replace(")", "%29").replace("!", "%21")) == four


# ---------------------------------------------------------------- hostile text

@pytest.fixture(scope="module")
def sample():
    return to_notation(record_for_hand("tradicional", ["random", "random"], 4))


def refused(text, *words) -> str:
    with pytest.raises(RecordError) as e:
        from_notation(text)
    message = str(e.value)
    assert "\n" not in message and len(message) < 300, message
    for w in words:
        assert w in message, message
    return message


def test_every_cut_of_a_notation_is_read_or_refused_in_one_line(sample):
    for n in range(len(sample)):
        try:
            from_notation(sample[:n])
        except RecordError as e:
            assert "\n" not in str(e)


def test_the_tag_names_the_version(sample):
    refused(sample.replace(TAG, "escoba2", 1), "escoba2", "not supported")
    refused("garbage", "not a hand notation")
    refused("", "not a hand notation")
    refused(json.dumps({"rules": "ludoteka"}), "not a hand notation")
    refused(f"{TAG}/ludoteka/d0", "cut short")


def test_overlong_text_is_refused_before_it_is_read():
    refused(TAG + "/" + "x" * 10**7, "characters")
    refused(" " * (MAX_LENGTH + 500), "characters")
    with pytest.raises(NotationError):
        from_notation(None)


def test_bad_cards_and_decks_are_named(sample):
    parts = sample.split("/")
    deck = parts[3]
    refused("/".join([*parts[:3], "Xo" + deck[2:], *parts[4:]]), "the deck", "Xo")
    refused("/".join([*parts[:3], deck[:-2], *parts[4:]]), "the deck", "39 cards")
    refused("/".join([*parts[:3], deck[:-1], *parts[4:]]), "the deck", "2 characters")
    refused("/".join([*parts[:3], deck[:-2] + deck[:2], *parts[4:]]), "deck", "twice")
    refused("/".join([*parts[:3], deck + deck[:2], *parts[4:]]), "the deck", "41 cards")
    moves = parts[4].split(".")
    refused("/".join([*parts[:4], ".".join(["7z", *moves[1:]]), *parts[5:]]), "move 1", "7z")
    refused("/".join([*parts[:4], ".".join([moves[0] + ":", *moves[1:]]), *parts[5:]]), "move 1", ":")
    refused("/".join([*parts[:4], ".".join(["", *moves[1:]]), *parts[5:]]), "move 1")
    refused("/".join([*parts[:4], "x@1o", *parts[5:]]), "move 1", "seat")
    refused("/".join([*parts[:2], "d99", *parts[3:]]), "dealer")
    refused("/".join([*parts[:2], "0", *parts[3:]]), "dealer")


def test_a_file_named_as_the_rules_is_refused_never_opened(sample, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("evil.toml").write_text('preset = "robo"\n')
    opened = []
    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: opened.append(self) or real_open(self, *a, **k))
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or pytest.fail("a file was opened"))
    parts = sample.split("/")
    for rules in ("evil.toml", "%2Fetc%2Fpasswd", "..%2Fevil.toml", "ludoteka(players=5)", "nosuch", "%ZZ", "%C3%28"):
        refused("/".join([parts[0], rules, *parts[2:]]))
    assert opened == []


def test_provenance_is_checked(sample):
    refused(sample + "/seed=1", "twice")
    refused(sample + "/colour=red", "KEY=VALUE")
    refused(sample + "/x", "KEY=VALUE")
    refused(sample.replace("/seed=4", "/seed=18446744073709551616"), "seed")
    refused(sample.replace("/seed=4", "/seed=-4"), "seed")
    refused(sample.replace("/seed=4", "/seed=04"), "seed")
    refused(sample.replace("strategies=random;random", "strategies=random"), "strategies")
    refused(sample + "/unfinished=" + "x" * 301, "unfinished")
    refused(sample + "/unfinished=a%0Ab", "unfinished")
    refused(sample + "/unfinished=%FF", "UTF-8")
    refused(sample.replace("/", " /", 1), "spaces")


@settings(max_examples=300, deadline=None)
@given(hs.text(max_size=400) | hs.from_regex(r"escoba1/[a-z(),=]{0,20}/d[0-9]{1,3}/[1-7SCRoceb]{0,84}/[0-9@!:.\-1-7SCRoceb]{0,60}"
                                               r"(/[a-z_]{1,12}=[^/]{0,20}){0,3}", fullmatch=True))
def test_garbage_is_refused_in_one_line(text):
    try:
        rec = from_notation(text)
    except RecordError as e:
        assert "\n" not in str(e)
    else:
        replay_record(rec)  # anything read is a record replay reads
