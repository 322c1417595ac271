"""A real duel-server (embedded Postgres) and real headless Chromium sessions.

The browsers speak the test's language: the `lang` fixture ("en" unless a test parametrizes it
over catalogue.LANGUAGES) sets Chromium's --lang and Accept-Language, which the client picks
its catalogue from; the `cat` fixture looks the page's words up in that catalogue. Every
browser has seen the first-start tour already (tests of the tour use `newcomer`).

Every WebSocket text frame a test's browsers send or receive is appended to
.build/frames/browser-<test>.jsonl (from Chrome's performance log), one JSON object a line:
{"source": "browser:<test>", "conn": "<browser index>:<requestId>", "dir": "out"|"in", "frame": "<text>"}.
"""
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from catalogue import Catalogue
from helpers import ROOT, SHOTS

FRAMES = ROOT / ".build" / "frames"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        self.data = pathlib.Path(tempfile.mkdtemp(prefix="quizduel-web-"))
        os.chmod(self.data, 0o755)
        self.port = free_port()
        # QUIZDUEL_SERVER_BIN: a copy of the server to test, so that a rebuild of .build/debug
        # while the browser tests run does not swap the binary under them.
        binary = pathlib.Path(os.environ.get("QUIZDUEL_SERVER_BIN") or ROOT / ".build" / "debug" / "duel-server")
        self.log = open(self.data / "server.log", "w")
        # 10 s questions: a test's checks and screenshots in a reveal's pause may run into the
        # next question's window on a loaded machine, and must leave time to answer it (6 s ran
        # out once in CI). A right answer ends a question at once, so only unanswered ones wait.
        self.process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(self.data),
             "--web-dir", str(os.environ.get("QUIZDUEL_WEB_DIR") or ROOT / "web"), "--countdown-ms", "1500", "--answer-ms", "10000",
             "--reveal-ms", "1500", "--questions", "3", "--log-level", "warning"],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        for _ in range(300):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("duel-server did not start: " + (self.data / "server.log").read_text())

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/"

    def sql(self, query):
        socket_dir = self.data / "postgres" / "socket"
        out = subprocess.run(["psql", "-h", str(socket_dir), "-U", "postgres", "-At", "-c", query, "postgres"],
                             check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def correct_choice(self, duel, index):
        return int(self.sql(
            "SELECT q.correct_choice FROM duel_questions dq JOIN questions q ON q.id = dq.question_id "
            f"WHERE dq.duel_id = '{duel}' AND dq.question_index = {int(index)}"))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    s.stop()


@pytest.fixture
def fresh_server():
    """A server of the test's own, started for it (about 2 s): empty, with no player and no game
    played, for what only a new server shows (the house as every bank's recorded opponent)."""
    s = Server()
    yield s
    s.stop()


# The browser locale each catalogue language is tested with: a region, as browsers send, so the
# client's matching of "de-DE" to "de" and "zh-CN" to "zh-Hans" is tested too.
LOCALES = {"en": "en-US", "zh-Hans": "zh-CN", "de": "de-DE"}

# Before the page's own scripts: this device saw the tour (js/tutorial.js) already, so that it
# does not cover the home screen of tests about something else.
TOUR_SEEN = "try { if (!localStorage.getItem('quizduel.tutorial')) localStorage.setItem('quizduel.tutorial', 'seen'); } catch {}"


def make_browser(lang="en", tour_seen=True):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    locale = LOCALES[lang]
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844",
                "--disable-gpu", "--no-first-run", f"--lang={locale}"]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": locale})
    # The performance log carries the DevTools Network events, WebSocket frames included.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    browser = webdriver.Chrome(service=service, options=options)
    browser.ws_frames = []  # accumulated by collect_frames()
    if tour_seen:
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TOUR_SEEN})
    return browser


FRAME_METHODS = {"Network.webSocketFrameSent": "out", "Network.webSocketFrameReceived": "in"}


def collect_frames(browser):
    """Drains the browser's performance log (each read empties it) and keeps its WebSocket
    text frames in browser.ws_frames as (direction, requestId, payload). Safe to call at
    any time; teardown calls it once more."""
    for _ in range(1000):  # chromedriver hands out at most 100,000 entries per read
        entries = browser.get_log("performance")
        if not entries:
            break
        for entry in entries:
            try:
                message = json.loads(entry["message"])["message"]
            except (KeyError, TypeError, ValueError):
                continue
            direction = FRAME_METHODS.get(message.get("method"))
            if direction is None:
                continue
            params = message.get("params") or {}
            response = params.get("response") or {}
            if response.get("opcode") != 1:  # text frames only
                continue
            browser.ws_frames.append((direction, str(params.get("requestId")), response.get("payloadData", "")))


def write_frames(test_name, browsers):
    """Appends every browser's frames to .build/frames/browser-<test>.jsonl."""
    FRAMES.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name)
    with open(FRAMES / f"browser-{safe}.jsonl", "a", encoding="utf-8") as out:
        for index, browser in enumerate(browsers):
            for direction, request_id, payload in browser.ws_frames:
                out.write(json.dumps({"source": f"browser:{test_name}", "conn": f"{index}:{request_id}",
                                      "dir": direction, "frame": payload}, ensure_ascii=False) + "\n")


def finish(request, browsers):
    """Teardown: record the frames of every browser (even after a failure), then quit them."""
    try:
        for b in browsers:
            try:
                collect_frames(b)
            except Exception as error:  # a crashed browser must not hide the test's own result
                print(f"could not read the performance log: {error!r}")
        write_frames(request.node.name, browsers)
    finally:
        for b in browsers:
            b.quit()


@pytest.fixture
def lang():
    """The language of the test's browsers; a test runs in others with
    @pytest.mark.parametrize("lang", LANGUAGES), which overrides this."""
    return "en"


@pytest.fixture
def cat(lang):
    """The catalogue of the test's language: cat("home.title"), cat.pattern("end.score")."""
    return Catalogue(lang)


@pytest.fixture
def browsers(request, lang):
    os.environ.setdefault("SE_OFFLINE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pair = [make_browser(lang), make_browser(lang)]
    yield pair
    finish(request, pair)


@pytest.fixture
def trio(request, lang):
    """Three browsers: the players of one room."""
    os.environ.setdefault("SE_OFFLINE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    three = [make_browser(lang), make_browser(lang), make_browser(lang)]
    yield three
    finish(request, three)


@pytest.fixture
def browser(request, lang):
    """One browser, for tests that run several clients in one page."""
    os.environ.setdefault("SE_OFFLINE", "true")
    one = [make_browser(lang)]
    yield one[0]
    finish(request, one)


@pytest.fixture
def newcomer(request, lang):
    """One browser that has not seen the first-start tour."""
    os.environ.setdefault("SE_OFFLINE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    one = [make_browser(lang, tour_seen=False)]
    yield one[0]
    finish(request, one)
