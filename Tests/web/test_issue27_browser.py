"""Issue 27 in the browser: a newcomer's first choice is Sign up and Enter submits the form they
are in; errors read as sentences; a lone player waiting for a duel sees the time waited and is
offered practice; the select-then-submit setting; Forfeit asks first and is the only way out of
a duel; the client in German and Simplified Chinese, remembered across a reload; nothing wider
than a 360 px phone."""
import random

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from helpers import (SHOTS, click_choice, displayed, duel_id, duel_state, end_screen, go_to, question_open, sign_up, text,
                     wait)


def open_settings(browser):
    go_to(browser, "profile")
    if not browser.find_element(By.ID, "settings").get_attribute("open"):
        browser.find_element(By.CSS_SELECTOR, "#settings summary").click()
    wait(browser, lambda b: b.find_element(By.ID, "answer-mode").is_displayed())


def test_sign_up_comes_first_enter_submits_and_errors_are_sentences(server, browser):
    tag = random.randint(0, 10**6)
    browser.get(server.url)
    field = wait(browser, EC.visibility_of_element_located((By.ID, "username")))
    # A newcomer sees Sign up, as the primary button; Log in is a link away.
    assert displayed(browser, "signup-form") and not displayed(browser, "login-form")
    assert "primary" in browser.find_element(By.ID, "signup").get_attribute("class").split()
    browser.save_screenshot(str(SHOTS / "i27-signup.png"))
    # The server's rules, said in words before asking it.
    field.send_keys("x")
    browser.find_element(By.ID, "password").send_keys("a good password", Keys.ENTER)
    wait(browser, lambda b: text(b, "auth-error").startswith("Pick a username"))
    field.clear()
    field.send_keys(f"enter{tag}")
    browser.find_element(By.ID, "password").send_keys(Keys.ENTER)  # Enter signs up: the form the player is in
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]')))
    banks = text(browser, "banks")
    assert "1 questions" not in banks and "questions" in banks
    assert browser.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').text == "Duel"

    # Log out: this device saw a player, so Log in comes first now; a wrong password is a sentence.
    open_settings(browser)
    browser.find_element(By.ID, "logout").click()
    wait(browser, lambda b: displayed(b, "login-form") and not displayed(b, "signup-form"))
    browser.find_element(By.ID, "login-username").send_keys(f"enter{tag}")
    browser.find_element(By.ID, "login-password").send_keys("not the password", Keys.ENTER)
    wait(browser, lambda b: text(b, "auth-error") == "Wrong username or password.")
    password = browser.find_element(By.ID, "login-password")
    password.clear()
    password.send_keys("a good password", Keys.ENTER)
    wait(browser, lambda b: displayed(b, "screen-home"))


def test_a_lone_player_sees_the_wait_and_is_offered_practice(server, browser):
    sign_up(browser, server, f"alone{random.randint(0, 10**6)}")
    browser.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    wait(browser, lambda b: displayed(b, "screen-matching"))
    wait(browser, lambda b: text(b, "matching-time").startswith("Waiting for 0:0"))
    assert not displayed(browser, "matching-offers")
    wait(browser, lambda b: displayed(b, "matching-offers"), timeout=10)
    browser.save_screenshot(str(SHOTS / "i27-matching-offers.png"))
    browser.find_element(By.ID, "matching-practice").click()
    wait(browser, lambda b: displayed(b, "screen-duel") and duel_state(b) and duel_state(b)["mode"] == "practice")
    assert duel_state(browser)["bank"] == "world-capitals"


def test_select_then_submit_and_forfeit_with_a_confirmation(server, browsers):
    a, b = browsers
    tag = random.randint(0, 10**6)
    sign_up(a, server, f"sel{tag}")
    open_settings(a)
    Select(a.find_element(By.ID, "answer-mode")).select_by_value("confirm")
    go_to(a, "home")
    sign_up(b, server, f"quit{tag}")
    for x in (a, b):
        x.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    for x in (a, b):
        wait(x, lambda y: displayed(y, "screen-duel"))
        # During a game: no tab bar, no bell; only Forfeit leaves it.
        assert not displayed(x, "nav") and not displayed(x, "bell")
    duel = duel_id(a)
    wait(a, question_open(a, 0))
    wait(b, question_open(b, 0))
    assert displayed(b, "forfeit")
    right = server.correct_choice(duel, 0)
    # A tap selects; nothing is sent until Submit.
    click_choice(a, right)
    wait(a, lambda x: "selected" in x.find_element(By.CSS_SELECTOR, f'#choices button[data-choice="{right}"]').get_attribute("class"))
    assert a.execute_script("return window.quizduel.state.myPick") is None
    a.save_screenshot(str(SHOTS / "i27-selected.png"))
    a.find_element(By.ID, "submit-answer").click()
    wait(a, lambda x: text(x, "verdict").startswith("Correct"))

    # Forfeit asks first: "Keep playing" keeps the game; confirming ends it, the opponent wins.
    wait(b, question_open(b, 1), timeout=10)
    b.find_element(By.ID, "forfeit").click()
    wait(b, lambda x: x.find_element(By.ID, "forfeit-dialog").is_displayed())
    assert "opponent wins" in text(b, "forfeit-text")
    b.save_screenshot(str(SHOTS / "i27-forfeit.png"))
    b.find_element(By.ID, "forfeit-cancel").click()
    wait(b, lambda x: not x.find_element(By.ID, "forfeit-dialog").is_displayed())
    assert displayed(b, "screen-duel")
    b.find_element(By.ID, "forfeit").click()
    wait(b, lambda x: x.find_element(By.ID, "forfeit-dialog").is_displayed())
    b.find_element(By.ID, "forfeit-confirm").click()
    title_a, _, _ = end_screen(a)
    title_b, score_b, _ = end_screen(b)
    assert title_a == "You win!" and title_b == "You lose" and "(forfeit)" in score_b
    # The end screen: placement and a recap of the questions seen.
    assert text(a, "end-place") == "Place 1 of 2"
    assert len(a.find_elements(By.CSS_SELECTOR, "#end-recap > li")) >= 1
    a.save_screenshot(str(SHOTS / "i27-end.png"))


def test_german_and_chinese_are_chosen_and_remembered(server, browser):
    browser.get(server.url)
    wait(browser, EC.visibility_of_element_located((By.ID, "username")))
    Select(browser.find_element(By.ID, "auth-lang")).select_by_value("de")
    wait(browser, lambda b: text(b, "signup") == "Registrieren")
    assert browser.execute_script("return document.documentElement.lang") == "de"
    sign_up(browser, server, f"deutsch{random.randint(0, 10**6)}")
    wait(browser, lambda b: text(b, "home-title") == "Wähle einen Fragenkatalog")
    assert browser.find_element(By.CSS_SELECTOR, '#banks button[data-practice="world-capitals"]').text == "Üben"
    browser.save_screenshot(str(SHOTS / "i27-home-de.png"))
    browser.refresh()  # remembered on this device
    wait(browser, lambda b: displayed(b, "screen-home") and text(b, "home-title") == "Wähle einen Fragenkatalog")
    open_settings(browser)
    Select(browser.find_element(By.ID, "lang")).select_by_value("zh-Hans")
    wait(browser, lambda b: text(b, "profile-title") == "我的")
    assert browser.find_element(By.CSS_SELECTOR, '#nav button[data-go="home"]').text == "对战"
    browser.save_screenshot(str(SHOTS / "i27-profile-zh.png"))


def test_nothing_is_wider_than_a_small_phone(server, browser):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 360, "height": 640, "deviceScaleFactor": 1, "mobile": True})
    sign_up(browser, server, f"narrow{random.randint(0, 10**6)}")
    overflow = "const m = document.querySelector('main');" \
               "return [document.documentElement.scrollWidth, m.scrollWidth - m.clientWidth];"
    for screen in ("home", "quizzes", "friends", "leaderboard", "profile", "history", "mistakes", "notifications"):
        go_to(browser, screen)
        page, main = browser.execute_script(overflow)
        assert page <= 360 and main <= 0, f"{screen}: {page} px wide, main overflows by {main} px"
        browser.save_screenshot(str(SHOTS / f"i27-360-{screen}.png"))
    go_to(browser, "home")
    browser.find_element(By.CSS_SELECTOR, '#banks button[data-practice="world-capitals"]').click()
    wait(browser, question_open(browser, 0), timeout=10)
    page, main = browser.execute_script(overflow)
    assert page <= 360 and main <= 0
    # Every answer tile is a large tap target, inside the screen.
    for tile in browser.find_elements(By.CSS_SELECTOR, "#choices button.tile"):
        box = tile.rect
        assert box["height"] >= 48 and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    browser.save_screenshot(str(SHOTS / "i27-360-question.png"))
