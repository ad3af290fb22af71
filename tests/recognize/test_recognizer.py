"""Sensitive-term recognition: offsets on real and Unicode text, the paper example, every rule with positives
from several countries and negatives, custom entities, overlaps, type filtering, batching, the SQLite cache."""

from __future__ import annotations

import csv
import itertools
import multiprocessing
import sqlite3
from types import SimpleNamespace

import pytest

from anonymizer.recognize import (
    BUILTIN_TYPES,
    CustomEntity,
    Term,
    TermCache,
    TermRecognizer,
    recognize_with_cache,
)
from anonymizer.recognize import recognizer as rec  # the module; `recognizer` is a fixture here
from tests.helpers import kanon_file


def read_texts(name: str) -> list[str]:
    with kanon_file(name).open(encoding="utf-8", newline="") as f:
        return [row["text"] for row in csv.DictReader(f)]


UNICODE_SAMPLES = [
    "😀🎉 Jürgen Müller from München wrote to jürgen@example.de on Monday.",
    "🙂🙂🙂 Mail: josé.garcía@correo.es, tel. +34 912 345 678, web https://es.wikipedia.org/wiki/Peñíscola.",
    "東京に住んでいる田中さん。電話03-1234-5678、〒100-0001。メールはtaro@example.jpまで。Taro Yamada visited Paris.",
    "Café owner José García (jose\u0301@correo.es) moved to São Paulo in 2004 👩‍👩‍👧.",
    "Привет! Иван Петров живёт в Москве, пишите на иван@пример.рф или звоните +7 495 123-45-67.",
    "🇨🇦 Office: K1A 0B1 Ottawa. 🇬🇧 London SW1A 1AA. 🇳🇱 1012 AB Amsterdam. ☎ (555) 123-4567.",
]


@pytest.fixture(scope="module")
def recognizer() -> TermRecognizer:
    return TermRecognizer()


@pytest.fixture(scope="module")
def rules_only() -> TermRecognizer:
    return TermRecognizer(entity_types=["MAIL", "URL", "PHONE", "POSTCODE"])


@pytest.fixture(scope="module")
def blog_texts() -> list[str]:
    return read_texts("blogs_1k.csv")


@pytest.fixture(scope="module")
def blog_terms(recognizer, blog_texts) -> list[list[Term]]:
    return list(recognizer.recognize_many(blog_texts))


def spans(terms: list[Term]) -> list[tuple[str, str]]:
    return [(t.text, t.label) for t in terms]


def found(recognizer: TermRecognizer, text: str, label: str) -> list[str]:
    return [t.text for t in recognizer.recognize(text) if t.label == label]


def assert_valid(text: str, terms: list[Term]) -> None:
    for term in terms:
        assert 0 <= term.start < term.end <= len(text)
        assert text[term.start:term.end] == term.text
    assert all(a.end <= b.start for a, b in itertools.pairwise(terms)), "sorted, non-overlapping"


# ------------------------------------------------------------------------------------------- offsets

def test_offsets_on_real_blog_posts(blog_texts, blog_terms):
    assert len(blog_terms) == len(blog_texts) == 1000
    for text, terms in zip(blog_texts, blog_terms, strict=True):
        assert_valid(text, terms)
    labels = {t.label for terms in blog_terms for t in terms}
    assert {"PERSON", "GPE", "DATE", "URL", "MAIL"} <= labels
    non_ascii = [(text, terms) for text, terms in zip(blog_texts, blog_terms, strict=True) if not text.isascii()]
    assert non_ascii and any(terms for _, terms in non_ascii)


def test_offsets_are_str_indices_in_unicode_text(recognizer):
    for text in UNICODE_SAMPLES:
        terms = recognizer.recognize(text)
        assert terms, text
        assert_valid(text, terms)
    text = UNICODE_SAMPLES[0]
    mail = next(t for t in recognizer.recognize(text) if t.label == "MAIL")
    assert mail.text == "jürgen@example.de"
    assert mail.start == text.index("jürgen@")      # str index: the two emoji count as 2, not 8 bytes
    assert len(text[:mail.start].encode("utf-8")) != mail.start
    person = next(t for t in recognizer.recognize(text) if t.label == "PERSON")
    assert person.text == "Jürgen Müller"           # non-ASCII characters are kept, not stripped


def test_japanese_text_keeps_its_characters(recognizer):
    text = UNICODE_SAMPLES[2]
    got = spans(recognizer.recognize(text))
    assert ("03-1234-5678", "PHONE") in got
    assert ("100-0001", "POSTCODE") in got
    assert ("taro@example.jp", "MAIL") in got       # not "メールはtaro@example.jpまで"


def test_term_key_normalises_case_whitespace_and_unicode_forms():
    assert Term(0, 9, "GPE", "New  York").key() == Term(0, 8, "GPE", "new york").key() == "new york"
    assert Term(0, 5, "PERSON", "Jose\u0301").key() == Term(0, 4, "PERSON", "JOSÉ").key()
    assert Term(0, 6, "GPE", "Ｔｏｋｙｏ").key() == "tokyo"
    assert Term(0, 6, "PERSON", "Straße").key() == Term(0, 7, "PERSON", "STRASSE").key()


# ------------------------------------------------------------------------------------------- paper example

def test_paper_example(recognizer):
    texts = read_texts("rx-anon/paper_example.csv")
    terms = [spans(t) for t in recognizer.recognize_many(texts)]
    assert ("Pedro", "PERSON") in terms[0]
    assert ("Mexico", "GPE") in terms[0]
    assert ("Canada", "GPE") in terms[3]
    assert ("Ben", "PERSON") in terms[3]
    assert ("UK", "GPE") in terms[4]
    assert ("UK", "GPE") in terms[8]
    assert terms[1] == [] and terms[2] == []
    for text, got in zip(texts, recognizer.recognize_many(texts), strict=True):
        assert_valid(text, got)


# ------------------------------------------------------------------------------------------- rules

@pytest.mark.parametrize("address", [
    "jürgen@example.de", "john.doe+news@mail.example.co.uk", "o'brien@example.ie", "иван@пример.рф",
    "josé.garcía@correo.es", "user_1@sub.example-site.com", "a@b.xn--p1ai",
])
def test_mail_positive(rules_only, address):
    assert found(rules_only, f"Write to {address}, please.", "MAIL") == [address]


@pytest.mark.parametrize("text", ["user@localhost", "an @ sign", "price: 5@3.99", "me@home", "@handle"])
def test_mail_negative(rules_only, text):
    assert found(rules_only, text, "MAIL") == []


def test_mail_stops_at_cjk(rules_only):
    assert found(rules_only, "メールはtaro@example.jpまで", "MAIL") == ["taro@example.jp"]


@pytest.mark.parametrize(("text", "url"), [
    ("see http://example.com/a?b=1&c=2.", "http://example.com/a?b=1&c=2"),
    ("(see https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("visit www.example.co.uk, now", "www.example.co.uk"),
    ("my code is at github.com/user/repo!", "github.com/user/repo"),
    ("read https://de.wikipedia.org/wiki/Müller.", "https://de.wikipedia.org/wiki/Müller"),
    ("詳細はhttps://example.jp/page、です", "https://example.jp/page"),
    ("HTTP://EXAMPLE.COM/X", "HTTP://EXAMPLE.COM/X"),
])
def test_url_positive(rules_only, text, url):
    assert found(rules_only, text, "URL") == [url]


@pytest.mark.parametrize("text", ["and/or", "e.g./i.e.", "24.5/100 km/h", "example.com", "http:// nothing",
                                  "www. spaced"])
def test_url_negative(rules_only, text):
    assert found(rules_only, text, "URL") == []


@pytest.mark.parametrize("number", [
    "+49 30 1234567",            # Germany
    "+1 (555) 123-4567",         # US / Canada
    "+44 (0)20 7946 0958",       # UK with trunk
    "+81 3-1234-5678",           # Japan
    "+33 1 23 45 67 89",         # France
    "+91 98765 43210",           # India
    "+65.6337.7800",             # Singapore
    "+4930123456",               # compact E.164
    "(555) 123-4567",            # US national
    "(02) 9876 5432",            # Australia
    "030 1234567",               # Germany national
    "030/1234567",
    "03-1234-5678",              # Japan national
    "090-1234-5678",
    "020 7946 0958",             # UK national
    "06 12 34 56 78",            # France national
    "555-123-4567",
    "555.123.4567",
    "1-800-555-1234",
    "138 0013 8000",             # China mobile
])
def test_phone_positive(rules_only, number):
    assert found(rules_only, f"Call me at {number} tonight.", "PHONE") == [number]
    assert found(rules_only, f"電話{number}です", "PHONE") == [number]


@pytest.mark.parametrize("text", [
    "2004", "in 1999 and 2004", "2004-05-14", "14.05.2004", "05/14/2004", "14 05 2004", "2004-05-14 12:30",
    "2004-05-14T12:30:00", "12:30", "12:30:45", "$1,234,567.89", "€ 1.234.567,89", "1 234 567", "1.234.567",
    "12345678", "1234567890123", "192.168.0.1", "1990-2004", "2003 2004 2005", "3.14159265", "12345",
    "555-1234", "ISBN 978-3-16-148410-0", "score 3-2", "The Sierra Madre (1948) 69 2001: A Space Odyssey",
    "TOTAL 177 173 5993 3652 60.9 42285", "+5 points", "+1,000 votes", "version 1.2.3.4",
])
def test_phone_negative(rules_only, text):
    assert found(rules_only, text, "PHONE") == []


def test_phone_cut_out_of_a_longer_run(rules_only):
    assert found(rules_only, "Call 555-123-4567 2 times", "PHONE") == ["555-123-4567"]
    assert found(rules_only, "Mob: 0431 290 045 Thanks", "PHONE") == ["0431 290 045"]


@pytest.mark.parametrize(("text", "code"), [
    ("London SW1A 1AA", "SW1A 1AA"),             # UK
    ("Manchester M1 1AE, England", "M1 1AE"),
    ("Birmingham B16 8UE", "B16 8UE"),
    ("Ottawa, ON K1A 0B1", "K1A 0B1"),           # Canada
    ("Damrak 1, 1012 AB Amsterdam", "1012 AB"),  # Netherlands
    ("5611 AZ Eindhoven", "5611 AZ"),
    ("〒100-0001 東京都千代田区", "100-0001"),     # Japan
    ("〒 １００－０００１", "１００－０００１"),
    ("Silver Spring, MD 20904-3042", "20904-3042"),  # US ZIP+4
    ("zip 90210", "90210"),                      # keyword + plain code
    ("Zip code: 90210", "90210"),
    ("postal code 75008", "75008"),
    ("PLZ 10115 Berlin", "10115"),
    ("CP 75001 Paris", "75001"),
    ("CAP: 00184 Roma", "00184"),
    ("postcode 2000", "2000"),                   # Australia, 4 digits
    ("郵便番号：100-0001", "100-0001"),
    ("CEP 01310-100", "01310-100"),
])
def test_postcode_positive(rules_only, text, code):
    assert found(rules_only, text, "POSTCODE") == [code]


@pytest.mark.parametrize("text", [
    "12345", "I have 10115 songs", "in 2004", "it costs 75001 yen", "100-0001",   # no keyword, no 〒
    "Nikon CP5700", "Nikon CP 4500", "1024 MB of RAM", "2004 AD", "a 1974 VW Thing", "Compaq 2568 CL (I think)",
    "the 2004 US Open", "sw1a 1aa", "PLZ 123", "zip 1234567",
])
def test_postcode_negative(rules_only, text):
    assert found(rules_only, text, "POSTCODE") == []


# ------------------------------------------------------------------------------------------- custom entities

def test_custom_regex_and_terms():
    order = CustomEntity("ORDER", patterns=(r"[A-Z]{3}[0-9]{3}[A-Z]{2}", r"\b\d-\d-[0-9]{12}\b"))
    job = CustomEntity("JOB", terms=("engineer", "data scientist", "biologist", "C++"))
    place = CustomEntity("PLACE", terms=("東京", "New York"))
    r = TermRecognizer(entity_types=[], custom_entities=[order, job, place])
    text = ("Order abc123de and 1-2-123456789012: a Data  Scientist, an ENGINEER, engineers, bioengineer, "
            "C++ dev, 東京都 and new\nyork.")
    got = spans(r.recognize(text))
    assert got == [("abc123de", "ORDER"), ("1-2-123456789012", "ORDER"), ("Data  Scientist", "JOB"),
                   ("ENGINEER", "JOB"), ("C++", "JOB"), ("東京", "PLACE"), ("new\nyork", "PLACE")]


def test_custom_entity_duck_typing_and_errors():
    r = TermRecognizer(entity_types=[], custom_entities=[SimpleNamespace(label="SIGN", patterns="aries|leo",
                                                                         terms=None)])
    assert spans(r.recognize("An Aries and a Leo, not Leon.")) == [("Aries", "SIGN"), ("Leo", "SIGN"),
                                                                    ("Leo", "SIGN")]
    with pytest.raises(ValueError, match="invalid regex"):
        TermRecognizer(custom_entities=[CustomEntity("BAD", patterns=("([",))])
    with pytest.raises(ValueError, match="label"):
        TermRecognizer(custom_entities=[CustomEntity("", terms=("x",))])


def test_custom_term_list_is_fast_for_many_terms():
    names = [f"name{i:05d}" for i in range(20_000)]
    r = TermRecognizer(entity_types=[], custom_entities=[CustomEntity("CUSTOMER", terms=tuple(names))])
    text = "Dear Name00042 and name19999, not name000420. " * 200
    got = r.recognize(text)
    assert [t.text for t in got[:2]] == ["Name00042", "name19999"] and len(got) == 400


# ------------------------------------------------------------------------------------------- overlaps

def test_overlap_rules_and_customs_win_over_ner(recognizer):
    text = "My name is Pedro, I'm a 36 years old engineer from Mexico."
    assert ("36 years old", "DATE") in spans(recognizer.recognize(text))
    job = CustomEntity("JOB", terms=("old engineer",))
    r = TermRecognizer(custom_entities=[job])
    got = spans(r.recognize(text))
    assert ("old engineer", "JOB") in got
    assert not any(label == "DATE" for _, label in got)       # the overlapped NER span is dropped
    assert ("Pedro", "PERSON") in got and ("Mexico", "GPE") in got
    assert_valid(text, r.recognize(text))


def test_overlap_between_rules_longer_wins(rules_only):
    text = "see http://user@example.com/path and user@example.com"
    assert spans(rules_only.recognize(text)) == [("http://user@example.com/path", "URL"),
                                                 ("user@example.com", "MAIL")]
    shorter = CustomEntity("HOST", patterns=(r"example\.com",))
    same = CustomEntity("MYMAIL", patterns=(r"user@example\.com",))
    r = TermRecognizer(entity_types=["MAIL", "URL"], custom_entities=[shorter, same])
    assert spans(r.recognize(text)) == [("http://user@example.com/path", "URL"), ("user@example.com", "MYMAIL")]


def test_resolve_unit():
    precise = [(0, 5, 1, "A"), (3, 10, 2, "B"), (3, 10, 0, "C"), (20, 22, 0, "D")]
    ner = [(0, 2, "PERSON"), (11, 15, "GPE"), (21, 30, "ORG")]
    assert rec._resolve(precise, ner) == [(0, 2, "PERSON"), (3, 10, "C"), (11, 15, "GPE"), (20, 22, "D")]


# ------------------------------------------------------------------------------------------- entity types

def test_entity_types_filtering(recognizer):
    text = "Pedro moved from Mexico to Canada on 14 May 2004; call +1 (555) 123-4567 or mail pedro@example.com."
    everything = {label for _, label in spans(recognizer.recognize(text))}
    assert {"PERSON", "GPE", "DATE", "PHONE", "MAIL"} <= everything
    only_gpe = TermRecognizer(entity_types=["gpe"])
    assert spans(only_gpe.recognize(text)) == [("Mexico", "GPE"), ("Canada", "GPE")]
    job = CustomEntity("JOB", terms=("Pedro",))
    assert {label for _, label in spans(TermRecognizer(entity_types=["PHONE"], custom_entities=[job])
                                        .recognize(text))} == {"PHONE", "JOB"}
    assert recognizer.entity_types == frozenset(BUILTIN_TYPES)
    with pytest.raises(ValueError, match="PERSN"):
        TermRecognizer(entity_types=["PERSN"])


def test_rules_only_never_loads_spacy(rules_only):
    assert rules_only.recognize("call 030 1234567") == [Term(5, 16, "PHONE", "030 1234567")]
    assert rules_only._nlp_obj is None


def test_pipeline_has_only_what_ner_needs(recognizer):
    assert recognizer.nlp.pipe_names == ["ner"]


# ------------------------------------------------------------------------------------------- batching

def test_recognize_many_equals_recognize(recognizer, blog_texts, blog_terms):
    texts = [*blog_texts[:60], "", "   ", *UNICODE_SAMPLES, blog_texts[60]]
    one_by_one = [recognizer.recognize(t) for t in texts]
    assert list(recognizer.recognize_many(texts)) == one_by_one
    assert list(recognizer.recognize_many(iter(texts))) == one_by_one       # any iterable, in order
    assert one_by_one[:60] == blog_terms[:60]
    assert one_by_one[60] == one_by_one[61] == []


def test_recognize_many_two_processes(blog_texts, blog_terms):
    two = TermRecognizer(n_process=2, batch_size=16)
    texts = blog_texts[:300]
    assert list(two.recognize_many(["", *texts, ""])) == [[], *blog_terms[:300], []]


def test_parts_recognized_in_any_order_and_batches_give_the_terms_of_one_stream(blog_texts, blog_terms, tmp_path):
    """What a job fanned out over workers relies on (kanon.web.jobs): a text's terms do not depend on the texts
    recognized with it, before it or in the same spaCy batch. Here parts of the posts are recognized last part
    first, in batches of 5 with texts of other parts cached already, into one cache; what the cache then holds is
    the terms of one stream of all posts in batches of 64 (``blog_terms``)."""
    texts = blog_texts[:120]
    parts = [texts[i:i + 23] for i in range(0, len(texts), 23)]
    other = TermRecognizer(batch_size=5)
    with TermCache(tmp_path / "terms.sqlite3") as cache:
        for part in reversed(parts):
            list(recognize_with_cache([*part, *texts[:3]], other, cache, chunk=7, on_characters=lambda n: None))
        assert len(cache) == len(set(texts))
        assert list(recognize_with_cache(texts, other, cache)) == blog_terms[:120]


def test_daemon_process_falls_back_to_one_process(monkeypatch):
    r = TermRecognizer(n_process=2)
    monkeypatch.setattr(multiprocessing, "current_process", lambda: SimpleNamespace(daemon=True))
    assert r._n_process() == 1


def test_long_text_is_cut_into_pieces(recognizer, monkeypatch):
    sentence = "Pedro flew from Mexico to Canada. "
    text = sentence * 30 + "Write to jürgen@example.de now."
    monkeypatch.setattr(rec, "NER_MAX_CHARS", 100)
    pieces = rec._segments(text, 100)
    assert len(pieces) > 5 and "".join(p for _, p in pieces) == text
    assert all(text[o:o + len(p)] == p and len(p) <= 100 for o, p in pieces)
    cut = recognizer.recognize(text)
    assert_valid(text, cut)
    assert sum(1 for t in cut if (t.text, t.label) == ("Canada", "GPE")) == 30
    assert cut[-1] == Term(len(text) - 22, len(text) - 5, "MAIL", "jürgen@example.de")


def test_bad_input():
    r = TermRecognizer(entity_types=["PHONE"])
    with pytest.raises(TypeError):
        list(r.recognize_many(["ok", None]))
    with pytest.raises(ValueError):
        TermRecognizer(n_process=0)


# ------------------------------------------------------------------------------------------- cache

class CountingNLP:
    """Wraps a spaCy pipeline and counts the texts that go through NER."""

    def __init__(self, nlp):
        self.nlp, self.texts, self.calls = nlp, 0, 0

    def pipe(self, texts, **kwargs):
        self.calls += 1

        def counted():
            for text in texts:
                self.texts += 1
                yield text
        return self.nlp.pipe(counted(), **kwargs)


def test_cache_second_run_skips_ner(tmp_path, recognizer, blog_texts):
    texts = [*blog_texts[:120], *UNICODE_SAMPLES, blog_texts[0], ""]
    r = TermRecognizer()
    counter = CountingNLP(recognizer.nlp)
    r._nlp_obj = counter
    progress: list[tuple[int, str]] = []
    with TermCache(tmp_path / "terms.sqlite") as cache:
        first = list(recognize_with_cache(texts, r, cache, chunk=50, progress=lambda n, m: progress.append((n, m))))
        assert [n for n, _ in progress] == [50, 100, 128]
        assert counter.texts == len({t for t in texts if t.strip()})   # a repeated post once, "" never
        assert counter.calls == 1  # one nlp.pipe for all chunks: spaCy's processes start once
        assert first == [recognizer.recognize(t) for t in texts]

    counter.texts = counter.calls = 0
    progress.clear()
    with TermCache(tmp_path / "terms.sqlite") as cache:
        second = list(recognize_with_cache(iter(texts), r, cache, chunk=50,
                                           progress=lambda n, m: progress.append((n, m))))
    assert counter.texts == 0 and counter.calls == 0
    assert second == first
    assert progress[-1][0] == len(texts) and "128 from cache" in progress[-1][1]

    fresh = TermRecognizer()                              # same fingerprint: a fully cached run never loads spaCy
    assert fresh.fingerprint == r.fingerprint
    with TermCache(tmp_path / "terms.sqlite") as cache:
        assert list(recognize_with_cache(texts, fresh, cache)) == first
    assert fresh._nlp_obj is None


def test_cache_partial_hits_keep_order(tmp_path, recognizer):
    texts = [f"Call Pedro in Mexico at 030 12345{i:02d}." for i in range(10)]
    with TermCache(tmp_path / "c.sqlite") as cache:
        cache.put_many(recognizer.fingerprint, texts[::2], [recognizer.recognize(t) for t in texts[::2]])
        counter = CountingNLP(recognizer.nlp)
        r = TermRecognizer()
        r._nlp_obj = counter
        got = list(recognize_with_cache(texts, r, cache, chunk=4))
    assert counter.texts == 5
    assert got == [recognizer.recognize(t) for t in texts]


def test_cache_without_cache_object(recognizer):
    texts = ["Pedro lives in Mexico.", "Ben too."]
    assert list(recognize_with_cache(texts, recognizer, None)) == [recognizer.recognize(t) for t in texts]


def test_cache_fingerprint_differs_and_misses(tmp_path, recognizer):
    other = TermRecognizer(entity_types=["PERSON"])
    custom = TermRecognizer(custom_entities=[CustomEntity("JOB", terms=("engineer",))])
    fingerprints = {recognizer.fingerprint, other.fingerprint, custom.fingerprint, TermRecognizer().fingerprint}
    assert len(fingerprints) == 3
    assert len(recognizer.fingerprint) == 64
    text = "Ben from Canada."
    with TermCache(tmp_path / "c.sqlite") as cache:
        cache.put_many(recognizer.fingerprint, [text], [recognizer.recognize(text)])
        assert cache.get_many(recognizer.fingerprint, [text, "other"]) == [recognizer.recognize(text), None]
        assert cache.get_many(other.fingerprint, [text]) == [None]
        assert cache.get_many(custom.fingerprint, [text]) == [None]


def test_cache_round_trip_preserves_unicode(tmp_path):
    text = "😀 東京の田中さん (tanaka@例え.jp) — Jürgen Müller, São Paulo, \ud800 lone surrogate"
    terms = [Term(2, 4, "GPE", "東京"), Term(5, 7, "PERSON", "田中"),
             Term(text.index("Jürgen"), text.index("Jürgen") + 13, "PERSON", "Jürgen Müller"),
             Term(text.index("São"), text.index("São") + 9, "GPE", "São Paulo")]
    assert all(text[t.start:t.end] == t.text for t in terms)
    path = tmp_path / "nested" / "unicode.sqlite"
    cache = TermCache(path)
    cache.put_many("fp", [text, "empty"], [terms, []])
    cache.close()
    cache = TermCache(path)
    assert cache.get_many("fp", [text, "empty", "missing"]) == [terms, [], None]
    assert len(cache) == 2
    cache.close()
    stored = sqlite3.connect(path).execute("SELECT terms FROM terms_v1").fetchall()
    assert any("GPE" in row[0] for row in stored)


def test_cache_ignores_corrupt_rows(tmp_path):
    with TermCache(tmp_path / "c.sqlite") as cache:
        cache.put_many("fp", ["short"], [[Term(0, 5, "X", "short")]])
        cache._db.execute("UPDATE terms_v1 SET terms = '[[0, 99, \"X\"]]'")
        assert cache.get_many("fp", ["short"]) == [None]
        cache._db.execute("UPDATE terms_v1 SET terms = 'not json'")
        assert cache.get_many("fp", ["short"]) == [None]


def test_cached_terms_are_decoded_as_json_gives_them_or_converted_as_before():
    """decode_terms takes JSON's ints and strs as they are and converts anything else as int()/str() would (a
    bool, a float, a digit string), and refuses what does not fit the text."""
    from anonymizer.recognize.cache import decode_terms

    text = "Hello Kurt"
    assert decode_terms(text, '[[6,10,"PERSON"],[true,"3",5],[0,2.5,"X"]]') == [
        Term(6, 10, "PERSON", "Kurt"), Term(1, 3, "5", "el"), Term(0, 2, "X", "He")]
    for refused in ('[[6,11,"PERSON"]]', '[[3,3,"X"]]', '[[-1,2,"X"]]', '[[0,"x","X"]]', '[[0,null,"X"]]',
                    '[[0,1]]', '{"a":1}', "not json"):
        assert decode_terms(text, refused) is None, refused
