"""Practice through the web client: a bank alone, and the mistakes notebook until it is learned."""
import random

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from helpers import (SHOTS, choice, click_choice, displayed, duel_id, duel_state, end_screen, go_to, matched_pair,
                     picked_wrong, question_open, revealed, shown_red, sign_up, text, wait, watch_for_red)


def practice_started(browser, previous=None):
    """Waits for the game screen of a new practice game (not `previous`) and returns its id."""
    wait(browser, lambda b: duel_id(b) not in (None, previous) and displayed(b, "screen-duel"))
    d = duel_state(browser)
    assert d["mode"] == "practice" and d["rated"] is False and len(d["players"]) == 1
    # Adapted for one player: no opponent, a "Practice" tag instead.
    wait(browser, lambda b: displayed(b, "solo-box"))
    assert not displayed(browser, "opp-box")
    assert "Practice" in text(browser, "solo-box") and "not rated" in text(browser, "solo-box")
    assert browser.execute_script("return document.getElementById('duel-title').textContent") == "Practice"
    return duel_id(browser)


def open_mistakes(browser):
    go_to(browser, "mistakes")  # under Profile (issue 27: five tabs at most)
    wait(browser, lambda b: displayed(b, "screen-mistakes") and text(b, "learned").endswith("learned"))


def test_practice_a_bank_alone(server, browser):
    # A small phone's viewport (headless Chrome's window is at least 500 px wide).
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
    tag = random.randint(0, 10**6)
    sign_up(browser, server, f"solo{tag}")
    practice = browser.find_element(By.CSS_SELECTOR, '#banks button[data-practice="world-capitals"]')
    assert practice.text == "Practice" and "not rated" in practice.get_attribute("aria-label")
    browser.save_screenshot(str(SHOTS / "practice-home.png"))

    # A whole practice game, every question answered right through the UI.
    practice.click()
    duel = practice_started(browser)
    wait(browser, EC.visibility_of_element_located((By.ID, "countdown")))
    browser.save_screenshot(str(SHOTS / "practice-countdown.png"))
    count = duel_state(browser)["question_count"]
    assert count == 3
    for i in range(count):
        wait(browser, question_open(browser, i), timeout=10)
        assert not displayed(browser, "opponent-state") and displayed(browser, "end-practice")
        if i == 0:
            browser.save_screenshot(str(SHOTS / "practice-question.png"))
        right = server.correct_choice(duel, i)
        watch_for_red(browser, right)
        click_choice(browser, right)
        wait(browser, revealed(browser, i))
        wait(browser, lambda b: "picked-right" in choice(b, right).get_attribute("class"))
        assert "picked-wrong" not in choice(browser, right).get_attribute("class")
        # Never red, not even for a moment (the answer's reply may come before its event).
        assert not shown_red(browser)
        assert "Correct" in text(browser, "verdict")
        if i == 0:
            browser.save_screenshot(str(SHOTS / "practice-reveal.png"))
    title, score, rating = end_screen(browser)
    assert title == "Practice complete"
    assert score.startswith("Score ") and int(score.split()[1]) >= 3 * 110 and "3 of 3 right" in score
    assert rating == "Practice: not rated"
    assert text(browser, "again") == "Practise again" and text(browser, "back") == "Back"
    browser.save_screenshot(str(SHOTS / "practice-end.png"))

    # Again: alone, a wrong answer reveals the question at once; "End practice" stops the game.
    browser.find_element(By.ID, "again").click()
    second = practice_started(browser, duel)
    wait(browser, question_open(browser, 0), timeout=10)
    right = server.correct_choice(second, 0)
    wrong = (right + 1) % len(duel_state(browser)["question"]["choices"])
    click_choice(browser, wrong)
    wait(browser, revealed(browser, 0), timeout=3)  # well before the 6 s deadline
    assert "picked-wrong" in choice(browser, wrong).get_attribute("class")
    assert picked_wrong(browser, wrong)
    assert "correct" in choice(browser, right).get_attribute("class").split()
    assert text(browser, "verdict") == "Wrong"
    browser.save_screenshot(str(SHOTS / "practice-wrong.png"))
    wait(browser, question_open(browser, 1), timeout=10)
    browser.find_element(By.ID, "end-practice").click()
    title, score, rating = end_screen(browser)
    assert title == "Practice ended" and "0 of 3 right" in score and rating == "Practice: not rated"
    browser.find_element(By.ID, "back").click()
    wait(browser, lambda b: displayed(b, "screen-home"))

    # History lists the practice games (by the bank's title); the rating did not move; practice adds no mistakes.
    go_to(browser, "history")
    wait(browser, lambda b: text(b, "history").count("World capitals: practice") == 2)
    go_to(browser, "home")
    wait(browser, lambda b: "rating 1500" in text(b, "banks"))
    open_mistakes(browser)
    assert text(browser, "learned") == "0 learned" and "No mistakes yet." in text(browser, "mistakes")
    browser.find_element(By.ID, "practise-mistakes").click()
    wait(browser, lambda b: text(b, "mistakes-note") == "No mistakes left to practise — well done")
    assert displayed(browser, "screen-mistakes")
    browser.save_screenshot(str(SHOTS / "practice-no-mistakes.png"))


def test_practising_mistakes_learns_them(server, browsers):
    a, b = browsers

    # A ranked duel (unchanged): A misses question 0 and is right first on the others.
    duel, _ = matched_pair(server, browsers, ("lea", "teo"))
    assert a.find_element(By.ID, "opp-box").is_displayed() and not a.find_element(By.ID, "solo-box").is_displayed()
    wait(a, question_open(a, 0))
    right = server.correct_choice(duel, 0)
    click_choice(a, (right + 1) % 4)
    wait(b, lambda x: "answered wrong" in text(x, "opponent-state"))
    click_choice(b, right)
    wait(a, revealed(a, 0))
    for i in (1, 2):
        wait(a, question_open(a, i), timeout=10)
        click_choice(a, server.correct_choice(duel, i))
        wait(a, revealed(a, i))
    for x in (a, b):
        wait(x, EC.visibility_of_element_located((By.ID, "screen-end")), timeout=15)
    assert "Rating 1500 →" in text(a, "end-rating") and text(a, "again") == "Play again"
    # Two right answers (at least 2 × 100) beat one (at most 160).
    assert text(a, "end-title") == "You win!" and text(b, "end-title") == "You lose"
    missed = server.sql("SELECT q.prompt FROM duel_questions dq JOIN questions q ON q.id = dq.question_id "
                        f"WHERE dq.duel_id = '{duel}' AND dq.question_index = 0")

    # The notebook holds it; practising it once is not enough, twice learns it.
    open_mistakes(a)
    assert missed in text(a, "mistakes") and text(a, "learned") == "0 learned"
    assert a.find_element(By.ID, "practise-mistakes").text == "Practise my mistakes"
    a.save_screenshot(str(SHOTS / "practice-mistakes.png"))
    previous = duel
    for round_ in (1, 2):
        a.find_element(By.ID, "practise-mistakes").click()
        game = practice_started(a, previous)
        previous = game
        assert duel_state(a)["question_count"] == 1
        wait(a, question_open(a, 0), timeout=10)
        assert duel_state(a)["question"]["prompt"] == missed
        click_choice(a, server.correct_choice(game, 0))
        wait(a, revealed(a, 0))
        title, score, rating = end_screen(a)
        assert title == "Practice complete" and "1 of 1 right" in score and rating == "Practice: not rated"
        # Back from a practice of mistakes leads to the notebook, read afresh.
        a.find_element(By.ID, "back").click()
        wait(a, lambda x: displayed(x, "screen-mistakes") and text(x, "learned").endswith("learned"))
        if round_ == 1:
            assert missed in text(a, "mistakes") and text(a, "learned") == "0 learned"
    wait(a, lambda x: text(x, "learned") == "1 learned")
    assert missed not in text(a, "mistakes")
    assert "Nothing left to practise" in text(a, "mistakes")
    a.save_screenshot(str(SHOTS / "practice-learned.png"))
    a.find_element(By.ID, "practise-mistakes").click()
    wait(a, lambda x: text(x, "mistakes-note") == "No mistakes left to practise — well done")
