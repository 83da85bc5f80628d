"""The 40-card Spanish deck: card ids, values, suits and the text notation.

Card id = suit * 10 + (value - 1), suits ordered oros, copas, espadas, bastos,
so a set of cards is a 40-bit mask and the oros are bits 0-9. Notation: rank
``1``..``7``, ``S`` (sota, also ``8``), ``C`` (caballo, ``9``), ``R`` (rey,
``10``), then the suit letter ``o`` ``c`` ``e`` ``b``: ``7o``, ``Rb``, ``8c``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import EscobaError
from ..i18n import translate as _

SUITS = ("oros", "copas", "espadas", "bastos")
SUIT_LETTERS = "oceb"
RANK_LETTERS = {8: "S", 9: "C", 10: "R"}
_RANK_OF_LETTER = {"S": 8, "C": 9, "R": 10}
N_CARDS = 40
FULL_DECK_MASK = (1 << N_CARDS) - 1
SIETE_OROS = 6
SEVENS = (6, 16, 26, 36)
SEVENS_MASK = sum(1 << c for c in SEVENS)
OROS_MASK = (1 << 10) - 1


class CardError(EscobaError):
    """A card or list of cards that cannot be parsed or is not allowed."""


def card_id(value: int, suit: int) -> int:
    return suit * 10 + (value - 1)


def value(card: int) -> int:
    return card % 10 + 1


def suit(card: int) -> int:
    return card // 10


def is_oro(card: int) -> bool:
    return card < 10


def _card_text(card: int) -> str:
    v = value(card)
    return f"{RANK_LETTERS.get(v, v)}{SUIT_LETTERS[suit(card)]}"


_CARD_TEXT = tuple(_card_text(c) for c in range(N_CARDS))  # card_str is hot in the game-AI strings


def card_str(card: int) -> str:
    return _CARD_TEXT[card] if 0 <= card < N_CARDS else _card_text(card)


def parse_card(text: str) -> int:
    """Parse one card such as ``7o``, ``Rb``, ``Sc`` or ``8c``."""
    t = text.strip()
    if len(t) < 2:
        raise CardError(_("`{text}`: a card is a rank then a suit letter, like 7o or Rb").format(text=text))
    rank, letter = t[:-1], t[-1].lower()
    if letter not in SUIT_LETTERS:
        raise CardError(_("`{text}`: suit must be o, c, e or b (oros, copas, espadas, bastos)").format(text=text))
    r = rank.upper()
    if r in _RANK_OF_LETTER:
        v = _RANK_OF_LETTER[r]
    elif r.isascii() and r.isdigit() and len(r) <= 2 and 1 <= int(r) <= 10:  # not `²`, `①` or 5000 digits
        v = int(r)
    else:
        raise CardError(_("`{text}`: rank must be 1-7, S, C, R or 8-10").format(text=text))
    return card_id(v, SUIT_LETTERS.index(letter))


def parse_cards(text: str | Iterable[str], *, distinct: bool = True) -> list[int]:
    """Parse cards separated by spaces or commas; duplicates are an error."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = [parse_card(t) for t in items]
    if distinct:
        seen: set[int] = set()
        for t, c in zip(items, cards):
            if c in seen:
                raise CardError(_("`{text}`: {card} is listed twice").format(text=t, card=card_str(c)))
            seen.add(c)
    return cards


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, ascending (only the 40 card bits)."""
    out = []
    mask &= FULL_DECK_MASK
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
