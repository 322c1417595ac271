// Rooms of 2-4 friends by invite code: the lobby screen, and opening, joining (by code or a
// shared link), starting and leaving a room.
import { client } from "../connection.js";
import { $, el, flash, note } from "../ui.js";
import { show, shown, go, visibleNote } from "../router.js";
import { state, setRoom, takeJoinCode, leftRoomGame } from "../store.js";
import { initials } from "../records.js";
import { bankChip } from "../banks.js";
import { t } from "../i18n.js";
import { errorText } from "../errors.js";

// Errors of rooms and challenges: every code has its sentence (errors.js). The server's
// message for in_duel and already_queued names the busy member, but in English: not shown.
export function roomError(error) { return errorText(error); }

// A shared link (/?room=CODE): join that room once signed in. Returns whether it tried.
export function joinLinkedRoom() {
  if (!state.joinCode || !state.player) return false;
  const code = takeJoinCode();
  window.history.replaceState(null, "", location.pathname);
  joinRoom(code);
  return true;
}

async function joinRoom(code) {
  try {
    showRoom((await client.roomJoin(code)).room);
  } catch (error) {
    await go("friends");
    note("friends-note", roomError(error));
  }
}

function roomLink(code) { return `${location.origin}/?room=${code}`; }

// The room record from a reply or a `room` event; the lobby shows it when it is on screen.
function roomChanged(room) {
  setRoom(room);
  if (shown("room")) { if (state.room) renderRoom(); else go("friends"); }
}

export function showRoom(room) {
  roomChanged(room);
  if (!state.room) return;
  note("room-note", "");
  show("room");
  renderRoom();
}

function renderRoom() {
  const r = state.room;
  $("room-code-shown").textContent = r.code;
  $("room-bank-shown").replaceChildren(bankChip(r.bank));
  $("room-link").href = roomLink(r.code);
  $("room-link").textContent = roomLink(r.code);
  const seats = [];
  for (let i = 0; i < r.max_players; i++) {
    const m = r.members[i];
    if (!m) { seats.push(el("li", { class: "empty" }, el("span", { class: "dot", "aria-hidden": "true" }, "·"), t("room.waitingSeat"))); continue; }
    const tags = [m.id === r.host ? t("room.host") : "", m.id === state.player.id ? t("room.you") : "", m.connected ? "" : t("room.offline")].filter(Boolean);
    seats.push(el("li", { "data-member": m.id }, el("span", { class: `dot seat-${i}`, "aria-hidden": "true" }, initials(m.username)),
      el("span", {}, m.username, tags.length ? el("span", { class: "muted" }, ` (${tags.join(", ")})`) : "")));
  }
  $("seats").replaceChildren(...seats);
  const host = r.host === state.player.id;
  $("room-start").hidden = !host;
  $("room-start").disabled = r.members.length < 2 || r.state === "playing";
  if (!host) note("room-note", r.state === "playing" ? t("room.gameOn") : t("room.hostStarts"));
  else if (r.members.length < 2) note("room-note", t("room.shareHint"));
  else if ($("room-note").textContent === t("room.shareHint")) note("room-note", ""); // a friend came: the hint did its job
}

client.on("room", (event) => {
  roomChanged(event.record);
  // A game began: its init opens the game screen. A rematch started by the host, too.
});

// The forms to open and join a room are on the friends screen.
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

export async function startRoomGame() {
  try { await client.roomStart(); } catch (error) {
    const where = visibleNote() ?? "room";
    note(`${where}-note`, roomError(error));
  }
}

$("room-leave").addEventListener("click", async () => {
  // Leaving during the room's game forfeits it: its remaining events are not mine any more.
  if (state.room?.state === "playing") leftRoomGame(state.room.duel_id);
  try { await client.roomLeave(); } catch { /* not in a room any more */ }
  setRoom(null);
  go("friends");
});

$("room-copy").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("room-link").href); flash(t("room.copied")); } catch { flash($("room-link").href); }
});

// Phones share the link with their own sheet (messengers, mail), where the browser offers one.
$("room-share").hidden = typeof navigator.share !== "function";
$("room-share").addEventListener("click", () => {
  const r = state.room;
  if (!r) return;
  navigator.share({ title: t("app.name"), text: t("room.shareText", { bank: bankTitle(r.bank), code: r.code }), url: roomLink(r.code) })
    .catch(() => { /* dismissed */ });
});
