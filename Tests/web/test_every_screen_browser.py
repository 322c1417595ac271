"""Every screen of the client (and its three dialogs) at 360×640, 390×844 and 1280×800, light and dark: a screenshot of
each (.build/web-screenshots/<screen>-<w>x<h>-<theme>.png), an axe-core 4.x check of each (no
serious or critical violation), nothing wider than the screen, no toast over a heading or a
control, the main action reachable above the tab bar, and no raw catalogue key.

One game serves every game screen: each screen is reached once and then resized and re-themed
in place. A moment of the game lasts less than its twelve checks take, so the page is held
still meanwhile (hold.py): its events held back, its clock stopped; the server plays on."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import click_choice, displayed, duel_id, go_to, question_open, sign_up_pair, wait
from hold import held, hold_after, release, stop_clock
from page_words import key_leaks, page_texts
from shots import capture

DUEL_BUTTON = '#banks button[data-bank="world-capitals"]'


def test_every_screen_at_three_sizes_in_both_themes(server, browsers, cat):
    a, b = browsers
    report = []

    def look(browser, screen, action=None, prepare=None):
        leaks = key_leaks(page_texts(browser), cat)
        if leaks:
            report.append(f"{screen}: catalogue keys on the page: {leaks}")
        capture(browser, screen, action=action, prepare=prepare, report=report)

    a.get(server.url)
    wait(a, lambda x: displayed(x, "username"))
    look(a, "auth", action="#signup")
    sign_up_pair(server, [a], ["scr"])
    look(a, "home", action=DUEL_BUTTON)

    # Matching: alone in the queue until the offers show (the other player signs up meanwhile).
    a.find_element(By.CSS_SELECTOR, DUEL_BUTTON).click()
    wait(a, lambda x: displayed(x, "screen-matching"))
    sign_up_pair(server, [b], ["een"])
    wait(a, lambda x: displayed(x, "matching-offers"), timeout=10)
    stop_clock(a)
    look(a, "matching", action="#cancel")

    # The game. A stops at its countdown; B answers the first question right and stops at its reveal.
    hold_after(a, "init")
    hold_after(b, "reveal", 0)
    b.find_element(By.CSS_SELECTOR, DUEL_BUTTON).click()
    wait(a, held)
    stop_clock(a, held(a)["record"]["phase_ends_at_ms"] - 1200)  # "2"
    duel = duel_id(a)
    wait(b, question_open(b, 0))
    click_choice(b, server.correct_choice(duel, 0))
    wait(b, held)
    look(a, "versus")
    # A goes on to the first question as it opened (B's answer is still held back), 4 s left.
    release(a, "question", 0)
    wait(a, held)
    stop_clock(a, held(a)["record"]["question"]["opens_at_ms"] + 2000)
    look(a, "question", action="#choices .tile:last-child")
    a.find_element(By.ID, "forfeit").click()
    wait(a, lambda x: x.find_element(By.ID, "forfeit-dialog").is_displayed())
    look(a, "forfeit", action="#forfeit-confirm")
    a.find_element(By.ID, "forfeit-cancel").click()
    look(b, "reveal", action="#forfeit")
    release(a)
    release(b)

    # The end: B won, with its achievements' toasts (where they covered the heading before).
    for x in (a, b):
        wait(x, lambda y: displayed(y, "screen-end"), timeout=40)
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#toasts .toast"))
    look(b, "end", action="#again")
    look(b, "recap", prepare=lambda x: x.execute_script("document.getElementById('end-recap-box').scrollIntoView()"))

    go_to(b, "leaderboard")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#lb-list li"))
    look(b, "leaderboard", action="#lb-bank")
    go_to(b, "profile")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#achievements li.earned") and x.find_elements(By.CSS_SELECTOR, "#rating-chart circle"))
    # A goal with its due date, and its reminder's form open.
    Select(b.find_element(By.ID, "goal-kind")).select_by_value("games")
    b.find_element(By.ID, "goal-save").click()
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#goals li [data-remind]"))[0].click()
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#goals .reminder-form"))
    look(b, "profile", action="#tutorial-replay")

    def open_settings(x):
        x.execute_script("const s = document.getElementById('settings'); s.open = true; s.scrollIntoView();")
    look(b, "settings", action="#logout", prepare=open_settings)
    b.find_element(By.ID, "tutorial-replay").click()
    wait(b, lambda x: x.execute_script("return document.getElementById('tutorial').open"))
    look(b, "tutorial", action="#tutorial-next")
    b.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(b, lambda x: not x.execute_script("return document.getElementById('tutorial').open"))
    # A bank's notes and colour, from its card.
    go_to(b, "home")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, '#banks button[data-notes="world-capitals"]'))[0].click()
    wait(b, lambda x: x.execute_script("return document.getElementById('bank-dialog').open"))
    look(b, "bank-notes", action="#bank-pref-save")
    b.find_element(By.ID, "bank-pref-cancel").click()
    wait(b, lambda x: not x.execute_script("return document.getElementById('bank-dialog').open"))
    go_to(b, "history")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#history li"))
    look(b, "history")
    go_to(a, "mistakes")
    wait(a, lambda x: x.find_elements(By.CSS_SELECTOR, "#mistakes li, #mistakes .empty"))
    look(a, "mistakes", action="#practise-mistakes")
    go_to(b, "notifications")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#notification-list li"))
    look(b, "notifications")

    # Quizzes: the catalog, the editor of a new quiz (with its question form), the quiz's page.
    go_to(b, "quizzes")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#quiz-list li") or displayed(x, "quiz-list-empty"))
    look(b, "quizzes", action="#catalog-search-button")
    b.find_element(By.ID, "tab-mine").click()
    wait(b, lambda x: displayed(x, "new-quiz"))
    b.find_element(By.ID, "new-quiz").click()
    wait(b, lambda x: displayed(x, "screen-editor"))
    b.find_element(By.ID, "quiz-form-title").send_keys("Screens")
    b.find_element(By.ID, "quiz-form-save").click()
    wait(b, lambda x: displayed(x, "editor-questions-box"))
    look(b, "editor", action="#quiz-form-save")
    look(b, "editor-question", action="#qf-save",
         prepare=lambda x: x.execute_script("document.getElementById('question-form').scrollIntoView()"))
    b.find_element(By.ID, "editor-view").click()
    wait(b, lambda x: displayed(x, "screen-quiz"))
    look(b, "quiz", action="#quiz-practise")

    # Friends, and a room's lobby.
    go_to(a, "friends")
    wait(a, lambda x: x.find_elements(By.CSS_SELECTOR, "#room-bank option"))
    look(a, "friends", action="#room-create")
    a.find_element(By.ID, "room-create").click()
    wait(a, lambda x: displayed(x, "screen-room"))
    look(a, "room", action="#room-start")

    assert not report, f"{len(report)} problems:\n" + "\n".join(report)
