"""Question types in the web client (issue 13): check boxes, a true/false pair, a text field and a
number field that submit on Enter, and the key of each shown at the reveal. Every type is played
in each of the client's languages (the page's words looked up in its catalogue, each screen
checked for raw keys and, in zh and de, English); the wrong text answer and the notebook's
record of it (a third game) stay English-only, to keep the suite's time down."""
import random
import time

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from catalogue import LANGUAGES
from helpers import SHOTS, choice, displayed, duel_id, duel_state, end_screen, sign_up, text, wait
from page_words import assert_speaks

# Two banks of three questions (the test server plays three per game), so that one practice
# game of each meets all of them, in a random order.
# (No prompt says " in ": page_words would take "… in …" for English progress.goalInBank,
# "{goal} in {bank}", on a Chinese page.)
BANK_A = """type,prompt,choices,answer,matching,tolerance
multiple,Which are noble gases?,Neon|Iron|Argon|Tin,A|C,,
boolean,The Moon is a planet.,,false,,
text,Capital of Burkina Faso?,,Ouagadougou|Wagadugu,rough,"""
BANK_B = """type,prompt,choices,answer,matching,tolerance
number,Speed of sound through air (m/s)?,,343,,5
text,Chemical symbol of gold?,,Au,exact,
single,Largest planet?,Mars|Jupiter|Venus,B,,"""


def make_bank(server, slug, csv):
    server.sql(f"SELECT ops.create_bank('{slug}', 'Types {slug}')")
    server.sql(f"SELECT ops.import_csv('{slug}', $csv${csv}$csv$)")


def open_question(browser, index):
    def check(b):
        d = duel_state(b)
        return d and d["state"] == "question" and d["question"]["index"] == index and displayed(b, "question-area")
    wait(browser, check, timeout=10)
    return duel_state(browser)["question"]


def reveal_of(browser, index):
    def check(b):
        d = duel_state(b)
        return d and d.get("reveal") and d["reveal"]["question_index"] == index
    wait(browser, check, timeout=10)
    return duel_state(browser)["reveal"]


def answer_field(browser, value):
    field = browser.find_element(By.ID, "answer-input")
    wait(browser, lambda b: field.is_displayed() and field.is_enabled())
    field.send_keys(value)
    field.send_keys(Keys.ENTER)


def shot(name, lang):
    return str(SHOTS / (f"{name}.png" if lang == "en" else f"{name}-{lang}.png"))


def play(browser, cat, slug, wrong_text=False, shots=False):
    """Practises `slug` through the UI, answering each type by its own input; returns the types seen."""
    # The bank list re-renders as it learns titles and counts: click whichever button is there.
    def start(b):
        try:
            b.find_element(By.CSS_SELECTOR, f'#banks button[data-practice="{slug}"]').click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    wait(browser, start)
    wait(browser, lambda b: duel_id(b) is not None and displayed(b, "screen-duel"))
    seen = []
    for i in range(3):
        q = open_question(browser, i)
        kind = q["type"]
        seen.append(kind)
        right = True
        if kind == "multiple":
            assert not displayed(browser, "free-answer")
            boxes = browser.find_elements(By.CSS_SELECTOR, '#choices button[role="checkbox"]')
            assert [b.get_attribute("aria-checked") for b in boxes] == ["false"] * 4
            submit = browser.find_element(By.ID, "submit-choices")
            assert not submit.is_enabled()  # nothing ticked yet
            choice(browser, 0).click()
            choice(browser, 2).click()
            wait(browser, lambda b: choice(b, 2).get_attribute("aria-checked") == "true")
            if shots:
                assert_speaks(browser, cat, "multiple choice")
                browser.save_screenshot(shot("types-multiple", cat.lang))
            browser.find_element(By.ID, "submit-choices").click()
        elif kind == "boolean":
            tiles = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#choices button")]
            true, false = cat("answer.true"), cat("answer.false")
            assert tiles in ([f"A\n{true}", f"B\n{false}"], [f"A{true}", f"B{false}"]), tiles
            assert_speaks(browser, cat, "true or false")
            choice(browser, 1).click()
        elif kind == "text":
            assert displayed(browser, "free-answer")
            assert browser.find_elements(By.CSS_SELECTOR, "#choices button") == []
            field = browser.find_element(By.ID, "answer-input")
            assert field.get_attribute("type") == "text" and field.get_attribute("maxlength") == "200"
            if q["prompt"].startswith("Capital"):
                right = not wrong_text
                answer_field(browser, "Ouagadugu" if right else "Bamako")  # one letter off is still right
            else:
                answer_field(browser, "Au")
            if shots:
                browser.save_screenshot(shot("types-text", cat.lang))
        elif kind == "number":
            field = browser.find_element(By.ID, "answer-input")
            assert field.get_attribute("type") == "number"
            answer_field(browser, "341.5")
        else:
            choice(browser, 1).click()
        reveal = reveal_of(browser, i)
        assert reveal["type"] == kind
        if right:
            wait(browser, lambda b: cat.pattern("verdict.correctPoints").fullmatch(text(b, "verdict"))
                 or text(b, "verdict") == cat("verdict.correct"))
        else:
            wait(browser, lambda b: text(b, "verdict") == cat("verdict.wrong"))
        if kind in ("text", "number"):
            key = text(browser, "answer-key")
            assert key == (cat("key.accepted", answers="Ouagadougou / Wagadugu") if q["prompt"].startswith("Capital")
                           else cat("key.accepted", answers="Au") if kind == "text"
                           else cat("key.rightNumberTolerance", number=343, tolerance=5)), key
            assert_speaks(browser, cat, f"{kind} reveal")
            field = browser.find_element(By.ID, "answer-input")
            assert not field.is_enabled()
            assert ("picked-right" if right else "picked-wrong") in field.get_attribute("class")
            if shots and kind == "text":
                browser.save_screenshot(shot("types-text-reveal", cat.lang))
        if kind == "multiple":
            for i_ in (0, 2):
                classes = choice(browser, i_).get_attribute("class").split()
                assert "correct" in classes and "picked-right" in classes
    title, score, _ = end_screen(browser)
    assert title == cat("end.practiceComplete")
    return seen, score


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_question_type_is_answered_in_the_browser(server, browser, cat, lang):
    tag = random.randint(0, 10**6)
    make_bank(server, f"types-a-{tag}", BANK_A)
    make_bank(server, f"types-b-{tag}", BANK_B)
    time.sleep(2.1)  # the server's bank list is cached for 2 s
    sign_up(browser, server, f"types{tag}")
    seen, score = play(browser, cat, f"types-a-{tag}", shots=True)
    assert sorted(seen) == ["boolean", "multiple", "text"]
    assert cat.pattern("end.practiceScore", right=3, count=3).fullmatch(score), score
    browser.find_element(By.ID, "back").click()
    seen, score = play(browser, cat, f"types-b-{tag}")
    assert sorted(seen) == ["number", "single", "text"]
    assert cat.pattern("end.practiceScore", right=3, count=3).fullmatch(score), score
    assert_speaks(browser, cat, "practice end")
    if lang != "en":
        return  # the third game (a wrong text answer, stored as typed) is English-only: time
    # A wrong text answer, then the mistakes notebook says what was typed and what is accepted.
    browser.find_element(By.ID, "back").click()
    play(browser, cat, f"types-a-{tag}", wrong_text=True)
    stored = server.sql("SELECT string_agg(answer_text, ',' ORDER BY answered_at) FROM duel_answers "
                        "WHERE answer_text IS NOT NULL AND duel_id IN (SELECT id FROM duels WHERE player_a = "
                        f"(SELECT id FROM players WHERE username = 'types{tag}'))")
    assert stored == "Ouagadugu,Au,Bamako", stored
