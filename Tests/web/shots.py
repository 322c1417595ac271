"""One screen at every size and theme: a screenshot of each, saved as
.build/web-screenshots/<screen>-<w>x<h>-<theme>.png, an axe check of each, and the layout checks:
nothing wider than the screen, no toast over a heading or a control, and the screen's main action
reachable, not under the tab bar. The theme is Chrome's prefers-color-scheme emulation (the
client follows the system's; it has no theme setting of its own)."""
from a11y import describe, violations
from helpers import SHOTS

SIZES = ((360, 640), (390, 844), (1280, 800))
THEMES = ("light", "dark")
PHONE = ((390, 844), "light")  # what the browser shows between captures, as the other tests do


def set_view(browser, size, theme):
    width, height = size
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})


# Waits for the animations that end (a toast sliding in, a tile's pop) to end, then for two
# frames: axe measures colours as painted, and half-faded text fails contrast. The spinner's
# endless turn does not count.
SETTLE = """
const done = arguments[arguments.length - 1];
const started = performance.now();
const busy = () => document.getAnimations().some((a) => a.playState === "running"
  && a.effect && a.effect.getComputedTiming().iterations !== Infinity);
(function check() {
  if (!busy() || performance.now() - started > 3000) requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
  else setTimeout(check, 30);
})();
"""

# Layout at this size: the page's and the screen's widths, toasts over headings or controls, and
# (given a selector) whether the main action, scrolled into view, is where a tap lands and above
# the tab bar.
LAYOUT = """
const [selector] = arguments;
const main = document.querySelector("main");
const nav = document.getElementById("nav");
const out = { page: document.documentElement.scrollWidth, inner: innerWidth, over: main.scrollWidth - main.clientWidth,
  covered: [], action: null };
const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + (e.textContent || "").trim().slice(0, 30);
const toasts = [...document.querySelectorAll("#toasts .toast")].map((t) => t.getBoundingClientRect());
const shown = main.getBoundingClientRect();  // the screen scrolls inside main: what is outside is clipped
for (const e of document.querySelectorAll("main h2, main button, main a, main input, main select")) {
  if (!e.checkVisibility({ visibilityProperty: true })) continue;
  const b = e.getBoundingClientRect();
  const r = { left: Math.max(b.left, shown.left), right: Math.min(b.right, shown.right),
    top: Math.max(b.top, shown.top), bottom: Math.min(b.bottom, shown.bottom) };
  if (r.left < r.right && r.top < r.bottom && toasts.some((t) => overlap(t, r))) out.covered.push(name(e));
}
if (selector) {
  const e = document.querySelector(selector);
  if (!e || !e.checkVisibility({ visibilityProperty: true })) {
    out.action = { missing: selector };
  } else {
    e.scrollIntoView({ block: "nearest" });
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const navTop = nav.hidden ? innerHeight : nav.getBoundingClientRect().top;
    out.action = { name: name(e), hit: !!hit && e.contains(hit), hitName: hit ? name(hit) : null,
      inView: r.top >= 0 && r.bottom <= innerHeight + 0.5, aboveNav: r.bottom <= navTop + 0.5 };
  }
}
return out;
"""


def layout_problems(browser, action):
    got = browser.execute_script(LAYOUT, action)
    problems = []
    if got["page"] > got["inner"]:
        problems.append(f"the page is {got['page']} px wide in {got['inner']} px")
    if got["over"] > 0:
        problems.append(f"the screen overflows sideways by {got['over']} px")
    if got["covered"]:
        problems.append(f"toasts cover {got['covered']}")
    a = got["action"]
    if a is not None:
        if "missing" in a:
            problems.append(f"no visible main action {a['missing']}")
        elif not (a["hit"] and a["inView"] and a["aboveNav"]):
            problems.append(f"main action {a['name']!r} not reachable: a tap lands on {a['hitName']!r}, "
                            f"in view {a['inView']}, above the tab bar {a['aboveNav']}")
    return problems


def capture(browser, screen, action=None, prepare=None, report=None):
    """Every size and theme of the screen on show. `action`: a CSS selector of its main action;
    `prepare(browser)`: run at each size before the screenshot (e.g. scroll something into
    view; else the screen is scrolled to its top). Problems go to `report` (a list), as
    "<screen> <w>x<h> <theme>: …", so that one run names them all."""
    report = [] if report is None else report
    # Size first, theme second: a toast lasts 5 s, and the smallest phone is where it was in the way.
    for size in SIZES:
        for theme in THEMES:
            set_view(browser, size, theme)
            if prepare:
                prepare(browser)
            else:
                browser.execute_script("document.querySelector('main').scrollTop = 0")
            browser.execute_async_script(SETTLE)
            where = f"{screen} {size[0]}x{size[1]} {theme}"
            browser.save_screenshot(str(SHOTS / f"{screen}-{size[0]}x{size[1]}-{theme}.png"))
            found = violations(browser)
            if found:
                report.append(f"{where}: axe:\n{describe(found)}")
            report.extend(f"{where}: {problem}" for problem in layout_problems(browser, action))
    set_view(browser, *PHONE)
    return report
