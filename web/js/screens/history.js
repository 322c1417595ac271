// What I played: the history screen (finished games) and the mistakes notebook (with its practice).
import { client } from "../connection.js";
import { $, el, fillList, note } from "../ui.js";
import { show, route } from "../router.js";
import { isSolo, isRecordedGame, sides, keyText, answerText } from "../records.js";
import { bankTitle, ensureBanks, paintBank } from "../banks.js";
import { t } from "../i18n.js";
import { practise } from "./home.js";

function historyLine(d) {
  const { mine, theirs } = sides(d);
  const bank = bankTitle(d.bank);
  if (isSolo(d) || !theirs) return t("history.practice", { bank, count: mine.score });
  if (d.players.length > 2) {
    return t("history.room", { bank, place: d.result.placements[mine.id], players: d.players.length, count: mine.score });
  }
  const outcome = d.result.winner === null ? 0 : d.result.winner === mine.id ? 1 : 2;
  // Against a recording: said as such (never as a person's name), and not rated.
  const keys = isRecordedGame(d) ? ["history.recordedDraw", "history.recordedWon", "history.recordedLost"]
    : ["history.draw", "history.won", "history.lost"];
  return t(keys[outcome], { bank, mine: mine.score, theirs: theirs.score, name: theirs.username });
}

export async function history() {
  show("history");
  const [duels] = await Promise.all([client.history(20).then((d) => d.duels, () => []), ensureBanks()]);
  // Each game with its bank's colour as a stripe.
  fillList($("history"), duels.map((d) => paintBank(el("li", { class: `history-${d.mode} bank-stripe` }, historyLine(d)), d.bank)),
    { empty: t("history.empty") });
}

route("history", history);

export async function mistakes() {
  show("mistakes");
  note("mistakes-note", "");
  const data = await client.mistakes(50).catch(() => null);
  const questions = data?.questions ?? [];
  $("learned").textContent = data ? t("mistakes.learned", { count: data.learned_count }) : "";
  fillList($("mistakes"), questions.map((q) => el("li", {},
    el("strong", {}, q.prompt), el("br"),
    keyText(q, q.choices),
    ` · ${answerText(q.your_answer ?? (q.your_choice === null || q.your_choice === undefined ? null : { choice: q.your_choice }), q.choices, q.type)}`)),
  { empty: data?.learned_count ? t("mistakes.allLearned") : t("mistakes.empty") });
}

route("mistakes", mistakes);

$("practise-mistakes").addEventListener("click", () => practise({ mistakes: true }));
