// The "versus" card of a game's countdown: the bank (in its colour), every player's name, level
// (when known) and rating (the record's, in the game's bank before the game). Other players'
// levels come from their profiles, read once per player. A recorded opponent has no profile and
// no rating that counts: its card says what it is, and the card says the game is not rated.
import { client } from "../connection.js";
import { $, el, textOn } from "../ui.js";
import { t } from "../i18n.js";
import { state } from "../store.js";
import { initials, isSolo, isRecordedGame, isRecording, playerName, recordingKind } from "../records.js";
import { bankChip } from "../banks.js";
import { icon } from "../icons.js";

/** @type {Map<string, Object | null>} player id -> profile (null while it is being read) */
const profiles = new Map();

function levelOf(player) {
  if (player.id === state.player?.id) return state.player;
  if (isRecording(player)) return null; // no account behind it: nothing to read
  if (!profiles.has(player.id)) {
    profiles.set(player.id, null);
    client.profile(player.id).then((d) => {
      profiles.set(player.id, d.player);
      const d2 = state.duel;
      if (d2 && d2.state === "countdown" && d2.players.some((p) => p.id === player.id)) renderVersus(d2);
    }, () => {});
  }
  return profiles.get(player.id);
}

// A recorded opponent: a replay icon (not a person's initials), its name and a tag that says
// what it is (the line under the cards says more).
function recordingCard(p, i) {
  return el("li", { class: "versus-player recording", "data-recording": recordingKind(p) },
    el("span", { class: `avatar seat-${i}`, "aria-hidden": "true" }, icon("replay", "icon avatar-icon")),
    el("strong", { class: "versus-name" }, playerName(p)),
    el("span", { class: "muted versus-tag" }, t("duel.recordedTag")));
}

function card(p, i, solo) {
  if (isRecording(p)) return recordingCard(p, i);
  const me = p.id === state.player?.id;
  const profile = levelOf(p);
  const level = profile?.level;
  return el("li", { class: `versus-player${me ? " me" : ""}` },
    el("span", { class: `avatar seat-${i}`, "aria-hidden": "true" }, initials(p.username)),
    el("strong", { class: "versus-name" }, me ? t("duel.youName", { name: p.username }) : p.username),
    level ? el("span", { class: "level-chip", style: `background:${profile.level_color ?? "#4b5563"};color:${textOn(profile.level_color)}` },
      t("duel.level", { level })) : null,
    solo || isRecordedGame(state.duel) ? null : el("span", { class: "muted" }, t("duel.rating", { rating: p.rating })));
}

export function renderVersus(d) {
  const solo = isSolo(d);
  const items = d.players.map((p, i) => card(p, i, solo));
  // Two players: "A VS B"; more: a row of them.
  if (d.players.length === 2) items.splice(1, 0, el("li", { class: "vs", "aria-hidden": "true" }, t("duel.vs")));
  $("versus-players").replaceChildren(...items);
  $("versus-players").setAttribute("aria-label", solo ? t("duel.practice")
    : t("duel.versusLabel", { names: d.players.map(playerName).join(", ") }));
  $("versus-bank").replaceChildren(bankChip(d.bank));
  const recording = d.players.find(isRecording);
  $("versus-note").hidden = !recording;
  $("versus-note").textContent = !recording ? "" : t(recordingKind(recording) === "house" ? "recorded.houseLine" : "recorded.pastLine");
}
