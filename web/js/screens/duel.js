// The game screen (a duel, a room game of 2-4 players, or practice): the events that draw it, and
// answering (choice buttons, check boxes, a typed text or number), by mouse or keyboard.
import { client } from "../connection.js";
import { $, el } from "../ui.js";
import { show, shown } from "../router.js";
import { state, duelEvent, duelResumed, answerSent, answerReplied, ticksFor, toggleTick } from "../store.js";
import { tickEvery, stopClock } from "../clock.js";
import { isSolo, sides, initials, keyText } from "../records.js";
import { finish } from "./end.js";

let countdownEnds = 0; // on the server's clock
let inputFor = "";     // "duel:index" of the question the text or number field was last set up for

// The client delivers each duel's events once per seq, in order (it resumes on gaps).
for (const name of /** @type {const} */ (["init", "question", "answered", "reveal", "complete"])) client.on(name, onEvent);

function onEvent(event) {
  if (event.duel_id === state.leftDuel) return;
  duelEvent(event);
  if (event.event === "complete") { stopClock(); finish(event.record); return; }
  if (!shown("duel")) show("duel");
  render();
}

/** The live game from the sign-in (a reload or a reconnect): its missed events follow, in order. */
export function resumeDuel(record) {
  duelResumed(record);
  show("duel");
  render();
}

$("end-practice").addEventListener("click", async () => {
  if (!state.duelId || !isSolo(state.duel)) return;
  try { await client.forfeit(state.duelId); } catch (error) { $("verdict").textContent = error.message; }
});

function render() {
  const d = state.duel;
  if (!d || !state.player || !shown("duel")) return;
  const solo = isSolo(d);
  const { mine, theirs: other } = sides(d);
  const theirs = solo ? undefined : other;
  $("duel-title").textContent = solo ? "Practice" : d.mode === "room" ? "Room game" : "Duel";
  const many = d.players.length > 2;
  $("board").hidden = !many;
  $("pair-board").hidden = many;
  if (many) renderBoard(d);
  $("opp-box").hidden = solo;
  $("solo-box").hidden = !solo;
  $("opponent-state").hidden = solo;
  $("end-practice").hidden = !solo;
  $("me-name").textContent = mine.username;
  $("me-score").textContent = mine.score;
  renderPing(mine);
  if (theirs) {
    $("opp-name").textContent = theirs.username;
    $("opp-score").textContent = theirs.score;
    $("opp-box").classList.toggle("offline", !theirs.connected);
  }
  $("progress").textContent = d.question ? `Question ${d.question.index + 1} / ${d.question_count}` : `${d.question_count} questions`;
  stopClock();
  if (d.state === "countdown") {
    $("question-area").hidden = true;
    $("countdown").hidden = false;
    tickEvery(100, () => {
      const left = Math.max(1, Math.ceil((countdownEnds - client.serverNow()) / 1000));
      $("countdown").textContent = left;
    });
    countdownEnds = client.serverNow() + 3000;
    $("countdown").textContent = "3";
    return;
  }
  $("countdown").hidden = true;
  $("question-area").hidden = false;
  const q = d.question;
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
  if (many) opp = revealed ? "" : `${d.answers.length} of ${d.players.length} answered`;
  else if (theirs && theirAnswer) opp = theirAnswer.correct ? `${theirs.username} answered correctly` : `${theirs.username} answered wrong`;
  else if (theirs && !revealed) opp = `${theirs.username} is thinking…`;
  $("opponent-state").textContent = opp;
  let verdict = "";
  if (right !== null) verdict = right ? `Correct!${points === undefined ? "" : ` +${points}`}` : "Wrong";
  else if (many && (refused === "locked_out" || d.answers.some((a) => a.correct && a.player !== mine.id))) verdict = "Locked out: someone was faster";
  else if (refused === "locked_out" || (theirAnswer && theirAnswer.correct)) verdict = "Locked out: your opponent was faster";
  else if (refused === "too_late") verdict = "Too late";
  else if (revealed) verdict = "Time's up";
  $("verdict").textContent = verdict;
  if (revealed) {
    $("timer-bar").style.width = "0%";
    $("timer-text").textContent = "Reveal";
  } else {
    const tick = () => {
      const total = q.deadline_ms - q.opens_at_ms;
      const left = Math.max(0, q.deadline_ms - client.serverNow());
      $("timer-bar").style.width = `${(100 * left) / total}%`;
      $("timer-text").textContent = `${Math.ceil(left / 1000)} s`;
    };
    tick();
    tickEvery(100, tick);
  }
}

// My round trip as the server measured it (issue 26: my answers count that much earlier). 0 until
// the server reports one (it reports a change of 3 ms or more, so a near player may stay at 0),
// and always with compensation off: shown as "ping —".
function renderPing(me) {
  const lag = me.lag_ms ?? 0;
  $("ping").textContent = lag > 0 ? `ping ${lag} ms` : "ping —";
}

// The answer input of each question type: choice buttons (single, boolean), check boxes and a
// submit button (multiple), or a field that submits on Enter (text, number). The field is kept
// across renders, so an event arriving while the player types does not wipe what they typed.
function renderAnswerInput(q, type, { revealed, locked, pick, mineSent, right }) {
  const free = type === "text" || type === "number";
  const verdictClass = right === null ? "picked" : right ? "picked-right" : "picked-wrong";
  $("free-answer").hidden = !free;
  if (type === "multiple") {
    ticksFor(q.index);
    const ticks = state.ticks(q.index);
    const sentPicks = new Set(mineSent && "choices" in mineSent ? mineSent.choices : []);
    const correct = new Set(revealed?.correct_choices ?? []);
    const boxes = q.choices.map((text, i) => {
      const ticked = locked ? sentPicks.has(i) : ticks.has(i);
      const b = el("button", { role: "checkbox", "aria-checked": String(ticked), "data-choice": i,
        "aria-label": `${String.fromCharCode(65 + i)}: ${text}`, onclick: () => toggle(i) },
        el("span", { class: "box", "aria-hidden": "true" }, ticked ? "☑" : "☐"),
        el("span", { class: "key" }, `${String.fromCharCode(65 + i)}`), text);
      if (locked) b.disabled = true;
      if (locked && sentPicks.has(i)) b.classList.add(verdictClass);
      if (correct.has(i)) { b.classList.add("correct"); b.setAttribute("aria-description", "a correct answer"); }
      return b;
    });
    const submit = el("button", { class: "primary", id: "submit-choices", onclick: () => submitChecked() }, "Answer");
    submit.disabled = locked || ticks.size === 0;
    $("choices").replaceChildren(...boxes, submit);
  } else if (!free) {
    $("choices").replaceChildren(...q.choices.map((text, i) => {
      const b = el("button", { "data-choice": i, "aria-label": `${String.fromCharCode(65 + i)}: ${text}`, onclick: () => answer(i) },
        el("span", { class: "key" }, `${String.fromCharCode(65 + i)}`), text);
      if (locked) b.disabled = true;
      if (pick === i) b.classList.add(verdictClass);
      if (revealed && revealed.correct_choice === i) { b.classList.add("correct"); b.setAttribute("aria-description", "correct answer"); }
      return b;
    }));
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
      input.placeholder = type === "number" ? "A number" : "Type your answer";
      if (!locked) setTimeout(() => input.focus(), 0);
    }
    if (mineSent && "text" in mineSent) input.value = mineSent.text;
    if (mineSent && "number" in mineSent) input.value = String(mineSent.number);
    input.disabled = locked;
    $("answer-submit").disabled = locked;
    input.classList.remove("picked", "picked-right", "picked-wrong");
    if (mineSent) input.classList.add(verdictClass);
  }
  const key = revealed ? keyText(revealed, q.choices) : "";
  $("answer-key").hidden = !key || (type !== "text" && type !== "number");
  $("answer-key").textContent = key;
}

// Three or four players: everyone's name, score, and whether they answered (never what).
function renderBoard(d) {
  const answered = new Set(d.answers.map((a) => a.player));
  $("board").replaceChildren(...d.players.map((p, i) => el("li", {
    class: [p.id === state.player.id ? "me" : "", p.connected ? "" : "offline"].filter(Boolean).join(" "), "data-player": p.id },
    el("span", { class: `dot seat-${i}`, "aria-hidden": "true" }, initials(p.username)),
    el("span", { class: "who" }, p.id === state.player.id ? `${p.username} (you)` : p.username),
    el("span", { class: "done", "aria-label": answered.has(p.id) ? "answered" : "" }, answered.has(p.id) ? "✓" : ""),
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

$("free-answer").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = state.duel?.question;
  const input = /** @type {HTMLInputElement} */ ($("answer-input"));
  const value = input.value.trim();
  if (!q || value === "") return;
  if (q.type === "number") {
    const number = Number(value);
    if (!Number.isFinite(number)) { $("verdict").textContent = "That is not a number"; return; }
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
  if (!shown("duel") || e.altKey || e.ctrlKey || e.metaKey) return;
  const key = e.key.toUpperCase();
  let index = -1;
  if (e.target instanceof HTMLInputElement) return; // typing an answer, not picking one
  if (/^[1-6]$/.test(key)) index = Number(key) - 1;
  else if (/^[A-F]$/.test(key)) index = key.charCodeAt(0) - 65;
  const q = state.duel?.question;
  if (q?.type === "multiple") {
    if (index >= 0 && index < q.choices.length) toggle(index);
    else if (e.key === "Enter") submitChecked();
  } else if (index >= 0 && q && index < q.choices.length) answer(index);
});

$("report").addEventListener("click", async () => {
  const q = state.duel?.question;
  if (!q) return;
  const reason = prompt("What is wrong with this question?");
  if (!reason) return;
  try {
    await client.report(q.question_id, reason.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim().slice(0, 500));
    $("verdict").textContent = "Thanks, reported.";
  } catch (error) {
    $("verdict").textContent = error.message;
  }
});
