// The QuizDuel browser client: screens and the duel view. The connection, its
// resilience (reconnect, re-auth, resume, seq order) and the server's clock live in
// quizduel-client.js.
import { QuizDuelClient } from "./quizduel-client.js";
import { setupQuizzes } from "./quizzes.js";
import { setupProgress } from "./progress.js";

const $ = (id) => document.getElementById(id);
const screens = ["auth", "home", "friends", "room", "matching", "duel", "end", "leaderboard", "profile", "history", "mistakes",
  "quizzes", "quiz", "editor", "notifications"];
const state = {
  player: null,
  banks: [],
  bank: null,
  duel: null,        // latest record
  duelId: null,
  myPick: null,      // {index, answer}: the answer sent to the open question (a choice or a Submission)
  checked: null,     // {duel, index, picks: Set}: the boxes ticked on an open "multiple" question, not sent yet
  inputFor: "",      // "duel:index" of the question the text or number field was last set up for
  verdicts: {},      // question index -> the reply to my answer, {correct, points}, or {code} if refused
  right: {},         // question index -> whether I got it right (from the reveals)
  practice: null,    // what the last practice game was asked for: {bank} or {mistakes: true}
  starting: false,   // a practice request is on its way
  timer: null,       // the countdown's or the question timer's interval
  countdownEnds: 0,  // on the server's clock
  room: null,        // the room record while I am a member
  challenges: new Map(), // pending challenges by id (sent and received)
  joinCode: new URLSearchParams(location.search).get("room"), // a shared link's room, joined after sign-in
};

const client = new QuizDuelClient(undefined, { token: localStorage.getItem("quizduel.token") });
window.quizduel = { client, state }; // handy in the console and for the browser tests

function show(name) {
  for (const s of screens) $(`screen-${s}`).hidden = s !== name;
  $("nav").hidden = !state.player || name === "auth";
  const heading = $(`screen-${name}`).querySelector("h2");
  if (heading && name !== "duel") { heading.tabIndex = -1; heading.focus({ preventScroll: true }); }
}

function status(text) {
  $("status").hidden = !text;
  $("status").textContent = text || "";
}

// A passing notice: cleared after 3 s unless something else took the bar meanwhile.
function flash(text) {
  status(text);
  setTimeout(() => { if ($("status").textContent === text) status(""); }, 3000);
}

// A short message under a screen's controls (an empty one takes no room).
function note(id, text) {
  $(id).textContent = text || "";
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// ---- connection life ----

client.on("token", (token) => {
  if (token) localStorage.setItem("quizduel.token", token);
  else localStorage.removeItem("quizduel.token");
});

client.on("open", () => {
  status("");
  // With a token the client signs in by itself (see "authenticated" and "signedout").
  if (!client.token && $("screen-auth").hidden) show("auth");
});

client.on("down", () => {
  if (state.player) status("Reconnecting…");
});

// Signed in with the stored token (page load, and after every reconnect). The client
// resumes the live duel on its own: the missed events follow, in order.
client.on("authenticated", ({ player, duel }) => {
  state.player = player;
  // The room comes back as a `room` event right after, if I am still a member.
  state.room = null;
  refreshChallenges();
  if (duel && duel.state !== "finished") {
    if (state.duelId !== duel.id) newDuel(duel.id);
    state.duel = duel;
    show("duel");
    render();
  } else if (state.duelId && client.liveDuelId === state.duelId) {
    // Our duel ended while we were away: its last events, `complete` included, are on the way.
  } else if (!$("screen-duel").hidden || !$("screen-auth").hidden || !$("screen-matching").hidden) {
    goHome();
  }
  if (!duel || duel.state === "finished") joinLinkedRoom();
});

// The stored token was refused (the session ended, or the account is disabled).
client.on("signedout", ({ message }) => {
  clearSession();
  status("");
  show("auth");
  $("auth-error").textContent = `Your session ended (${message}). Log in again.`;
});

// Errors the server sends on its own, e.g. bank_empty (the queue was dropped) or rate_limited.
client.on("error", ({ code, message }) => {
  if (code === "bank_empty" && !$("screen-matching").hidden) goHome();
  flash(message);
});

// ---- auth ----

$("auth-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("login"); });
$("signup").addEventListener("click", () => authenticate("signup"));

async function authenticate(op) {
  const username = $("username").value.trim();
  const password = $("password").value;
  $("auth-error").textContent = "";
  try {
    const data = op === "signup" ? await client.signup(username, password) : await client.login(username, password);
    state.player = data.player; // the client keeps the token (see the "token" callback)
  } catch (error) {
    $("auth-error").textContent = error.message;
    return;
  }
  refreshChallenges();
  if (!joinLinkedRoom()) goHome();
}

$("logout").addEventListener("click", async () => {
  try { await client.logout(); } catch { /* the token is dropped anyway */ }
  clearSession();
  show("auth");
});

// ---- home and matching ----

// Signed out: forget the player and the duel, and stop its timer.
function clearSession() {
  Object.assign(state, { player: null, duel: null, duelId: null, room: null });
  state.challenges.clear();
  badge();
  clearInterval(state.timer);
}

async function goHome() {
  clearInterval(state.timer);
  show("home");
  note("home-note", "");
  $("me").textContent = state.player ? `Signed in as ${state.player.username}` : "";
  // The greeting with the level (fresh: games since sign-in gave XP), and the bell's badge.
  progress.greet(state.player);
  client.profile().then((d) => { progress.greet(d.player); }, () => {});
  progress.refreshBadge();
  sendTimeZone();
  try { state.banks = (await client.banks()).banks; } catch { return; }
  const list = $("banks");
  list.replaceChildren(...state.banks.map((b) => el("li", {},
    el("span", { class: "bank" }, el("strong", {}, b.title), el("br"), el("span", { class: "muted" }, `${b.questions} questions · rating ${state.player?.ratings?.[b.slug] ?? 1500}`)),
    el("span", { class: "actions" },
      el("button", { "data-practice": b.slug, "aria-label": `Practice: play ${b.title} alone, not rated`, onclick: () => practise({ bank: b.slug }) }, "Practice"),
      el("button", { class: "primary", "data-bank": b.slug, "aria-label": `Ranking: play ${b.title}`, onclick: () => queue(b) }, "Ranking")))));
}

async function queue(bank) {
  state.bank = bank;
  try {
    await client.queue(bank.slug);
  } catch (error) {
    if (error.code !== "already_queued") { flash(error.message); return; }
  }
  $("matching-bank").textContent = bank.title;
  show("matching");
}

// ---- practice: one player, not rated ----

// The short message for a refused practice request.
function practiceError(error, what) {
  switch (error.code) {
    case "bank_empty": return what.mistakes ? "No mistakes left to practise — well done" : "This bank has no questions to practise yet";
    case "unknown_bank": return "That bank is not available any more";
    case "already_queued": return "You are waiting for a ranked duel: cancel it first";
    case "in_duel": return "You are already in a game";
    case "bad_request": return "Pick a bank to practise";
    default: return error.message;
  }
}

// The note of the screen the player is on (home, the mistakes notebook or the end screen).
function visibleNote() {
  return ["home", "mistakes", "end", "quiz"].find((s) => !$(`screen-${s}`).hidden);
}

async function practise(what) {
  if (state.starting) return; // one request at a time: a double click must not start two
  const where = visibleNote();
  if (where) note(`${where}-note`, "");
  state.starting = true;
  try {
    state.practice = what;
    await client.practice(what); // the game's init follows and opens the game screen
  } catch (error) {
    const text = practiceError(error, what);
    if (where) note(`${where}-note`, text); else flash(text);
    if (error.code === "unknown_bank" && where === "home") goHome();
  } finally {
    state.starting = false;
  }
}

$("practise-mistakes").addEventListener("click", () => practise({ mistakes: true }));

$("end-practice").addEventListener("click", async () => {
  if (!state.duelId || !isSolo(state.duel)) return;
  try { await client.forfeit(state.duelId); } catch (error) { $("verdict").textContent = error.message; }
});

$("cancel").addEventListener("click", async () => {
  try { await client.cancel(); } catch { return; } // not_queued: matched already, init is coming
  goHome();
});

// ---- the duel ----

function newDuel(id) {
  state.duelId = id;
  state.verdicts = {};
  state.right = {};
  state.myPick = null;
}

// ---- rooms: 2-4 friends by invite code ----

// Shorter words for the room codes. Others (already_queued, in_duel) keep the server's
// message: it names the member or challenger who is busy, when it is not you.
const ROOM_ERRORS = {
  unknown_room: "No room has that code (it may have closed)", room_full: "That room is full",
  room_busy: "That room is playing a game; try again when it ends", in_room: "Leave your room first",
  not_host: "Only the host can start", room_too_small: "Wait for at least one friend to join",
};

function roomError(error) { return ROOM_ERRORS[error.code] ?? error.message; }

// A shared link (/?room=CODE): join that room once signed in. Returns whether it tried.
function joinLinkedRoom() {
  if (!state.joinCode || !state.player) return false;
  const code = state.joinCode;
  state.joinCode = null;
  window.history.replaceState(null, "", location.pathname); // (`history` here is the History screen)
  joinRoom(code);
  return true;
}

async function joinRoom(code) {
  try {
    showRoom((await client.roomJoin(code)).room);
  } catch (error) {
    await friends();
    note("friends-note", roomError(error));
  }
}

function roomLink(code) { return `${location.origin}/?room=${code}`; }

// The room record from a reply or a `room` event; the lobby shows it when it is on screen.
function setRoom(room) {
  const mine = room && room.state !== "closed" && room.members.some((m) => m.id === state.player?.id);
  state.room = mine ? room : null;
  if (!$("screen-room").hidden) { if (state.room) renderRoom(); else friends(); }
}

function showRoom(room) {
  setRoom(room);
  if (!state.room) return;
  note("room-note", "");
  show("room");
  renderRoom();
}

function initials(name) { return name.slice(0, 2).toUpperCase(); }

function renderRoom() {
  const r = state.room;
  $("room-code-shown").textContent = r.code;
  $("room-bank-shown").textContent = state.banks.find((b) => b.slug === r.bank)?.title ?? state.quizTitles?.[r.bank] ?? r.bank;
  $("room-link").href = roomLink(r.code);
  $("room-link").textContent = roomLink(r.code);
  const seats = [];
  for (let i = 0; i < r.max_players; i++) {
    const m = r.members[i];
    if (!m) { seats.push(el("li", { class: "empty" }, el("span", { class: "dot" }, "·"), "Waiting for a friend…")); continue; }
    const tags = [m.id === r.host ? "host" : "", m.id === state.player.id ? "you" : "", m.connected ? "" : "offline"].filter(Boolean);
    seats.push(el("li", { "data-member": m.id }, el("span", { class: `dot seat-${i}`, "aria-hidden": "true" }, initials(m.username)),
      el("span", {}, m.username, tags.length ? el("span", { class: "muted" }, ` (${tags.join(", ")})`) : "")));
  }
  $("seats").replaceChildren(...seats);
  const host = r.host === state.player.id;
  $("room-start").hidden = !host;
  $("room-start").disabled = r.members.length < 2 || r.state === "playing";
  if (!host) note("room-note", r.state === "playing" ? "A game is on" : "The host starts the game");
}

client.on("room", (event) => {
  setRoom(event.record);
  // A game began: its init opens the game screen. A rematch started by the host, too.
});

$("room-create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    showRoom((await client.roomCreate($("room-bank").value, {
      max_players: Number($("room-size").value), questions: Number($("room-questions").value),
    })).room);
  } catch (error) { note("friends-note", roomError(error)); }
});

$("room-join-form").addEventListener("submit", (e) => { e.preventDefault(); joinRoom($("room-code").value); });

$("room-start").addEventListener("click", startRoomGame);

async function startRoomGame() {
  try { await client.roomStart(); } catch (error) {
    const where = visibleNote() ?? "room";
    note(`${where}-note`, roomError(error));
  }
}

$("room-leave").addEventListener("click", async () => {
  // Leaving during the room's game forfeits it: its remaining events are not mine any more.
  if (state.room?.state === "playing") state.leftDuel = state.room.duel_id;
  try { await client.roomLeave(); } catch { /* not in a room any more */ }
  state.room = null;
  friends();
});

$("room-copy").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("room-link").href); flash("Link copied"); } catch { flash($("room-link").href); }
});

// ---- challenges ----

function badge() {
  const received = [...state.challenges.values()].filter((c) => c.state === "pending" && c.to.id === state.player?.id).length;
  $("inbox-badge").hidden = received === 0;
  $("inbox-badge").textContent = String(received);
}

async function refreshChallenges() {
  const list = await client.challenges().then((d) => d.challenges, () => null);
  if (!list) return;
  state.challenges = new Map(list.map((c) => [c.id, c]));
  badge();
  renderInbox();
}

client.on("challenge", (event) => {
  const c = event.record;
  if (c.state === "pending") state.challenges.set(c.id, c); else state.challenges.delete(c.id);
  if (c.state === "pending" && c.to.id === state.player?.id) flash(`${c.from.username} challenges you (${c.bank})`);
  if (c.state === "declined" && c.from.id === state.player?.id) flash(`${c.to.username} declined your challenge`);
  if (c.state === "expired") flash("A challenge expired");
  badge();
  renderInbox();
});

function renderInbox() {
  const me = state.player?.id;
  const items = [...state.challenges.values()].map((c) => {
    if (c.to.id === me) {
      return el("li", { "data-challenge": c.id }, `${c.from.username} challenges you in ${c.bank} `,
        el("button", { class: "primary", "data-accept": c.id, onclick: () => acceptChallenge(c.id) }, "Accept"), " ",
        el("button", { "data-decline": c.id, onclick: () => declineChallenge(c.id) }, "Decline"));
    }
    return el("li", { "data-challenge": c.id }, `You challenged ${c.to.username} in ${c.bank} (waiting) `,
      el("button", { class: "link", onclick: () => declineChallenge(c.id) }, "Withdraw"));
  });
  $("inbox").replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, "No challenges waiting.")]));
}

async function acceptChallenge(id) {
  try { await client.challengeAccept(id); } catch (error) {
    note("friends-note", error.code === "challenge_expired" ? "That challenge expired" : roomError(error));
    refreshChallenges();
  }
}

async function declineChallenge(id) {
  try { await client.challengeDecline(id); } catch { /* gone already */ }
  state.challenges.delete(id);
  badge();
  renderInbox();
}

$("challenge-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const { challenge } = await client.challenge($("challenge-name").value.trim(), $("challenge-bank").value);
    state.challenges.set(challenge.id, challenge);
    renderInbox();
    note("friends-note", `Challenge sent to ${challenge.to.username}`);
  } catch (error) {
    note("friends-note", error.code === "unknown_player" ? "No player has that name" : error.message);
  }
});

async function friends() {
  if (state.room) { showRoom(state.room); return; }
  show("friends");
  note("friends-note", "");
  await fillBankSelects(document.querySelectorAll(".bank-select"));
  renderInbox();
}

// ---- rematch after a ranked duel ----

client.on("rematch", (event) => {
  const r = event.record;
  if (r.duel_id !== state.duelId || $("screen-end").hidden) return;
  if (r.state === "offered" && r.from !== state.player?.id) note("end-note", "Your opponent wants a rematch");
  if (r.state === "expired") { note("end-note", "The rematch offer expired"); $("rematch").disabled = false; }
});

$("rematch").addEventListener("click", async () => {
  const id = state.duelId;
  $("rematch").disabled = true;
  try {
    const reply = await client.rematch(id);
    if (reply.state === "offered") note("end-note", "Rematch offered: waiting for your opponent");
  } catch (error) {
    note("end-note", error.message);
    $("rematch").disabled = false;
  }
});

// A game of one player: a practice game.
function isSolo(record) {
  return !!record && (record.mode === "practice" || record.players.length === 1);
}

// The client delivers each duel's events once per seq, in order (it resumes on gaps).
for (const name of /** @type {const} */ (["init", "question", "answered", "reveal", "complete"])) client.on(name, onEvent);

function onEvent(event) {
  if (event.duel_id === state.leftDuel) return;
  if (event.event === "init" || event.duel_id !== state.duelId) newDuel(event.duel_id);
  state.duel = event.record;
  const reveal = event.record.reveal;
  if (reveal && state.player) state.right[reveal.question_index] = (reveal.points[state.player.id] ?? 0) > 0;
  if (event.event === "question") { state.myPick = null; }
  if (event.event === "complete") { finish(event.record); return; }
  if ($("screen-duel").hidden) show("duel");
  render();
}

// My entry in a duel record and my opponent's (none in a practice game).
function sides(record) {
  const id = state.player?.id;
  return { mine: record.players.find((p) => p.id === id), theirs: record.players.find((p) => p.id !== id) };
}

function render() {
  const d = state.duel;
  if (!d || !state.player || $("screen-duel").hidden) return;
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
  if (theirs) {
    $("opp-name").textContent = theirs.username;
    $("opp-score").textContent = theirs.score;
    $("opp-box").classList.toggle("offline", !theirs.connected);
  }
  $("progress").textContent = d.question ? `Question ${d.question.index + 1} / ${d.question_count}` : `${d.question_count} questions`;
  clearInterval(state.timer);
  if (d.state === "countdown") {
    $("question-area").hidden = true;
    $("countdown").hidden = false;
    state.timer = setInterval(() => {
      const left = Math.max(1, Math.ceil((state.countdownEnds - client.serverNow()) / 1000));
      $("countdown").textContent = left;
    }, 100);
    state.countdownEnds = client.serverNow() + 3000;
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
  const reply = state.verdicts[q.index];
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
    state.timer = setInterval(tick, 100);
  }
}

// The answer input of each question type: choice buttons (single, boolean), check boxes and a
// submit button (multiple), or a field that submits on Enter (text, number). The field is kept
// across renders, so an event arriving while the player types does not wipe what they typed.
function renderAnswerInput(q, type, { revealed, locked, pick, mineSent, right }) {
  const free = type === "text" || type === "number";
  const verdictClass = right === null ? "picked" : right ? "picked-right" : "picked-wrong";
  $("free-answer").hidden = !free;
  if (type === "multiple") {
    if (!state.checked || state.checked.duel !== state.duelId || state.checked.index !== q.index) {
      state.checked = { duel: state.duelId, index: q.index, picks: new Set() };
    }
    const sentPicks = new Set(mineSent && "choices" in mineSent ? mineSent.choices : []);
    const correct = new Set(revealed?.correct_choices ?? []);
    const boxes = q.choices.map((text, i) => {
      const ticked = locked ? sentPicks.has(i) : state.checked.picks.has(i);
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
    submit.disabled = locked || state.checked.picks.size === 0;
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
    if (state.inputFor !== `${state.duelId}:${q.index}`) {
      state.inputFor = `${state.duelId}:${q.index}`;
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

// A question's key as words: "Right answer: Lima" (every kind: choices, texts, a number).
function keyText(key, choices) {
  switch (key.type ?? "single") {
    case "multiple": return `Right answers: ${(key.correct_choices ?? []).map((i) => choices[i]).join(", ")}`;
    case "text": return `Accepted: ${(key.accepted ?? []).join(" / ")}`;
    case "number": return `Right answer: ${key.correct_number}${key.tolerance ? ` (± ${key.tolerance})` : ""}`;
    default: return key.correct_choice === null || key.correct_choice === undefined ? "" : `Right answer: ${choices[key.correct_choice]}`;
  }
}

// An answer as words, for the mistakes notebook.
function answerText(answer, choices) {
  if (!answer) return "you did not answer";
  if ("choice" in answer) return `you said: ${choices[answer.choice]}`;
  if ("choices" in answer) return `you said: ${answer.choices.map((i) => choices[i]).join(", ")}`;
  if ("text" in answer) return `you said: ${answer.text}`;
  return `you said: ${answer.number}`;
}

function toggle(i) {
  const q = state.duel?.question;
  if (!q || !state.checked || state.checked.index !== q.index) return;
  if (state.checked.picks.has(i)) state.checked.picks.delete(i); else state.checked.picks.add(i);
  render();
}

function submitChecked() {
  const q = state.duel?.question;
  if (!q || !state.checked || state.checked.index !== q.index || state.checked.picks.size === 0) return;
  answer({ choices: [...state.checked.picks].sort((a, b) => a - b) });
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

async function answer(choice) {
  const d = state.duel;
  if (!d || d.state !== "question" || !d.question) return;
  const index = d.question.index;
  if (state.myPick && state.myPick.index === index) return;
  const duelId = state.duelId;
  state.myPick = { index, answer: choice };
  render();
  let verdict;
  try {
    verdict = await client.answer(duelId, index, choice);
  } catch (error) {
    verdict = { code: error.code };
  }
  if (state.duelId !== duelId) return; // another game began meanwhile
  state.verdicts[index] = verdict;
  render();
}

document.addEventListener("keydown", (e) => {
  if ($("screen-duel").hidden || e.altKey || e.ctrlKey || e.metaKey) return;
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

function finish(record) {
  clearInterval(state.timer);
  note("end-note", "");
  $("end-places").hidden = true;
  $("rematch").hidden = true;
  $("rematch").disabled = false;
  if (isSolo(record)) { finishPractice(record); return; }
  if (record.mode === "room" || record.players.length > 2) { finishRoomGame(record); return; }
  $("again").textContent = "Play again";
  $("again").hidden = record.mode === "challenge";
  $("rematch").hidden = record.mode !== "ranked" || record.result.reason === "ended";
  const result = record.result;
  const { mine, theirs } = sides(record);
  // An operator may end a stuck duel: no winner, and nothing rated (reason "ended").
  const title = result.reason === "ended" ? "Duel ended" : result.winner === null ? "Draw" : result.winner === mine.id ? "You win!" : "You lose";
  $("end-title").textContent = title;
  const why = result.reason === "forfeit" ? " (forfeit)" : result.reason === "abandoned" ? " (opponent left)"
    : result.reason === "ended" ? " (ended by the organisers; not rated)" : "";
  $("end-score").textContent = `${mine.score} : ${theirs.score}${why}`;
  const r = result.ratings[mine.id];
  $("end-rating").textContent = `Rating ${r.before} → ${r.after}`;
  show("end");
}

// A room's game: the end screen by placement ("You win", "You are one of the winners", "You lost").
function finishRoomGame(record) {
  const places = record.result.placements;
  const me = state.player.id;
  const firsts = Object.values(places).filter((p) => p === 1).length;
  $("end-title").textContent = record.result.reason === "ended" ? "Game ended"
    : places[me] === 1 ? (firsts > 1 ? "You are one of the winners" : "You win!") : "You lost";
  $("end-score").textContent = `You placed ${places[me]} of ${record.players.length}`;
  $("end-rating").textContent = "Among friends: not rated";
  const ranked = [...record.players].sort((a, b) => places[a.id] - places[b.id]);
  $("end-places").replaceChildren(...ranked.map((p) => el("li", { "data-place": places[p.id] },
    `${places[p.id]}. ${p.username}: ${p.score}${p.id === me ? " (you)" : ""}`)));
  $("end-places").hidden = false;
  const host = state.room?.host === me;
  $("again").hidden = !host;
  $("again").textContent = "Rematch";
  if (!host) note("end-note", state.room ? "Waiting for the host to start the rematch…" : "");
  show("end");
}

function finishPractice(record) {
  const mine = sides(record).mine ?? record.players[0];
  if (!state.practice) state.practice = { bank: record.bank }; // e.g. a game resumed after a reload
  const right = Object.values(state.right).filter(Boolean).length;
  $("end-title").textContent = record.result.reason === "completed" ? "Practice complete" : "Practice ended";
  $("end-score").textContent = `Score ${mine.score} · ${right} of ${record.question_count} right`;
  $("end-rating").textContent = "Practice: not rated";
  $("again").textContent = "Practise again";
  $("again").hidden = false;
  show("end");
}

$("again").addEventListener("click", () => {
  if (isSolo(state.duel)) practise(state.practice ?? { bank: state.duel.bank });
  else if (state.duel?.mode === "room") startRoomGame();
  else if (state.bank) queue(state.bank);
  else goHome();
});
$("back").addEventListener("click", () => {
  if (state.room) showRoom(state.room);
  else if (isSolo(state.duel) && state.practice?.mistakes) mistakes(); else goHome();
});

// The browser's time zone, for streak days: sent once per player and zone (profile_update).
function sendTimeZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${state.player?.id}:${zone}`;
  if (!zone || !state.player || localStorage.getItem("quizduel.zone") === key) return;
  client.profileUpdate(zone).then(() => localStorage.setItem("quizduel.zone", key), () => {});
}

// ---- other screens ----

for (const b of document.querySelectorAll("[data-go]")) {
  b.addEventListener("click", () => ({ home: goHome, friends: friends, quizzes: () => quizScreens.quizzes(), leaderboard: leaderboard,
    profile: () => progress.profile(), history: history, mistakes: mistakes,
    notifications: () => progress.notifications() })[b.dataset.go]());
}

// Bank pickers are filled once, from the banks list (read if not yet).
async function fillBankSelects(selects) {
  if (!state.banks.length) state.banks = await client.banks().then((d) => d.banks, () => []);
  for (const select of selects) {
    if (!select.options.length) select.replaceChildren(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
  }
}

async function leaderboard() {
  show("leaderboard");
  await fillBankSelects([$("lb-bank")]);
  leaderboardList();
}

$("lb-bank").addEventListener("change", leaderboardList);

async function leaderboardList() {
  const entries = await client.leaderboard($("lb-bank").value, 20).then((d) => d.entries, () => []);
  $("lb-list").replaceChildren(...(entries.length ? entries.map((e) => el("li", {}, `${e.username} — ${e.rating} (${e.wins}/${e.games} won)`))
    : [el("li", { class: "muted" }, "Nobody has finished a duel here yet.")]));
}

async function history() {
  show("history");
  const duels = await client.history(20).then((d) => d.duels, () => []);
  $("history").replaceChildren(...(duels.length ? duels.map((d) => {
    const { mine, theirs } = sides(d);
    if (isSolo(d) || !theirs) return el("li", {}, `${d.bank}: practice, ${mine.score} points (not rated)`);
    if (d.players.length > 2) return el("li", {}, `${d.bank}: room game, placed ${d.result.placements[mine.id]} of ${d.players.length} with ${mine.score} points`);
    const outcome = d.result.winner === null ? "draw" : d.result.winner === mine.id ? "won" : "lost";
    return el("li", {}, `${d.bank}: ${outcome} ${mine.score}:${theirs.score} against ${theirs.username}`);
  }) : [el("li", { class: "muted" }, "No finished duels yet.")]));
}

async function mistakes() {
  show("mistakes");
  note("mistakes-note", "");
  const data = await client.mistakes(50).catch(() => null);
  const questions = data?.questions ?? [];
  $("learned").textContent = data ? `${data.learned_count} learned` : "";
  $("mistakes").replaceChildren(...(questions.length ? questions.map((q) => el("li", {},
    el("strong", {}, q.prompt), el("br"),
    keyText(q, q.choices), ` · ${answerText(q.your_answer ?? (q.your_choice === null ? null : { choice: q.your_choice }), q.choices)}`))
    : [el("li", { class: "muted" }, data?.learned_count ? "Nothing left to practise: you learned them all." : "No mistakes yet.")]));
}

const quizScreens = setupQuizzes({ client, state, $, el, show, note, practise, showRoom, roomError });
const progress = setupProgress({ client, state, $, el, show, note, flash, fillBankSelects });

client.connect();
