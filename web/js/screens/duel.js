// The game screen (a duel, a room game of 2-4 players, or practice): the events that draw it, and
// answering (answer tiles, check boxes, a typed text or number), by touch, mouse or keyboard.
// Answer tiles: four colours, each with a shape (style.css), so that colour is never the only
// cue. A tap answers at once, or, with the "select, then Submit" setting, selects first.
import { client } from "../connection.js";
import { $, el } from "../ui.js";
import { show, shown, go } from "../router.js";
import { state, duelEvent, duelResumed, answerSent, answerReplied, ticksFor, toggleTick, selectChoice, leftRoomGame }
  from "../store.js";
import { tickEvery, stopClock } from "../clock.js";
import { isSolo, isRecordedGame, isRecording, playerName, sides, initials, keyText, choiceText } from "../records.js";
import { paintBank } from "../banks.js";
import { t } from "../i18n.js";
import { errorText } from "../errors.js";
import { settings } from "../settings.js";
import { once, animate, popPoints, play } from "../fx.js";
import { countdownEndsAt } from "../countdown.js";
import { renderVersus } from "./versus.js";
import { finish } from "./end.js";
import { showRoom } from "./room.js";

let inputFor = "";     // "duel:index" of the question the text or number field was last set up for

// The client delivers each duel's events once per seq, in order (it resumes on gaps).
for (const name of /** @type {const} */ (["init", "question", "answered", "reveal", "complete"])) client.on(name, onEvent);

function onEvent(event) {
  if (event.duel_id === state.leftDuel) return;
  duelEvent(event);
  if (event.event === "complete") {
    stopClock();
    if ($("forfeit-dialog").open) $("forfeit-dialog").close();
    finish(event.record);
    return;
  }
  if (!shown("duel")) show("duel");
  render();
}

/** The live game from the sign-in (a reload or a reconnect): its missed events follow, in order. */
export function resumeDuel(record) {
  duelResumed(record);
  show("duel");
  render();
}

function render() {
  const d = state.duel;
  if (!d || !state.player || !shown("duel")) return;
  const solo = isSolo(d);
  const { mine, theirs: other } = sides(d);
  const theirs = solo ? undefined : other;
  $("duel-title").textContent = solo ? t("duel.practice") : d.mode === "room" ? t("duel.roomGame")
    : isRecordedGame(d) ? t("duel.recordedGame") : t("duel.duel");
  // The bank's colour along the top of the scores (the player's own choice, if any).
  paintBank($("pair-board"), d.bank);
  const many = d.players.length > 2;
  $("board").hidden = !many;
  $("pair-board").hidden = many;
  if (many) renderBoard(d);
  $("opp-box").hidden = solo;
  $("solo-box").hidden = !solo;
  $("opponent-state").hidden = solo;
  $("end-practice").hidden = !solo;
  $("forfeit").hidden = solo;
  $("me-name").textContent = mine.username;
  $("me-score").textContent = mine.score;
  renderPing(mine);
  // A recorded opponent is named as one, with a tag that says it: never passed off as a person.
  $("opp-tag").hidden = !isRecording(theirs);
  if (theirs) {
    $("opp-name").textContent = playerName(theirs);
    $("opp-score").textContent = theirs.score;
    $("opp-box").classList.toggle("offline", !theirs.connected);
    $("opp-box").title = theirs.connected ? "" : t("duel.offline");
  }
  $("progress").textContent = d.question ? t("duel.progress", { n: d.question.index + 1, count: d.question_count })
    : t("common.questions", { count: d.question_count });
  stopClock();
  if (d.state === "countdown") { renderCountdown(d); return; }
  $("versus").hidden = true;
  $("countdown").hidden = true;
  $("question-area").hidden = false;
  const q = d.question;
  const k = `${state.duelId}:${q.index}`;
  once(`${k}:open`, () => play("go"));
  $("prompt").textContent = q.prompt;
  const revealed = d.reveal && d.reveal.question_index === q.index ? d.reveal : null;
  const myAnswer = d.answers.find((a) => a.player === mine.id);
  const theirAnswer = theirs ? d.answers.find((a) => a.player === theirs.id) : undefined;
  const type = q.type ?? "single";
  const sent = state.myPick && state.myPick.index === q.index ? state.myPick.answer : null;
  const mineSent = revealed ? revealed.answers?.[mine.id] ?? null : sent;
  const pick = revealed ? revealed.choices[mine.id] : typeof sent === "number" ? sent : null;
  // What became of my answer, from one place: the reply to it (which may come before or
  // after the `answered` event), else the record (e.g. after a reload), else the reveal.
  const reply = state.verdict(q.index);
  const refused = reply && "code" in reply ? reply.code : null;
  const right = reply && "correct" in reply ? reply.correct
    : myAnswer ? myAnswer.correct
    : revealed && (revealed.points[mine.id] ?? 0) > 0 ? true
    : revealed && pick !== null && pick !== undefined ? revealed.correct_choice === pick : null;
  const points = (reply && "points" in reply ? reply.points : undefined) ?? revealed?.points[mine.id];
  const locked = Boolean(revealed || myAnswer || sent !== null || d.answers.some((a) => a.correct));
  renderAnswerInput(q, type, { revealed, locked, pick, mineSent, right });
  let opp = "";
  if (many) opp = revealed ? "" : t("duel.answeredCount", { n: d.answers.length, count: d.players.length });
  else if (theirs && theirAnswer) opp = t(theirAnswer.correct ? "duel.oppRight" : "duel.oppWrong", { name: playerName(theirs) });
  else if (theirs && !revealed && !isRecording(theirs)) opp = t("duel.oppThinking", { name: playerName(theirs) });
  $("opponent-state").textContent = opp;
  let verdict = "";
  let lockedOut = false;
  if (right !== null) verdict = right ? (points === undefined ? t("verdict.correct") : t("verdict.correctPoints", { points })) : t("verdict.wrong");
  else if (many && (refused === "locked_out" || d.answers.some((a) => a.correct && a.player !== mine.id))) { verdict = t("verdict.lockedOutMany"); lockedOut = true; }
  else if (refused === "locked_out" || (theirAnswer && theirAnswer.correct)) { verdict = t("verdict.lockedOut"); lockedOut = true; }
  else if (refused === "too_late") verdict = t("verdict.tooLate");
  else if (refused) verdict = errorText({ code: refused });
  else if (revealed) verdict = t("verdict.timeUp");
  $("verdict").textContent = verdict;
  $("verdict").className = `verdict${right === true ? " good" : right === false || lockedOut ? " bad" : ""}`;
  effects(k, { right, points, lockedOut, revealed, pick });
  if (revealed) {
    $("timer-bar").style.width = "0%";
    $("timer-bar").classList.remove("low");
    $("timer-text").textContent = t("duel.reveal");
  } else {
    const tick = () => {
      const total = q.deadline_ms - q.opens_at_ms;
      const left = Math.max(0, q.deadline_ms - client.serverNow());
      const seconds = Math.ceil(left / 1000);
      $("timer-bar").style.width = `${(100 * left) / total}%`;
      $("timer-bar").classList.toggle("low", left <= 3000);
      $("timer-text").textContent = t("duel.secondsLeft", { seconds });
      if (!locked && seconds > 0 && seconds <= 3) once(`${k}:tick:${seconds}`, () => play("tick"));
    };
    tick();
    tickEvery(100, tick);
  }
}

// The countdown: the versus card, and the seconds to the first question as the server times them.
function renderCountdown(d) {
  $("question-area").hidden = true;
  $("versus").hidden = false;
  $("countdown").hidden = false;
  renderVersus(d);
  const tick = () => {
    const left = Math.ceil((countdownEndsAt(d.id, d) - client.serverNow()) / 1000);
    const text = left > 0 ? String(left) : t("duel.go");
    if ($("countdown").textContent !== text) {
      $("countdown").textContent = text;
      animate($("countdown"), "pop");
      if (left > 0) play("countdown");
    }
  };
  $("countdown").textContent = "";
  tick();
  tickEvery(100, tick);
}

// Sound and motion, once per moment (fx.js): right (points float up), wrong (the tile shakes),
// locked out (the tiles shake), the reveal (the right tile pops).
function effects(k, { right, points, lockedOut, revealed, pick }) {
  if (right === true) {
    once(`${k}:right`, () => {
      play("right");
      if (points) popPoints($("points-pop"), `+${points}`);
      animate($("me-score"), "bump");
    });
  } else if (right === false) {
    once(`${k}:wrong`, () => { play("wrong"); animate(tileNode(pick), "shake"); });
  } else if (lockedOut) {
    once(`${k}:lockout`, () => { play("lockout"); animate($("choices"), "shake"); });
  }
  if (revealed) once(`${k}:reveal`, () => animate($("choices").querySelector(".correct"), "pop"));
}

function tileNode(i) {
  return i === null || i === undefined ? null : $("choices").querySelector(`[data-choice="${i}"]`);
}

// My round trip as the server measured it (issue 26: my answers count that much earlier). 0 until
// the server reports one (it reports a change of 3 ms or more, so a near player may stay at 0),
// and always with compensation off: shown as "ping —".
function renderPing(me) {
  const lag = me.lag_ms ?? 0;
  $("ping").textContent = lag > 0 ? t("duel.ping", { ms: lag }) : t("duel.pingNone");
}

const letter = (i) => String.fromCharCode(65 + i);

/** An answer tile: its shape and colour by position (style.css .tile-N), the keyboard letter, the text. */
function tile(i, text, attrs, ...before) {
  return el("button", { class: `tile tile-${i}`, "data-choice": i, "aria-label": `${letter(i)}: ${text}`, ...attrs },
    ...before, el("span", { class: "key", "aria-hidden": "true" }, letter(i)), el("span", { class: "tile-text" }, text));
}

/** How a tile looks once answered or revealed: my pick (with its verdict), the right one, or neither (grey). */
function markTile(b, { isPick, isCorrect, locked, revealed, verdictClass }) {
  if (locked) b.disabled = true;
  if (isPick) b.classList.add(verdictClass);
  if (isCorrect) { b.classList.add("correct"); b.setAttribute("aria-description", t("duel.correctAnswer")); }
  if ((locked || revealed) && !isPick && !isCorrect) b.classList.add("other");
}

// The answer input of each question type: answer tiles (single, boolean), check boxes and a
// submit button (multiple), or a field that submits on Enter (text, number). The field is kept
// across renders, so an event arriving while the player types does not wipe what they typed.
function renderAnswerInput(q, type, { revealed, locked, pick, mineSent, right }) {
  const free = type === "text" || type === "number";
  const verdictClass = right === null ? "picked" : right ? "picked-right" : "picked-wrong";
  $("free-answer").hidden = !free;
  $("choices").classList.toggle("many", q.choices.length > 4);
  if (type === "multiple") {
    ticksFor(q.index);
    const ticks = state.ticks(q.index);
    const sentPicks = new Set(mineSent && "choices" in mineSent ? mineSent.choices : []);
    const correct = new Set(revealed?.correct_choices ?? []);
    const boxes = q.choices.map((text, i) => {
      const ticked = locked ? sentPicks.has(i) : ticks.has(i);
      const b = tile(i, text, { role: "checkbox", "aria-checked": String(ticked), onclick: () => toggle(i) },
        el("span", { class: "box", "aria-hidden": "true" }, ticked ? "☑" : "☐"));
      markTile(b, { isPick: locked && sentPicks.has(i), isCorrect: correct.has(i), locked, revealed, verdictClass });
      return b;
    });
    const submit = el("button", { class: "primary submit", id: "submit-choices", onclick: () => submitChecked() }, t("duel.submit"));
    submit.disabled = locked || ticks.size === 0;
    $("choices").replaceChildren(...boxes, submit);
  } else if (!free) {
    const confirmMode = settings.answerMode === "confirm";
    const selected = confirmMode && !locked ? state.selected(q.index) : null;
    const tiles = q.choices.map((raw, i) => {
      const b = tile(i, choiceText(q.choices, i, type), { onclick: () => (confirmMode ? select(i) : answer(i)) });
      if (confirmMode) b.setAttribute("aria-pressed", String(selected === i));
      if (selected === i) b.classList.add("selected");
      markTile(b, { isPick: pick === i, isCorrect: !!revealed && revealed.correct_choice === i, locked, revealed, verdictClass });
      return b;
    });
    if (confirmMode) {
      const submit = el("button", { class: "primary submit", id: "submit-answer", onclick: () => submitSelected() }, t("duel.submit"));
      submit.disabled = locked || selected === null;
      tiles.push(submit);
    }
    $("choices").replaceChildren(...tiles);
  } else {
    $("choices").replaceChildren();
    const input = /** @type {HTMLInputElement} */ ($("answer-input"));
    if (inputFor !== `${state.duelId}:${q.index}`) {
      inputFor = `${state.duelId}:${q.index}`;
      input.value = "";
      input.type = type === "number" ? "number" : "text";
      input.step = "any";
      input.maxLength = 200;
      input.inputMode = type === "number" ? "decimal" : "text";
      input.placeholder = type === "number" ? t("duel.numberPlaceholder") : t("duel.textPlaceholder");
      if (!locked) setTimeout(() => input.focus(), 0);
    }
    if (mineSent && "text" in mineSent) input.value = mineSent.text;
    if (mineSent && "number" in mineSent) input.value = String(mineSent.number);
    input.disabled = locked;
    $("answer-submit").disabled = locked;
    input.classList.remove("picked", "picked-right", "picked-wrong");
    if (mineSent) input.classList.add(verdictClass);
  }
  // At the reveal, the key in words for every type: "Right answer: Tokyo".
  const key = revealed ? keyText(revealed, q.choices) : "";
  $("answer-key").hidden = !key;
  $("answer-key").textContent = key;
}

// Three or four players: everyone's name, score, and whether they answered (never what).
function renderBoard(d) {
  const answered = new Set(d.answers.map((a) => a.player));
  $("board").replaceChildren(...d.players.map((p, i) => el("li", {
    class: [p.id === state.player.id ? "me" : "", p.connected ? "" : "offline"].filter(Boolean).join(" "), "data-player": p.id },
    el("span", { class: `dot seat-${i}`, "aria-hidden": "true" }, initials(p.username)),
    el("span", { class: "who" }, p.id === state.player.id ? t("duel.youName", { name: p.username }) : p.username),
    el("span", { class: "done", "aria-label": answered.has(p.id) ? t("duel.answered") : "" }, answered.has(p.id) ? "✓" : ""),
    el("span", { class: "score" }, String(p.score)))));
}

// ---- answering ----

function toggle(i) {
  const q = state.duel?.question;
  if (!q || !toggleTick(q.index, i)) return;
  render();
}

function submitChecked() {
  const q = state.duel?.question;
  const ticks = q ? state.ticks(q.index) : null;
  if (!q || !ticks || ticks.size === 0) return;
  answer({ choices: [...ticks].sort((a, b) => a - b) });
}

// "Select, then Submit": a tap (or a key) selects; Submit (or Enter) answers.
function select(i) {
  const q = state.duel?.question;
  if (!q || state.duel.state !== "question" || (state.myPick && state.myPick.index === q.index)) return;
  selectChoice(q.index, i);
  render();
}

function submitSelected() {
  const q = state.duel?.question;
  const choice = q ? state.selected(q.index) : null;
  if (choice !== null) answer(choice);
}

$("free-answer").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = state.duel?.question;
  const input = /** @type {HTMLInputElement} */ ($("answer-input"));
  const value = input.value.trim();
  if (!q || value === "") return;
  if (q.type === "number") {
    const number = Number(value);
    if (!Number.isFinite(number)) { $("verdict").textContent = t("duel.notANumber"); return; }
    answer({ number });
  } else {
    answer({ text: input.value.slice(0, 200) });
  }
});

async function answer(choice) {
  const d = state.duel;
  if (!d || d.state !== "question" || !d.question) return;
  const index = d.question.index;
  if (state.myPick && state.myPick.index === index) return;
  const duelId = state.duelId;
  answerSent(index, choice);
  render();
  let verdict;
  try {
    verdict = await client.answer(duelId, index, choice);
  } catch (error) {
    verdict = { code: error.code };
  }
  if (!answerReplied(duelId, index, verdict)) return; // another game began meanwhile
  render();
}

document.addEventListener("keydown", (e) => {
  if (!shown("duel") || e.altKey || e.ctrlKey || e.metaKey || $("forfeit-dialog").open) return;
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return; // typing an answer, not picking one
  // Enter on a focused button is that button's click: not a second action.
  if (e.key === "Enter" && e.target instanceof HTMLButtonElement) return;
  const key = e.key.toUpperCase();
  let index = -1;
  if (/^[1-6]$/.test(key)) index = Number(key) - 1;
  else if (/^[A-F]$/.test(key)) index = key.charCodeAt(0) - 65;
  const q = state.duel?.question;
  if (!q || state.duel.state !== "question") return;
  if (q.type === "multiple") {
    if (index >= 0 && index < q.choices.length) toggle(index);
    else if (e.key === "Enter") submitChecked();
  } else if (settings.answerMode === "confirm") {
    if (index >= 0 && index < q.choices.length) select(index);
    else if (e.key === "Enter") submitSelected();
  } else if (index >= 0 && index < q.choices.length) answer(index);
});

// ---- leaving a game: End practice at once, Forfeit after a confirmation ----

$("end-practice").addEventListener("click", async () => {
  if (!state.duelId || !isSolo(state.duel)) return;
  try { await client.forfeit(state.duelId); } catch (error) { $("verdict").textContent = errorText(error); }
});

$("forfeit").addEventListener("click", () => {
  const d = state.duel;
  if (!d || isSolo(d)) return;
  $("forfeit-text").textContent = t(d.mode === "ranked" ? "forfeit.textRanked" : isRecordedGame(d) ? "forfeit.textRecorded"
    : d.players.length > 2 ? "forfeit.textRoom" : "forfeit.text");
  $("forfeit-dialog").showModal();
  $("forfeit-cancel").focus();
});
$("forfeit-cancel").addEventListener("click", () => $("forfeit-dialog").close());
$("forfeit-confirm").addEventListener("click", async () => {
  $("forfeit-dialog").close();
  const d = state.duel;
  if (!d || d.state === "finished") return;
  try {
    await client.forfeit(d.id);
  } catch (error) {
    $("verdict").textContent = errorText(error);
    return;
  }
  // Two players: the `complete` event follows and shows the end screen. Three or four: the
  // others play on without me, so the game's remaining events are not mine any more.
  if (d.players.length > 2) {
    leftRoomGame(d.id);
    stopClock();
    if (state.room) showRoom(state.room); else go("home");
  }
});

$("report").addEventListener("click", async () => {
  const q = state.duel?.question;
  if (!q) return;
  const reason = prompt(t("report.questionPrompt"));
  if (!reason) return;
  try {
    await client.report(q.question_id, reason.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim().slice(0, 500));
    $("verdict").textContent = t("report.thanks");
  } catch (error) {
    $("verdict").textContent = errorText(error);
  }
});
