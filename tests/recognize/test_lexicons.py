"""The lexicon recognizers (gazetteer places, Census names, organisation suffixes, date and time shapes) that fill
what spaCy's NER misses, how they merge with it, the fingerprint switch, and progress in characters."""

from __future__ import annotations

import csv
import itertools
from types import SimpleNamespace

import pytest

from anonymizer.recognize import Term, TermCache, TermRecognizer, recognize_with_cache
from anonymizer.recognize import recognizer as rec
from anonymizer.recognize.lexicons import LEXICON_TYPES, Lexicons
from tests.helpers import kanon_file


class NoEntities:
    """A spaCy stand-in whose NER finds nothing (or the given spans, by text), counting the pieces it sees."""

    def __init__(self, spans: dict[str, list[tuple[int, int, str]]] | None = None):
        self.spans = spans or {}
        self.pieces: list[str] = []

    def pipe(self, texts, **kwargs):
        for text in texts:
            self.pieces.append(text)
            ents = [SimpleNamespace(start_char=s, end_char=e, label_=label) for s, e, label in self.spans.get(text, [])]
            yield SimpleNamespace(ents=ents)


def blind(**kwargs) -> TermRecognizer:
    """A recognizer whose spaCy finds nothing: whatever it returns comes from the lexicons and the rules."""
    r = TermRecognizer(**kwargs)
    r._nlp_obj = NoEntities()
    return r


def spans(terms: list[Term]) -> list[tuple[str, str]]:
    return [(t.text, t.label) for t in terms]


def assert_valid(text: str, terms: list[Term]) -> None:
    for term in terms:
        assert 0 <= term.start < term.end <= len(text) and text[term.start:term.end] == term.text
    assert all(a.end <= b.start for a, b in itertools.pairwise(terms)), "sorted, non-overlapping"


@pytest.fixture(scope="module")
def lexicons() -> Lexicons:
    return Lexicons(LEXICON_TYPES)


def lex(lexicons: Lexicons, text: str) -> list[tuple[str, str]]:
    return [(text[s:e], label) for s, e, label in lexicons.spans(text)]


# ------------------------------------------------------------------------------------------- what they find

def test_first_names_alone_when_spacy_misses_them():
    r = blind()
    assert spans(r.recognize("Lucas loves Kurt")) == [("Lucas", "PERSON"), ("Kurt", "PERSON")]


def test_real_spacy_misses_kurt_and_the_lexicons_find_him():
    for text in ("I saw Kurt at the mall", "Kurt called me."):
        assert TermRecognizer(lexicons=False).recognize(text) == []    # en_core_web_sm finds nobody here
        assert spans(TermRecognizer().recognize(text)) == [("Kurt", "PERSON")]


def test_gazetteer_city_and_relative_date():
    got = spans(blind().recognize("going to Omaha this weekend"))
    assert ("Omaha", "GPE") in got and ("this weekend", "DATE") in got


def test_organisation_suffix_and_institutions(lexicons):
    assert lex(lexicons, "Acme Widgets Inc.") == [("Acme Widgets Inc.", "ORG")]
    assert ("Acme Widgets Inc.", "ORG") in spans(blind().recognize("I work at Acme Widgets Inc. now"))
    text = "She studied at the University of Texas and Ohio State University, then Bank of America hired her."
    assert [t for t in lex(lexicons, text) if t[1] == "ORG"] == [
        ("University of Texas", "ORG"), ("Ohio State University", "ORG"), ("Bank of America", "ORG")]
    assert lex(lexicons, "Yesterday Foo GmbH said") == [("Yesterday", "DATE"), ("Foo GmbH", "ORG")]
    assert lex(lexicons, "the Support Group met at Community College") == []   # generic words only


@pytest.mark.parametrize(("text", "span", "label"), [
    ("on June 5, 2004 we met", "June 5, 2004", "DATE"),
    ("Saturday, June 5, 2004", "Saturday, June 5, 2004", "DATE"),
    ("born 5 June 1980", "5 June 1980", "DATE"),
    ("the 5th of June", "the 5th of June", "DATE"),
    ("posted 2004-06-05 at noon", "2004-06-05", "DATE"),
    ("posted 06/05/2004.", "06/05/2004", "DATE"),
    ("we moved in 1998 and", "1998", "DATE"),
    ("friends since 2003", "2003", "DATE"),
    ("music of the 90s rules", "the 90s", "DATE"),
    ("back in the 1990s", "the 1990s", "DATE"),
    ("see you at 9am", "9am", "TIME"),
    ("see you at 4:30 pm", "4:30 pm", "TIME"),
    ("I left at 11:10 sharp", "11:10", "TIME"),
    ("last Friday was fun", "last Friday", "DATE"),
    ("on Saturday night we", "Saturday night", "TIME"),
    ("wed in April.", "April", "DATE"),
    ("Merry Christmas Eve!", "Christmas Eve", "DATE"),
])
def test_dates_and_times(lexicons, text, span, label):
    assert (span, label) in lex(lexicons, text)


@pytest.mark.parametrize("text", [
    "John 3:16 says", "version 1.2.3.4", "a 16:9 screen", "I have 2004 songs", "score 3-2", "you may 2 go",
    "this may help", "May I?", "It costs 1998 dollars",
])
def test_not_dates(lexicons, text):
    assert [t for t in lex(lexicons, text) if t[1] in ("DATE", "TIME")] == []


def test_full_names_titles_initials_particles(lexicons):
    text = ("Will Smith and Mr. Brown met Dr Kovacs, John F. Kennedy, Ludwig van Beethoven's fan Sarah Jessica "
            "Parker and President Bush.")
    got = [t for t in lex(lexicons, text) if t[1] == "PERSON"]
    assert ("Will Smith", "PERSON") in got
    assert ("Brown", "PERSON") in got and ("Mr. Brown", "PERSON") not in got     # the title is left out
    assert ("Kovacs", "PERSON") in got and ("John F. Kennedy", "PERSON") in got
    assert ("Sarah Jessica Parker", "PERSON") in got and ("Bush", "PERSON") in got


@pytest.mark.parametrize("text", [
    "Will you come?", "May I?", "Mark my words.", "Grace is a virtue.", "Bill me later.", "Hope so!",
    "Rose petals everywhere.", "Merry Christmas, Will.", "Top of Page", "We ate at Olive Garden.",
    "I read a Gita today.", "Things I Will Never Do",
])
def test_common_words_are_not_people(lexicons, text):
    assert [t for t in lex(lexicons, text) if t[1] == "PERSON"] == []
    assert [t for t in spans(blind().recognize(text)) if t[1] == "PERSON"] == []


def test_common_word_first_name_needs_surname_or_title_or_mid_sentence(lexicons):
    assert ("Mark Johnson", "PERSON") in lex(lexicons, "Mark Johnson wrote it.")
    assert lex(lexicons, "Mark Power wrote it.") == []              # a common word as surname too: no
    assert ("Grace", "PERSON") in lex(lexicons, "I told Grace about it.")         # mid-sentence, after "told"
    assert ("Will", "PERSON") not in lex(lexicons, "I told Will about it.")       # "will" is far too common


@pytest.mark.parametrize(("text", "place"), [
    ("We drove to Des Moines today.", "Des Moines"), ("I live in St. Louis now.", "St. Louis"),
    ("Greetings from Fairbanks, AK", "Fairbanks"), ("Mobile, AL is hot", "Mobile"),
    ("Reading, Pennsylvania is nice", "Reading"), ("the weather in Alamosa was bad", "Alamosa"),
    ("I flew from Toronto to Frankfurt", "Frankfurt"), ("He moved to England.", "England"),
])
def test_places(lexicons, text, place):
    assert (place, "GPE") in lex(lexicons, text)


@pytest.mark.parametrize("text", [
    "Reading is fun.", "Orange juice is sweet.", "Nice day!", "my mobile phone", "reading in mobile",
    "Turkey sandwiches again", "We saw Atlantis.", "Sale ends today", "Alamosa was bad",
])
def test_common_words_are_not_places(lexicons, text):
    assert [t for t in lex(lexicons, text) if t[1] in ("GPE", "LOC")] == []


def test_continents_are_loc_and_the_city_of_a_first_name_needs_context(lexicons):
    assert ("Europe", "LOC") in lex(lexicons, "my plane leaves for Europe!")
    assert ("Austin", "GPE") in lex(lexicons, "We drove to Austin.")
    assert ("Austin", "PERSON") in lex(lexicons, "We met Austin there.")


def test_only_wanted_types(lexicons):
    text = "Kurt moved to Omaha on June 5, 2004 to work for Acme Widgets Inc."
    assert {label for _, label in lex(lexicons, text)} == {"PERSON", "GPE", "DATE", "ORG"}
    assert lex(Lexicons({"GPE"}), text) == [("Omaha", "GPE")]
    assert spans(blind(entity_types=["GPE"]).recognize(text)) == [("Omaha", "GPE")]
    assert not Lexicons({"MAIL", "CARDINAL"})


# ------------------------------------------------------------------------------------------- merging

def test_spacy_spans_win_and_fill_what_it_missed():
    text = "Kurt Cobain moved to Omaha with Lucas."
    r = TermRecognizer()
    # spaCy says "Kurt" is an ORG and "Omaha with" a WORK_OF_ART: both stay, the lexicons keep out of them
    r._nlp_obj = NoEntities({text: [(0, 4, "ORG"), (21, 31, "WORK_OF_ART")]})
    assert spans(r.recognize(text)) == [("Kurt", "ORG"), ("Omaha with", "WORK_OF_ART"), ("Lucas", "PERSON")]
    # a spaCy entity of a type not asked for still keeps the lexicons out of its span
    only_person = TermRecognizer(entity_types=["PERSON"])
    only_person._nlp_obj = NoEntities({text: [(0, 11, "ORG")]})
    assert spans(only_person.recognize(text)) == [("Lucas", "PERSON")]


def test_rules_win_over_lexicons():
    text = "See Omaha.com/visit or mail Kurt@example.com on June 5, 2004."
    got = spans(blind().recognize(text))
    assert ("Omaha.com/visit", "URL") in got and ("Kurt@example.com", "MAIL") in got
    assert ("June 5, 2004", "DATE") in got
    assert not any(label in ("GPE", "PERSON") for _, label in got)


def test_fill_unit():
    ner = [(0, 4, "ORG"), (10, 20, "GPE")]
    extra = [(0, 2, "PERSON"), (4, 6, "DATE"), (8, 11, "PERSON"), (19, 21, "X"), (20, 25, "TIME")]
    assert rec._fill(ner, extra) == [(0, 4, "ORG"), (4, 6, "DATE"), (10, 20, "GPE"), (20, 25, "TIME")]
    assert rec._fill([], extra) == extra and rec._fill(ner, []) == ner


def test_lexicons_off_is_spacy_only():
    text = "Lucas loves Kurt in Omaha"
    assert blind(lexicons=False).recognize(text) == []
    assert blind().recognize(text)


def test_fingerprint_differs_with_lexicons_on_and_off(tmp_path):
    on, off = TermRecognizer(), TermRecognizer(lexicons=False)
    assert on.fingerprint != off.fingerprint
    assert on.fingerprint == TermRecognizer(lexicons=True).fingerprint
    # rules only: the lexicons could add nothing, the fingerprint stays
    assert TermRecognizer(entity_types=["MAIL"]).fingerprint == TermRecognizer(entity_types=["MAIL"],
                                                                              lexicons=False).fingerprint
    text = "Lucas loves Kurt"
    a, b = blind(), blind(lexicons=False)
    with TermCache(tmp_path / "c.sqlite") as cache:
        assert list(recognize_with_cache([text], a, cache)) == [a.recognize(text)]
        assert list(recognize_with_cache([text], b, cache)) == [[]]      # not the cached lexicon result


def test_rules_only_recognizer_loads_no_lexicon_data(monkeypatch):
    from anonymizer.recognize import word_lists as module

    def boom():
        raise AssertionError("lexicon data loaded")

    monkeypatch.setattr(module, "word_data", boom)
    assert TermRecognizer(entity_types=["PHONE"]).recognize("call 030 1234567") == [
        Term(5, 16, "PHONE", "030 1234567")]


# ------------------------------------------------------------------------------------------- real blog posts

@pytest.fixture(scope="module")
def blog_texts() -> list[str]:
    with kanon_file("blogs_1k.csv").open(encoding="utf-8", newline="") as f:
        return [row["text"] for row in csv.DictReader(f)][:200]


def test_real_posts_gain_terms_and_stay_valid(blog_texts):
    on, off = TermRecognizer(), TermRecognizer(lexicons=False)
    off._nlp_obj = on.nlp
    with_lexicons = list(on.recognize_many(blog_texts))
    spacy_only = list(off.recognize_many(blog_texts))
    added: dict[str, int] = {}
    for text, new, old in zip(blog_texts, with_lexicons, spacy_only, strict=True):
        assert_valid(text, new)
        for term in set(old) - set(new):      # a spaCy term stays unless strong names replace it (people.py)
            assert any(p.label == "PERSON" and p.start < term.end and term.start < p.end for p in new) or any(
                n.start <= term.start and term.end <= n.end for n in new), term   # or it lies in "5th Ave"
        for term in set(new) - set(old):
            added[term.label] = added.get(term.label, 0) + 1
    assert added.get("PERSON", 0) >= 10 and added.get("DATE", 0) + added.get("TIME", 0) >= 5, added
    assert sum(added.values()) <= 0.1 * sum(map(len, spacy_only)), added     # fills gaps, no flood


# ------------------------------------------------------------------------------------------- progress

def test_on_characters_reports_a_long_text_in_steps(monkeypatch):
    monkeypatch.setattr(rec, "NER_MAX_CHARS", 100)
    text = "Lucas flew from Mexico to Canada. " * 30
    short = "Kurt lives in Omaha."
    r = blind()
    seen: list[int] = []
    results = list(r.recognize_many([short, text, short], on_characters=seen.append))
    assert len(results) == 3 and sum(1 for t in results[1] if t.text == "Canada") == 30
    assert seen == sorted(set(seen)), "strictly increasing"
    assert seen[0] == len(short) and seen[-1] == 2 * len(short) + len(text)
    within = [n for n in seen if len(short) < n < len(short) + len(text)]
    assert len(within) >= len(text) // 100 - 1, seen             # after each piece of at most 100 characters
    assert all(b - a <= 100 for a, b in itertools.pairwise([len(short), *within, len(short) + len(text)]))
    # the same results as without a callback
    assert list(r.recognize_many([short, text, short])) == results


def test_on_characters_with_real_spacy_and_two_processes(monkeypatch):
    monkeypatch.setattr(rec, "NER_MAX_CHARS", 200)
    texts = ["Pedro flew from Mexico to Canada. " * 20, "Ben too.", ""]
    seen: list[int] = []
    r = TermRecognizer(n_process=2, batch_size=4)
    got = list(r.recognize_many(texts, on_characters=seen.append))
    assert got == [TermRecognizer().recognize(t) for t in texts]
    assert len(seen) > 3 and seen[-1] == sum(map(len, texts))


def test_on_characters_without_ner():
    seen: list[int] = []
    r = TermRecognizer(entity_types=["PHONE"])
    list(r.recognize_many(["call 030 1234567", "", "x"], on_characters=seen.append))
    assert seen == [16, 17]


def test_recognize_with_cache_counts_cached_texts_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(rec, "NER_MAX_CHARS", 100)
    long = "Lucas flew from Mexico to Canada. " * 10
    texts = ["Kurt lives in Omaha.", long, "Kurt lives in Omaha.", "Ben too."]
    total = sum(map(len, texts))
    r = blind()
    with TermCache(tmp_path / "c.sqlite") as cache:
        first: list[int] = []
        got = list(recognize_with_cache(texts, r, cache, chunk=10, on_characters=first.append))
        assert first == sorted(set(first)) and first[-1] == total
        assert len(first) > 4                               # the long text in several steps
        again: list[int] = []
        assert list(recognize_with_cache(texts, r, cache, chunk=10, on_characters=again.append)) == got
        assert again == [total]                             # all cached: at once
        partly: list[int] = []
        more = [*texts, "Lucas met Kurt."]
        list(recognize_with_cache(more, r, cache, chunk=10, on_characters=partly.append))
        assert partly[0] == total and partly[-1] == total + len("Lucas met Kurt.")
    # without the keyword the recognizer is called as before (duck-typed recognizers keep working)
    assert list(recognize_with_cache(texts, r, None)) == got


# ------------------------------------------------------------------------------------------ pinned dates, events

@pytest.mark.parametrize(("text", "span", "label"), [
    ("I should hear from them by the first of May. We shall see.", "the first of May", "DATE"),
    ("we are meeting on 7/31 at the mall", "7/31", "DATE"),
    ("due by 6/5 at the latest", "6/5", "DATE"),
    ("Olivia and I went for the 4th Winter Madness weekend. It was fun.", "4th Winter Madness weekend", "EVENT"),
    ("we drove up for the Spring Fling Festival with friends", "Spring Fling Festival", "EVENT"),
])
def test_dates_spacy_splits_and_named_events_are_strong_spans(text, span, label):
    strong = Lexicons({"DATE", "EVENT"}).strong_spans(text)
    assert (text.index(span), text.index(span) + len(span), label) in strong


@pytest.mark.parametrize("text", [
    "Add 1/4 tsp salt and 3/8 cup of water",        # fractions
    "mix 1/16 inch pieces",
    "See you Friday Night at the pub",               # time words alone name no event
    "It Was A Great Party Last Night",               # a Title Case line
    "we had a great party last night",
    "Christmas Party was fun",
])
def test_fractions_time_words_and_title_case_are_no_pinned_date_or_event(text):
    assert Lexicons({"DATE", "EVENT"}).strong_spans(text) == []
