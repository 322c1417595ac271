// The ranking screen: a bank's best ratings.
import { client } from "../connection.js";
import { $, el } from "../ui.js";
import { show, route } from "../router.js";
import { fillBankSelects } from "../banks.js";

export async function leaderboard() {
  show("leaderboard");
  await fillBankSelects([$("lb-bank")]);
  leaderboardList();
}

route("leaderboard", leaderboard);

$("lb-bank").addEventListener("change", leaderboardList);

async function leaderboardList() {
  const entries = await client.leaderboard($("lb-bank").value, 20).then((d) => d.entries, () => []);
  $("lb-list").replaceChildren(...(entries.length ? entries.map((e) => el("li", {}, `${e.username} — ${e.rating} (${e.wins}/${e.games} won)`))
    : [el("li", { class: "muted" }, "Nobody has finished a duel here yet.")]));
}
