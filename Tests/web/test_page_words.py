"""The checks the browser tests run on every page they visit in a language (page_words.py) catch
what they are for: a raw catalogue key, and English on a Chinese or German page; and they let
pass what is fine there (the page's own language, the server's content, numbers). Plain
Python: no server, no browser."""
from catalogue import Catalogue
from page_words import english_leaks, key_leaks


def test_a_raw_key_is_caught_in_any_language():
    for lang in ("en", "zh-Hans", "de"):
        cat = Catalogue(lang)
        assert key_leaks(["home.title"], cat) == ["home.title"]
        assert key_leaks(["Score: achievement.first_game.title"], cat)  # inside a sentence too
        assert key_leaks(["error.no_such_code"], cat)  # a key the catalogue lacks, as t() returns it
        assert not key_leaks([cat("home.title"), "http://127.0.0.1:8080/?room=K7M3QX", "3.5 s", "ada.b"], cat)


def test_english_on_a_german_or_chinese_page_is_caught():
    en = Catalogue("en")
    for lang in ("zh-Hans", "de"):
        cat = Catalogue(lang)
        assert english_leaks([en("home.title")], cat)
        assert english_leaks([en("duel.oppThinking", name="ada")], cat)  # filled placeholders too
        assert english_leaks([en("common.questions", count=10)], cat)  # and plural forms
        # The page's own language, the server's content and bare numbers pass.
        fine = [cat("home.title"), cat("duel.oppThinking", name="ada"), cat("common.questions", count=10),
                "World capitals", "What is the capital of Peru?", "1500", "3 : 0", "English"]
        assert english_leaks(fine, cat) == []


def test_an_english_page_has_no_english_leaks():
    en = Catalogue("en")
    assert english_leaks([en("home.title")], en) == []
