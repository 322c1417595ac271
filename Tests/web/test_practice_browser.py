"""Practice through the web client: a bank alone, and the mistakes notebook until it is learned.
Both run in each of the client's languages: the page's words are looked up in its catalogue, and
the screens on the way are checked for raw keys and (in zh and de) English."""
import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from catalogue import LANGUAGES
from helpers import (SHOTS, choice, click_choice, displayed, duel_id, duel_state, end_screen, go_to, matched_pair,
                     picked_wrong, question_open, revealed, shown_red, sign_up, text, wait, watch_for_red)
from page_words import assert_speaks


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def practice_started(browser, cat, previous=None):
    """Waits for the game screen of a new practice game (not `previous`) and returns its id."""
    wait(browser, lambda b: duel_id(b) not in (None, previous) and displayed(b, "screen-duel"))
    d = duel_state(browser)
    assert d["mode"] == "practice" and d["rated"] is False and len(d["players"]) == 1
    # Adapted for one player: no opponent, a "Practice" tag instead.
    wait(browser, lambda b: displayed(b, "solo-box"))
    assert not displayed(browser, "opp-box")
    assert cat("duel.practice") in text(browser, "solo-box") and cat("duel.notRated") in text(browser, "solo-box")
    assert browser.execute_script("return document.getElementById('duel-title').textContent") == cat("duel.practice")
    return duel_id(browser)


def open_mistakes(browser, cat):
    go_to(browser, "mistakes")  # under Profile (issue 27: five tabs at most)
    wait(browser, lambda b: displayed(b, "screen-mistakes") and cat.pattern("mistakes.learned").fullmatch(text(b, "learned")))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_practice_a_bank_alone(server, browser, cat, lang):
    # A small phone's viewport (headless Chrome's window is at least 500 px wide).
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
    tag = random.randint(0, 10**6)
    sign_up(browser, server, f"solo{tag}")
    practice = browser.find_element(By.CSS_SELECTOR, '#banks button[data-practice="world-capitals"]')
    bank = browser.execute_script("return window.quizduel.state.banks.find((b) => b.slug === 'world-capitals').title")
    assert practice.text == cat("home.practice") and practice.get_attribute("aria-label") == cat("home.practiceLabel", title=bank)
    assert_speaks(browser, cat, "home")
    browser.save_screenshot(shot("practice-home", lang))

    # A whole practice game, every question answered right through the UI.
    practice.click()
    duel = practice_started(browser, cat)
    wait(browser, EC.visibility_of_element_located((By.ID, "countdown")))
    browser.save_screenshot(shot("practice-countdown", lang))
    count = duel_state(browser)["question_count"]
    assert count == 3
    for i in range(count):
        wait(browser, question_open(browser, i), timeout=10)
        assert not displayed(browser, "opponent-state") and displayed(browser, "end-practice")
        if i == 0:
            assert_speaks(browser, cat, "practice question")
            browser.save_screenshot(shot("practice-question", lang))
        right = server.correct_choice(duel, i)
        watch_for_red(browser, right)
        click_choice(browser, right)
        wait(browser, revealed(browser, i))
        wait(browser, lambda b: "picked-right" in choice(b, right).get_attribute("class"))
        assert "picked-wrong" not in choice(browser, right).get_attribute("class")
        # Never red, not even for a moment (the answer's reply may come before its event).
        assert not shown_red(browser)
        verdict = text(browser, "verdict")
        assert cat.pattern("verdict.correctPoints").fullmatch(verdict) or verdict == cat("verdict.correct"), verdict
        if i == 0:
            assert_speaks(browser, cat, "practice reveal")
            browser.save_screenshot(shot("practice-reveal", lang))
    title, score, rating = end_screen(browser)
    assert title == cat("end.practiceComplete")
    score_match = cat.pattern("end.practiceScore", right=3, count=3).fullmatch(score)
    assert score_match and int(score_match["score"]) >= 3 * 110, score
    assert rating == cat("end.practiceNotRated")
    assert text(browser, "again") == cat("end.practiseAgain") and text(browser, "back") == cat("common.back")
    assert_speaks(browser, cat, "practice end")
    browser.save_screenshot(shot("practice-end", lang))

    # Again: alone, a wrong answer reveals the question at once; "End practice" stops the game.
    browser.find_element(By.ID, "again").click()
    second = practice_started(browser, cat, duel)
    wait(browser, question_open(browser, 0), timeout=10)
    right = server.correct_choice(second, 0)
    wrong = (right + 1) % len(duel_state(browser)["question"]["choices"])
    click_choice(browser, wrong)
    wait(browser, revealed(browser, 0), timeout=3)  # well before the 6 s deadline
    assert "picked-wrong" in choice(browser, wrong).get_attribute("class")
    assert picked_wrong(browser, wrong)
    assert "correct" in choice(browser, right).get_attribute("class").split()
    assert text(browser, "verdict") == cat("verdict.wrong")
    browser.save_screenshot(shot("practice-wrong", lang))
    wait(browser, question_open(browser, 1), timeout=10)
    browser.find_element(By.ID, "end-practice").click()
    title, score, rating = end_screen(browser)
    assert title == cat("end.practiceEnded") and cat.pattern("end.practiceScore", right=0, count=3).fullmatch(score), (title, score)
    assert rating == cat("end.practiceNotRated")
    browser.find_element(By.ID, "back").click()
    wait(browser, lambda b: displayed(b, "screen-home"))

    # History lists the practice games (by the bank's title); the rating did not move; practice adds no mistakes.
    go_to(browser, "history")
    practice_line = cat.pattern("history.practice", bank=bank)
    wait(browser, lambda b: sum(bool(practice_line.search(line)) for line in text(b, "history").splitlines()) == 2)
    assert_speaks(browser, cat, "history")
    go_to(browser, "home")
    wait(browser, lambda b: cat("home.rating", rating=1500) in text(b, "banks"))
    open_mistakes(browser, cat)
    assert text(browser, "learned") == cat("mistakes.learned", count=0) and cat("mistakes.empty") in text(browser, "mistakes")
    browser.find_element(By.ID, "practise-mistakes").click()
    wait(browser, lambda b: text(b, "mistakes-note") == cat("practice.noMistakesLeft"))
    assert displayed(browser, "screen-mistakes")
    assert_speaks(browser, cat, "mistakes (none)")
    browser.save_screenshot(shot("practice-no-mistakes", lang))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_practising_mistakes_learns_them(server, browsers, cat, lang):
    a, b = browsers

    # A ranked duel (unchanged): A misses question 0 and is right first on the others.
    duel, (lea, _) = matched_pair(server, browsers, ("lea", "teo"))
    assert a.find_element(By.ID, "opp-box").is_displayed() and not a.find_element(By.ID, "solo-box").is_displayed()
    wait(a, question_open(a, 0))
    right = server.correct_choice(duel, 0)
    click_choice(a, (right + 1) % 4)
    wait(b, lambda x: text(x, "opponent-state") == cat("duel.oppWrong", name=lea))
    click_choice(b, right)
    wait(a, revealed(a, 0))
    for i in (1, 2):
        wait(a, question_open(a, i), timeout=10)
        click_choice(a, server.correct_choice(duel, i))
        wait(a, revealed(a, i))
    for x in (a, b):
        wait(x, EC.visibility_of_element_located((By.ID, "screen-end")), timeout=15)
    assert cat.pattern("end.rating", before=1500).match(text(a, "end-rating")) and text(a, "again") == cat("end.playAgain")
    # Two right answers (at least 2 × 100) beat one (at most 160).
    assert text(a, "end-title") == cat("end.youWin") and text(b, "end-title") == cat("end.youLose")
    missed = server.sql("SELECT q.prompt FROM duel_questions dq JOIN questions q ON q.id = dq.question_id "
                        f"WHERE dq.duel_id = '{duel}' AND dq.question_index = 0")

    # The notebook holds it; practising it once is not enough, twice learns it.
    open_mistakes(a, cat)
    assert missed in text(a, "mistakes") and text(a, "learned") == cat("mistakes.learned", count=0)
    assert a.find_element(By.ID, "practise-mistakes").text == cat("mistakes.practise")
    assert_speaks(a, cat, "mistakes")
    a.save_screenshot(shot("practice-mistakes", lang))
    previous = duel
    for round_ in (1, 2):
        a.find_element(By.ID, "practise-mistakes").click()
        game = practice_started(a, cat, previous)
        previous = game
        assert duel_state(a)["question_count"] == 1
        wait(a, question_open(a, 0), timeout=10)
        assert duel_state(a)["question"]["prompt"] == missed
        click_choice(a, server.correct_choice(game, 0))
        wait(a, revealed(a, 0))
        title, score, rating = end_screen(a)
        assert title == cat("end.practiceComplete") and cat.pattern("end.practiceScore", right=1, count=1).fullmatch(score)
        assert rating == cat("end.practiceNotRated")
        # Back from a practice of mistakes leads to the notebook, read afresh.
        a.find_element(By.ID, "back").click()
        wait(a, lambda x: displayed(x, "screen-mistakes") and cat.pattern("mistakes.learned").fullmatch(text(x, "learned")))
        if round_ == 1:
            assert missed in text(a, "mistakes") and text(a, "learned") == cat("mistakes.learned", count=0)
    wait(a, lambda x: text(x, "learned") == cat("mistakes.learned", count=1))
    assert missed not in text(a, "mistakes")
    assert cat("mistakes.allLearned") in text(a, "mistakes")
    assert_speaks(a, cat, "mistakes (all learned)")
    a.save_screenshot(shot("practice-learned", lang))
    a.find_element(By.ID, "practise-mistakes").click()
    wait(a, lambda x: text(x, "mistakes-note") == cat("practice.noMistakesLeft"))
