"""A weekly goal's due date and reminder (issue 27): the profile shows when a goal is due (this
week's Sunday, in the player's time and language) and its reminder; a reminder set a few
seconds ahead arrives live once, as a toast and as one entry in the notifications, each a
sentence, and the goal then shows it reminded; a time already past is refused with a sentence;
a reminder can be cleared. In every language the client speaks."""
import datetime
import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from catalogue import LANGUAGES
from helpers import SHOTS, displayed, go_to, sign_up, text, wait
from page_words import assert_speaks

GAMES = '#goals li[data-goal="games"]'
WINS = '#goals li[data-goal="wins"]'

# A time as a datetime-local field's value (local time, to the second), `seconds` from now;
# returns that time (ms since 1970) as the page reads the field.
SET_TIME = """
const [selector, seconds] = arguments;
const d = new Date(Date.now() + seconds * 1000), p = (n) => String(n).padStart(2, "0");
const input = document.querySelector(selector);
input.value = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
input.dispatchEvent(new Event("input", { bubbles: true }));
return new Date(input.value).getTime();
"""


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def set_goal(browser, kind, target):
    Select(browser.find_element(By.ID, "goal-kind")).select_by_value(kind)
    field = browser.find_element(By.ID, "goal-target")
    field.clear()
    field.send_keys(str(target))
    browser.find_element(By.ID, "goal-save").click()


def this_sunday():
    """The day this week's goals are due, in the browser's zone (this machine's, which the client
    sends as the player's): Sunday, or today on a Sunday."""
    today = datetime.date.today()
    return today + datetime.timedelta(days=6 - today.weekday())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_goal_reminder_arrives_live_once(server, browser, cat, lang):
    sign_up(browser, server, f"remind{random.randint(0, 10**6)}")
    # Every goal_reminder this page is sent, counted apart from what the page draws of it.
    browser.execute_script("window.__reminders = 0; window.quizduel.client.on('notification',"
                           " (e) => { if (e.record.kind === 'goal_reminder') window.__reminders++; });")
    go_to(browser, "profile")
    set_goal(browser, "games", 5)
    goal = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, GAMES))[0]
    # When it is due: this week's Sunday, and no reminder yet.
    due = goal.find_element(By.CSS_SELECTOR, ".goal-due").text
    assert cat.pattern("goals.due").fullmatch(due) and str(this_sunday().day) in due, due
    assert goal.find_element(By.CSS_SELECTOR, ".goal-reminder").text == cat("goals.noReminder")
    assert_speaks(browser, cat, "a goal without a reminder")

    # A reminder in the past is refused, in words.
    goal.find_element(By.CSS_SELECTOR, "[data-remind]").click()
    form = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"{GAMES} .reminder-form"))[0]
    assert form.find_element(By.CSS_SELECTOR, "label").text == cat("goals.remindAt")
    browser.execute_script(SET_TIME, f"{GAMES} .reminder-at", -120)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, f"{GAMES} .reminder-form .error").text == cat("goals.reminderPast"))
    assert_speaks(browser, cat, "the reminder form with an error")
    browser.save_screenshot(shot("goal-reminder-form", lang))

    # Three seconds ahead: set, shown as the goal's reminder.
    due_ms = browser.execute_script(SET_TIME, f"{GAMES} .reminder-at", 3)
    browser.find_element(By.CSS_SELECTOR, f"{GAMES} .reminder-form button[type=submit]").click()
    wait(browser, lambda b: cat.pattern("goals.reminderSet").fullmatch(text(b, "profile-note")))
    goal = browser.find_element(By.CSS_SELECTOR, GAMES)
    assert cat.pattern("goals.reminder").fullmatch(goal.find_element(By.CSS_SELECTOR, ".goal-reminder").text)
    assert goal.find_elements(By.CSS_SELECTOR, "[data-clear-reminder]")

    # It arrives live: a toast that says it in a sentence, and the goal shows it reminded.
    toast = cat.pattern("notification.goalReminder")
    wait(browser, lambda b: any(toast.fullmatch(t.text) for t in b.find_elements(By.CSS_SELECTOR, "#toasts .toast")), timeout=15)
    early = due_ms - browser.execute_script("return Date.now()")
    assert early <= 0, f"the reminder came {early} ms before its time"
    assert sum(bool(toast.fullmatch(t.text)) for t in browser.find_elements(By.CSS_SELECTOR, "#toasts .toast")) == 1
    browser.save_screenshot(shot("goal-reminder-toast", lang))
    wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, GAMES).get_attribute("data-reminded") == "true")
    assert cat.pattern("goals.reminded").fullmatch(browser.find_element(By.CSS_SELECTOR, f"{GAMES} .goal-reminder").text)
    assert not browser.find_elements(By.CSS_SELECTOR, f"{GAMES} [data-clear-reminder]")
    assert_speaks(browser, cat, "the profile after a reminder")

    # Once: one entry in the notifications (a sentence), and (checked at the end) one event.
    go_to(browser, "notifications")
    entries = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, '#notification-list li[data-kind="goal_reminder"]'))
    assert len(entries) == 1
    sentence = browser.execute_script("return arguments[0].firstChild.data", entries[0])  # then its time, apart
    assert toast.fullmatch(sentence), sentence
    assert cat("progress.goal.games", progress=0, count=5) in sentence
    assert_speaks(browser, cat, "the notifications with a reminder")
    browser.save_screenshot(shot("goal-reminder-notification", lang))

    # Another goal's reminder (the form's own suggestion, an hour ahead), then cleared.
    go_to(browser, "profile")
    set_goal(browser, "wins", 2)
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, WINS))
    browser.find_element(By.CSS_SELECTOR, f"{WINS} [data-remind]").click()
    form = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"{WINS} .reminder-form"))[0]
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"{WINS} [data-clear-reminder]"))
    assert cat.pattern("goals.reminder").fullmatch(browser.find_element(By.CSS_SELECTOR, f"{WINS} .goal-reminder").text)
    browser.find_element(By.CSS_SELECTOR, f"{WINS} [data-clear-reminder]").click()
    wait(browser, lambda b: text(b, "profile-note") == cat("goals.reminderCleared"))
    assert browser.find_element(By.CSS_SELECTOR, f"{WINS} .goal-reminder").text == cat("goals.noReminder")
    assert displayed(browser, "goals")
    # Seconds after the reminder: still the one event (and no reminder for the cleared goal).
    assert browser.execute_script("return window.__reminders") == 1
