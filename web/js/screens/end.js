// The end screen of a game (duel, room game, practice), with what comes next: play again, a
// rematch, back.
import { client } from "../connection.js";
import { $, el, note } from "../ui.js";
import { show, shown, go } from "../router.js";
import { state, setPractice } from "../store.js";
import { isSolo, sides } from "../records.js";
import { practise, queue } from "./home.js";
import { showRoom, startRoomGame } from "./room.js";

export function finish(record) {
  note("end-note", "");
  $("end-places").hidden = true;
  $("rematch").hidden = true;
  $("rematch").disabled = false;
  if (isSolo(record)) { finishPractice(record); return; }
  if (record.mode === "room" || record.players.length > 2) { finishRoomGame(record); return; }
  $("again").textContent = "Play again";
  $("again").hidden = record.mode === "challenge";
  $("rematch").hidden = record.mode !== "ranked" || record.result.reason === "ended";
  const result = record.result;
  const { mine, theirs } = sides(record);
  // An operator may end a stuck duel: no winner, and nothing rated (reason "ended").
  const title = result.reason === "ended" ? "Duel ended" : result.winner === null ? "Draw" : result.winner === mine.id ? "You win!" : "You lose";
  $("end-title").textContent = title;
  const why = result.reason === "forfeit" ? " (forfeit)" : result.reason === "abandoned" ? " (opponent left)"
    : result.reason === "ended" ? " (ended by the organisers; not rated)" : "";
  $("end-score").textContent = `${mine.score} : ${theirs.score}${why}`;
  const r = result.ratings[mine.id];
  $("end-rating").textContent = `Rating ${r.before} → ${r.after}`;
  show("end");
}

// A room's game: the end screen by placement ("You win", "You are one of the winners", "You lost").
function finishRoomGame(record) {
  const places = record.result.placements;
  const me = state.player.id;
  const firsts = Object.values(places).filter((p) => p === 1).length;
  $("end-title").textContent = record.result.reason === "ended" ? "Game ended"
    : places[me] === 1 ? (firsts > 1 ? "You are one of the winners" : "You win!") : "You lost";
  $("end-score").textContent = `You placed ${places[me]} of ${record.players.length}`;
  $("end-rating").textContent = "Among friends: not rated";
  const ranked = [...record.players].sort((a, b) => places[a.id] - places[b.id]);
  $("end-places").replaceChildren(...ranked.map((p) => el("li", { "data-place": places[p.id] },
    `${places[p.id]}. ${p.username}: ${p.score}${p.id === me ? " (you)" : ""}`)));
  $("end-places").hidden = false;
  const host = state.room?.host === me;
  $("again").hidden = !host;
  $("again").textContent = "Rematch";
  if (!host) note("end-note", state.room ? "Waiting for the host to start the rematch…" : "");
  show("end");
}

function finishPractice(record) {
  const mine = sides(record).mine ?? record.players[0];
  if (!state.practice) setPractice({ bank: record.bank }); // e.g. a game resumed after a reload
  $("end-title").textContent = record.result.reason === "completed" ? "Practice complete" : "Practice ended";
  $("end-score").textContent = `Score ${mine.score} · ${state.rightCount} of ${record.question_count} right`;
  $("end-rating").textContent = "Practice: not rated";
  $("again").textContent = "Practise again";
  $("again").hidden = false;
  show("end");
}

$("again").addEventListener("click", () => {
  if (isSolo(state.duel)) practise(state.practice ?? { bank: state.duel.bank });
  else if (state.duel?.mode === "room") startRoomGame();
  else if (state.bank) queue(state.bank);
  else go("home");
});
$("back").addEventListener("click", () => {
  if (state.room) showRoom(state.room);
  else if (isSolo(state.duel) && state.practice?.mistakes) go("mistakes"); else go("home");
});

// ---- rematch after a ranked duel ----

client.on("rematch", (event) => {
  const r = event.record;
  if (r.duel_id !== state.duelId || !shown("end")) return;
  if (r.state === "offered" && r.from !== state.player?.id) note("end-note", "Your opponent wants a rematch");
  if (r.state === "expired") { note("end-note", "The rematch offer expired"); $("rematch").disabled = false; }
});

$("rematch").addEventListener("click", async () => {
  const id = state.duelId;
  $("rematch").disabled = true;
  try {
    const reply = await client.rematch(id);
    if (reply.state === "offered") note("end-note", "Rematch offered: waiting for your opponent");
  } catch (error) {
    note("end-note", error.message);
    $("rematch").disabled = false;
  }
});
