"""Rooms and challenges through the web client: three browsers join one room by its link and
play a game, then a rematch; a challenge is accepted from the inbox. Both run in each of the
client's languages: the page's words are looked up in its catalogue, and the screens on the way
are checked for raw keys and (in zh and de) English."""
import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from catalogue import LANGUAGES
from helpers import (SHOTS, click_choice, displayed, duel_id, duel_state, end_screen, question_open, revealed,
                     sign_up, text, wait)
from page_words import assert_speaks


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def open_friends(browser):
    browser.find_element(By.CSS_SELECTOR, 'button[data-go="friends"]').click()
    wait(browser, lambda b: displayed(b, "screen-friends"))


def sign_up_at(browser, url, name):
    """Signs up on the page at `url` (a room link keeps its ?room= until sign-in)."""
    browser.get(url)
    wait(browser, EC.visibility_of_element_located((By.ID, "username"))).send_keys(name)
    browser.find_element(By.ID, "password").send_keys("a good password")
    browser.find_element(By.ID, "signup").click()


def members(browser):
    return len(browser.find_elements(By.CSS_SELECTOR, "#seats li[data-member]"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_three_browsers_join_a_room_by_link_play_and_rematch(server, trio, cat, lang):
    host, b, c = trio
    tag = random.randint(0, 10**6)
    sign_up(host, server, f"host{tag}")
    open_friends(host)
    assert_speaks(host, cat, "friends")
    host.find_element(By.CSS_SELECTOR, '#room-bank option[value="world-capitals"]').click()
    host.find_element(By.CSS_SELECTOR, '#room-size option[value="3"]').click()
    host.find_element(By.CSS_SELECTOR, '#room-questions option[value="3"]').click()
    host.find_element(By.ID, "room-create").click()
    wait(host, lambda x: displayed(x, "screen-room") and members(x) == 1)
    link = host.find_element(By.ID, "room-link").get_attribute("href")
    code = text(host, "room-code-shown")
    assert link.endswith(f"/?room={code}") and len(code) == 6
    # Two empty seats wait, and Start waits for a friend.
    assert len(host.find_elements(By.CSS_SELECTOR, "#seats li.empty")) == 2
    assert not host.find_element(By.ID, "room-start").is_enabled()
    assert_speaks(host, cat, "room lobby (host, alone)")

    for browser, name in ((b, f"bee{tag}"), (c, f"cee{tag}")):
        sign_up_at(browser, link, name)
        wait(browser, lambda x: displayed(x, "screen-room"))
    wait(host, lambda x: members(x) == 3)
    for browser in trio:
        wait(browser, lambda x: members(x) == 3)
    assert not displayed(b, "room-start") and text(b, "room-note") == cat("room.hostStarts")
    assert_speaks(host, cat, "room lobby (host)")
    assert_speaks(b, cat, "room lobby (guest)")
    host.save_screenshot(shot("room-lobby", lang))

    host.find_element(By.ID, "room-start").click()
    for browser in trio:
        wait(browser, lambda x: displayed(x, "screen-duel") and duel_state(x) and len(duel_state(x)["players"]) == 3)
    duel = duel_id(host)
    assert duel_id(b) == duel == duel_id(c)
    assert duel_state(host)["mode"] == "room" and duel_state(host)["rated"] is False
    assert displayed(host, "board") and not displayed(host, "pair-board")
    for i in range(3):
        for browser in trio:
            wait(browser, question_open(browser, i), timeout=15)
        right = server.correct_choice(duel, i)
        options = len(duel_state(host)["question"]["choices"])
        click_choice(b, (right + 1) % options)
        # Everyone sees that b answered (a tick), never what.
        wait(c, lambda x: len(x.find_elements(By.CSS_SELECTOR, "#board li .done")) and
             x.find_element(By.CSS_SELECTOR, f'#board li[data-player="{duel_state(x)["players"][1]["id"]}"] .done').text == "✓")
        if i == 0:
            assert_speaks(c, cat, "room question")
            c.save_screenshot(shot("room-question", lang))
        click_choice(c, (right + 1) % options)
        click_choice(host, right)
        for browser in trio:
            wait(browser, revealed(browser, i), timeout=15)
    titles = [end_screen(x, timeout=20)[0] for x in trio]
    assert titles == [cat("end.youWin"), cat("end.youLost"), cat("end.youLost")]
    assert text(host, "end-places").startswith("1. host")
    host.save_screenshot(shot("room-end", lang))
    assert text(b, "end-note") == cat("end.waitingForHost")
    assert_speaks(host, cat, "room end (host)")
    assert_speaks(b, cat, "room end (guest)")

    # The rematch: the host's "Rematch" starts the next game for all three.
    assert host.find_element(By.ID, "again").text == cat("end.rematch")
    host.find_element(By.ID, "again").click()
    for browser in trio:
        wait(browser, lambda x: displayed(x, "screen-duel") and duel_id(x) not in (None, duel))
    assert duel_id(host) == duel_id(b) == duel_id(c)
    second = duel_id(host)
    repeated = server.sql("SELECT count(*) FROM duel_questions a JOIN duel_questions b ON a.question_id = b.question_id "
                          f"WHERE a.duel_id = '{duel}' AND b.duel_id = '{second}'")
    assert repeated == "0"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_challenge_is_accepted_from_the_inbox(server, browsers, cat, lang):
    a, b = browsers
    tag = random.randint(0, 10**6)
    sign_up(a, server, f"chal{tag}")
    sign_up(b, server, f"target{tag}")
    open_friends(a)
    a.find_element(By.ID, "challenge-name").send_keys(f"target{tag}")
    a.find_element(By.CSS_SELECTOR, '#challenge-bank option[value="world-capitals"]').click()
    a.find_element(By.ID, "challenge-send").click()
    wait(a, lambda x: text(x, "friends-note") == cat("friends.sent", name=f"target{tag}"))
    assert_speaks(a, cat, "challenge sent")
    # The badge appears live on b's screen.
    wait(b, lambda x: displayed(x, "inbox-badge") and text(x, "inbox-badge") == "1")
    b.save_screenshot(shot("challenge-badge", lang))
    open_friends(b)
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#inbox button[data-accept]"))
    title = b.execute_script("return window.quizduel.state.banks.find((b) => b.slug === 'world-capitals').title")
    assert cat("friends.inboxReceived", name=f"chal{tag}", bank=title) in text(b, "inbox")
    assert_speaks(b, cat, "inbox")
    b.save_screenshot(shot("challenge-inbox", lang))
    b.find_element(By.CSS_SELECTOR, "#inbox button[data-accept]").click()
    for browser in browsers:
        wait(browser, lambda x: displayed(x, "screen-duel") and duel_state(x) and duel_state(x)["mode"] == "challenge")
    assert duel_id(a) == duel_id(b)
    wait(b, lambda x: not displayed(x, "inbox-badge"))
