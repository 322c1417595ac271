// The friends screen: challenges sent and received (with the nav's badge), challenging a player,
// and the forms to open or join a room (handled in room.js).
import { client } from "../connection.js";
import { $, el, flash, note } from "../ui.js";
import { show, route } from "../router.js";
import { state, subscribe, setChallenges, addChallenge, dropChallenge } from "../store.js";
import { fillBankSelects } from "../banks.js";
import { showRoom, roomError } from "./room.js";

export async function friends() {
  if (state.room) { showRoom(state.room); return; }
  show("friends");
  note("friends-note", "");
  await fillBankSelects(document.querySelectorAll(".bank-select"));
  renderInbox();
}

route("friends", friends);

// ---- challenges ----

function badge() {
  const received = state.challenges.filter((c) => c.state === "pending" && c.to.id === state.player?.id).length;
  $("inbox-badge").hidden = received === 0;
  $("inbox-badge").textContent = String(received);
}

// Every change of the challenges (a reply, an event, signing out) redraws the badge and the inbox.
subscribe("challenges", () => { badge(); renderInbox(); });

export async function refreshChallenges() {
  const list = await client.challenges().then((d) => d.challenges, () => null);
  if (!list) return;
  setChallenges(list);
}

client.on("challenge", (event) => {
  const c = event.record;
  if (c.state === "pending") addChallenge(c); else dropChallenge(c.id);
  if (c.state === "pending" && c.to.id === state.player?.id) flash(`${c.from.username} challenges you (${c.bank})`);
  if (c.state === "declined" && c.from.id === state.player?.id) flash(`${c.to.username} declined your challenge`);
  if (c.state === "expired") flash("A challenge expired");
});

function renderInbox() {
  const me = state.player?.id;
  const items = state.challenges.map((c) => {
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
  dropChallenge(id);
}

$("challenge-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const { challenge } = await client.challenge($("challenge-name").value.trim(), $("challenge-bank").value);
    addChallenge(challenge);
    note("friends-note", `Challenge sent to ${challenge.to.username}`);
  } catch (error) {
    note("friends-note", error.code === "unknown_player" ? "No player has that name" : error.message);
  }
});
