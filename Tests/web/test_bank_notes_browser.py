"""A bank's private note and colour (issue 27): set from the bank's card, kept across a reload
(read back from the server, not from the page), the colour on the card as its stripe and the
note under its title as text; a note too long is refused with a sentence, before anything is
sent; the bank's own colour comes back on request. In every language the client speaks."""
import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from catalogue import LANGUAGES
from helpers import SHOTS, displayed, sign_up, text, wait
from page_words import assert_speaks

CARD = '#banks li[data-bank-card="world-capitals"]'
BLUE = "#2563eb"  # a swatch of the palette (web/js/bank-notes.js)


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def stripe(browser):
    """The card's stripe colour as the page paints it: "rgb(r, g, b)"."""
    return browser.execute_script("return getComputedStyle(document.querySelector(arguments[0])).borderLeftColor", CARD)


def dialog_open(browser):
    return browser.execute_script("return document.getElementById('bank-dialog').open")


def open_notes(browser):
    wait(browser, EC.element_to_be_clickable((By.CSS_SELECTOR, f"{CARD} button[data-notes]"))).click()
    wait(browser, dialog_open)


def sent_prefs(browser):
    """How many bank_pref_set requests the page sent so far (counted by a wrapper the test put on its client)."""
    return browser.execute_script("return window.__prefSets")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_note_and_a_colour_stay_after_a_reload_and_show_on_the_card(server, browser, cat, lang):
    sign_up(browser, server, f"notes{random.randint(0, 10**6)}")
    title = browser.execute_script(
        "return window.quizduel.state.banks.find((b) => b.slug === 'world-capitals').title")
    own = stripe(browser)
    assert own != "rgb(37, 99, 235)"
    browser.execute_script("""
        const c = window.quizduel.client, request = c.request;
        window.__prefSets = 0;
        c.request = function (op, ...rest) { if (op === "bank_pref_set") window.__prefSets++; return request.call(this, op, ...rest); };""")

    open_notes(browser)
    assert text(browser, "bank-dialog-title") == cat("bankPrefs.title", bank=title)
    assert browser.switch_to.active_element.get_attribute("id") == "bank-note"
    # Nothing chosen yet: the bank's own colour is ticked.
    assert browser.find_element(By.CSS_SELECTOR, "#bank-colors input:checked").get_attribute("value") == ""
    assert_speaks(browser, cat, "the notes dialog")

    # Too long: refused with a sentence, and nothing sent.
    browser.execute_script("const n = document.getElementById('bank-note'); n.value = 'é'.repeat(1001);"
                           "n.dispatchEvent(new Event('input', { bubbles: true }));")
    assert text(browser, "bank-note-count") == cat("bankPrefs.count", count=1001, max=1000)
    browser.find_element(By.ID, "bank-pref-save").click()
    wait(browser, lambda b: text(b, "bank-pref-error") == cat("bankPrefs.tooLong", count=1001, max=1000))
    assert text(browser, "bank-pref-error")[-1] in ".。" and dialog_open(browser) and sent_prefs(browser) == 0
    browser.save_screenshot(shot("bank-notes-too-long", lang))

    # A note of two lines (markup in it stays text) and the blue swatch.
    note = browser.find_element(By.ID, "bank-note")
    note.clear()
    note.send_keys("Capitals of <b>Africa</b>", Keys.SHIFT, Keys.ENTER, Keys.SHIFT, "still to learn")
    written = note.get_attribute("value")
    assert "\n" in written
    browser.find_element(By.CSS_SELECTOR, f'#bank-colors label.swatch:has(input[value="{BLUE}"])').click()
    assert browser.find_element(By.CSS_SELECTOR, "#bank-colors input:checked").get_attribute("value") == BLUE
    browser.save_screenshot(shot("bank-notes", lang))
    browser.find_element(By.ID, "bank-pref-save").click()
    wait(browser, lambda b: not dialog_open(b))
    assert text(browser, "home-note") == cat("bankPrefs.saved", bank=title)
    assert sent_prefs(browser) == 1
    # The focus is back on the button that opened the dialog.
    assert browser.switch_to.active_element.get_attribute("data-notes") == "world-capitals"
    wait(browser, lambda b: stripe(b) == "rgb(37, 99, 235)")

    # A reload: the page knows nothing but its token; the note and the colour come from the server.
    browser.refresh()
    wait(browser, lambda b: displayed(b, "screen-home") and b.find_elements(By.CSS_SELECTOR, CARD))
    wait(browser, lambda b: stripe(b) == "rgb(37, 99, 235)")
    shown = wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, f'{CARD} [data-note="world-capitals"]')))
    assert "Capitals of <b>Africa</b>" in shown.text and "still to learn" in shown.text
    assert not browser.find_elements(By.CSS_SELECTOR, f"{CARD} .bank-note b")  # text, never HTML
    assert_speaks(browser, cat, "home with a note")
    browser.save_screenshot(shot("bank-notes-card", lang))
    open_notes(browser)
    assert browser.find_element(By.ID, "bank-note").get_attribute("value") == written
    assert browser.find_element(By.CSS_SELECTOR, "#bank-colors input:checked").get_attribute("value") == BLUE

    # Back to the bank's own colour, and the note cleared: the card as it was.
    browser.find_element(By.CSS_SELECTOR, '#bank-colors label.swatch:has(input[value=""])').click()
    browser.find_element(By.ID, "bank-note").clear()
    browser.find_element(By.ID, "bank-pref-save").click()
    wait(browser, lambda b: not dialog_open(b) and stripe(b) == own)
    assert not browser.find_elements(By.CSS_SELECTOR, f'{CARD} [data-note]')
