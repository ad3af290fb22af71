"""String-level recoding on the term arrays (issue 21): ``OccurrenceSpreader.fit_store`` learns from a
``RowTerms`` store what ``fit`` learns from term lists, and the pipeline's spread, fresh or from the cache,
copies untouched texts as arrays and equals the term-list way."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from anonymizer.kanon.occurrences import OccurrenceSpreader
from anonymizer.kanon.pipeline import merge_parts, spread_part
from anonymizer.kanon.terms import RowTerms
from anonymizer.recognize import Term
from anonymizer.recognize.cache import encode_changes

# Names, strings of common words (matched as written only), a lower-case slip, a possessive, a number.
STRINGS = [("Kurt", "PERSON"), ("Omaha", "GPE"), ("Acme Inc", "ORG"), ("New York", "GPE"), ("Will", "PERSON"),
           ("today", "DATE"), ("last night", "TIME"), ("US", "GPE"), ("us", "GPE"), ("dentist", "ORG"),
           ("Kurt", "ORG"), ("1999", "DATE"), ("Ünïcode Ltd", "ORG"), ("KURT", "PERSON")]
FILLER = ["we", "went", "to", "see", "the", "show", "and", "then", "will", "may", "it", "was", "fun"]


def _texts_and_terms(seed: int, count: int) -> tuple[list[str], list[list[Term]]]:
    """Random posts of sentences; each placed string is tagged or not (NER misses some), at a sentence start
    or inside one."""
    rng = random.Random(seed)
    texts, terms = [], []
    for _ in range(count):
        text, tagged = "", []
        for _ in range(rng.randrange(1, 5)):
            words = [rng.choice(FILLER) for _ in range(rng.randrange(2, 8))]
            sentence = ""
            for n, word in enumerate(words):
                if rng.random() < 0.3:
                    string, label = rng.choice(STRINGS)
                    start = len(text) + len(sentence)
                    sentence += string + " "
                    if rng.random() < 0.6:
                        tagged.append(Term(start, start + len(string), label, string))
                sentence += (word.capitalize() if n == 0 else word) + " "
            text += sentence.rstrip() + rng.choice([". ", "! ", "? "])
        texts.append(text)
        terms.append(tagged)
    return texts, terms


def _learned(spreader: OccurrenceSpreader) -> tuple:
    """What a fitted spreader holds, as plain values (patterns are compared by identity otherwise)."""
    def plain(pattern):
        return (pattern.key, pattern.label, pattern.surfaces, pattern.everywhere, pattern.anchors, pattern.exact,
                pattern.words, pattern.offset)

    def index(anchors):
        return {word: [(shape, {words: plain(p) for words, p in patterns.items()}) for shape, patterns in shapes]
                for word, shapes in anchors.items()}

    return ({words: plain(p) for words, p in spreader.patterns_.items()}, index(spreader.anchors_),
            index(spreader.exact_anchors_), {person: [plain(p) for p in found] for person, found in
                                             spreader.owned_.items()})


@pytest.mark.parametrize("scope", ["dataset", "person"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fit_store_learns_what_fit_learns(seed, scope):
    texts, terms = _texts_and_terms(seed, 400)
    persons = [f"p{n % 37}" for n in range(len(texts))]
    by_lists = OccurrenceSpreader(scope).fit(texts, terms, persons)
    store = RowTerms.of([(t,) for t in terms], 1)
    by_store = OccurrenceSpreader(scope).fit_store(store, iter(texts), persons)
    assert _learned(by_store) == _learned(by_lists)
    assert by_store.patterns_  # the data holds strings to learn
    assert [by_store.transform_one(t, ts, p) for t, ts, p in zip(texts, terms, persons, strict=True)] == [
        by_lists.transform_one(t, ts, p) for t, ts, p in zip(texts, terms, persons, strict=True)]


def test_fit_store_tells_a_capital_inside_a_sentence_from_one_at_its_start():
    # "Will" capitalised at a sentence start only is a verb; "us" tagged in lower case only is a pronoun.
    texts = ["Will you come? I met Kurt.", "Will it rain?", "Tell us. Then Omaha.", "(Will) he?"]
    terms = [[Term(0, 4, "PERSON", "Will"), Term(20, 24, "PERSON", "Kurt")], [Term(0, 4, "PERSON", "Will")],
             [Term(5, 7, "GPE", "us"), Term(14, 19, "GPE", "Omaha")], [Term(1, 5, "PERSON", "Will")]]
    spreader = OccurrenceSpreader().fit_store(RowTerms.of([(t,) for t in terms], 1), iter(texts))
    assert _learned(spreader) == _learned(OccurrenceSpreader().fit(texts, terms))
    assert not spreader.patterns_[("will",)].everywhere and spreader.patterns_[("kurt",)].everywhere


def test_fit_store_wants_one_text_per_stored_text():
    store = RowTerms.of([([Term(0, 4, "PERSON", "Kurt")],), ([],)], 1)
    with pytest.raises(ValueError, match="1 texts for a store of 2"):
        OccurrenceSpreader().fit_store(store, iter(["Kurt"]))
    with pytest.raises(ValueError, match="3 texts for a store of 2"):
        OccurrenceSpreader().fit_store(store, iter(["Kurt", "", "more"]))


@pytest.mark.parametrize("scope", ["dataset", "person"])
@pytest.mark.parametrize("persons_of", [lambda n: f"p{n % 37}", None])
def test_a_spreader_made_again_from_its_state_learned_and_adds_the_same(scope, persons_of):
    # What the parts of a fanned-out job transform with: the state goes through JSON to other processes.
    texts, terms = _texts_and_terms(4, 400)
    persons = None if persons_of is None else [persons_of(n) for n in range(len(texts))]
    fitted = OccurrenceSpreader(scope).fit(texts, terms, persons)
    again = OccurrenceSpreader.from_state(json.loads(json.dumps(fitted.state())))
    assert again.scope == scope and fitted.owned_  # strings spread to their own persons only: persons kept
    assert _learned(again) == _learned(fitted)
    owner = (lambda n: n) if persons is None else persons.__getitem__
    added = [fitted.transform_one(t, ts, owner(n)) for n, (t, ts) in enumerate(zip(texts, terms, strict=True))]
    assert added != terms
    assert [again.transform_one(t, ts, owner(n)) for n, (t, ts) in enumerate(zip(texts, terms, strict=True))] == added


def test_a_state_of_another_version_is_refused():
    state = OccurrenceSpreader().fit(["I met Kurt."], [[Term(6, 10, "PERSON", "Kurt")]]).state()
    with pytest.raises(ValueError, match="another version"):
        OccurrenceSpreader.from_state({**state, "version": "0"})


def test_parts_of_a_dataset_spread_with_its_spreader_merge_into_the_changes_of_the_whole():
    texts, terms = _texts_and_terms(5, 300)
    persons = [f"p{n % 23}" for n in range(len(texts))]
    spreader = OccurrenceSpreader("person").fit(texts, terms, persons)
    whole = encode_changes(spreader.transform(texts, terms, persons), terms)
    assert len(json.loads(whole)) > 50  # texts that string-level recoding changes, in every part
    cuts = [0, 1, 120, 120, 299, 300]  # a part of one text, an empty one, the last text alone
    outputs = [spread_part(spreader, texts[a:b], RowTerms.of([(t,) for t in terms[a:b]], 1), persons[a:b])
               for a, b in itertools.pairwise(cuts)]
    assert merge_parts(outputs) == whole
    with pytest.raises(ValueError, match="2 texts and the terms of 1"):
        spread_part(spreader, texts[:2], RowTerms.of([(terms[0],)], 1), persons[:2])
