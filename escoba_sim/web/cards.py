"""The Spanish deck drawn as SVG, made here (no image is downloaded): each card has its notation
(``5o``, ``Sc``, ``Rb``) in the corners, its value for the sums of 15 beside the figures, and its
suit drawn large in its colour, so that oros, copas, espadas and bastos read at a glance."""

from __future__ import annotations

from functools import lru_cache

from ..game.cards import RANK_LETTERS, SUIT_LETTERS, parse_card, suit, value

WIDTH, HEIGHT = 100, 150
# (fill, dark) per suit: oros gold, copas red, espadas blue, bastos green, as Spanish decks colour them
COLOURS = (("#e3a600", "#8a5a00"), ("#c8232c", "#7a0f14"), ("#1d5fbf", "#0d3270"), ("#2f8a3a", "#174d1e"))
FIGURES = {8: "sota", 9: "caballo", 10: "rey"}  # the game's own words, the same in both languages

# each suit's emblem, drawn in a 60 x 60 box at the origin
_EMBLEMS = (
    # oros: a gold coin with a ring and a centre
    '<circle cx="30" cy="30" r="27" fill="{f}" stroke="{d}" stroke-width="3"/>'
    '<circle cx="30" cy="30" r="17" fill="none" stroke="{d}" stroke-width="2.5"/>'
    '<circle cx="30" cy="30" r="6" fill="{d}"/>',
    # copas: a goblet (bowl, stem, foot)
    '<path d="M8 6 H52 Q52 32 30 36 Q8 32 8 6 Z" fill="{f}" stroke="{d}" stroke-width="2.5"/>'
    '<rect x="26" y="35" width="8" height="13" fill="{d}"/>'
    '<path d="M14 56 Q30 44 46 56 Z" fill="{f}" stroke="{d}" stroke-width="2.5"/>',
    # espadas: a sword, point up (blade, cross-guard, grip, pommel)
    '<path d="M30 1 L36 10 L35 40 H25 L24 10 Z" fill="{f}" stroke="{d}" stroke-width="2"/>'
    '<rect x="12" y="40" width="36" height="6" rx="3" fill="{d}"/>'
    '<rect x="27" y="46" width="6" height="9" fill="{d}"/>'
    '<circle cx="30" cy="57" r="3.5" fill="{d}"/>',
    # bastos: a knotted club, thicker at the top
    '<path d="M22 58 L18 14 Q16 2 30 2 Q44 2 42 14 L38 58 Z" fill="{f}" stroke="{d}" stroke-width="2.5"/>'
    '<circle cx="22" cy="22" r="3" fill="{d}"/><circle cx="37" cy="31" r="3" fill="{d}"/>'
    '<circle cx="25" cy="42" r="2.6" fill="{d}"/>',
)


def emblem(s: int, x: float, y: float, scale: float) -> str:
    fill, dark = COLOURS[s]
    return f'<g transform="translate({x} {y}) scale({scale})">{_EMBLEMS[s].format(f=fill, d=dark)}</g>'


@lru_cache(maxsize=41)
def card_svg(code: str) -> str:
    """The SVG of one card by its notation (``7o``); ``back`` for the back. Raises CardError for neither."""
    if code == "back":
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}">'
                '<defs><pattern id="p" width="12" height="12" patternUnits="userSpaceOnUse">'
                '<path d="M0 6 L6 0 L12 6 L6 12 Z" fill="#b8323a"/></pattern></defs>'
                f'<rect x="1.5" y="1.5" width="{WIDTH - 3}" height="{HEIGHT - 3}" rx="9" fill="#7a1d24" '
                'stroke="#3b0c10" stroke-width="3"/>'
                f'<rect x="9" y="9" width="{WIDTH - 18}" height="{HEIGHT - 18}" rx="5" fill="url(#p)"/></svg>')
    card = parse_card(code)
    s, v = suit(card), value(card)
    rank = RANK_LETTERS.get(v, str(v))
    fill, dark = COLOURS[s]
    corner = (f'<text x="9" y="27" font-family="Georgia, serif" font-weight="bold" font-size="24" '
              f'fill="{dark}">{rank}</text>')
    corner += (f'<text x="{WIDTH - 9}" y="{HEIGHT - 10}" text-anchor="end" font-family="Georgia, serif" '
               f'font-weight="bold" font-size="24" fill="{dark}">{rank}</text>')
    small = f'<g transform="translate(10 33) scale(0.27)">{_EMBLEMS[s].format(f=fill, d=dark)}</g>'
    body = emblem(s, 20, 40, 1.0)
    if v in FIGURES:  # a figure: its value for the sums beside the letter, its name under the emblem
        corner += (f'<text x="{WIDTH - 9}" y="25" text-anchor="end" font-family="sans-serif" font-size="15" '
                   f'fill="{dark}">={v}</text>')
        body = emblem(s, 27, 36, 0.77) + (f'<text x="{WIDTH / 2}" y="{HEIGHT - 32}" text-anchor="middle" '
                                           f'font-family="sans-serif" font-size="14" fill="{dark}">'
                                           f'{FIGURES[v]}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{code}">'
            f'<rect x="1.5" y="1.5" width="{WIDTH - 3}" height="{HEIGHT - 3}" rx="9" fill="#fffdf6" '
            f'stroke="{dark}" stroke-width="3"/>{corner}{small}{body}</svg>')


def all_codes() -> list[str]:
    return [f"{RANK_LETTERS.get(v, v)}{SUIT_LETTERS[s]}" for s in range(4) for v in range(1, 11)]
