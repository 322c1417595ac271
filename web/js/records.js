// Reading game records and answer keys: whose side is whose, who is a recording, and keys and
// answers as words.
import { RECORDED_PLAYER } from "./quizduel-client.js";
import { state } from "./store.js";
import { t } from "./i18n.js";

// A game of one player: a practice game.
export function isSolo(record) {
  return !!record && (record.mode === "practice" || record.players.length === 1);
}

// My entry in a duel record and my opponent's (none in a practice game).
export function sides(record) {
  const id = state.player?.id;
  return { mine: record.players.find((p) => p.id === id), theirs: record.players.find((p) => p.id !== id) };
}

export function initials(name) { return name.slice(0, 2).toUpperCase(); }

/** A game against a recorded opponent (PROTOCOL.md, `recorded`): unrated, and nobody live on the other side. */
export function isRecordedGame(record) { return record?.mode === "recorded"; }

/** Whether `player` (a record's entry) is a recorded opponent's seat, not a person. */
export function isRecording(player) { return player?.id === RECORDED_PLAYER; }

/**
 * A player's name as the page shows it. A recorded opponent's seat has a name the server writes
 * in English, "The house" or "A past player" (the only sign of which it is that a record
 * carries, in history too): shown in the player's language instead, never as if a person.
 */
export function playerName(player) {
  if (!isRecording(player)) return player?.username ?? "";
  return t(recordingKind(player) === "house" ? "recorded.house" : "recorded.pastPlayer");
}

/** Which recording a recorded opponent's seat is, as the `recorded` reply says: "house" or "past_player". */
export function recordingKind(player) { return player?.username === "The house" ? "house" : "past_player"; }

/** A choice's text; a boolean question's two choices ("True", "False") in the player's language. */
export function choiceText(choices, i, type) {
  if (type === "boolean" && (i === 0 || i === 1)) return t(i === 0 ? "answer.true" : "answer.false");
  return choices?.[i] ?? "?";
}

// A question's key as words: "Right answer: Lima" (every kind: choices, texts, a number).
export function keyText(key, choices) {
  const type = key.type ?? "single";
  switch (type) {
    case "multiple": return t("key.rightAnswers", { answers: (key.correct_choices ?? []).map((i) => choices[i]).join(", ") });
    case "text": return t("key.accepted", { answers: (key.accepted ?? []).join(" / ") });
    case "number": return key.tolerance
      ? t("key.rightNumberTolerance", { number: key.correct_number, tolerance: key.tolerance })
      : t("key.rightAnswer", { answer: key.correct_number });
    default: return key.correct_choice === null || key.correct_choice === undefined ? ""
      : t("key.rightAnswer", { answer: choiceText(choices, key.correct_choice, type) });
  }
}

/** What a player sent (a Submission, or null) as words: "Lima", "Neon, Argon", "341". */
export function submissionText(answer, choices, type) {
  if (!answer) return t("answer.none");
  if ("choice" in answer) return choiceText(choices, answer.choice, type);
  if ("choices" in answer) return answer.choices.map((i) => choiceText(choices, i, type)).join(", ");
  if ("text" in answer) return answer.text;
  return String(answer.number);
}

/** What player `id` sent to a revealed question: the reveal's `answers`, else version 1's `choices`. */
export function revealedAnswer(reveal, id) {
  const sent = reveal.answers?.[id];
  if (sent !== undefined) return sent;
  const choice = reveal.choices?.[id];
  return choice === null || choice === undefined ? null : { choice };
}

// An answer as words, for the mistakes notebook.
export function answerText(answer, choices, type) {
  if (!answer) return t("answer.youDidNotAnswer");
  return t("answer.youSaid", { answer: submissionText(answer, choices, type) });
}
