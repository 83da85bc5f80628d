"""The words the page's script shows (moves, turns, hints, the analysis), marked for the catalogue and
translated by the server into the page's language (``page_words``); the template's own words are in
``templates/index.html``. Placeholders in braces (``{seat}``) are filled by the script."""

from __future__ import annotations

from ..game.columns import SEVENS_TEXT
from ..i18n import N_, translation

WORDS = {
    "you": N_("you"),
    "seat": N_("seat {seat}"),
    "your_team": N_("you and seat {seat}"),
    "team": N_("seats {a} and {b}"),
    "partner": N_("your partner"),
    "your_turn": N_("Your move: click a card of your hand."),
    "choose_capture": N_("{card} can take more than one way: choose what it takes."),
    "lay": N_("lay it"),
    "blow_offer": N_("{who} laid {card}, which could have captured: you may blow (soplar)."),
    "no_blow": N_("do not blow"),
    "blow_option": N_("blow: {card} + {take}"),
    "plays_takes": N_("{who} plays {card} and takes {take}"),
    "lays": N_("{who} lays {card}"),
    "blows": N_("{who} blows {card}: takes {take}"),
    "you_play_take": N_("you play {card} and take {take}"),
    "you_lay": N_("you lay {card}"),
    "you_blow": N_("you blow {card}: you take {take}"),
    "escoba": N_("escoba!"),
    "new_deal": N_("new deal: {stock} cards left in the stock"),
    "lucky": N_("lucky deal: the dealer takes the table"),
    "hand_over": N_("The hand is over."),
    "game_over": N_("The game is over."),
    "leftovers": N_("{cards} card(s) left on the table go to {who}, the last to capture"),
    "leftovers_you": N_("{cards} card(s) left on the table go to you, the last to capture"),
    "leftovers_nobody": N_("{cards} card(s) left on the table go to nobody"),
    "hint_title": N_("Best moves from what you can see ({how}, {seconds} s):"),
    "hint_exact": N_("solved exactly"),
    "hint_search": N_("{samples} deals of the unseen cards"),
    "hint_forced": N_("There is only one move."),
    "hint_unit": N_("points of hand margin, yours minus the best other side's"),
    "stock": N_("stock: {n}"),
    "in_hand": N_("{n} in hand"),
    "dealer": N_("dealer"),
    "hand_number": N_("hand {n}"),
    "to": N_("to {n}"),
    "forced": N_("forced"),
    "analysing": N_("Analysing every decision..."),
    "position": N_("Position before decision {n} (seat {seat})"),
    "error": N_("Error: {message}"),
    "no_records": N_("No saved hands yet."),
    "unsaved": N_("{n} hand record(s) could not be saved yet: the server keeps them and tries again at your "
                  "next move"),
    "total_loss": N_("{who}: {choices} decisions with a choice, total loss {loss}; blunders {blunders}, "
                     "mistakes {mistakes}, inaccuracies {inaccuracies}"),
    "blunder": N_("blunder"),
    "mistake": N_("mistake"),
    "inaccuracy": N_("inaccuracy"),
    # the score sheet (the names of the point categories as the rule texts write them)
    "escobas": N_("escobas"),
    "siete_oros": N_("siete de oros"),
    # the sevens by the ruleset's `sevens` rule (the state's sevens_rule): the most, or all four
    "sevens": SEVENS_TEXT["majority"],
    "sevens_all": SEVENS_TEXT["all"],
    "oros": N_("oros (majority)"),
    "cards": N_("cards (majority)"),
    "bonus": N_("bonuses"),
    "total": N_("total"),
    "cards_taken": N_("cards taken"),
    "oros_taken": N_("oros taken"),
    "sevens_taken": N_("sevens taken"),
    "score": N_("game score"),
    # a hand shared as a link (#hand=NOTATION: hands/notation.py, web/shared.py)
    "share_copied": N_("Link copied: whoever opens it sees this hand and its analysis."),
    "share_copy": N_("Copy this link: whoever opens it sees this hand and its analysis."),
    "shared_about": N_("rules {rules} · dealer: seat {dealer}"),
    "shared_origin": N_("seed {seed}, game {game}, hand {hand}"),
    "shared_unfinished": N_("not finished (play stopped: {why})"),
    "shared_not_over": N_("The hand stops here, before its end."),
    "shared_seat": N_("seat {seat} ({strategy})"),
    "person": N_("person"),
}


def page_words(lang: str) -> dict[str, str]:
    """Every word of the script, in ``lang``."""
    t = translation(lang)
    return {key: t.gettext(text) for key, text in WORDS.items()}
