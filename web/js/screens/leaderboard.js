// The leaderboard: a bank's best ratings. It opens on the bank of the game played last (else
// on the bank the player last looked at here).
import { client } from "../connection.js";
import { $, el, fillList } from "../ui.js";
import { show, route } from "../router.js";
import { state } from "../store.js";
import { fillBankSelects, paintBank } from "../banks.js";
import { t } from "../i18n.js";

let openedAfter = null; // the game the board last opened on the bank of, so the player's own choice stands until the next game

export async function leaderboard() {
  show("leaderboard");
  await fillBankSelects([$("lb-bank")]);
  const played = state.lastBank;
  if (played && state.duelId !== openedAfter && [...$("lb-bank").options].some((o) => o.value === played)) {
    $("lb-bank").value = played;
    openedAfter = state.duelId;
  }
  leaderboardList();
}

route("leaderboard", leaderboard);

$("lb-bank").addEventListener("change", leaderboardList);

async function leaderboardList() {
  const bank = $("lb-bank").value;
  const entries = bank ? await client.leaderboard(bank, 20).then((d) => d.entries, () => []) : [];
  paintBank($("lb-list"), bank); // the rows' stripe: the bank's colour
  const me = state.player?.id;
  const list = fillList($("lb-list"), entries.map((e) => el("li", { class: e.player === me ? "me" : "", value: String(e.rank) },
    el("span", { class: "rank", "aria-hidden": "true" }, String(e.rank)),
    el("span", { class: "who" }, e.player === me ? t("duel.youName", { name: e.username }) : e.username),
    el("span", { class: "rating" }, String(e.rating)),
    el("span", { class: "muted games" }, t("leaderboard.won", { wins: e.wins, count: e.games })))),
  { ordered: true, empty: t("leaderboard.empty"), listClass: "board-list" });
  if (list) list.setAttribute("aria-label", t("leaderboard.listLabel"));
}
