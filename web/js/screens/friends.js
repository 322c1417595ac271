// The friends screen: challenges sent and received (with the tab's badge), challenging a player,
// and the forms to open or join a room (handled in room.js).
import { client } from "../connection.js";
import { $, el, fillList, note, toast } from "../ui.js";
import { show, shown, route } from "../router.js";
import { state, subscribe, setChallenges, addChallenge, dropChallenge } from "../store.js";
import { fillBankSelects, bankTitle, ensureBanks, paintBank } from "../banks.js";
import { t } from "../i18n.js";
import { errorText } from "../errors.js";
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
  // The badge's number alone says little to a screen reader: the tab's name says it in words.
  if (received) $("friends-nav").setAttribute("aria-label", t("nav.friendsWaiting", { count: received }));
  else $("friends-nav").removeAttribute("aria-label");
}

// Every change of the challenges (a reply, an event, signing out) redraws the badge and the inbox.
subscribe("challenges", () => { badge(); if (shown("friends")) renderInbox(); });

export async function refreshChallenges() {
  const list = await client.challenges().then((d) => d.challenges, () => null);
  if (!list) return;
  await ensureBanks(); // titles, not slugs
  setChallenges(list);
}

client.on("challenge", (event) => {
  const c = event.record;
  if (c.state === "pending") addChallenge(c); else dropChallenge(c.id);
  if (c.state === "pending" && c.to.id === state.player?.id) {
    toast(t("friends.challengedYou", { name: c.from.username, bank: bankTitle(c.bank) }), { kind: "challenge", icon: "swords" });
  }
  if (c.state === "declined" && c.from.id === state.player?.id) toast(t("friends.declined", { name: c.to.username }), { kind: "info" });
  if (c.state === "expired") toast(t("friends.expired"), { kind: "info" });
});

function renderInbox() {
  const me = state.player?.id;
  // Each challenge with its bank's colour as a stripe.
  const items = state.challenges.map((c) => paintBank(challengeItem(c, me), c.bank));
  fillList($("inbox"), items, { empty: t("friends.noChallenges") });
}

function challengeItem(c, me) {
  if (c.to.id === me) {
    return el("li", { "data-challenge": c.id, class: "bank-stripe" }, t("friends.inboxReceived", { name: c.from.username, bank: bankTitle(c.bank) }), " ",
      el("span", { class: "inline-actions" },
        el("button", { class: "primary", "data-accept": c.id, onclick: () => acceptChallenge(c.id) }, t("friends.accept")), " ",
        el("button", { "data-decline": c.id, onclick: () => declineChallenge(c.id) }, t("friends.decline"))));
  }
  return el("li", { "data-challenge": c.id, class: "bank-stripe" }, t("friends.inboxSent", { name: c.to.username, bank: bankTitle(c.bank) }), " ",
    el("button", { class: "link", onclick: () => declineChallenge(c.id) }, t("friends.withdraw")));
}

async function acceptChallenge(id) {
  try { await client.challengeAccept(id); } catch (error) {
    note("friends-note", roomError(error));
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
    note("friends-note", t("friends.sent", { name: challenge.to.username }));
  } catch (error) {
    note("friends-note", errorText(error));
  }
});
