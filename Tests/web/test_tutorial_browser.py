"""The first-start tour, in each of the client's languages: three steps shown once, after a
newcomer's sign-up, as a modal dialog worked by keyboard (focus on Next, Tab kept inside, focus
back where it was); not shown again after a reload; replayed from Profile, where Escape and
Skip close it."""
import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from catalogue import LANGUAGES
from helpers import SHOTS, displayed, go_to, sign_up, text, wait
from page_words import assert_speaks

STEPS = ("tutorial.pick", "tutorial.race", "tutorial.grow")


def tour_open(browser):
    return browser.execute_script("return document.getElementById('tutorial').open")


def focused(browser):
    return browser.execute_script("return document.activeElement && document.activeElement.id")


def on_step(browser, cat, n):
    """The tour shows step `n` (0-based): its count, title and text, and the right buttons."""
    return (text(browser, "tutorial-count") == cat("tutorial.step", n=n + 1, count=3)
            and text(browser, "tutorial-title") == cat(f"{STEPS[n]}.title")
            and text(browser, "tutorial-text") == cat(f"{STEPS[n]}.text")
            and displayed(browser, "tutorial-back") == (n > 0)
            and text(browser, "tutorial-next") == cat("tutorial.done" if n == 2 else "tutorial.next"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_tour_shows_once_and_replays_from_the_profile(server, newcomer, cat, lang):
    browser = newcomer
    sign_up(browser, server, f"new{random.randint(0, 10**6)}")
    # The first home screen: the tour, modal, on its first step, with the focus on Next.
    wait(browser, lambda b: tour_open(b) and on_step(b, cat, 0))
    assert focused(browser) == "tutorial-next"
    assert browser.execute_script("return document.getElementById('tutorial').matches(':modal')")
    assert_speaks(browser, cat, "tour, step 1")
    browser.save_screenshot(str(SHOTS / f"tutorial-{lang}.png"))
    # Tab never reaches the page behind (inert while the dialog is modal). Past the dialog's
    # last button the focus may go to the browser's own controls (the body, to the page) and
    # then comes back to the dialog: a modal <dialog> does not trap it in the page.
    inside = []
    for _ in range(6):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        where = browser.execute_script(
            "const a = document.activeElement;"
            "return a === document.body ? 'body' : document.getElementById('tutorial').contains(a) ? a.id : 'outside:' + a.outerHTML.slice(0, 80);")
        assert not where.startswith("outside"), where
        inside.append(where)
    assert {"tutorial-skip", "tutorial-next"} <= set(inside), inside
    # Keyboard alone: Enter on Next walks on, Back goes back (and Next keeps the focus when Back hides).
    browser.execute_script("document.getElementById('tutorial-next').focus()")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda b: on_step(b, cat, 1))
    assert_speaks(browser, cat, "tour, step 2")
    browser.find_element(By.ID, "tutorial-back").click()
    wait(browser, lambda b: on_step(b, cat, 0))
    assert focused(browser) == "tutorial-next"
    for n in (1, 2):
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        wait(browser, lambda b: on_step(b, cat, n))
    assert_speaks(browser, cat, "tour, step 3")
    # The last step's button closes it; the focus goes back to the home screen's heading.
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda b: not tour_open(b))
    # The dialog's `close` event, which remembers the tour as seen, is queued after close()
    # returns (the browser itself may already have put the focus back): wait for it.
    seen = "return localStorage.getItem('quizduel.tutorial')"
    wait(browser, lambda b: b.execute_script(seen) == "seen")
    assert focused(browser) == "home-title"
    assert browser.execute_script(seen) == "seen"

    # Not again after a reload: the home screen draws its banks, then would open the tour.
    browser.refresh()
    wait(browser, lambda b: displayed(b, "screen-home") and b.find_elements(By.CSS_SELECTOR, "#banks button[data-bank]"))
    assert not tour_open(browser)

    # Replayed from the profile, from its first step; Escape closes it, back to the button.
    go_to(browser, "profile")
    browser.find_element(By.ID, "tutorial-replay").click()
    wait(browser, lambda b: tour_open(b) and on_step(b, cat, 0))
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda b: on_step(b, cat, 1))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(browser, lambda b: not tour_open(b))
    assert focused(browser) == "tutorial-replay"
    # Opened again it starts over; Skip closes it.
    browser.find_element(By.ID, "tutorial-replay").click()
    wait(browser, lambda b: tour_open(b) and on_step(b, cat, 0))
    assert text(browser, "tutorial-skip") == cat("tutorial.skip")
    browser.find_element(By.ID, "tutorial-skip").click()
    wait(browser, lambda b: not tour_open(b))
    assert displayed(browser, "screen-profile")
