"""Progress in the browser (issue 14): after three duels the profile shows the rating chart with
its points, the XP bar, level and achievements; the home screen greets with the level; the
notifications bell's badge appears live when a challenge arrives and clears once seen."""
from selenium.webdriver.common.by import By

from helpers import (SHOTS, click_choice, displayed, end_screen, matched_pair, question_open, revealed, start, text,
                     wait)


def play_duel(server, a, b, duel):
    """`a` answers every question right at once."""
    for i in range(3):
        wait(a, question_open(a, i), timeout=15)
        click_choice(a, server.correct_choice(duel, i))
        wait(a, revealed(a, i), timeout=10)
    for x in (a, b):
        end_screen(x)


def test_profile_chart_and_a_live_notification_badge(server, browsers):
    a, b = browsers
    duel, (name_a, name_b) = matched_pair(server, browsers, ["prog", "rival"])
    play_duel(server, a, b, duel)
    for _ in range(2):
        for x in (a, b):
            x.find_element(By.ID, "back").click()
            wait(x, lambda y: displayed(y, "screen-home"))
        duel = start(a, b)
        play_duel(server, a, b, duel)
    for x in (a, b):
        x.find_element(By.ID, "back").click()
        wait(x, lambda y: displayed(y, "screen-home"))

    # The home screen greets with the level: 3 wins of 3 right answers = 3 × 70 XP = level 2.
    wait(a, lambda x: displayed(x, "greeting") and text(x, "greeting-title") == "Level 2. Newcomer")
    assert text(a, "greeting-badge") == "2"
    a.save_screenshot(str(SHOTS / "progress-home.png"))

    # The profile: XP bar, streak, a chart with the start and three games, achievements.
    a.find_element(By.CSS_SELECTOR, 'button[data-go="profile"]').click()
    wait(a, lambda x: displayed(x, "screen-profile") and len(x.find_elements(By.CSS_SELECTOR, "#rating-chart circle")) == 4)
    ratings = [float(c.get_attribute("data-rating")) for c in a.find_elements(By.CSS_SELECTOR, "#rating-chart circle")]
    assert ratings[0] == 1500 and ratings[1] < ratings[2] < ratings[3], ratings
    assert text(a, "xp-text").startswith("210 XP") and "90 to level 3" in text(a, "xp-text")
    assert text(a, "streak").startswith("Streak: 1 day")
    earned = {li.get_attribute("data-achievement") for li in a.find_elements(By.CSS_SELECTOR, "#achievements li.earned")}
    assert {"first_game", "first_win"} <= earned
    assert len(a.find_elements(By.CSS_SELECTOR, "#achievements li.locked")) >= 8
    # A goal: this week's games, already 3 of 5.
    a.find_element(By.CSS_SELECTOR, '#goal-kind option[value="games"]').click()
    target = a.find_element(By.ID, "goal-target")
    target.clear()
    target.send_keys("5")
    a.find_element(By.ID, "goal-save").click()
    wait(a, lambda x: "3 of 5 games" in text(x, "goals"))
    a.save_screenshot(str(SHOTS / "progress-profile.png"))

    # Seen what is there; then b's challenge makes the badge appear live, and opening clears it.
    a.find_element(By.ID, "bell").click()
    wait(a, lambda x: displayed(x, "screen-notifications") and not displayed(x, "bell-badge"))
    assert "Achievement: First win" in text(a, "notification-list")
    a.find_element(By.CSS_SELECTOR, 'button[data-go="home"]').click()
    wait(a, lambda x: displayed(x, "screen-home"))
    b.find_element(By.CSS_SELECTOR, 'button[data-go="friends"]').click()
    wait(b, lambda x: displayed(x, "screen-friends"))
    b.find_element(By.ID, "challenge-name").send_keys(name_a)
    b.find_element(By.CSS_SELECTOR, '#challenge-bank option[value="world-capitals"]').click()
    b.find_element(By.ID, "challenge-send").click()
    wait(a, lambda x: displayed(x, "bell-badge") and text(x, "bell-badge") == "1", timeout=10)
    a.save_screenshot(str(SHOTS / "progress-bell.png"))
    a.find_element(By.ID, "bell").click()
    wait(a, lambda x: f"{name_b} challenged you" in text(x, "notification-list"))
    wait(a, lambda x: not displayed(x, "bell-badge"))
    a.save_screenshot(str(SHOTS / "progress-notifications.png"))
