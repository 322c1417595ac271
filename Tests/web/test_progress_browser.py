"""Progress in the browser (issue 14): after three duels the profile shows the rating chart with
its points, the XP bar, level and achievements; the home screen greets with the level; the
notifications bell's badge appears live when a challenge arrives and clears once seen. It runs
in each of the client's languages (the page's words looked up in its catalogue, each screen
checked for raw keys and, in zh and de, English); the three duels that make a rising chart and
level 2 are English-only, the zh and de runs play one duel (to keep the suite's time down)."""
import pytest
from selenium.webdriver.common.by import By

from catalogue import LANGUAGES
from helpers import (SHOTS, click_choice, displayed, end_screen, matched_pair, question_open, revealed, start, text,
                     wait)
from page_words import assert_speaks


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def play_duel(server, a, b, duel):
    """`a` answers every question right at once."""
    for i in range(3):
        wait(a, question_open(a, i), timeout=15)
        click_choice(a, server.correct_choice(duel, i))
        wait(a, revealed(a, i), timeout=10)
    for x in (a, b):
        end_screen(x)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_profile_chart_and_a_live_notification_badge(server, browsers, cat, lang):
    a, b = browsers
    games = 3 if lang == "en" else 1
    duel, (name_a, name_b) = matched_pair(server, browsers, ["prog", "rival"])
    play_duel(server, a, b, duel)
    for _ in range(games - 1):
        for x in (a, b):
            x.find_element(By.ID, "back").click()
            wait(x, lambda y: displayed(y, "screen-home"))
        duel = start(a, b)
        play_duel(server, a, b, duel)
    for x in (a, b):
        x.find_element(By.ID, "back").click()
        wait(x, lambda y: displayed(y, "screen-home"))

    # The home screen greets with the level: 3 wins of 3 right answers = 3 × 70 XP = level 2 (one
    # win, 70 XP, is still level 1).
    level = 2 if games == 3 else 1
    wait(a, lambda x: displayed(x, "greeting")
         and text(x, "greeting-title") == cat("progress.greeting", level=level, title=cat("levelTitle.newcomer")))
    assert text(a, "greeting-badge") == str(level)
    assert_speaks(a, cat, "home with the greeting")
    a.save_screenshot(shot("progress-home", lang))

    # The profile: XP bar, streak, a chart with the start and three games, achievements.
    a.find_element(By.CSS_SELECTOR, 'button[data-go="profile"]').click()
    wait(a, lambda x: displayed(x, "screen-profile")
         and len(x.find_elements(By.CSS_SELECTOR, "#rating-chart circle")) == games + 1)
    ratings = [float(c.get_attribute("data-rating")) for c in a.find_elements(By.CSS_SELECTOR, "#rating-chart circle")]
    assert ratings[0] == 1500 and ratings[1:] == sorted(set(ratings[1:])) and ratings[1] > 1500, ratings
    if games == 3:
        assert text(a, "xp-text") == cat("progress.xp", xp=210, next=90, level=3)
    else:
        assert cat.pattern("progress.xp", xp=70, level=2).fullmatch(text(a, "xp-text")), text(a, "xp-text")
    assert cat.pattern("progress.streak", count=1).fullmatch(text(a, "streak")), text(a, "streak")
    earned = {li.get_attribute("data-achievement") for li in a.find_elements(By.CSS_SELECTOR, "#achievements li.earned")}
    assert {"first_game", "first_win"} <= earned
    assert len(a.find_elements(By.CSS_SELECTOR, "#achievements li.locked")) >= 8
    # A goal: this week's games, already 3 of 5.
    a.find_element(By.CSS_SELECTOR, '#goal-kind option[value="games"]').click()
    target = a.find_element(By.ID, "goal-target")
    target.clear()
    target.send_keys("5")
    a.find_element(By.ID, "goal-save").click()
    wait(a, lambda x: cat("progress.goal.games", progress=games, count=5) in text(x, "goals"))
    assert_speaks(a, cat, "profile")
    a.save_screenshot(shot("progress-profile", lang))

    # Seen what is there; then b's challenge makes the badge appear live, and opening clears it.
    a.find_element(By.ID, "bell").click()
    wait(a, lambda x: displayed(x, "screen-notifications") and not displayed(x, "bell-badge"))
    assert cat("notification.achievement", title=cat("achievement.first_win.title")) in text(a, "notification-list")
    assert_speaks(a, cat, "notifications")
    a.find_element(By.CSS_SELECTOR, 'button[data-go="home"]').click()
    wait(a, lambda x: displayed(x, "screen-home"))
    b.find_element(By.CSS_SELECTOR, 'button[data-go="friends"]').click()
    wait(b, lambda x: displayed(x, "screen-friends"))
    b.find_element(By.ID, "challenge-name").send_keys(name_a)
    b.find_element(By.CSS_SELECTOR, '#challenge-bank option[value="world-capitals"]').click()
    b.find_element(By.ID, "challenge-send").click()
    wait(a, lambda x: displayed(x, "bell-badge") and text(x, "bell-badge") == "1", timeout=10)
    a.save_screenshot(shot("progress-bell", lang))
    a.find_element(By.ID, "bell").click()
    challenged = cat.pattern("notification.challengeReceived", name=name_b)
    wait(a, lambda x: challenged.search(text(x, "notification-list")))
    wait(a, lambda x: not displayed(x, "bell-badge"))
    assert_speaks(a, cat, "notifications with a challenge")
    a.save_screenshot(shot("progress-notifications", lang))
