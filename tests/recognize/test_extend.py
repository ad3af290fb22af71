"""A PERSON span grows over adjacent name tokens so that a name is masked whole (issue 44: "Mr January
Jagiełło", "Mehmet Acar Serdar Çakmak" were masked in part), never over ordinary capitalised words."""

from __future__ import annotations

import pytest

from anonymizer.recognize import ONTONOTES_TYPES, TermRecognizer
from anonymizer.recognize.extend import grow_person_spans


def grow(text: str, *spans: tuple[str, str]) -> list[tuple[str, str]]:
    """Spans given as (their text, label), found left to right; the grown spans as (text, label)."""
    located, position = [], 0
    for piece, label in spans:
        start = text.index(piece, position)
        located.append((start, start + len(piece), label))
        position = start + len(piece)
    return [(text[s:e], label) for s, e, label in grow_person_spans(text, located, ONTONOTES_TYPES)]


def test_month_first_name_after_an_honorific():
    text = "lodged by a Polish national, Mr January Jagiełło (“the applicant”), on 30 June 2002."
    assert grow(text, ("Polish", "NORP"), ("January", "DATE"), ("Jagiełło", "PERSON")) == [
        ("Polish", "NORP"), ("January Jagiełło", "PERSON")]


def test_non_ascii_and_rare_tokens_join():
    text = "by a Turkish national, Mr Mehmet Acar Serdar Çakmak (“the applicant”)"
    assert grow(text, ("Acar Serdar", "PERSON")) == [("Mehmet Acar Serdar Çakmak", "PERSON")]
    text = "Hüseyin Yıldırım was arrested."
    assert grow(text, ("Yıldırım", "PERSON")) == [("Hüseyin Yıldırım", "PERSON")]
    text = "by a Turkish national, Mr Oğuz Atakan Köseoğlu (“the applicant”)"
    assert grow(text, ("Oğuz Atakan", "PERSON")) == [("Oğuz Atakan Köseoğlu", "PERSON")]


def test_two_halves_of_one_name_become_one_person():
    text = "Mr Mehmet Acar Serdar Çakmak said"
    assert grow(text, ("Mehmet Acar", "PERSON"), ("Serdar Çakmak", "PERSON")) == [
        ("Mehmet Acar Serdar Çakmak", "PERSON")]


@pytest.mark.parametrize(("text", "spans", "expected"), [
    ("Yesterday Kurt came.", [("Kurt", "PERSON")], [("Kurt", "PERSON")]),            # a sentence start
    ("He told the Court Jagiełło lied.", [("Jagiełło", "PERSON")], [("Jagiełło", "PERSON")]),
    ("Then John Smith Street was closed.", [("John Smith", "PERSON")], [("John Smith", "PERSON")]),
    ("Kurt, Lucas and Missy", [("Kurt", "PERSON"), ("Lucas", "PERSON")],
     [("Kurt", "PERSON"), ("Lucas", "PERSON")]),                                    # punctuation stops it
    ("Mehmet Acar\nSerdar went home", [("Mehmet Acar", "PERSON")], [("Mehmet Acar", "PERSON")]),
    ("Mr Mehmet Acar", [("Acar", "PERSON")], [("Mehmet Acar", "PERSON")]),          # not the honorific
    ("Judge Acar said", [("Acar", "PERSON")], [("Acar", "PERSON")]),
    ("afterward taylor artie and i hung out", [("taylor", "PERSON"), ("artie", "PERSON")],
     [("taylor", "PERSON"), ("artie", "PERSON")]),                                  # two people, lower case
    ("smile...hahaha Haha.. me", [("hahaha", "PERSON")], [("hahaha", "PERSON")]),    # laughter
    (":D Good Charlotte suck", [("Good Charlotte", "PERSON")], [("Good Charlotte", "PERSON")]),
    ("the Vice President John Edwards", [("John Edwards", "PERSON")], [("John Edwards", "PERSON")]),
    ("Mrs. Vice President John Edwards", [("John Edwards", "PERSON")], [("John Edwards", "PERSON")]),
    ("Ex-President Clinton said", [("Clinton", "PERSON")], [("Clinton", "PERSON")]),
    ("if u wanna come. Becuase the", [("u wanna come.", "PERSON")], [("u wanna come.", "PERSON")]),
    ("wrote to Anna Mehmet@x.org", [("Anna", "PERSON"), ("Mehmet@x.org", "MAIL")],
     [("Anna", "PERSON"), ("Mehmet@x.org", "MAIL")]),                               # precise spans stay
])
def test_ordinary_words_and_boundaries_stay(text, spans, expected):
    assert grow(text, *spans) == expected


@pytest.fixture(scope="module")
def recognizer() -> TermRecognizer:
    return TermRecognizer()


@pytest.mark.parametrize(("text", "name"), [
    ("The application was lodged by a Polish national, Mr January Jagiełło (“the applicant”), on 30 June 2002.",
     "January Jagiełło"),
    ("The application was lodged by a Turkish national, Mr Mehmet Acar Serdar Çakmak (“the applicant”), on 4 May "
     "2004.", "Mehmet Acar Serdar Çakmak"),
    ("The application was lodged by a Turkish national, Mr Oğuz Atakan Köseoğlu (“the applicant”), on 1 June 2005.",
     "Oğuz Atakan Köseoğlu"),
    ("The application was lodged by a Tunisian national, Mr Laïfa Ben Naceur (“the applicant”), on 13 May 2004.",
     "Laïfa Ben Naceur"),
    ("The application was lodged by a Turkish national, Mehmet Ali Ege (“the applicant”), on 19 May 2003.",
     "Mehmet Ali Ege"),
])
def test_recognizer_masks_the_whole_name(recognizer, text, name):
    persons = [t.text for t in recognizer.recognize(text) if t.label == "PERSON"]
    assert name in persons


def test_spacy_alone_is_not_grown():
    text = "The application was lodged by a Turkish national, Mr Oğuz Atakan Köseoğlu (“the applicant”)."
    persons = [t.text for t in TermRecognizer(lexicons=False).recognize(text) if t.label == "PERSON"]
    assert "Oğuz Atakan Köseoğlu" not in persons
