"""What the page says, checked against the catalogues: no catalogue key shows as itself (what
js/i18n.js's t() returns for a key it lacks), and a page in Chinese or German shows no English
of the client's own (server content, such as a bank's title or a question, may be English)."""
import re

from catalogue import Catalogue, PLACEHOLDER, template_regex

# Every visible piece of text: each visible element's own text (its text nodes joined), the
# labelling attributes of visible elements, the chosen option of each visible picker, and the
# page's title. Text for screen readers only (.visually-hidden, 1 px) counts as visible here.
TEXTS = """
const out = [document.title];
const visible = (el) => el.checkVisibility({ visibilityProperty: true });
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {
  acceptNode: (el) => ["SCRIPT", "STYLE", "TEMPLATE"].includes(el.tagName) || !visible(el)
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
});
for (let el = walk.nextNode(); el; el = walk.nextNode()) {
  const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join("");
  out.push(own);
  for (const attr of ["aria-label", "aria-description", "title", "placeholder", "alt"]) {
    if (el.hasAttribute(attr)) out.push(el.getAttribute(attr));
  }
  if (el.tagName === "SELECT" && el.selectedOptions.length) out.push(el.selectedOptions[0].text);
}
return out;
"""


def page_texts(browser):
    texts = (" ".join(t.split()) for t in browser.execute_script(TEXTS))
    return [t for t in texts if re.search(r"[^\W\d_]", t)]


def _literal_letters(template):
    return re.findall(r"[A-Za-z]{2,}", PLACEHOLDER.sub(" ", template))


_ENGLISH = {}


def _english_only(lang):
    """The English texts that the catalogue of `lang` says differently, as regexes, less any
    that `lang` also uses itself (a word both languages have, e.g. German "Start")."""
    if lang not in _ENGLISH:
        en, target = Catalogue("en"), Catalogue(lang)
        # (A text of placeholders alone, such as "{mine} : {theirs}", would match anything.)
        own = [re.compile(template_regex(form, named=False)) for key in target.keys() for form in _forms(target.strings[key])
               if re.search(r"[^\W\d_]", PLACEHOLDER.sub(" ", form))]
        found = []
        for key in en.keys():
            if en.strings[key] == target.strings[key]:
                continue
            for form in _forms(en.strings[key]):
                # Only texts with a word of their own: "{value} %" or "{seconds} s" tell nothing.
                if _literal_letters(form):
                    found.append((key, form, re.compile(template_regex(form, named=False))))
        _ENGLISH[lang] = (found, own)
    return _ENGLISH[lang]


def _forms(entry):
    return [entry] if isinstance(entry, str) else list(entry.values())


def key_leaks(texts, cat):
    """Texts that are (or contain) a catalogue key: a key the page asked for and did not get."""
    namespaces = sorted({key.split(".")[0] for key in cat.keys()}, key=len, reverse=True)
    shaped = re.compile(r"(?<![\w./:-])(?:%s)\.[A-Za-z][\w-]*(?:\.[\w-]+)*" % "|".join(map(re.escape, namespaces)))
    return [t for t in texts if t in cat.strings or shaped.search(t)]


def english_leaks(texts, cat):
    """Texts of a page in `cat`'s language (not English) that are English UI strings."""
    if cat.lang == "en":
        return []
    found, own = _english_only(cat.lang)
    leaks = []
    for text in texts:
        for key, form, regex in found:
            if regex.fullmatch(text) and not any(o.fullmatch(text) for o in own):
                leaks.append(f"{text!r} (en {key}: {form!r})")
                break
    return leaks


def assert_speaks(browser, cat, where=""):
    """The page on show speaks `cat`'s language: no raw key, and no English in a zh or de page."""
    texts = page_texts(browser)
    assert texts, f"{where}: no text on the page"
    keys = key_leaks(texts, cat)
    assert not keys, f"{where}: catalogue keys on the page ({cat.lang}): {keys}"
    english = english_leaks(texts, cat)
    assert not english, f"{where}: English on the {cat.lang} page: {english}"
