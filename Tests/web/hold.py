"""Keeping a browser's page still while a test looks at it: its duel events held back (the server
plays on; the client delivers what it held, in order, when released) and its clock stopped (the
countdown and the question timer stand still). Used to screenshot a moment of a game at several
sizes and themes, which takes longer than the moment lasts. The page's client is not changed
for this: the test wraps the instance's methods from outside (window.quizduel.client)."""

INSTALL = """
const client = window.quizduel.client;
if (!window.__hold) {
  const hold = window.__hold = { on: false, until: null, held: [], last: null };
  const deliver = client._deliver;  // the prototype's method: the instance gets a wrapper of its own
  const index = (e) => (e.event === "reveal" ? e.record?.reveal?.question_index : e.record?.question?.index);
  const matches = (e, u) => !!u && e.event === u.event && (u.index === null || index(e) === u.index);
  client._deliver = function (event) {
    if (hold.on) { hold.held.push(event); return; }
    deliver.call(client, event);
    if (matches(event, hold.until)) { hold.on = true; hold.last = event; }
  };
  hold.release = (until) => {
    hold.on = false;
    hold.until = until;
    const queued = hold.held;
    hold.held = [];
    for (const event of queued) client._deliver(event);  // held again at `until`, if it comes
  };
}
"""


def hold_after(browser, event, index=None):
    """From now on, delivers events up to and including the next `event` (of question `index`),
    then holds the rest back."""
    browser.execute_script(INSTALL + "window.__hold.until = { event: arguments[0], index: arguments[1] };", event, index)


def held(browser):
    """The event the page stopped after (its record), or None while it is not holding."""
    return browser.execute_script("const h = window.__hold; return h && h.on ? h.last : null;")


def release(browser, event=None, index=None):
    """Delivers what was held, up to the next `event` (of question `index`) if one is given,
    and starts the clock again."""
    browser.execute_script(
        "delete window.quizduel.client.serverNow;"
        "window.__hold.release(arguments[0] ? { event: arguments[0], index: arguments[1] } : null);", event, index)


def stop_clock(browser, server_ms=None):
    """The page's clock (the server's, as the client estimates it) reads `server_ms` (else what it
    reads now) until start_clock() or release()."""
    browser.execute_script("const c = window.quizduel.client, at = arguments[0] ?? c.serverNow(); c.serverNow = () => at;",
                           server_ms)


def start_clock(browser):
    browser.execute_script("delete window.quizduel.client.serverNow;")
