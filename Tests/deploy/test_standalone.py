"""The repository stands alone: nothing in it points at a path outside it."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKED = ["README.md", "docs", "Sources", "Tests", "web", "sql", "bench", "scripts", "Makefile",
           "Dockerfile", "docker-compose.yml", "docker"]
# Spelled in pieces so that this file does not match the search it makes.
SHARED = "shared" + "/"
OUTSIDE = re.compile(r"\.\./" + SHARED + "|" + SHARED + r"(PROTOCOL|ARCHITECTURE|STYLE)\.md|/work/" + SHARED)


def files():
    for name in CHECKED:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for child in path.rglob("*"):
                if child.is_file() and "results" not in child.parts and child.suffix not in {".png", ".jpg"}:
                    yield child


def test_no_reference_outside_the_repository():
    hits = []
    for path in files():
        if path == pathlib.Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "references outside the repository:\n" + "\n".join(hits)


def test_every_rule_cited_in_code_exists_in_the_protocol():
    protocol = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    rules = set(int(n) for n in re.findall(r"^(\d+)\. ", protocol.split("### Rules", 1)[1].split("# The server", 1)[0], re.M))
    cited = set()
    for path in (ROOT / "Sources").rglob("*.swift"):
        cited |= set(int(n) for n in re.findall(r"[Rr]ules? (\d+)", path.read_text(encoding="utf-8")))
    assert cited, "no rule citations found: the pattern is wrong"
    assert cited <= rules, f"rules cited but not in docs/PROTOCOL.md: {sorted(cited - rules)}"
