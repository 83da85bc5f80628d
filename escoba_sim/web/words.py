"""The words the page's script shows (moves, turns, hints, the analysis), marked for the catalogue and
translated by the server into the page's language (``page_words``); the template's own words are in
``templates/index.html``. Placeholders in braces (``{seat}``) are filled by the script."""

from __future__ import annotations

from ..game.columns import SEVENS_TEXT
from ..hands.luck import ARRIVAL_TEXT
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
    # the luck ledger of a hand (hands/luck.py), drawn as a bridge chart when the hand is over
    "ledger_computing": N_("Computing the luck ledger of this hand (a few seconds; you may deal the next hand)..."),
    "ledger_failed": N_("The luck ledger could not be computed: {message}"),
    "ledger_expected": N_("expected before the deal"),
    "ledger_deal": ARRIVAL_TEXT["deal"],
    "ledger_round": ARRIVAL_TEXT["round"],
    "ledger_draw": ARRIVAL_TEXT["draw"],
    "ledger_decisions": N_("your decisions"),
    "ledger_others": N_("the others' play"),
    "ledger_noise": N_("estimate noise"),
    "ledger_result": N_("result"),
    "ledger_cards_gave": N_("the cards gave you {value}"),
    "ledger_cards_cost": N_("the cards cost you {value}"),
    "ledger_decisions_lost": N_("your decisions lost {value}"),
    "ledger_decisions_none": N_("your decisions lost nothing"),
    "ledger_others_gave": N_("the others' play gave you {value}"),
    "ledger_others_cost": N_("the others' play cost you {value}"),
    "ledger_reading": N_("{cards}, {decisions} and {others}: from {expected} expected before the deal to a "
                         "result of {result}."),
    "ledger_reading_noise": N_("The estimates' noise adds {noise}."),
    "ledger_disagree": N_("Note: the estimates disagree by more than their noise; the server's analysis "
                          "samples are too few to split this hand finely."),
    "ledger_samples": N_("Estimated from {samples} deals of the unseen cards per position."),
    # the game's ledger: the hands' ledgers side by side, and their sum
    "game_ledger_computing": N_("Computing the luck ledger of hand {n} of {count}..."),
    "game_ledger_hand": N_("hand {n}"),
    "game_ledger_total": N_("game"),
    "game_ledger_luck": N_("luck of the cards"),
    "game_ledger_decisions": N_("your decisions"),
    "game_ledger_others": N_("the others' play"),
    "game_ledger_margin": N_("The hands' results add up to {margin}: your points minus the other side's "
                             "({mine} to {theirs})."),
    "game_ledger_reading": N_("Over the game, {cards}, {decisions} and {others}."),
    # the game's score sheet, one row per hand and side
    "sheet_side": N_("side"),
    "sheet_cards": N_("cards"),
    "sheet_oros": N_("oros"),
    "sheet_sevens": N_("sevens"),
    "sheet_siete_oros": N_("7 of oros"),
    "sheet_escobas": N_("escobas"),
    "sheet_points": N_("points"),
    "sheet_game": N_("game"),
    "sheet_to": N_("game (to {n})"),
    "sheet_note": N_("Cards, oros and sevens: how many each side took. Escobas include the lucky deal's, shown "
                     "in brackets. Points: the hand's points; game: the running score."),
}


def page_words(lang: str) -> dict[str, str]:
    """Every word of the script, in ``lang``."""
    t = translation(lang)
    return {key: t.gettext(text) for key, text in WORDS.items()}
