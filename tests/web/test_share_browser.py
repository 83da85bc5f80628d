"""A hand shared as a link, in a real headless Chromium: a hand played by clicks, Share copies
``http://HOST/#hand=NOTATION``, and that link opened in a new page (desktop and phone) shows the same deal, the
same moves, the same score and the same analysis; a pasted link or notation opens it too, and a bad one is one
error line. The screenshots are written to the test's folder (``--basetemp`` keeps them)."""

import json

import pytest
import test_page_browser
from test_page_browser import assert_readable, open_page, play_to_the_end, start_game, wait_idle

server, browser = test_page_browser.server, test_page_browser.browser  # its fixtures: the server, the browser

pytestmark = pytest.mark.core("the analysis evaluator")


def analysis_rows(page):
    page.wait_for_selector("#analysis-table tbody tr", timeout=60000)
    wait_idle(page)
    return page.eval_on_selector_all("#analysis-table tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def assert_shows_the_hand(page, record):
    page.wait_for_selector("#shared:not([hidden])")
    assert page.inner_text("#shared-deck").split() == record["deck"].split()
    log = page.eval_on_selector_all("#shared-log li:not(.deal):not(.lucky)", "els => els.map(e => e.textContent)")
    assert len(log) == len(record["moves"])
    for line, move in zip(log, record["moves"]):
        assert f"seat {move['player']}" in line and move["card"] in line, (line, move)
        assert all(c in line for c in move["take"]), (line, move)
        assert ("blows" in line) == bool(move.get("soplar")), (line, move)
    totals = page.eval_on_selector_all("#shared-score tr:last-child td", "els => els.map(e => e.textContent)")
    assert totals == [str(side["total"]) for side in record["score"]]
    assert record["rules"] in page.inner_text("#shared-about")
    assert f"seed {record['seed']}," in page.inner_text("#shared-about")  # all 64 bits, not a rounded float


def test_a_shared_link_opens_the_same_hand_and_analysis_on_desktop_and_phone(server, browser, tmp_path):
    url, out = server
    page = open_page(browser, url, 1280, 800, clipboard=True)
    start_game(page, vs="random", rules="tradicional")
    play_to_the_end(page)
    assert page.is_visible("#share") and page.is_hidden("#share-box")
    page.click("#share")
    page.wait_for_selector("#share-box:not([hidden])")
    wait_idle(page)
    link = page.input_value("#share-link")
    assert link.startswith(f"{url}/#hand=escoba1/tradicional/")
    assert page.evaluate("navigator.clipboard.readText()") == link  # the button copied it
    assert "Link copied" in page.inner_text("#share-said")
    page.screenshot(path=str(tmp_path / "share-desktop.png"), full_page=True)

    name = page.get_attribute("#download", "download")
    record = json.loads((out / name).read_text())
    page.set_input_files("#upload", str(out / name))  # the saved record's analysis, every seat
    page.wait_for_selector("#analysis-table tbody td:nth-child(2):text-is('1')", timeout=60000)
    expected = analysis_rows(page)
    assert page.errors == []

    for width, height, shot in ((1280, 800, "shared-desktop.png"), (390, 844, "shared-phone.png")):
        other = open_page(browser, url, width, height, clipboard=True)
        other.goto(link)
        assert_shows_the_hand(other, record)
        assert analysis_rows(other) == expected
        assert_readable(other, width)
        other.screenshot(path=str(tmp_path / shot), full_page=True)
        assert other.errors == []
        other.context.close()
    page.context.close()


def test_without_the_clipboard_the_link_is_shown_to_copy_and_a_pasted_link_or_notation_opens(server, browser):
    url, out = server
    page = open_page(browser, url, 390, 844, lang="es")
    start_game(page, vs="greedy")
    play_to_the_end(page)
    page.click("#share")
    page.wait_for_selector("#share-box:not([hidden])")
    wait_idle(page)
    link = page.input_value("#share-link")
    assert "#hand=escoba1/" in link and "Copia este enlace" in page.inner_text("#share-said")
    assert_readable(page, 390)
    record = json.loads((out / page.get_attribute("#download", "download")).read_text())
    for pasted in (link, link.split("#hand=")[1]):
        page.fill("#notation-text", pasted)
        page.click("#open-notation")
        page.wait_for_selector("#shared:not([hidden])")
        analysis_rows(page)
        assert page.inner_text("#shared-deck").split() == record["deck"].split()
        assert "Una mano compartida" in page.inner_text("#shared")
    assert page.errors == []
    page.context.close()


def test_a_bad_link_is_one_error_line_and_opens_nothing(server, browser):
    url, _ = server
    page = open_page(browser, url, 1280, 800, clipboard=True)
    page.goto(f"{url}/#hand=escoba1/evil.toml/d0/" + "7o" * 40 + "/-")
    page.wait_for_selector("#error:not([hidden])")
    assert "rules" in page.inner_text("#error") and "\n" not in page.inner_text("#error").strip()
    assert page.is_hidden("#shared") and page.is_hidden("#analysis")
    assert not [e for e in page.errors if "422" not in e]  # only the refused request, said by the browser
    page.context.close()
