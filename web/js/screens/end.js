// The end screen of a game (duel, room game, practice, a recorded opponent): the bank in its
// colour, the placement, the points, the rating change (or why there is none), the XP gained
// with the level's progress, a recap of every question (my answer, the others', the key) from
// the reveals seen, and what comes next: play again, a rematch, a live opponent after a
// recorded one, the leaderboard of the bank just played, back.
import { client } from "../connection.js";
import { $, el, note } from "../ui.js";
import { show, shown, go } from "../router.js";
import { state, setPractice, updatePlayer } from "../store.js";
import { isSolo, isRecordedGame, playerName, sides, keyText, submissionText, revealedAnswer } from "../records.js";
import { bankChip } from "../banks.js";
import { t } from "../i18n.js";
import { errorText } from "../errors.js";
import { play } from "../sound.js";
import { practise, queue, playRecorded } from "./home.js";
import { showRoom, startRoomGame } from "./room.js";

export function finish(record) {
  note("end-note", "");
  $("end-places").hidden = true;
  $("end-place").hidden = true;
  $("end-xp").hidden = true;
  $("rematch").hidden = true;
  $("rematch").disabled = false;
  $("end-leaderboard").hidden = record.mode !== "ranked";
  // After a recorded opponent: a live one is a tap away (the queue may have someone now).
  $("end-live").hidden = !isRecordedGame(record) || !state.banks.some((b) => b.slug === record.bank);
  $("end-bank").replaceChildren(bankChip(record.bank));
  if (isSolo(record)) finishPractice(record);
  else if (record.mode === "room" || record.players.length > 2) finishRoomGame(record);
  else finishDuel(record);
  renderRecap(record);
  showXp();
  show("end");
}

function placement(record) {
  const place = record.result.placements?.[state.player.id];
  if (!place || record.result.reason === "ended") return;
  $("end-place").textContent = t("end.place", { place, count: record.players.length });
  $("end-place").className = `place-badge place-${Math.min(place, 4)}`;
  $("end-place").hidden = false;
}

function finishDuel(record) {
  $("again").textContent = t("end.playAgain");
  $("again").hidden = record.mode === "challenge";
  $("rematch").hidden = record.mode !== "ranked" || record.result.reason === "ended";
  const result = record.result;
  const { mine, theirs } = sides(record);
  // An operator may end a stuck duel: no winner, and nothing rated (reason "ended").
  const won = result.winner === mine.id;
  // Against a recording a first place is no win (PROTOCOL.md, `recorded`): the title says so.
  const [win, lose] = isRecordedGame(record) ? ["end.recordedWin", "end.recordedLose"] : ["end.youWin", "end.youLose"];
  $("end-title").textContent = result.reason === "ended" ? t("end.duelEnded")
    : result.winner === null ? t("end.draw") : t(won ? win : lose);
  const scoreKey = { forfeit: "end.scoreForfeit", abandoned: "end.scoreAbandoned", ended: "end.scoreEnded" }[result.reason] ?? "end.score";
  $("end-score").textContent = t(scoreKey, { mine: mine.score, theirs: theirs.score });
  const r = result.ratings[mine.id];
  const delta = r.after - r.before;
  if (isRecordedGame(record)) $("end-rating").textContent = t("end.notRatedRecorded");
  else if (!record.rated) $("end-rating").textContent = t("end.notRatedFriends"); // a challenge among friends
  else $("end-rating").replaceChildren(t("end.rating", { before: r.before, after: r.after }),
    delta !== 0 ? el("span", { class: `delta ${delta > 0 ? "up" : "down"}` }, ` (${delta > 0 ? "+" : "−"}${Math.abs(delta)})`) : "");
  placement(record);
  if (result.reason !== "ended") play(won ? "win" : "lose");
}

// A room's game: the end screen by placement ("You win", "You are one of the winners", "You lost").
function finishRoomGame(record) {
  const places = record.result.placements;
  const me = state.player.id;
  const firsts = Object.values(places).filter((p) => p === 1).length;
  $("end-title").textContent = record.result.reason === "ended" ? t("end.gameEnded")
    : places[me] === 1 ? (firsts > 1 ? t("end.oneOfWinners") : t("end.youWin")) : t("end.youLost");
  $("end-score").textContent = t("end.placed", { place: places[me], count: record.players.length });
  $("end-rating").textContent = t("end.notRatedFriends");
  const ranked = [...record.players].sort((a, b) => places[a.id] - places[b.id]);
  $("end-places").replaceChildren(...ranked.map((p) => el("li", { "data-place": places[p.id], class: p.id === me ? "me" : "" },
    t(p.id === me ? "end.placeLineYou" : "end.placeLine", { place: places[p.id], name: p.username, score: p.score }))));
  $("end-places").hidden = false; // the placement is the score line here: no badge as well
  const host = state.room?.host === me;
  $("again").hidden = !host;
  $("again").textContent = t("end.rematch");
  if (!host) note("end-note", state.room ? t("end.waitingForHost") : "");
  if (record.result.reason !== "ended") play(places[me] === 1 ? "win" : "lose");
}

function finishPractice(record) {
  const mine = sides(record).mine ?? record.players[0];
  if (!state.practice) setPractice({ bank: record.bank }); // e.g. a game resumed after a reload
  $("end-title").textContent = record.result.reason === "completed" ? t("end.practiceComplete") : t("end.practiceEnded");
  $("end-score").textContent = t("end.practiceScore", { score: mine.score, right: state.rightCount, count: record.question_count });
  $("end-rating").textContent = t("end.practiceNotRated");
  $("again").textContent = t("end.practiseAgain");
  $("again").hidden = false;
}

// Every question of the game as revealed: the prompt, my answer, the others', the key.
function renderRecap(record) {
  const recap = state.recap;
  $("end-recap-box").hidden = !recap.length;
  const me = state.player.id;
  const others = record.players.filter((p) => p.id !== me);
  $("end-recap").replaceChildren(...recap.map(({ question: q, reveal }) => {
    const type = q.type ?? "single";
    const line = (player, mine) => {
      const sent = revealedAnswer(reveal, player.id);
      const right = (reveal.points?.[player.id] ?? 0) > 0;
      const mark = sent ? (right ? "✓" : "✗") : "–";
      return el("li", { class: `recap-answer ${sent ? (right ? "good" : "bad") : "none"}` },
        el("span", { class: "mark", "aria-hidden": "true" }, mark),
        t(mine ? "recap.you" : "recap.other", { name: playerName(player), answer: submissionText(sent, q.choices, type) }),
        el("span", { class: "visually-hidden" }, ` (${sent ? t(right ? "recap.right" : "recap.wrong") : t("recap.noAnswer")})`),
        right ? el("span", { class: "muted" }, ` +${reveal.points[player.id]}`) : "");
    };
    const mine = record.players.find((p) => p.id === me);
    return el("li", { "data-question": String(q.index) },
      el("p", { class: "recap-prompt" }, q.prompt),
      el("ul", { class: "recap-answers" }, mine ? line(mine, true) : "", ...others.map((p) => line(p, false))),
      el("p", { class: "recap-key" }, keyText(reveal, q.choices)));
  }));
}

// XP gained and the level's progress: the profile read now, against my XP when the game began.
async function showXp() {
  const before = state.xpBefore;
  const player = await client.profile().then((d) => d.player, () => null);
  if (!player || player.xp === undefined || !shown("end")) return;
  updatePlayer(player);
  const gained = before === null ? null : player.xp - before;
  const span = Math.max(1, player.next_level_xp - player.level_xp);
  const done = player.xp - player.level_xp;
  $("end-xp-text").textContent = gained !== null && gained > 0
    ? t("end.xpGained", { xp: gained, level: player.level, next: player.next_level_xp - player.xp })
    : t("end.xpLevel", { level: player.level, next: player.next_level_xp - player.xp });
  $("end-xp-fill").style.width = `${Math.round((100 * done) / span)}%`;
  $("end-xp-bar").setAttribute("aria-valuenow", String(done));
  $("end-xp-bar").setAttribute("aria-valuemax", String(span));
  $("end-xp").hidden = false;
}

$("again").addEventListener("click", () => {
  if (isSolo(state.duel)) practise(state.practice ?? { bank: state.duel.bank });
  else if (isRecordedGame(state.duel)) playRecorded(state.duel.bank);
  else if (state.duel?.mode === "room") startRoomGame();
  else if (state.bank) queue(state.bank);
  else go("home");
});
$("back").addEventListener("click", () => {
  if (state.room) showRoom(state.room);
  else if (isSolo(state.duel) && state.practice?.mistakes) go("mistakes"); else go("home");
});
$("end-leaderboard").addEventListener("click", () => go("leaderboard"));
$("end-live").addEventListener("click", () => {
  const bank = state.banks.find((b) => b.slug === state.duel?.bank);
  if (bank) queue(bank);
});

// ---- rematch after a ranked duel ----

client.on("rematch", (event) => {
  const r = event.record;
  if (r.duel_id !== state.duelId || !shown("end")) return;
  if (r.state === "offered" && r.from !== state.player?.id) note("end-note", t("end.rematchWanted"));
  if (r.state === "expired") { note("end-note", t("end.rematchExpired")); $("rematch").disabled = false; }
});

$("rematch").addEventListener("click", async () => {
  const id = state.duelId;
  $("rematch").disabled = true;
  try {
    const reply = await client.rematch(id);
    if (reply.state === "offered") note("end-note", t("end.rematchOffered"));
  } catch (error) {
    note("end-note", errorText(error));
    $("rematch").disabled = false;
  }
});
