"""What the other seats probably hold (escoba_sim/hands/reading.py): the prior is the hypergeometric, a lay
under capture=any proves no capturing card (a worked example computed by hand), the move that revealed it is
named, and the reading shows in play's ?, analyze, trace --analyze and the page, in both languages, within 80
columns."""

import dataclasses
import json
import math
import re

import pytest

from escoba_sim import i18n
from escoba_sim.game import engine
from escoba_sim.game.cards import card_str, parse_cards, value
from escoba_sim.game.rules import parse_rules
from escoba_sim.hands import evaluate as evaluate_module
from escoba_sim.hands import reading as reading_module
from escoba_sim.hands.evaluate import InfoSet, opponent_model
from escoba_sim.hands.play import Session
from escoba_sim.hands.reading import format_reading, read_hands, sweep_json
from escoba_sim.lineup import table_seats
from escoba_sim.strategies import BUILTINS, parse_strategy

CORE = pytest.mark.core("the hand reading")  # every test but the one without the core

SAMPLES = 200


def laid_under_capture_any():
    """cardgames (capture=any): seat 1 holds 1e 2e 3e at the table 1c 2c 3c 4c (sum 10) and lays 1e. Any card
    of value 5 to 10 would have captured (15 - v is a sum of the table's cards), so it must capture when it
    holds one: its lay proves it holds only values 1 to 4. Seat 0 (6b 7b Rb) is to play and reads it."""
    first = parse_cards("1e 2e 3e 6b 7b Rb 1c 2c 3c 4c")
    deck = first + [c for c in range(40) if c not in first]
    st = engine.new_hand(parse_rules("cardgames"), deck, 0)
    assert sorted(st.hands[1]) == sorted(parse_cards("1e 2e 3e")) and st.to_play == 1
    engine.apply_move(st, engine.Move(1, parse_cards("1e")[0]))
    assert st.to_play == 0
    return st


@CORE
def test_before_any_move_the_reading_is_the_hypergeometric_prior():
    first = parse_cards("1e 2e 3e 6b 7b Rb 1c 2c 3c 4c")
    st = engine.new_hand(parse_rules("ludoteka"), first + [c for c in range(40) if c not in first], 1)
    assert st.to_play == 0  # seat 1 deals, so seat 0 plays first: seat 1 has not moved
    seat = read_hands(st).of(1)
    assert not seat.read and seat.moves == ()
    unseen = [c for c in range(40) if c not in st.hands[0] and c not in st.table]
    n, k = len(unseen), 3
    for c in range(40):
        assert seat.cards[c] == pytest.approx(k / n if c in unseen else 0.0, abs=1e-12)
    for v in range(1, 11):
        m = sum(value(c) == v for c in unseen)
        assert seat.values[v] == pytest.approx(1 - math.comb(n - m, k) / math.comb(n, k), abs=1e-12)
        assert seat.prior_values[v] == seat.values[v] and seat.revealed_by[v] is None
    assert "has not played since the deal" in " ".join(format_reading(read_hands(st)))


@CORE
def test_a_lay_under_capture_any_proves_no_capturing_card_exactly_as_computed_by_hand(monkeypatch):
    st = laid_under_capture_any()
    seat = read_hands(st).of(1)  # the default opponent model
    assert seat.read and [card_str(p[1]) for p in seat.moves] == ["1e"]
    for v in range(5, 11):
        assert seat.values[v] == 0.0 and seat.prior_values[v] > 0 and seat.revealed_by[v] == 0
    # with a wholly uniform model every holding without a capturing card is as likely: 2 cards of the 11
    # unseen cards of value 1 to 4 (1o 1b, 2o 2e 2b, 3o 3e 3b, 4o 4e 4b)
    monkeypatch.setattr(reading_module, "opponent_model", lambda: (2, 1.0, 1.0))
    seat = read_hands(st).of(1)
    low = parse_cards("1o 1b 2o 2e 2b 3o 3e 3b 4o 4e 4b")
    for c in range(40):
        assert seat.cards[c] == pytest.approx(2 / 11 if c in low else 0.0, abs=1e-12), card_str(c)
    assert seat.values[1] == pytest.approx(1 - math.comb(9, 2) / math.comb(11, 2))  # 19/55
    for v in (2, 3, 4):
        assert seat.values[v] == pytest.approx(1 - math.comb(8, 2) / math.comb(11, 2))  # 27/55
    for v in range(5, 11):
        assert seat.values[v] == 0.0
    # the prior: 2 of the 32 unseen cards, whatever they are
    assert seat.prior_cards[parse_cards("7o")[0]] == pytest.approx(2 / 32)
    assert seat.prior_values[7] == pytest.approx(1 - math.comb(29, 2) / math.comb(32, 2))


@CORE
def test_the_reading_names_the_values_and_the_move_that_showed_them_in_both_languages():
    st = laid_under_capture_any()
    r = read_hands(st)
    english = format_reading(r)
    assert english[0] == "seat 1 probably holds, from its move since the deal:"
    assert english[1] == "  none of 5, 6, 7, S, C, R: certain -- it laid 1e on 1c 2c 3c 4c"
    assert re.fullmatch(r"  a [1-4]: \d+%, was \d+% -- it laid 1e on 1c 2c 3c 4c", english[2])
    spanish = format_reading(r, lang="es")
    assert spanish[0] == "asiento 1 probablemente tiene, por su jugada desde el reparto:"
    assert spanish[1] == "  ninguno de 5, 6, 7, S, C, R: seguro -- echó 1e sobre 1c 2c 3c 4c"
    # Spanish writes a percentage as the catalogue does everywhere ("95 %"): a space before the sign
    assert re.fullmatch(r"  algún [1-4]: \d+ %, antes \d+ % -- echó 1e sobre 1c 2c 3c 4c", spanish[2])
    for width in (80, 40):
        for lang in ("en", "es"):
            lines = format_reading(r, width=width, lang=lang)
            assert all(len(line) <= width for line in lines) and len(lines) >= 4, lines


@CORE
def test_the_reading_in_json_is_numbers_and_card_codes_whatever_the_language():
    st = laid_under_capture_any()
    with i18n.use("es"):
        spanish = read_hands(st).to_json()
    data = read_hands(st).to_json()
    assert data == spanish
    assert json.loads(json.dumps(data)) == data
    seat = data["seats"][0]
    assert seat["seat"] == 1 and seat["moves"] == [{"card": "1e", "take": [], "table": ["1c", "2c", "3c", "4c"]}]
    assert seat["values"]["7"] == {"p": 0.0, "prior": seat["values"]["7"]["prior"], "revealed_by": 0}
    assert seat["cards"]["7o"]["p"] == 0.0 and set(seat["cards"]) == {
        card_str(c) for c in range(40) if c not in st.hands[0] and c not in st.table and not any(p >> c & 1 for p in st.piles)}
    _, temperature, uniform = opponent_model()
    assert data["model"] == {"temperature": temperature, "uniform": uniform}


@CORE
def test_the_opponent_model_follows_the_default_ismcts(monkeypatch):
    params = dict(parse_strategy("ismcts").params)
    assert opponent_model() == (params["infer"], params["temperature"], params["uniform"])
    # a new default (the fit of the model, infer = 2 by default) flows through without another change
    ismcts = BUILTINS["ismcts"].params
    for name, new in (("infer", 2), ("temperature", 2.5), ("uniform", 0.25)):
        monkeypatch.setitem(ismcts, name, dataclasses.replace(ismcts[name], default=new))
    parse_strategy.cache_clear()  # parsed specs are kept
    assert opponent_model() == (2, 2.5, 0.25)
    assert read_hands(laid_under_capture_any()).to_json()["model"] == {"temperature": 2.5, "uniform": 0.25}
    monkeypatch.undo()
    parse_strategy.cache_clear()


@CORE
def test_the_sweep_chance_of_the_table_a_move_leaves_comes_from_the_posterior():
    st = laid_under_capture_any()
    info, r = InfoSet.of(st), read_hands(st)
    checked = 0
    for move in engine.legal_moves(st):  # seat 0 must capture (6b, 7b or Rb with some of 1c 2c 3c 4c 1e)
        left = [c for c in st.table if c not in move.take]
        need = 15 - sum(value(c) for c in left)
        j = sweep_json(r, info, move)
        if not left or not 1 <= need <= 10:
            assert j is None
            continue
        assert j == {"seat": 1, "value": need, "p": round(r.of(1).values[need], 4),
                     "prior": round(r.of(1).prior_values[need], 4)}
        if need >= 5:  # seat 1 showed it holds no such card
            assert j["p"] == 0.0 < j["prior"]
            assert reading_module.sweep_line(r, info, move, "x").startswith(
                f"after x, seat 1 needs a {reading_module.value_label(need)} to sweep the table: 0%, was ")
        checked += 1
    assert checked


def hint_lines(tmp_path, lang):
    said = []
    answers = iter(["?"])
    with i18n.use(lang):
        session = Session(table_seats("ludoteka", ["greedy"]), 11, tmp_path / lang, ask=lambda p: next(answers, None),
                          say=said.append, samples=SAMPLES)
        session.play(1, hands_mode=True)
    return said


@pytest.mark.parametrize("lang,head", [("en", "seat 1 (greedy) probably holds, from its move since the deal:"),
                                       ("es", "asiento 1 (greedy) probablemente tiene, por su jugada desde el "
                                              "reparto:")])
@CORE
def test_plays_hint_says_what_the_other_seat_probably_holds(tmp_path, lang, head):
    said = hint_lines(tmp_path, lang)
    at = said.index("  " + head)  # seat 1 played first (seat 0 dealt): its move is read
    block = said[at:next(i for i in range(at + 1, len(said)) if not said[i].startswith("    "))]
    assert len(block) >= 2 and re.match(r"    (none of|ninguno de|no|a|ningún|algún) [1-7SCR][:,]", block[1])
    assert all(len(line) <= 80 for line in block)


@CORE
def test_analyze_json_always_has_the_reading_and_the_terminal_with_reading(cli, tmp_path):
    from escoba_sim.hands.record import make_record

    st = laid_under_capture_any()
    while not st.over:
        engine.apply_move(st, engine.legal_moves(st)[0])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(make_record(st, strategies=["greedy", "greedy"])))
    out = cli("analyze", path, "--samples", SAMPLES, "--json")
    assert out.exit_code == 0, out.output
    decisions = json.loads(out.output)["decisions"]
    assert all("reading" in d for d in decisions)
    second = decisions[1]  # seat 0, after seat 1 laid 1e
    assert second["seat"] == 0 and second["reading"]["seats"][0]["values"]["7"]["p"] == 0.0
    plain = cli("analyze", path, "--samples", SAMPLES)
    assert "probably holds" not in plain.output
    shown = cli("analyze", path, "--samples", SAMPLES, "--reading")
    assert "seat 1 probably holds, from its move since the deal:" in shown.output
    assert "none of 5, 6, 7, S, C, R: certain -- it laid 1e on 1c 2c 3c 4c" in shown.output
    spanish = cli("analyze", path, "--samples", SAMPLES, "--reading", lang="es")
    assert "echó 1e sobre 1c 2c 3c 4c" in spanish.output
    for o in (shown, spanish):
        assert all(len(line) <= 80 for line in o.output.splitlines())


@CORE
def test_trace_analyze_shows_the_reading_under_the_moves_and_in_json(cli):
    out = cli("trace", "-s", "greedy", "--vs", "greedy", "--seed", 7, "--analyze", "--samples", SAMPLES)
    assert out.exit_code == 0, out.output
    assert re.search(r"\n {10}seat [01] probably holds, from its( \d)? moves? since the deal:\n {12}(no|a) ",
                     out.output)
    assert all(len(line) <= 80 for line in out.output.splitlines())
    data = json.loads(cli("trace", "-s", "greedy", "--vs", "greedy", "--seed", 7, "--analyze", "--samples", SAMPLES,
                          "--json").output)
    readings = [d["reading"] for d in data["analysis"]["decisions"]]
    assert len(readings) == len(data["moves"]) and all(r["reader"] == d["seat"] for r, d in
                                                       zip(readings, data["analysis"]["decisions"]))
    assert any(s["read"] and s["seat"] != r["reader"] for r in readings for s in r["seats"])


@CORE
def test_the_evaluator_deals_from_the_posterior_when_the_default_ismcts_infers_2(monkeypatch):
    st = laid_under_capture_any()
    infer, temperature, uniform = opponent_model()
    assert infer == 2
    read = evaluate_module.evaluate(st, samples=SAMPLES, seed=3)
    # the same evaluation dealing as infer=1 did: from the public voids only
    monkeypatch.setattr(evaluate_module, "opponent_model", lambda: (1, temperature, uniform))
    base = evaluate_module.evaluate(st, samples=SAMPLES, seed=3)
    assert read.margins.shape == base.margins.shape
    # the voids already say 5 to 10 are gone; the posterior also reweighs the holdings of 1 to 4
    assert not (read.margins == base.margins).all()


def test_without_the_core_the_reading_is_not_shown_and_one_line_says_so(monkeypatch):
    from escoba_sim import native

    st = laid_under_capture_any()
    monkeypatch.setattr(native, "core", None)
    assert read_hands(st) is None
    assert format_reading(None) == ["(what the other seats hold is not read: that needs the compiled core)"]
    assert format_reading(None, lang="es") == ["(no se lee qué tienen los otros asientos: hace falta el núcleo "
                                               "compilado)"]
    assert sweep_json(None, InfoSet.of(st), engine.legal_moves(st)[0]) is None


@CORE
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_plays_hint_says_when_the_best_move_leaves_a_table_one_card_sweeps(tmp_path, seed):
    said = []
    answers = iter(["?"])
    session = Session(table_seats("ludoteka", ["greedy"]), seed, tmp_path, ask=lambda p: next(answers, None),
                      say=said.append, samples=SAMPLES)
    session.play(1, hands_mode=True)
    at = next(i for i, line in enumerate(said) if line.startswith("hint ("))
    best = re.match(r"\s+\d+\) (\S+(?: \S+)*?)\s{2,}", said[at + 1]).group(1)
    cards = parse_cards(best)
    table = parse_cards(next(line for line in reversed(said[:at]) if line.startswith("  table: "))[9:])
    left = [c for c in table if c not in cards[1:]] + ([] if len(cards) > 1 else cards[:1])
    need = 15 - sum(value(c) for c in left)
    lines = [line for line in said[at:] if "to sweep the table" in line]
    if left and 1 <= need <= 10:
        assert lines and lines[0].startswith(f"  after {best}, seat 1 (greedy) needs a "
                                              f"{reading_module.value_label(need)} to sweep the table: "), said[at:]
    else:
        assert not lines
