"""Luck or play, in a real headless Chromium: at the end of a hand the page draws the person's luck ledger as a
bridge chart (numbers that add up from the expected margin to the result, and a sentence reading it) without
holding up the next hand; between hands the game's score sheet has a row per hand and side; at the game's end
the game's ledger has a group per hand and the total. At desktop and phone widths nothing overflows. The
screenshots go to the test's folder and, when ESCOBA_SIM_SHOTS names a folder, there too."""

import os
import re
import shutil
from pathlib import Path

import pytest
import test_page_browser
from test_page_browser import assert_readable, open_page, play_to_the_end, start_game, wait_idle

server, browser = test_page_browser.server, test_page_browser.browser  # its fixtures: the server, the browser

pytestmark = pytest.mark.core("the ledger's evaluator")

NUMBER = re.compile(r"^[+\-−]?\d+([.,]\d\d)?$")


def shot(page, tmp_path, name):
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    folder = os.environ.get("ESCOBA_SIM_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / name)


def parse(text):
    return float(text.replace("−", "-").replace(",", "."))


def hand_over(page):
    return page.is_visible("#analyse")


def assert_fits(page, width, selector):
    box = page.locator(selector).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box)
    inner = page.locator(selector).evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert inner[0] <= inner[1], (selector, inner)


def assert_the_chart(page, lang):
    page.wait_for_selector("#ledger-chart .row.result", timeout=90000)
    rows = page.locator("#ledger-chart .row")
    numbers = rows.locator(".number").all_inner_texts()
    assert all(NUMBER.match(n) for n in numbers), numbers
    assert len(numbers) >= 5  # expected, the deal, a round, decisions, others, ..., result
    # the bridge adds up: expected + every step = the result (each shown to 2 places)
    steps = [parse(n) for n in numbers]
    assert sum(steps[:-1]) == pytest.approx(steps[-1], abs=0.01 * len(steps))
    labels = rows.locator(".label").all_inner_texts()
    first, last = ("expected before the deal", "result") if lang == "en" else ("esperado antes del reparto",
                                                                                  "resultado")
    assert labels[0] == first and labels[-1] == last, labels
    assert rows.locator(".bar").count() == len(numbers)
    reading = page.inner_text("#ledger-reading")
    assert ("the cards" in reading.lower() and "decisions" in reading) if lang == "en" else "cartas" in reading
    assert page.locator("#ledger-chart .row.gain, #ledger-chart .row.loss").count() >= 3


def assert_the_sheet(page, hands):
    assert page.locator("#sheet tbody tr.hand-row").count() == hands
    assert page.locator("#sheet tbody tr.side-row").count() == 2 * hands
    points = [int(t) for t in page.locator("#sheet tbody tr.side-row td.col-points").all_inner_texts()]
    running = [int(t) for t in page.locator("#sheet tbody tr.side-row td.col-running").all_inner_texts()]
    # side 0's row then side 1's, hand by hand: the last rows' running score is the game's, shown in the piles
    mine, theirs = sum(points[0::2]), sum(points[1::2])
    assert running[-2:] == [mine, theirs]
    score = page.locator("#piles tr:last-child td").all_inner_texts()
    assert [int(s) for s in score] == [mine, theirs]


@pytest.mark.parametrize("width,height,lang", [(1280, 800, "en"), (390, 844, "es")])
def test_the_ledger_chart_the_sheet_and_the_games_ledger(server, browser, tmp_path, width, height, lang):
    url, _ = server
    page = open_page(browser, url, width, height, lang)
    start_game(page, vs="greedy", rules="ludoteka")
    play_to_the_end(page, until=hand_over)
    assert page.is_visible("#ledger")
    assert_the_sheet(page, 1)
    assert_the_chart(page, lang)
    shot(page, tmp_path, f"hand-{width}.png")
    assert_readable(page, width)
    for selector in ("#ledger", "#sheet-box", "#sheet-box .scroll", "#ledger-chart"):
        assert_fits(page, width, selector)
    hands = 1
    while page.is_visible("#next"):
        page.click("#next")  # dealt at once, the ledger of the hand before computing or not
        page.wait_for_selector("#hand .card-button, #choices .choice")
        wait_idle(page)
        assert page.is_hidden("#ledger")
        play_to_the_end(page, until=hand_over)
        hands += 1
        assert_the_sheet(page, hands)
        assert hands < 30
    # the game is over: the game's ledger, a group per hand and the game's
    page.wait_for_selector("#game-ledger-chart .game-total", timeout=180000)
    groups = page.eval_on_selector_all("#game-ledger-chart .group", """gs => gs.map(g => [...g.querySelectorAll(".row")]
        .map(r => [r.classList[1], r.querySelector(".number").textContent]))""")
    assert len(groups) == hands + 1
    assert all([k for k, _ in g] == ["luck", "decisions", "others"] for g in groups[:-1]), groups
    numbers = [n for g in groups for _, n in g]
    assert all(NUMBER.match(n) for n in numbers), numbers
    # the game's bars are the sums of the hands', and with the expected margins (and the noise) they add up to
    # the game's points margin, the difference of the scores in the piles' table
    game = {k: parse(n) for k, n in groups[-1]}
    for k in ("luck", "decisions", "others"):
        assert sum(parse(dict(g)[k]) for g in groups[:-1]) == pytest.approx(game[k], abs=0.01 * hands + 0.01)
    score = [int(s) for s in page.locator("#piles tr:last-child td").all_inner_texts()]
    margin = score[0] - score[1]
    assert sum(game.values()) == pytest.approx(margin, abs=0.05)
    reading = page.inner_text("#game-ledger-reading")
    shown = f"{margin:+d}" if margin else "0"
    assert shown in reading and str(score[0]) in reading, reading
    assert_the_chart(page, lang)
    shot(page, tmp_path, f"game-{width}.png")
    for selector in ("#ledger", "#sheet-box", "#sheet-box .scroll", "#game-ledger", "#game-ledger-chart"):
        assert_fits(page, width, selector)
    assert_readable(page, width)
    assert page.errors == []


def test_the_game_goes_on_while_the_ledger_computes_and_a_failure_is_a_message(server, browser):
    url, _ = server
    page = open_page(browser, url, 1280, 800)
    held = []  # the ledger requests, answered when the test says
    page.route("**/api/records/*/ledger", lambda route: held.append(route))
    start_game(page, vs="greedy", rules="ludoteka")
    play_to_the_end(page, until=hand_over)
    page.wait_for_function("() => document.querySelector('#ledger-status').textContent.length > 0")
    assert len(held) == 1 and "Computing the luck ledger" in page.inner_text("#ledger-status")
    assert page.locator("#ledger-chart .row").count() == 0
    page.click("#next")  # while the ledger computes, the next hand is dealt
    page.wait_for_selector("#hand .card-button, #choices .choice")
    wait_idle(page)
    assert page.is_hidden("#ledger") and page.inner_text("#stock").startswith("hand 2")
    held[0].fulfill(status=200, content_type="application/json", body="{}")  # too late: drawn nowhere
    play_to_the_end(page, until=hand_over)
    for _ in range(100):
        if len(held) == 2:
            break
        page.wait_for_timeout(50)
    held[1].fulfill(status=422, content_type="application/json", body='{"error": "the saved record is not a hand record"}')
    page.wait_for_function("() => document.querySelector('#ledger-status').textContent.includes('could not')")
    assert page.inner_text("#ledger-status") == ("The luck ledger could not be computed: the saved record is not a "
                                                 "hand record")
    assert page.locator("#ledger-chart .row").count() == 0 and page.is_hidden("#error")
    assert page.locator("#sheet tbody tr.side-row").count() == 4
    assert [e for e in page.errors if "Failed to load resource" not in e] == []
