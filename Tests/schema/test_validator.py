"""Tests of validate_frames.py and of docs/schema/ itself, on small hand-made frame logs.

The main transcript is docs/PROTOCOL.md's worked example made complete: real-looking ids,
every field written out, a two-question duel, a reconnect with auth and resume, a second
duel lost by forfeit, a room's game of three, a challenge declined and one accepted, a
rematch, a duel of the other question types (issue 13: multiple, text, number, boolean) with
the answers they refuse, a quiz a player makes (issue 13: every quiz op, from quiz_create to
rate, with refusals), progress (issue 14: player objects with XP, levels and streaks,
notification events, every progress op with refusals), every other op once, and some
deliberate bad input.

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
CY = "c3c3c3c3-3333-4333-8333-333333333333"
ROOM_DUEL = "a4a4a4a4-4444-4444-8444-444444444444"
CHALLENGE_DUEL = "c5c5c5c5-5555-4555-8555-555555555555"
REMATCH_DUEL = "d6d6d6d6-6666-4666-8666-666666666666"
TYPED_DUEL = "b8b8b8b8-8888-4888-8888-b8b8b8b8b8b8"
CH1 = "0c0c0c0c-1111-4c1c-8c1c-0c0c0c0c0c01"
CH2 = "0c0c0c0c-2222-4c2c-8c2c-0c0c0c0c0c02"
TOKEN_C = "5e" + "00112233445566778899aabbccddeeff"[:30] + "0123456789abcdef" * 2
ROOM_CODE = "K7QX3P"
TOKEN_A = "9f" + "0123456789abcdef" * 3 + "0123456789abcd"
TOKEN_B = "7c" + "fedcba9876543210" * 3 + "fedcba9876543210"[:14]
T0 = 1763764800000
Q0 = {"question_id": 17, "prompt": "What is the capital of Peru?", "choices": ["Quito", "Lima", "Bogotá", "La Paz"]}
Q1 = {"question_id": 23, "prompt": "What is the capital of Kenya?", "choices": ["Nairobi", "Mombasa", "Kisumu", "Nakuru"]}
# Issue 13: a question of each other type, and its key as a reveal and a mistake show it.
TQ = [
    {"question_id": 41, "prompt": "Which of these are noble gases?", "type": "multiple",
     "choices": ["Neon", "Nitrogen", "Argon", "Oxygen"]},
    {"question_id": 42, "prompt": "Which planet is called the Red Planet?", "type": "text", "choices": []},
    {"question_id": 43, "prompt": "What is pi, to two decimal places?", "type": "number", "choices": []},
    {"question_id": 44, "prompt": "Sound travels faster in water than in air.", "type": "boolean",
     "choices": ["True", "False"]},
]
TKEYS = [
    {"correct_choice": None, "correct_choices": [0, 2]},
    {"correct_choice": None, "accepted": ["Mars"], "matching": "rough"},
    {"correct_choice": None, "correct_number": 3.14, "tolerance": 0.005},
    {"correct_choice": 0},
]
# Issue 13: a quiz Ada makes, and its questions as she sees them (keys included).
QUIZ = "quiz-101"
T_QUIZ = T0 + 200_000
OQ = [
    {"question_id": 501, "type": "single", "prompt": "One?", "choices": ["a", "b"], "correct_choice": 1,
     "likes": 0, "dislikes": 0},
    {"question_id": 502, "type": "multiple", "prompt": "Some?", "choices": ["a", "b", "c"], "correct_choice": None,
     "correct_choices": [0, 2], "likes": 0, "dislikes": 0},
    {"question_id": 503, "type": "boolean", "prompt": "True?", "choices": ["True", "False"], "correct_choice": 1,
     "likes": 0, "dislikes": 0},
    {"question_id": 504, "type": "text", "prompt": "Name?", "choices": [], "correct_choice": None,
     "accepted": ["Ada", "Ada Lovelace"], "matching": "case_insensitive", "likes": 0, "dislikes": 0},
    {"question_id": 505, "type": "number", "prompt": "Pi?", "choices": [], "correct_choice": None,
     "correct_number": 3.14, "tolerance": 0.01, "likes": 0, "dislikes": 0},
]
# What question_add sent for each of OQ.
OQ_SENT = [
    {"type": "single", "prompt": "One?", "choices": ["a", "b"], "correct_choice": 1},
    {"type": "multiple", "prompt": " Some?\n", "choices": ["a", "b", "c "], "correct_choices": [2, 0]},
    {"type": "boolean", "prompt": "True?", "correct_choice": 1, "choices": None},
    {"type": "text", "prompt": "Name?", "accepted": ["Ada", "Ada Lovelace"], "matching": "case_insensitive"},
    {"type": "number", "prompt": "Pi?", "correct_number": 3.14, "tolerance": 0.01},
]
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


# Issue 14: level titles, badge colours and lines by the level each starts at (migration 015).
LEVELS = [(1, "Newcomer", "#6b7280", "You're just getting started."),
          (3, "Learner", "#2563eb", "You're finding your feet."),
          (5, "Scholar", "#059669", "Knowledge is piling up."),
          (10, "Expert", "#d97706", "People ask you for answers now."),
          (20, "Master", "#dc2626", "Few questions still surprise you."),
          (35, "Grandmaster", "#7c3aed", "A quiz legend in the making."),
          (50, "Legend", "#111827", "There is no quiz you fear.")]
WEEK = "2025-11-17"  # the Monday of T0's week
T_PROGRESS = T0 + 300_000


def progress(xp=0, streak=(0, 0)):
    """A player's progress fields as progress_json writes them (a jsonb object: keys by length)."""
    level = 1
    while 50 * (level + 1) * level <= xp:
        level += 1
    _, title, color, line = [row for row in LEVELS if row[0] <= level][-1]
    return {"xp": xp, "level": level, "streak": {"best": streak[1], "current": streak[0]},
            "level_xp": 50 * level * (level - 1), "level_line": line, "level_color": color, "level_title": title,
            "next_level_xp": 50 * (level + 1) * level}


def player(pid, name, games=0, wins=0, losses=0, draws=0, score=0, capitals=1500, xp=0, streak=(0, 0)):
    return {"id": pid, "username": name, "games": games, "wins": wins, "losses": losses, "draws": draws,
            "total_score": score, "ratings": {"chemical-elements": 1500, "general-science": 1500,
                                              "world-capitals": capitals}, **progress(xp, streak)}


def jsonb_text(value):
    """`value` as Postgres prints jsonb: keys by length, then bytes; ", " and ": " between."""
    def ordered(v):
        if isinstance(v, dict):
            return {k: ordered(v[k]) for k in sorted(v, key=lambda k: (len(k.encode()), k.encode()))}
        if isinstance(v, list):
            return [ordered(x) for x in v]
        return v
    return json.dumps(ordered(value), ensure_ascii=False, separators=(", ", ": "))


def notification(nid, kind, data, at_ms):
    return {"id": nid, "kind": kind, "data": data, "created_at": iso(at_ms)}


def notification_event(rec, server_ms=None):
    """A notification event as notify_player builds it: commit_timestamp is the record's created_at."""
    at = datetime.datetime.strptime(rec["created_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    at_ms = round(at.timestamp() * 1000)
    return {"op": "event", "event": "notification", "table": "notifications", "type": "INSERT",
            "commit_timestamp": rec["created_at"], "server_time_ms": server_ms or at_ms + 1, "record": rec}


def goal(kind, bank, target, done, reached=False):
    # (added, issue 27) when it is due (the end of its week's Sunday, UTC here), and no reminder.
    return {"kind": kind, "bank": bank, "target": target, "progress": done, "reached": reached, "week_start": WEEK,
            "due_at": WEEK + "T00:00:00.000Z", "remind_at": None, "reminded": False}


def question(index, q, opens):
    return {"index": index, "question_id": q["question_id"], "prompt": q["prompt"], "type": q.get("type", "single"),
            "choices": q["choices"], "opens_at_ms": opens, "deadline_ms": opens + 10_000}


def picks(answers):
    """A reveal's `choices` and `answers` from each player's answer object (None: no answer)."""
    return {"choices": {p: (a or {}).get("choice") for p, a in answers.items()}, "answers": dict(answers)}


def revealed(index, qtype, key, answers, points):
    """A reveal, its keys in the server's order."""
    return {"question_index": index, "type": qtype, **key, **picks(answers), "points": points}


def answer(player, correct, at_ms, credit_ms=0):
    """An entry of a record's `answers`; `credit_ms` (issue 26): how much earlier than at_ms it counted."""
    return {"player": player, "correct": correct, "at_ms": at_ms, "credit_ms": credit_ms}


def record(duel, state, scores=(0, 0), index=0, q=None, answers=(), reveal=None, result=None, connected=(True, True),
           lags=(0, 0)):
    return {
        "id": duel, "bank": "world-capitals", "mode": "ranked", "rated": True, "state": state,
        "players": [
            {"id": ADA, "username": "ada", "rating": 1500, "score": scores[0], "connected": connected[0],
             "lag_ms": lags[0]},
            {"id": BO, "username": "bob", "rating": 1500, "score": scores[1], "connected": connected[1],
             "lag_ms": lags[1]},
        ],
        "question_count": 2, "question_index": index, "question": q, "answers": list(answers),
        "reveal": reveal, "result": result,
    }


def room(members, state="open", host=ADA, duel=None, games=0, connected=()):
    names = {ADA: "ada", BO: "bob", CY: "cy_3"}
    return {"code": ROOM_CODE, "bank": "world-capitals", "host": host, "questions": 1, "answer_ms": 10_000,
            "max_players": 3, "members": [{"id": m, "username": names[m], "connected": m not in connected} for m in members],
            "state": state, "duel_id": duel, "games": games}


def challenge(cid, state, duel=None, made=0):
    return {"id": cid, "from": {"id": BO, "username": "bob"}, "to": {"id": ADA, "username": "ada"},
            "bank": "world-capitals", "state": state, "created_at": iso(made), "expires_at": iso(made + 300_000),
            "duel_id": duel}


def quiz_record(**changes):
    """Ada's quiz as the server shows it, with `changes`."""
    base = {"quiz": QUIZ, "title": "Mixed", "description": "All five\ntypes", "theme": "science",
            "difficulty": "medium", "owner": {"id": ADA, "username": "ada"}, "published": False,
            "published_at": None, "in_matchmaking": False, "questions": 0, "plays": 0, "saves": 0, "likes": 0,
            "dislikes": 0, "unpublished_reason": None, "your_vote": 0, "saved": False}
    base.update(changes)
    return base


def row_event(kind, table, kind_type, at_ms, rec):
    return {"op": "event", "event": kind, "table": table, "type": kind_type, "commit_timestamp": iso(at_ms),
            "server_time_ms": at_ms, "record": rec}


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
    log.inn(a, error(6, "bad_request", "choice: must be between 0 and 3"))
    log.out(a, {"op": "answer", "ref": 7, "duel_id": DUEL, "question_index": 0, "choice": 0})
    log.inn(a, reply(7, {"correct": False, "points": 0}))
    ans_a0 = answer(ADA, False, o0 + 2_100)
    both(event("answered", DUEL, 3, o0 + 2_100, record(DUEL, "question", q=q0, answers=[ans_a0])))
    log.out(b, {"op": "answer", "ref": "s3", "duel_id": DUEL, "question_index": 0, "choice": 1})
    log.inn(b, reply("s3", {"correct": True, "points": 160}))
    ans_b0 = answer(BO, True, o0 + 4_500)
    answers0 = [ans_a0, ans_b0]
    both(event("answered", DUEL, 4, o0 + 4_500, record(DUEL, "question", (0, 160), q=q0, answers=answers0)))
    reveal0 = revealed(0, "single", {"correct_choice": 1}, {ADA: {"choice": 0}, BO: {"choice": 1}}, {ADA: 0, BO: 160})
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
    # Issue 26: the server measured Ada's lag during the reveal (no event: the next record shows it).
    lags = (35, 0)
    for conn in (a, b, a2):
        log.inn(conn, event("question", DUEL, 6, o1, record(DUEL, "question", (0, 160), 1, q1, lags=lags)))
    log.out(a, {"op": "answer", "ref": 8, "duel_id": DUEL, "question_index": 1, "choice": 0, "points": 999})
    log.inn(a, reply(8, {"correct": True, "points": 200}))
    ans_a1 = answer(ADA, True, o1 + 300, credit_ms=35)
    reveal1 = revealed(1, "single", {"correct_choice": 0}, {ADA: {"choice": 0}, BO: None}, {ADA: 200, BO: 0})
    for conn in (a, b, a2):
        log.inn(conn, event("answered", DUEL, 7, o1 + 300,
                            record(DUEL, "question", (200, 160), 1, q1, [ans_a1], lags=lags)))
        log.inn(conn, event("reveal", DUEL, 8, o1 + 300,
                            record(DUEL, "reveal", (200, 160), 1, q1, [ans_a1], reveal1, lags=lags)))
    log.out(b, {"op": "answer", "ref": "s4", "duel_id": DUEL, "question_index": 1, "choice": 2})
    log.inn(b, error("s4", "locked_out", "your opponent already won that question"))
    result = {"winner": ADA, "reason": "completed",
              "ratings": {ADA: {"before": 1500, "after": 1662}, BO: {"before": 1500, "after": 1338}},
              "placements": {ADA: 1, BO: 2}}
    final = record(DUEL, "finished", (200, 160), 1, q1, [ans_a1], reveal1, result, lags=lags)
    for conn in (a, b, a2):
        log.inn(conn, event("complete", DUEL, 9, o1 + 2_300, final))
    # The reports.
    log.out(a, {"op": "leaderboard", "ref": 9, "bank": "world-capitals"})
    log.inn(a, reply(9, {"entries": [
        {"rank": 1, "player": ADA, "username": "ada", "rating": 1662, "games": 1, "wins": 1},
        {"rank": 2, "player": BO, "username": "bob", "rating": 1338, "games": 1, "wins": 0}]}))
    log.out(a, {"op": "profile", "ref": 10})
    log.inn(a, reply(10, {"player": player(ADA, "ada", 1, 1, 0, 0, 200, 1662, xp=50, streak=(1, 1))}))
    log.out(b, {"op": "profile", "ref": "s5", "player": ADA, "limit": None})
    log.inn(b, reply("s5", {"player": player(ADA, "ada", 1, 1, 0, 0, 200, 1662, xp=50, streak=(1, 1))}))
    log.out(a, {"op": "history", "ref": 11, "limit": 5})
    log.inn(a, reply(11, {"duels": [final]}))
    log.out(a, {"op": "mistakes", "ref": 12})
    log.inn(a, reply(12, {"questions": [dict(Q0, correct_choice=1, your_choice=0, duel_id=DUEL, type="single",
                                             your_answer={"choice": 0})], "learned_count": 0}))
    log.out(b, {"op": "mistakes", "ref": "s6", "limit": 20})
    log.inn(b, reply("s6", {"questions": [dict(Q1, correct_choice=0, your_choice=None, duel_id=DUEL, type="single",
                                               your_answer=None)], "learned_count": 0}))
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
    rooms_challenges_and_rematch(log)
    typed_questions(log)
    quizzes(log)
    progress_ops(log)
    # Sign out and in again.
    log.out(a, {"op": "logout", "ref": 15})
    log.inn(a, reply(15))
    log.out(a, {"op": "login", "ref": 16, "username": "ADA", "password": "correct horse"})
    log.inn(a, reply(16, {"player": player(ADA, "ada", 3, 2, 1, 0, 200, 1660, xp=450, streak=(1, 1)),
                          "token": TOKEN_A[::-1]}))
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


def rooms_challenges_and_rematch(log):
    """Issue 12: a room's game of three, challenges, a rematch (appended to the transcript)."""
    a, b, cy = "ada", "bo", "cy"
    t1 = T0 + 60_000

    def to(conns, frame):
        for conn in conns:
            log.inn(conn, frame)

    # A room: Ada creates it, Bo and Cy join (codes as people type them), Bo may not start it.
    log.out(cy, {"op": "signup", "ref": 1, "username": "cy_3", "password": "sesame street"})
    log.inn(cy, reply(1, {"player": player(CY, "cy_3"), "token": TOKEN_C}))
    log.out(a, {"op": "room_create", "ref": 19, "bank": "world-capitals", "questions": 1, "answer_ms": 10_000,
                "max_players": 3})
    r0 = room([ADA])
    log.inn(a, row_event("room", "rooms", "INSERT", t1, r0))
    log.inn(a, reply(19, {"room": r0}))
    log.out(b, {"op": "room_join", "ref": "s8", "code": " k7qx3p "})
    r1 = room([ADA, BO])
    to((a, b), row_event("room", "rooms", "UPDATE", t1 + 1_000, r1))
    log.inn(b, reply("s8", {"room": r1}))
    log.out(cy, {"op": "room_join", "ref": 2, "code": ROOM_CODE})
    r2 = room([ADA, BO, CY])
    to((a, b, cy), row_event("room", "rooms", "UPDATE", t1 + 2_000, r2))
    log.inn(cy, reply(2, {"room": r2}))
    log.out(b, {"op": "room_start", "ref": "s9"})
    log.inn(b, error("s9", "not_host", "only the room's host can do that"))
    log.out(cy, {"op": "queue", "ref": 3, "bank": "world-capitals"})
    log.inn(cy, error(3, "in_room", "you are in a room; leave it first"))
    # Ada starts a game of one question: Ada wrong, Cy right (Bo locked out); Cy places first.
    log.out(a, {"op": "room_start", "ref": 20})
    r3 = room([ADA, BO, CY], "playing", duel=ROOM_DUEL, games=1)
    to((a, b, cy), row_event("room", "rooms", "UPDATE", t1 + 3_000, r3))
    log.inn(a, reply(20, {"duel_id": ROOM_DUEL, "room": r3}))
    seats = [{"id": ADA, "username": "ada", "rating": 1671, "score": 0, "connected": True, "lag_ms": 35},
             {"id": BO, "username": "bob", "rating": 1331, "score": 0, "connected": True, "lag_ms": 0},
             {"id": CY, "username": "cy_3", "rating": 1500, "score": 0, "connected": True, "lag_ms": 0}]
    game = dict(record(ROOM_DUEL, "countdown"), mode="room", rated=False, players=seats, question_count=1)
    to((a, b, cy), event("init", ROOM_DUEL, 1, t1 + 3_000, game))
    o = t1 + 6_000
    q = question(0, Q0, o)
    to((a, b, cy), event("question", ROOM_DUEL, 2, o, dict(game, state="question", question=q)))
    log.out(a, {"op": "answer", "ref": 21, "duel_id": ROOM_DUEL, "question_index": 0, "choice": 3})
    log.inn(a, reply(21, {"correct": False, "points": 0}))
    wrong = answer(ADA, False, o + 1_000, credit_ms=35)
    to((a, b, cy), event("answered", ROOM_DUEL, 3, o + 1_000, dict(game, state="question", question=q, answers=[wrong])))
    log.out(cy, {"op": "answer", "ref": 4, "duel_id": ROOM_DUEL, "question_index": 0, "choice": 1})
    log.inn(cy, reply(4, {"correct": True, "points": 180}))
    right = answer(CY, True, o + 2_000)
    scored = copy.deepcopy(seats)
    scored[2]["score"] = 180
    answered = dict(game, state="question", players=scored, question=q, answers=[wrong, right])
    to((a, b, cy), event("answered", ROOM_DUEL, 4, o + 2_000, answered))
    shown = revealed(0, "single", {"correct_choice": 1}, {ADA: {"choice": 3}, BO: None, CY: {"choice": 1}},
                     {ADA: 0, BO: 0, CY: 180})
    to((a, b, cy), event("reveal", ROOM_DUEL, 5, o + 2_000, dict(answered, state="reveal", reveal=shown)))
    unchanged = {ADA: {"before": 1671, "after": 1671}, BO: {"before": 1331, "after": 1331},
                 CY: {"before": 1500, "after": 1500}}
    done = dict(answered, state="finished", reveal=shown, result={
        "winner": None, "reason": "completed", "ratings": unchanged, "placements": {CY: 1, ADA: 2, BO: 2}})
    to((a, b, cy), event("complete", ROOM_DUEL, 6, o + 4_000, done))
    r4 = room([ADA, BO, CY], duel=ROOM_DUEL, games=1)
    to((a, b, cy), row_event("room", "rooms", "UPDATE", o + 4_000, r4))
    # Everyone leaves: the host role passes on, the last one out closes the room.
    log.out(a, {"op": "room_leave", "ref": 22})
    r5 = room([BO, CY], host=BO, duel=ROOM_DUEL, games=1)
    to((a, b, cy), row_event("room", "rooms", "UPDATE", o + 5_000, r5))
    log.inn(a, reply(22, {"room": r5}))
    log.out(b, {"op": "room_leave", "ref": "s10"})
    r6 = room([CY], host=CY, duel=ROOM_DUEL, games=1)
    to((b, cy), row_event("room", "rooms", "UPDATE", o + 6_000, r6))
    log.inn(b, reply("s10", {"room": r6}))
    log.out(cy, {"op": "room_leave", "ref": 5})
    r7 = room([], "closed", host=CY, duel=ROOM_DUEL, games=1)
    log.inn(cy, row_event("room", "rooms", "DELETE", o + 7_000, r7))
    log.inn(cy, reply(5, {"room": r7}))
    log.out(a, {"op": "room_join", "ref": 23, "code": ROOM_CODE})
    log.inn(a, error(23, "unknown_room", "no such room"))
    # Challenges: Bo challenges Ada, who declines; Bo asks again, Ada accepts, Bo gives up.
    t2 = o + 10_000
    log.out(b, {"op": "challenge", "ref": "s11", "username": "ADA", "bank": "world-capitals"})
    c1 = challenge(CH1, "pending", made=t2)
    to((b, a), row_event("challenge", "challenges", "INSERT", t2, c1))
    log.inn(a, jsonb_text(notification_event(N1)))
    log.inn(b, reply("s11", {"challenge_id": CH1, "challenge": c1}))
    log.out(a, {"op": "challenges", "ref": 24})
    log.inn(a, reply(24, {"challenges": [c1]}))
    log.out(a, {"op": "challenge_decline", "ref": 25, "challenge_id": CH1})
    declined = challenge(CH1, "declined", made=t2)
    to((a, b), row_event("challenge", "challenges", "UPDATE", t2 + 1_000, declined))
    log.inn(a, reply(25, {"challenge": declined}))
    log.out(b, {"op": "challenge", "ref": "s12", "username": "ada", "bank": "world-capitals"})
    c2 = challenge(CH2, "pending", made=t2 + 2_000)
    to((b, a), row_event("challenge", "challenges", "INSERT", t2 + 2_000, c2))
    log.inn(a, jsonb_text(notification_event(N2)))
    log.inn(b, reply("s12", {"challenge_id": CH2, "challenge": c2}))
    log.out(a, {"op": "challenge_accept", "ref": 26, "challenge_id": CH1})
    log.inn(a, error(26, "unknown_challenge", "that challenge was already declined"))
    log.out(a, {"op": "challenge_accept", "ref": 27, "challenge_id": CH2})
    accepted = challenge(CH2, "accepted", CHALLENGE_DUEL, made=t2 + 2_000)
    to((a, b), row_event("challenge", "challenges", "UPDATE", t2 + 3_000, accepted))
    log.inn(a, reply(27, {"duel_id": CHALLENGE_DUEL, "challenge": accepted}))
    duel = dict(record(CHALLENGE_DUEL, "countdown"), mode="challenge", rated=False)
    duel["players"] = [duel["players"][1], duel["players"][0]]  # challenger first
    to((a, b), event("init", CHALLENGE_DUEL, 1, t2 + 3_000, duel))
    log.out(b, {"op": "forfeit", "ref": "s13", "duel_id": CHALLENGE_DUEL})
    log.inn(b, reply("s13"))
    to((a, b), event("complete", CHALLENGE_DUEL, 2, t2 + 4_000, dict(duel, state="finished", result={
        "winner": ADA, "reason": "forfeit", "ratings": {BO: {"before": 1500, "after": 1500},
                                                         ADA: {"before": 1500, "after": 1500}},
        "placements": {ADA: 1, BO: 2}})))
    log.out(cy, {"op": "challenge", "ref": 6, "username": "Cy_3", "bank": "world-capitals"})
    log.inn(cy, error(6, "bad_request", "username: you cannot challenge yourself"))
    log.out(cy, {"op": "challenge", "ref": 7, "username": "nobody", "bank": "world-capitals"})
    log.inn(cy, error(7, "unknown_player", "no such player"))
    # A rematch of duel 2: Bo offers, Ada takes it; practice has none.
    t3 = t2 + 10_000
    log.out(b, {"op": "rematch", "ref": "s14", "duel_id": DUEL2})
    offer = {"duel_id": DUEL2, "from": BO, "state": "offered", "expires_at": iso(t3 + 30_000), "new_duel_id": None}
    to((b, a), row_event("rematch", "rematches", "INSERT", t3, offer))
    log.inn(b, reply("s14", {"state": "offered", "expires_at": iso(t3 + 30_000)}))
    log.out(a, {"op": "rematch", "ref": 28, "duel_id": DUEL2})
    taken = {"duel_id": DUEL2, "from": ADA, "state": "accepted", "expires_at": None, "new_duel_id": REMATCH_DUEL}
    to((a, b), row_event("rematch", "rematches", "UPDATE", t3 + 2_000, taken))
    log.inn(a, reply(28, {"state": "started", "duel_id": REMATCH_DUEL}))
    again = record(REMATCH_DUEL, "countdown")
    again["players"][0]["rating"], again["players"][1]["rating"] = 1671, 1331
    to((a, b), event("init", REMATCH_DUEL, 1, t3 + 2_000, again))
    log.out(a, {"op": "forfeit", "ref": 29, "duel_id": REMATCH_DUEL})
    log.inn(a, reply(29))
    to((a, b), event("complete", REMATCH_DUEL, 2, t3 + 3_000, dict(again, state="finished", result={
        "winner": BO, "reason": "forfeit", "ratings": {ADA: {"before": 1671, "after": 1660},
                                                       BO: {"before": 1331, "after": 1342}},
        "placements": {BO: 1, ADA: 2}})))
    log.out(a, {"op": "rematch", "ref": 30, "duel_id": DUEL3})
    log.inn(a, error(30, "bad_request", "duel_id: only ranked duels have rematches"))


def typed_questions(log):
    """Issue 13: a ranked duel of a multiple, a text, a number and a boolean question, with the
    answers each refuses (appended to the transcript), and Bo's mistakes of those types."""
    a, b = "ada", "bo"
    t4 = T0 + 100_000

    def both(frame):
        log.inn(a, frame)
        log.inn(b, frame)

    def rec(state, scores=(0, 0), index=0, q=None, answers=(), reveal=None, result=None):
        return dict(record(TYPED_DUEL, state, scores, index, q, answers, reveal, result),
                    bank="general-science", question_count=4)

    for conn, player_id, ref, at in ((a, ADA, 40, t4), (b, BO, "t1", t4 + 100)):
        log.out(conn, {"op": "queue", "ref": ref, "bank": "general-science"})
        log.inn(conn, reply(ref, {"queued_at": iso(at)}))
        log.inn(conn, {"op": "event", "event": "queued", "table": "match_queue", "type": "INSERT",
                       "commit_timestamp": iso(at), "server_time_ms": at + 1,
                       "record": {"player": player_id, "bank": "general-science", "queued_at": iso(at)}})
    both(event("init", TYPED_DUEL, 1, t4 + 110, rec("countdown")))
    # Multiple: the wrong field, none picked, a repeat, one past the options; Ada gets the set right.
    o0 = t4 + 3_110
    q0 = question(0, TQ[0], o0)
    both(event("question", TYPED_DUEL, 2, o0, rec("question", q=q0)))
    log.out(a, {"op": "answer", "ref": 41, "duel_id": TYPED_DUEL, "question_index": 0, "choice": 0})
    log.inn(a, error(41, "bad_request", "choices: this multiple question is answered with `choices`"))
    log.out(a, {"op": "answer", "ref": 42, "duel_id": TYPED_DUEL, "question_index": 0, "choices": []})
    log.inn(a, error(42, "bad_request", "choices: pick at least one"))
    log.out(b, {"op": "answer", "ref": "t2", "duel_id": TYPED_DUEL, "question_index": 0, "choices": [2, 2]})
    log.inn(b, error("t2", "bad_request", "choices: must be distinct"))
    log.out(b, {"op": "answer", "ref": "t3", "duel_id": TYPED_DUEL, "question_index": 0, "choices": [0, 5],
                "text": None})
    log.inn(b, error("t3", "bad_request", "choices: each must be between 0 and 3"))
    log.out(a, {"op": "answer", "ref": 43, "duel_id": TYPED_DUEL, "question_index": 0, "choices": [2, 0]})
    log.inn(a, reply(43, {"correct": True, "points": 190}))
    won = [answer(ADA, True, o0 + 1_000)]
    both(event("answered", TYPED_DUEL, 3, o0 + 1_000, rec("question", (190, 0), q=q0, answers=won)))
    reveal0 = revealed(0, "multiple", TKEYS[0], {ADA: {"choices": [2, 0]}, BO: None}, {ADA: 190, BO: 0})
    both(event("reveal", TYPED_DUEL, 4, o0 + 1_000, rec("reveal", (190, 0), q=q0, answers=won, reveal=reveal0)))
    log.out(b, {"op": "answer", "ref": "t4", "duel_id": TYPED_DUEL, "question_index": 0, "choices": [0, 2]})
    log.inn(b, error("t4", "locked_out", "your opponent already won that question"))
    # Text: Bo is wrong, Ada sends a number first, then a text right by rough matching.
    o1 = o0 + 4_000
    q1 = question(1, TQ[1], o1)
    both(event("question", TYPED_DUEL, 5, o1, rec("question", (190, 0), 1, q1)))
    log.out(b, {"op": "answer", "ref": "t5", "duel_id": TYPED_DUEL, "question_index": 1, "text": "Venus"})
    log.inn(b, reply("t5", {"correct": False, "points": 0}))
    venus = answer(BO, False, o1 + 1_500)
    both(event("answered", TYPED_DUEL, 6, o1 + 1_500, rec("question", (190, 0), 1, q1, [venus])))
    log.out(a, {"op": "answer", "ref": 44, "duel_id": TYPED_DUEL, "question_index": 1, "number": 4})
    log.inn(a, error(44, "bad_request", "text: this text question is answered with `text`"))
    log.out(a, {"op": "answer", "ref": 45, "duel_id": TYPED_DUEL, "question_index": 1, "text": "mars "})
    log.inn(a, reply(45, {"correct": True, "points": 170}))
    mars = [venus, answer(ADA, True, o1 + 3_000)]
    both(event("answered", TYPED_DUEL, 7, o1 + 3_000, rec("question", (360, 0), 1, q1, mars)))
    reveal1 = revealed(1, "text", TKEYS[1], {ADA: {"text": "mars "}, BO: {"text": "Venus"}}, {ADA: 170, BO: 0})
    both(event("reveal", TYPED_DUEL, 8, o1 + 3_000, rec("reveal", (360, 0), 1, q1, mars, reveal1)))
    # Number: Bo is right at once.
    o2 = o1 + 5_000
    q2 = question(2, TQ[2], o2)
    both(event("question", TYPED_DUEL, 9, o2, rec("question", (360, 0), 2, q2)))
    log.out(b, {"op": "answer", "ref": "t6", "duel_id": TYPED_DUEL, "question_index": 2, "number": 3.14})
    log.inn(b, reply("t6", {"correct": True, "points": 180}))
    pi = [answer(BO, True, o2 + 2_000)]
    both(event("answered", TYPED_DUEL, 10, o2 + 2_000, rec("question", (360, 180), 2, q2, pi)))
    reveal2 = revealed(2, "number", TKEYS[2], {ADA: None, BO: {"number": 3.14}}, {ADA: 0, BO: 180})
    both(event("reveal", TYPED_DUEL, 11, o2 + 2_000, rec("reveal", (360, 180), 2, q2, pi, reveal2)))
    # Boolean: past True and False, then Ada wrong and Bo right.
    o3 = o2 + 4_000
    q3 = question(3, TQ[3], o3)
    both(event("question", TYPED_DUEL, 12, o3, rec("question", (360, 180), 3, q3)))
    log.out(a, {"op": "answer", "ref": 46, "duel_id": TYPED_DUEL, "question_index": 3, "choice": 2})
    log.inn(a, error(46, "bad_request", "choice: must be between 0 and 1"))
    log.out(a, {"op": "answer", "ref": 47, "duel_id": TYPED_DUEL, "question_index": 3, "choice": 1})
    log.inn(a, reply(47, {"correct": False, "points": 0}))
    false = answer(ADA, False, o3 + 1_000)
    both(event("answered", TYPED_DUEL, 13, o3 + 1_000, rec("question", (360, 180), 3, q3, [false])))
    log.out(b, {"op": "answer", "ref": "t7", "duel_id": TYPED_DUEL, "question_index": 3, "choice": 0})
    log.inn(b, reply("t7", {"correct": True, "points": 150}))
    both_answers = [false, answer(BO, True, o3 + 5_000)]
    both(event("answered", TYPED_DUEL, 14, o3 + 5_000, rec("question", (360, 330), 3, q3, both_answers)))
    reveal3 = revealed(3, "boolean", TKEYS[3], {ADA: {"choice": 1}, BO: {"choice": 0}}, {ADA: 0, BO: 150})
    both(event("reveal", TYPED_DUEL, 15, o3 + 5_000, rec("reveal", (360, 330), 3, q3, both_answers, reveal3)))
    result = {"winner": ADA, "reason": "completed",
              "ratings": {ADA: {"before": 1500, "after": 1662}, BO: {"before": 1500, "after": 1338}},
              "placements": {ADA: 1, BO: 2}}
    both(event("complete", TYPED_DUEL, 16, o3 + 7_000,
               rec("finished", (360, 330), 3, q3, both_answers, reveal3, result)))
    # Bo's notebook: the multiple question missed, the text one wrong, then version 1's.
    log.out(b, {"op": "mistakes", "ref": "t8"})
    log.inn(b, reply("t8", {"questions": [
        dict(question_id=41, prompt=TQ[0]["prompt"], choices=TQ[0]["choices"], correct_choice=None, your_choice=None,
             duel_id=TYPED_DUEL, type="multiple", correct_choices=[0, 2], your_answer=None),
        dict(question_id=42, prompt=TQ[1]["prompt"], choices=[], correct_choice=None, your_choice=None,
             duel_id=TYPED_DUEL, type="text", accepted=["Mars"], matching="rough", your_answer={"text": "Venus"}),
        dict(Q0, correct_choice=1, your_choice=None, duel_id=ROOM_DUEL, type="single", your_answer=None),
        dict(Q1, correct_choice=0, your_choice=None, duel_id=DUEL, type="single", your_answer=None),
    ], "learned_count": 0}))


def quizzes(log):
    """Issue 13: Ada makes a quiz of every question type, edits and publishes it; Bo finds it in
    the catalog, saves, rates and reports it; then it goes private and is deleted. Every quiz op
    once at least, with refusals (appended to the transcript)."""
    a, b = "ada", "bo"
    log.out(a, {"op": "quiz_create", "ref": "q1", "title": "  Mixed  ", "description": "All five\ntypes",
                "theme": "Science", "difficulty": "medium"})
    log.inn(a, reply("q1", {"quiz": quiz_record()}))
    for n, (sent, shown) in enumerate(zip(OQ_SENT, OQ), 2):
        log.out(a, dict({"op": "question_add", "ref": f"q{n}", "quiz": QUIZ}, **sent))
        log.inn(a, reply(f"q{n}", {"question": shown}))
    # Refusals: a key field of another type, choices that repeat (letter case and spaces aside), no title.
    log.out(a, {"op": "question_add", "ref": "q7", "quiz": QUIZ, "type": "boolean", "prompt": "x",
                "choices": ["Yes", "No"], "correct_choice": 0})
    log.inn(a, error("q7", "bad_request", "choices: is not a field of boolean questions"))
    log.out(a, {"op": "question_add", "ref": "q8", "quiz": QUIZ, "type": "single", "prompt": "x",
                "choices": ["a", "A "], "correct_choice": 0})
    log.inn(a, error("q8", "bad_request", "choices: must be distinct"))
    log.out(a, {"op": "quiz_create", "ref": "q9", "description": "no title"})
    log.inn(a, error("q9", "bad_request", "title: is required"))
    log.out(a, {"op": "quiz_questions", "ref": "q10", "quiz": QUIZ})
    log.inn(a, reply("q10", {"quiz": quiz_record(questions=5), "questions": OQ}))
    log.out(b, {"op": "quiz_questions", "ref": "r1", "quiz": QUIZ})
    log.inn(b, error("r1", "not_owner", "that quiz is not yours"))
    # Edits: the quiz's fields, a new version of a question, a question deleted; then publishing.
    log.out(a, {"op": "quiz_update", "ref": "q11", "quiz": QUIZ, "title": "Five types", "difficulty": "hard",
                "theme": None})
    mine = dict(title="Five types", difficulty="hard")
    log.inn(a, reply("q11", {"quiz": quiz_record(questions=5, **mine)}))
    log.out(a, {"op": "question_update", "ref": "q12", "question_id": 501, "type": "text", "prompt": "One, typed?",
                "accepted": ["b"]})
    log.inn(a, reply("q12", {"question": {"question_id": 506, "type": "text", "prompt": "One, typed?", "choices": [],
                                          "correct_choice": None, "accepted": ["b"], "matching": "rough",
                                          "likes": 0, "dislikes": 0}}))
    log.out(a, {"op": "question_delete", "ref": "q13", "question_id": 505})
    log.inn(a, reply("q13"))
    log.out(a, {"op": "question_delete", "ref": "q14", "question_id": 501})
    log.inn(a, error("q14", "unknown_question", "no such question"))
    published = dict(mine, questions=4, published=True, published_at=iso(T_QUIZ))
    log.out(a, {"op": "quiz_publish", "ref": "q15", "quiz": QUIZ})
    log.inn(a, reply("q15", {"quiz": quiz_record(**published)}))
    log.out(a, {"op": "my_quizzes", "ref": "q16"})
    log.inn(a, reply("q16", {"quizzes": [quiz_record(**published)]}))
    log.out(a, {"op": "quiz_create", "ref": "q17", "title": "One too many"})
    log.inn(a, error("q17", "limit_reached", "at most 50 quizzes per player"))
    # Bo: the catalog a page at a time, a save, votes, a report.
    log.out(b, {"op": "catalog", "ref": "r2", "search": "types", "sort": "new", "limit": 1})
    log.inn(b, reply("r2", {"quizzes": [quiz_record(**published)], "next_cursor": "1"}))
    log.out(b, {"op": "catalog", "ref": "r3", "search": "types", "sort": "new", "limit": 1, "cursor": "1"})
    log.inn(b, reply("r3", {"quizzes": [], "next_cursor": None}))
    log.out(b, {"op": "catalog", "ref": "r4", "sort": "best"})
    log.inn(b, error("r4", "bad_request", "sort: must be popular, new or top_rated"))
    saved = dict(published, saves=1, saved=True)
    log.out(b, {"op": "quiz_save", "ref": "r5", "quiz": QUIZ})
    log.inn(b, reply("r5", {"quiz": quiz_record(**saved)}))
    log.out(b, {"op": "library", "ref": "r6"})
    log.inn(b, reply("r6", {"quizzes": [quiz_record(**saved)]}))
    log.out(b, {"op": "rate", "ref": "r7", "quiz": QUIZ, "value": 1})
    log.inn(b, reply("r7", {"likes": 1, "dislikes": 0, "your_vote": 1}))
    log.out(b, {"op": "rate", "ref": "r8", "question_id": 502, "value": -1})
    log.inn(b, reply("r8", {"likes": 0, "dislikes": 1, "your_vote": -1}))
    log.out(a, {"op": "rate", "ref": "q18", "quiz": QUIZ, "value": 1})
    log.inn(a, error("q18", "bad_request", "quiz: you cannot rate your own quiz"))
    log.out(b, {"op": "rate", "ref": "r9", "quiz": QUIZ, "question_id": 502, "value": 1})
    log.inn(b, error("r9", "bad_request", "question_id: send quiz or question_id, not both"))
    log.out(b, {"op": "quiz", "ref": "r10", "quiz": QUIZ})
    log.inn(b, reply("r10", {"quiz": quiz_record(**dict(saved, likes=1, your_vote=1))}))
    log.out(b, {"op": "report", "ref": "r11", "quiz": QUIZ, "reason": "copied from a textbook"})
    log.inn(b, reply("r11"))
    log.out(b, {"op": "report", "ref": "r12", "quiz": QUIZ, "question_id": 502, "reason": "x"})
    log.inn(b, error("r12", "bad_request", "question_id: send quiz or question_id, not both"))
    log.out(b, {"op": "quiz_unsave", "ref": "r13", "quiz": QUIZ})
    log.inn(b, reply("r13"))
    log.out(b, {"op": "quiz_update", "ref": "r14", "quiz": "world-capitals", "title": "Mine"})
    log.inn(b, error("r14", "not_owner", "that quiz is not yours"))
    # Private again, then gone.
    log.out(a, {"op": "quiz_unpublish", "ref": "q19", "quiz": QUIZ})
    log.inn(a, reply("q19", {"quiz": quiz_record(**dict(mine, questions=4, likes=1))}))
    log.out(a, {"op": "quiz_delete", "ref": "q20", "quiz": QUIZ})
    log.inn(a, reply("q20"))


ACHIEVEMENTS = [
    ("first_game", "First steps", "Finish your first game."),
    ("first_win", "First win", "Win a game against others."),
    ("perfect_game", "Perfect game", "Answer every question right in a game of five or more."),
    ("speedster", "Quick draw", "Answer right within one second of a question opening."),
    ("ranked_streak_5", "On a roll", "Win 5 ranked duels in a row."),
    ("giant_slayer", "Giant slayer", "Beat a player rated 200 or more above you in a ranked duel."),
    ("room_champion", "Room champion", "Win a room game of three or four players."),
    ("games_50", "Regular", "Finish 50 games."),
    ("bank_100", "Specialist", "Answer 100 questions right in one bank."),
    ("learned_20", "Learner of mistakes", "Learn 20 questions of your mistakes notebook."),
    ("streak_7", "Week of learning", "Play on 7 days in a row."),
    ("level_10", "Expert", "Reach level 10."),
    ("goal_reached", "Goal getter", "Reach a weekly goal."),
    ("quiz_author", "Author", "Publish a quiz of your own."),
    ("quiz_played_10", "Crowd pleaser", "Have a quiz you made played by 10 other players."),
]
# Ada's notifications (ids 1 and 2: the challenges Bo made her, sent in rooms_challenges_and_rematch;
# 3, 6 and 7 went to others).
N1 = notification(1, "challenge_received", {"challenge_id": CH1, "from": "bob", "bank": "world-capitals"}, T0 + 76_000)
N2 = notification(2, "challenge_received", {"challenge_id": CH2, "from": "bob", "bank": "world-capitals"}, T0 + 78_000)
N4 = notification(4, "achievement", {"code": "first_win", "title": "First win"}, T_PROGRESS)
N5 = notification(5, "level_up", {"level": 3, "title": "Learner", "color": "#2563eb"}, T_PROGRESS)
N8 = notification(8, "goal_reached", {"kind": "games", "bank": None, "target": 3, "xp": 100}, T_PROGRESS + 9_000)
# One record of each kind, for the event tests.
NOTIFICATIONS = {
    "challenge_received": N1,
    "challenge_expired": notification(9, "challenge_expired", {"challenge_id": CH1, "to": "ada", "bank": "world-capitals"},
                                      T_PROGRESS),
    "achievement": N4,
    "level_up": N5,
    "goal_reached": N8,
    "report_resolved": notification(10, "report_resolved", {"quiz": QUIZ, "title": "Five types"}, T_PROGRESS),
    "quiz_unpublished": notification(11, "quiz_unpublished", {"quiz": QUIZ, "title": "Five types", "reason": "copied"},
                                     T_PROGRESS),
    "quiz_promoted": notification(12, "quiz_promoted", {"quiz": QUIZ, "title": "Five types"}, T_PROGRESS),
    # (added, issue 27) The reminder a player set on a weekly goal.
    "goal_reminder": notification(13, "goal_reminder", {"kind": "games", "bank": None, "target": 3, "progress": 1,
                                                        "due_at": WEEK + "T00:00:00.000Z"}, T_PROGRESS),
}
POINTS = [
    {"duel_id": DUEL, "at": iso(T0 + 12_060), "rating_before": 1500, "rating": 1662, "outcome": "win"},
    {"duel_id": DUEL2, "at": iso(T0 + 41_500), "rating_before": 1662, "rating": 1671, "outcome": "win"},
    {"duel_id": REMATCH_DUEL, "at": iso(T0 + 89_000), "rating_before": 1671, "rating": 1660, "outcome": "loss"},
]
STATS = {"bank": None, "answers": 8, "correct": 4, "questions_asked": 10, "accuracy": 0.4, "mean_answer_ms": 2140,
         "games_by_mode": {"ranked": 4, "room": 1, "challenge": 1, "practice": 1, "recorded": 0}}


def progress_ops(log):
    """Issue 14: Ada's achievements and level come as notifications; she sets her time zone
    (with profile_update, and once with auth), sets weekly goals, reads and clears her
    notifications, her rating chart, statistics and achievements; Bo his statistics. Every
    progress op once at least, with refusals (appended to the transcript)."""
    a, b, a2 = "ada", "bo", "ada-2"
    me = player(ADA, "ada", 3, 2, 1, 0, 200, 1660, xp=350, streak=(1, 1))
    for rec in (N4, N5):
        log.inn(a, jsonb_text(notification_event(rec)))
    # Time zones: a name Postgres does not know is refused by the store, one with a dot by the decoder.
    log.out(a, {"op": "profile_update", "ref": "p1", "time_zone": "Europe/Paris"})
    log.inn(a, reply("p1", {"player": me, "time_zone": "Europe/Paris"}))
    log.out(a, {"op": "profile_update", "ref": "p2", "time_zone": "Mars/Olympus"})
    log.inn(a, error("p2", "bad_request", "time_zone: unknown time zone Mars/Olympus"))
    log.out(a, {"op": "profile_update", "ref": "p3", "time_zone": "../../etc"})
    log.inn(a, error("p3", "bad_request", "time_zone: must be an IANA time zone name, such as Europe/Paris"))
    log.out(a2, {"op": "auth", "ref": 3, "token": TOKEN_A, "time_zone": "Asia/Tokyo"})
    log.inn(a2, reply(3, {"player": me, "duel": None}))
    # Weekly goals: one for all banks, one for a bank; refusals; a game reaches the first.
    log.out(a, {"op": "goal_set", "ref": "p4", "kind": "games", "target": 3})
    g1 = goal("games", None, 3, 2)
    log.inn(a, reply("p4", {"goals": [g1]}))
    log.out(a, {"op": "goal_set", "ref": "p5", "kind": "wins", "bank": "world-capitals", "target": 2})
    g2 = goal("wins", "world-capitals", 2, 0)
    log.inn(a, reply("p5", {"goals": [g1, g2]}))
    log.out(a, {"op": "goal_set", "ref": "p6", "kind": "wins", "target": 0})
    log.inn(a, error("p6", "bad_request", "target: must be between 1 and 10000"))
    log.out(a, {"op": "goal_set", "ref": "p7", "kind": "naps", "target": 3})
    log.inn(a, error("p7", "bad_request", "kind: must be wins, games, correct_answers or mistakes_learned"))
    log.out(a, {"op": "goal_set", "ref": "p8", "kind": "wins", "bank": "nope", "target": 2})
    log.inn(a, error("p8", "unknown_bank", "no such bank"))
    log.inn(a, jsonb_text(notification_event(N8)))
    log.out(a, {"op": "goals", "ref": "p9"})
    log.inn(a, reply("p9", {"goals": [dict(g1, progress=3, reached=True), g2]}))
    # Notifications a page at a time, then seen; refusals.
    log.out(a, {"op": "notifications", "ref": "p10", "limit": 3})
    log.inn(a, reply("p10", {"notifications": [N8, N5, N4], "unseen": 5}))
    log.out(a, {"op": "notifications", "ref": "p11", "before": 4, "limit": None})
    log.inn(a, reply("p11", {"notifications": [N2, N1], "unseen": 5}))
    log.out(a, {"op": "notifications_seen", "ref": "p12", "up_to": 8})
    log.inn(a, reply("p12", {"unseen": 0}))
    log.out(a, {"op": "notifications", "ref": "p13", "limit": 101})
    log.inn(a, error("p13", "bad_request", "limit: must be between 1 and 100"))
    log.out(a, {"op": "notifications", "ref": "p14", "before": "x"})
    log.inn(a, error("p14", "bad_request", "before: must be an integer"))
    log.out(a, {"op": "notifications_seen", "ref": "p15"})
    log.inn(a, error("p15", "bad_request", "up_to: is required"))
    # The rating chart, statistics and achievements.
    log.out(a, {"op": "rating_history", "ref": "p16", "bank": "world-capitals", "limit": 10})
    log.inn(a, reply("p16", {"bank": "world-capitals", "points": POINTS}))
    log.out(a, {"op": "rating_history", "ref": "p17"})
    log.inn(a, error("p17", "bad_request", "bank: is required"))
    log.out(a, {"op": "rating_history", "ref": "p18", "bank": "world-capitals", "limit": 501})
    log.inn(a, error("p18", "bad_request", "limit: must be between 1 and 500"))
    log.out(a, {"op": "rating_history", "ref": "p19", "bank": "nope"})
    log.inn(a, error("p19", "unknown_bank", "no such bank"))
    log.out(a, {"op": "stats", "ref": "p20"})
    log.inn(a, reply("p20", STATS))
    log.out(b, {"op": "stats", "ref": "u1", "bank": "world-capitals"})
    log.inn(b, reply("u1", {"bank": "world-capitals", "answers": 3, "correct": 1, "questions_asked": 3,
                            "accuracy": 0.333, "mean_answer_ms": 4500,
                            "games_by_mode": {"ranked": 3, "room": 0, "challenge": 0, "practice": 0, "recorded": 0}}))
    log.out(b, {"op": "stats", "ref": "u2", "bank": "nope"})
    log.inn(b, error("u2", "unknown_bank", "no such bank"))
    earned = {"first_game": T0 + 12_060, "first_win": T_PROGRESS, "quiz_author": T_QUIZ}
    log.out(a, {"op": "achievements", "ref": "p21"})
    log.inn(a, reply("p21", {"achievements": [
        {"code": code, "title": title, "description": text, "earned_at": iso(earned[code]) if code in earned else None}
        for code, title, text in ACHIEVEMENTS]}))
    # (added, issue 27) A note and a colour for a bank, and a game against a recorded opponent.
    log.out(a, {"op": "bank_pref_set", "ref": "p22", "bank": "world-capitals", "note": "Canberra", "color": "#2255AA"})
    pref = {"bank": "world-capitals", "note": "Canberra", "color": "#2255aa", "updated_at": iso(T_PROGRESS)}
    log.inn(a, reply("p22", {"bank_pref": pref}))
    log.out(a, {"op": "bank_prefs", "ref": "p23"})
    log.inn(a, reply("p23", {"bank_prefs": [pref]}))
    log.out(a, {"op": "recorded", "ref": "p24", "bank": "nope"})
    log.inn(a, error("p24", "unknown_bank", "no such bank"))
    log.out(a, {"op": "recorded", "ref": "p25", "bank": "world-capitals"})
    log.inn(a, reply("p25", {"duel_id": "0c6a3d1e-0000-4000-8000-00000000d0d0", "opponent": "house"}))


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
    assert len(schemas.ops) == 52
    assert schemas.reply_defs == schemas.ops
    for op in schemas.ops:
        assert schemas.contents["client-message.json"]["$defs"][op]["properties"]["op"] == {"const": op}


def test_error_codes_and_finish_reasons_include_the_new_ones():
    defs = json.loads((vf.SCHEMA_DIR / "defs.json").read_text(encoding="utf-8"))["$defs"]
    assert "account_disabled" in defs["error_code"]["enum"]
    assert "ended" in defs["finish_reason"]["enum"]
    assert {"unknown_room", "room_full", "room_busy", "not_host", "room_too_small", "in_room", "unknown_player",
            "unknown_challenge", "challenge_expired"} <= set(defs["error_code"]["enum"])
    assert {"room", "challenge"} <= set(defs["duel_mode"]["enum"])
    assert {"not_owner", "limit_reached"} <= set(defs["error_code"]["enum"])


def test_every_event_kind_has_an_event_definition():
    schemas = vf.Schemas()
    assert schemas.event_kinds == vf.EVENT_KINDS
    server = schemas.contents["server-message.json"]["$defs"]
    assert set(vf.PLAYER_EVENTS.values()) <= set(server)
    for kind, pointer in vf.PLAYER_EVENTS.items():
        assert server[pointer]["properties"]["event"] == {"const": kind}
        assert {"duel_id", "seq"}.isdisjoint(server[pointer]["properties"])


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
    {"op": "room_create", "bank": "world-capitals"},
    {"op": "room_create", "bank": "b", "questions": 20, "answer_ms": 5000, "max_players": 2},
    {"op": "room_create", "bank": "b", "questions": None, "answer_ms": None, "max_players": None},
    {"op": "room_join", "code": " k7qx3p "},
    {"op": "room_leave"},
    {"op": "room_start", "ref": 3},
    {"op": "challenge", "username": "x" * 64, "bank": "b"},
    {"op": "challenge_accept", "challenge_id": "not-a-uuid"},
    {"op": "challenge_decline", "challenge_id": CH1},
    {"op": "challenges"},
    {"op": "rematch", "duel_id": DUEL},
    # Issue 13: one of choice, choices, text and number (null is left out); fit is the question's check.
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choices": [2, 0]},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choices": []},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choices": [1, 1]},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choices": list(range(16))},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choices": [2147483647, 3.0]},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "text": ""},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "text": "x" * 200},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "text": " Ouagadougou\t👍🏽"},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "number": 3.14},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "number": -1e300},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "number": 0},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choice": 1, "text": None},
    {"op": "answer", "duel_id": DUEL, "question_index": 0, "choice": None, "choices": None, "number": 2},
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
    {"op": "room_create"},
    {"op": "room_create", "bank": "b", "questions": 0},
    {"op": "room_create", "bank": "b", "questions": 21},
    {"op": "room_create", "bank": "b", "answer_ms": 4999},
    {"op": "room_create", "bank": "b", "answer_ms": 60001},
    {"op": "room_create", "bank": "b", "max_players": 1},
    {"op": "room_create", "bank": "b", "max_players": 5},
    {"op": "room_join"},
    {"op": "room_join", "code": "x" * 33},
    {"op": "room_join", "code": None},
    {"op": "challenge", "username": "ada"},
    {"op": "challenge", "username": "x" * 65, "bank": "b"},
    {"op": "challenge_accept"},
    {"op": "challenge_decline", "challenge_id": "x" * 129},
    {"op": "rematch"},
    {"op": "rematch", "duel_id": 5},
    # Issue 13: exactly one answer field, each within the decoder's limits.
    {"op": "answer", "duel_id": "d", "question_index": 0},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choice": None},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choice": 0, "text": "Lima"},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choice": 0, "choices": [0]},
    {"op": "answer", "duel_id": "d", "question_index": 0, "text": "x", "number": 1},
    {"op": "answer", "duel_id": "d", "question_index": 0, "text": "x" * 201},
    {"op": "answer", "duel_id": "d", "question_index": 0, "text": "Li\u0000ma"},
    {"op": "answer", "duel_id": "d", "question_index": 0, "text": 5},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choices": list(range(17))},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choices": [-1]},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choices": ["1"]},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choices": [0.5]},
    {"op": "answer", "duel_id": "d", "question_index": 0, "choices": 3},
    {"op": "answer", "duel_id": "d", "question_index": 0, "number": "3"},
    {"op": "answer", "duel_id": "d", "question_index": 0, "number": True},
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
    reveal = revealed(0, "single", {"correct_choice": 1}, {ADA: {"choice": 0}, BO: {"choice": 1}}, {ADA: 0, BO: 160})
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


@pytest.mark.parametrize("change, expected", [
    (lambda r: r["players"][0].pop("lag_ms"), "'lag_ms' is a required property"),
    (lambda r: r["players"][0].update(lag_ms=-1), "$.record.players[0].lag_ms"),
    (lambda r: r["players"][0].update(lag_ms=35.5), "$.record.players[0].lag_ms"),
    (lambda r: r["answers"][0].pop("credit_ms"), "'credit_ms' is a required property"),
    (lambda r: r["answers"][0].update(credit_ms=-35), "$.record.answers[0].credit_ms"),
    (lambda r: r["answers"][0].update(credit_ms=301), "credited before the question opened"),
])
def test_lags_and_credits_are_checked(tmp_path, capsys, change, expected):
    # Issue 26: Ada's answer to question 1 came 300 ms after it opened, credited by her 35 ms lag.
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "answered" and f.get("duel_id") == DUEL
                    and f["seq"] == 7)
    edit(log, index, lambda f: change(f["record"]))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and expected in out


def test_a_credit_may_reach_back_to_the_question_opening(tmp_path):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("event") == "answered" and f.get("duel_id") == DUEL
                    and f["seq"] == 7)
    edit(log, index, lambda f: f["record"]["answers"][0].update(credit_ms=300))
    assert run(tmp_path, log) == 0


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



# --- rooms, challenges and rematches (issue 12) -------------------------------------------------

def test_coverage_requires_the_new_event_kinds(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"event":"rematch"' not in line["frame"]]
    assert run(tmp_path, log) == 0
    assert run(tmp_path, log, "--require-coverage") == 1
    assert "events not seen: rematch" in capsys.readouterr().out


def test_coverage_requires_the_new_ops(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"op":"challenges"' not in line["frame"]]
    assert run(tmp_path, log, "--require-coverage") == 1
    out = capsys.readouterr().out
    assert "ops not seen: challenges" in out and "replies not seen: challenges" in out


def edited_event(change, conn="ada", kind="room", where=lambda f: True):
    log = transcript()
    index = line_of(log, conn, "in", lambda f: f.get("event") == kind and where(f))
    edit(log, index, change)
    return log


@pytest.mark.parametrize("kind, change, expected", [
    ("room", lambda f: f.update(duel_id=ROOM_DUEL), "duel_id"),
    ("room", lambda f: f.update(seq=1), "seq"),
    ("room", lambda f: f["record"].update(code="K7QX3B"), "$.record.code"),
    ("room", lambda f: f["record"].update(extra=True), "$.record"),
    ("room", lambda f: f["record"]["members"][0].update(ready=True), "$.record.members[0]"),
    ("room", lambda f: f["record"].update(state="playing"), "$.record"),
    ("room", lambda f: f["record"].update(games=1), "$.record"),
    ("room", lambda f: f.update(type="DELETE"), "$.record.state"),
    ("room", lambda f: f.update(table="room"), "$.table"),
    ("challenge", lambda f: f["record"].update(duel_id=CHALLENGE_DUEL), "$.record.duel_id"),
    ("challenge", lambda f: f["record"].update(state="accepted"), "$.record"),
    ("challenge", lambda f: f["record"]["from"].update(rating=1500), "$.record.from"),
    ("challenge", lambda f: f["record"].update(created_at="2026-11-21 22:40:00"), "$.record.created_at"),
    ("rematch", lambda f: f["record"].update(state="accepted"), "$.record"),
    ("rematch", lambda f: f["record"].update(expires_at=None), "$.record.expires_at"),
    ("rematch", lambda f: f.update(type="DELETE"), "$.type"),
])
def test_player_events_are_strict(tmp_path, capsys, kind, change, expected):
    assert run(tmp_path, edited_event(change, kind=kind)) == 1
    out = capsys.readouterr().out
    assert "server-message.json" in out and expected in out


@pytest.mark.parametrize("kind, change, where, problem", [
    ("room", lambda f: f["record"].update(host=CY), lambda f: f["type"] == "INSERT", "host: not a member"),
    ("room", lambda f: f["record"].update(max_players=2), lambda f: len(f["record"]["members"]) == 3,
     "members: more than max_players"),
    ("room", lambda f: f["record"]["members"].append(dict(f["record"]["members"][0])),
     lambda f: len(f["record"]["members"]) == 2, "members: the same player twice"),
    ("challenge", lambda f: f["record"].update(to=f["record"]["from"]), lambda f: True,
     "from and to are the same player"),
    ("challenge", lambda f: f["record"].update(expires_at=iso(T0)), lambda f: True, "expires_at: before created_at"),
    ("rematch", lambda f: f["record"].update(new_duel_id=DUEL2), lambda f: f["type"] == "UPDATE",
     "the duel rematched itself"),
])
def test_player_event_records_are_cross_checked(tmp_path, capsys, kind, change, where, problem):
    assert run(tmp_path, edited_event(change, kind=kind, where=where)) == 1
    assert problem in capsys.readouterr().out


@pytest.mark.parametrize("ref, change, expected", [
    (19, lambda d: d["room"].update(state="playing"), "replies.json#/$defs/room_create"),
    (20, lambda d: d.update(duel_id=DUEL), "duel_id: not the room's duel_id"),
    (22, lambda d: d["room"].update(members=[]), "replies.json#/$defs/room_leave"),
    (24, lambda d: d["challenges"][0].update(state="declined"), "replies.json#/$defs/challenges"),
    (25, lambda d: d["challenge"].update(state="pending"), "replies.json#/$defs/challenge_decline"),
    (27, lambda d: d.update(duel_id=DUEL), "duel_id: not the challenge's duel_id"),
    (28, lambda d: d.update(expires_at=iso(T0)), "replies.json#/$defs/rematch"),
])
def test_new_replies_are_checked(tmp_path, capsys, ref, change, expected):
    log = transcript()
    index = line_of(log, "ada", "in", lambda f: f.get("op") == "reply" and f["ref"] == ref)
    edit(log, index, lambda f: change(f["data"]))
    assert run(tmp_path, log) == 1
    assert expected in capsys.readouterr().out


def test_a_challenge_reply_names_its_challenge(tmp_path, capsys):
    log = transcript()
    index = line_of(log, "bo", "in", lambda f: f.get("op") == "reply" and f["ref"] == "s11")
    edit(log, index, lambda f: f["data"].update(challenge_id=CH2))
    assert run(tmp_path, log) == 1
    assert "challenge_id: not the challenge's id" in capsys.readouterr().out


def test_state_dependent_bad_requests_of_challenge_and_rematch_only(tmp_path, capsys):
    log = transcript()
    log.out("cy", {"op": "rematch", "ref": 90, "duel_id": DUEL})
    log.inn("cy", error(90, "bad_request", "duel_id: the duel is not over"))
    assert run(tmp_path, log) == 0
    log.out("cy", {"op": "challenge", "ref": 91, "username": "ada", "bank": "world-capitals"})
    log.inn("cy", error(91, "bad_request", "username: is too long"))
    assert run(tmp_path, log) == 1
    assert "bad_request ('username: is too long') for the frame of" in capsys.readouterr().out


def test_game_seats_follow_the_mode(tmp_path, capsys):
    def log_with(kind, duel, change):
        log = transcript()
        index = line_of(log, "ada", "in", lambda f: f.get("event") == kind and f.get("duel_id") == duel)
        edit(log, index, lambda f: change(f["record"]))
        return log

    two = [{"id": BO, "username": "bob", "rating": 1500, "score": 0, "connected": True, "lag_ms": 0}]
    assert run(tmp_path, log_with("init", DUEL3, lambda r: r["players"].extend(two))) == 1
    assert "$.record.players" in capsys.readouterr().out
    assert run(tmp_path, log_with("init", CHALLENGE_DUEL, lambda r: r["players"].append(
        {"id": CY, "username": "cy_3", "rating": 1500, "score": 0, "connected": True, "lag_ms": 0}))) == 1
    assert "$.record.players" in capsys.readouterr().out
    assert run(tmp_path, log_with("init", ROOM_DUEL, lambda r: r["players"].pop())) == 0
    assert run(tmp_path, log_with("init", ROOM_DUEL, lambda r: r.update(rated=True))) == 1
    assert run(tmp_path, log_with("complete", ROOM_DUEL, lambda r: r["result"].update(winner=CY))) == 1
    assert "result.winner: set in a game of other than two players" in capsys.readouterr().out
    assert run(tmp_path, log_with("complete", ROOM_DUEL, lambda r: r["result"]["placements"].update({BO: 4}))) == 1
    assert "result.placements: a place past the number of players" in capsys.readouterr().out


# --- question types (issue 13) -------------------------------------------------------------------

def typed_event(kind, qtype, conn="ada"):
    """Matches the `kind` events whose question is of `qtype`, in the typed duel (or duel 1, single)."""
    def matches(f):
        return (f.get("event") == kind and f.get("duel_id") in (TYPED_DUEL, DUEL)
                and (f["record"]["question"] or {}).get("type") == qtype)
    return matches


def test_every_question_type_is_asked_and_revealed_in_the_transcript():
    kinds = {"question": set(), "reveal": set()}
    for line in transcript().lines:
        frame = json.loads(line["frame"]) if line["dir"] == "in" else {}
        if frame.get("event") in kinds:
            record = frame["record"]
            kinds[frame["event"]].add(record["question"]["type"])
            if record["question"]["type"] in ("text", "number"):
                assert record["question"]["choices"] == []
    assert kinds["question"] == kinds["reveal"] == set(vf.ANSWER_FIELDS)


@pytest.mark.parametrize("qtype, key, answers, points, correct", [
    ("multiple", TKEYS[0], {ADA: {"choices": [2, 0]}, BO: {"choices": [0]}}, {ADA: 190, BO: 0}, (True, False)),
    ("text", TKEYS[1], {ADA: {"text": "mars "}, BO: None}, {ADA: 170, BO: 0}, (True, None)),
    ("text", {"correct_choice": None, "accepted": ["Paris", "Paname"], "matching": "exact"},
     {ADA: {"text": "paris"}, BO: {"text": ""}}, {ADA: 0, BO: 0}, (False, False)),
    ("number", TKEYS[2], {ADA: {"number": 3}, BO: {"number": 3.14159}}, {ADA: 0, BO: 180}, (False, True)),
    ("number", {"correct_choice": None, "correct_number": -40, "tolerance": 0}, {ADA: {"number": -40}, BO: None},
     {ADA: 200, BO: 0}, (True, None)),
    ("boolean", TKEYS[3], {ADA: {"choice": 0}, BO: {"choice": 1}}, {ADA: 150, BO: 0}, (True, False)),
    ("boolean", {"correct_choice": 1}, {ADA: None, BO: None}, {ADA: 0, BO: 0}, (None, None)),
])
def test_reveals_of_every_type_are_valid(qtype, key, answers, points, correct):
    q = question(0, next(t for t in TQ if t["type"] == qtype), T0)
    given = [answer(p, c, T0 + 1_000) for p, c in zip((ADA, BO), correct) if c is not None]
    rec = record(TYPED_DUEL, "reveal", (points[ADA], points[BO]), q=q, answers=given,
                 reveal=revealed(0, qtype, key, answers, points))
    frame = event("reveal", TYPED_DUEL, 4, T0 + 1_000, rec)
    validator = vf.Schemas().server()
    assert validator.is_valid(frame), vf.describe(validator.iter_errors(frame))
    assert vf.record_problems(rec) == []


@pytest.mark.parametrize("kind, qtype, change, expected", [
    ("question", "text", lambda q, r: q.update(choices=["Mars", "Venus"]), "$.record.question.choices"),
    ("question", "number", lambda q, r: q.update(choices=["3.14"]), "$.record.question.choices"),
    ("question", "boolean", lambda q, r: q.update(choices=["Yes", "No"]), "$.record.question.choices"),
    ("question", "multiple", lambda q, r: q.update(choices=["Neon"]), "$.record.question.choices"),
    ("question", "single", lambda q, r: q.pop("type"), "'type' is a required property"),
    ("question", "single", lambda q, r: q.update(type="essay"), "$.record.question.type"),
    ("question", "text", lambda q, r: q.update(accepted=["Mars"]), "'accepted' was unexpected"),
    ("question", "number", lambda q, r: q.update(tolerance=0.005), "'tolerance' was unexpected"),
    ("question", "multiple", lambda q, r: q.update(correct_choices=[0, 2]), "'correct_choices' was unexpected"),
    ("answered", "text", lambda q, r: r["answers"][0].update(text="Venus"), "'text' was unexpected"),
    ("answered", "multiple", lambda q, r: r["answers"][0].update(choices=[2, 0]), "'choices' was unexpected"),
    ("reveal", "single", lambda q, r: r["reveal"].pop("answers"), "'answers' is a required property"),
    ("reveal", "single", lambda q, r: r["reveal"].pop("type"), "'type' is a required property"),
    ("reveal", "text", lambda q, r: r["reveal"].update(correct_choices=[0]), "$.record.reveal.correct_choices"),
    ("reveal", "text", lambda q, r: r["reveal"].pop("matching"), "'matching' is a required property"),
    ("reveal", "text", lambda q, r: r["reveal"].update(matching="fuzzy"), "$.record.reveal.matching"),
    ("reveal", "text", lambda q, r: r["reveal"].update(accepted=[]), "$.record.reveal.accepted"),
    ("reveal", "text", lambda q, r: r["reveal"]["answers"].update({ADA: {"choice": 0}}),
     f"$.record.reveal.answers['{ADA}']: {{'choice': 0}}"),
    ("reveal", "text", lambda q, r: r["reveal"]["answers"].update({ADA: {"text": "Mars", "number": 1}}),
     "$.record.reveal.answers"),
    ("reveal", "multiple", lambda q, r: r["reveal"].update(correct_choice=0),
     "$.record.reveal.correct_choice: 0 is not of type 'null'"),
    ("reveal", "multiple", lambda q, r: r["reveal"]["answers"].update({ADA: {"choices": [2, 2]}}),
     "$.record.reveal.answers"),
    ("reveal", "multiple", lambda q, r: r["reveal"]["choices"].update({ADA: 0}),
     f"$.record.reveal.choices['{ADA}']: 0 is not of type 'null'"),
    ("reveal", "number", lambda q, r: r["reveal"].pop("tolerance"), "'tolerance' is a required property"),
    ("reveal", "number", lambda q, r: r["reveal"].update(tolerance=-0.5), "$.record.reveal.tolerance"),
    ("reveal", "number", lambda q, r: r["reveal"]["answers"].update({BO: {"number": "3.14"}}),
     "$.record.reveal.answers"),
    ("reveal", "boolean", lambda q, r: r["reveal"].update(correct_choice=2), "$.record.reveal.correct_choice: 2"),
    ("reveal", "boolean", lambda q, r: r["reveal"].update(correct_number=1), "$.record.reveal.correct_number"),
])
def test_typed_records_are_strict(tmp_path, capsys, kind, qtype, change, expected):
    log = transcript()
    index = line_of(log, "ada", "in", typed_event(kind, qtype))
    edit(log, index, lambda f: change(f["record"]["question"], f["record"]))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and "server-message.json" in out and expected in out


@pytest.mark.parametrize("qtype, change, problem", [
    ("boolean", lambda r: r.update(type="single"), "reveal.type: single, but the question is boolean"),
    ("single", lambda r: r.update(type="boolean"), "reveal.type: boolean, but the question is single"),
    ("multiple", lambda r: r.update(correct_choices=[0, 4]), "reveal.correct_choices: past the question's choices"),
    ("multiple", lambda r: r.update(correct_choices=[2, 0]), "reveal.correct_choices: not in ascending order"),
    ("multiple", lambda r: r["answers"].update({ADA: {"choices": [0]}}), f"answers: `correct` of {ADA} disagrees"),
    ("multiple", lambda r: r["answers"].update({ADA: {"choices": [0, 5]}}), f"reveal.answers.{ADA}: past the"),
    ("multiple", lambda r: r["answers"].update({BO: {"choices": [0, 2]}}),
     f"reveal.answers.{BO}: an answer without an entry in answers"),
    ("text", lambda r: r["answers"].update({BO: None}), f"reveal.answers.{BO}: null for a player who answered"),
    ("text", lambda r: r["points"].update({BO: 50}), f"reveal.points.{BO}: points for a wrong answer"),
    ("text", lambda r: r["answers"].update({CY: None}), "reveal.answers: keys are not the players' ids"),
    ("number", lambda r: r["answers"].update({ADA: {"number": 3}}),
     f"reveal.answers.{ADA}: an answer without an entry in answers"),
    ("number", lambda r: r["points"].update({ADA: 10}), f"reveal.points.{ADA}: points without an answer"),
    ("boolean", lambda r: r["choices"].update({ADA: 0}),
     f'reveal.choices.{ADA}: 0, but reveal.answers.{ADA} is {{"choice": 1}}'),
    ("boolean", lambda r: r["answers"].update({ADA: {"choice": 0}}), f"answers: `correct` of {ADA} disagrees"),
    ("boolean", lambda r: r["points"].update({ADA: 120}), f"reveal.points.{ADA}: points for a wrong pick"),
    ("single", lambda r: r["choices"].update({ADA: None}), f"reveal.choices.{ADA}: null, but reveal.answers.{ADA}"),
])
def test_typed_reveals_are_cross_checked(tmp_path, capsys, qtype, change, problem):
    log = transcript()
    index = line_of(log, "ada", "in", typed_event("reveal", qtype))
    edit(log, index, lambda f: change(f["record"]["reveal"]))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and "reveal record: " + problem in out


def edited_mistakes(change):
    log = transcript()
    index = line_of(log, "bo", "in", lambda f: f.get("ref") == "t8")
    edit(log, index, lambda f: change(f["data"]["questions"]))
    return log


@pytest.mark.parametrize("change, expected", [
    (lambda qs: qs[0].pop("type"), "$.data.questions[0]: 'type' is a required property"),
    (lambda qs: qs[0].pop("your_answer"), "$.data.questions[0]: 'your_answer' is a required property"),
    (lambda qs: qs[0].pop("correct_choices"), "$.data.questions[0]: 'correct_choices' is a required property"),
    (lambda qs: qs[1].update(your_answer={"choice": 0}), "$.data.questions[1].your_answer"),
    (lambda qs: qs[1].update(choices=["Mars", "Venus"]), "$.data.questions[1].choices"),
    (lambda qs: qs[1].update(correct_choice=0), "$.data.questions[1].correct_choice"),
    (lambda qs: qs[1].update(correct_number=4), "$.data.questions[1].correct_number"),
    (lambda qs: qs[2].update(correct_choices=[1]), "$.data.questions[2].correct_choices"),
    (lambda qs: qs[0].update(your_choice=0, your_answer={"choices": [0]}), "$.data.questions[0].your_choice"),
    (lambda qs: qs[0].update(your_answer={"choices": [2, 0]}), "questions[0]: a right answer listed as a mistake"),
    (lambda qs: qs[0].update(correct_choices=[0, 5]), "questions[0]: correct_choices: past the question's choices"),
    (lambda qs: qs[2].update(your_answer={"choice": 1}, your_choice=1),
     "questions[2]: a right answer listed as a mistake"),
    (lambda qs: qs[2].update(your_choice=2), "questions[2]: your_choice: set without your_answer"),
    (lambda qs: qs[3].update(your_answer={"choice": 2}),
     'questions[3]: your_choice: null, but your_answer is {"choice": 2}'),
])
def test_typed_mistakes_are_checked(tmp_path, capsys, change, expected):
    assert run(tmp_path, edited_mistakes(change)) == 1
    out = capsys.readouterr().out
    assert expected in out and ("replies.json#/$defs/mistakes: " in out or "mistakes reply: " in out)


def edited_refusal(ref, request=None, message=None, conn="ada"):
    """The transcript with the `answer` of `ref` sending other fields, or its refusal another message."""
    log = transcript()
    index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "error")
    if request is not None:
        frame = json.loads(log.lines[index - 1]["frame"])
        for name in ("choice", "choices", "text", "number"):
            frame.pop(name, None)
        frame.update(request)
        log.lines[index - 1]["frame"] = json.dumps(frame)
    if message is not None:
        edit(log, index, lambda f: f.update(message=message))
    return log


@pytest.mark.parametrize("ref, conn, request_, message, expected", [
    (41, "ada", {"choices": [0]}, None, "`choices` refused as a misfit by a question that takes `choices`"),
    (41, "ada", None, "text: this text question is answered with `text`",
     "refused as a misfit for a text question; question 0 is multiple"),
    (41, "ada", None, "choice: this multiple question is answered with `choices`", "a misfit named inconsistently"),
    (42, "ada", {"choices": [1]}, None, "choices [1] refused as empty"),
    ("t2", "bo", {"choices": [1, 2]}, None, "choices [1, 2] refused as repeating an option"),
    ("t2", "bo", {"choices": [9, 9]}, None, "choices [9, 9] past the 4 options refused as repeating instead"),
    ("t3", "bo", {"choices": [0, 3]}, None, "bad_request for choices [0, 3] of question 0, which has 4 options"),
    ("t3", "bo", {"choices": [0, 7]}, "choices: each must be between 0 and 5",
     "a range of 0-5 named for question 0, which has 4 options"),
    ("t3", "bo", None, "choices: each must be between 0 and 5", "choices [0, 5] refused as out of 0-5"),
    (44, "ada", {"text": "Mars"}, None, "`text` refused as a misfit by a question that takes `text`"),
    (46, "ada", {"choice": 1}, None, "bad_request for choice 1 of question 3, which has 2 options"),
    (6, "ada", None, "choice: must be between 0 and 5", "a range of 0-5 named for question 0, which has 4 options"),
    (46, "ada", None, "choices: pick at least one", "choice 2 refused as empty"),
    (41, "ada", None, "choice: must be between 0 and 3", "`choice` to a multiple question refused without naming"),
    (46, "ada", None, "text: at most 200 characters", "bad_request ('text: at most 200 characters') for the frame"),
])
def test_answer_refusals_must_fit_the_question(tmp_path, capsys, ref, conn, request_, message, expected):
    assert run(tmp_path, edited_refusal(ref, request_, message, conn)) == 1
    assert expected in capsys.readouterr().out


@pytest.mark.parametrize("message, request_, question, ok", [
    ("choices: this multiple question is answered with `choices`", {"choice": 0}, None, True),
    ("choices: this multiple question is answered with `choices`", {"choice": 0}, ("multiple", 4), True),
    ("number: this number question is answered with `number`", {"text": "3"}, ("number", 0), True),
    ("choice: this boolean question is answered with `choice`", {"choices": [0]}, ("boolean", 2), True),
    ("choice: this single question is answered with `choice`", {"choice": 0}, None, False),
    ("choice: must be between 0 and 3", {"choice": 4}, None, True),
    ("choice: must be between 0 and 3", {"choice": 3}, None, False),
    ("choice: must be between 0 and 3", {"choice": 7}, ("single", 4), True),
    ("choice: must be between 0 and 3", {"choice": 7}, ("multiple", 4), False),
    ("choices: each must be between 0 and 2", {"choices": [3, 3]}, ("multiple", 3), True),
    ("choices: pick at least one", {"choices": []}, None, True),
    ("choices: pick at least one", {"choices": []}, ("text", 0), False),
    ("choices: must be distinct", {"choices": [1, 0, 1]}, ("multiple", 2), True),
])
def test_answer_refusal_problem(message, request_, question, ok):
    request = dict({"op": "answer", "duel_id": DUEL, "question_index": 0}, **request_)
    assert vf.is_answer_refusal(message)
    assert (vf.answer_refusal_problem(message, request, question) is None) == ok



# --- quizzes players make (issue 13) ------------------------------------------------------------

def question_add(**fields):
    return dict({"op": "question_add", "quiz": QUIZ}, **fields)


@pytest.mark.parametrize("frame", [
    {"op": "quiz_create", "ref": "q", "title": "  Mixed  ", "description": "All five\ntypes", "theme": "Science",
     "difficulty": "medium"},
    {"op": "quiz_create", "title": "t" * 80},
    {"op": "quiz_create", "title": "\t" + " " * 62 + "t" * 80 + "\n"},
    {"op": "quiz_create", "title": "Ça va? 👍🏽", "description": None, "theme": None, "difficulty": None},
    {"op": "quiz_create", "title": "x", "description": "", "theme": "t" * 40},
    {"op": "quiz_create", "title": "x", "description": "d" * 500},
    {"op": "quiz_update", "quiz": QUIZ, "description": ""},
    {"op": "quiz_update", "quiz": QUIZ, "difficulty": "hard", "title": None},
    {"op": "quiz_delete", "quiz": QUIZ},
    {"op": "quiz_publish", "quiz": QUIZ},
    {"op": "quiz_unpublish", "quiz": "q" * 64},
    {"op": "quiz_questions", "quiz": QUIZ},
    {"op": "quiz", "quiz": "world-capitals"},
    {"op": "my_quizzes"},
    question_add(type="single", prompt="One?", choices=["a", "b"], correct_choice=1),
    question_add(type="single", prompt="p" * 300, choices=["c" * 100, "d"], correct_choice=0.0),
    question_add(type="multiple", prompt="Some?", choices=["a", "b", "c", "d", "e", "f"], correct_choices=[5, 0]),
    question_add(type="boolean", prompt="True?\nOr not?", correct_choice=1),
    question_add(type="boolean", prompt="True?", correct_choice=0, choices=None, accepted=None),
    question_add(type="text", prompt="Name?", accepted=["Ada", " Ada Lovelace "], matching="case_insensitive"),
    question_add(type="text", prompt="Name?", accepted=["a" * 200] * 20, matching=None),
    question_add(type="number", prompt="Pi?", correct_number=3.14, tolerance=0.01),
    question_add(type="number", prompt="Zero?", correct_number=0),
    {"op": "question_update", "question_id": 501, "type": "text", "prompt": "One, typed?", "accepted": ["b"]},
    {"op": "question_update", "question_id": 501, "quiz": 5, "type": "boolean", "prompt": "x", "correct_choice": 0},
    {"op": "question_delete", "question_id": 505},
    {"op": "catalog"},
    {"op": "catalog", "search": "100%_", "theme": "GEOGRAPHY", "difficulty": "easy", "sort": "top_rated", "limit": 50,
     "cursor": "123456789012"},
    {"op": "catalog", "search": "  ", "sort": None, "limit": None, "cursor": None},
    {"op": "quiz_save", "quiz": QUIZ},
    {"op": "quiz_unsave", "quiz": QUIZ},
    {"op": "library"},
    {"op": "rate", "quiz": QUIZ, "value": -1},
    {"op": "rate", "question_id": 502, "value": 0, "quiz": None},
    {"op": "report", "quiz": QUIZ, "reason": "copied from a textbook"},
    {"op": "report", "quiz": QUIZ, "question_id": None, "reason": "copied"},
])
def test_client_schema_accepts_the_quiz_ops(frame):
    validator = vf.Schemas().client()
    assert validator.is_valid(frame), vf.describe(validator.iter_errors(frame))


@pytest.mark.parametrize("frame", [
    {"op": "quiz_create", "description": "no title"},
    {"op": "quiz_create", "title": None},
    {"op": "quiz_create", "title": "   "},
    {"op": "quiz_create", "title": "t" * 81},
    {"op": "quiz_create", "title": " " * 65 + "t" * 80},
    {"op": "quiz_create", "title": "two\nlines"},
    {"op": "quiz_create", "title": "tab\tinside"},
    {"op": "quiz_create", "title": "x", "description": "d" * 501},
    {"op": "quiz_create", "title": "x", "description": "bell\u0007"},
    {"op": "quiz_create", "title": "x", "description": "cr\r\nlf"},
    {"op": "quiz_create", "title": "x", "theme": ""},
    {"op": "quiz_create", "title": "x", "theme": "t" * 41},
    {"op": "quiz_create", "title": "x", "difficulty": "brutal"},
    {"op": "quiz_update", "quiz": QUIZ},
    {"op": "quiz_update", "quiz": QUIZ, "title": None, "theme": None},
    {"op": "quiz_update", "title": "x"},
    {"op": "quiz_delete"},
    {"op": "quiz_publish", "quiz": "q" * 65},
    {"op": "quiz_unpublish", "quiz": "quiz-1\u0000"},
    {"op": "quiz_questions", "quiz": 101},
    {"op": "quiz", "quiz": None},
    {"op": "quiz_save"},
    question_add(type="essay", prompt="x"),
    question_add(prompt="x", choices=["a", "b"], correct_choice=0),
    {"op": "question_add", "type": "boolean", "prompt": "x", "correct_choice": 0},
    question_add(type="single", prompt="   ", choices=["a", "b"], correct_choice=0),
    question_add(type="single", prompt="p" * 301, choices=["a", "b"], correct_choice=0),
    question_add(type="single", prompt="x", choices=["a"], correct_choice=0),
    question_add(type="single", prompt="x", choices=list("abcdefg"), correct_choice=0),
    question_add(type="single", prompt="x", choices=["a", "a"], correct_choice=0),
    question_add(type="single", prompt="x", choices=["a", " "], correct_choice=0),
    question_add(type="single", prompt="x", choices=["a", "c" * 101], correct_choice=0),
    question_add(type="single", prompt="x", choices=["a", "b"], correct_choice=2),
    question_add(type="single", prompt="x", choices=["a", "b"]),
    question_add(type="single", prompt="x", choices=["a", "b"], correct_choice=0, accepted=["a"]),
    question_add(type="single", prompt="x", choices=["a", "b"], correct_choice=0, correct_choices=[0]),
    question_add(type="multiple", prompt="x", choices=["a", "b"], correct_choices=[1, 1]),
    question_add(type="multiple", prompt="x", choices=["a", "b"], correct_choices=[]),
    question_add(type="multiple", prompt="x", choices=["a", "b", "c"], correct_choices=[3]),
    question_add(type="multiple", prompt="x", choices=["a", "b"], correct_choices=None),
    question_add(type="multiple", prompt="x", choices=["a", "b"], correct_choices=[0], correct_choice=0),
    question_add(type="boolean", prompt="x", correct_choice=2),
    question_add(type="boolean", prompt="x", choices=["Yes", "No"], correct_choice=0),
    question_add(type="boolean", prompt="x", choices=["True", "False"], correct_choice=0),
    question_add(type="boolean", prompt="x", correct_choice=0, tolerance=0),
    question_add(type="text", prompt="x", accepted=["a"] * 21),
    question_add(type="text", prompt="x", accepted=[]),
    question_add(type="text", prompt="x", accepted=["a" * 201]),
    question_add(type="text", prompt="x", accepted=["a", "two\nlines"]),
    question_add(type="text", prompt="x", accepted=["a"], matching="fuzzy"),
    question_add(type="text", prompt="x", accepted=["a"], correct_choice=None, correct_number=1),
    question_add(type="number", prompt="x", correct_number="3"),
    question_add(type="number", prompt="x", correct_number=None),
    question_add(type="number", prompt="x", correct_number=3, tolerance=-1),
    question_add(type="number", prompt="x", correct_number=3, matching="exact"),
    {"op": "question_update", "type": "boolean", "prompt": "x", "correct_choice": 0},
    {"op": "question_update", "question_id": "501", "type": "boolean", "prompt": "x", "correct_choice": 0},
    {"op": "question_update", "question_id": 501, "type": "boolean", "correct_choice": 0},
    {"op": "question_delete"},
    {"op": "question_delete", "question_id": 2**63},
    {"op": "catalog", "sort": "best"},
    {"op": "catalog", "limit": 0},
    {"op": "catalog", "limit": 51},
    {"op": "catalog", "cursor": "x"},
    {"op": "catalog", "cursor": ""},
    {"op": "catalog", "cursor": "1234567890123"},
    {"op": "catalog", "cursor": 1},
    {"op": "catalog", "search": "s" * 101},
    {"op": "catalog", "theme": " "},
    {"op": "catalog", "difficulty": "Easy"},
    {"op": "rate", "quiz": QUIZ, "question_id": 502, "value": 1},
    {"op": "rate", "value": 1},
    {"op": "rate", "quiz": None, "question_id": None, "value": 1},
    {"op": "rate", "quiz": QUIZ},
    {"op": "rate", "quiz": QUIZ, "value": 2},
    {"op": "rate", "question_id": 502, "value": None},
    {"op": "report", "quiz": QUIZ, "question_id": 502, "reason": "x"},
    {"op": "report", "reason": "x"},
    {"op": "report", "quiz": QUIZ, "reason": ""},
    {"op": "report", "quiz": "q" * 65, "reason": "x"},
])
def test_client_schema_refuses_bad_quiz_ops(frame):
    assert not vf.Schemas().client().is_valid(frame)


def test_a_choice_repeated_but_for_case_and_spaces_is_no_valid_frame():
    checker = vf.Checker(vf.Schemas())
    for choices, ok in ((["a", "b"], True), (["a", "A "], False), (["é", "E\u0301"], False), (["Straße", "STRASSE"], True)):
        frame = json.dumps(question_add(type="single", prompt="x", choices=choices, correct_choice=0))
        assert checker.client_verdict(frame).valid == ok, choices
    frame = {"op": "question_update", "question_id": 501, "type": "multiple", "prompt": "x", "choices": ["Yes", "yes"],
             "correct_choices": [0]}
    assert vf.Schemas().client().is_valid(frame)
    assert not checker.client_verdict(json.dumps(frame)).valid
    assert checker.client_verdict('{"op":"rate","question_id":502.0,"value":1}').valid
    assert not checker.client_verdict('{"op":"question_delete","question_id":1e16}').valid
    assert checker.client_verdict('{"op":"report","quiz":"quiz-1","reason":"x"}').valid


@pytest.mark.parametrize("op, data", [
    ("quiz_create", {"quiz": quiz_record()}),
    ("quiz_update", {"quiz": quiz_record(title="Five types", difficulty="hard", questions=5)}),
    ("quiz_delete", {}),
    ("quiz_publish", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ), questions=4)}),
    ("quiz_unpublish", {"quiz": quiz_record(questions=4, likes=3, dislikes=1, plays=12, saves=2)}),
    ("quiz_questions", {"quiz": quiz_record(questions=5), "questions": OQ}),
    ("quiz_questions", {"quiz": quiz_record(), "questions": []}),
    ("quiz", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ), in_matchmaking=True, your_vote=-1,
                                  dislikes=1)}),
    ("quiz", {"quiz": quiz_record(unpublished_reason="copied", saved=True, saves=1)}),
    ("my_quizzes", {"quizzes": []}),
    ("my_quizzes", {"quizzes": [quiz_record(), quiz_record(quiz="quiz-7", published=True, published_at=iso(T0))]}),
    ("question_add", {"question": OQ[3]}),
    ("question_update", {"question": dict(OQ[1], question_id=507)}),
    ("question_delete", {}),
    ("catalog", {"quizzes": [quiz_record(published=True, published_at=iso(T_QUIZ))], "next_cursor": "20"}),
    ("catalog", {"quizzes": [], "next_cursor": None}),
    ("quiz_save", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ), saved=True, saves=1)}),
    ("quiz_unsave", {}),
    ("library", {"quizzes": [quiz_record(saved=True, saves=1, unpublished_reason="copied")]}),
    ("rate", {"likes": 1, "dislikes": 0, "your_vote": 1}),
    ("rate", {"likes": 0, "dislikes": 0, "your_vote": 0}),
    ("rate", {"likes": 40, "dislikes": 2, "your_vote": -1}),
    ("report", {}),
])
def test_quiz_replies_are_valid(op, data):
    validator = vf.Schemas().reply(op)
    assert validator.is_valid(data), vf.describe(validator.iter_errors(data))
    assert vf.reply_problems(op, data) == []


@pytest.mark.parametrize("op, data", [
    ("quiz", {"quiz": quiz_record(your_vote=2)}),
    ("quiz", {"quiz": quiz_record(published=True)}),
    ("quiz", {"quiz": quiz_record(published_at=iso(T_QUIZ))}),
    ("quiz", {"quiz": quiz_record(in_matchmaking=True)}),
    ("quiz", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ), unpublished_reason="copied")}),
    ("quiz", {"quiz": quiz_record(likes=-1)}),
    ("quiz", {"quiz": quiz_record(questions=201)}),
    ("quiz", {"quiz": quiz_record(title="")}),
    ("quiz", {"quiz": quiz_record(title="t" * 81)}),
    ("quiz", {"quiz": quiz_record(difficulty="brutal")}),
    ("quiz", {"quiz": quiz_record(quiz="world-capitals")}),
    ("quiz", {"quiz": quiz_record(owner={"id": ADA})}),
    ("quiz", {"quiz": quiz_record(saved=None)}),
    ("quiz", {"quiz": dict(quiz_record(), author="ada")}),
    ("quiz", {"quiz": {k: v for k, v in quiz_record().items() if k != "unpublished_reason"}}),
    ("quiz", {}),
    ("quiz_create", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ))}),
    ("quiz_create", {"quiz": quiz_record(questions=1)}),
    ("quiz_publish", {"quiz": quiz_record()}),
    ("quiz_unpublish", {"quiz": quiz_record(published=True, published_at=iso(T_QUIZ))}),
    ("quiz_save", {"quiz": quiz_record()}),
    ("quiz_delete", {"quiz": quiz_record()}),
    ("quiz_questions", {"quiz": quiz_record()}),
    ("quiz_questions", {"quiz": quiz_record(), "questions": [dict(OQ[0], accepted=["a"])]}),
    ("quiz_questions", {"quiz": quiz_record(), "questions": [dict(OQ[2], choices=["Yes", "No"])]}),
    ("quiz_questions", {"quiz": quiz_record(), "questions": [dict(OQ[1], correct_choice=0)]}),
    ("quiz_questions", {"quiz": quiz_record(), "questions": [{k: v for k, v in OQ[4].items() if k != "likes"}]}),
    ("question_add", {"question": dict(OQ[0], likes=1)}),
    ("question_add", {"question": {k: v for k, v in OQ[3].items() if k != "matching"}}),
    ("question_update", {"question": dict(OQ[0], correct_choice=None)}),
    ("catalog", {"quizzes": [quiz_record()], "next_cursor": None}),
    ("catalog", {"quizzes": [], "next_cursor": "x"}),
    ("catalog", {"quizzes": [], "next_cursor": 20}),
    ("catalog", {"quizzes": []}),
    ("my_quizzes", {"quizzes": [quiz_record()] * 51}),
    ("library", {"quizzes": [quiz_record()]}),
    ("rate", {"likes": 0, "dislikes": 0, "your_vote": 1}),
    ("rate", {"likes": 1, "dislikes": 0, "your_vote": -1}),
    ("rate", {"likes": 1, "dislikes": 0}),
    ("rate", {"likes": 1, "dislikes": 0, "your_vote": 1, "quiz": QUIZ}),
])
def test_bad_quiz_replies_are_refused(op, data):
    assert not vf.Schemas().reply(op).is_valid(data)


@pytest.mark.parametrize("op, data, problem", [
    ("quiz", {"quiz": quiz_record(title=" Mixed")}, "quiz: title: not trimmed"),
    ("quiz", {"quiz": quiz_record(theme="Science")}, "quiz: theme: not in lower case"),
    ("quiz_questions", {"quiz": quiz_record(questions=4), "questions": OQ}, "quiz.questions: 4, but 5 are listed"),
    ("quiz_questions", {"quiz": quiz_record(questions=2), "questions": [OQ[1], OQ[0]]},
     "questions: not in ascending question_id order"),
    ("quiz_questions", {"quiz": quiz_record(questions=1), "questions": [dict(OQ[0], correct_choice=3)]},
     "questions[0]: correct_choice: past the question's choices"),
    ("question_add", {"question": dict(OQ[1], correct_choices=[2, 0])}, "question: correct_choices: not in ascending order"),
    ("question_add", {"question": dict(OQ[0], choices=["a", "A"])}, "question: choices: the same choice twice"),
    ("question_update", {"question": dict(OQ[3], prompt="Name? ")}, "question: prompt: not trimmed"),
    ("my_quizzes", {"quizzes": [quiz_record(), quiz_record(quiz="quiz-7", owner={"id": BO, "username": "bob"})]},
     "quizzes: quizzes of more than one owner"),
    ("library", {"quizzes": [quiz_record(saved=True)] * 2}, "quizzes: the same quiz twice"),
    ("catalog", {"quizzes": [quiz_record(published=True, published_at=iso(T0))] * 2, "next_cursor": "3"},
     "quizzes: the same quiz twice"),
    ("catalog", {"quizzes": [], "next_cursor": "0"}, "next_cursor: 0, before the end of a page of 0"),
])
def test_quiz_replies_are_cross_checked(op, data, problem):
    assert vf.Schemas().reply(op).is_valid(data)
    assert any(p.startswith(problem) for p in vf.reply_problems(op, data)), vf.reply_problems(op, data)


def test_the_transcript_makes_a_quiz_with_every_quiz_op():
    checker = vf.Checker(vf.Schemas())
    ops = {checker.client_verdict(line["frame"]).op for line in transcript().lines if line["dir"] == "out"}
    assert set(vf.Schemas().ops[25:41]) <= ops


@pytest.mark.parametrize("ref, change, expected", [
    ("q1", lambda d: d["quiz"].update(your_vote=2), "replies.json#/$defs/quiz_create: $.data.quiz"),
    ("q10", lambda d: d["questions"].pop(), "quiz_questions reply: quiz.questions: 5, but 4 are listed"),
    ("q12", lambda d: d["question"].update(correct_choice=0), "replies.json#/$defs/question_update: $.data.question"),
    ("q15", lambda d: d["quiz"].update(published_at=None), "replies.json#/$defs/quiz_publish: $.data.quiz"),
    ("r2", lambda d: d["quizzes"][0].update(published=False, published_at=None), "replies.json#/$defs/catalog"),
    ("r6", lambda d: d["quizzes"][0].update(saved=False), "replies.json#/$defs/library"),
    ("r7", lambda d: d.update(likes=0), "replies.json#/$defs/rate"),
    ("r10", lambda d: d["quiz"].pop("saved"), "'saved' is a required property"),
])
def test_quiz_replies_in_a_log_are_checked(tmp_path, capsys, ref, change, expected):
    log = transcript()
    conn = "ada" if ref.startswith("q") else "bo"
    index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "reply")
    edit(log, index, lambda f: change(f["data"]))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and expected in out


@pytest.mark.parametrize("ref, conn, message, ok", [
    ("q18", "ada", "quiz: you cannot rate your own quiz", True),
    ("q18", "ada", "question_id: you cannot rate your own question", False),
    ("q18", "ada", "quiz: no such quiz", False),
    ("r4", "bo", "sort: must be popular, new or top_rated", True),
])
def test_state_dependent_bad_requests_of_rate_only(tmp_path, capsys, ref, conn, message, ok):
    log = transcript()
    index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "error")
    edit(log, index, lambda f: f.update(message=message))
    assert run(tmp_path, log) == (0 if ok else 1)
    if not ok:
        assert "which the schema accepts" in capsys.readouterr().out


def test_quiz_frames_the_schema_refuses_must_not_be_accepted(tmp_path, capsys):
    # The choices that repeat but for case and spaces (q8), and a rate of both (r9), answered ok.
    for ref, conn, data in (("q8", "ada", {"question": OQ[0]}),
                            ("r9", "bo", {"likes": 1, "dislikes": 0, "your_vote": 1})):
        log = transcript()
        index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "error")
        log.lines[index]["frame"] = json.dumps(reply(ref, data))
        assert run(tmp_path, log) == 1
        assert "the server accepted the frame" in capsys.readouterr().out


def test_coverage_requires_the_quiz_ops(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"op":"library"' not in line["frame"]]
    assert run(tmp_path, log, "--require-coverage") == 1
    out = capsys.readouterr().out
    assert "ops not seen: library" in out and "replies not seen: library" in out


# --- progress (issue 14) -------------------------------------------------------------------------

PROGRESS_OPS = ["profile_update", "goal_set", "goals", "notifications", "notifications_seen", "rating_history", "stats",
                "achievements"]


def test_the_progress_ops_and_the_notification_event_are_in_the_schema():
    schemas = vf.Schemas()
    start = schemas.ops.index(PROGRESS_OPS[0])
    assert schemas.ops[start:start + len(PROGRESS_OPS)] == PROGRESS_OPS
    assert schemas.event_kinds[-1] == "notification" and vf.PLAYER_EVENTS["notification"] == "notification_event"
    defs = schemas.contents["defs.json"]["$defs"]
    assert set(defs["notification_kind"]["enum"]) == set(NOTIFICATIONS)
    assert {"xp", "level", "level_title", "level_color", "level_line", "level_xp", "next_level_xp",
            "streak"} <= set(defs["player"]["required"])


def test_the_transcript_uses_every_progress_op():
    checker = vf.Checker(vf.Schemas())
    ops = {checker.client_verdict(line["frame"]).op for line in transcript().lines if line["dir"] == "out"}
    assert set(PROGRESS_OPS) <= ops


@pytest.mark.parametrize("frame", [
    {"op": "profile_update", "time_zone": "Europe/Paris"},
    {"op": "profile_update", "time_zone": "UTC"},
    {"op": "profile_update", "time_zone": "Etc/GMT+5"},
    {"op": "profile_update", "time_zone": "America/Argentina/Buenos_Aires"},
    {"op": "profile_update", "time_zone": "Mars/Olympus"},  # the store's check, not the decoder's
    {"op": "profile_update", "time_zone": "z" * 64},
    {"op": "auth", "token": "t", "time_zone": "Asia/Tokyo"},
    {"op": "auth", "token": "t", "time_zone": None},
    {"op": "goal_set", "kind": "wins", "target": 1},
    {"op": "goal_set", "kind": "mistakes_learned", "bank": "world-capitals", "target": 10000},
    {"op": "goal_set", "kind": "games", "bank": None, "target": 3.0},
    {"op": "goal_set", "kind": "correct_answers", "bank": "x" * 128, "target": 50},
    {"op": "goals", "ref": "g"},
    {"op": "notifications"},
    {"op": "notifications", "limit": 1},
    {"op": "notifications", "limit": 100, "before": -5},
    {"op": "notifications", "limit": None, "before": None},
    {"op": "notifications", "before": 2**63 - 1},
    {"op": "notifications_seen", "up_to": 0},
    {"op": "notifications_seen", "up_to": -1},
    {"op": "rating_history", "bank": "world-capitals"},
    {"op": "rating_history", "bank": "x", "limit": 500},
    {"op": "rating_history", "bank": "x", "limit": None},
    {"op": "stats"},
    {"op": "stats", "bank": None},
    {"op": "stats", "bank": "world-capitals"},
    {"op": "achievements"},
])
def test_client_schema_accepts_the_progress_ops(frame):
    validator = vf.Schemas().client()
    assert validator.is_valid(frame), vf.describe(validator.iter_errors(frame))


@pytest.mark.parametrize("frame", [
    {"op": "profile_update"},
    {"op": "profile_update", "time_zone": None},
    {"op": "profile_update", "time_zone": ""},
    {"op": "profile_update", "time_zone": "a b"},
    {"op": "profile_update", "time_zone": "../../etc"},
    {"op": "profile_update", "time_zone": "Europe/Paris\n"},
    {"op": "profile_update", "time_zone": "Europe/Zürich"},
    {"op": "profile_update", "time_zone": "z" * 65},
    {"op": "profile_update", "time_zone": 1},
    {"op": "auth", "token": "t", "time_zone": "a b"},
    {"op": "auth", "token": "t", "time_zone": ""},
    {"op": "goal_set", "kind": "wins", "target": 0},
    {"op": "goal_set", "kind": "wins", "target": 10001},
    {"op": "goal_set", "kind": "wins", "target": 1.5},
    {"op": "goal_set", "kind": "wins", "target": "3"},
    {"op": "goal_set", "kind": "wins"},
    {"op": "goal_set", "kind": "wins", "target": None},
    {"op": "goal_set", "kind": "naps", "target": 3},
    {"op": "goal_set", "kind": "Wins", "target": 3},
    {"op": "goal_set", "target": 3},
    {"op": "goal_set", "kind": "wins", "bank": "x" * 129, "target": 3},
    {"op": "goal_set", "kind": "wins", "bank": 7, "target": 3},
    {"op": "notifications", "limit": 101},
    {"op": "notifications", "limit": 0},
    {"op": "notifications", "before": "x"},
    {"op": "notifications", "before": 2**63},
    {"op": "notifications", "before": 1.5},
    {"op": "notifications_seen"},
    {"op": "notifications_seen", "up_to": None},
    {"op": "notifications_seen", "up_to": "8"},
    {"op": "rating_history"},
    {"op": "rating_history", "bank": None},
    {"op": "rating_history", "bank": "x", "limit": 501},
    {"op": "rating_history", "bank": "x", "limit": 0},
    {"op": "rating_history", "bank": "x" * 129},
    {"op": "stats", "bank": 5},
    {"op": "stats", "bank": "x" * 129},
])
def test_client_schema_refuses_bad_progress_ops(frame):
    assert not vf.Schemas().client().is_valid(frame)


def test_notification_ids_are_read_as_the_server_reads_them():
    checker = vf.Checker(vf.Schemas())
    assert checker.client_verdict('{"op":"notifications_seen","up_to":8.0}').valid
    assert checker.client_verdict('{"op":"notifications","before":10000000000000000}').valid
    assert not checker.client_verdict('{"op":"notifications","before":1e16}').valid
    assert not checker.client_verdict('{"op":"notifications_seen","up_to":1e16}').valid


@pytest.mark.parametrize("xp, level", [(0, 1), (99, 1), (100, 2), (299, 2), (300, 3), (1_000, 5), (4_499, 9),
                                       (4_500, 10), (123_456_789, 1571)])
def test_levels_follow_the_curve(xp, level):
    assert vf.level_of(xp) == level
    assert vf.level_xp(level) <= xp < vf.level_xp(level + 1)
    assert vf.level_title(level) == [row for row in LEVELS if row[0] <= level][-1][1]


@pytest.mark.parametrize("xp, streak", [(0, (0, 0)), (70, (1, 1)), (100, (0, 3)), (350, (2, 2)), (4_500, (7, 9)),
                                        (245_000, (0, 0)), (10**12, (365, 400))])
def test_player_objects_with_progress_are_valid(xp, streak):
    data = {"player": player(ADA, "ada", xp=xp, streak=streak)}
    validator = vf.Schemas().reply("profile")
    assert validator.is_valid(data), vf.describe(validator.iter_errors(data))
    assert vf.reply_problems("profile", data) == []


def with_player(**changes):
    base = player(ADA, "ada", xp=350, streak=(2, 3))
    for name, value in changes.items():
        if value is None:
            base.pop(name)
        else:
            base[name] = value
    return {"player": base}


@pytest.mark.parametrize("data", [
    with_player(xp=None),
    with_player(level=None),
    with_player(level_title=None),
    with_player(level_color=None),
    with_player(level_line=None),
    with_player(level_xp=None),
    with_player(next_level_xp=None),
    with_player(streak=None),
    {"player": {k: v for k, v in player(ADA, "ada").items() if k not in progress()}},  # version 1's player object
    with_player(xp=-1),
    with_player(xp=350.5),
    with_player(level=0),
    with_player(level="3"),
    with_player(level_title=""),
    with_player(level_color="#2563EB"),
    with_player(level_color="2563eb"),
    with_player(level_color="#2563eb\n"),
    with_player(level_color="#25e"),
    with_player(level_xp=-100),
    with_player(next_level_xp=0),
    with_player(streak={"current": 1}),
    with_player(streak={"current": -1, "best": 0}),
    with_player(streak={"current": 1, "best": 1, "days": []}),
    with_player(streak=[1, 1]),
    with_player(time_zone="Europe/Paris"),
])
def test_bad_player_objects_are_refused(data):
    assert not vf.Schemas().reply("profile").is_valid(data)


@pytest.mark.parametrize("data, problem", [
    (with_player(next_level_xp=300), "player.next_level_xp: not above level_xp"),
    (with_player(next_level_xp=250), "player.next_level_xp: 250, but level 4 starts at 600"),
    (with_player(level=2), "player.level: 2, but 350 XP is level 3"),
    (with_player(xp=299), "player.level: 3, but 299 XP is level 2"),
    (with_player(xp=600), "player.level: 3, but 600 XP is level 4"),
    (with_player(level_xp=250), "player.level_xp: 250, but level 3 starts at 300"),
    (with_player(level_title="Newcomer"), "player.level_title: 'Newcomer', but level 3 is 'Learner'"),
    (with_player(streak={"current": 4, "best": 3}), "player.streak: best below current"),
])
def test_player_objects_are_cross_checked(data, problem):
    assert vf.Schemas().reply("profile").is_valid(data)
    assert problem in vf.reply_problems("profile", data), vf.reply_problems("profile", data)
    assert problem in vf.reply_problems("profile_update", dict(data, time_zone="UTC"))


@pytest.mark.parametrize("kind", list(NOTIFICATIONS))
def test_notification_events_of_every_kind_are_valid(kind):
    frame = json.loads(jsonb_text(notification_event(NOTIFICATIONS[kind])))
    validator = vf.Schemas().server()
    assert validator.is_valid(frame), vf.describe(validator.iter_errors(frame))
    assert vf.notification_problems(frame["record"]) == []


def edited_notification(kind, change):
    frame = notification_event(copy.deepcopy(NOTIFICATIONS[kind]))
    change(frame, frame["record"], frame["record"]["data"])
    return frame


@pytest.mark.parametrize("kind, change", [
    ("achievement", lambda f, r, d: r.update(kind="spam")),
    ("achievement", lambda f, r, d: r.update(kind="level_up")),
    ("achievement", lambda f, r, d: d.update(level=3)),
    ("achievement", lambda f, r, d: d.pop("title")),
    ("achievement", lambda f, r, d: d.update(code="First Win")),
    ("achievement", lambda f, r, d: r.update(id=0)),
    ("achievement", lambda f, r, d: r.update(id="4")),
    ("achievement", lambda f, r, d: r.update(created_at="2025-11-21 22:45:00")),
    ("achievement", lambda f, r, d: r.pop("data")),
    ("achievement", lambda f, r, d: r.update(data=None)),
    ("achievement", lambda f, r, d: r.update(seen=False)),
    ("achievement", lambda f, r, d: f.update(seq=1)),
    ("achievement", lambda f, r, d: f.update(duel_id=DUEL)),
    ("achievement", lambda f, r, d: f.update(type="UPDATE")),
    ("achievement", lambda f, r, d: f.update(table="notification")),
    ("achievement", lambda f, r, d: f.pop("server_time_ms")),
    ("level_up", lambda f, r, d: d.update(level=1)),
    ("level_up", lambda f, r, d: d.update(color="#2563EB")),
    ("level_up", lambda f, r, d: d.update(colour="#2563eb")),
    ("goal_reached", lambda f, r, d: d.update(kind="naps")),
    ("goal_reached", lambda f, r, d: d.update(target=0)),
    ("goal_reached", lambda f, r, d: d.pop("bank")),
    ("goal_reached", lambda f, r, d: d.update(bank="World Capitals")),
    ("goal_reached", lambda f, r, d: d.update(xp=-100)),
    ("challenge_received", lambda f, r, d: d.update(challenge_id="not-a-uuid")),
    ("challenge_received", lambda f, r, d: d.update(to="ada")),
    ("challenge_received", lambda f, r, d: d.update(**{"from": {"id": BO, "username": "bob"}})),
    ("challenge_expired", lambda f, r, d: d.pop("to")),
    ("report_resolved", lambda f, r, d: d.update(quiz="world-capitals")),
    ("quiz_unpublished", lambda f, r, d: d.pop("reason")),
    ("quiz_unpublished", lambda f, r, d: d.update(reason="")),
    ("quiz_promoted", lambda f, r, d: d.update(title="")),
    ("quiz_promoted", lambda f, r, d: d.update(reason="copied")),
])
def test_bad_notification_events_are_refused(kind, change):
    assert not vf.Schemas().server().is_valid(edited_notification(kind, change))


@pytest.mark.parametrize("kind, change, problem", [
    ("achievement", lambda f, r, d: f.update(commit_timestamp=iso(T_PROGRESS + 1)),
     "notification: commit_timestamp differs from record.created_at"),
    ("level_up", lambda f, r, d: d.update(title="Scholar"), "data.title: 'Scholar', but level 3 is 'Learner'"),
    ("level_up", lambda f, r, d: d.update(level=10), "data.title: 'Learner', but level 10 is 'Expert'"),
])
def test_notification_events_are_cross_checked(tmp_path, capsys, kind, change, problem):
    log = transcript()
    log.inn("ada", jsonb_text(edited_notification(kind, change)))
    assert run(tmp_path, log) == 1
    assert problem in capsys.readouterr().out


def test_notification_events_are_read_whatever_their_key_order(tmp_path):
    log = transcript()
    frames = [json.loads(line["frame"]) for line in log.lines if line["dir"] == "in" and '"notification"' in line["frame"]]
    assert any(line["frame"].startswith('{"op": "event", "type": "INSERT", "event": "notification"')
               for line in log.lines)
    assert frames and all(list(f) != list(notification_event(f["record"])) for f in frames if f.get("event"))
    assert run(tmp_path, log, "--require-coverage") == 0


def test_coverage_requires_the_notification_event(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"event": "notification"' not in line["frame"]]
    assert run(tmp_path, log) == 0
    assert run(tmp_path, log, "--require-coverage") == 1
    assert "events not seen: notification" in capsys.readouterr().out


def test_coverage_requires_the_progress_ops(tmp_path, capsys):
    log = transcript()
    log.lines = [line for line in log.lines if '"op":"stats"' not in line["frame"]]
    assert run(tmp_path, log, "--require-coverage") == 1
    out = capsys.readouterr().out
    assert "ops not seen: stats" in out and "replies not seen: stats" in out


@pytest.mark.parametrize("op, data", [
    ("profile_update", {"player": player(ADA, "ada", xp=350, streak=(1, 1)), "time_zone": "Europe/Paris"}),
    ("goal_set", {"goals": [goal("games", None, 3, 2)]}),
    ("goal_set", {"goals": [goal("games", None, 3, 5, True), goal("wins", "world-capitals", 10000, 0)]}),
    ("goals", {"goals": []}),
    ("goals", {"goals": [goal("correct_answers", QUIZ, 100, 120, True), goal("mistakes_learned", None, 1, 0)]}),
    ("notifications", {"notifications": [], "unseen": 0}),
    ("notifications", {"notifications": [N8, N5, N4, N2, N1], "unseen": 3}),
    ("notifications", {"notifications": [NOTIFICATIONS[k] for k in sorted(NOTIFICATIONS, key=lambda k: -NOTIFICATIONS[k]["id"])],
                       "unseen": 8}),
    ("notifications_seen", {"unseen": 0}),
    ("notifications_seen", {"unseen": 12}),
    ("rating_history", {"bank": "world-capitals", "points": POINTS}),
    ("rating_history", {"bank": QUIZ, "points": []}),
    ("rating_history", {"bank": "world-capitals", "points": [dict(POINTS[0], outcome="draw", rating=1500)]}),
    ("stats", STATS),
    ("stats", dict(STATS, bank="world-capitals", accuracy=1)),
    ("stats", dict(STATS, accuracy=0, correct=0)),
    ("stats", {"bank": None, "answers": 0, "correct": 0, "questions_asked": 0, "accuracy": None, "mean_answer_ms": 0,
               "games_by_mode": {"ranked": 0, "room": 0, "challenge": 0, "practice": 0, "recorded": 0}}),
    ("stats", {"bank": None, "answers": 0, "correct": 0, "questions_asked": 0, "accuracy": None, "mean_answer_ms": 0,
               "games_by_mode": {"ranked": 0, "room": 0, "challenge": 0, "practice": 1, "recorded": 0}}),
    ("achievements", {"achievements": []}),
    ("achievements", {"achievements": [{"code": "first_win", "title": "First win", "description": "Win a game.",
                                        "earned_at": iso(T0)},
                                       {"code": "streak_7", "title": "Week of learning", "description": "Play.",
                                        "earned_at": None}]}),
])
def test_progress_replies_are_valid(op, data):
    validator = vf.Schemas().reply(op)
    assert validator.is_valid(data), vf.describe(validator.iter_errors(data))
    assert vf.reply_problems(op, data) == []


@pytest.mark.parametrize("op, data", [
    ("profile_update", {"player": player(ADA, "ada")}),
    ("profile_update", {"player": player(ADA, "ada"), "time_zone": "a b"}),
    ("profile_update", {"player": player(ADA, "ada"), "time_zone": None}),
    ("profile_update", {"time_zone": "UTC"}),
    ("goal_set", {"goals": []}),
    ("goal_set", {}),
    ("goals", {"goals": [goal("naps", None, 3, 0)]}),
    ("goals", {"goals": [goal("wins", None, 0, 0)]}),
    ("goals", {"goals": [goal("wins", None, 10001, 0)]}),
    ("goals", {"goals": [goal("wins", "World Capitals", 3, 0)]}),
    ("goals", {"goals": [goal("wins", None, 3, -1)]}),
    ("goals", {"goals": [goal("wins", None, 3, 0, None)]}),
    ("goals", {"goals": [dict(goal("wins", None, 3, 0), week_start="2025-11-17T00:00:00.000Z")]}),
    ("goals", {"goals": [dict(goal("wins", None, 3, 0), week_start="17/11/2025")]}),
    ("goals", {"goals": [{k: v for k, v in goal("wins", None, 3, 0).items() if k != "bank"}]}),
    ("goals", {"goals": [dict(goal("wins", None, 3, 0), set_at=iso(T0))]}),
    ("notifications", {"notifications": [N4]}),
    ("notifications", {"notifications": [N4], "unseen": -1}),
    ("notifications", {"notifications": [dict(N4, kind="spam")], "unseen": 1}),
    ("notifications", {"notifications": [dict(N4, data={"level": 3})], "unseen": 1}),
    ("notifications", {"notifications": [N4] * 101, "unseen": 1}),
    ("notifications_seen", {}),
    ("notifications_seen", {"unseen": None}),
    ("rating_history", {"points": POINTS}),
    ("rating_history", {"bank": None, "points": POINTS}),
    ("rating_history", {"bank": "world-capitals", "points": [dict(POINTS[0], outcome="won")]}),
    ("rating_history", {"bank": "world-capitals", "points": [dict(POINTS[0], rating=1662.5)]}),
    ("rating_history", {"bank": "world-capitals", "points": [dict(POINTS[0], at=T0)]}),
    ("rating_history", {"bank": "world-capitals", "points": [{k: v for k, v in POINTS[0].items() if k != "rating_before"}]}),
    ("rating_history", {"bank": "world-capitals", "points": [dict(POINTS[0], bank="world-capitals")]}),
    ("rating_history", {"bank": "world-capitals", "points": POINTS * 167}),
    ("stats", dict(STATS, accuracy=1.2)),
    ("stats", dict(STATS, accuracy=-0.1)),
    ("stats", dict(STATS, accuracy=None)),
    ("stats", dict(STATS, accuracy="0.4")),
    ("stats", dict(STATS, questions_asked=0)),
    ("stats", dict(STATS, mean_answer_ms=-1)),
    ("stats", dict(STATS, games_by_mode={"ranked": 4, "room": 1, "challenge": 1})),
    ("stats", dict(STATS, games_by_mode={"ranked": 4, "room": 1, "challenge": 1, "practice": 1, "recorded": 0, "duel": 0})),
    ("stats", {k: v for k, v in STATS.items() if k != "bank"}),
    ("achievements", {"achievements": [{"code": "first_win", "title": "First win", "description": "x"}]}),
    ("achievements", {"achievements": [{"code": "first_win", "title": "First win", "description": "x",
                                        "earned_at": "yesterday"}]}),
    ("achievements", {"achievements": [{"code": "First win", "title": "First win", "description": "x",
                                        "earned_at": None}]}),
    ("achievements", {}),
])
def test_bad_progress_replies_are_refused(op, data):
    assert not vf.Schemas().reply(op).is_valid(data)


@pytest.mark.parametrize("op, data, request_, problem", [
    ("profile_update", {"player": player(ADA, "ada"), "time_zone": "UTC"}, {"time_zone": "Europe/Paris"},
     "time_zone: 'UTC', not the one sent ('Europe/Paris')"),
    ("goal_set", {"goals": [goal("games", None, 3, 2)]}, {"kind": "wins", "target": 3},
     "goals: no wins goal for bank null, the one set"),
    ("goal_set", {"goals": [goal("wins", None, 3, 2)]}, {"kind": "wins", "bank": "world-capitals", "target": 3},
     'goals: no wins goal for bank "world-capitals", the one set'),
    ("goal_set", {"goals": [goal("wins", None, 5, 2)]}, {"kind": "wins", "target": 3},
     "goals: the wins goal set is not at its new target, unreached"),
    ("goal_set", {"goals": [goal("wins", None, 3, 4, True)]}, {"kind": "wins", "target": 3},
     "goals: the wins goal set is not at its new target, unreached"),
    ("goals", {"goals": [goal("wins", None, 3, 0), dict(goal("games", None, 3, 0), week_start="2025-11-24")]}, None,
     "goals: of more than one week"),
    ("goals", {"goals": [dict(goal("wins", None, 3, 0), week_start="2025-11-21")]}, None,
     "goals[0].week_start: 2025-11-21 is no Monday"),
    ("goals", {"goals": [goal("wins", None, 3, 0), goal("wins", None, 5, 0)]}, None,
     "goals: the same kind and bank twice"),
    ("notifications", {"notifications": [N4, N5], "unseen": 2}, None, "notifications: not newest first"),
    ("notifications", {"notifications": [N4, N4], "unseen": 2}, None, "notifications: not newest first"),
    ("notifications", {"notifications": [N5, N4, N2], "unseen": 2}, {"limit": 2},
     "notifications: 3, more than the limit of 2"),
    ("notifications", {"notifications": [N5, N4, N2], "unseen": 2}, {"before": 5},
     "notifications: an id not below before (5)"),
    ("notifications", {"notifications": [dict(N5, data=dict(N5["data"], title="Expert"))], "unseen": 1}, None,
     "notifications[0]: data.title: 'Expert', but level 3 is 'Learner'"),
    ("rating_history", {"bank": "general-science", "points": []}, {"bank": "world-capitals"},
     "bank: 'general-science', not the one asked for"),
    ("rating_history", {"bank": "world-capitals", "points": POINTS[::-1]}, None, "points: not oldest first"),
    ("rating_history", {"bank": "world-capitals", "points": POINTS[:1] * 2}, None, "points: the same duel twice"),
    ("rating_history", {"bank": "world-capitals", "points": POINTS}, {"bank": "world-capitals", "limit": 2},
     "points: 3, more than the limit of 2"),
    ("stats", STATS, {"bank": "world-capitals"}, 'bank: null, not the one asked for'),
    ("stats", dict(STATS, bank="world-capitals"), {}, 'bank: "world-capitals", not the one asked for'),
    ("stats", dict(STATS, correct=9), None, "correct: more than answers"),
    ("stats", dict(STATS, answers=0, correct=0), None, "mean_answer_ms: set without answers"),
    ("stats", dict(STATS, accuracy=0.4004), None, "accuracy: 0.4004, more than three decimals"),
    ("stats", dict(STATS, games_by_mode={"ranked": 0, "room": 0, "challenge": 0, "practice": 0, "recorded": 0}), None,
     "questions_asked: questions of no game"),
    ("achievements", {"achievements": [{"code": "first_win", "title": "First win", "description": "x",
                                        "earned_at": None}] * 2}, None, "achievements: the same code twice"),
])
def test_progress_replies_are_cross_checked(op, data, request_, problem):
    assert vf.Schemas().reply(op).is_valid(data)
    problems = vf.reply_problems(op, data, request_)
    assert any(p.startswith(problem) for p in problems), problems


@pytest.mark.parametrize("ref, conn, change, expected", [
    ("p1", "ada", lambda d: d["player"].update(level=4), "profile_update reply: player.level: 4, but 350 XP is level 3"),
    ("p1", "ada", lambda d: d.update(time_zone="Asia/Tokyo"), "profile_update reply: time_zone: 'Asia/Tokyo'"),
    ("p4", "ada", lambda d: d["goals"][0].update(kind="wins"), "goal_set reply: goals: no games goal"),
    ("p5", "ada", lambda d: d["goals"][1].update(week_start="2025-11-10"), "goal_set reply: goals: of more than one week"),
    ("p9", "ada", lambda d: d["goals"][0].update(reached="yes"), "replies.json#/$defs/goals: $.data.goals[0].reached"),
    ("p10", "ada", lambda d: d["notifications"].append(N2), "notifications reply: notifications: 4, more than the limit of 3"),
    ("p11", "ada", lambda d: d["notifications"].insert(0, N4), "notifications reply: notifications: an id not below before (4)"),
    ("p11", "ada", lambda d: d["notifications"][0].update(kind="spam"), "replies.json#/$defs/notifications"),
    ("p12", "ada", lambda d: d.update(unseen=None), "replies.json#/$defs/notifications_seen"),
    ("p16", "ada", lambda d: d.update(bank="general-science"), "rating_history reply: bank: 'general-science'"),
    ("p20", "ada", lambda d: d.update(accuracy=None), "replies.json#/$defs/stats"),
    ("u1", "bo", lambda d: d.update(bank=None), "stats reply: bank: null, not the one asked for"),
    ("p21", "ada", lambda d: d["achievements"][0].pop("earned_at"), "replies.json#/$defs/achievements"),
    (3, "ada-2", lambda d: d["player"].update(next_level_xp=300), "auth reply: player.next_level_xp: not above level_xp"),
    (16, "ada", lambda d: d["player"]["streak"].update(best=0), "login reply: player.streak: best below current"),
    (2, "ada", lambda d: d["player"].pop("streak"), "replies.json#/$defs/signup: $.data.player"),
])
def test_progress_replies_in_a_log_are_checked(tmp_path, capsys, ref, conn, change, expected):
    log = transcript()
    index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "reply"
                    and (ref not in (2, 16) or "player" in f["data"]))
    edit(log, index, lambda f: change(f["data"]))
    assert run(tmp_path, log) == 1
    out = capsys.readouterr().out
    assert f"frames.jsonl:{index + 1}" in out and expected in out


@pytest.mark.parametrize("ref, conn, message, ok", [
    ("p2", "ada", "time_zone: unknown time zone Mars/Olympus", True),
    ("p2", "ada", "time_zone: unknown time zone Europe/Paris", False),
    ("p2", "ada", "time_zone: must be an IANA time zone name, such as Europe/Paris", False),
    ("p3", "ada", "time_zone: anything at all", True),  # ../../etc: the schema refuses it too
    ("p6", "ada", "target: must be between 1 and 10000", True),
    ("p13", "ada", "limit: must be between 1 and 100", True),
])
def test_state_dependent_bad_requests_of_time_zones_only(tmp_path, capsys, ref, conn, message, ok):
    log = transcript()
    index = line_of(log, conn, "in", lambda f: f.get("ref") == ref and f["op"] == "error")
    edit(log, index, lambda f: f.update(message=message))
    assert run(tmp_path, log) == (0 if ok else 1)
    if not ok:
        assert "which the schema accepts" in capsys.readouterr().out


def test_an_unknown_time_zone_at_auth_may_be_refused(tmp_path, capsys):
    log = transcript()
    log.out("ada-3", {"op": "auth", "ref": 1, "token": TOKEN_A, "time_zone": "Mars/Olympus"})
    log.inn("ada-3", error(1, "bad_request", "time_zone: unknown time zone Mars/Olympus"))
    assert run(tmp_path, log) == 0
    log.out("ada-3", {"op": "auth", "ref": 2, "token": TOKEN_A})
    log.inn("ada-3", error(2, "bad_request", "time_zone: unknown time zone Mars/Olympus"))
    assert run(tmp_path, log) == 1
    assert "which the schema accepts" in capsys.readouterr().out


@pytest.mark.parametrize("frame, data", [
    ({"op": "goal_set", "kind": "wins", "target": 0}, {"goals": [goal("wins", None, 3, 0)]}),
    ({"op": "profile_update", "time_zone": "a b"}, {"player": player(ADA, "ada"), "time_zone": "a b"}),
    ({"op": "notifications", "limit": 101}, {"notifications": [], "unseen": 0}),
    ({"op": "rating_history", "bank": "world-capitals", "limit": 501}, {"bank": "world-capitals", "points": []}),
])
def test_progress_frames_the_schema_refuses_must_not_be_accepted(tmp_path, capsys, frame, data):
    log = transcript()
    log.out("ada", dict(frame, ref="p99"))
    log.inn("ada", reply("p99", data))
    assert run(tmp_path, log) == 1
    assert "the server accepted the frame" in capsys.readouterr().out


if __name__ == "__main__":
    directory = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    directory.mkdir(parents=True, exist_ok=True)
    print(transcript().write(directory / "transcript.jsonl"))
