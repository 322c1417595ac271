// The QuizDuel browser client: screens, the duel view, and resilience.
import { Connection } from "./connection.js";

const $ = (id) => document.getElementById(id);
const screens = ["auth", "home", "matching", "duel", "end", "leaderboard", "profile", "history", "mistakes"];
const state = {
  token: localStorage.getItem("quizduel.token"),
  player: null,
  banks: [],
  bank: null,
  duel: null,        // latest record
  duelId: null,
  lastSeq: 0,
  myPick: null,      // {index, choice}
  verdicts: {},      // question index -> {correct, points}
  timer: null,
  revealTimer: null,
};

const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/duel`;
const conn = new Connection(url, { onEvent, onOpen, onDown });
window.quizduel = { conn, state }; // handy in the console and for the browser tests

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

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// ---- connection life ----

async function onOpen() {
  status("");
  if (!state.token) { show("auth"); return; }
  const reply = await conn.request("auth", { token: state.token });
  if (reply.op !== "reply") {
    state.token = null;
    localStorage.removeItem("quizduel.token");
    show("auth");
    return;
  }
  state.player = reply.data.player;
  const live = reply.data.duel;
  if (live && live.state !== "finished") {
    // Back into a duel: render the latest record, then fetch whatever we missed.
    const after = state.duelId === live.id ? state.lastSeq : 0;
    state.duelId = live.id;
    state.duel = live;
    show("duel");
    render();
    await conn.request("resume", { duel_id: live.id, after_seq: after });
  } else if (!$("screen-duel").hidden || !$("screen-auth").hidden || !$("screen-matching").hidden) {
    goHome();
  }
}

function onDown() {
  if (state.player) status("Reconnecting…");
}

// ---- auth ----

$("auth-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("login"); });
$("signup").addEventListener("click", () => authenticate("signup"));

async function authenticate(op) {
  const username = $("username").value.trim();
  const password = $("password").value;
  $("auth-error").textContent = "";
  const reply = await conn.request(op, { username, password });
  if (reply.op !== "reply") { $("auth-error").textContent = reply.message; return; }
  state.token = reply.data.token;
  localStorage.setItem("quizduel.token", state.token);
  state.player = reply.data.player;
  goHome();
}

$("logout").addEventListener("click", async () => {
  await conn.request("logout");
  localStorage.removeItem("quizduel.token");
  Object.assign(state, { token: null, player: null, duel: null, duelId: null });
  show("auth");
});

// ---- home and matching ----

async function goHome() {
  show("home");
  $("me").textContent = state.player ? `Signed in as ${state.player.username}` : "";
  const reply = await conn.request("banks");
  if (reply.op !== "reply") return;
  state.banks = reply.data.banks;
  const list = $("banks");
  list.replaceChildren(...state.banks.map((b) => el("li", {},
    el("span", {}, el("strong", {}, b.title), el("br"), el("span", { class: "muted" }, `${b.questions} questions · rating ${state.player?.ratings?.[b.slug] ?? 1500}`)),
    el("button", { class: "primary", "data-bank": b.slug, "aria-label": `Ranking: play ${b.title}`, onclick: () => queue(b) }, "Ranking"))));
}

async function queue(bank) {
  state.bank = bank;
  const reply = await conn.request("queue", { bank: bank.slug });
  if (reply.op !== "reply" && reply.code !== "already_queued") { status(reply.message); setTimeout(() => status(""), 3000); return; }
  $("matching-bank").textContent = bank.title;
  show("matching");
}

$("cancel").addEventListener("click", async () => {
  const reply = await conn.request("cancel");
  if (reply.op === "reply") goHome();
});

// ---- the duel ----

function onEvent(event) {
  if (event.event === "queued") return;
  if (state.duelId && event.duel_id !== state.duelId && event.event !== "init") return;
  if (event.event === "init") {
    state.duelId = event.duel_id;
    state.lastSeq = 0;
    state.verdicts = {};
    state.myPick = null;
  }
  if (event.seq <= state.lastSeq) return; // already seen (e.g. replayed by resume)
  if (event.seq > state.lastSeq + 1 && state.lastSeq > 0) {
    conn.request("resume", { duel_id: state.duelId, after_seq: state.lastSeq }); // fill the gap
    return;
  }
  state.lastSeq = event.seq;
  state.duel = event.record;
  if (event.event === "question") { state.myPick = null; }
  if (event.event === "complete") { finish(event.record); return; }
  if ($("screen-duel").hidden) show("duel");
  render(event.event);
}

function me() { return state.duel.players.find((p) => p.id === state.player.id); }
function opponent() { return state.duel.players.find((p) => p.id !== state.player.id); }

function render(kind) {
  const d = state.duel;
  if (!d || !state.player) return;
  const mine = me(), theirs = opponent();
  $("me-name").textContent = mine.username;
  $("opp-name").textContent = theirs.username;
  $("me-score").textContent = mine.score;
  $("opp-score").textContent = theirs.score;
  $("opp-box").classList.toggle("offline", !theirs.connected);
  $("progress").textContent = d.question ? `Question ${d.question.index + 1} / ${d.question_count}` : `${d.question_count} questions`;
  clearInterval(state.timer);
  if (d.state === "countdown") {
    $("question-area").hidden = true;
    $("countdown").hidden = false;
    state.timer = setInterval(() => {
      const left = Math.max(1, Math.ceil((state.countdownEnds - conn.serverNow()) / 1000));
      $("countdown").textContent = left;
    }, 100);
    state.countdownEnds = conn.serverNow() + 3000;
    $("countdown").textContent = "3";
    return;
  }
  $("countdown").hidden = true;
  $("question-area").hidden = false;
  const q = d.question;
  $("prompt").textContent = q.prompt;
  const revealed = d.reveal && d.reveal.question_index === q.index ? d.reveal : null;
  const myAnswer = d.answers.find((a) => a.player === mine.id);
  const theirAnswer = d.answers.find((a) => a.player === theirs.id);
  const pick = revealed ? revealed.choices[mine.id] : (state.myPick && state.myPick.index === q.index ? state.myPick.choice : null);
  const locked = revealed || myAnswer || (theirAnswer && theirAnswer.correct);
  $("choices").replaceChildren(...q.choices.map((text, i) => {
    const b = el("button", { "data-choice": i, "aria-label": `${String.fromCharCode(65 + i)}: ${text}`, onclick: () => answer(i) },
      el("span", { class: "key" }, `${String.fromCharCode(65 + i)}`), text);
    if (locked) b.disabled = true;
    if (pick === i) b.classList.add(myAnswer?.correct || (revealed && revealed.correct_choice === i) ? "picked-right" : "picked-wrong");
    if (revealed && revealed.correct_choice === i) { b.classList.add("correct"); b.setAttribute("aria-description", "correct answer"); }
    return b;
  }));
  let opp = "";
  if (theirAnswer) opp = theirAnswer.correct ? `${theirs.username} answered correctly` : `${theirs.username} answered wrong`;
  else if (!revealed) opp = `${theirs.username} is thinking…`;
  $("opponent-state").textContent = opp;
  let verdict = "";
  if (myAnswer) verdict = myAnswer.correct ? `Correct! +${state.verdicts[q.index]?.points ?? ""}` : "Wrong";
  else if (theirAnswer && theirAnswer.correct) verdict = "Locked out: your opponent was faster";
  else if (revealed) verdict = "Time's up";
  $("verdict").textContent = verdict;
  if (revealed) {
    $("timer-bar").style.width = "0%";
    $("timer-text").textContent = "Reveal";
  } else {
    const tick = () => {
      const total = q.deadline_ms - q.opens_at_ms;
      const left = Math.max(0, q.deadline_ms - conn.serverNow());
      $("timer-bar").style.width = `${(100 * left) / total}%`;
      $("timer-text").textContent = `${Math.ceil(left / 1000)} s`;
    };
    tick();
    state.timer = setInterval(tick, 100);
  }
}

async function answer(choice) {
  const d = state.duel;
  if (!d || d.state !== "question" || !d.question) return;
  const index = d.question.index;
  if (state.myPick && state.myPick.index === index) return;
  state.myPick = { index, choice };
  const reply = await conn.request("answer", { duel_id: state.duelId, question_index: index, choice });
  if (reply.op === "reply") state.verdicts[index] = reply.data;
  else if (reply.code === "locked_out") $("verdict").textContent = "Locked out: your opponent was faster";
  else if (reply.code === "too_late") $("verdict").textContent = "Too late";
  render();
  if (reply.op === "reply") {
    const button = document.querySelector(`#choices button[data-choice="${choice}"]`);
    if (button) button.classList.add(reply.data.correct ? "picked-right" : "picked-wrong");
    $("verdict").textContent = reply.data.correct ? `Correct! +${reply.data.points}` : "Wrong";
  }
}

document.addEventListener("keydown", (e) => {
  if ($("screen-duel").hidden || e.altKey || e.ctrlKey || e.metaKey) return;
  const key = e.key.toUpperCase();
  let index = -1;
  if (/^[1-6]$/.test(key)) index = Number(key) - 1;
  else if (/^[A-F]$/.test(key)) index = key.charCodeAt(0) - 65;
  if (index >= 0 && state.duel?.question && index < state.duel.question.choices.length) answer(index);
});

$("report").addEventListener("click", async () => {
  const q = state.duel?.question;
  if (!q) return;
  const reason = prompt("What is wrong with this question?");
  if (!reason) return;
  const reply = await conn.request("report", { question_id: q.question_id, reason: reason.slice(0, 500) });
  $("verdict").textContent = reply.op === "reply" ? "Thanks, reported." : reply.message;
});

function finish(record) {
  clearInterval(state.timer);
  const result = record.result;
  const mine = record.players.find((p) => p.id === state.player.id);
  const theirs = record.players.find((p) => p.id !== state.player.id);
  const title = result.winner === null ? "Draw" : result.winner === mine.id ? "You win!" : "You lose";
  $("end-title").textContent = title;
  const why = result.reason === "forfeit" ? " (forfeit)" : result.reason === "abandoned" ? " (opponent left)" : "";
  $("end-score").textContent = `${mine.score} : ${theirs.score}${why}`;
  const r = result.ratings[mine.id];
  $("end-rating").textContent = `Rating ${r.before} → ${r.after}`;
  state.lastSeq = record && state.lastSeq;
  show("end");
}

$("again").addEventListener("click", () => { if (state.bank) queue(state.bank); else goHome(); });
$("back").addEventListener("click", goHome);

// ---- other screens ----

for (const b of document.querySelectorAll("[data-go]")) {
  b.addEventListener("click", () => ({ home: goHome, leaderboard: leaderboard, profile: profile, history: history, mistakes: mistakes })[b.dataset.go]());
}

async function leaderboard() {
  show("leaderboard");
  if (!state.banks.length) state.banks = (await conn.request("banks")).data?.banks ?? [];
  const select = $("lb-bank");
  if (!select.options.length) {
    select.replaceChildren(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
    select.addEventListener("change", leaderboardList);
  }
  leaderboardList();
}

async function leaderboardList() {
  const reply = await conn.request("leaderboard", { bank: $("lb-bank").value, limit: 20 });
  const entries = reply.data?.entries ?? [];
  $("lb-list").replaceChildren(...(entries.length ? entries.map((e) => el("li", {}, `${e.username} — ${e.rating} (${e.wins}/${e.games} won)`))
    : [el("li", { class: "muted" }, "Nobody has finished a duel here yet.")]));
}

async function profile() {
  show("profile");
  const p = (await conn.request("profile")).data?.player;
  if (!p) return;
  const facts = [["Username", p.username], ["Games", p.games], ["Wins", p.wins], ["Losses", p.losses], ["Draws", p.draws], ["Total score", p.total_score],
    ...Object.entries(p.ratings).map(([bank, rating]) => [`Rating: ${bank}`, rating])];
  $("profile").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

async function history() {
  show("history");
  const duels = (await conn.request("history", { limit: 20 })).data?.duels ?? [];
  $("history").replaceChildren(...(duels.length ? duels.map((d) => {
    const mine = d.players.find((p) => p.id === state.player.id), theirs = d.players.find((p) => p.id !== state.player.id);
    const outcome = d.result.winner === null ? "draw" : d.result.winner === mine.id ? "won" : "lost";
    return el("li", {}, `${d.bank}: ${outcome} ${mine.score}:${theirs.score} against ${theirs.username}`);
  }) : [el("li", { class: "muted" }, "No finished duels yet.")]));
}

async function mistakes() {
  show("mistakes");
  const questions = (await conn.request("mistakes", { limit: 50 })).data?.questions ?? [];
  $("mistakes").replaceChildren(...(questions.length ? questions.map((q) => el("li", {},
    el("strong", {}, q.prompt), el("br"),
    `Right answer: ${q.choices[q.correct_choice]}`,
    q.your_choice === null ? " · you did not answer" : ` · you said: ${q.choices[q.your_choice]}`))
    : [el("li", { class: "muted" }, "No mistakes yet.")]));
}
