// The start screen (the banks to play, with the player's own notes and colours, the greeting)
// and the matching screen: queueing for a ranked duel (with the time waited and, after a few
// seconds alone, something else to do: a recorded opponent, practice, a friend), and asking for
// a practice game (from here, the mistakes notebook, the end screen or a quiz's page) or a game
// against a recorded opponent (from the matching screen or the end of one).
import { client } from "../connection.js";
import { $, el, flash, note } from "../ui.js";
import { show, shown, route, visibleNote } from "../router.js";
import { state, subscribe, setBanks, chooseBank, setPractice, setStarting, updatePlayer } from "../store.js";
import { stopClock } from "../clock.js";
import { t } from "../i18n.js";
import { errorText } from "../errors.js";
import { bankChip, difficultyText, paintBank } from "../banks.js";
import { openBankNotes } from "../bank-notes.js";
import { greet, refreshBadge } from "../progress.js";
import { showRoom, roomError } from "./room.js";
import { tutorialOnce } from "../tutorial.js";

/** Seconds alone in the queue before the matching screen offers something else. */
const OFFER_AFTER_S = 5;

export async function goHome() {
  stopClock();
  show("home");
  note("home-note", "");
  $("me").textContent = state.player ? t("home.signedInAs", { name: state.player.username }) : "";
  // The greeting with the level (fresh: games since sign-in gave XP), and the bell's badge.
  greet(state.player);
  client.profile().then((d) => { updatePlayer(d.player); greet(d.player); }, () => {});
  refreshBadge();
  sendTimeZone();
  try { setBanks((await client.banks()).banks); } catch { return; }
  drawBanks();
  // A newcomer's first home screen: the tour, over the banks it talks about (drawn just above).
  if (shown("home")) tutorialOnce();
}

route("home", goHome);

function drawBanks() {
  $("banks").replaceChildren(...state.banks.map(bankCard));
  $("banks-empty").hidden = state.banks.length > 0;
}

// Notes and colours arrive after sign-in, and change in the notes dialog: the cards follow.
subscribe("bankPrefs", () => { if (shown("home")) drawBanks(); });

function bankCard(b) {
  const meta = [t("common.questions", { count: b.questions }), b.theme, difficultyText(b.difficulty)].filter(Boolean).join(" · ");
  const rating = state.player?.ratings?.[b.slug] ?? 1500;
  const mine = state.bankPref(b.slug)?.note;
  // The bank's colour (the player's, else its own) is the card's stripe, never behind text.
  return paintBank(el("li", { class: "bank-card bank-stripe", "data-bank-card": b.slug },
    el("span", { class: "bank" },
      el("strong", { class: "bank-title" }, b.title),
      b.description ? el("span", { class: "bank-description" }, b.description) : null,
      el("span", { class: "muted" }, `${meta} · ${t("home.rating", { rating })}`),
      // My own note, as I wrote it (text, never HTML): for me only, nobody else sees it.
      mine ? el("span", { class: "bank-note", "data-note": b.slug },
        el("span", { class: "visually-hidden" }, `${t("bankPrefs.yourNote")} `), mine) : null,
      el("button", { class: "link bank-notes-link", "data-notes": b.slug, "aria-label": t("bankPrefs.openLabel", { title: b.title }),
        onclick: () => openBankNotes(b.slug) }, t("bankPrefs.open"))),
    el("span", { class: "actions" },
      el("button", { "data-practice": b.slug, "aria-label": t("home.practiceLabel", { title: b.title }),
        disabled: b.questions > 0 ? null : "", onclick: () => practise({ bank: b.slug }) }, t("home.practice")),
      el("button", { class: "primary", "data-bank": b.slug, "aria-label": t("home.duelLabel", { title: b.title }),
        onclick: () => queue(b) }, t("home.duel")))), b.slug);
}

// The browser's time zone, for streak days: sent once per player and zone (profile_update).
function sendTimeZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${state.player?.id}:${zone}`;
  if (!zone || !state.player || localStorage.getItem("quizduel.zone") === key) return;
  client.profileUpdate(zone).then(() => localStorage.setItem("quizduel.zone", key), () => {});
}

// ---- ranked: the queue and the matching screen ----

const waiting = { since: 0, timer: undefined, bank: null };

export async function queue(bank) {
  chooseBank(bank);
  let since = client.serverNow();
  try {
    const reply = await client.queue(bank.slug);
    since = Date.parse(reply.queued_at) || since;
  } catch (error) {
    if (error.code !== "already_queued") { flash(errorText(error)); return; }
  }
  $("matching-bank").replaceChildren(bankChip(bank.slug));
  $("matching-offers").hidden = true;
  show("matching");
  startWaiting(bank, since);
}

// The time waited, every second, and after a few seconds the offers: practice, a friend.
function startWaiting(bank, since) {
  clearInterval(waiting.timer);
  Object.assign(waiting, { since, bank });
  const tick = () => {
    if (!shown("matching")) { clearInterval(waiting.timer); return; }
    const seconds = Math.max(0, Math.floor((client.serverNow() - waiting.since) / 1000));
    $("matching-time").textContent = t("matching.waited", { time: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}` });
    if (seconds >= OFFER_AFTER_S && $("matching-offers").hidden) $("matching-offers").hidden = false;
  };
  tick();
  waiting.timer = setInterval(tick, 1000);
}

/** Leaves the queue; false when a match was made meanwhile (its init is on the way). */
async function leaveQueue() {
  try {
    await client.cancel();
    clearInterval(waiting.timer);
    return true;
  } catch (error) {
    if (error.code !== "not_queued") flash(errorText(error)); // still queued: stay
    return false;
  }
}

$("cancel").addEventListener("click", async () => {
  if (await leaveQueue()) goHome();
});

// A recorded opponent instead: a duel for a player alone on the server. Waiting ends first
// (the server refuses `recorded` to a player in the queue: already_queued).
$("matching-recorded").addEventListener("click", async () => {
  const bank = waiting.bank;
  if (!bank || !(await leaveQueue())) return;
  playRecorded(bank.slug);
});

// Practice instead: the server serves one game at a time, so waiting ends first.
$("matching-practice").addEventListener("click", async () => {
  const bank = waiting.bank;
  if (!bank || !(await leaveQueue())) return;
  practise({ bank: bank.slug });
});

// A friend instead: a room of two on this bank, whose lobby has the link to share.
$("matching-invite").addEventListener("click", async () => {
  const bank = waiting.bank;
  if (!bank || !(await leaveQueue())) return;
  try {
    showRoom((await client.roomCreate(bank.slug, { max_players: 2 })).room);
  } catch (error) {
    await goHome();
    note("home-note", roomError(error));
  }
});

// ---- practice: one player, not rated ----

// The short message for a refused practice request.
function practiceError(error, what) {
  switch (error.code) {
    case "bank_empty": return what.mistakes ? t("practice.noMistakesLeft") : t("practice.bankEmpty");
    case "bad_request": return t("practice.pickBank");
    default: return errorText(error);
  }
}

export async function practise(what) {
  if (state.starting) return; // one request at a time: a double click must not start two
  const where = visibleNote();
  if (where) note(`${where}-note`, "");
  setStarting(true);
  try {
    setPractice(what);
    await client.practice(what); // the game's init follows and opens the game screen
  } catch (error) {
    const text = practiceError(error, what);
    if (where) note(`${where}-note`, text); else flash(text);
    if (error.code === "unknown_bank" && where === "home") goHome();
  } finally {
    setStarting(false);
  }
}

// ---- a recorded opponent: a past player's game replayed, or the house; not rated ----

/** Asks for a game against a recorded opponent in `bank`; its init opens the game screen. */
export async function playRecorded(bank) {
  if (state.starting) return; // one request at a time, as for practice
  const where = visibleNote();
  if (where) note(`${where}-note`, "");
  setStarting(true);
  try {
    await client.recorded(bank);
  } catch (error) {
    // From the matching screen (which it left) the note goes to the start screen.
    if (!where) await goHome();
    note(`${where ?? "home"}-note`, errorText(error));
  } finally {
    setStarting(false);
  }
}
