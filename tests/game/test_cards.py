"""Card ids and the text notation (docs/engine.md, Cards; RULES.md, Cards)."""

import pytest

from escoba_sim.game.cards import (
    FULL_DECK_MASK,
    OROS_MASK,
    SEVENS,
    SIETE_OROS,
    CardError,
    card_str,
    cards_of,
    cards_str,
    is_oro,
    mask_of,
    parse_card,
    parse_cards,
    suit,
    value,
)


@pytest.mark.parametrize("text,cid", [("1o", 0), ("7o", 6), ("So", 7), ("Co", 8), ("Ro", 9), ("1c", 10),
                                      ("7e", 26), ("1b", 30), ("Rb", 39)])
def test_ids_follow_the_contract(text, cid):
    assert parse_card(text) == cid
    assert card_str(cid) == text


@pytest.mark.parametrize("numeric,letter", [("8c", "Sc"), ("9e", "Ce"), ("10b", "Rb"), ("8o", "So")])
def test_figures_accept_their_value(numeric, letter):
    assert parse_card(numeric) == parse_card(letter)
    assert card_str(parse_card(numeric)) == letter  # printed back with the letter


def test_lowercase_figure_and_uppercase_suit_are_accepted():
    assert parse_card("rb") == parse_card("RB") == 39
    assert parse_card(" 7o ") == SIETE_OROS


def test_every_card_round_trips():
    assert [parse_card(card_str(c)) for c in range(40)] == list(range(40))
    assert len({card_str(c) for c in range(40)}) == 40


def test_values_suits_oros_sevens():
    assert [value(parse_card(t)) for t in ("1o", "7c", "Se", "Cb", "Rb")] == [1, 7, 8, 9, 10]
    assert [suit(parse_card(t)) for t in ("Ro", "1c", "Re", "1b")] == [0, 1, 2, 3]
    assert [c for c in range(40) if is_oro(c)] == list(range(10))
    assert cards_str(SEVENS) == "7o 7c 7e 7b"
    assert mask_of(range(10)) == OROS_MASK
    assert sum(value(c) for c in range(40)) == 220  # 14 x 15 + 10: why the last table is never empty


@pytest.mark.parametrize("text,message", [
    ("Xo", "`Xo`: rank must be 1-7, S, C, R or 8-10"),
    ("0o", "`0o`: rank must be 1-7, S, C, R or 8-10"),
    ("11c", "`11c`: rank must be 1-7, S, C, R or 8-10"),
    ("7x", "`7x`: suit must be o, c, e or b (oros, copas, espadas, bastos)"),
    ("7", "`7`: a card is a rank then a suit letter, like 7o or Rb"),
])
def test_parse_errors_say_what_is_wrong(text, message):
    with pytest.raises(CardError) as e:
        parse_card(text)
    assert str(e.value) == message


def test_parse_cards_separators_and_duplicates():
    assert parse_cards("7o, Rb 3c") == [6, 39, 12]
    assert parse_cards(["7o", "Rb"]) == [6, 39]
    with pytest.raises(CardError, match="listed twice"):
        parse_cards("7o 8c Sc")  # 8c and Sc are the same card
    assert parse_cards("7o 7o", distinct=False) == [6, 6]


def test_masks_round_trip():
    cards = parse_cards("1o 7o Rb 5e")
    assert cards_of(mask_of(cards)) == sorted(cards)
    assert cards_of(FULL_DECK_MASK) == list(range(40))
