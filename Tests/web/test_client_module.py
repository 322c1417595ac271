"""web/js/quizduel-client.js on its own: two clients in one page that does not load app.js
play a whole duel through the module's API, with a dropped socket and a lost event."""
import random

# Installed once in the page: window.T with the module, two clients (a, b) and helpers.
# Each client's sockets record what they send and can lose one chosen incoming frame.
SETUP = r"""
const { QuizDuelClient, QuizDuelError } = await import("/js/quizduel-client.js");
const url = `ws://${location.host}/duel`;
function record(name) {
  const rec = { name, events: [], log: [], sent: [], lost: [], lose: null };
  rec.Socket = class extends WebSocket {
    send(data) { rec.sent.push(JSON.parse(data)); super.send(data); }
    get onmessage() { return super.onmessage; }
    set onmessage(fn) {
      super.onmessage = (m) => {
        const message = JSON.parse(m.data);
        if (rec.lose && rec.lose(message)) { rec.lose = null; rec.lost.push(message); return; }
        fn(m);
      };
    }
  };
  rec.client = new QuizDuelClient(url, { WebSocket: rec.Socket, backoff: { initialMs: 300, maxMs: 2000 } });
  rec.client.on("event", (e) => rec.events.push({ event: e.event, seq: e.seq ?? null, duel: e.duel_id ?? null,
    qi: e.record.question ? e.record.question.index : null, state: e.record.state ?? null, result: e.record.result ?? null }));
  for (const n of ["open", "down", "reconnecting", "authenticated", "signedout", "error", "token"]) {
    rec.client.on(n, (p) => rec.log.push({ name: n, code: p && typeof p === "object" && "code" in p ? p.code : null,
      duel: n === "authenticated" && p.duel ? p.duel.id : null }));
  }
  return rec;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
window.T = {
  QuizDuelClient, QuizDuelError, url, record, sleep, a: record("a"), b: record("b"),
  async waitFor(what, predicate, ms = 20000) {
    const end = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > end) throw new Error("timed out waiting for " + what);
      await sleep(20);
    }
  },
  saw: (rec, event, qi) => rec.events.some((e) => e.event === event && (qi === undefined || e.qi === qi)),
  async error(promise) {
    try { await promise; } catch (e) { return { code: e.code, message: e.message, isError: e instanceof Error }; }
    return null;
  },
};
"""


def run(browser, body, *args):
    """Runs `body` (async JS; `args` are the extra arguments, `T` the page's helpers) and
    returns its value; a rejection fails the test with its code and message."""
    result = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const args = [...arguments].slice(0, -1);\n"
        "(async () => { const T = window.T; " + body + "\n})().then("
        "(value) => done({ ok: true, value }),"
        "(e) => done({ ok: false, code: e && e.code, message: String(e && e.message || e), stack: String(e && e.stack) }));",
        *args)
    assert result["ok"], result
    return result["value"]


def test_the_client_module_plays_a_duel_reconnects_and_fills_gaps(server, browser):
    browser.set_script_timeout(60)
    browser.get(server.url + "healthz")  # same origin, no app.js
    assert "quizduel" not in browser.execute_script("return Object.keys(window).join(' ')")
    tag = random.randint(0, 10**6)
    run(browser, SETUP)
    start = run(browser, """
        await Promise.all([T.a.client.connect(), T.b.client.connect()]);
        const a = await T.a.client.signup(args[0], "a good password");
        const b = await T.b.client.signup(args[1], "a good password");
        const { banks } = await T.a.client.banks();
        return { a: a.player, b: b.player, token: a.token, stored: T.a.client.token, banks,
                 signedIn: T.a.client.signedIn && T.b.client.signedIn };
    """, f"mo{tag}", f"ne{tag}")
    a_id, b_id = start["a"]["id"], start["b"]["id"]
    assert start["a"]["username"] == f"mo{tag}" and start["a"]["ratings"] is not None
    assert len(start["token"]) == 64 and start["stored"] == start["token"] and start["signedIn"]
    bank = next(b["slug"] for b in start["banks"] if b["questions"] >= 3)

    # Errors reject with the protocol's code; a timeout with "timeout".
    errors = run(browser, """
        const c = T.a.client;
        return {
          unknownOp: await T.error(c.request("no_such_op")),
          unknownBank: await T.error(c.queue("no-such-bank")),
          // a password check takes longer than 1 ms: the request times out (its reply is dropped)
          timeout: await T.error(c.login(args[0], "wrong password", { timeoutMs: 1 })),
          stillWorks: (await c.profile()).player.id,
        };
    """, f"nobody{tag}")
    assert errors["unknownOp"]["code"] == "unknown_op" and errors["unknownOp"]["isError"]
    assert errors["unknownBank"]["code"] == "unknown_bank" and errors["unknownBank"]["message"]
    assert errors["timeout"]["code"] == "timeout"
    assert errors["stillWorks"] == a_id

    # Queue both; an unsubscribed callback is not called; both get init.
    queued = run(browser, """
        let calls = 0;
        const off = T.b.client.on("queued", () => { calls += 1; });
        off();
        const queuedA = new Promise((resolve) => T.a.client.on("queued", (e) => resolve(e.record)));
        const reply = await T.a.client.queue(args[0]);
        await T.b.client.queue(args[0]);
        await T.waitFor("init", () => T.saw(T.a, "init") && T.saw(T.b, "init"));
        return { reply, record: await queuedA, calls, duel: T.a.events.find((e) => e.event === "init").duel };
    """, bank)
    assert queued["reply"]["queued_at"] and queued["record"]["bank"] == bank and queued["calls"] == 0
    duel = queued["duel"]

    # Question 0: B's socket drops; A wins the question while B is away; B signs in again
    # with its token and resumes from the last seq it saw.
    run(browser, "await T.waitFor('question 0', () => T.saw(T.a, 'question', 0) && T.saw(T.b, 'question', 0));")
    b_before = run(browser, "const s = T.b.client.lastSeq(args[0]); T.b.client.drop(); "
                            "await T.waitFor('down', () => T.b.log.some((l) => l.name === 'down')); return s;", duel)
    answer0 = run(browser, "return await T.a.client.answer(args[0], 0, args[1]);", duel, server.correct_choice(duel, 0))
    assert answer0["correct"] and 110 <= answer0["points"] <= 200
    b_back = run(browser, """
        await T.waitFor("B's reveal 0", () => T.saw(T.b, "reveal", 0));
        return { log: T.b.log.map((l) => l.name), auth: T.b.log.find((l) => l.name === "authenticated"),
                 resume: T.b.sent.find((m) => m.op === "resume"), authSent: T.b.sent.filter((m) => m.op === "auth") };
    """)
    assert b_back["log"][b_back["log"].index("down"):][:4] == ["down", "reconnecting", "open", "authenticated"], b_back
    assert b_back["auth"]["duel"] == duel
    assert b_back["authSent"] == [{"op": "auth", "ref": b_back["authSent"][0]["ref"], "token": run(browser, "return T.b.client.token")}]
    assert b_back["resume"]["duel_id"] == duel and b_back["resume"]["after_seq"] == b_before >= 2

    # Question 1: A loses the "answered" event of its own wrong answer; the next event
    # skips ahead, so the client resumes from the last seq it saw and delivers in order.
    run(browser, """
        await T.waitFor("A's reveal 0", () => T.saw(T.a, "reveal", 0));
        T.a.lose = (m) => m.op === "event" && m.event === "answered";
        await T.waitFor("question 1", () => T.saw(T.a, "question", 1) && T.saw(T.b, "question", 1));
    """)
    right = server.correct_choice(duel, 1)
    wrong = (right + 1) % 4
    gap = run(browser, """
        const [duel, wrong, right] = args;
        const before = T.a.client.lastSeq(duel);
        const mine = await T.a.client.answer(duel, 1, wrong);
        await T.waitFor("B sees A's answer", () => T.b.events.some((e) => e.event === "answered" && e.qi === 1));
        const theirs = await T.b.client.answer(duel, 1, right);
        await T.waitFor("A's reveal 1", () => T.saw(T.a, "reveal", 1));
        return { before, mine, theirs, lost: T.a.lost.map((m) => m.seq),
                 resumes: T.a.sent.filter((m) => m.op === "resume") };
    """, duel, wrong, right)
    assert not gap["mine"]["correct"] and gap["mine"]["points"] == 0 and gap["theirs"]["correct"]
    assert gap["lost"] == [gap["before"] + 1]
    assert [r["after_seq"] for r in gap["resumes"]] == [gap["before"]] and gap["resumes"][0]["duel_id"] == duel

    # Question 2: both answer (B may be locked out); the duel completes for both.
    run(browser, "await T.waitFor('question 2', () => T.saw(T.a, 'question', 2) && T.saw(T.b, 'question', 2));")
    last = run(browser, """
        const [duel, right] = args;
        const mine = await T.a.client.answer(duel, 2, right);
        const theirs = await T.error(T.b.client.answer(duel, 2, 0));
        await T.waitFor("complete", () => T.saw(T.a, "complete") && T.saw(T.b, "complete"));
        return { mine, theirs };
    """, duel, server.correct_choice(duel, 2))
    assert last["mine"]["correct"]
    assert last["theirs"] is None or last["theirs"]["code"] in ("locked_out", "too_late")

    # Each client saw seqs 1..N once each, in order, the same events; complete is last.
    seen = run(browser, """
        const duel = args[0];
        const pick = (rec) => rec.events.filter((e) => e.duel === duel);
        return { a: pick(T.a), b: pick(T.b), lastA: T.a.client.lastSeq(duel), lastB: T.b.client.lastSeq(duel),
                 live: [T.a.client.liveDuelId, T.b.client.liveDuelId] };
    """, duel)
    for events in (seen["a"], seen["b"]):
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[0]["event"] == "init" and events[-1]["event"] == "complete"
        assert [e["event"] for e in events].count("question") == 3
    assert [(e["seq"], e["event"]) for e in seen["a"]] == [(e["seq"], e["event"]) for e in seen["b"]]
    assert seen["lastA"] == seen["lastB"] == len(seen["a"]) and seen["live"] == [None, None]
    result = seen["a"][-1]["result"]
    assert result["winner"] == a_id and result["reason"] == "completed"
    assert set(result["ratings"]) == {a_id, b_id}

    # A replay of the whole duel brings nothing new to the callbacks; the server's clock
    # is this machine's clock here, give or take the estimate.
    after = run(browser, """
        const count = T.a.events.length;
        await T.a.client.resume(args[0], 0);
        await T.sleep(500);
        const offset = T.a.client.clockOffsetMs;
        return { more: T.a.events.length - count, offset, skew: T.a.client.serverNow() - Date.now() - offset };
    """, duel)
    assert after["more"] == 0
    assert abs(after["offset"]) < 1000 and abs(after["skew"]) < 50

    # The other ops answer through the module.
    others = run(browser, """
        const c = T.a.client;
        const missed = (await T.b.client.mistakes(10)).questions;
        return {
          leaderboard: (await c.leaderboard(args[0], 100)).entries.map((e) => e.player),
          profile: (await c.profile(args[1])).player.username,
          history: (await c.history(5)).duels.map((d) => d.id),
          missed: missed.map((q) => q.duel_id),
          report: await c.report(missed[0].question_id, "the module test reports this question"),
          cancel: (await T.error(c.cancel())).code,
          forfeit: (await T.error(c.forfeit(args[2]))).code,
        };
    """, bank, b_id, duel)
    assert a_id in others["leaderboard"] and others["profile"] == f"ne{tag}"
    assert others["history"][0] == duel and duel in others["missed"] and others["report"] == {}
    assert others["cancel"] == "not_queued" and others["forfeit"] in ("duel_over", "unknown_duel")

    # Signing out ends the session everywhere: a third client on A's token is closed (1008),
    # reconnects, has its token refused once, drops it and stays connected, signed out.
    signed_out = run(browser, """
        const c = T.record("c");  // its Socket records what the third client sends
        const token = T.a.client.token;
        const c2 = new T.QuizDuelClient(T.url, { token, WebSocket: c.Socket, backoff: { initialMs: 200, maxMs: 400 } });
        const log = [];
        for (const n of ["open", "down", "reconnecting", "authenticated", "signedout", "token"]) c2.on(n, (p) => log.push([n, p && p.code !== undefined ? p.code : null]));
        await c2.connect();
        await T.waitFor("authenticated", () => log.some(([n]) => n === "authenticated"));
        await T.a.client.logout();
        await T.waitFor("signedout", () => log.some(([n]) => n === "signedout"), 10000);
        await T.sleep(1500);  // no re-auth loop
        const result = { log: [...log], token: c2.token, connected: c2.connected, signedIn: c2.signedIn,
                         auths: c.sent.filter((m) => m.op === "auth").length, aToken: T.a.client.token };
        c2.close();
        return result;
    """)
    names = [n for n, _ in signed_out["log"]]
    assert ["down", 1008] in signed_out["log"], signed_out
    assert ["signedout", "unauthorized"] in signed_out["log"] and names.count("signedout") == 1
    assert names.count("down") == 1 and signed_out["auths"] == 2, str(signed_out["log"])  # the first sign-in, one refused try
    assert signed_out["token"] is None and signed_out["connected"] and not signed_out["signedIn"]
    assert signed_out["aToken"] is None

