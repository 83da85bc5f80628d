"""The luck ledger (hands/luck.py): it adds up, its luck averages to zero between equal players, and the luck
of the last deal, where nothing is hidden, equals an independent minimax over every way the cards could lie."""

import copy
import math
from itertools import combinations

import pytest

from escoba_sim.game import engine
from escoba_sim.hands import luck
from escoba_sim.hands.luck import KINDS, PARTS, ledger_of, ledger_seats
from escoba_sim.hands.record import parse_record, record_for_hand

pytestmark = pytest.mark.core("the ledger's values come from the evaluator, which runs in the compiled core")

TEST_SET = [("ludoteka", ["heuristic", "greedy"]), ("tradicional", ["greedy", "heuristic"]),
            ("robo", ["heuristic", "random"]), ("cardgames", ["defensive", "heuristic"]),
            ("ludoteka(players=3)", ["heuristic", "greedy", "random"]),
            ("ludoteka(players=4,teams=true)", ["heuristic", "greedy", "heuristic", "greedy"])]


@pytest.mark.parametrize("rules,strategies", TEST_SET)
@pytest.mark.parametrize("hand", [0, 1])
def test_the_ledger_adds_up(rules, strategies, hand):
    rec = record_for_hand(rules, strategies, 3, 0, hand)
    for seat in (0, 1):
        led = ledger_of(rec, seat, samples=400)
        parts = [led.expected] + [led.part(name)[0] for name in PARTS]
        assert sum(parts) == pytest.approx(led.result, abs=1e-9)
        assert led.adds_up, (rules, hand, seat, led.part("residual"))
        assert {e.kind for e in led.entries} <= set(KINDS)
        assert led.entries[0].kind == "deal"
        # a decision never gains: its entry is minus the analysis' loss
        assert all(e.value <= 1e-12 for e in led.entries if e.kind == "decision")
        arrivals = [e for e in led.entries if e.kind in ("round", "draw")]
        if parse_record(rec).rules.deal == "rounds":
            assert len(arrivals) >= 1 and all(e.kind == "round" for e in arrivals)


def minimax(st, seat):
    """The exact margin of ``seat`` (two players, nothing hidden), both playing their best: a plain search over
    the reference engine's moves, independent of the compiled solver."""
    if st.over:
        t = st.result.total
        return t[seat] - t[1 - seat]
    values = []
    for m in engine.legal_moves(st):
        nxt = copy.deepcopy(st)
        engine.apply_move(nxt, m)
        values.append(minimax(nxt, seat))
    return max(values) if st.to_play == seat else min(values)


@pytest.mark.parametrize("hand", [0, 4])
def test_the_last_deal_is_valued_exactly(hand):
    rec = record_for_hand("ludoteka", ["heuristic", "heuristic"], 21, 0, hand)
    parsed = parse_record(rec)
    st = engine.new_hand(parsed.rules, parsed.deck, parsed.dealer)
    last = None
    for rm in parsed.moves:  # the state just after the last deal
        stock = len(st.stock)
        engine.apply_move(st, engine.Move(rm.player, rm.card, rm.take, escoba=bool(rm.take) and set(rm.take) == set(st.table)))
        if len(st.stock) < stock and not st.stock:
            last = (copy.deepcopy(st), len(parsed.moves[:parsed.moves.index(rm) + 1]))
            break
    assert last is not None
    after, number = last
    seat = 0
    pool = sorted(after.hands[0] + after.hands[1])
    ways = []
    for mine in combinations(pool, len(after.hands[seat])):
        alt = copy.deepcopy(after)
        alt.hands[seat] = sorted(mine)
        alt.hands[1 - seat] = sorted(c for c in pool if c not in mine)
        ways.append(minimax(alt, seat))
    expected_luck = minimax(after, seat) - sum(ways) / len(ways)
    led = ledger_of(rec, seat, samples=400)
    entry = next(e for e in led.entries if e.kind == "round" and e.number == number)
    assert entry.exact and entry.spread == 0
    assert entry.value == pytest.approx(expected_luck, abs=1e-9)


@pytest.mark.slow
def test_luck_averages_to_zero_between_equal_players():
    """Over many hands of one strategy against itself, the luck of a seat (alternately dealer and mano) has
    mean zero: its 99.9 % interval (3.3 standard errors) holds 0."""
    lucks = []
    for hand in range(160):
        rec = record_for_hand("ludoteka", ["heuristic", "heuristic"], 11, 0, hand)
        lucks.append(ledger_of(rec, hand % 2, samples=400).part("luck")[0])
    n = len(lucks)
    mean = sum(lucks) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in lucks) / (n - 1) / n)
    assert abs(mean) <= 3.3 * se, (mean, se)
    assert se < 0.3  # the figure is informative: luck's spread per hand is about 2 points


def test_the_ledger_is_the_persons_unless_seats_are_named():
    rec = record_for_hand("ludoteka", ["greedy", "random"], 1)
    assert ledger_seats(rec, None) == [0, 1]
    assert ledger_seats({**rec, "strategies": ["greedy", "person"]}, None) == [1]
    assert ledger_seats({**rec, "strategies": ["greedy", "person"]}, [0, 0]) == [0]


def test_a_biased_value_is_caught(monkeypatch):
    """The check can fail: values after the cards arrived that are a point too high meet the analysis' own
    value of the same position at the mano's next decision, and the residual is far outside its spread."""
    rec = record_for_hand("ludoteka", ["heuristic", "greedy"], 3, 0, 0)
    mano = (parse_record(rec).dealer + 1) % 2
    assert ledger_of(rec, mano, samples=400).adds_up
    true_value = luck.position_value

    def biased(st, seat, own_unknown, **kw):
        v, s, e = true_value(st, seat, own_unknown, **kw)
        return (v + 1.0 if not own_unknown else v), s, e
    monkeypatch.setattr(luck, "position_value", biased)
    assert not ledger_of(rec, mano, samples=400).adds_up
