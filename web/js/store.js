// The page's one state store: what the client knows, read through `state` (getters only) and
// changed only by the named actions below, one home per change.
//
// Server records (player, duel, room, banks) are kept as received and handed out as they are:
// they are replaced whole, never edited. The collections the store edits itself (verdicts,
// reveals I got right, ticked boxes, challenges, quiz titles, bank notes) are handed out as copies, so a
// reader cannot change them behind the store's back.

const s = {
  player: null,
  banks: [],
  bank: null,        // the bank of the last ranked queue, for "Play again"
  duel: null,        // latest record
  duelId: null,
  myPick: null,      // {index, answer}: the answer sent to the open question (a choice or a Submission)
  checked: null,     // {duel, index, picks: Set}: the boxes ticked on an open "multiple" question, not sent yet
  verdicts: {},      // question index -> the reply to my answer, {correct, points}, or {code} if refused
  right: {},         // question index -> whether I got it right (from the reveals)
  practice: null,    // what the last practice game was asked for: {bank} or {mistakes: true}
  starting: false,   // a practice request is on its way
  room: null,        // the room record while I am a member
  leftDuel: null,    // the room game I left while it was on: its remaining events are not mine
  challenges: new Map(), // pending challenges by id (sent and received)
  joinCode: new URLSearchParams(location.search).get("room"), // a shared link's room, joined after sign-in
  quizTitles: {},    // quiz slug -> title, for naming a player quiz's room
  selected: null,    // {duel, index, choice}: the choice tapped but not submitted yet (the "select, then Submit" setting)
  recap: {},         // question index -> {question, reveal}: this game's questions as revealed, for the end screen
  lastBank: null,    // the bank of the game played last, for the leaderboard to open on
  xpBefore: null,    // my XP when this game began, for "+70 XP" at its end
  bankPrefs: new Map(), // bank slug -> {note, color}: my own note and colour per bank (private)
};

/** The state, read-only: assigning to it throws (modules are strict). */
export const state = Object.freeze({
  get player() { return s.player; },
  get banks() { return s.banks; },
  get bank() { return s.bank; },
  get duel() { return s.duel; },
  get duelId() { return s.duelId; },
  get myPick() { return s.myPick; },
  get practice() { return s.practice; },
  get starting() { return s.starting; },
  get room() { return s.room; },
  get leftDuel() { return s.leftDuel; },
  get joinCode() { return s.joinCode; },
  /** @returns {Object|undefined} the reply to my answer to question `index` of this game */
  verdict(index) { return s.verdicts[index]; },
  /** How many of this game's questions I got right (from the reveals). */
  get rightCount() { return Object.values(s.right).filter(Boolean).length; },
  /** The boxes ticked on question `index`, not sent yet (a copy), or null; ticksFor() starts them per game and question. */
  ticks(index) {
    const c = s.checked;
    return c && c.index === index ? new Set(c.picks) : null;
  },
  /** The pending challenges, sent and received (a copy). */
  get challenges() { return [...s.challenges.values()]; },
  get quizTitles() { return { ...s.quizTitles }; },
  /** The choice selected on question `index` and not submitted yet, or null. */
  selected(index) {
    const c = s.selected;
    return c && c.duel === s.duelId && c.index === index ? c.choice : null;
  },
  /** This game's revealed questions, in order: [{question, reveal}] (a copy). */
  get recap() { return Object.keys(s.recap).map(Number).sort((a, b) => a - b).map((i) => ({ ...s.recap[i] })); },
  get lastBank() { return s.lastBank; },
  get xpBefore() { return s.xpBefore; },
  /** My note and colour for bank `slug` ({note, color}, a copy), or null when I set neither. */
  bankPref(slug) {
    const p = s.bankPrefs.get(slug);
    return p ? { ...p } : null;
  },
});

// ---- subscribe / notify ----

/** @type {Map<string, Set<Function>>} */
const listeners = new Map();

/** Calls `callback()` after each change of `key` ("challenges" and "bankPrefs" are announced). */
export function subscribe(key, callback) {
  const set = listeners.get(key) ?? new Set();
  listeners.set(key, set);
  set.add(callback);
  return () => set.delete(callback);
}

function notify(key) {
  for (const callback of listeners.get(key) ?? []) callback();
}

// ---- session ----

export function signIn(player) { s.player = player; }

/** A fresher copy of my player (a profile read): XP, level, ratings. */
export function updatePlayer(player) {
  if (player && s.player && player.id === s.player.id) s.player = player;
}

/** Signed out: forget the player, the game, the room and the challenges. */
export function signOut() {
  Object.assign(s, { player: null, duel: null, duelId: null, room: null });
  s.challenges.clear();
  s.bankPrefs.clear();
  notify("challenges");
  notify("bankPrefs");
}

/** The shared link's room code, handed out once. */
export function takeJoinCode() {
  const code = s.joinCode;
  s.joinCode = null;
  return code;
}

// ---- banks and quizzes ----

export function setBanks(banks) { s.banks = banks; }

export function chooseBank(bank) { s.bank = bank; }

export function rememberQuizTitle(quiz) { s.quizTitles[quiz.quiz] = quiz.title; }

/** My notes and colours as the server lists them (`bank_prefs`), replacing what was kept. */
export function setBankPrefs(list) {
  s.bankPrefs = new Map(list.map((p) => [p.bank, { note: p.note ?? "", color: p.color ?? null }]));
  notify("bankPrefs");
}

/** One bank's note and colour as saved (`bank_pref_set`'s reply). */
export function setBankPref(pref) {
  s.bankPrefs.set(pref.bank, { note: pref.note ?? "", color: pref.color ?? null });
  notify("bankPrefs");
}

// ---- practice ----

export function setPractice(what) { s.practice = what; }

export function setStarting(on) { s.starting = on; }

// ---- the game on screen ----

function newDuel(id) {
  s.duelId = id;
  s.verdicts = {};
  s.right = {};
  s.myPick = null;
  s.selected = null;
  s.recap = {};
  s.xpBefore = s.player?.xp ?? null;
}

/** An event of a game (init, question, answered, reveal, complete), delivered in seq order. */
export function duelEvent(event) {
  if (event.event === "init" || event.duel_id !== s.duelId) newDuel(event.duel_id);
  s.duel = event.record;
  s.lastBank = event.record.bank;
  const reveal = event.record.reveal;
  if (reveal && s.player) s.right[reveal.question_index] = (reveal.points[s.player.id] ?? 0) > 0;
  // The question a reveal closes is the record's `question` (PROTOCOL.md, Events).
  if (reveal && event.record.question?.index === reveal.question_index) {
    s.recap[reveal.question_index] = { question: event.record.question, reveal };
  }
  if (event.event === "question") { s.myPick = null; s.selected = null; }
}

/** The live game's record, from the sign-in after a reload or a reconnect. */
export function duelResumed(record) {
  if (s.duelId !== record.id) newDuel(record.id);
  s.duel = record;
  s.lastBank = record.bank;
}

/** Selects choice `choice` of question `index` without answering (null clears it). */
export function selectChoice(index, choice) {
  s.selected = choice === null ? null : { duel: s.duelId, index, choice };
}

export function answerSent(index, answer) { s.myPick = { index, answer }; }

/** The reply to my answer; false (and nothing kept) if another game began meanwhile. */
export function answerReplied(duelId, index, verdict) {
  if (s.duelId !== duelId) return false;
  s.verdicts[index] = verdict;
  return true;
}

/** The open "multiple" question is `index`: its ticks start empty unless they are already its own. */
export function ticksFor(index) {
  if (!s.checked || s.checked.duel !== s.duelId || s.checked.index !== index) {
    s.checked = { duel: s.duelId, index, picks: new Set() };
  }
}

/** Ticks or unticks box `i` of question `index`; false if the ticks are not that question's. */
export function toggleTick(index, i) {
  if (!s.checked || s.checked.index !== index) return false;
  if (s.checked.picks.has(i)) s.checked.picks.delete(i); else s.checked.picks.add(i);
  return true;
}

// ---- rooms ----

/** The room record from a reply or a `room` event: kept while I am a member of it, else null. */
export function setRoom(room) {
  const mine = room && room.state !== "closed" && room.members.some((m) => m.id === s.player?.id);
  s.room = mine ? room : null;
}

export function leftRoomGame(duelId) { s.leftDuel = duelId; }

// ---- challenges ----

export function setChallenges(list) {
  s.challenges = new Map(list.map((c) => [c.id, c]));
  notify("challenges");
}

export function addChallenge(c) {
  s.challenges.set(c.id, c);
  notify("challenges");
}

export function dropChallenge(id) {
  s.challenges.delete(id);
  notify("challenges");
}
