"""A recorded opponent (issue 27): a newcomer alone on an empty server plays a first game within
20 s of signing up. They sign up in a new browser (the first-start tour shows, and is skipped),
press Duel, wait for the matching screen's offers, choose the recorded opponent and answer
every question to the end screen. The opponent is named as a recording (on a new server, the
house: nobody has played a game there yet), never as a person, and the game is not rated, on
the versus card, in the game's header, on the end screen and in history. Each runs in every
language the client speaks; in English the recorded game's screens get the every-screen checks
(three sizes, two themes, axe, layout) too."""
import random
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from a11y import describe, violations
from catalogue import LANGUAGES
from helpers import (SHOTS, click_choice, displayed, duel_id, duel_state, end_screen, go_to, question_open, revealed, text,
                     wait)
from hold import held, hold_after, release
from page_words import assert_speaks
from shots import capture

DUEL_BUTTON = '#banks button[data-bank="world-capitals"]'
FIRST_GAME_S = 20


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def tour_open(browser):
    return browser.execute_script("return document.getElementById('tutorial').open")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_newcomer_alone_plays_a_recorded_opponent_within_20_seconds(fresh_server, newcomer, cat, lang):
    server, b = fresh_server, newcomer
    b.get(server.url)
    wait(b, EC.visibility_of_element_located((By.ID, "username"))).send_keys(f"first{random.randint(0, 10**6)}")
    b.find_element(By.ID, "password").send_keys("a good password")
    started = time.monotonic()
    b.find_element(By.ID, "signup").click()

    # The tour greets a newcomer; skipped, as a player in a hurry would. Then Duel, alone.
    wait(b, tour_open)
    b.find_element(By.ID, "tutorial-skip").click()
    wait(b, lambda x: not tour_open(x))
    wait(b, EC.element_to_be_clickable((By.CSS_SELECTOR, DUEL_BUTTON))).click()
    wait(b, lambda x: displayed(x, "screen-matching"))
    wait(b, lambda x: displayed(x, "matching-offers"), timeout=10)
    # The recorded opponent is the first offer, and the prominent one.
    offer = b.find_element(By.ID, "matching-recorded")
    assert offer.text == cat("matching.recorded") and "primary" in offer.get_attribute("class").split()
    assert text(b, "matching-recorded-hint") == cat("matching.recordedHint")
    hold_after(b, "init")  # the versus card stays while it is checked (the server plays on)
    offer.click()

    # The versus card: the house (a new server), named as a recording, and the game not rated.
    wait(b, held)
    d = duel_state(b)
    assert d["mode"] == "recorded" and d["rated"] is False and len(d["players"]) == 2
    recording = b.find_element(By.CSS_SELECTOR, "#versus-players .recording")
    assert recording.get_attribute("data-recording") == "house"
    assert cat("recorded.house") in recording.text and cat("duel.recordedTag") in recording.text
    # A replay icon where a person has their initials.
    assert recording.find_elements(By.CSS_SELECTOR, ".avatar svg") and not recording.find_element(By.CSS_SELECTOR, ".avatar").text
    # Under the cards: what the house is (not a live player), and that the game is not rated.
    assert displayed(b, "versus-note") and text(b, "versus-note") == cat("recorded.houseLine")
    assert "world-capitals" == b.find_element(By.CSS_SELECTOR, "#versus-bank .bank-chip").get_attribute("data-bank-color")
    assert_speaks(b, cat, "the versus card of a recorded game")
    b.save_screenshot(shot("recorded-versus", lang))
    release(b)

    # Every question answered (right, at once); the header names the recording as one.
    duel = duel_id(b)
    for i in range(d["question_count"]):
        wait(b, question_open(b, i), timeout=10)
        assert text(b, "opp-name") == cat("recorded.house") and displayed(b, "opp-tag")
        assert text(b, "opp-tag") == cat("recorded.tag")
        click_choice(b, server.correct_choice(duel, i))
        wait(b, revealed(b, i), timeout=10)
        if i == 0:
            assert_speaks(b, cat, "a question against a recording")
            b.save_screenshot(shot("recorded-question", lang))
    title, score, rating = end_screen(b)
    elapsed = time.monotonic() - started
    assert elapsed < FIRST_GAME_S, f"the first game took {elapsed:.1f} s from the sign-up click"
    print(f"{lang}: sign-up to the end of a first game in {elapsed:.1f} s")

    # The end screen: no rating change, "not rated", the recording in the recap.
    assert title in (cat("end.recordedWin"), cat("end.recordedLose"), cat("end.draw")), title
    assert cat.pattern("end.score").fullmatch(score), score
    assert rating == cat("end.notRatedRecorded")
    assert not b.find_elements(By.CSS_SELECTOR, "#end-rating .delta")
    assert not displayed(b, "rematch") and not displayed(b, "end-leaderboard")
    assert displayed(b, "end-live") and text(b, "end-live") == cat("end.findLive")
    assert cat("recorded.house") in text(b, "end-recap")
    assert_speaks(b, cat, "the end of a recorded game")
    b.save_screenshot(shot("recorded-end", lang))

    # History: a game against a recording, not rated (never a person's name).
    go_to(b, "history")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#history li.history-recorded"))
    line = b.find_element(By.CSS_SELECTOR, "#history li.history-recorded").text
    assert any(cat.pattern(key).fullmatch(line) for key in ("history.recordedWon", "history.recordedLost", "history.recordedDraw")), line
    assert_speaks(b, cat, "history with a recorded game")

    if lang == "en":
        every_size_and_theme(server, b)


def every_size_and_theme(server, b):
    """The recorded game's own screens at every size and theme (shots.py), through "Play again"
    on its end screen: another game against a recording, held at its versus card, then forfeited
    after a confirmation."""
    report = []
    go_to(b, "home")
    wait(b, EC.element_to_be_clickable((By.CSS_SELECTOR, DUEL_BUTTON))).click()
    wait(b, lambda x: displayed(x, "matching-offers"), timeout=10)
    hold_after(b, "init")
    b.find_element(By.ID, "matching-recorded").click()
    wait(b, held)
    second = duel_id(b)
    capture(b, "versus-recorded", report=report)
    release(b, "question", 0)
    wait(b, held)
    found = violations(b)
    if found:
        report.append(f"question-recorded: axe:\n{describe(found)}")
    release(b)
    b.find_element(By.ID, "forfeit").click()
    wait(b, lambda x: x.find_element(By.ID, "forfeit-dialog").is_displayed())
    assert text(b, "forfeit-text") == "The recording wins at once. Nothing is rated."
    b.find_element(By.ID, "forfeit-confirm").click()
    title, _, rating = end_screen(b)
    assert title == "The recording wins" and rating == "Against a recording: not rated"
    capture(b, "end-recorded", action="#again", report=report)
    # "Play again" after a recorded game: another one against a recording.
    b.find_element(By.ID, "again").click()
    wait(b, lambda x: duel_id(x) not in (None, second) and duel_state(x)["mode"] == "recorded")
    assert not report, f"{len(report)} problems:\n" + "\n".join(report)
