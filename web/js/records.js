// Reading game records and answer keys: whose side is whose, and keys and answers as words.
import { state } from "./store.js";

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

// A question's key as words: "Right answer: Lima" (every kind: choices, texts, a number).
export function keyText(key, choices) {
  switch (key.type ?? "single") {
    case "multiple": return `Right answers: ${(key.correct_choices ?? []).map((i) => choices[i]).join(", ")}`;
    case "text": return `Accepted: ${(key.accepted ?? []).join(" / ")}`;
    case "number": return `Right answer: ${key.correct_number}${key.tolerance ? ` (± ${key.tolerance})` : ""}`;
    default: return key.correct_choice === null || key.correct_choice === undefined ? "" : `Right answer: ${choices[key.correct_choice]}`;
  }
}

// An answer as words, for the mistakes notebook.
export function answerText(answer, choices) {
  if (!answer) return "you did not answer";
  if ("choice" in answer) return `you said: ${choices[answer.choice]}`;
  if ("choices" in answer) return `you said: ${answer.choices.map((i) => choices[i]).join(", ")}`;
  if ("text" in answer) return `you said: ${answer.text}`;
  return `you said: ${answer.number}`;
}
