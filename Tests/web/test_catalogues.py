"""The web client's words (issue 27): every language has every key, with the same placeholders;
the code asks only for keys that exist; every protocol error code has its sentence; and no
word is left in index.html or the screens' JavaScript outside the catalogues.

Plain file checks: no server, no browser (the fixtures in conftest.py start those only for
tests that ask for them)."""
import html.parser
import json
import re

from helpers import ROOT

WEB = ROOT / "web"
CATALOGUES = WEB / "i18n"
# The protocol module speaks to developers (its errors carry codes the screens turn into sentences).
JS = sorted(p for p in (WEB / "js").rglob("*.js") if p.name != "quizduel-client.js")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def load(path):
    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        assert not duplicates, f"{path.name}: keys twice: {duplicates}"
        return dict(pairs)
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)


def languages():
    source = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    listed = re.search(r"export const LANGUAGES = \[([^\]]*)\]", source).group(1)
    return re.findall(r'"([^"]+)"', listed)


def catalogues():
    return {lang: load(CATALOGUES / f"{lang}.json") for lang in languages()}


def forms(value):
    """The texts of an entry: one string, or a plural entry's forms."""
    return [value] if isinstance(value, str) else list(value.values())


def placeholders(value):
    return {name for text in forms(value) for name in PLACEHOLDER.findall(text)}


def test_every_language_has_a_catalogue_and_no_other_catalogue_exists():
    assert languages()[0] == "en" and set(languages()) == {"en", "zh-Hans", "de"}
    assert {p.stem for p in CATALOGUES.glob("*.json")} == set(languages())


def test_every_key_exists_in_every_language_with_the_same_placeholders():
    cats = catalogues()
    english = cats["en"]
    for lang, cat in cats.items():
        assert set(cat) - set(english) == set(), f"{lang}: keys English lacks: {sorted(set(cat) - set(english))}"
        assert set(english) - set(cat) == set(), f"{lang}: missing keys: {sorted(set(english) - set(cat))}"
        for key, value in cat.items():
            assert isinstance(value, (str, dict)), f"{lang}: {key}: a string or plural forms"
            if isinstance(value, dict):
                assert "other" in value and set(value) <= PLURAL_FORMS, f"{lang}: {key}: plural forms {sorted(value)}"
                assert isinstance(english[key], dict), f"{lang}: {key}: plural here, not in English"
                assert "count" in placeholders(value), f"{lang}: {key}: a plural entry is chosen by {{count}}"
            assert all(text.strip() for text in forms(value)), f"{lang}: {key}: empty"
            assert placeholders(value) == placeholders(english[key]), \
                f"{lang}: {key}: placeholders {sorted(placeholders(value))}, English has {sorted(placeholders(english[key]))}"


def used_keys():
    """The keys the code names: t("…") calls, key-shaped string literals (in ternaries, maps,
    data-i18n assignments) and index.html's data-i18n attributes; and the prefixes of keys
    built at run time (t(`error.${code}`))."""
    english = load(CATALOGUES / "en.json")
    namespaces = {key.split(".")[0] for key in english}
    literal = re.compile(r'["\']((?:%s)\.[A-Za-z0-9_.-]+)["\']' % "|".join(map(re.escape, sorted(namespaces))))
    keys, prefixes = {}, {}
    for path in JS:
        source = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\bt\(\s*\"([^\"]+)\"", source):
            keys.setdefault(match.group(1), path.name)
        for match in literal.finditer(source):
            keys.setdefault(match.group(1), path.name)
        for match in re.finditer(r"`((?:%s)\.[A-Za-z0-9_.]*)\$\{" % "|".join(map(re.escape, sorted(namespaces))), source):
            prefixes.setdefault(match.group(1), path.name)
    page = (WEB / "index.html").read_text(encoding="utf-8")
    for match in re.finditer(r'data-i18n="([^"]+)"', page):
        keys.setdefault(match.group(1), "index.html")
    for match in re.finditer(r'data-i18n-attr="([^"]+)"', page):
        for pair in match.group(1).split(";"):
            attr, key = pair.split(":")
            assert attr.strip() and key.strip(), f"index.html: data-i18n-attr {match.group(1)!r}"
            keys.setdefault(key.strip(), "index.html")
    return keys, prefixes


def test_the_code_asks_only_for_keys_that_exist():
    english = load(CATALOGUES / "en.json")
    keys, prefixes = used_keys()
    assert len(keys) > 300, "the key scan found too little: has the translate function been renamed?"
    missing = {key: where for key, where in keys.items() if key not in english}
    assert not missing, f"keys the code uses that the catalogue lacks: {missing}"
    for prefix, where in prefixes.items():
        assert any(key.startswith(prefix) for key in english), f"{where}: no key starts with {prefix!r}"


def test_every_key_in_the_catalogue_is_used():
    english = load(CATALOGUES / "en.json")
    keys, prefixes = used_keys()
    unused = sorted(k for k in english if k not in keys and not any(k.startswith(p) for p in prefixes))
    assert not unused, f"keys nothing uses: {unused}"


def test_every_error_code_reads_as_a_sentence():
    defs = json.loads((ROOT / "docs" / "schema" / "defs.json").read_text(encoding="utf-8"))
    codes = set(defs["$defs"]["error_code"]["enum"]) | {"timeout", "unavailable"}  # the last two: the client module's own
    for lang, cat in catalogues().items():
        missing = sorted(code for code in codes if f"error.{code}" not in cat)
        assert not missing, f"{lang}: error codes without a sentence: {missing}"
        assert "error.generic" in cat
        for code in codes:
            text = cat[f"error.{code}"]
            assert text.rstrip()[-1] in ".。!！", f"{lang}: error.{code} is not a sentence: {text!r}"


class VisibleText(html.parser.HTMLParser):
    """Collects text and labelling attributes of index.html that do not come from a catalogue."""
    VOID = {"meta", "link", "input", "img", "br", "hr", "source", "area", "base", "col", "embed", "param", "track", "wbr"}
    LABELS = ("aria-label", "title", "placeholder", "alt", "value")

    def __init__(self):
        super().__init__()
        self.stack = []  # (tag, filled from a catalogue or not shown as text)
        self.found = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        translated = set()
        for pair in (attrs.get("data-i18n-attr") or "").split(";"):
            if ":" in pair:
                translated.add(pair.split(":")[0].strip())
        for name in self.LABELS:
            value = attrs.get(name)
            if name == "value" and tag != "button":
                continue  # form values are data, not words
            if value and re.search(r"[^\W\d_]{2}", value) and name not in translated:
                self.found.append(f"<{tag}> {name}={value!r}")
        quiet = "data-i18n" in attrs or tag in ("script", "style") or any(q for _, q in self.stack)
        if tag not in self.VOID:
            self.stack.append((tag, quiet))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        quiet = any(q for _, q in self.stack)
        # Letters of any script count as words; digits, punctuation and symbols (·, ✓) do not.
        if not quiet and re.search(r"[^\W\d_]{2}", data):
            self.found.append(repr(data.strip()))

    def handle_comment(self, data):
        pass


def test_index_html_holds_no_words_of_its_own():
    parser = VisibleText()
    parser.feed((WEB / "index.html").read_text(encoding="utf-8"))
    assert not parser.found, f"text in index.html outside the catalogues: {parser.found}"


# Words written straight into the page from JavaScript: text assigned or passed to the
# message helpers, labelling attributes. (A heuristic: t() calls and data are fine.)
WORDS = r"[^\"'`]*[A-Za-z]{2}"
SUSPECT = [
    re.compile(r"\.(?:textContent|title|placeholder|ariaLabel)\s*=\s*[\"'`](?!\$\{)" + WORDS),
    re.compile(r"\b(?:flash|toast|status|prompt|confirm|alert)\(\s*[\"'`](?!\$\{)" + WORDS),
    re.compile(r"\bnote\(\s*[^,]+,\s*[\"'`](?!\$\{)" + WORDS),
    re.compile(r"setAttribute\(\s*\"(?:aria-label|aria-description|title|placeholder|alt)\",\s*[\"'`](?!\$\{)" + WORDS),
    re.compile(r"\"(?:aria-label|aria-description|title|placeholder)\":\s*[\"'`](?!\$\{)" + WORDS),
    # el(tag, attrs, "Some words"): a literal with letters, as a child.
    re.compile(r"\bel\([^;]*?\},\s*\"" + WORDS),
]


def test_the_screens_write_no_words_of_their_own():
    found = []
    for path in JS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue
            found += [f"{path.relative_to(WEB)}:{number}: {line.strip()}" for pattern in SUSPECT if pattern.search(line)]
    assert not found, "words outside the catalogues:\n" + "\n".join(found)
