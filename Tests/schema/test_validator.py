"""Tests of validate_frames.py and of docs/schema/ itself, on small hand-made frame logs.

The main transcript is docs/PROTOCOL.md's worked example made complete: real-looking ids,
every field written out, a two-question duel, a reconnect with auth and resume, a second
duel lost by forfeit, every other op once, and some deliberate bad input.

`python Tests/schema/test_validator.py DIR` writes that transcript to DIR/transcript.jsonl
(to try Tests/schema/run on it: FRAMES_DIR=DIR Tests/schema/run).
"""
import copy
import datetime
import json
import pathlib
import sys

import pytest
from jsonschema import Draft202012Validator

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import validate_frames as vf  # noqa: E402

ADA = "a1a1a1a1-1111-4111-8111-111111111111"
BO = "b2b2b2b2-2222-4222-8222-222222222222"
DUEL = "d7d7d7d7-7777-4777-8777-777777777777"
DUEL2 = "e8e8e8e8-8888-4888-8888-888888888888"
DUEL3 = "f9f9f9f9-9999-4999-8999-999999999999"
TOKEN_A = "9f" + "0123456789abcdef" * 3 + "0123456789abcd"
TOKEN_B = "7c" + "fedcba9876543210" * 3 + "fedcba9876543210"[:14]
T0 = 1763764800000
Q0 = {"question_id": 17, "prompt": "What is the capital of Peru?", "choices": ["Quito", "Lima", "Bogotá", "La Paz"]}
Q1 = {"question_id": 23, "prompt": "What is the capital of Kenya?", "choices": ["Nairobi", "Mombasa", "Kisumu", "Nakuru"]}
BANKS = [
    {"slug": "chemical-elements", "title": "Chemical elements", "questions": 40, "description": "Symbols and numbers",
     "theme": "science", "difficulty": "medium"},
    {"slug": "general-science", "title": "General science", "questions": 40, "description": "", "theme": "science",
     "difficulty": "mixed"},
    {"slug": "world-capitals", "title": "World capitals", "questions": 60, "description": "Capitals of the world",
     "theme": "geography", "difficulty": "easy"},
]


def iso(ms):
    moment = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def player(pid, name, games=0, wins=0, losses=0, draws=0, score=0, capitals=1500):
    return {"id": pid, "username": name, "games": games, "wins": wins, "losses": losses, "draws": draws,
            "total_score": score, "ratings": {"chemical-elements": 1500, "general-science": 1500,
                                              "world-capitals": capitals}}


def question(index, q, opens):
    return {"index": index, "question_id": q["question_id"], "prompt": q["prompt"], "choices": q["choices"],
            "opens_at_ms": opens, "deadline_ms": opens + 10_000}


def record(duel, state, scores=(0, 0), index=0, q=None, answers=(), reveal=None, result=None, connected=(True, True)):
    return {
        "id": duel, "bank": "world-capitals", "mode": "ranked", "rated": True, "state": state,
        "players": [
            {"id": ADA, "username": "ada", "rating": 1500, "score": scores[0], "connected": connected[0]},
            {"id": BO, "username": "bob", "rating": 1500, "score": scores[1], "connected": connected[1]},
        ],
        "question_count": 2, "question_index": index, "question": q, "answers": list(answers),
        "reveal": reveal, "result": result,
    }


def event(kind, duel, seq, at_ms, rec):
    return {"op": "event", "event": kind, "table": "duels", "type": "INSERT" if kind == "init" else "UPDATE",
            "duel_id": duel, "seq": seq, "commit_timestamp": iso(at_ms), "server_time_ms": at_ms + 2, "record": rec}


def reply(ref, data=None):
    return {"op": "reply", "ref": ref, "ok": True, "data": data or {}}


def error(ref, code, message):
    return {"op": "error", "ref": ref, "code": code, "message": message}


class Log:
    def __init__(self, source="transcript"):
        self.source = source
        self.lines = []

    def add(self, conn, direction, frame):
        text = frame if isinstance(frame, str) else json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
        self.lines.append({"source": self.source, "conn": conn, "dir": direction, "frame": text})

    def out(self, conn, frame):
        self.add(conn, "out", frame)

    def inn(self, conn, frame):
        self.add(conn, "in", frame)

    def write(self, path):
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines), encoding="utf-8")
        return path


def transcript():
    log = Log()
    a, b, a2, eve = "ada", "bo", "ada-2", "eve"
    # Sign-up, the banks, a queue entry cancelled and made again.
    log.out(a, {"op": "banks", "ref": 1})
    log.inn(a, reply(1, {"banks": BANKS}))
    log.out(a, {"op": "signup", "ref": 2, "username": "ada", "password": "correct horse"})
    log.inn(a, reply(2, {"player": player(ADA, "ada"), "token": TOKEN_A}))
    log.out(b, {"op": "signup", "ref": "s1", "username": "bob", "password": "battery staple"})
    log.inn(b, reply("s1", {"player": player(BO, "bob"), "token": TOKEN_B}))
    log.out(a, {"op": "queue", "ref": 3, "bank": "world-capitals"})
    log.inn(a, reply(3, {"queued_at": iso(T0 - 5_000)}))
    log.inn(a, {"op": "event", "event": "queued", "table": "match_queue", "type": "INSERT",
                "commit_timestamp": iso(T0 - 5_000), "server_time_ms": T0 - 4_999,
                "record": {"player": ADA, "bank": "world-capitals", "queued_at": iso(T0 - 5_000)}})
    log.out(a, {"op": "cancel", "ref": 4})
    log.inn(a, reply(4))
    log.out(a, {"op": "queue", "ref": 5, "bank": "world-capitals"})
    log.inn(a, reply(5, {"queued_at": iso(T0 + 10)}))
    log.inn(a, {"op": "event", "event": "queued", "table": "match_queue", "type": "INSERT",
                "commit_timestamp": iso(T0 + 10), "server_time_ms": T0 + 11,
                "record": {"player": ADA, "bank": "world-capitals", "queued_at": iso(T0 + 10)}})
    log.out(b, {"op": "queue", "ref": "s2", "bank": "world-capitals"})
    log.inn(b, reply("s2", {"queued_at": iso(T0 + 250)}))
    log.inn(b, {"op": "event", "event": "queued", "table": "match_queue", "type": "INSERT",
                "commit_timestamp": iso(T0 + 250), "server_time_ms": T0 + 251,
                "record": {"player": BO, "bank": "world-capitals", "queued_at": iso(T0 + 250)}})

    def both(frame):
        log.inn(a, frame)
        log.inn(b, frame)

    # Duel 1: question 0 (Ada wrong, Bo right), question 1 (Ada right, Bo locked out).
    both(event("init", DUEL, 1, T0 + 260, record(DUEL, "countdown")))
    o0 = T0 + 3_260
    q0 = question(0, Q0, o0)
    both(event("question", DUEL, 2, o0, record(DUEL, "question", q=q0)))
    log.out(a, {"op": "answer", "ref": 6, "duel_id": DUEL, "question_index": 0, "choice": 9})
    log.inn(a, error(6, "bad_request", "choice must be between 0 and 3"))
    log.out(a, {"op": "answer", "ref": 7, "duel_id": DUEL, "question_index": 0, "choice": 0})
    log.inn(a, reply(7, {"correct": False, "points": 0}))
    ans_a0 = {"player": ADA, "correct": False, "at_ms": o0 + 2_100}
    both(event("answered", DUEL, 3, o0 + 2_100, record(DUEL, "question", q=q0, answers=[ans_a0])))
    log.out(b, {"op": "answer", "ref": "s3", "duel_id": DUEL, "question_index": 0, "choice": 1})
    log.inn(b, reply("s3", {"correct": True, "points": 160}))
    ans_b0 = {"player": BO, "correct": True, "at_ms": o0 + 4_500}
    answers0 = [ans_a0, ans_b0]
    both(event("answered", DUEL, 4, o0 + 4_500, record(DUEL, "question", (0, 160), q=q0, answers=answers0)))
    reveal0 = {"question_index": 0, "correct_choice": 1, "choices": {ADA: 0, BO: 1}, "points": {ADA: 0, BO: 160}}
    rec5 = record(DUEL, "reveal", (0, 160), q=q0, answers=answers0, reveal=reveal0)
    both(event("reveal", DUEL, 5, o0 + 4_500, rec5))
    # Ada reconnects on a second socket and catches up.
    log.out(a2, {"op": "auth", "ref": 1, "token": TOKEN_A})
    log.inn(a2, reply(1, {"player": player(ADA, "ada"), "duel": rec5}))
    log.out(a2, {"op": "resume", "ref": 2, "duel_id": DUEL, "after_seq": 3})
    log.inn(a2, reply(2))
    log.inn(a2, event("answered", DUEL, 4, o0 + 4_500, record(DUEL, "question", (0, 160), q=q0, answers=answers0)))
    log.inn(a2, event("reveal", DUEL, 5, o0 + 4_500, rec5))
    o1 = o0 + 6_500
    q1 = question(1, Q1, o1)
    for conn in (a, b, a2):
        log.inn(conn, event("question", DUEL, 6, o1, record(DUEL, "question", (0, 160), 1, q1)))
    log.out(a, {"op": "answer", "ref": 8, "duel_id": DUEL, "question_index": 1, "choice": 0, "points": 999})
    log.inn(a, reply(8, {"correct": True, "points": 200}))
    ans_a1 = {"player": ADA, "correct": True, "at_ms": o1 + 300}
    reveal1 = {"question_index": 1, "correct_choice": 0, "choices": {ADA: 0, BO: None}, "points": {ADA: 200, BO: 0}}
    for conn in (a, b, a2):
        log.inn(conn, event("answered", DUEL, 7, o1 + 300, record(DUEL, "question", (200, 160), 1, q1, [ans_a1])))
        log.inn(conn, event("reveal", DUEL, 8, o1 + 300,
                            record(DUEL, "reveal", (200, 160), 1, q1, [ans_a1], reveal1)))
    log.out(b, {"op": "answer", "ref": "s4", "duel_id": DUEL, "question_index": 1, "choice": 2})
    log.inn(b, error("s4", "locked_out", "your opponent already won that question"))
    result = {"winner": ADA, "reason": "completed",
              "ratings": {ADA: {"before": 1500, "after": 1662}, BO: {"before": 1500, "after": 1338}},
              "placements": {ADA: 1, BO: 2}}
    final = record(DUEL, "finished", (200, 160), 1, q1, [ans_a1], reveal1, result)
    for conn in (a, b, a2):
        log.inn(conn, event("complete", DUEL, 9, o1 + 2_300, final))
    # The reports.
    log.out(a, {"op": "leaderboard", "ref": 9, "bank": "world-capitals"})
    log.inn(a, reply(9, {"entries": [
        {"rank": 1, "player": ADA, "username": "ada", "rating": 1662, "games": 1, "wins": 1},
        {"rank": 2, "player": BO, "username": "bob", "rating": 1338, "games": 1, "wins": 0}]}))
    log.out(a, {"op": "profile", "ref": 10})
    log.inn(a, reply(10, {"player": player(ADA, "ada", 1, 1, 0, 0, 200, 1662)}))
    log.out(b, {"op": "profile", "ref": "s5", "player": ADA, "limit": None})
    log.inn(b, reply("s5", {"player": player(ADA, "ada", 1, 1, 0, 0, 200, 1662)}))
    log.out(a, {"op": "history", "ref": 11, "limit": 5})
    log.inn(a, reply(11, {"duels": [final]}))
    log.out(a, {"op": "mistakes", "ref": 12})
    log.inn(a, reply(12, {"questions": [dict(Q0, correct_choice=1, your_choice=0, duel_id=DUEL)], "learned_count": 0}))
    log.out(b, {"op": "mistakes", "ref": "s6", "limit": 20})
    log.inn(b, reply("s6", {"questions": [dict(Q1, correct_choice=0, your_choice=None, duel_id=DUEL)], "learned_count": 0}))
    log.out(a, {"op": "report", "ref": 13, "question_id": 17, "reason": "Lima is right, but the accent on Bogotá is 👍🏽"})
    log.inn(a, reply(13))
    # Duel 2: Bo gives up in the countdown.
    log.out(a, {"op": "queue", "ref": 14, "bank": "world-capitals"})
    log.inn(a, reply(14, {"queued_at": iso(T0 + 40_000)}))
    log.inn(a, {"op": "event", "event": "queued", "table": "match_queue", "type": "INSERT",
                "commit_timestamp": iso(T0 + 40_000), "server_time_ms": T0 + 40_001,
                "record": {"player": ADA, "bank": "world-capitals", "queued_at": iso(T0 + 40_000)}})
    init2 = record(DUEL2, "countdown")
    init2["players"][0]["rating"], init2["players"][1]["rating"] = 1662, 1338
    both(event("init", DUEL2, 1, T0 + 41_000, init2))
    log.out(b, {"op": "forfeit", "ref": "s7", "duel_id": DUEL2})
    log.inn(b, reply("s7"))
    done2 = copy.deepcopy(init2)
    done2.update(state="finished", result={"winner": ADA, "reason": "forfeit", "ratings": {
        ADA: {"before": 1662, "after": 1671}, BO: {"before": 1338, "after": 1331}},
        "placements": {ADA: 1, BO: 2}})
    both(event("complete", DUEL2, 2, T0 + 41_500, done2))
    # Practice alone, then give up.
    log.out(a, {"op": "practice", "ref": 17, "mistakes": True})
    log.inn(a, reply(17, {"duel_id": DUEL3}))
    alone = record(DUEL3, "countdown")
    alone.update(mode="practice", rated=False, players=alone["players"][:1])
    log.inn(a, event("init", DUEL3, 1, T0 + 42_000, alone))
    log.out(a, {"op": "forfeit", "ref": 18, "duel_id": DUEL3})
    log.inn(a, reply(18))
    over = dict(alone, state="finished", result={
        "winner": None, "reason": "forfeit", "ratings": {ADA: {"before": 1500, "after": 1500}}, "placements": {ADA: 1}})
    log.inn(a, event("complete", DUEL3, 2, T0 + 42_500, over))
    # Sign out and in again.
    log.out(a, {"op": "logout", "ref": 15})
    log.inn(a, reply(15))
    log.out(a, {"op": "login", "ref": 16, "username": "ADA", "password": "correct horse"})
    log.inn(a, reply(16, {"player": player(ADA, "ada", 2, 2, 0, 0, 200, 1671), "token": TOKEN_A[::-1]}))
    # Deliberate bad input, on a connection that never signs in.
    log.out(eve, "{nope")
    log.inn(eve, error(None, "bad_json", "invalid JSON at byte 1: expected a key"))
    log.out(eve, "[1,2]")
    log.inn(eve, error(None, "bad_json", "the message must be a JSON object"))
    log.out(eve, {"op": "fly", "ref": 3})
    log.inn(eve, error(3, "unknown_op", "unknown op 'fly'"))
    log.out(eve, {"op": "queue", "ref": "x"})
    log.inn(eve, error("x", "unauthorized", "log in first"))
    log.out(eve, {"op": "signup", "ref": 4, "username": 5, "password": "long enough"})
    log.inn(eve, error(4, "bad_request", "username: must be a string"))
    log.out(eve, {"op": "signup", "ref": 5, "username": "shorty", "password": "short"})
    log.inn(eve, error(5, "weak_password", "the password must have at least 8 characters"))
    log.out(eve, {"op": "signup", "ref": 6, "username": "abc\n", "password": "long enough"})
    log.inn(eve, error(6, "bad_request", "username: 3-32 characters: letters, digits, '_', '-', '.'"))
    log.out(eve, {"op": "banks", "ref": 7.0})
    log.inn(eve, error(None, "bad_request", "ref: must be a string or an integer"))
    log.out(eve, '{"op":"banks","ref":8,"x":NaN}')
    log.inn(eve, error(None, "bad_json", "invalid JSON at byte 25: invalid value"))
    log.out(eve, {"op": "login", "ref": 9, "username": "mallory", "password": "hunter22"})
    log.inn(eve, error(9, "account_disabled", "this account is disabled"))
    log.out(eve, {"op": "banks"})
    log.inn(eve, error(None, "rate_limited", "too many messages; slow down"))
    return log


def run(tmp_path, log, *args, name="frames.jsonl"):
    path = log.write(tmp_path / name)
    return vf.main([str(path), *args])


def line_of(log, conn, direction, predicate):
    for i, line in enumerate(log.lines):
        if line["conn"] == conn and line["dir"] == direction and predicate(json.loads(line["frame"])):
            return i
    raise LookupError("no such line")


def edit(log, index, change):
    frame = json.loads(log.lines[index]["frame"])
    change(frame)
    log.lines[index]["frame"] = json.dumps(frame, ensure_ascii=False)


# --- the schema files ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["defs.json", "client-message.json", "server-message.json", "replies.json"])
def test_schema_files_are_valid_draft_2020_12(name):
    schema = json.loads((vf.SCHEMA_DIR / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == vf.BASE + name


def test_every_op_has_a_client_definition_and_a_reply_definition():
    schemas = vf.Schemas()
    assert len(schemas.ops) == 16
    assert schemas.reply_defs == schemas.ops
    for op in schemas.ops:
        assert schemas.contents["client-message.json"]["$defs"][op]["properties"]["op"] == {"const": op}


def test_error_codes_and_finish_reasons_include_the_new_ones():
    defs = json.loads((vf.SCHEMA_DIR / "defs.json").read_text(encoding="utf-8"))["$defs"]
    assert "account_disabled" in defs["error_code"]["enum"]
    assert "ended" in defs["finish_reason"]["enum"]


@pytest.mark.parametrize("frame", [
    {"op": "banks"},
    {"op": "banks", "ref": None, "anything": [1, {"x": 2}]},
    {"op": "signup", "username": "a.b-c_9", "password": "x" * 256},
    {"op": "login", "username": "Ada", "password": ""},
    {"op": "answer", "ref": "r", "duel_id": "not-a-uuid", "question_index": 2147483647, "choice": 3.0},
    {"op": "leaderboard", "bank": "x", "limit": None},
    {"op": "history", "limit": 100},
    {"op": "report", "question_id": -5, "reason": "x" * 500},
    {"op": "profile", "player": None},
])
def test_client_schema_accepts(frame):
    assert vf.Schemas().client().is_valid(frame)


@pytest.mark.parametrize("frame", [
    {"ref": 1},
    {"op": "fly"},
    {"op": "banks", "ref": True},
    {"op": "banks", "ref": 1.5},
    {"op": "banks", "ref": 2**63},
    {"op": "signup", "username": "abc\n", "password": "long enough"},
    {"op": "signup", "username": "ab", "password": "long enough"},
    {"op": "signup", "username": "ädä", "password": "long enough"},
    {"op": "signup", "username": "ada", "password": "x" * 257},
    {"op": "login", "username": "ada\u0000", "password": "x"},
    {"op": "login", "username": "ada"},
    {"op": "auth", "token": None},
    {"op": "queue", "bank": "x" * 129},
    {"op": "answer", "duel_id": "d", "question_index": -1, "choice": 0},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choice": 2**31},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choice": "1"},
    {"op": "resume", "duel_id": "d"},
    {"op": "leaderboard", "bank": "x", "limit": 0},
    {"op": "mistakes", "limit": 101},
    {"op": "report", "question_id": 1, "reason": ""},
    {"op": "report", "question_id": 1, "reason": "x" * 501},
    {"op": "report", "question_id": 1, "reason": "two\nlines"},
    {"op": "report", "question_id": 1, "reason": "bell\u0085"},
])
def test_client_schema_refuses(frame):
    assert not vf.Schemas().client().is_valid(frame)


@pytest.mark.parametrize("text, ok", [
    ('{"op":"banks"}', True),
    ('{"op":"banks","x":NaN}', False),
    ('{"op":"banks","x":1e400}', False),
    ('{"op":"banks","x":"\\ud800"}', False),
    ('{"op":"banks","x":"\\ud83d\\ude00"}', True),
    ('{"op":"banks","x":' + "[" * 31 + "]" * 31 + "}", True),
    ('{"op":"banks","x":' + "[" * 32 + "]" * 32 + "}", False),
    ('{"op":"banks",}', False),
    ("\ufeff{}", False),
])
def test_client_frames_are_read_as_the_server_reads_them(text, ok):
    try:
        vf.parse_as_server(text)
        parsed = True
    except vf.NotServerJSON:
        parsed = False
    assert parsed == ok


def test_a_ref_written_as_a_float_is_no_ref_to_the_server():
    checker = vf.Checker(vf.Schemas())
    assert checker.client_verdict('{"op":"banks","ref":1}').valid
    assert not checker.client_verdict('{"op":"banks","ref":1.0}').valid
    assert checker.client_verdict('{"op":"report","question_id":17.0,"reason":"x"}').valid
    assert not checker.client_verdict('{"op":"report","question_id":1e16,"reason":"x"}').valid
    assert checker.client_verdict('{"op":"report","question_id":10000000000000000,"reason":"x"}').valid


# --- whole logs ------------------------------------------------------------------------------------

def test_the_complete_duel_transcript_passes_with_full_coverage(tmp_path, capsys):
    assert run(tmp_path, transcript(), "--require-coverage") == 0
    out = capsys.readouterr().out
    assert "OK" in out and "not seen: " not in out.split("error codes")[0]


def test_missing_coverage_fails_only_when_required(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"op":"report"' not in line["frame"]]
    assert run(tmp_path, log) == 0
    assert run(tmp_path, log, "--require-coverage") == 1
    assert "ops not seen: report" in capsys.readouterr().out


def test_a_record_leaking_the_correct_choice_in_state_question_fails(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "question")
    edit(log, index, lambda f: f["record"]["question"].update(correct_choice=1))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and "correct_choice" in out


def test_a_reveal_in_state_question_fails(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "bo", "in", lambda f: f.get("event") == "answered" and f["seq"] == 4)
    reveal = {"question_index": 0, "correct_choice": 1, "choices": {ADA: 0, BO: 1}, "points": {ADA: 0, BO: 160}}
    edit(log, index, lambda f: f["record"].update(reveal=reveal))
    assert run(tmp_path, log) == 1
    assert "$.record.reveal" in capsys.readouterr().out


def test_an_answer_carrying_its_choice_fails(tmp_path):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "answered" and f["seq"] == 3)
    edit(log, index, lambda f: f["record"]["answers"][0].update(choice=0))
    assert run(tmp_path, log) == 1


def test_an_unknown_error_code_fails(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "bo", "in", lambda f: f.get("code") == "locked_out")
    edit(log, index, lambda f: f.update(code="opponent_won"))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and "$.code" in out and "opponent_won" in out


def test_a_reply_with_the_wrong_data_shape_fails(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("ref") == 7 and f["op"] == "reply")
    edit(log, index, lambda f: f["data"].pop("points"))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert "replies.json#/$defs/answer" in out and "points" in out


def test_a_reply_data_shape_is_checked_against_its_request_op(tmp_path, capsys):
    # A valid `profile` reply sent for the `history` request.
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("ref") == 11)
    edit(log, index, lambda f: f.update(data={"player": player(ADA, "ada")}))
    assert run(tmp_path, log) == 1
    assert "replies.json#/$defs/history" in capsys.readouterr().out


def test_a_schema_valid_frame_answered_bad_request_fails(tmp_path, capsys):
    log = transcript()
    log.out("bo", {"op": "leaderboard", "ref": "s9", "bank": "world-capitals", "limit": 7})
    log.inn("bo", error("s9", "bad_request", "limit: must be an integer"))
    assert run(tmp_path, log) == 1
    assert "bad_request ('limit: must be an integer') for the frame of" in capsys.readouterr().out


def test_a_schema_invalid_frame_answered_ok_fails(tmp_path, capsys):
    log = transcript()
    log.out("bo", {"op": "leaderboard", "ref": "s9", "bank": "world-capitals", "limit": 500})
    log.inn("bo", reply("s9", {"entries": []}))
    assert run(tmp_path, log) == 1
    assert "the server accepted the frame" in capsys.readouterr().out


def test_an_invalid_frame_may_go_unanswered(tmp_path):
    log = transcript()
    log.out("eve", '{"op":"banks","pad":"' + "x" * 5000 + '"}')  # closed 1009: no reply
    log.out("eve", {"op": "answer", "ref": 99, "duel_id": DUEL})
    assert run(tmp_path, log, "--require-coverage") == 0


def test_a_choice_past_the_options_may_be_bad_request_but_not_one_within(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("ref") == 6)
    log.lines[index - 1]["frame"] = log.lines[index - 1]["frame"].replace('"choice":9', '"choice":2')
    assert run(tmp_path, log) == 1
    assert "bad_request for choice 2 of question 0, which has 4 options" in capsys.readouterr().out


def test_an_operator_ended_duel_is_unrated(tmp_path, capsys):
    ended = {"winner": None, "reason": "ended",
             "ratings": {ADA: {"before": 1662, "after": 1662}, BO: {"before": 1338, "after": 1338}},
             "placements": {ADA: 1, BO: 1}}

    def log_with(result):
        log = transcript()
        index = line_of(log, "bo", "in", lambda f: f.get("event") == "complete" and f["duel_id"] == DUEL2)
        edit(log, index, lambda f: f["record"].update(result=result))
        return log

    assert run(tmp_path, log_with(ended)) == 0
    assert run(tmp_path, log_with(dict(ended, winner=ADA))) == 1
    assert "$.record.result.winner" in capsys.readouterr().out
    moved = copy.deepcopy(ended)
    moved["ratings"][ADA]["after"] = 1670
    assert run(tmp_path, log_with(moved)) == 1
    assert "an ended duel is unrated" in capsys.readouterr().out


def test_records_are_cross_checked(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "reveal" and f["seq"] == 5)
    edit(log, index, lambda f: f["record"]["reveal"]["points"].update({BO: 0}))  # Bo's right pick, yet 0 points: fine
    edit(log, index, lambda f: f["record"]["reveal"]["points"].update({ADA: 50}))  # points for a wrong pick
    assert run(tmp_path, log) == 1
    assert "points for a wrong pick" in capsys.readouterr().out


def test_events_must_have_their_change_type(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "question")
    edit(log, index, lambda f: f.update(type="INSERT"))
    assert run(tmp_path, log) == 1
    assert "$.type" in capsys.readouterr().out


def test_a_server_frame_with_an_extra_field_fails(tmp_path):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("ref") == 4)
    edit(log, index, lambda f: f.update(extra=1))
    assert run(tmp_path, log) == 1


def test_an_empty_log_exits_2(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert vf.main([str(empty), "--require-coverage"]) == 2
    assert vf.main([str(tmp_path)]) == 2
    assert vf.main([]) == 2
    assert "no frames" in capsys.readouterr().out


def test_a_broken_log_line_fails(tmp_path, capsys):
    log = transcript()
    path = log.write(tmp_path / "frames.jsonl")
    with path.open("a", encoding="utf-8") as file:
        file.write('{"conn": "x", "dir": "sideways", "frame": "{}"}\n')
    assert vf.main([str(path)]) == 1
    assert "log line must be" in capsys.readouterr().out


if __name__ == "__main__":
    directory = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    directory.mkdir(parents=True, exist_ok=True)
    print(transcript().write(directory / "transcript.jsonl"))
