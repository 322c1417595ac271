// The start screen (the banks to play, the greeting) and the matching screen: queueing for a
// ranked duel, and asking for a practice game (from here, the mistakes notebook, the end screen
// or a quiz's page).
import { client } from "../connection.js";
import { $, el, flash, note } from "../ui.js";
import { show, route, visibleNote } from "../router.js";
import { state, setBanks, chooseBank, setPractice, setStarting } from "../store.js";
import { stopClock } from "../clock.js";
import { greet, refreshBadge } from "../progress.js";

export async function goHome() {
  stopClock();
  show("home");
  note("home-note", "");
  $("me").textContent = state.player ? `Signed in as ${state.player.username}` : "";
  // The greeting with the level (fresh: games since sign-in gave XP), and the bell's badge.
  greet(state.player);
  client.profile().then((d) => { greet(d.player); }, () => {});
  refreshBadge();
  sendTimeZone();
  try { setBanks((await client.banks()).banks); } catch { return; }
  const list = $("banks");
  list.replaceChildren(...state.banks.map((b) => el("li", {},
    el("span", { class: "bank" }, el("strong", {}, b.title), el("br"), el("span", { class: "muted" }, `${b.questions} questions · rating ${state.player?.ratings?.[b.slug] ?? 1500}`)),
    el("span", { class: "actions" },
      el("button", { "data-practice": b.slug, "aria-label": `Practice: play ${b.title} alone, not rated`, onclick: () => practise({ bank: b.slug }) }, "Practice"),
      el("button", { class: "primary", "data-bank": b.slug, "aria-label": `Ranking: play ${b.title}`, onclick: () => queue(b) }, "Ranking")))));
}

route("home", goHome);

// The browser's time zone, for streak days: sent once per player and zone (profile_update).
function sendTimeZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${state.player?.id}:${zone}`;
  if (!zone || !state.player || localStorage.getItem("quizduel.zone") === key) return;
  client.profileUpdate(zone).then(() => localStorage.setItem("quizduel.zone", key), () => {});
}

// ---- ranked: the queue and the matching screen ----

export async function queue(bank) {
  chooseBank(bank);
  try {
    await client.queue(bank.slug);
  } catch (error) {
    if (error.code !== "already_queued") { flash(error.message); return; }
  }
  $("matching-bank").textContent = bank.title;
  show("matching");
}

$("cancel").addEventListener("click", async () => {
  try { await client.cancel(); } catch { return; } // not_queued: matched already, init is coming
  goHome();
});

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
