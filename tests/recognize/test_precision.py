"""Precision of the recognizer (issue 44, item 3): spaCy spans that are ordinary English words are not terms.

The examples are the ones the issue's reader found masked in a release (interjections, contractions without
apostrophe, everyday words, poem lines as DATE), and the names that are also words that must stay masked.
Three levels: the span filter alone (`precision.ordinary_reason`), the recognizer's hook with the spaCy spans
the issue reports (`_finish`, so the test does not depend on what the model tags), and the real model."""

from __future__ import annotations

import pytest

from anonymizer.recognize import CustomEntity, TermRecognizer
from anonymizer.recognize import precision as P

# rx-anon's blog configuration (e_blog_authorship_corpus.yaml): what the release recognised.
BLOG_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
              "DATE", "TIME", "PERCENT", "MONEY", "MAIL", "URL", "PHONE", "POSTCODE")


def span(text: str, words: str, label: str, nth: int = 0) -> tuple[int, int, str]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(words, start + 1)
    return start, start + len(words), label


# (text, the words spaCy tagged, its label): each is an ordinary word, not a name.
ORDINARY = [
    ("Heh heh heh. He fell for it.", "Heh", "PERSON"),
    ("Heh heh heh. He fell for it.", "heh", "PERSON"),
    ("so yeah. Heh heh heh. anyway", "Heh heh heh", "PERSON"),
    ("Mmmm, pizza for dinner again.", "Mmmm", "GPE"),
    ("hahaha that was the best day ever", "hahaha", "PERSON"),
    ("HAHAHA, I made one too.", "HAHAHA", "ORG"),
    ("argh i hate mondays", "argh", "ORG"),
    ("UGHHHHHH!!!! ok. I feel better now.", "UGHHHHHH", "PERSON"),
    ("ok Ill see you there", "Ill", "GPE"),
    ("Ill be home late.", "Ill", "GPE"),
    ("Im so tired of this.", "Im", "PERSON"),
    ("Ive been working all week.", "Ive", "ORG"),
    ("i dont care anymore", "dont", "ORG"),
    ("Today was creepy. The house made noises.", "creepy", "ORG"),
    ("Today was Creepy. The house made noises.", "Creepy", "NORP"),
    ("Today I slept until noon.", "Today", "ORG"),
    ("I wanted to scream or sob.", "sob", "ORG"),
    ("We had boiled crawfish and crawfish ettoufee.", "crawfish", "GPE"),
    ("Rainy weather again. I stayed inside.", "Rainy", "ORG"),
    ("Hooray! School is out.", "Hooray! School", "ORG"),
    ("Geez, haven't eaten for two days", "Geez", "PERSON"),
    ("theres ALWAYS something that has to be done", "ALWAYS", "ORG"),
    ("There will be FREE BEER and cheap drinks.", "FREE", "ORG"),
    ("FEMALE INTERVIEWER: So, what do you do?", "FEMALE INTERVIEWER", "PERSON"),
    ("taking a break. pretty creepy! anyway", "creepy", "NORP"),
    ("but now okie le.. the heart count", "okie", "PERSON"),
    ("After work today, Mom and I went to Sam's Club.", "Mom", "PERSON"),
    ("I'm like \"WTF?\" I mean you guys would", "WTF", "WORK_OF_ART"),
    ("Thou shall not kill.", "Thou", "PERSON"),
    ("it was 12:10.&nbsp; &nbsp;&nbsp;&nbsp;&nbsp; At Madison's house", "&nbsp;&nbsp;&nbsp;&nbsp", "GPE"),
]

# Lines of poems and lyrics, and stretches of time that date nothing, tagged DATE or TIME.
ORDINARY_TIMES = [
    ("The woods are lovely, dark and deep,\nAnd miles to go before I sleep.", "And miles to go before I sleep",
     "DATE"),
    ("Whose woods these are I think I know.", "Whose woods these are", "DATE"),
    ("Fare thee well, my fairy fay", "Fare thee well", "DATE"),
    ("I just had a very good day. Then it rained.", "a very good day", "DATE"),
    ("today was a long day at work", "a long day", "DATE"),
    ("So far I spent my morning in therapy.", "my morning", "TIME"),
    ("I haven't seen them for years!", "years", "DATE"),
    ("It can take hours. That's why I slept in.", "hours", "TIME"),
]

# Names that are also words, and time expressions that date something: they stay.
NAMES = [
    ("I went to the movies with Will Smith.", "Will Smith", "PERSON"),
    ("Rose told me the news yesterday.", "Rose", "PERSON"),
    ("Bill and I went fishing.", "Bill", "PERSON"),
    ("We flew to Paris in June.", "Paris", "GPE"),
    ("I had lunch with Grace today.", "Grace", "PERSON"),
    ("mr wong resembles clay aiken", "wong", "PERSON"),
    ("im still on erics computer", "erics", "PERSON"),
    ("the car rental place was Enterprise, on Main Street", "Enterprise", "ORG"),
    ("Kaila, Kimbrell, Rob, Elizabeth and I went out.", "Rob", "PERSON"),
    ("We watched Survivor on Thursday.", "Survivor", "WORK_OF_ART"),
    ("Some groups, Kraft, Nestle and Sara Lee, own it.", "Nestle", "ORG"),
    ("I love \"Toxic\" by Britney Spears.", "Toxic", "WORK_OF_ART"),
    ("BTW, Nip Tuck was on last night.", "Nip Tuck", "WORK_OF_ART"),
    ("I left my AIM on all night.", "AIM", "ORG"),
    ("I got an email from the NASA people.", "NASA", "ORG"),
    ("we watched ESPN classic", "ESPN", "ORG"),
    ("I got my new iPod today.", "iPod", "PRODUCT"),
    ("the chat name nine_inches_limp is mine", "nine_inches_limp", "WORK_OF_ART"),
    ("Source: news.com.au today", "news.com.au", "GPE"),
    ("we had chinese food", "chinese", "NORP"),
    ("He is the american guy at school.", "american", "NORP"),
    ("I went to see Aerosmith live.", "Aerosmith", "ORG"),
    ("Aerosmith played all night.", "Aerosmith", "ORG"),
    ("the reader(bill) knows", "bill", "PERSON"),
    ("we went to Ryan's Steakhouse with alan", "Steakhouse", "ORG"),
    ("it was Natalie who first brought up Will's name", "Will", "PERSON"),
    ("The challenge, says Chuck, is to get people in.", "Chuck", "PERSON"),
    ("Mr. Hang came and spoke to us today", "Hang", "PERSON"),
    ("Heh, I met Mr Ha today.", "Ha", "PERSON"),
    ("Bagel, congratulations...thats awesome", "Bagel", "PERSON"),
    ("Hi all.\nStu, stop sending me messages", "Stu", "PERSON"),
]
TIMES = [
    ("We left for the weekend.", "the weekend", "DATE"),
    ("I was there last night.", "last night", "TIME"),
    ("It took 3 hours to get home.", "3 hours", "TIME"),
    ("It took over a week.", "over a week", "DATE"),
    ("See you in a few days.", "a few days", "DATE"),
    ("During our two hours in Crawford we ate.", "our two hours", "TIME"),
    ("It was the last year's show.", "last year's", "DATE"),
    ("They are out until May.", "May", "DATE"),
    ("He turned fifteen.", "fifteen", "DATE"),
    ("api bufday mum!", "bufday", "DATE"),
    ("Today was fun.", "Today", "DATE"),
]


@pytest.mark.parametrize(("text", "words", "label"), ORDINARY + ORDINARY_TIMES)
def test_ordinary_words_are_dropped(text, words, label):
    assert P.ordinary_reason(text, *span(text, words, label)) is not None


@pytest.mark.parametrize(("text", "words", "label"), NAMES + TIMES)
def test_names_and_dates_stay(text, words, label):
    assert P.ordinary_reason(text, *span(text, words, label)) is None


def test_each_word_of_heh_heh_heh_is_dropped():
    text = "Heh heh heh. He fell for it."
    spans = [span(text, "Heh", "PERSON"), span(text, "heh", "PERSON"), span(text, "heh", "PERSON", 1)]
    assert P.drop_ordinary_spans(text, spans) == []


def test_numeric_types_and_codes_are_left_alone():
    text = "eBay item 3924585493 and 22 people, one of them"
    for words, label in (("3924585493", "DATE"), ("22", "CARDINAL"), ("one", "CARDINAL")):
        assert P.ordinary_reason(text, *span(text, words, label)) is None


def test_word_tests():
    assert P.is_filler("Mmmm") and P.is_filler("hahaha") and P.is_filler("Ill") and P.is_filler("ARRGGHH")
    assert not P.is_filler("Z") and not P.is_filler("Kurt")
    assert P.is_ordinary("creepy") and P.is_ordinary("crawfish") and P.is_ordinary("Rainy")
    assert not P.is_ordinary("Rose") and not P.is_ordinary("Smith") and not P.is_ordinary("Paris")
    assert not P.is_ordinary("Google") and not P.is_ordinary("Strummers") and not P.is_ordinary("madnessmia21")
    assert P.is_ordinary("Will") and P.is_ordinary("bell") and not P.is_ordinary("eric")


# ------------------------------------------------------------------------------------------ the recognizer hook

@pytest.fixture(scope="module")
def kakurega() -> TermRecognizer:
    return TermRecognizer(entity_types=BLOG_TYPES)


@pytest.fixture(scope="module")
def unfiltered() -> TermRecognizer:
    return TermRecognizer(entity_types=BLOG_TYPES, drop_ordinary_words=False)


def masked(recognizer: TermRecognizer, text: str, spacy_spans: list[tuple[int, int, str]]) -> set[tuple[str, str]]:
    """(text, label) of the terms the recognizer returns when spaCy tagged ``spacy_spans`` (no model run)."""
    return {(term.text, term.label) for term in recognizer._finish(text, spacy_spans)}


def covered_as(recognizer: TermRecognizer, text: str, spacy_span: tuple[int, int, str]) -> bool:
    """A term of the span's label covers it (the span itself or a longer one grown from it)."""
    start, end, label = spacy_span
    return any(t.start <= start and t.end >= end and t.label == label
               for t in recognizer._finish(text, [spacy_span]))


@pytest.mark.parametrize(("text", "words", "label"), ORDINARY + ORDINARY_TIMES)
def test_hook_drops_what_spacy_tagged(kakurega, unfiltered, text, words, label):
    spacy_span = span(text, words, label)
    assert covered_as(unfiltered, text, spacy_span)         # what the release masked
    assert not covered_as(kakurega, text, spacy_span)


@pytest.mark.parametrize(("text", "words", "label"), NAMES + TIMES)
def test_hook_keeps_names(kakurega, text, words, label):
    assert covered_as(kakurega, text, span(text, words, label))


def test_dropped_today_comes_back_from_the_lexicons_as_a_date(kakurega):
    text = "Today I slept until noon."
    terms = kakurega._finish(text, [span(text, "Today", "ORG")])
    assert [(t.text, t.label) for t in terms if t.text == "Today"] == [("Today", "DATE")]


def test_rule_and_custom_terms_are_never_dropped():
    recognizer = TermRecognizer(entity_types=[*BLOG_TYPES, "INTERJECTION"],
                                custom_entities=[CustomEntity("INTERJECTION", terms=("heh",))])
    text = "Heh heh heh, write to heh@example.com"
    terms = recognizer._finish(text, [span(text, "Heh", "PERSON")])
    assert [(t.text, t.label) for t in terms] == [("Heh", "INTERJECTION"), ("heh", "INTERJECTION"),
                                                  ("heh", "INTERJECTION"), ("heh@example.com", "MAIL")]


def test_fingerprint_changes_with_the_filter(kakurega, unfiltered):
    assert kakurega.fingerprint != unfiltered.fingerprint
    assert P.PRECISION_VERSION in P.data_version() and "wordfreq-" in P.data_version()


# ------------------------------------------------------------------------------------------ the real model

MODEL_ORDINARY = [  # sentences on which en_core_web_sm tags an ordinary word
    ("Mmmm chocolate", "Mmmm"),
    ("ok Ill see you there", "Ill"),
    ("hahaha that was the best day ever", "hahaha"),
    ("argh i hate mondays", "argh"),
    ("We had boiled crawfish and crawfish ettoufee at the party.", "crawfish"),
    ("Rainy weather again. I stayed inside and read.", "Rainy"),
    ("Today was creepy. The house made noises all night.", "creepy"),
]
MODEL_NAMES = [
    ("I went to the movies with Will Smith last night.", "Will Smith"),
    ("Rose told me the news yesterday.", "Rose"),
    ("Bill and I went fishing.", "Bill"),
    ("We flew to Paris in June.", "Paris"),
]


@pytest.mark.parametrize(("text", "words"), MODEL_ORDINARY)
def test_model_ordinary_words_stay(kakurega, unfiltered, text, words):
    assert any(words in term.text for term in unfiltered.recognize(text))      # spaCy masks it ...
    assert not any(words in term.text for term in kakurega.recognize(text))    # ... Kakurega does not


@pytest.mark.parametrize(("text", "words"), MODEL_NAMES)
def test_model_names_that_are_words_are_masked(kakurega, text, words):
    assert words in {term.text for term in kakurega.recognize(text)}


@pytest.mark.parametrize(("text", "words", "label"), [
    ("we still lack a connection to our ISP, so", "ISP", "ORG"),
    ("while reading RSS feeds in NetNewsWire", "RSS", "ORG"),
    ("if you go and O.D. they come for me", "O.D.", "GPE"),
    ("i so need to lose weight sia...", "sia", "GPE"),
    ("he put 31, and i added it together", "31", "DATE"),
    ("talk to someone you work with about your weekend", "weekend", "DATE"),
])
def test_everyday_acronyms_chat_particles_bare_numbers_and_vague_times_are_dropped(text, words, label):
    assert P.ordinary_reason(text, *span(text, words, label)) is not None


@pytest.mark.parametrize(("text", "words", "label"), [
    ("I work for IBM and the FBI called", "IBM", "ORG"),
    ("we met on the 31st", "the 31st", "DATE"),
    ("see you this weekend", "this weekend", "DATE"),
    ("Sia sang it and I cried", "Sia", "PERSON"),
])
def test_organisations_dates_and_names_stay(text, words, label):
    assert P.ordinary_reason(text, *span(text, words, label)) is None
