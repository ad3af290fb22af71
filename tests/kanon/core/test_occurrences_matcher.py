"""String-level recoding finds learned strings with an Aho-Corasick automaton (issue 44, item 6): the same terms,
text for text (and the same change, as the workers' parts write it), as the Python pass over every word it
replaced (kept in bench/recode_baselines.py as the bench's baseline), on real blog posts and on made-up texts built
to hit the corners (folding, strings sharing their words, overlaps, a person's own strings, strings of common words
matched as written)."""

from __future__ import annotations

import csv
import importlib.util
import random
import re
from pathlib import Path

import pytest

from anonymizer.kanon.occurrences import UNSURE, OccurrenceSpreader
from anonymizer.recognize import Term
from anonymizer.recognize.cache import change_of

REPO = Path(__file__).resolve().parents[3]
DATA = REPO.parent / "shared" / "data" / "kanon"


def _baselines():
    spec = importlib.util.spec_from_file_location("recode_baselines", REPO / "bench" / "recode_baselines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


baselines = _baselines()

# What NER tags, roughly: runs of capitalised words (with "Mr." and "St."), numbers, a few lower-case words it slips
# on; each tagged or not by chance, as NER misses occurrences.
_CANDIDATE = re.compile(r"(?:Mr\.|Dr\.|St\.)?\s?[A-Z][\w'’-]*(?:\s[A-Z][\w'’-]*)*|\b\d{1,4}(?:th|st)?\b|"
                        r"\b(?:today|tonight|mom|school|tomorrow|god|nbsp|the)\b")
_LABELS = ("PERSON", "ORG", "GPE", "DATE", "NORP")


def _tagged(texts: list[str], seed: int, share: float = 0.6) -> list[list[Term]]:
    rng = random.Random(seed)
    terms = []
    for text in texts:
        found = []
        for match in _CANDIDATE.finditer(text):
            start, end = match.span()
            while start < end and text[start].isspace():
                start += 1
            if start < end and rng.random() < share:
                found.append(Term(start, end, _LABELS[len(text[start:end]) % len(_LABELS)], text[start:end]))
        terms.append(found)
    return terms


def _same_output(spreader: OccurrenceSpreader, texts, terms, persons) -> tuple[int, int]:
    """Asserts the automaton and the Python pass give the same terms for every text; (texts, texts changed)."""
    changed = 0
    for n, (text, before, person) in enumerate(zip(texts, terms, persons, strict=True)):
        new = spreader.transform_one(text, before, person)
        old = baselines.python_pass(spreader, text, before, person)
        assert new == old, f"text {n}: {text[:200]!r}"
        # What the workers' parts write: the change alone, from the terms' spans.
        change = spreader.change_one(text, [(t.start, t.end) for t in before], person)
        assert change is UNSURE or change == change_of(new, before), f"text {n}: {text[:200]!r}"
        changed += new != list(before)
    return len(texts), changed


def _blog_rows(name: str) -> tuple[list[str], list[str]]:
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"{path} is absent (the Blog Authorship Corpus samples are not shipped)")
    csv.field_size_limit(1 << 30)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [row["text"] for row in rows], [row["id"] for row in rows]


@pytest.mark.parametrize("scope", ["dataset", "person"])
def test_real_blog_posts_get_the_same_terms_as_from_the_python_pass(scope):
    texts, persons = _blog_rows("blogs_1k.csv")
    terms = _tagged(texts, seed=44)
    spreader = OccurrenceSpreader(scope).fit(texts, terms, persons)
    assert len(spreader.learned_) > 1000  # a real vocabulary of learned strings, not a handful
    _, changed = _same_output(spreader, texts, terms, persons)
    assert changed > 200  # the comparison covers many texts where strings were added, not only untouched ones


def test_real_blog_posts_from_a_spreader_made_again_from_its_state():
    """As the workers run it: the automaton made again from the learned strings' JSON state."""
    texts, persons = _blog_rows("blogs_5k.csv")
    texts, persons = texts[:2500], persons[:2500]
    terms = _tagged(texts, seed=7, share=0.4)
    fitted = OccurrenceSpreader("dataset").fit(texts, terms, persons)
    spreader = OccurrenceSpreader.from_state(fitted.state())
    assert any(not pattern.everywhere for pattern in spreader.learned_)  # some persons' own strings are in play
    _, changed = _same_output(spreader, texts, terms, persons)
    assert changed > 300


def _made_up(seed: int, count: int) -> tuple[list[str], list[list[Term]], list[int]]:
    """Texts built to hit the corners: strings that fold alike ("İstanbul", "ＫＵＲＴ", "½"), strings sharing their
    words ("Mr. Smith", "Mr.Smith", "Mr . Smith"), overlapping ones ("New York", "York City", "a a a"), common words
    ("Will", "May", "The"), possessives and hyphens, at sentence starts and inside sentences."""
    pieces = ["Kurt", "KURT", "ＫＵＲＴ", "İstanbul", "istanbul", "½ marathon", "Mr. Smith", "Mr.Smith", "Mr . Smith",
              "New York", "York City", "New York City", "Will", "will", "May", "may", "The", "the", "Ms Ng", "ng",
              "Kurt's", "Jean-Paul", "Paul", "dj-ing", "dj", "1999", "12", "a a", "a", "Straße", "STRASSE",
              "Hard Rock", "Rock Cafe", "Hard Rock Cafe", "ﬁve", "five", "\u00a8uml", "O'Neil", "o’neil"]
    joints = [" ", "  ", "\n", " -- ", ", ", ". ", "! ", "\t", "(", ") ", "'s ", "-"]
    rng = random.Random(seed)
    texts, terms, persons = [], [], []
    for n in range(count):
        text, tagged = "", []
        for _ in range(rng.randrange(3, 25)):
            piece = rng.choice(pieces)
            start = len(text)
            text += piece
            if rng.random() < 0.35:
                tagged.append(Term(start, start + len(piece), rng.choice(_LABELS), piece))
            text += rng.choice(joints)
        texts.append(text)
        terms.append(_non_overlapping(tagged))
        persons.append(n % 7)
    return texts, terms, persons


def _non_overlapping(terms: list[Term]) -> list[Term]:
    kept: list[Term] = []
    for term in sorted(terms, key=lambda t: t.start):
        if not kept or term.start >= kept[-1].end:
            kept.append(term)
    return kept


@pytest.mark.parametrize("scope", ["dataset", "person"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_made_up_corners_get_the_same_terms_as_from_the_python_pass(scope, seed):
    texts, terms, persons = _made_up(seed, 400)
    spreader = OccurrenceSpreader(scope).fit(texts, terms, persons)
    _, changed = _same_output(spreader, texts, terms, persons)
    assert changed > 50
    again = OccurrenceSpreader.from_state(spreader.state())
    _same_output(again, texts, terms, persons)


def test_strings_sharing_their_words_are_found_wherever_spacing_differs():
    """The automaton runs on the words, not the characters: "Mr.Smith", "Mr. Smith" and "Mr . Smith" are one
    string of three words, found under any spacing (only whitespace between the words)."""
    text = "Mr . Smith came. Then Mr.Smith and mr.  smith left, and Mr.\nSmith too."
    spreader = OccurrenceSpreader().fit(["I met Mr. Smith."], [[Term(6, 15, "PERSON", "Mr. Smith")]])
    found = spreader.transform_one(text, [])
    assert [t.text for t in found] == ["Mr . Smith", "Mr.Smith", "mr.  smith", "Mr.\nSmith"]
    assert found == baselines.python_pass(spreader, text, [])


def test_regex_baseline_finds_what_the_automaton_finds_on_plain_strings():
    """The bench's regex baseline is a fair one: where no longer string is refused, it finds the same terms."""
    texts = ["Kurt met Omaha people in New York City and kurt's friend from New York."] * 3
    terms = [[Term(0, 4, "PERSON", "Kurt"), Term(9, 14, "GPE", "Omaha")], [Term(25, 38, "GPE", "New York City")], []]
    spreader = OccurrenceSpreader().fit(texts, terms)
    regex = baselines.RegexSpreader.of(spreader)
    for text, before in zip(texts, terms, strict=True):
        assert regex.transform_one(text, before) == spreader.transform_one(text, before)
    # "New York" alone was never recognized: it is not learned, only "New York City" is
    assert [t.text for t in spreader.transform_one(texts[2], [])] == ["Kurt", "Omaha", "New York City", "kurt"]


def test_ascii_texts_with_information_separators_split_as_unicode_texts_do():
    """\\x1c-\\x1f are whitespace to Python's Unicode classes but not to its ASCII ones: such a text is split with the
    Unicode classes, as every text was."""
    spreader = OccurrenceSpreader().fit(["I met Kurt and Anna Vonnegut."], [[Term(6, 10, "PERSON", "Kurt"),
                                                                              Term(15, 28, "PERSON", "Anna Vonnegut")]])
    for text, expected in [("Kurt\x1cmet Kurt\x1d.", [(0, 4), (9, 13)]), ("a\x1eKurt\x1f", [(2, 6)]),
                           ("Kurt met kurt", [(0, 4), (9, 13)]), ("I love Anna\x1cVonnegut.", [(7, 20)])]:
        found = spreader.transform_one(text, [])
        assert found == baselines.python_pass(spreader, text, [])
        assert [(t.start, t.end) for t in found] == expected
