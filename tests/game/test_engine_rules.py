"""Each rule of docs/engine.md, tested directly on the reference engine with constructed decks and positions.

The differential tests only show that the two engines agree; a rule written wrongly in both alike
would pass them. Here every rule is checked against what docs/engine.md says, on a position built
for it (the seeded worked examples are in test_engine_examples.py).
"""

from types import SimpleNamespace

import pytest

from escoba_sim.game import engine
from escoba_sim.game.cards import card_str, cards_str, mask_of, parse_card, parse_cards
from escoba_sim.game.engine import HandState, Move
from escoba_sim.game.rules import PRESETS
from escoba_sim.strategies import make_strategy

C = parse_card


def position(rules, hands, table, stock="", to_play=0, dealer=None, piles=None):
    """A hand in progress: ``hands`` per seat and the table in card notation; nothing taken yet."""
    n = rules.n_sides
    return HandState(rules, (to_play - 1) % rules.players if dealer is None else dealer, [],
                     [sorted(parse_cards(h)) for h in hands], sorted(parse_cards(table)), parse_cards(stock),
                     list(piles or [0] * n), [0] * n, [0] * n, to_play=to_play)


class ScriptedRng:
    """Stands in for a PLAY stream: ``below(n)`` returns the scripted values and records each ``n``."""

    def __init__(self, *values):
        self.values, self.asked = list(values), []

    def below(self, n):
        self.asked.append(n)
        v = self.values.pop(0)
        assert 0 <= v < n
        return v


def choose(strategy, st, rng=None):
    return make_strategy(strategy).choose_move(st, engine.legal_moves(st), rng or ScriptedRng())


# --- one hand: the deal, turn order, draws and refills


def test_deal_order_starts_after_the_dealer_then_the_table_then_the_stock():
    rules = PRESETS["ludoteka"].replace(players=3, lucky_deal="off")
    st = engine.new_hand(rules, list(range(40)), dealer=1)
    assert (st.hands[2], st.hands[0], st.hands[1]) == ([0, 1, 2], [3, 4, 5], [6, 7, 8])
    assert (st.table, st.stock) == ([9, 10, 11, 12], list(range(13, 40)))
    assert st.to_play == 2  # the seat after the dealer plays first


def test_under_draw_a_player_draws_after_a_capture_too():
    rules = PRESETS["robo"]
    st = position(rules, ["5o 1c 2c", "3e Se Sb"], "Rb 4c", stock="7b 6b", to_play=0)
    engine.apply_move(st, Move(0, C("5o"), (C("Rb"),)))  # a capture, then the top of the stock
    assert cards_str(st.hands[0]) == "1c 2c 7b" and cards_str(st.stock) == "6b"
    engine.apply_move(st, Move(1, C("3e")))  # a lay, then a draw
    assert cards_str(st.hands[1]) == "Se 6b Sb" and st.stock == []
    engine.apply_move(st, Move(0, C("1c")))  # the stock is empty: the hand is played out
    assert len(st.hands[0]) == 2 and st.to_play == 1


def test_under_draw_play_continues_with_the_seats_that_still_hold_cards():
    rules = PRESETS["robo"].replace(players=3)
    st = position(rules, ["Rb", "", "Sb"], "1o", to_play=0)
    engine.apply_move(st, Move(0, C("Rb")))
    assert st.to_play == 2  # seat 1 holds nothing and is skipped
    engine.apply_move(st, Move(2, C("Sb")))
    assert st.over


def test_rounds_refill_from_the_seat_after_the_dealer_and_play_goes_on_from_the_last_player():
    rules = PRESETS["ludoteka"].replace(players=3)
    stock = "1c 2c 3c 1e 2e 3e 1b 2b 3b"
    st = position(rules, ["", "Rb", ""], "Sc", stock=stock, to_play=1, dealer=0)
    engine.apply_move(st, Move(1, C("Rb")))  # 10 + 8: a lay; every hand is now empty
    assert [cards_str(h) for h in st.hands] == ["1b 2b 3b", "1c 2c 3c", "1e 2e 3e"]  # from seat 1 = dealer + 1
    assert st.to_play == 2 and st.stock == []  # the seat after the one that played last


def test_the_last_round_deals_only_what_the_stock_holds():
    rules = PRESETS["ludoteka"]
    st = position(rules, ["Rb", ""], "Sc", stock="1c 2c 3c 1e", to_play=0, dealer=1)
    engine.apply_move(st, Move(0, C("Rb")))
    assert [cards_str(h) for h in st.hands] == ["1c 2c 3c", "1e"]
    assert st.to_play == 1


def test_a_capture_of_the_whole_table_is_an_escoba_and_a_partial_one_is_not():
    st = position(PRESETS["ludoteka"], ["5o 1c", "3e Se"], "Rb 4c 6c", to_play=0)
    take = [m for m in engine.legal_moves(st) if m.card == C("5o")]
    assert [(cards_str(m.take), m.escoba) for m in take] == [("4c 6c", False), ("Rb", False)]
    st = position(PRESETS["ludoteka"], ["5o 1c", "3e Se"], "Rb", to_play=0)
    engine.apply_move(st, Move(0, C("5o"), (C("Rb"),), escoba=True))
    assert (st.escobas, st.table, st.last_capturer) == ([1, 0], [], 0)


# --- capture options and legal moves


def test_capture_options_are_every_subset_in_mask_order():
    # 5 needs 10: Rb alone, 4c+6c, 1o+6c+3e, 1o+4c+5e; as masks (highest bit first) 15 < 22 < 24 < 39
    got = engine.capture_options(C("5o"), parse_cards("Rb 4c 6c 1o 3e 5e"))
    assert [cards_str(t) for t in got] == ["4c 6c", "1o 6c 3e", "1o 4c 5e", "Rb"]
    assert [mask_of(t) for t in got] == sorted(mask_of(t) for t in got)


@pytest.mark.parametrize("preset,expected", [
    ("ludoteka", ["5o 4c 6c", "5o Rb", "Sc"]),             # card: 5o must capture, Sc (no 15) lays
    ("cardgames", ["5o 4c 6c", "5o Rb"]),                  # any: some card captures, so only captures
    ("tradicional", ["5o 4c 6c", "5o Rb", "5o", "Sc"]),    # optional: 5o's lay after its captures
])
def test_legal_moves_by_card_id_then_captures_by_mask_then_the_lay(preset, expected):
    st = position(PRESETS[preset], ["5o Sc", "3e"], "Rb 4c 6c Co", to_play=0)
    got = [" ".join([card_str(m.card)] + [card_str(c) for c in m.take]) for m in engine.legal_moves(st)]
    assert got == expected


def test_under_any_every_card_lays_when_none_can_capture():
    st = position(PRESETS["robo"], ["Rb Cb", "3e"], "Sc Sb", to_play=0)
    assert [(card_str(m.card), m.take) for m in engine.legal_moves(st)] == [("Cb", ()), ("Rb", ())]


# --- scoring


def score(preset, piles, escobas=None, lucky=None, **changes):
    rules = PRESETS[preset].replace(**changes)
    n = rules.n_sides
    return engine.score_piles(rules, [mask_of(parse_cards(p)) for p in piles], list(escobas or [0] * n),
                              list(lucky or [0] * n))


@pytest.mark.parametrize("preset", ["ludoteka", "tradicional", "cardgames", "robo"])
def test_a_side_that_took_nothing_scores_no_majority(preset):
    r = score(preset, ["", ""])  # nobody captured: a 0-0-0 "tie" is no tie
    assert (r.cards, r.oros, r.sevens, r.siete_oros, r.total) == ([0, 0], [0, 0], [0, 0], [0, 0], [0, 0])


def test_a_category_nobody_took_scores_for_nobody_while_the_others_still_count():
    # a lucky deal took 1c 2c 4e Sb and nobody captured afterwards: the leftovers went to nobody
    r = score("ludoteka", ["1c 2c 4e Sb", ""], escobas=[1, 0], lucky=[1, 0])
    assert (r.cards, r.oros, r.sevens) == ([1, 0], [0, 0], [0, 0])  # no oros, no sevens taken at all
    assert r.total == [2, 0]
    r = score("ludoteka", ["1c 2c 4e Sb", "", ""], players=3)
    assert (r.cards, r.oros) == ([1, 0, 0], [0, 0, 0])


def test_majorities_strict_shared_or_none_on_ties():
    piles = ["1o 2o 7c 7e 1c", "3o 4o 7b 7o"]  # cards 5-4, oros 2-3, sevens 2-2 (7o with the second)
    shared = score("ludoteka", piles)
    assert (shared.cards, shared.oros, shared.sevens, shared.siete_oros) == ([1, 0], [0, 1], [1, 1], [0, 1])
    none = score("cardgames", piles)
    assert (none.cards, none.oros, none.sevens) == ([1, 0], [0, 1], [0, 0])
    three = score("ludoteka", piles + [""], players=3)  # a side with nothing beside a tie at the top
    assert three.sevens == [1, 1, 0]


def test_sevens_all_needs_all_four_and_totals_count_lucky_escobas_once():
    r = score("tradicional", ["7o 7c 7e 7b", "1o"], escobas=[3, 0], lucky=[2, 0])
    assert (r.sevens, r.escobas, r.lucky_escobas) == ([1, 0], [3, 0], [2, 0])
    assert r.oros == [1, 1]  # 7o and 1o: a tie, shared
    assert r.total == [3 + 1 + 1 + 1 + 1, 1]  # escobas (lucky ones once), siete de oros, sevens, oros, cards


# --- a game


def scripted_game(monkeypatch, totals, target, players=2):
    """Play a game whose hands score ``totals`` (one list per hand) and return it."""
    hands = iter(totals)

    def fake_hand(rules, strategies, seed, game, hand, dealer):
        return SimpleNamespace(result=SimpleNamespace(total=next(hands), dealer=dealer))

    monkeypatch.setattr(engine, "play_hand", fake_hand)
    rules = PRESETS["ludoteka"].replace(target=target, players=players)
    return engine.play_game(rules, [None] * players, seed=0, game=5)


def test_a_game_ends_when_a_side_reaches_exactly_the_target(monkeypatch):
    g = scripted_game(monkeypatch, [[7, 3], [7, 5], [1, 0], [9, 9]], target=15)
    assert (g.scores, g.winner, len(g.hands)) == ([15, 8], 0, 3)
    g = scripted_game(monkeypatch, [[7, 3], [7, 5], [0, 7], [9, 9]], target=15)  # 14-15
    assert (g.scores, g.winner, len(g.hands)) == ([14, 15], 1, 3)


def test_a_tie_at_the_top_plays_another_hand_even_past_the_target(monkeypatch):
    g = scripted_game(monkeypatch, [[8, 8], [8, 8], [0, 1], [5, 5]], target=15)
    assert (g.scores, g.winner, len(g.hands)) == ([16, 17], 1, 3)
    g = scripted_game(monkeypatch, [[3, 3, 1], [1, 2, 3]], target=0, players=3)  # target 0: one hand if untied
    assert (g.scores, g.winner, len(g.hands)) == ([4, 5, 4], 1, 2)


def test_the_highest_total_wins_even_when_another_side_also_reached_the_target(monkeypatch):
    g = scripted_game(monkeypatch, [[10, 12], [6, 5]], target=15)
    assert (g.scores, g.winner) == ([16, 17], 1)


def test_game_winner_rule():
    assert engine.game_winner([15, 3], 15) == 0
    assert engine.game_winner([14, 3], 15) is None
    assert engine.game_winner([15, 15], 15) is None
    assert engine.game_winner([0, 0], 0) is None
    assert engine.game_winner([0, 1], 0) == 1


def test_the_deal_passes_each_hand_from_game_index_modulo_players(monkeypatch):
    dealers = []

    def fake_hand(rules, strategies, seed, game, hand, dealer):
        dealers.append(dealer)
        return SimpleNamespace(result=SimpleNamespace(total=[0, 0, 0] if hand < 4 else [1, 0, 0]))

    monkeypatch.setattr(engine, "play_hand", fake_hand)
    engine.play_game(PRESETS["ludoteka"].replace(players=3, target=0), [None] * 3, seed=0, game=7)
    assert dealers == [1, 2, 0, 1, 2]


# --- built-in strategies


def test_greedy_breaks_equal_keys_by_the_lowest_taken_mask():
    # two cards take the same king: equal keys (2 cards, no escoba, no oros), 5c+Rb has the lower mask
    st = position(PRESETS["ludoteka"], ["5c 5e", "1o"], "Rb 3b", to_play=0)
    assert choose("greedy", st) == Move(0, C("5c"), (C("Rb"),))
    # one card, two kings: the lower one (Rc, id 19) rather than Re (id 29)
    st = position(PRESETS["ludoteka"], ["5b", "1o"], "Re Rc 3b", to_play=0)
    assert choose("greedy", st) == Move(0, C("5b"), (C("Rc"),))
    for name in ("maxoros", "sevens", "defensive"):
        assert choose(name, st) == Move(0, C("5b"), (C("Rc"),)), name


def test_greedy_key_order_cards_then_escoba_then_siete_then_oros():
    st = position(PRESETS["ludoteka"], ["5b", "1o"], "Rc 4c 6c", to_play=0)  # 3 cards beat 2
    assert choose("greedy", st).take == (C("4c"), C("6c"))
    st = position(PRESETS["ludoteka"], ["Sb", "1o"], "7c 7o", to_play=0)  # same size: the siete de oros
    assert choose("greedy", st).take == (C("7o"),)
    st = position(PRESETS["ludoteka"], ["Rb", "1o"], "5c 5o 1c", to_play=0)  # then oros
    assert choose("greedy", st).take == (C("5o"),)


def test_maxoros_prefers_oros_to_cards_and_sevens_prefers_the_siete():
    st = position(PRESETS["ludoteka"], ["5b", "1o"], "Ro 4c 6c", to_play=0)
    assert choose("maxoros", st).take == (C("Ro"),)
    assert choose("greedy", st).take == (C("4c"), C("6c"))
    st = position(PRESETS["ludoteka"], ["Sb", "1o"], "7c 7o 3c 4c", to_play=0)  # 8+7o vs 8+3+4 (more cards)
    assert choose("sevens", st).take == (C("7o"),)
    assert choose("greedy", st).take == (C("3c"), C("4c"))


def test_lays_lowest_value_ties_to_the_highest_id_keeping_oros_or_sevens():
    table = "Cc"  # nothing in these hands makes 15 with a caballo (3+9, 7+9, 10+9)
    st = position(PRESETS["ludoteka"], ["3o 3e Rb", "1o"], table, to_play=0)
    assert choose("greedy", st) == Move(0, C("3e"))
    st = position(PRESETS["ludoteka"], ["3o 7c Rb", "1o"], table, to_play=0)
    assert choose("maxoros", st) == Move(0, C("7c"))  # keeps the oro
    assert choose("sevens", st) == Move(0, C("3o"))  # keeps the seven
    st = position(PRESETS["ludoteka"], ["3o 7o", "1o"], table, to_play=0)
    assert choose("maxoros", st) == Move(0, C("3o"))  # only oros: the lowest of them
    st = position(PRESETS["ludoteka"], ["7o 7c", "1o"], table, to_play=0)
    assert choose("sevens", st) == Move(0, C("7c"))  # only sevens: the 7 of oros last


def test_random_draws_a_card_then_one_of_its_moves_and_nothing_when_forced():
    st = position(PRESETS["tradicional"], ["5b 7o", "1o"], "1c 4c Rb", to_play=0)
    rng = ScriptedRng(1, 1)  # cards by id [7o, 5b]: 5b; its moves [capture Rb, lay]: the lay
    assert choose("random", st, rng) == Move(0, C("5b")) and rng.asked == [2, 2]
    rng = ScriptedRng(1, 0)
    assert choose("random", st, rng) == Move(0, C("5b"), (C("Rb"),))
    st = position(PRESETS["ludoteka"], ["5b", "1o"], "Rb 3c", to_play=0)
    rng = ScriptedRng()  # one legal move: no draw at all
    assert choose("random", st, rng) == Move(0, C("5b"), (C("Rb"),)) and rng.asked == []


def test_random_blow_draws_among_no_blow_and_the_options():
    st = position(PRESETS["tradicional"], ["1c", "5o Cb"], "Ro 6c 4b 2e", to_play=1)
    engine.apply_move(st, Move(1, C("5o")))
    blows = engine.blow_options(st)
    assert len(blows) == 2
    rng = ScriptedRng(0)
    assert make_strategy("random").choose_blow(st, blows, rng) is None and rng.asked == [3]
    rng = ScriptedRng(2)
    assert make_strategy("random").choose_blow(st, blows, rng) == blows[1]


def test_defensive_leaves_the_table_fewest_unseen_cards_can_clear():
    seen = [mask_of(parse_cards("2o 2c 2e")), 0]  # three 2s are in a pile: one 2 is unseen
    st = position(PRESETS["ludoteka"], ["5b 7b", "1o"], "Rc Sc 3c", to_play=0, piles=seen)
    # 5b+Rc leaves Sc 3c = 11 (four unseen 4s clear it), 7b+Sc leaves Rc 3c = 13 (one unseen 2)
    assert choose("defensive", st) == Move(0, C("7b"), (C("Sc"),))
    assert choose("greedy", st) == Move(0, C("5b"), (C("Rc"),))  # equal keys: the lower mask
    seen = [mask_of(parse_cards("4o 4c 4e")), 0]
    st = position(PRESETS["ludoteka"], ["Sb 2b", "1o"], "3c", to_play=0, piles=seen)
    # laying Sb leaves 11 (one unseen 4), laying 2b leaves 5 (four unseen reyes): not the lowest value
    assert choose("defensive", st) == Move(0, C("Sb"))
    assert choose("greedy", st) == Move(0, C("2b"))
