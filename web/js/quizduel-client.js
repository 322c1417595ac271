// @ts-check
/**
 * The QuizDuel client: one WebSocket to the duel server, speaking protocol version 1
 * (docs/PROTOCOL.md). A plain ES module with JSDoc types and no dependencies.
 *
 * - requests and replies matched by `ref`, with timeouts: a request resolves with the
 *   reply's `data` and rejects with a {@link QuizDuelError} carrying the protocol's `code`
 *   (or `timeout`, or `unavailable` when the connection is lost or not open);
 * - a method for every op (`signup`, `login`, … `report`, `practice`) and a generic `request`;
 * - event callbacks (`on("question", cb)` …) returning an unsubscribe function;
 * - reconnection with capped exponential backoff and jitter, then `auth` with the stored
 *   token and `resume` of the live duel from the last seq seen;
 * - duel events delivered once per seq, in order: duplicates are dropped, and a gap is
 *   filled with `resume` before anything after it is delivered;
 * - the server's clock (`serverNow()`), estimated from the events' `server_time_ms`.
 *
 * @example
 *   import { QuizDuelClient } from "/js/quizduel-client.js";
 *   const client = new QuizDuelClient();           // ws(s)://<this page's host>/duel
 *   await client.connect();
 *   await client.login("ada", "a good password");
 *   client.on("question", (e) => client.answer(e.duel_id, e.record.question.index, 0));
 *   await client.queue("world-capitals");
 */

// ---------------------------------------------------------------------------
// Types of the wire contract

/**
 * A player's public profile (`signup`, `login`, `auth`, `profile`).
 * @typedef {Object} Player
 * @property {string} id
 * @property {string} username
 * @property {number} games
 * @property {number} wins
 * @property {number} losses
 * @property {number} draws
 * @property {number} total_score
 * @property {Record<string, number>} ratings  rating by bank slug (1500 to start with)
 */

/**
 * One of the players in a duel record (two in a ranked duel, one in a practice game).
 * @typedef {Object} DuelPlayer
 * @property {string} id
 * @property {string} username
 * @property {number} rating     the rating in the duel's bank before the duel, rounded
 * @property {number} score
 * @property {boolean} connected
 * @property {number} lag_ms     the capped round trip in ms the server measured for the player and
 *   credits their answers by; 0 while not measured, or when compensation is off (added, issue 26)
 */

/**
 * The question shown (while open or revealed).
 * @typedef {Object} DuelQuestion
 * @property {number} index
 * @property {number} question_id
 * @property {string} prompt
 * @property {QuestionType} type  how it is answered (added; see docs/PROTOCOL.md, "Question types")
 * @property {string[]} choices  empty for `text` and `number`
 * @property {number} opens_at_ms  on the server's clock (see {@link QuizDuelClient#serverNow})
 * @property {number} deadline_ms  on the server's clock; an answer after it is `too_late`
 */

/**
 * An answer to the current question (never the option picked).
 * @typedef {Object} DuelAnswer
 * @property {string} player
 * @property {boolean} correct
 * @property {number} at_ms      when it arrived, on the server's clock
 * @property {number} credit_ms  how much earlier than `at_ms` it counted: its author's lag, less any
 *   part before the question opened (added, issue 26)
 */

/**
 * The reveal of the question just closed.
 * @typedef {Object} DuelReveal
 * @property {number} question_index
 * @property {QuestionType} type
 * @property {number | null} correct_choice  `single` and `boolean`; null for the other types
 * @property {number[]} [correct_choices]    `multiple`
 * @property {string[]} [accepted]           `text`: any one of them is right
 * @property {"exact" | "case_insensitive" | "rough"} [matching]  `text`
 * @property {number} [correct_number]       `number`
 * @property {number} [tolerance]            `number`
 * @property {Record<string, number | null>} choices  by player id; null: did not answer, or not a one-choice answer
 * @property {Record<string, Submission | null>} answers  by player id: what each sent; null: did not answer
 * @property {Record<string, number>} points          by player id
 */

/** @typedef {"single" | "multiple" | "boolean" | "text" | "number"} QuestionType */

/**
 * A weekly goal. `due_at`: the end of its week in your time zone; `remind_at`: when its reminder
 * goes off (null: none); `reminded`: it went off, or was dropped unsent (added).
 * @typedef {{kind: string, bank: string | null, target: number, progress: number, reached: boolean, week_start: string,
 *   due_at: string, remind_at: string | null, reminded: boolean}} Goal
 */
/** @typedef {{bank: string, note: string, color: string | null, updated_at: string}} BankPref  your own note and colour for a bank */
/** @typedef {{id: number, kind: string, data: Object, created_at: string}} Notification */

/**
 * A quiz a player made (its id is its slug, `quiz`).
 * @typedef {Object} Quiz
 * @property {string} quiz
 * @property {string} title
 * @property {string} description
 * @property {string} theme
 * @property {"easy" | "medium" | "hard" | "mixed"} difficulty
 * @property {{id: string, username: string}} owner
 * @property {boolean} published
 * @property {string | null} published_at
 * @property {boolean} in_matchmaking
 * @property {number} questions
 * @property {number} plays
 * @property {number} saves
 * @property {number} likes
 * @property {number} dislikes
 * @property {string | null} unpublished_reason
 * @property {-1 | 0 | 1} your_vote
 * @property {boolean} saved
 */

/**
 * A question as its quiz's owner sees it: the key in the reveal's field names.
 * @typedef {Object} QuizQuestion
 * @property {number} question_id
 * @property {QuestionType} type
 * @property {string} prompt
 * @property {string[]} choices
 * @property {number | null} correct_choice
 * @property {number[]} [correct_choices]
 * @property {string[]} [accepted]
 * @property {string} [matching]
 * @property {number} [correct_number]
 * @property {number} [tolerance]
 * @property {number} likes
 * @property {number} dislikes
 */

/**
 * An answer as sent: one of these fields, by the question's type.
 * @typedef {{choice: number} | {choices: number[]} | {text: string} | {number: number}} Submission
 */

/**
 * @typedef {Object} DuelResult
 * @property {string | null} winner  a player id, or null: a draw, a game of one player (practice)
 *   or of three or more, or one an operator ended
 * @property {"completed" | "forfeit" | "abandoned" | "ended"} reason  `ended`: an operator ended it (unrated)
 * @property {Record<string, {before: number, after: number}>} ratings  by player id; `after` equals
 *   `before` unless the game is rated
 * @property {Record<string, number>} placements  place by player id, 1 first (ties share a place)
 */

/**
 * How a game came about: `ranked` (matchmaking, the only rated mode), `room` and `challenge`
 * (games of friends), `practice` (one player), `recorded` (against a recorded opponent, added:
 * its seat is {@link RECORDED_PLAYER}).
 * @typedef {"ranked" | "room" | "challenge" | "practice" | "recorded"} DuelMode
 */

/**
 * The whole state of a duel, carried by every duel event.
 * @typedef {Object} DuelRecord
 * @property {string} id
 * @property {string} bank
 * @property {DuelMode} mode
 * @property {boolean} rated  true exactly for `ranked`: only rated games change ratings
 * @property {"countdown" | "question" | "reveal" | "finished"} state
 * @property {DuelPlayer[]} players  two in a duel, one in a practice game
 * @property {number} question_count
 * @property {number} question_index
 * @property {DuelQuestion | null} question
 * @property {DuelAnswer[]} answers
 * @property {DuelReveal | null} reveal
 * @property {DuelResult | null} result
 */

/** @typedef {"init" | "question" | "answered" | "reveal" | "complete"} DuelEventName */

/**
 * A duel event: a change of the duel's row.
 * @typedef {Object} DuelEvent
 * @property {"event"} op
 * @property {DuelEventName} event
 * @property {"duels"} table
 * @property {"INSERT" | "UPDATE"} type
 * @property {string} duel_id
 * @property {number} seq               from 1 per duel, one more per event
 * @property {string} commit_timestamp  ISO 8601
 * @property {number} server_time_ms    when the server sent the frame
 * @property {DuelRecord} record
 */

/**
 * The player joined a queue.
 * @typedef {Object} QueuedEvent
 * @property {"event"} op
 * @property {"queued"} event
 * @property {"match_queue"} table
 * @property {"INSERT"} type
 * @property {string} commit_timestamp
 * @property {number} server_time_ms
 * @property {{player: string, bank: string, queued_at: string}} record
 */

/** @typedef {{token: string, player: Player}} SignInReply  `signup` and `login` */
/** @typedef {{player: Player, duel: DuelRecord | null}} AuthReply  `duel`: the live duel's latest record */
/** @typedef {{slug: string, title: string, questions: number, description?: string, theme?: string, difficulty?: string}} Bank */
/** @typedef {{banks: Bank[]}} BanksReply */
/** @typedef {{queued_at: string}} QueueReply */
/** @typedef {{correct: boolean, points: number}} AnswerReply */
/** @typedef {{rank: number, player: string, username: string, rating: number, games: number, wins: number}} LeaderboardEntry */
/** @typedef {{entries: LeaderboardEntry[]}} LeaderboardReply */
/** @typedef {{player: Player}} ProfileReply */
/** @typedef {{duels: DuelRecord[]}} HistoryReply  each duel's final record, newest first */
/** @typedef {{question_id: number, prompt: string, choices: string[], correct_choice: number, your_choice: number | null, duel_id: string}} Mistake */
/** @typedef {{questions: Mistake[], learned_count: number}} MistakesReply  `learned_count`: questions right in two practice games (they left the notebook) */
/** @typedef {{bank?: string, mistakes?: boolean}} PracticeOptions  a bank's slug, and/or `mistakes: true` for the mistakes notebook */
/** @typedef {{duel_id: string}} PracticeReply  the practice game's id; its `init` follows */
/** @typedef {{duel_id: string, opponent: "past_player" | "house"}} RecordedReply  the game's id and who the recording is; its `init` follows */
/** @typedef {Record<string, never>} EmptyReply */

// ---------------------------------------------------------------------------
// Types of the client

/**
 * @typedef {Object} Backoff
 * @property {number} [initialMs]  the first delay before jitter (default 500)
 * @property {number} [maxMs]      the cap (default 10000)
 */

/**
 * @typedef {Object} ClientOptions
 * @property {string | null} [token]   a stored token: signs in with `auth` on every (re)connect
 * @property {number} [timeoutMs]      default request timeout (default 10000)
 * @property {Backoff} [backoff]       reconnection delays: min(maxMs, initialMs·2^attempt), jittered to 50-100 %
 * @property {number} [stableMs]       a connection open (and signed in) this long resets the backoff (default 5000)
 * @property {string | string[]} [protocols]  WebSocket subprotocols (default "duel.v1")
 * @property {typeof WebSocket} [WebSocket]   the WebSocket class (default globalThis.WebSocket)
 */

/** @typedef {{timeoutMs?: number}} RequestOptions */

/**
 * @typedef {Object} DownInfo
 * @property {number} code             the close code (1006: lost; 1008: closed by the server's policy, e.g. signed out)
 * @property {string} reason
 * @property {number | null} retryInMs  when the next attempt starts; null after {@link QuizDuelClient#close}
 * @property {number} attempt           how many attempts failed in a row before this one
 */

/**
 * @typedef {Object} ClientEvents
 * @property {DuelEvent} init
 * @property {DuelEvent} question
 * @property {DuelEvent} answered
 * @property {DuelEvent} reveal
 * @property {DuelEvent} complete
 * @property {QueuedEvent} queued
 * @property {DuelEvent | QueuedEvent} event   every event, after the named callbacks
 * @property {{url: string}} open              the socket opened (with a stored token, `auth` is on its way)
 * @property {DownInfo} down                   the socket closed; reconnecting unless closed by you
 * @property {{attempt: number}} reconnecting  a new socket is being opened
 * @property {AuthReply} authenticated         signed in with the stored token (after every reconnect)
 * @property {{code: string, message: string}} signedout  the stored token was refused (`unauthorized`,
 *   `account_disabled`) and dropped: sign in again
 * @property {{code: string, message: string}} error      an unsolicited error (`"ref": null`), e.g. `bank_empty`, `rate_limited`
 * @property {string | null} token             the stored token changed (signup, login, auth, logout, signedout): persist it
 */

/** The WebSocket subprotocol of version 1. */
export const PROTOCOL = "duel.v1";

/** The player id of a recorded opponent's seat (mode `recorded`): no account is behind it. */
export const RECORDED_PLAYER = "00000000-0000-0000-0000-000000000000";

/** Ops the server serves before sign-in; other requests wait for a running `auth`. */
const PUBLIC_OPS = new Set(["signup", "login", "auth", "banks"]);
/** Codes that mean the token is no good. */
const TOKEN_REFUSED = new Set(["unauthorized", "account_disabled"]);
/** Codes worth trying again later. */
const TRANSIENT = new Set(["timeout", "unavailable", "internal", "rate_limited"]);
/** How long clock samples count for the offset estimate. */
const CLOCK_WINDOW_MS = 5 * 60 * 1000;
/** How many duels' seqs are remembered. */
const DUELS_KEPT = 32;

/** A refused or failed request: `code` is the protocol's error code, or `timeout` / `unavailable`. */
export class QuizDuelError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {string} [op]  the request's op
   */
  constructor(code, message, op) {
    super(message);
    this.name = "QuizDuelError";
    /** @type {string} */
    this.code = code;
    /** @type {string | undefined} */
    this.op = op;
  }
}

/**
 * @typedef {Object} Pending
 * @property {string} op
 * @property {(data: any) => void} resolve
 * @property {(error: QuizDuelError) => void} reject
 * @property {ReturnType<typeof setTimeout> | undefined} timer
 */

export class QuizDuelClient {
  /**
   * Creates a client; nothing happens until {@link QuizDuelClient#connect}.
   * @param {string} [url]  e.g. `ws://localhost:8080/duel`; by default `/duel` on this page's host
   * @param {ClientOptions} [options]
   */
  constructor(url, options = {}) {
    this.url = url ?? defaultURL();
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.backoff = { initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 10000 };
    this.stableMs = options.stableMs ?? 5000;
    this.protocols = options.protocols ?? PROTOCOL;
    /** @type {typeof WebSocket} */
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    /** @type {Player | null} the signed-in player, as of the last sign-in */
    this.player = null;

    /** @type {string | null} */ this._token = options.token ?? null;
    /** @type {WebSocket | null} */ this._ws = null;
    this._wanted = false;      // connect() called and close() not since
    this._signedIn = false;
    this._attempt = 0;
    this._policyCloses = 0;  // 1008 closes in a row, each before the connection was stable
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this._retryTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this._stableTimer = undefined;
    /** @type {Map<number, Pending>} */ this._pending = new Map();
    this._nextRef = 1;
    /** @type {Promise<unknown> | null} */ this._authing = null;
    /** @type {Map<string, Set<Function>>} */ this._listeners = new Map();
    /** @type {Map<string, {lastSeq: number, done: boolean}>} */ this._duels = new Map();
    /** @type {string | null} */ this._liveDuel = null;
    /** @type {Set<string>} */ this._resuming = new Set();
    /** @type {{at: number, offset: number}[]} */ this._clock = [];
    this._offset = 0;
    /** @type {{resolve: () => void, reject: (e: QuizDuelError) => void}[]} */ this._openWaiters = [];
  }

  // ---- connection --------------------------------------------------------

  /**
   * Opens the connection (and keeps it open, reconnecting, until {@link QuizDuelClient#close}).
   * Resolves when a socket is open; with a stored token, `auth` then runs on its own (see the
   * `authenticated` and `signedout` callbacks; requests that need a sign-in wait for it).
   * Rejects only if `close()` is called first.
   * @returns {Promise<void>}
   */
  connect() {
    if (this.connected) return Promise.resolve();
    /** @type {Promise<void>} */
    const opened = new Promise((resolve, reject) => this._openWaiters.push({ resolve: () => resolve(), reject }));
    if (!this._wanted) {
      this._wanted = true;
      this._attempt = 0;
      if (!this._ws) this._open();
    }
    return opened;
  }

  /** Closes the connection for good (until `connect()` again); pending requests fail with `unavailable`. */
  close() {
    this._wanted = false;
    clearTimeout(this._retryTimer);
    const ws = this._ws;
    if (ws) {
      this._ws = null;
      ws.close(1000, "bye");
      this._lost({ code: 1000, reason: "closed by the client" });
    }
    for (const w of this._openWaiters.splice(0)) w.reject(new QuizDuelError("unavailable", "closed by the client"));
  }

  /** Drops the current socket as if the network failed; the client reconnects and resumes. */
  drop() {
    if (this._ws) this._ws.close();
  }

  /** Whether the socket is open. */
  get connected() {
    return !!this._ws && this._ws.readyState === 1; // WebSocket.OPEN
  }

  /** Whether this connection is signed in (signup, login or auth succeeded on it). */
  get signedIn() {
    return this.connected && this._signedIn;
  }

  /** The stored token (set by signup, login and auth; dropped by logout and when refused). */
  get token() {
    return this._token;
  }

  _open() {
    const ws = new this.WebSocket(this.url, this.protocols);
    this._ws = ws;
    ws.onopen = () => { if (ws === this._ws) this._opened(); };
    ws.onmessage = (m) => { if (ws === this._ws) this._receive(m.data); };
    ws.onclose = (e) => {
      if (ws !== this._ws) return;
      this._ws = null;
      this._lost(e);
    };
  }

  _opened() {
    clearTimeout(this._stableTimer);
    this._stableTimer = setTimeout(() => {
      if (this.connected && (this._signedIn || !this._token)) this._attempt = this._policyCloses = 0;
    }, this.stableMs);
    if (this._token) this._reauth(); // first, so that requests made on "open" wait for it
    this._emit("open", { url: this.url });
    for (const w of this._openWaiters.splice(0)) w.resolve();
  }

  /**
   * @param {{code: number, reason: string}} e
   */
  _lost(e) {
    clearTimeout(this._stableTimer);
    this._signedIn = false;
    this._resuming.clear();
    const pending = [...this._pending.values()];
    this._pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(new QuizDuelError("unavailable", "connection lost", p.op));
    }
    if (e.code === 1008 && this._token && ++this._policyCloses >= 3) {
      // The server keeps ending this session (signed out, banned): do not sign in again and again.
      this._policyCloses = 0;
      this._refused(this._token, "unauthorized", `the server keeps closing the session (1008${e.reason ? `: ${e.reason}` : ""})`);
    }
    if (!this._wanted) {
      this._emit("down", { code: e.code, reason: e.reason, retryInMs: null, attempt: this._attempt });
      return;
    }
    const base = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(this._attempt, 30));
    const delay = Math.round(base / 2 + (Math.random() * base) / 2);
    this._emit("down", { code: e.code, reason: e.reason, retryInMs: delay, attempt: this._attempt });
    this._attempt += 1;
    clearTimeout(this._retryTimer);
    this._retryTimer = setTimeout(() => {
      if (!this._wanted || this._ws) return;
      this._emit("reconnecting", { attempt: this._attempt });
      this._open();
    }, delay);
  }

  /** Signs in again with the stored token after a (re)connect. */
  _reauth() {
    const ws = this._ws;
    this.auth().catch((/** @type {QuizDuelError} */ error) => {
      // Refused tokens are dropped (and reported) by auth(); a transient failure closes the
      // socket so that the backoff paces the next try.
      if (TRANSIENT.has(error.code) && ws === this._ws && ws) ws.close(4000, "auth failed: retrying");
    });
  }

  // ---- requests ----------------------------------------------------------

  /**
   * Sends one request and waits for its reply.
   * @param {string} op
   * @param {Record<string, unknown>} [fields]
   * @param {RequestOptions} [options]
   * @returns {Promise<any>}  the reply's `data`; rejects with a {@link QuizDuelError}
   */
  request(op, fields = {}, options = {}) {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const ref = this._nextRef++;
      /** @type {Pending} */
      const entry = { op, resolve, reject, timer: undefined };
      if (!this.connected) return reject(new QuizDuelError("unavailable", "not connected", op));
      this._pending.set(ref, entry);
      entry.timer = setTimeout(() => {
        if (this._pending.get(ref) !== entry) return;
        this._pending.delete(ref);
        reject(new QuizDuelError("timeout", `${op}: no reply within ${timeoutMs} ms`, op));
      }, timeoutMs);
      /** @type {Record<string, unknown>} */
      const message = { op, ref };
      for (const [key, value] of Object.entries(fields)) {
        if (key !== "op" && key !== "ref" && value !== undefined) message[key] = value;
      }
      const send = () => {
        if (this._pending.get(ref) !== entry) return; // timed out or lost meanwhile
        if (!this.connected) {
          this._pending.delete(ref);
          clearTimeout(entry.timer);
          return reject(new QuizDuelError("unavailable", "not connected", op));
        }
        /** @type {WebSocket} */ (this._ws).send(JSON.stringify(message)); // set: the socket is open
      };
      if (this._authing && !PUBLIC_OPS.has(op)) this._authing.then(send, send);
      else send();
    });
  }

  /**
   * Creates an account and signs in; stores the token.
   * @param {string} username
   * @param {string} password
   * @param {RequestOptions} [options]
   * @returns {Promise<SignInReply>}
   */
  async signup(username, password, options) {
    /** @type {SignInReply} */
    const data = await this.request("signup", { username, password }, options);
    this._signedInAs(data.player, data.token);
    return data;
  }

  /**
   * Signs in; stores the token.
   * @param {string} username
   * @param {string} password
   * @param {RequestOptions} [options]
   * @returns {Promise<SignInReply>}
   */
  async login(username, password, options) {
    /** @type {SignInReply} */
    const data = await this.request("login", { username, password }, options);
    this._signedInAs(data.player, data.token);
    return data;
  }

  /**
   * Signs this connection in with a token (the stored one by default; the client does this
   * itself after every connect). On success it stores the token, emits `authenticated` and
   * resumes the live duel from the last seq seen. A refused token (`unauthorized`,
   * `account_disabled`) is dropped and reported with `signedout`.
   * @param {string | null} [token]
   * @param {RequestOptions} [options]
   * @returns {Promise<AuthReply>}
   */
  async auth(token = this._token, options) {
    if (!token) throw new QuizDuelError("unauthorized", "no token to sign in with", "auth");
    const ws = this._ws;
    const running = this.request("auth", { token }, options);
    this._authing = running;
    /** @type {AuthReply} */
    let data;
    try {
      data = await running;
    } catch (error) {
      if (this._authing === running) this._authing = null;
      const e = /** @type {QuizDuelError} */ (error);
      if (TOKEN_REFUSED.has(e.code) && ws === this._ws) this._refused(token, e.code, e.message);
      throw e;
    }
    if (this._authing === running) this._authing = null;
    this._signedInAs(data.player, token);
    this._emit("authenticated", data);
    // Catch up: the live duel (the reply tells which), and the duel we were following if it
    // finished while we were away (its `complete` is still to be delivered).
    const toResume = new Set();
    const live = data.duel;
    const known = live ? this._duels.get(live.id) : undefined;
    if (live && !known?.done && (live.state !== "finished" || known)) toResume.add(live.id);
    if (this._liveDuel && !this._duels.get(this._liveDuel)?.done) toResume.add(this._liveDuel);
    for (const id of toResume) this._fill(id);
    return data;
  }

  /**
   * Signs out: the token stops working (and is dropped here even if the request fails).
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyReply>}
   */
  async logout(options) {
    try {
      return await this.request("logout", {}, options);
    } finally {
      this._signOut();
    }
  }

  /**
   * @param {RequestOptions} [options]
   * @returns {Promise<BanksReply>}
   */
  banks(options) { return this.request("banks", {}, options); }

  /**
   * Joins a bank's queue; a `queued` event follows, and `init` when matched.
   * @param {string} bank  a slug
   * @param {RequestOptions} [options]
   * @returns {Promise<QueueReply>}
   */
  queue(bank, options) { return this.request("queue", { bank }, options); }

  /**
   * Leaves the queue (`not_queued` once matched).
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyReply>}
   */
  cancel(options) { return this.request("cancel", {}, options); }

  /**
   * Answers the open question. A right answer's reply may wait until the question settles
   * (issue 26): until no player farther away could still arrive credited earlier, at most
   * the server's lag cap (250 ms by default).
   * @param {string} duelId
   * @param {number} questionIndex
   * @param {number | Submission} answer  a choice counted from 0 (`single`, `boolean`), or
   *   `{choices}`, `{text}` or `{number}` for the other types
   * @param {RequestOptions} [options]
   * @returns {Promise<AnswerReply>}
   */
  answer(duelId, questionIndex, answer, options) {
    const fields = typeof answer === "number" ? { choice: answer } : answer;
    return this.request("answer", { duel_id: duelId, question_index: questionIndex, ...fields }, options);
  }

  /**
   * Gives up a duel (the opponent wins), or ends a practice game.
   * @param {string} duelId
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyReply>}
   */
  forfeit(duelId, options) { return this.request("forfeit", { duel_id: duelId }, options); }

  /**
   * Asks for the duel's events after `afterSeq` (by default the last seq seen). The client
   * does this itself after a reconnect and on a gap; events already seen are not delivered again.
   * @param {string} duelId
   * @param {number} [afterSeq]
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyReply>}
   */
  async resume(duelId, afterSeq, options) {
    const after = afterSeq ?? this.lastSeq(duelId);
    this._resuming.add(duelId);
    try {
      return await this.request("resume", { duel_id: duelId, after_seq: after }, options);
    } finally {
      this._resuming.delete(duelId);
    }
  }

  /**
   * A bank's best players.
   * @param {string} bank
   * @param {number} [limit]  1-100, 20 by default
   * @param {RequestOptions} [options]
   * @returns {Promise<LeaderboardReply>}
   */
  leaderboard(bank, limit, options) { return this.request("leaderboard", { bank, limit }, options); }

  /**
   * A player's profile (yours by default).
   * @param {string} [player]
   * @param {RequestOptions} [options]
   * @returns {Promise<ProfileReply>}
   */
  profile(player, options) { return this.request("profile", { player }, options); }

  /**
   * Your finished duels, newest first.
   * @param {number} [limit]
   * @param {RequestOptions} [options]
   * @returns {Promise<HistoryReply>}
   */
  history(limit, options) { return this.request("history", { limit }, options); }

  /**
   * Questions you missed.
   * @param {number} [limit]
   * @param {RequestOptions} [options]
   * @returns {Promise<MistakesReply>}
   */
  mistakes(limit, options) { return this.request("mistakes", { limit }, options); }

  /**
   * Flags a question for the bank's operators.
   * @param {number} questionId
   * @param {string} reason  1-500 characters, no line breaks
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyReply>}
   */
  report(questionId, reason, options) { return this.request("report", { question_id: questionId, reason }, options); }

  /**
   * Starts a one-player, unrated practice game: random questions of `bank`, or with
   * `mistakes: true` questions from your mistakes notebook (of `bank` when given, else of the
   * bank with the most of them). The reply names the game; its `init` and the rest of its
   * events follow, as a duel's (`record.mode` is `practice`). Refused with `bad_request`
   * (neither field), `unknown_bank`, `bank_empty` (nothing to draw: an empty bank, or no
   * mistakes left to practise), `already_queued` or `in_duel`.
   * @param {PracticeOptions} [what]  at least `bank` or `mistakes: true`
   * @param {RequestOptions} [options]
   * @returns {Promise<PracticeReply>}
   */
  practice(what = {}, options) {
    const { bank, mistakes } = what;
    return this.request("practice", { bank, mistakes }, options);
  }

  /**
   * Starts a game against a recorded opponent in `bank` (a replay of a past player's game there,
   * or the house before anyone played one): unrated, with a duel's events (`record.mode` is
   * `recorded`). Refused with `unknown_bank`, `already_queued` (send `cancel` first), `in_duel`
   * or `in_room`.
   * @param {string} bank
   * @param {RequestOptions} [options]
   * @returns {Promise<RecordedReply>}
   */
  recorded(bank, options) { return this.request("recorded", { bank }, options); }

  // ---- rooms, challenges, rematch (docs/PROTOCOL.md) ----------------------

  /**
   * Opens a room with you as host. Members hear every change as `room` events.
   * @param {string} bank
   * @param {{questions?: number, answer_ms?: number, max_players?: number}} [settings]
   * @param {RequestOptions} [options]
   */
  roomCreate(bank, settings = {}, options) { return this.request("room_create", { bank, ...settings }, options); }

  /** @param {string} code @param {RequestOptions} [options] */
  roomJoin(code, options) { return this.request("room_join", { code }, options); }

  /** @param {RequestOptions} [options] */
  roomLeave(options) { return this.request("room_leave", {}, options); }

  /** Host only: starts a game of the members (the next one is the rematch). @param {RequestOptions} [options] */
  roomStart(options) { return this.request("room_start", {}, options); }

  /** @param {string} username @param {string} bank @param {RequestOptions} [options] */
  challenge(username, bank, options) { return this.request("challenge", { username, bank }, options); }

  /** @param {string} id @param {RequestOptions} [options] */
  challengeAccept(id, options) { return this.request("challenge_accept", { challenge_id: id }, options); }

  /** @param {string} id @param {RequestOptions} [options] */
  challengeDecline(id, options) { return this.request("challenge_decline", { challenge_id: id }, options); }

  /** Your pending challenges, sent and received. @param {RequestOptions} [options] */
  challenges(options) { return this.request("challenges", {}, options); }

  /** Offers (or takes) a rematch of a finished ranked duel. @param {string} duelId @param {RequestOptions} [options] */
  rematch(duelId, options) { return this.request("rematch", { duel_id: duelId }, options); }

  // ---- quizzes players make (docs/PROTOCOL.md, "Quizzes players make") -----

  /**
   * A new private quiz of yours.
   * @param {{title: string, description?: string, theme?: string, difficulty?: string}} fields
   * @param {RequestOptions} [options]
   * @returns {Promise<{quiz: Quiz}>}
   */
  quizCreate(fields, options) { return this.request("quiz_create", fields, options); }

  /** @param {string} quiz @param {{title?: string, description?: string, theme?: string, difficulty?: string}} fields @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz}>} */
  quizUpdate(quiz, fields, options) { return this.request("quiz_update", { quiz, ...fields }, options); }

  /** @param {string} quiz @param {RequestOptions} [options] */
  quizDelete(quiz, options) { return this.request("quiz_delete", { quiz }, options); }

  /** @param {string} quiz @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz}>} */
  quizPublish(quiz, options) { return this.request("quiz_publish", { quiz }, options); }

  /** @param {string} quiz @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz}>} */
  quizUnpublish(quiz, options) { return this.request("quiz_unpublish", { quiz }, options); }

  /** Your quiz with every question and its key. @param {string} quiz @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz, questions: QuizQuestion[]}>} */
  quizQuestions(quiz, options) { return this.request("quiz_questions", { quiz }, options); }

  /** A quiz's page. @param {string} quiz @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz}>} */
  quiz(quiz, options) { return this.request("quiz", { quiz }, options); }

  /** @param {RequestOptions} [options] @returns {Promise<{quizzes: Quiz[]}>} */
  myQuizzes(options) { return this.request("my_quizzes", {}, options); }

  /**
   * Adds a question: `type`, `prompt`, and the type's key fields (`choices` and
   * `correct_choice`, `choices` and `correct_choices`, `correct_choice`, `accepted` and
   * `matching`, or `correct_number` and `tolerance`).
   * @param {string} quiz @param {Object} question @param {RequestOptions} [options]
   * @returns {Promise<{question: QuizQuestion}>}
   */
  questionAdd(quiz, question, options) { return this.request("question_add", { quiz, ...question }, options); }

  /** A new version of a question (a new `question_id`). @param {number} id @param {Object} question @param {RequestOptions} [options] @returns {Promise<{question: QuizQuestion}>} */
  questionUpdate(id, question, options) { return this.request("question_update", { question_id: id, ...question }, options); }

  /** @param {number} id @param {RequestOptions} [options] */
  questionDelete(id, options) { return this.request("question_delete", { question_id: id }, options); }

  /**
   * Published quizzes, a page at a time: pass the reply's `next_cursor` as `cursor`.
   * @param {{search?: string, theme?: string, difficulty?: string, sort?: "popular" | "new" | "top_rated", limit?: number, cursor?: string}} [query]
   * @param {RequestOptions} [options]
   * @returns {Promise<{quizzes: Quiz[], next_cursor: string | null}>}
   */
  catalog(query = {}, options) { return this.request("catalog", query, options); }

  /** Saves ("downloads") a quiz into your library. @param {string} quiz @param {RequestOptions} [options] @returns {Promise<{quiz: Quiz}>} */
  quizSave(quiz, options) { return this.request("quiz_save", { quiz }, options); }

  /** @param {string} quiz @param {RequestOptions} [options] */
  quizUnsave(quiz, options) { return this.request("quiz_unsave", { quiz }, options); }

  /** @param {RequestOptions} [options] @returns {Promise<{quizzes: Quiz[]}>} */
  library(options) { return this.request("library", {}, options); }

  /**
   * One vote on a quiz or a question: 1, -1, or 0 to take it back.
   * @param {{quiz: string} | {question_id: number}} target @param {-1 | 0 | 1} value @param {RequestOptions} [options]
   * @returns {Promise<{likes: number, dislikes: number, your_vote: number}>}
   */
  rate(target, value, options) { return this.request("rate", { ...target, value }, options); }

  /** @param {string} quiz @param {string} reason @param {RequestOptions} [options] */
  reportQuiz(quiz, reason, options) { return this.request("report", { quiz, reason }, options); }

  // ---- progress (docs/PROTOCOL.md, "Progress") -----------------------------

  /** The zone your streak days count in (an IANA name). @param {string} timeZone @param {RequestOptions} [options] */
  profileUpdate(timeZone, options) { return this.request("profile_update", { time_zone: timeZone }, options); }

  /**
   * A goal for this week; `remind_at` (an ISO 8601 time with a zone, up to the goal's `due_at`)
   * sets its reminder, null clears it, and leaving it out keeps it.
   * @param {{kind: "wins" | "games" | "correct_answers" | "mistakes_learned", bank?: string, target: number, remind_at?: string | null}} goal
   * @param {RequestOptions} [options] @returns {Promise<{goals: Goal[]}>}
   */
  goalSet(goal, options) { return this.request("goal_set", goal, options); }

  /** This week's goals with their progress. @param {RequestOptions} [options] @returns {Promise<{goals: Goal[]}>} */
  goals(options) { return this.request("goals", {}, options); }

  /**
   * Your notifications, newest first, and how many are unseen.
   * @param {number} [limit] @param {number} [before]  an id: older ones only @param {RequestOptions} [options]
   * @returns {Promise<{notifications: Notification[], unseen: number}>}
   */
  notifications(limit = 20, before, options) { return this.request("notifications", { limit, before }, options); }

  /** Clears the badge up to `upTo`. @param {number} upTo @param {RequestOptions} [options] @returns {Promise<{unseen: number}>} */
  notificationsSeen(upTo, options) { return this.request("notifications_seen", { up_to: upTo }, options); }

  /** Points for a rating chart. @param {string} bank @param {number} [limit] @param {RequestOptions} [options] */
  ratingHistory(bank, limit = 100, options) { return this.request("rating_history", { bank, limit }, options); }

  /** Accuracy, mean answer time, games by mode. @param {string} [bank] @param {RequestOptions} [options] */
  stats(bank, options) { return this.request("stats", { bank }, options); }

  /** Every achievement, earned or locked. @param {RequestOptions} [options] */
  achievements(options) { return this.request("achievements", {}, options); }

  /**
   * Your own note (≤ 1,000 characters and 3,000 bytes; "" clears it) and colour (`#rrggbb`; null: the bank's
   * own) for a bank; only the fields given change. Private: nobody else reads them.
   * @param {string} bank @param {{note?: string, color?: string | null}} fields @param {RequestOptions} [options]
   * @returns {Promise<{bank_pref: BankPref}>}
   */
  bankPrefSet(bank, fields, options) { return this.request("bank_pref_set", { bank, ...fields }, options); }

  /** Your notes and colours, one entry per bank you set one for. @param {RequestOptions} [options] @returns {Promise<{bank_prefs: BankPref[]}>} */
  bankPrefs(options) { return this.request("bank_prefs", {}, options); }

  // ---- events ------------------------------------------------------------

  /**
   * Calls `callback` on each `name` event. Duel events come once per seq, in order. As with
   * `addEventListener`, a callback added again for the same name is still called once.
   * @template {keyof ClientEvents} K
   * @param {K} name
   * @param {(payload: ClientEvents[K]) => void} callback
   * @returns {() => void}  unsubscribes
   */
  on(name, callback) {
    const set = this._listeners.get(name) ?? new Set();
    this._listeners.set(name, set);
    set.add(callback);
    return () => { set.delete(callback); };
  }

  /**
   * @param {keyof ClientEvents} name
   * @param {unknown} payload
   */
  _emit(name, payload) {
    const set = this._listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(payload);
      } catch (error) {
        setTimeout(() => { throw error; }); // report it without breaking the client
      }
    }
  }

  /**
   * The last seq seen of a duel (0 if none).
   * @param {string} duelId
   */
  lastSeq(duelId) {
    return this._duels.get(duelId)?.lastSeq ?? 0;
  }

  /** The duel being followed: the last one with an event and no `complete` yet, or null. */
  get liveDuelId() {
    return this._liveDuel;
  }

  /**
   * @param {string} text
   */
  _receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (!message || typeof message !== "object") return;
    if (typeof message.server_time_ms === "number") this._sample(message.server_time_ms);
    if (message.op === "reply" || message.op === "error") {
      const entry = message.ref === null || message.ref === undefined ? undefined : this._pending.get(message.ref);
      if (entry) {
        this._pending.delete(message.ref);
        clearTimeout(entry.timer);
        if (message.op === "reply") entry.resolve(message.data ?? {});
        else entry.reject(new QuizDuelError(String(message.code), String(message.message ?? message.code), entry.op));
      } else if (message.op === "error" && (message.ref === null || message.ref === undefined)) {
        this._emit("error", { code: String(message.code), message: String(message.message ?? message.code) });
      }
      return; // a late reply to a request that timed out is dropped
    }
    if (message.op !== "event") return;
    if (message.table !== "duels" || typeof message.seq !== "number" || typeof message.duel_id !== "string") {
      this._deliver(message);
      return;
    }
    const id = message.duel_id;
    let duel = this._duels.get(id);
    if (!duel) {
      duel = { lastSeq: 0, done: false };
      this._duels.set(id, duel);
      this._forgetOldDuels();
    }
    if (message.seq <= duel.lastSeq) return; // seen already (a resume replays from its after_seq)
    if (message.seq > duel.lastSeq + 1) {
      // A gap: ask for what is missing; the replay brings this event again, in order.
      if (!this._resuming.has(id)) this._fill(id);
      return;
    }
    duel.lastSeq = message.seq;
    if (message.event === "complete") {
      duel.done = true;
      if (this._liveDuel === id) this._liveDuel = null;
    } else if (!duel.done) {
      this._liveDuel = id;
    }
    this._deliver(message);
  }

  /**
   * @param {DuelEvent | QueuedEvent} event
   */
  _deliver(event) {
    this._emit(/** @type {keyof ClientEvents} */ (event.event), event);
    this._emit("event", event);
  }

  /**
   * Resumes a duel from its last seq seen, retrying a few times on transient failures
   * while the same socket stays open.
   * @param {string} id
   * @param {number} [tries]
   */
  _fill(id, tries = 0) {
    const ws = this._ws;
    this.resume(id).catch((/** @type {QuizDuelError} */ error) => {
      if (TRANSIENT.has(error.code) && tries < 3 && ws === this._ws) {
        this._resuming.add(id); // keep gapped events back until the retry
        setTimeout(() => {
          this._resuming.delete(id);
          if (ws === this._ws && this.connected) this._fill(id, tries + 1);
        }, 500 * (tries + 1));
      }
    });
  }

  _forgetOldDuels() {
    if (this._duels.size <= DUELS_KEPT) return;
    for (const id of this._duels.keys()) {
      if (this._duels.size <= DUELS_KEPT) break;
      if (id !== this._liveDuel) this._duels.delete(id); // the live duel is never done: keep it
    }
  }

  /**
   * A token was refused: drop it if it is the stored one, and report that.
   * @param {string} token
   * @param {string} code
   * @param {string} message
   */
  _refused(token, code, message) {
    const stored = token === this._token;
    this._signOut(stored);
    if (stored) this._emit("signedout", { code, message });
  }

  /**
   * Signed in on this connection (signup, login, auth): keeps the player and the token.
   * @param {Player} player
   * @param {string} token
   */
  _signedInAs(player, token) {
    this._signedIn = true;
    this.player = player;
    this._setToken(token);
  }

  /**
   * Not signed in any more; with `dropToken` (logout, the stored token refused) the token and
   * the live duel are forgotten too.
   * @param {boolean} [dropToken]
   */
  _signOut(dropToken = true) {
    this._signedIn = false;
    this.player = null;
    if (!dropToken) return;
    this._liveDuel = null;
    this._setToken(null);
  }

  /**
   * @param {string | null} token
   */
  _setToken(token) {
    if (token === this._token) return;
    this._token = token;
    this._emit("token", token);
  }

  // ---- the server's clock --------------------------------------------------

  /**
   * The server's clock minus this one, in ms: the largest of the recent samples
   * `server_time_ms − arrival time`, i.e. the one that travelled fastest.
   */
  get clockOffsetMs() {
    return this._offset;
  }

  /** The server's clock now, in ms since 1970 (deadlines are on the server's clock). */
  serverNow() {
    return Date.now() + this._offset;
  }

  /**
   * @param {number} serverMs
   */
  _sample(serverMs) {
    const now = Date.now();
    this._clock.push({ at: now, offset: serverMs - now });
    while (this._clock.length > 64 || (this._clock.length > 1 && now - this._clock[0].at > CLOCK_WINDOW_MS)) this._clock.shift();
    this._offset = Math.max(...this._clock.map((s) => s.offset));
  }
}

/** `ws(s)://<this page's host>/duel`, for a page served by the duel server. */
function defaultURL() {
  const loc = globalThis.location;
  if (!loc) throw new TypeError("QuizDuelClient: a url is needed outside a browser page");
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/duel`;
}
