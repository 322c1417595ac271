"""Helpers the browser tests share (a plain module: test modules do not import each other)."""
import pathlib
import random
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".build" / "web-screenshots"


def wait(browser, condition, timeout=20):
    # The client re-renders the choices on every event, so references can go stale mid-check.
    return WebDriverWait(browser, timeout, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(condition)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def displayed(browser, element_id):
    return browser.find_element(By.ID, element_id).is_displayed()


def duel_state(browser):
    return browser.execute_script("return window.quizduel.state.duel")


def duel_id(browser):
    return browser.execute_script("return window.quizduel.state.duelId")


def last_seq(browser, duel):
    """The last seq of `duel` the browser's client module delivered."""
    return browser.execute_script("return window.quizduel.client.lastSeq(arguments[0])", duel)


def choice(browser, i):
    return browser.find_element(By.CSS_SELECTOR, f'#choices button[data-choice="{i}"]')


def choice_classes(browser, i):
    return choice(browser, i).get_attribute("class").split()


def picked_right(browser, i):
    """Whether choice `i` shows as my right pick (and only as that: never red as well)."""
    classes = choice_classes(browser, i)
    return "picked-right" in classes and "picked-wrong" not in classes


def picked_wrong(browser, i):
    classes = choice_classes(browser, i)
    return "picked-wrong" in classes and "picked-right" not in classes


def watch_for_red(browser, i):
    """From now on, records whether choice `i` ever shows as a wrong pick, even for a moment:
    the choices are rebuilt on every event and reply, so a later check alone could miss it.
    A MutationObserver runs before the page is painted, so it sees what the player would."""
    browser.execute_script("""
        const i = arguments[0];
        if (window.__red) window.__red.disconnect();
        const box = document.getElementById("choices");
        const seen = () => { if (box.querySelector(`button[data-choice="${i}"].picked-wrong`)) observer.red = true; };
        const observer = new MutationObserver(seen);
        observer.red = false;
        observer.seen = seen;
        observer.observe(box, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
        window.__red = observer;
        seen();""", i)


def shown_red(browser):
    """Whether the choice watch_for_red() watches showed as a wrong pick since; stops watching."""
    return browser.execute_script(
        "const o = window.__red; if (o.takeRecords().length) o.seen(); o.disconnect(); window.__red = null; return o.red;")


def click_choice(browser, i):
    def attempt(b):
        choice(b, i).click()
        return True
    wait(browser, attempt, timeout=5)


# Screens under Profile (the tab bar has five tabs: Play, Quizzes, Friends, Leaderboard, Profile).
UNDER_PROFILE = ("history", "mistakes", "notifications")


def go_to(browser, name):
    """Opens screen `name` as a player does: its tab in the bottom bar, or, for the screens under
    Profile (history, mistakes, notifications), the Profile tab and then its entry there."""
    if name in UNDER_PROFILE:
        browser.find_element(By.CSS_SELECTOR, '#nav button[data-go="profile"]').click()
        wait(browser, lambda b: displayed(b, "screen-profile"))
        browser.find_element(By.CSS_SELECTOR, f'#screen-profile button[data-go="{name}"]').click()
    else:
        browser.find_element(By.CSS_SELECTOR, f'#nav button[data-go="{name}"]').click()
    wait(browser, lambda b: displayed(b, f"screen-{name}"))


def sign_up(browser, server, name):
    browser.get(server.url)
    wait(browser, EC.visibility_of_element_located((By.ID, "username"))).send_keys(name)
    browser.find_element(By.ID, "password").send_keys("a good password")
    browser.find_element(By.ID, "signup").click()
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]')))


def sign_up_pair(server, browsers, names):
    """Signs up one new player in each browser: `names` plus a random tag; returns the usernames."""
    tag = random.randint(0, 10**6)
    usernames = [f"{name}{tag}" for name in names]
    for browser, username in zip(browsers, usernames):
        sign_up(browser, server, username)
    return usernames


def start(a, b):
    """Both browsers queue for world-capitals; returns the duel they are matched in."""
    for x in (a, b):
        x.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    wait(a, EC.visibility_of_element_located((By.ID, "screen-duel")))
    wait(b, EC.visibility_of_element_located((By.ID, "screen-duel")))
    duel = duel_id(a)
    assert duel == duel_id(b)
    return duel


def matched_pair(server, browsers, names):
    """Two new players, one in each browser, matched in a ranked duel: returns its id and the usernames."""
    usernames = sign_up_pair(server, browsers, names)
    return start(*browsers), usernames


def question_open(browser, index):
    def check(b):
        d = duel_state(b)
        return d and d["state"] == "question" and d["question"]["index"] == index and displayed(b, "question-area")
    return check


def revealed(browser, index):
    def check(b):
        d = duel_state(b)
        return d and d.get("reveal") and d["reveal"]["question_index"] == index and \
            len(b.find_elements(By.CSS_SELECTOR, "#choices button.correct")) == 1
    return check


def end_screen(browser, timeout=20):
    """Waits for the end screen; returns its title, score and rating lines."""
    wait(browser, EC.visibility_of_element_located((By.ID, "screen-end")), timeout=timeout)
    return text(browser, "end-title"), text(browser, "end-score"), text(browser, "end-rating")


def saw_every_event(server, duel, *browsers, timeout=5):
    """Each browser's client delivered the duel's events up to the last one the server stored
    (the database may lag the frames a little: it is read again until `timeout`)."""
    seen = [last_seq(browser, duel) for browser in browsers]
    deadline = time.monotonic() + timeout
    while True:
        stored = int(server.sql(f"SELECT last_seq FROM duels WHERE id = '{duel}'"))
        if all(s == stored for s in seen) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert stored > 0 and seen == [stored] * len(browsers), f"browsers saw up to {seen}, the server stored {stored}"
