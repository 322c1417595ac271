#!/usr/bin/env python3
"""Checks recorded WebSocket frames against the protocol's JSON Schema (docs/schema/).

A frame log is a JSON Lines file; each line is
    {"source": "<test or file name>", "conn": "<connection id>", "dir": "out" | "in", "frame": "<raw text>"}
where "out" is client to server and "in" server to client. A client must log an "out"
frame before sending it, so that the request precedes its reply in the log.

Rules:
- every "in" frame is valid against server-message.json, and a reply's `data` against
  replies.json's definition for the op of the request that the same connection (source
  and conn) sent with that `ref`, the oldest unanswered one first (replies whose ref is
  null or matches no request: envelope only);
- every "out" frame valid against client-message.json is never answered bad_json,
  bad_request or unknown_op (except the verdicts that depend on state no schema can see:
  an `answer` whose field does not fit the open question's type, whose `choice` or
  `choices` are past its options, or whose `choices` are empty or repeat one, each only
  when it agrees with what the question is known to be from a logged record, `profile` of
  an unknown player, a `challenge` of oneself, a `rematch` of a duel not finished, not
  ranked, rematched, ended by an operator or past its window, a `rate` of one's own quiz
  or question, and an `auth` or `profile_update` whose `time_zone` Postgres does not know);
  an invalid one is answered with an error, or not at all. Besides the schema,
  a client frame is invalid when JSON Schema cannot say so: a question's `choices` that repeat
  once trimmed and with letter case ignored (issue 13), a question_id (or a notification id:
  `before`, `up_to`) written with a fraction or an exponent past 9e15;
- the records (events, auth/login/history replies, rooms and challenges) also pass
  cross-field checks that JSON Schema cannot state (ids of the by-player maps are the
  duel's players, the reveal is of the current question and of its type, each player's
  answer agrees with the picks and with `correct` and is credited no earlier than its
  question opened, an operator's end leaves ratings
  unchanged, a room's host is one of its members, a quiz's texts are trimmed, an owner's
  question key is within its choices, quiz_questions counts what it lists, a player's level
  agrees with their XP, notifications come newest first, a reply answers the request's bank,
  limit and goal...).

Client frames are read as the server reads them (DuelCore's JSONParser): NaN and
Infinity, lone surrogates, numbers out of range and nesting deeper than 32 are not
JSON there; a `ref` must be an integer written without fraction or exponent; other
integers may be written as 3.0, below 9e15.

Exit status: 0 when every check passed, 1 on any failure (or missing coverage with
--require-coverage), 2 when there were no frames at all.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import pathlib
import re
import sys
import unicodedata
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "docs" / "schema"
BASE = "https://quizduel.example/schema/"
DUEL_EVENTS = ["init", "question", "answered", "reveal", "complete"]
# Events of a player rather than of a duel (issue 12): kind -> server-message.json definition.
PLAYER_EVENTS = {"room": "room_event", "challenge": "challenge_event", "rematch": "rematch_event",
                 "notification": "notification_event"}
EVENT_KINDS = DUEL_EVENTS + ["queued"] + list(PLAYER_EVENTS)
DECODING_CODES = {"bad_json", "bad_request", "unknown_op"}
# bad_request verdicts on a schema-valid frame that depend on state (PGConnection+Challenges.swift, +Rematch.swift).
CHALLENGE_OF_ONESELF = "username: you cannot challenge yourself"
REMATCH_REFUSALS = {"duel_id: only ranked duels have rematches", "duel_id: the duel is not over",
                    "duel_id: that duel was already rematched", "duel_id: too late for a rematch",
                    "duel_id: an operator ended that duel"}
# bad_request verdicts on a schema-valid `rate` that depend on state, by the field sent (PGConnection+Catalog.swift).
RATE_REFUSALS = {"quiz": "quiz: you cannot rate your own quiz", "question_id": "question_id: you cannot rate your own question"}
# Ops that take a question id (a 64-bit integer, Fields.int64).
QUESTION_ID_OPS = {"report", "question_update", "question_delete", "rate"}
# Every 64-bit integer field (Fields.int64), by op: a question id, a notification id (issue 14).
INT64_FIELDS = {**{op: "question_id" for op in QUESTION_ID_OPS}, "notifications": "before", "notifications_seen": "up_to"}
# A schema-valid time_zone (auth, profile_update) that Postgres does not know (PGConnection+Progress.swift).
UNKNOWN_TIME_ZONE = "time_zone: unknown time zone "
REMINDER_OUTSIDE_THE_WEEK = "remind_at: must lie between now and the goal's due time"
# Progress (issue 14): the titles by level PROTOCOL.md gives (each from its level on).
LEVEL_TITLES = {1: "Newcomer", 3: "Learner", 5: "Scholar", 10: "Expert", 20: "Master", 35: "Grandmaster", 50: "Legend"}
# Reply limits by op: (field, default) of the request (ClientRequest+ProgressDecoding.swift).
REPLY_LIMITS = {"notifications": ("notifications", 20), "rating_history": ("points", 100)}
# Quizzes players make (issue 13): ops whose reply holds one quiz record, and those with a list of them.
QUIZ_RECORD_OPS = {"quiz_create", "quiz_update", "quiz_publish", "quiz_unpublish", "quiz_questions", "quiz", "quiz_save"}
QUIZ_LIST_OPS = {"my_quizzes", "catalog", "library"}
# What the server trims from text a player writes: Unicode White_Space (Swift's isWhitespace).
WHITE_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
# Question types (issue 13): the `answer` field each takes (QuestionType.answerField).
ANSWER_FIELDS = {"single": "choice", "multiple": "choices", "boolean": "choice", "text": "text", "number": "number"}
# bad_request verdicts on a schema-valid `answer` that depend on the open question (AnswerKey.verdict).
MISFIT = re.compile(r"(choice|choices|text|number): this (single|multiple|boolean|text|number) question is answered"
                    r" with `(choice|choices|text|number)`")
CHOICE_RANGE = re.compile(r"choice: must be between 0 and (\d+)")
CHOICES_RANGE = re.compile(r"choices: each must be between 0 and (\d+)")
CHOICES_EMPTY = "choices: pick at least one"
CHOICES_REPEAT = "choices: must be distinct"
MAX_DEPTH = 32  # JSONParser.maxDepth
INT64 = (-(2**63), 2**63 - 1)


# --- schemas ---------------------------------------------------------------------------

class RememberingValidator:
    """A validator that remembers its verdict on each instance, by the instance's JSON text.

    The tests run main() hundreds of times on logs that differ from one transcript by a frame
    or two, and a full log takes seconds to validate (every client frame is tried against the
    oneOf of every op); a log of the browser tests repeats frames too. The text tells apart
    whatever the validator could: json.dumps writes 3 and 3.0 (a FloatLiteral), true and 1,
    differently. Errors are not remembered: they are asked for only of invalid frames, and
    always computed afresh."""

    def __init__(self, validator: Draft202012Validator):
        self.validator = validator
        self._verdicts: dict[str, bool] = {}

    def is_valid(self, instance) -> bool:
        key = json.dumps(instance)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = self.validator.is_valid(instance)
        return verdict

    def iter_errors(self, instance):
        return self.validator.iter_errors(instance)


def schema_texts(directory: pathlib.Path) -> tuple[tuple[str, str], ...]:
    return tuple((path.name, path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.json")))


class Schemas:
    """The schema files of a directory, in one registry, with a validator per pointer."""

    # Schemas by directory and file texts, so that main() run again on the same files (the
    # tests do, hundreds of times) keeps the verdicts its validators remember; a schema file
    # edited in between makes a new entry, and so new verdicts.
    _loaded: dict[tuple[str, tuple], "Schemas"] = {}

    @classmethod
    def load(cls, directory: pathlib.Path = SCHEMA_DIR) -> "Schemas":
        texts = schema_texts(directory)
        key = (str(directory.resolve()), texts)
        if key not in cls._loaded:
            cls._loaded[key] = cls(directory, texts)
        return cls._loaded[key]

    def __init__(self, directory: pathlib.Path = SCHEMA_DIR, texts: tuple[tuple[str, str], ...] | None = None):
        self.contents = {}
        resources = []
        for name, text in schema_texts(directory) if texts is None else texts:
            schema = json.loads(text)
            self.contents[name] = schema
            resources.append((schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012)))
        missing = {"defs.json", "client-message.json", "server-message.json", "replies.json"} - set(self.contents)
        if missing:
            raise SystemExit(f"validate_frames: {directory} lacks {', '.join(sorted(missing))}")
        self.registry = Registry().with_resources(resources)
        self._validators: dict[str, RememberingValidator] = {}
        self.ops: list[str] = self.contents["defs.json"]["$defs"]["op"]["enum"]
        self.reply_defs: list[str] = [op for op in self.ops if op in self.contents["replies.json"]["$defs"]]
        self.event_kinds: list[str] = self.contents["defs.json"]["$defs"]["event_kind"]["enum"]

    def validator(self, uri: str) -> RememberingValidator:
        if uri not in self._validators:
            self._validators[uri] = RememberingValidator(Draft202012Validator({"$ref": uri}, registry=self.registry))
        return self._validators[uri]

    def client(self, pointer: str = "") -> RememberingValidator:
        return self.validator(BASE + "client-message.json" + (f"#/$defs/{pointer}" if pointer else ""))

    def server(self, pointer: str = "") -> RememberingValidator:
        return self.validator(BASE + "server-message.json" + (f"#/$defs/{pointer}" if pointer else ""))

    def reply(self, op: str) -> RememberingValidator:
        return self.validator(BASE + f"replies.json#/$defs/{op}")


def describe(errors) -> str:
    error = best_match(errors)
    if error is None:
        return "invalid"
    message = error.message
    if len(message) > 240:
        message = message[:240] + "…"
    rule = "/".join(str(step) for step in error.schema_path if step != "$ref")
    return f"{error.json_path}: {message} [schema: {rule}]"


# --- reading JSON as the server does -----------------------------------------------------

class FloatLiteral(float):
    """A number written with a fraction or an exponent (or an integer past 64 bits)."""


class NotServerJSON(ValueError):
    pass


def _parse_int(text: str):
    value = int(text)
    if INT64[0] <= value <= INT64[1]:
        return value
    return _parse_float(text)


def _parse_float(text: str):
    value = float(text)
    if math.isinf(value):
        raise NotServerJSON("number out of range")
    return FloatLiteral(value)


def _parse_constant(name: str):
    raise NotServerJSON(f"invalid literal {name}")


def _check_parsed(value, depth: int = 0):
    if depth >= MAX_DEPTH:
        raise NotServerJSON("nested too deeply")
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            raise NotServerJSON("lone surrogate")
    elif isinstance(value, list):
        for item in value:
            _check_parsed(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_parsed(key, depth)
            _check_parsed(item, depth + 1)


def parse_as_server(text: str):
    """The value the server's JSONParser reads from `text`; raises when it reads none."""
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except RecursionError:
        raise NotServerJSON("nested too deeply") from None
    except ValueError as error:  # json.JSONDecodeError, NotServerJSON, int() digit limits
        raise NotServerJSON(str(error)) from None
    _check_parsed(value)
    return value


def server_integer(value) -> bool:
    """JSONValue.integer: an integer literal, or a whole double below 9e15."""
    if isinstance(value, bool):
        return False
    if isinstance(value, FloatLiteral):
        return value.is_integer() and abs(value) < 9.0e15
    return isinstance(value, int)


def ref_key(ref):
    """How a request and its reply are paired, or None when they cannot be."""
    if isinstance(ref, bool) or isinstance(ref, FloatLiteral):
        return None
    if isinstance(ref, str):
        return ("s", ref)
    if isinstance(ref, int):
        return ("i", ref)
    return None


# --- cross-field checks --------------------------------------------------------------------

def record_problems(record: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) duel record."""
    problems = []
    ids = [p["id"] for p in record["players"]]
    id_set = set(ids)
    if len(id_set) != len(ids):
        problems.append("players: the same player twice")
    if record["question_index"] >= record["question_count"]:
        problems.append("question_index: not below question_count")
    question = record["question"]
    if question is not None:
        if question["index"] != record["question_index"]:
            problems.append("question.index: differs from question_index")
        if question["deadline_ms"] <= question["opens_at_ms"]:
            problems.append("question: deadline_ms not after opens_at_ms")
    answerers = [a["player"] for a in record["answers"]]
    if len(set(answerers)) != len(answerers):
        problems.append("answers: two answers of one player")
    if not set(answerers) <= id_set:
        problems.append("answers: an answer of someone not in players")
    if record["answers"] and question is None:
        problems.append("answers: answers without a question")
    if question is not None:
        # Issue 26: an answer is credited by its author's lag, never to before the question opened.
        for answer in record["answers"]:
            if answer["at_ms"] - answer["credit_ms"] < question["opens_at_ms"]:
                problems.append(f"answers: {answer['player']}'s answer is credited before the question opened")
    reveal = record["reveal"]
    if reveal is not None and question is not None:
        problems += reveal_problems(reveal, question, record["question_index"], ids, record["answers"])
    result = record["result"]
    if result is not None:
        if result["winner"] is not None and result["winner"] not in id_set:
            problems.append("result.winner: not a player of the duel")
        if set(result["ratings"]) != id_set:
            problems.append("result.ratings: keys are not the players' ids")
        places = result["placements"]
        if set(places) != id_set:
            problems.append("result.placements: keys are not the players' ids")
        elif 1 not in places.values():
            problems.append("result.placements: nobody is placed first")
        if result["winner"] is not None and places.get(result["winner"]) != 1:
            problems.append("result.winner: not placed first")
        if result["winner"] is not None and len(ids) != 2:
            problems.append("result.winner: set in a game of other than two players")
        if any(place > len(ids) for place in places.values()):
            problems.append("result.placements: a place past the number of players")
        if not record["rated"]:
            for player, change in result["ratings"].items():
                if change["before"] != change["after"]:
                    problems.append(f"result.ratings.{player}: an unrated game moved a rating")
        if result["reason"] == "ended":
            for player, change in result["ratings"].items():
                if change["before"] != change["after"]:
                    problems.append(f"result.ratings.{player}: an ended duel is unrated, yet after != before")
        if result["reason"] == "completed" and record["question_index"] != record["question_count"] - 1:
            problems.append("result: completed before its last question")
    return problems


def answer_kind(answer: dict) -> str:
    """Which of choice, choices, text and number an answer object (a reveal's, a mistake's) holds."""
    return next(iter(answer))


def key_problems(key: dict, count: int, where: str) -> list[str]:
    """What JSON Schema cannot say about the key fields of a reveal or a mistake."""
    problems = []
    if key["correct_choice"] is not None and key["correct_choice"] >= count:
        problems.append(f"{where}correct_choice: past the question's choices")
    if "correct_choices" in key:
        if any(c >= count for c in key["correct_choices"]):
            problems.append(f"{where}correct_choices: past the question's choices")
        if key["correct_choices"] != sorted(key["correct_choices"]):
            problems.append(f"{where}correct_choices: not in ascending order")
    return problems


def verdict(key: dict, answer: dict) -> bool | None:
    """Whether an answer is right by the key, or None where the validator cannot tell (text,
    whose rough matching it does not reproduce, and number)."""
    kind = answer_kind(answer)
    if kind == "choice":
        return answer["choice"] == key["correct_choice"]
    if kind == "choices":
        return set(answer["choices"]) == set(key.get("correct_choices") or ())
    return None


def reveal_problems(reveal: dict, question: dict, index: int, ids: list, answers: list) -> list[str]:
    """What JSON Schema cannot say about a record's (schema-valid) reveal of `question`."""
    problems = []
    count = len(question["choices"])
    kind = reveal["type"]
    if reveal["question_index"] != index:
        problems.append("reveal.question_index: not the current question")
    if kind != question["type"]:
        problems.append(f"reveal.type: {kind}, but the question is {question['type']}")
    problems += key_problems(reveal, count, "reveal.")
    for name in ("choices", "answers", "points"):
        if set(reveal[name]) != set(ids):
            problems.append(f"reveal.{name}: keys are not the players' ids")
    correct_by_player = {a["player"]: a["correct"] for a in answers}
    for player in ids:
        answer = reveal["answers"].get(player)
        pick = reveal["choices"].get(player)
        points = reveal["points"].get(player, 0)
        if answer is None:
            if player in correct_by_player:
                problems.append(f"reveal.answers.{player}: null for a player who answered")
            if pick is not None:
                problems.append(f"reveal.choices.{player}: a pick without an answer in reveal.answers")
            if points:
                problems.append(f"reveal.points.{player}: points without an answer")
            continue
        field_name = answer_kind(answer)
        if field_name != ANSWER_FIELDS[kind]:
            problems.append(f"reveal.answers.{player}: `{field_name}` answers no {kind} question")
        if player not in correct_by_player:
            problems.append(f"reveal.answers.{player}: an answer without an entry in answers")
        if pick != answer.get("choice"):
            problems.append(f"reveal.choices.{player}: {json.dumps(pick)}, but reveal.answers.{player} is "
                            f"{json.dumps(answer)}")
        picked = answer.get("choices", [answer["choice"]] if field_name == "choice" else [])
        if any(c >= count for c in picked):
            problems.append(f"reveal.answers.{player}: past the question's choices")
        right = verdict(reveal, answer)
        if right is not None and player in correct_by_player and correct_by_player[player] != right:
            problems.append(f"answers: `correct` of {player} disagrees with the reveal")
        if right is None:
            right = correct_by_player.get(player)
        if right is False and points:
            problems.append(f"reveal.points.{player}: points for a wrong "
                            + ("pick" if field_name in ("choice", "choices") else "answer"))
    return problems


def mistake_problems(mistake: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) entry of the mistakes reply."""
    count = len(mistake["choices"])
    problems = key_problems(mistake, count, "")
    answer, choice = mistake["your_answer"], mistake["your_choice"]
    if answer is None:
        if choice is not None:
            problems.append("your_choice: set without your_answer")
        return problems
    field_name = answer_kind(answer)
    if field_name != ANSWER_FIELDS[mistake["type"]]:
        problems.append(f"your_answer: `{field_name}` answers no {mistake['type']} question")
    if choice != answer.get("choice"):
        problems.append(f"your_choice: {json.dumps(choice)}, but your_answer is {json.dumps(answer)}")
    picked = answer.get("choices", [answer["choice"]] if field_name == "choice" else [])
    if any(c >= count for c in picked):
        problems.append("your_answer: past the choices")
    if verdict(mistake, answer):
        problems.append("a right answer listed as a mistake")
    return problems


def is_answer_refusal(message: str) -> bool:
    """Whether a bad_request message is one of the verdicts that depend on the open question."""
    return (message in (CHOICES_EMPTY, CHOICES_REPEAT)
            or any(pattern.fullmatch(message) for pattern in (MISFIT, CHOICE_RANGE, CHOICES_RANGE)))


def answer_refusal_problem(message: str, request: dict, question: tuple[str, int] | None) -> str | None:
    """Why a bad_request to a schema-valid `answer` is wrong, or None when it is one of the
    verdicts that depend on the open question (AnswerKey.verdict) and agrees with the request
    and with the question, (type, number of choices), when a logged record showed it."""
    sent = next(name for name in ("choice", "choices", "text", "number") if request.get(name) is not None)
    value = request[sent]
    kind, count = question if question is not None else (None, None)
    picks = [int(c) for c in value] if sent == "choices" else [int(value)] if sent == "choice" else []
    index = int(request["question_index"])
    misfit = MISFIT.fullmatch(message)
    if misfit:
        field_name, named_type, taken = misfit.groups()
        if field_name != taken or ANSWER_FIELDS[named_type] != taken:
            return f"a misfit named inconsistently ({message!r})"
        if sent == taken:
            return f"`{sent}` refused as a misfit by a question that takes `{taken}`"
        if kind is not None and kind != named_type:
            return f"refused as a misfit for a {named_type} question; question {index} is {kind}"
        return None
    if kind is not None and ANSWER_FIELDS[kind] != sent:
        return f"`{sent}` to a {kind} question refused without naming the field it takes ({message!r})"
    if range_ := CHOICE_RANGE.fullmatch(message):
        if sent != "choice":
            return f"a `choice` range refusal of an answer with `{sent}`"
        if count is not None and picks[0] < count:
            return f"bad_request for choice {picks[0]} of question {index}, which has {count} options"
        if picks[0] <= int(range_.group(1)):
            return f"choice {picks[0]} refused as out of 0-{range_.group(1)}"
        if count is not None and int(range_.group(1)) != count - 1:
            return f"a range of 0-{range_.group(1)} named for question {index}, which has {count} options"
        return None
    if range_ := CHOICES_RANGE.fullmatch(message):
        if sent != "choices" or not picks:
            return f"a `choices` range refusal of {sent} {value!r}"
        if count is not None and max(picks) < count:
            return f"bad_request for choices {picks} of question {index}, which has {count} options"
        if max(picks) <= int(range_.group(1)):
            return f"choices {picks} refused as out of 0-{range_.group(1)}"
        if count is not None and int(range_.group(1)) != count - 1:
            return f"a range of 0-{range_.group(1)} named for question {index}, which has {count} options"
        return None
    if message == CHOICES_EMPTY:
        return None if sent == "choices" and not picks else f"{sent} {value!r} refused as empty"
    if message == CHOICES_REPEAT:
        if sent != "choices" or len(set(picks)) == len(picks):
            return f"{sent} {value!r} refused as repeating an option"
        if count is not None and max(picks) >= count:
            return f"choices {picks} past the {count} options refused as repeating instead"
        return None
    return f"bad_request ({message!r}) for an answer the schema accepts"


def trim(text: str) -> str:
    """Text as the server keeps what a player writes: without surrounding white space."""
    return text.strip(WHITE_SPACE)


def choices_repeat(choices: list) -> bool:
    """Whether a question's choices repeat once trimmed and with letter case ignored, as the
    server compares them (Swift's lowercased(), then String equality, which is canonical
    equivalence)."""
    folded = [unicodedata.normalize("NFD", trim(c).lower()) for c in choices]
    return len(set(folded)) != len(folded)


def quiz_problems(quiz: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) quiz record."""
    problems = [f"{name}: not trimmed" for name in ("title", "description", "theme") if quiz[name] != trim(quiz[name])]
    if quiz["theme"] != quiz["theme"].lower():
        problems.append("theme: not in lower case")
    return problems


def quiz_question_problems(question: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) question as its owner sees it."""
    problems = key_problems(question, len(question["choices"]), "")
    if question["prompt"] != trim(question["prompt"]):
        problems.append("prompt: not trimmed")
    if question["type"] in ("single", "multiple") and choices_repeat(question["choices"]):
        problems.append("choices: the same choice twice (letter case ignored)")
    return problems


def room_problems(room: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) room record."""
    problems = []
    ids = [m["id"] for m in room["members"]]
    if len(set(ids)) != len(ids):
        problems.append("members: the same player twice")
    if len(ids) > room["max_players"]:
        problems.append("members: more than max_players")
    if room["state"] != "closed" and room["host"] not in ids:
        problems.append("host: not a member")
    return problems


def challenge_problems(challenge: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) challenge record."""
    problems = []
    if challenge["from"]["id"] == challenge["to"]["id"]:
        problems.append("from and to are the same player")
    if challenge["expires_at"] < challenge["created_at"]:  # same fixed-width ISO format: compares as times
        problems.append("expires_at: before created_at")
    return problems


def rematch_problems(offer: dict) -> list[str]:
    if offer["new_duel_id"] == offer["duel_id"]:
        return ["new_duel_id: the duel rematched itself"]
    return []


def level_xp(level: int) -> int:
    """The XP at which `level` starts (level_xp, migration 015): 50·L·(L−1)."""
    return 50 * level * (level - 1)


def level_of(xp: int) -> int:
    """The highest level L with level_xp(L) <= xp (level_of, migration 015)."""
    level = max(1, (5 + math.isqrt(25 + 2 * max(xp, 0))) // 10)
    while level_xp(level + 1) <= xp:
        level += 1
    while level > 1 and level_xp(level) > xp:
        level -= 1
    return level


def level_title(level: int) -> str:
    """The title of `level` by PROTOCOL.md's table."""
    return LEVEL_TITLES[max(start for start in LEVEL_TITLES if start <= level)]


def notification_problems(notification: dict) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) notification record."""
    data = notification["data"]
    if notification["kind"] == "level_up" and data["title"] != level_title(data["level"]):
        return [f"data.title: {data['title']!r}, but level {data['level']} is {level_title(data['level'])!r}"]
    return []


PLAYER_EVENT_PROBLEMS = {"room": room_problems, "challenge": challenge_problems, "rematch": rematch_problems,
                         "notification": notification_problems}


def player_problems(player: dict, where: str) -> list[str]:
    problems = []
    if player["wins"] + player["losses"] + player["draws"] != player["games"]:
        problems.append(f"{where}: wins + losses + draws != games")
    # Progress (issue 14): the level and its bounds follow from the XP.
    xp, level = player["xp"], player["level"]
    if level != level_of(xp):
        problems.append(f"{where}.level: {level}, but {xp} XP is level {level_of(xp)}")
    if player["level_xp"] != level_xp(level):
        problems.append(f"{where}.level_xp: {player['level_xp']}, but level {level} starts at {level_xp(level)}")
    if player["next_level_xp"] != level_xp(level + 1):
        problems.append(f"{where}.next_level_xp: {player['next_level_xp']}, but level {level + 1} starts at {level_xp(level + 1)}")
    if player["next_level_xp"] <= player["level_xp"]:
        problems.append(f"{where}.next_level_xp: not above level_xp")
    if player["level_title"] != level_title(level):
        problems.append(f"{where}.level_title: {player['level_title']!r}, but level {level} is {level_title(level)!r}")
    if player["streak"]["best"] < player["streak"]["current"]:
        problems.append(f"{where}.streak: best below current")
    return problems


def is_monday(day: str) -> bool:
    try:
        return datetime.date.fromisoformat(day).isoweekday() == 1
    except ValueError:
        return False


def progress_problems(op: str, data: dict, request: dict | None) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) reply to a progress op (issue 14);
    `request`, when known, is the frame it answers."""
    problems = []
    asked = request if isinstance(request, dict) else None
    if op in REPLY_LIMITS and asked is not None:
        name, default = REPLY_LIMITS[op]
        limit = asked.get("limit") if asked.get("limit") is not None else default
        if len(data[name]) > limit:
            problems.append(f"{name}: {len(data[name])}, more than the limit of {int(limit)}")
    if op == "profile_update" and asked is not None and data["time_zone"] != asked.get("time_zone"):
        problems.append(f"time_zone: {data['time_zone']!r}, not the one sent ({asked.get('time_zone')!r})")
    if op in ("goal_set", "goals"):
        goals = data["goals"]
        weeks = {g["week_start"] for g in goals}
        if len(weeks) > 1:
            problems.append(f"goals: of more than one week ({', '.join(sorted(weeks))})")
        for i, goal in enumerate(goals):
            if not is_monday(goal["week_start"]):
                problems.append(f"goals[{i}].week_start: {goal['week_start']} is no Monday")
        keys = [(g["kind"], g["bank"]) for g in goals]
        if len(set(keys)) != len(keys):
            problems.append("goals: the same kind and bank twice")
        if op == "goal_set" and asked is not None:
            mine = [g for g in goals if g["kind"] == asked.get("kind") and g["bank"] == asked.get("bank")]
            if not mine:
                problems.append(f"goals: no {asked.get('kind')} goal for bank {json.dumps(asked.get('bank'))}, the one set")
            elif mine[0]["target"] != asked.get("target") or mine[0]["reached"]:
                problems.append(f"goals: the {asked.get('kind')} goal set is not at its new target, unreached")
    if op == "notifications":
        items = data["notifications"]
        ids = [n["id"] for n in items]
        if any(later >= earlier for earlier, later in zip(ids, ids[1:])):
            problems.append("notifications: not newest first (ids descending)")
        before = asked.get("before") if asked is not None else None
        if before is not None and any(i >= before for i in ids):
            problems.append(f"notifications: an id not below before ({int(before)})")
        for i, notification in enumerate(items):
            problems += [f"notifications[{i}]: {p}" for p in notification_problems(notification)]
    if op == "rating_history":
        points = data["points"]
        if asked is not None and data["bank"] != asked.get("bank"):
            problems.append(f"bank: {data['bank']!r}, not the one asked for")
        if any(later["at"] < earlier["at"] for earlier, later in zip(points, points[1:])):  # fixed-width ISO times
            problems.append("points: not oldest first")
        if len({p["duel_id"] for p in points}) != len(points):
            problems.append("points: the same duel twice")
    if op == "stats":
        if asked is not None and data["bank"] != asked.get("bank"):
            problems.append(f"bank: {json.dumps(data['bank'])}, not the one asked for")
        if data["correct"] > data["answers"]:
            problems.append("correct: more than answers")
        if data["answers"] == 0 and data["mean_answer_ms"] != 0:
            problems.append("mean_answer_ms: set without answers")
        accuracy = data["accuracy"]
        if accuracy is not None and abs(accuracy * 1000 - round(accuracy * 1000)) > 1e-6:
            problems.append(f"accuracy: {accuracy}, more than three decimals")
        if data["questions_asked"] > 0 and not any(data["games_by_mode"].values()):
            problems.append("questions_asked: questions of no game")
    if op == "achievements":
        codes = [a["code"] for a in data["achievements"]]
        if len(set(codes)) != len(codes):
            problems.append("achievements: the same code twice")
    return problems


def reply_problems(op: str, data: dict, request: dict | None = None) -> list[str]:
    """What JSON Schema cannot say about a (schema-valid) reply's data; `request`, when known,
    is the frame it answers."""
    problems = []
    if op in ("signup", "login", "auth", "profile", "profile_update"):
        problems += player_problems(data["player"], "player")
    if op in ("login", "auth") and data.get("duel") is not None:
        problems += [f"duel: {p}" for p in record_problems(data["duel"])]
    if op == "history":
        for i, record in enumerate(data["duels"]):
            problems += [f"duels[{i}]: {p}" for p in record_problems(record)]
    if op == "leaderboard":
        for i, entry in enumerate(data["entries"]):
            if entry["rank"] != i + 1:
                problems.append(f"entries[{i}].rank: {entry['rank']}, not {i + 1}")
            if entry["wins"] > entry["games"]:
                problems.append(f"entries[{i}]: more wins than games")
    if op in ("room_create", "room_join", "room_leave", "room_start"):
        problems += [f"room: {p}" for p in room_problems(data["room"])]
        if op == "room_create" and data["room"]["host"] != data["room"]["members"][0]["id"]:
            problems.append("room: the creator is not its host")
        if op == "room_start" and data["duel_id"] != data["room"]["duel_id"]:
            problems.append("duel_id: not the room's duel_id")
    if op in ("challenge", "challenge_accept", "challenge_decline"):
        problems += [f"challenge: {p}" for p in challenge_problems(data["challenge"])]
        if op == "challenge" and data["challenge_id"] != data["challenge"]["id"]:
            problems.append("challenge_id: not the challenge's id")
        if op == "challenge_accept" and data["duel_id"] != data["challenge"]["duel_id"]:
            problems.append("duel_id: not the challenge's duel_id")
    if op == "challenges":
        for i, challenge in enumerate(data["challenges"]):
            problems += [f"challenges[{i}]: {p}" for p in challenge_problems(challenge)]
            if i and challenge["created_at"] > data["challenges"][i - 1]["created_at"]:
                problems.append(f"challenges[{i}]: newer than the one before (newest first)")
        if len({c["id"] for c in data["challenges"]}) != len(data["challenges"]):
            problems.append("challenges: the same challenge twice")
    if op == "mistakes":
        for i, q in enumerate(data["questions"]):
            problems += [f"questions[{i}]: {p}" for p in mistake_problems(q)]
    if op in QUIZ_RECORD_OPS:
        problems += [f"quiz: {p}" for p in quiz_problems(data["quiz"])]
    if op == "quiz_questions":
        questions = data["questions"]
        for i, q in enumerate(questions):
            problems += [f"questions[{i}]: {p}" for p in quiz_question_problems(q)]
        if data["quiz"]["questions"] != len(questions):
            problems.append(f"quiz.questions: {data['quiz']['questions']}, but {len(questions)} are listed")
        ids = [q["question_id"] for q in questions]
        if ids != sorted(set(ids)):
            problems.append("questions: not in ascending question_id order, or one twice")
    if op in ("question_add", "question_update"):
        problems += [f"question: {p}" for p in quiz_question_problems(data["question"])]
    if op in QUIZ_LIST_OPS:
        quizzes = data["quizzes"]
        for i, quiz in enumerate(quizzes):
            problems += [f"quizzes[{i}]: {p}" for p in quiz_problems(quiz)]
        if len({q["quiz"] for q in quizzes}) != len(quizzes):
            problems.append("quizzes: the same quiz twice")
        if op == "my_quizzes" and len({q["owner"]["id"] for q in quizzes}) > 1:
            problems.append("quizzes: quizzes of more than one owner")
        if op == "catalog" and data["next_cursor"] is not None and int(data["next_cursor"]) < max(len(quizzes), 1):
            problems.append(f"next_cursor: {data['next_cursor']}, before the end of a page of {len(quizzes)}")
    problems += progress_problems(op, data, request)
    return problems


# --- the run ---------------------------------------------------------------------------------

@dataclass
class Request:
    where: str
    op: str | None          # the op when it was a known one
    valid: bool
    reason: str             # why it is invalid
    message: object         # the parsed frame (None when not JSON)


@dataclass
class Report:
    files: int = 0
    frames: int = 0
    out_frames: int = 0
    in_frames: int = 0
    failures: list = field(default_factory=list)
    ops: Counter = field(default_factory=Counter)
    replies: Counter = field(default_factory=Counter)
    events: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    unpaired: int = 0
    invalid_out: int = 0

    def fail(self, where: str, text: str):
        self.failures.append(f"{where}: {text}")


class Checker:
    def __init__(self, schemas: Schemas):
        self.schemas = schemas
        self.report = Report()
        # Each question seen in a record: (duel_id, question_index) -> (type, number of choices).
        self.questions: dict[tuple[str, int], tuple[str, int]] = {}
        # Schema-valid answers refused as bad_request for a state-dependent reason (the
        # answer's field or options do not fit the question): checked once every record is known.
        self.answer_refusals: list[tuple[str, str, dict]] = []

    # Client frames.

    def client_verdict(self, text: str) -> Request:
        try:
            message = parse_as_server(text)
        except NotServerJSON as error:
            return Request("", None, False, f"not JSON to the server ({error})", None)
        if not isinstance(message, dict):
            return Request("", None, False, "not a JSON object", message)
        op = message.get("op")
        known = op if isinstance(op, str) and op in self.schemas.ops else None
        top = self.schemas.client()
        if not top.is_valid(message):
            detail = describe(self.schemas.client(known).iter_errors(message)) if known else describe(top.iter_errors(message))
            return Request("", known, False, detail, message)
        if isinstance(message.get("ref"), FloatLiteral):
            return Request("", known, False, "$.ref: the server takes an integer ref only when written without fraction or exponent", message)
        name = INT64_FIELDS.get(known)
        if name is not None and message.get(name) is not None and not server_integer(message[name]):
            return Request("", known, False, f"$.{name}: a whole number written with a fraction or exponent past 9e15 is no integer to the server", message)
        if known in ("question_add", "question_update") and isinstance(message.get("choices"), list) \
                and choices_repeat(message["choices"]):
            return Request("", known, False, "$.choices: the same choice twice once trimmed and with letter case ignored", message)
        return Request("", known, True, "", message)

    # Server frames.

    def server_pointer(self, message: dict) -> str:
        op = message.get("op")
        if op in ("reply", "error"):
            return op
        if op == "event":
            if message.get("event") == "queued":
                return "queued_event"
            if message.get("event") in DUEL_EVENTS:
                return "duel_event"
            if message.get("event") in PLAYER_EVENTS:
                return PLAYER_EVENTS[message["event"]]
        return ""

    def note_record(self, record: dict):
        question = record.get("question")
        if isinstance(question, dict):
            self.questions[(record["id"], question["index"])] = (question["type"], len(question["choices"]))

    def check_in(self, where: str, text: str) -> dict | None:
        report = self.report
        try:
            message = json.loads(text)
        except ValueError as error:
            report.fail(where, f"server frame is not JSON: {error}")
            return None
        if not isinstance(message, dict):
            report.fail(where, "server frame is not a JSON object")
            return None
        if not self.schemas.server().is_valid(message):
            pointer = self.server_pointer(message)
            report.fail(where, "server-message.json: " + describe(self.schemas.server(pointer).iter_errors(message)))
            return None
        if message["op"] == "event":
            report.events[message["event"]] += 1
            if message["event"] == "queued":
                if message["commit_timestamp"] != message["record"]["queued_at"]:
                    report.fail(where, "queued: commit_timestamp differs from record.queued_at")
            elif message["event"] in PLAYER_EVENTS:
                if message["event"] == "notification" and message["commit_timestamp"] != message["record"]["created_at"]:
                    report.fail(where, "notification: commit_timestamp differs from record.created_at")
                for problem in PLAYER_EVENT_PROBLEMS[message["event"]](message["record"]):
                    report.fail(where, f"{message['event']} record: {problem}")
            else:
                record = message["record"]
                self.note_record(record)
                if message["duel_id"] != record["id"]:
                    report.fail(where, "event: duel_id differs from record.id")
                for problem in record_problems(record):
                    report.fail(where, f"{message['event']} record: {problem}")
        elif message["op"] == "error":
            report.errors[message["code"]] += 1
        return message

    def check_reply(self, where: str, message: dict, request: Request | None):
        report = self.report
        if request is None:
            report.unpaired += 1
            return
        if message["op"] == "reply":
            if not request.valid:
                report.fail(where, f"the server accepted the frame of {request.where}, which the schema refuses ({request.reason})")
            if request.op is None:
                return
            report.replies[request.op] += 1
            data = message["data"]
            validator = self.schemas.reply(request.op)
            if not validator.is_valid(data):
                report.fail(where, f"replies.json#/$defs/{request.op}: " + describe(validator.iter_errors(data)).replace("$", "$.data", 1))
                return
            for record in ([data.get("duel")] if request.op in ("login", "auth") else data.get("duels", []) if request.op == "history" else []):
                if isinstance(record, dict):
                    self.note_record(record)
            for problem in reply_problems(request.op, data, request.message):
                report.fail(where, f"{request.op} reply: {problem}")
            return
        code = message["code"]
        if not request.valid or code not in DECODING_CODES:
            return
        if request.op == "answer" and code == "bad_request" and is_answer_refusal(message["message"]):
            self.answer_refusals.append((where, message["message"], request.message))
            return
        if request.op == "profile" and code == "bad_request" and message["message"] == "player: no such player":
            return
        if request.op == "challenge" and code == "bad_request" and message["message"] == CHALLENGE_OF_ONESELF:
            return
        if request.op == "rematch" and code == "bad_request" and message["message"] in REMATCH_REFUSALS:
            return
        if request.op == "rate" and code == "bad_request" and any(
                request.message.get(name) is not None and message["message"] == text for name, text in RATE_REFUSALS.items()):
            return
        if request.op in ("auth", "profile_update") and code == "bad_request" and isinstance(request.message.get("time_zone"), str) \
                and message["message"] == UNKNOWN_TIME_ZONE + request.message["time_zone"]:
            return
        # (added, issue 27) A reminder's time is checked against the clock and the goal's week,
        # and a note's bytes (UTF-8) against 3,000, which no JSON Schema keyword states.
        if request.op == "goal_set" and code == "bad_request" and isinstance(request.message.get("remind_at"), str) \
                and message["message"].startswith(REMINDER_OUTSIDE_THE_WEEK):
            return
        if request.op == "bank_pref_set" and code == "bad_request" and isinstance(request.message.get("note"), str) \
                and len(request.message["note"].encode("utf-8")) > 3000 and message["message"].startswith("note: is too long"):
            return
        report.fail(where, f"{code} ({message['message']!r}) for the frame of {request.where}, which the schema accepts")

    @staticmethod
    def pick(pending: deque, chooser) -> Request:
        for i, request in enumerate(pending):
            if chooser(request):
                del pending[i]
                return request
        return pending.popleft()

    def check_file(self, path: pathlib.Path):
        report = self.report
        report.files += 1
        pending: dict[tuple, deque] = defaultdict(deque)    # ((source, conn), ref key) -> requests
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                where = f"{path}:{number}"
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError as error:
                    report.fail(where, f"log line is not JSON: {error}")
                    continue
                if (not isinstance(entry, dict) or entry.get("dir") not in ("in", "out")
                        or not isinstance(entry.get("frame"), str) or not isinstance(entry.get("conn"), (str, int))
                        or isinstance(entry.get("conn"), bool) or not isinstance(entry.get("source", ""), str)):
                    report.fail(where, 'log line must be {"source", "conn", "dir": "in"|"out", "frame": "<text>"}')
                    continue
                report.frames += 1
                source = entry.get("source")
                conn = (source, entry["conn"])  # conn ids are per source (a process, a browser test)
                label = f"{where} [{source}]" if source else where
                if entry["dir"] == "out":
                    report.out_frames += 1
                    request = self.client_verdict(entry["frame"])
                    request.where = label
                    if request.valid:
                        report.ops[request.op] += 1
                    else:
                        report.invalid_out += 1
                    key = ref_key(request.message.get("ref")) if isinstance(request.message, dict) else None
                    if key is not None:
                        pending[(conn, key)].append(request)
                    continue
                report.in_frames += 1
                message = self.check_in(label, entry["frame"])
                if message is None or message["op"] not in ("reply", "error"):
                    continue
                key = ref_key(message["ref"])
                if key is None:
                    self.check_reply(label, message, None)
                    continue
                queue = pending.get((conn, key))
                if not queue:
                    self.check_reply(label, message, None)
                    continue
                if message["op"] == "reply":
                    request = self.pick(queue, lambda r: r.op is not None and self.schemas.reply(r.op).is_valid(message["data"]))
                elif message["code"] in DECODING_CODES:
                    request = self.pick(queue, lambda r: not r.valid)
                else:
                    request = queue.popleft()
                self.check_reply(label, message, request)

    def finish(self):
        for where, text, request in self.answer_refusals:
            question = self.questions.get((request["duel_id"], int(request["question_index"])))
            problem = answer_refusal_problem(text, request, question)
            if problem is not None:
                self.report.fail(where, problem)


# --- command line ----------------------------------------------------------------------------

def frame_files(paths: list[str]) -> tuple[list[pathlib.Path], list[str]]:
    files, missing = [], []
    for name in paths:
        path = pathlib.Path(name)
        if path.is_dir():
            files += sorted(path.glob("*.jsonl"))
        elif path.is_file():
            files.append(path)
        else:
            missing.append(name)
    return files, missing


def counts(counter: Counter, names: list[str] | None = None) -> str:
    keys = names if names is not None else sorted(counter)
    shown = [f"{k} {counter[k]}" for k in keys if counter[k]]
    return ", ".join(shown) if shown else "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check recorded WebSocket frames against docs/schema/.")
    parser.add_argument("paths", nargs="*", help="frame logs (*.jsonl), or directories holding them")
    parser.add_argument("--require-coverage", action="store_true",
                        help="fail unless every op, every reply definition and every event kind was seen")
    parser.add_argument("--schema-dir", default=str(SCHEMA_DIR), help="where the schema files are (default: docs/schema)")
    parser.add_argument("--max-failures", type=int, default=50, help="failures to print (default 50)")
    args = parser.parse_args(argv)

    schemas = Schemas.load(pathlib.Path(args.schema_dir))
    files, missing = frame_files(args.paths)
    checker = Checker(schemas)
    for name in missing:
        checker.report.fail(name, "no such file or directory")
    for path in files:
        checker.check_file(path)
    checker.finish()
    report = checker.report

    missing_ops = [op for op in schemas.ops if not report.ops[op]]
    missing_replies = [op for op in schemas.reply_defs if not report.replies[op]]
    missing_events = [kind for kind in schemas.event_kinds if not report.events[kind]]
    codes = schemas.contents["defs.json"]["$defs"]["error_code"]["enum"]

    print(f"frames: {report.frames} checked ({report.out_frames} out, {report.in_frames} in) "
          f"in {report.files} file{'s' if report.files != 1 else ''}")
    print(f"client ops: {counts(report.ops, schemas.ops)}" + (f"; not seen: {', '.join(missing_ops)}" if missing_ops else ""))
    print(f"  schema-invalid client frames (deliberate bad input): {report.invalid_out}")
    print(f"replies checked: {counts(report.replies, schemas.reply_defs)}"
          + (f"; not seen: {', '.join(missing_replies)}" if missing_replies else ""))
    print(f"  replies and errors paired with no request (envelope only): {report.unpaired}")
    print(f"events: {counts(report.events, schemas.event_kinds)}" + (f"; not seen: {', '.join(missing_events)}" if missing_events else ""))
    print(f"error codes: {counts(report.errors, codes)}"
          + (f"; not seen: {', '.join(c for c in codes if not report.errors[c])}" if any(not report.errors[c] for c in codes) else ""))

    if report.frames == 0:
        for failure in report.failures[: args.max_failures]:
            print(f"  {failure}")
        print("FAILED: no frames to check (a run that checked nothing proves nothing)")
        return 2
    coverage_failed = args.require_coverage and (missing_ops or missing_replies or missing_events)
    if coverage_failed:
        report.failures.append("coverage: " + "; ".join(
            f"{label} not seen: {', '.join(names)}" for label, names in
            (("ops", missing_ops), ("replies", missing_replies), ("events", missing_events)) if names))
    if report.failures:
        print(f"FAILED: {len(report.failures)} failure{'s' if len(report.failures) != 1 else ''}")
        for failure in report.failures[: args.max_failures]:
            print(f"  {failure}")
        if len(report.failures) > args.max_failures:
            print(f"  … and {len(report.failures) - args.max_failures} more")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
