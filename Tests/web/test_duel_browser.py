"""Two real browsers play whole duels through the web client served by duel-server."""
import random
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import SHOTS


def wait(browser, condition, timeout=20):
    # The client re-renders the choices on every event, so references can go stale mid-check.
    return WebDriverWait(browser, timeout, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(condition)


def click_choice(browser, i):
    def attempt(b):
        choice(b, i).click()
        return True
    wait(browser, attempt, timeout=5)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def sign_up(browser, server, name):
    browser.get(server.url)
    wait(browser, EC.visibility_of_element_located((By.ID, "username"))).send_keys(name)
    browser.find_element(By.ID, "password").send_keys("a good password")
    browser.find_element(By.ID, "signup").click()
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]')))


def question_open(browser, index):
    def check(b):
        d = b.execute_script("return window.quizduel.state.duel")
        return d and d["state"] == "question" and d["question"]["index"] == index and \
            b.find_element(By.ID, "question-area").is_displayed()
    return check


def revealed(browser, index):
    def check(b):
        d = b.execute_script("return window.quizduel.state.duel")
        return d and d.get("reveal") and d["reveal"]["question_index"] == index and \
            len(b.find_elements(By.CSS_SELECTOR, "#choices button.correct")) == 1
    return check


def choice(browser, i):
    return browser.find_element(By.CSS_SELECTOR, f'#choices button[data-choice="{i}"]')


def start(a, b):
    for x in (a, b):
        x.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    wait(a, EC.visibility_of_element_located((By.ID, "screen-duel")))
    wait(b, EC.visibility_of_element_located((By.ID, "screen-duel")))
    duel = a.execute_script("return window.quizduel.state.duelId")
    assert duel == b.execute_script("return window.quizduel.state.duelId")
    return duel


def test_a_whole_duel_in_two_browsers(server, browsers):
    a, b = browsers
    tag = random.randint(0, 10**6)
    sign_up(a, server, f"ada{tag}")
    sign_up(b, server, f"bo{tag}")
    a.save_screenshot(str(SHOTS / "home.png"))
    a.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    wait(a, EC.visibility_of_element_located((By.ID, "screen-matching")))
    assert text(a, "matching-title") == "Matching…"
    a.save_screenshot(str(SHOTS / "matching.png"))
    b.find_element(By.CSS_SELECTOR, '#banks button[data-bank="world-capitals"]').click()
    wait(a, EC.visibility_of_element_located((By.ID, "countdown")))
    assert text(a, "me-name") == f"ada{tag}" and text(a, "opp-name") == f"bo{tag}"
    a.save_screenshot(str(SHOTS / "countdown.png"))
    duel = a.execute_script("return window.quizduel.state.duelId")

    # Question 0: Ada is right first; Bo is locked out; the reveal marks the answer.
    wait(a, question_open(a, 0))
    wait(b, question_open(b, 0))
    a.save_screenshot(str(SHOTS / "question.png"))
    right = server.correct_choice(duel, 0)
    click_choice(a, right)
    wait(a, lambda x: "picked-right" in choice(x, right).get_attribute("class"))
    wait(b, revealed(b, 0))
    assert "Locked out" in text(b, "verdict")
    wait(b, lambda x: "correct" in choice(x, right).get_attribute("class"))
    assert int(text(a, "me-score")) >= 110
    a.save_screenshot(str(SHOTS / "reveal.png"))

    # Question 1: Ada is wrong; Bo may still answer, with the keyboard, and is right.
    wait(a, question_open(a, 1), timeout=10)
    wait(b, question_open(b, 1), timeout=10)
    right = server.correct_choice(duel, 1)
    wrong = (right + 1) % 4
    click_choice(a, wrong)
    wait(a, lambda x: "picked-wrong" in choice(x, wrong).get_attribute("class"))
    wait(b, lambda x: "answered wrong" in text(x, "opponent-state"))
    wait(b, lambda x: not choice(x, right).get_attribute("disabled"))
    b.find_element(By.TAG_NAME, "body").send_keys(str(right + 1))
    wait(b, revealed(b, 1))
    assert "Correct" in text(b, "verdict")

    # Question 2: nobody answers; the server's deadline reveals it.
    wait(a, question_open(a, 2), timeout=10)
    wait(a, revealed(a, 2), timeout=15)
    assert "Time's up" in text(a, "verdict")

    for x in (a, b):
        wait(x, EC.visibility_of_element_located((By.ID, "screen-end")), timeout=15)
        assert text(x, "end-title") in ("You win!", "You lose", "Draw")
        assert "Rating 1500 →" in text(x, "end-rating")
    a.save_screenshot(str(SHOTS / "end.png"))
    # Both browsers saw every event once and in order.
    assert a.execute_script("return window.quizduel.state.lastSeq") == b.execute_script("return window.quizduel.state.lastSeq")

    # The other screens.
    a.find_element(By.CSS_SELECTOR, 'button[data-go="leaderboard"]').click()
    wait(a, lambda x: len(x.find_elements(By.CSS_SELECTOR, "#lb-bank option")) >= 3)
    Select(a.find_element(By.ID, "lb-bank")).select_by_value("world-capitals")
    wait(a, lambda x: f"ada{tag}" in text(x, "lb-list") or f"bo{tag}" in text(x, "lb-list"))
    a.find_element(By.CSS_SELECTOR, 'button[data-go="history"]').click()
    wait(a, lambda x: f"bo{tag}" in text(x, "history"))
    b.find_element(By.CSS_SELECTOR, 'button[data-go="mistakes"]').click()
    wait(b, lambda x: "Right answer:" in text(x, "mistakes"))
    b.save_screenshot(str(SHOTS / "mistakes.png"))
    b.find_element(By.CSS_SELECTOR, 'button[data-go="profile"]').click()
    wait(b, lambda x: "Games" in text(x, "profile"))


def test_a_dropped_connection_resumes_the_duel(server, browsers):
    a, b = browsers
    tag = random.randint(0, 10**6)
    sign_up(a, server, f"cy{tag}")
    sign_up(b, server, f"di{tag}")
    duel = start(a, b)
    wait(b, question_open(b, 0))
    b.execute_script("window.quizduel.client.drop()")
    wait(b, lambda x: x.find_element(By.ID, "status").is_displayed() and "Reconnecting" in text(x, "status"), timeout=5)
    b.save_screenshot(str(SHOTS / "reconnecting.png"))
    # While B is away, A answers; B must catch up on reconnect.
    right = server.correct_choice(duel, 0)
    click_choice(a, right)
    wait(b, lambda x: not x.find_element(By.ID, "status").is_displayed(), timeout=15)
    wait(b, revealed(b, 0), timeout=15)
    for x in (a, b):
        wait(x, EC.visibility_of_element_located((By.ID, "screen-end")), timeout=40)
    assert a.execute_script("return window.quizduel.state.lastSeq") == b.execute_script("return window.quizduel.state.lastSeq")
    assert "You lose" in text(b, "end-title") or "Draw" in text(b, "end-title") or "You win!" in text(b, "end-title")


def test_a_duel_an_operator_ends_says_so(server, browsers):
    a, b = browsers
    tag = random.randint(0, 10**6)
    sign_up(a, server, f"cy{tag}")
    sign_up(b, server, f"di{tag}")
    duel = start(a, b)
    # As an operator would (docs/OPERATIONS.md): the server applies it within a second.
    server.sql(f"SELECT ops.end_duel('{duel}'::uuid, 'browser test')")
    for x in (a, b):
        wait(x, EC.visibility_of_element_located((By.ID, "screen-end")))
        assert text(x, "end-title") == "Duel ended"
        assert "not rated" in text(x, "end-score")
    a.save_screenshot(str(SHOTS / "ended-by-operator.png"))
