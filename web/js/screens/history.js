// What I played: the history screen (finished games) and the mistakes notebook (with its practice).
import { client } from "../connection.js";
import { $, el, note } from "../ui.js";
import { show, route } from "../router.js";
import { isSolo, sides, keyText, answerText } from "../records.js";
import { practise } from "./home.js";

export async function history() {
  show("history");
  const duels = await client.history(20).then((d) => d.duels, () => []);
  $("history").replaceChildren(...(duels.length ? duels.map((d) => {
    const { mine, theirs } = sides(d);
    if (isSolo(d) || !theirs) return el("li", {}, `${d.bank}: practice, ${mine.score} points (not rated)`);
    if (d.players.length > 2) return el("li", {}, `${d.bank}: room game, placed ${d.result.placements[mine.id]} of ${d.players.length} with ${mine.score} points`);
    const outcome = d.result.winner === null ? "draw" : d.result.winner === mine.id ? "won" : "lost";
    return el("li", {}, `${d.bank}: ${outcome} ${mine.score}:${theirs.score} against ${theirs.username}`);
  }) : [el("li", { class: "muted" }, "No finished duels yet.")]));
}

route("history", history);

export async function mistakes() {
  show("mistakes");
  note("mistakes-note", "");
  const data = await client.mistakes(50).catch(() => null);
  const questions = data?.questions ?? [];
  $("learned").textContent = data ? `${data.learned_count} learned` : "";
  $("mistakes").replaceChildren(...(questions.length ? questions.map((q) => el("li", {},
    el("strong", {}, q.prompt), el("br"),
    keyText(q, q.choices), ` · ${answerText(q.your_answer ?? (q.your_choice === null ? null : { choice: q.your_choice }), q.choices)}`))
    : [el("li", { class: "muted" }, data?.learned_count ? "Nothing left to practise: you learned them all." : "No mistakes yet.")]));
}

route("mistakes", mistakes);

$("practise-mistakes").addEventListener("click", () => practise({ mistakes: true }));
