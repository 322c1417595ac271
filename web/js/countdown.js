// When a game's countdown ends, on the server's clock.
//
// The countdown starts when the game is created: the `init` event's `commit_timestamp`, on the
// server's clock (not when the event reached us, which may be later after a reconnect). Its
// length is the server's `--countdown-ms`. The record says when it ends (`phase_ends_at_ms`,
// added in issue 27); for a server from before that field the client measures it: the first
// question's `opens_at_ms` less that commit time, remembered on this device for the next game,
// and until a first game was measured the protocol's default stands.
import { client } from "./connection.js";

const STORED = "quizduel.countdownMs";
const DEFAULT_MS = 3000;
const MAX_MS = 60_000;

/** @type {Map<string, number>} duel id -> when its init was committed (server clock, ms) */
const started = new Map();

function measured() {
  const raw = localStorage.getItem(STORED);
  const ms = Number(raw);
  return raw !== null && Number.isFinite(ms) && ms >= 0 && ms <= MAX_MS ? ms : DEFAULT_MS;
}

function remember(event) {
  const d = event.record;
  if (event.event === "init") {
    const at = Date.parse(event.commit_timestamp);
    started.set(event.duel_id, Number.isFinite(at) ? at : event.server_time_ms);
    if (started.size > 8) started.delete(started.keys().next().value);
  } else if (event.event === "question" && d.question?.index === 0 && started.has(event.duel_id)) {
    const ms = d.question.opens_at_ms - started.get(event.duel_id);
    // Each phase's timer runs from when the last transition really happened, so this is the
    // countdown plus a few ms of the server's own work: close enough to count down by.
    if (ms >= 0 && ms <= MAX_MS) localStorage.setItem(STORED, String(Math.round(ms / 50) * 50));
  }
}

client.on("init", remember);
client.on("question", remember);

/**
 * When the countdown of `duelId` ends (server clock, ms). A game joined mid-countdown (after a
 * reload) has no init seen: counted from now, the best guess there is.
 */
export function countdownEndsAt(duelId, record) {
  // The server says when the countdown ends (`phase_ends_at_ms`, added in issue 27); the
  // measurement below is for a server from before it.
  if (record?.state === "countdown" && Number.isFinite(record.phase_ends_at_ms)) return record.phase_ends_at_ms;
  const start = started.get(duelId);
  if (start === undefined) started.set(duelId, client.serverNow());
  return (start ?? started.get(duelId)) + measured();
}
