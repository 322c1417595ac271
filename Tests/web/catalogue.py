"""The client's words as the tests read them: web/i18n/<lang>.json, filled in as js/i18n.js fills
them (placeholders, plural forms), so that a test says what the page should say in any of the
client's languages instead of hard-coding English."""
import json
import re

from helpers import ROOT

LANGUAGES = ("en", "zh-Hans", "de")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def load(lang):
    return json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


class Catalogue:
    def __init__(self, lang):
        self.lang = lang
        self.strings = load(lang)

    def __repr__(self):
        return f"Catalogue({self.lang!r})"

    def plural(self, count):
        """Intl.PluralRules' category, for the three languages the client speaks: English and
        German say "one" for 1 only; Chinese has no plural forms ("other")."""
        return "one" if self.lang in ("en", "de") and count == 1 else "other"

    def form(self, key, count=None):
        entry = self.strings[key]  # a KeyError names a key the catalogue lacks
        if isinstance(entry, dict):
            return entry.get(self.plural(count if count is not None else 0), entry["other"])
        return entry

    def __call__(self, key, **values):
        """The text of `key` with its placeholders filled, as the page shows it."""
        text = self.form(key, values.get("count"))
        return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)

    def pattern(self, key, **values):
        """A regex of `key`'s text: the placeholders given in `values` as those values, the others as
        named groups (a plural entry without `count` matches any of its forms, unnamed)."""
        entry = self.strings[key]
        if isinstance(entry, dict) and "count" not in values:
            return re.compile("|".join(f"(?:{template_regex(form, values, named=False)})" for form in entry.values()))
        return re.compile(template_regex(self.form(key, values.get("count")), values))

    def keys(self):
        return self.strings.keys()


def template_regex(template, values=None, named=True):
    """A catalogue text as a regex: literal text escaped, each placeholder its value or a group."""
    values = values or {}
    out, at, names = [], 0, set()
    for m in PLACEHOLDER.finditer(template):
        out.append(re.escape(template[at:m.start()]))
        name = m.group(1)
        if name in values:
            out.append(re.escape(str(values[name])))
        elif named and name not in names:
            names.add(name)
            out.append(f"(?P<{name}>.+?)")
        else:
            out.append("(?:.+?)")
        at = m.end()
    out.append(re.escape(template[at:]))
    return "".join(out)
