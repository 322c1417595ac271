"""A real duel-server (embedded Postgres) and real headless Chromium sessions."""
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".build" / "web-screenshots"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        self.data = pathlib.Path(tempfile.mkdtemp(prefix="quizduel-web-"))
        os.chmod(self.data, 0o755)
        self.port = free_port()
        binary = ROOT / ".build" / "debug" / "duel-server"
        self.log = open(self.data / "server.log", "w")
        self.process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(self.data),
             "--web-dir", str(ROOT / "web"), "--countdown-ms", "1500", "--answer-ms", "6000",
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


def make_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844",
                "--disable-gpu", "--no-first-run"]:
        options.add_argument(arg)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browsers():
    os.environ.setdefault("SE_OFFLINE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pair = [make_browser(), make_browser()]
    yield pair
    for b in pair:
        b.quit()
