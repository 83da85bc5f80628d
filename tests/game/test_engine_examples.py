"""The worked examples of the seed rule texts (shared/seeds/), in card notation, against the engine."""

import pytest

from escoba_sim.game import engine
from escoba_sim.game.cards import card_str, cards_str, mask_of, parse_card, parse_cards
from escoba_sim.game.engine import HandState, Move, capture_options, score_piles
from escoba_sim.game.rules import PRESETS
from escoba_sim.hands.record import legal_moves_for
from escoba_sim.strategies import greedy_key

C = parse_card


def options(card, table):
    return [cards_str(t) for t in capture_options(C(card), parse_cards(table))]


def moves(hand, table, preset="ludoteka"):
    return [(card_str(m.card), cards_str(m.take), m.escoba)
            for m in legal_moves_for(PRESETS[preset], parse_cards(hand), parse_cards(table))]


def deal_with_table(table, hands=(), players=2):
    """A deck whose initial table (2 players: cards 7-10 dealt) is ``table``; the rest in id order."""
    first = parse_cards(" ".join(hands))
    tab = parse_cards(table)
    rest = [c for c in range(40) if c not in first and c not in tab]
    need = players * 3 - len(first)
    return first + rest[:need] + tab + rest[need:]


# --- seed 000: "Una jugada con dos opciones", "¿Qué cartas te puedes llevar?", the escoba table

def test_five_on_rey_six_four_has_two_options_never_all_three():
    assert options("5b", "Ro 6c 4e") == ["Ro", "6c 4e"]  # 5+10 or 5+6+4; 5+10+6+4 = 25 is not 15
    assert moves("5b", "Ro 6c 4e") == [("5b", "Ro", False), ("5b", "6c 4e", False)]


def test_six_on_two_seven_five_takes_two_and_seven_only():
    assert options("6o", "2c 7e 5b") == ["2c 7e"]
    assert moves("6o", "2c 7e 5b") == [("6o", "2c 7e", False)]  # the five stays: a capture, no escoba


def test_ace_on_four_and_rey_is_an_escoba():
    assert moves("1o", "4c Rb") == [("1o", "4c Rb", True)]


def test_no_fifteen_from_table_cards_alone_and_near_misses_capture_nothing():
    # 7+8 on the table is 15, but a played card must take part; 2 + 7 + 5 = 14 and 2 + 7 + 7 = 16
    assert options("Ro", "7c Sc") == []
    assert options("2o", "7c 5e") == []
    assert options("2o", "7c 7e") == []
    assert moves("Ro", "7c Sc") == [("Ro", "", False)]


# --- seed 003: the Player 1 / Player 2 example, under cardgames (must capture)

def test_cardgames_example_play_by_play():
    assert options("7o", "3c 5c Sc Rc") == ["3c 5c", "Sc"]  # 7 + 3 + 5 or 7 + sota
    caps = legal_moves_for(PRESETS["cardgames"], [C("7o")], parse_cards("3c 5c Sc Rc"))
    assert cards_str(max(caps, key=greedy_key).take) == "3c 5c"  # "He takes 3 and 5 (more cards)"
    assert moves("Cb", "Sc Rc", "cardgames") == [("Cb", "", False)]  # 9+8 = 17, 9+10 = 19: lays it
    assert moves("6b", "Cb Sc Rc", "cardgames") == [("6b", "Cb", False)]  # 6 + 9
    assert moves("Re", "2o 3e", "cardgames") == [("Re", "2o 3e", True)]  # 10 + 2 + 3: escoba


def test_rey_needs_five_and_ace_needs_fourteen():
    assert options("Rb", "5o 4o 1o") == ["1o 4o", "5o"]
    assert options("1b", "Ro 4o") == ["4o Ro"]
    assert options("1b", "Ro 3o") == []


@pytest.mark.parametrize("preset,hand,table,expected", [
    # card: a capturing card must capture, a card that cannot may still be laid
    ("ludoteka", "5b 7o", "1o 4c Rb", [("7o", "", False), ("5b", "Rb", False)]),
    # any: if some card can capture, only capturing cards may be played
    ("cardgames", "5b 7o", "1o 4c Rb", [("5b", "Rb", False)]),
    # optional: every card may be laid, and a capturing card may also capture
    ("tradicional", "5b 7o", "1o 4c Rb", [("7o", "", False), ("5b", "Rb", False), ("5b", "", False)]),
])
def test_must_capture_rules(preset, hand, table, expected):
    assert moves(hand, table, preset) == expected


# --- lucky deal (seed 000 "Escobas del reparto inicial", seed 003 "Lucky deal")

def test_lucky_deal_one_group_is_one_escoba_under_ludoteka():
    st = engine.new_hand(PRESETS["ludoteka"], deal_with_table("1o 2c 4e Sb"), dealer=1)  # 1+2+4+8
    assert (st.lucky_deal, st.table, st.escobas, st.lucky_escobas) == (1, [], [0, 1], [0, 1])
    assert st.piles[1] == mask_of(parse_cards("1o 2c 4e Sb"))
    assert st.last_capturer == -1  # a lucky deal is not a turn (choice)
    assert st.to_play == 0  # play starts after the dealer


def test_lucky_deal_two_groups_are_two_escobas_under_ludoteka():
    st = engine.new_hand(PRESETS["ludoteka"], deal_with_table("7o Sc 6e Cb"), dealer=0)  # 7+S and 6+C
    assert (st.lucky_deal, st.table, st.escobas, st.lucky_escobas) == (2, [], [2, 0], [2, 0])


def test_lucky_deal_under_cardgames_takes_fifteen_without_escoba_and_ignores_thirty():
    st = engine.new_hand(PRESETS["cardgames"], deal_with_table("1o 2c 4e Sb"), dealer=0)
    assert (st.lucky_deal, st.table, st.escobas) == (1, [], [0, 0])
    assert st.piles[0].bit_count() == 4  # the dealer keeps the cards, but no escoba
    st = engine.new_hand(PRESETS["cardgames"], deal_with_table("7o Sc 6e Cb"), dealer=0)
    assert (st.lucky_deal, cards_str(st.table), st.piles) == (0, "7o Sc 6e Cb", [0, 0])


def test_no_lucky_deal_under_robo_and_thirty_without_two_groups():
    st = engine.new_hand(PRESETS["robo"], deal_with_table("1o 2c 4e Sb"), dealer=0)
    assert (st.lucky_deal, len(st.table)) == (0, 4)
    # a sum of 30 that does not split into two 15s is no lucky deal at all
    st = engine.new_hand(PRESETS["ludoteka"], deal_with_table("Ro Rc 7e 3b"), dealer=0)
    assert (st.lucky_deal, len(st.table)) == (0, 4)  # 10+10+7+3 = 30, but no subset sums to 15


# --- soplar (seed 001)

def test_soplar_takes_the_laid_card_with_a_missed_capture():
    rules = PRESETS["tradicional"]
    st = engine.new_hand(rules, deal_with_table("Ro 6c 4b 2e", hands=["5o 1c 2c", "3e Se Sb"]), dealer=0)
    assert st.to_play == 1 and cards_str(st.hands[1]) == "5o 1c 2c"
    engine.apply_move(st, Move(1, C("5o")))  # lays a five that could take Ro or 6c+4b
    assert st.to_play == 0
    blows = engine.blow_options(st)
    assert [cards_str(b.take) for b in blows] == ["Ro", "6c 4b"]
    engine.apply_blow(st, blows[1])
    assert cards_str(st.table) == "Ro 2e"
    assert st.piles[0] == mask_of(parse_cards("5o 6c 4b"))
    assert (st.last_capturer, st.escobas) == (0, [0, 0])
    assert st.to_play == 0  # the blower then plays its normal turn
    with pytest.raises(engine.IllegalMove, match="nothing to blow"):
        engine.apply_blow(st, blows[0])


def test_a_blow_that_clears_the_table_is_not_an_escoba():
    rules = PRESETS["tradicional"]
    st = engine.new_hand(rules, deal_with_table("1o 2c 3e 4b", hands=["5o 6c 7c", "Se Sb Cb"]), dealer=0)
    engine.apply_move(st, Move(1, C("5o")))  # could have been an escoba: 5+1+2+3+4
    engine.apply_blow(st, engine.blow_options(st)[0])
    assert (st.table, st.escobas, st.last_capturer) == ([], [0, 0], 0)


def test_a_card_that_could_not_capture_cannot_be_blown():
    st = engine.new_hand(PRESETS["tradicional"], deal_with_table("Ro 6c 4b 2e", hands=["Sc 1c 2c", "3e Se Sb"]), 0)
    engine.apply_move(st, Move(1, C("Sc")))  # 8+2 = 10, 8+6 = 14...: no 15
    assert engine.blow_options(st) == []


def test_laying_a_capturing_card_is_illegal_under_ludoteka():
    st = engine.new_hand(PRESETS["ludoteka"], deal_with_table("Ro 6c 4b 2e", hands=["5o 1c 2c", "3e Se Sb"]), 0)
    with pytest.raises(engine.IllegalMove, match="a capture was required: 5o can capture"):
        engine.apply_move(st, Move(1, C("5o")))


# --- end of the hand: "tú haces la última captura y tu rival termina dejando un caballo"

def test_leftovers_go_to_the_last_capturer_and_are_not_an_escoba():
    rules = PRESETS["ludoteka"]
    st = HandState(rules, 0, [], [parse_cards("Cb"), parse_cards("5e")], parse_cards("Ro 3o"), [],
                   [0, 0], [0, 0], [0, 0], to_play=1)
    engine.apply_move(st, Move(1, C("5e"), (C("Ro"),)))  # the last capture; 3o stays
    assert st.to_play == 0
    engine.apply_move(st, Move(0, C("Cb")))  # the rival lays a caballo that does not combine
    assert st.over
    assert st.piles[1] == mask_of(parse_cards("5e Ro 3o Cb"))  # the caballo goes to the last capturer
    assert st.escobas == [0, 0]
    assert (st.result.leftovers, st.result.leftover_taker) == (2, 1)


def test_leftovers_go_to_nobody_without_any_capture():
    st = HandState(PRESETS["ludoteka"], 0, [], [parse_cards("Cb"), parse_cards("Sb")], parse_cards("Ro"), [],
                   [0, 0], [0, 0], [0, 0], to_play=1)
    engine.apply_move(st, Move(1, C("Sb")))
    engine.apply_move(st, Move(0, C("Cb")))
    assert (st.result.leftovers, st.result.leftover_taker, st.piles) == (3, -1, [0, 0])


# --- seed 000: "Un recuento completo para dos" (Ana and Bruno)

ANA = "1o 2o 3o 4o 5o 7o 7c 7e 1c 2c 3c 4c 5c 6c Sc Cc Rc 1e 2e 3e 4e 5e"
BRUNO = "6o So Co Ro 6e Se Ce Re 1b 2b 3b 4b 5b 6b 7b Sb Cb Rb"


def sheet(preset, ana=ANA, bruno=BRUNO, escobas=(2, 1)):
    piles = [mask_of(parse_cards(ana)), mask_of(parse_cards(bruno))]
    return score_piles(PRESETS[preset], piles, list(escobas), [0, 0])


def test_ana_and_bruno_piles_are_as_described():
    ana, bruno = parse_cards(ANA), parse_cards(BRUNO)
    assert (len(ana), len(bruno)) == (22, 18)
    assert mask_of(ana) | mask_of(bruno) == (1 << 40) - 1 and not mask_of(ana) & mask_of(bruno)
    r = sheet("ludoteka")
    assert (r.cards_taken, r.oros_taken, r.sevens_taken) == ([22, 18], [6, 4], [3, 1])


def test_ana_and_bruno_score_sheet_under_ludoteka():
    r = sheet("ludoteka")
    #                      Ana Bruno
    assert r.escobas    == [2, 1]
    assert r.siete_oros == [1, 0]
    assert r.sevens     == [1, 0]
    assert r.oros       == [1, 0]
    assert r.cards      == [1, 0]
    assert r.total      == [6, 1]
    # "Si antes Ana llevaba cinco y Bruno ocho, sus acumulados pasan a once y nueve"
    assert [a + b for a, b in zip([5, 8], r.total)] == [11, 9]


def test_ana_and_bruno_under_tradicional_need_all_four_sevens():
    r = sheet("tradicional")
    assert (r.sevens, r.total) == ([0, 0], [5, 1])


def test_a_tie_shares_the_point_under_ludoteka_and_gives_nothing_under_cardgames():
    # 20 cards, 5 oros and 2 sevens each ("Otro ejemplo: empate en una mayoría")
    ana = "1o 2o 3o 4o 7o 7c 1c 2c 3c 4c 5c 6c Sc Cc Rc 1e 2e 3e 4e 5e"
    bruno = "5o 6o So Co Ro 7e 7b 6e Se Ce Re 1b 2b 3b 4b 5b 6b Sb Cb Rb"
    shared = sheet("ludoteka", ana, bruno, (0, 0))
    assert (shared.cards_taken, shared.oros_taken, shared.sevens_taken) == ([20, 20], [5, 5], [2, 2])
    assert (shared.cards, shared.oros, shared.sevens, shared.total) == ([1, 1], [1, 1], [1, 1], [4, 3])
    none = sheet("cardgames", ana, bruno, (0, 0))
    assert (none.cards, none.oros, none.sevens, none.total) == ([0, 0], [0, 0], [0, 0], [1, 0])


def test_bonuses_for_all_oros_and_all_sevens():
    ana = "1o 2o 3o 4o 5o 6o 7o So Co Ro 7c 7e 7b"
    bruno = " ".join(card_str(c) for c in range(40) if card_str(c) not in ana.split())
    r = score_piles(PRESETS["ludoteka"].replace(bonus_all_oros=3, bonus_all_sevens=2),
                    [mask_of(parse_cards(ana)), mask_of(parse_cards(bruno))], [0, 0], [0, 0])
    assert r.bonus == [5, 0]
    assert r.total == [1 + 1 + 1 + 0 + 5, 1]  # siete, sevens, oros; Bruno has the most cards
