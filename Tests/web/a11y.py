"""An accessibility check of the page on show with a current axe-core 4.x, in the browser the test
drives. axe-selenium-python bundles axe 3.1, which misses rules and reports old false positives;
the PyPI package axe-playwright-python ships a current axe.min.js, which Tests/web/run installs
(without Playwright: only the script is used) and this module injects with Selenium."""
import importlib.util
import pathlib

# The impacts that fail a test: axe's "serious" and "critical" (the bar).
BLOCKING = ("serious", "critical")

# Rules switched off, each with its reason. None so far: contrast and the rest are fixed in
# web/style.css and index.html, not excluded here.
DISABLED = {}


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("axe-playwright-python is not installed: run the tests with Tests/web/run")
    return (pathlib.Path(list(spec.submodule_search_locations)[0]) / "axe.min.js").read_text(encoding="utf-8")


_SOURCE = None


def axe_version(browser):
    inject(browser)
    return browser.execute_script("return window.axe.version")


def inject(browser):
    """Puts axe into the page once per page load (the client is one page: screens do not reload it)."""
    global _SOURCE
    if browser.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        return
    if _SOURCE is None:
        _SOURCE = axe_source()
    browser.execute_script(_SOURCE)


RUN = """
const done = arguments[arguments.length - 1];
const rules = {};
for (const id of arguments[0]) rules[id] = { enabled: false };
axe.run(document, { resultTypes: ["violations"], rules })
  .then((result) => done(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary, impact: n.impact })),
  }))))
  .catch((error) => done({ error: String(error) }));
"""


def violations(browser, impacts=BLOCKING):
    """The page's axe violations of `impacts`, as [{id, impact, help, nodes: [{target, summary}]}]."""
    inject(browser)
    browser.set_script_timeout(60)
    found = browser.execute_async_script(RUN, sorted(DISABLED))
    if isinstance(found, dict) and "error" in found:
        raise RuntimeError(f"axe.run failed: {found['error']}")
    return [v for v in found if v["impact"] in impacts]


def describe(found):
    """A readable list of violations for an assertion message."""
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for n in v["nodes"][:8]:
            lines.append(f"    {n['target']}: {(n['summary'] or '').splitlines()[-1].strip() if n['summary'] else ''}")
    return "\n".join(lines)
