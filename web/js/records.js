// Reading game records and answer keys: whose side is whose, and keys and answers as words.
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
