"""String-level recoding on the term arrays (issue 21): ``OccurrenceSpreader.fit_store`` learns from a
``RowTerms`` store what ``fit`` learns from term lists, and the pipeline's spread, fresh or from the cache,
copies untouched texts as arrays and equals the term-list way."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from anonymizer.kanon.occurrences import OccurrenceSpreader
from anonymizer.kanon.pipeline import _apply_spelled, _apply_stored, merge_parts, spread_part
from anonymizer.kanon.terms import RowTerms
from anonymizer.recognize import Term
from anonymizer.recognize.cache import encode_changes, load_changes
from tests.kanon.core.test_occurrences_matcher import _tagged

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


def _store_facts(store: RowTerms) -> tuple:
    """Everything a store holds, numbering included (not only the terms it gives back)."""
    return (store.labels, store.spellings, bytes(store._bounds), bytes(store._starts), bytes(store._ends),
            bytes(store._label_of), bytes(store._spelling_of))


@pytest.mark.parametrize("seed", [6, 7])
def test_changes_applied_on_the_arrays_make_the_store_made_text_by_text(seed):
    # The parts' changes carry their added terms' text: the pipeline applies them without reading the texts again.
    texts, terms = _texts_and_terms(seed, 300)
    terms[3] = list(reversed(terms[3]))  # a text whose terms are not in order stays as it was unless it changes
    persons = [f"p{n % 11}" for n in range(len(texts))]
    spreader = OccurrenceSpreader("dataset").fit(texts, terms, persons)
    base = RowTerms.of([(t,) for t in terms], 1)
    stored = merge_parts([spread_part(spreader, texts[:150], RowTerms.of([(t,) for t in terms[:150]], 1),
                                      persons[:150]),
                          spread_part(spreader, texts[150:], RowTerms.of([(t,) for t in terms[150:]], 1),
                                      persons[150:])])
    changes = load_changes(stored)
    assert len(changes) > 50 and all(len(added) == 4 for _, adds in changes.values() for added in adds)
    on_arrays = _apply_spelled(load_changes(stored), base)
    text_by_text = _apply_stored(load_changes(stored), texts, base)
    assert _store_facts(on_arrays) == _store_facts(text_by_text)
    assert list(on_arrays.iter_texts()) == spreader.transform(texts, terms, persons)
    # Changes stored before they carried the added terms' text: read text by text.
    old = {index: [removed, [added[:3] for added in adds]] for index, (removed, adds) in changes.items()}
    assert _apply_spelled(old, base) is None
    assert _store_facts(_apply_stored(old, texts, base)) == _store_facts(text_by_text)


def test_changes_that_do_not_fit_the_terms_are_refused_on_the_arrays_too():
    base = RowTerms.of([([Term(0, 4, "PERSON", "Kurt")],), ([],)], 1)
    for changes in ({2: [[], []]}, {0: [[1], []]}, {1: [[], [[5, 3, "PERSON", "Kurt"]]]},
                    {1: [[], [[0, 4, "PERSON", "Kur"]]]}):
        with pytest.raises(ValueError, match="stored changes"):
            _apply_spelled(changes, base)
    with pytest.raises(ValueError, match="do not fit"):  # a text whose spelling is not the text's there
        _apply_stored({0: [[], [[0, 4, "PERSON", "Omah"]]]}, ["Kurt", ""], base)


def _stand_in(texts):
    """What NER tags, roughly (``test_occurrences_matcher._tagged``), the same for the same text in every run."""
    for text in texts:
        yield _tagged([text], seed=len(text))[0]


def test_a_release_spread_in_parts_is_byte_for_byte_the_one_spread_in_one_process(tmp_path):
    """On real posts (blogs_1k): the adding pass in parts on the workers, applied on the arrays, releases the same
    file and the same words left for review as string-level recoding in the pipeline's own process."""
    from anonymizer.kanon.config import load_config
    from anonymizer.kanon.pipeline import anonymize_csv, spread_labels, texts_in_span
    from anonymizer.tabular.reader import CsvSource
    from anonymizer.tabular.spans import record_spans
    from tests.helpers import kanon_file

    source = kanon_file("blogs_1k.csv")
    config = load_config(kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8"),
                         columns=["id", "gender", "age", "topic", "sign", "date", "text"]).with_parameters(k=3)
    parts = []

    def spread_in_parts(spreader, progress):
        state = OccurrenceSpreader.from_state(json.loads(json.dumps(spreader.state())))  # as a worker has it
        with source.open("rb") as handle:
            spans = record_spans(handle, 100_000, CsvSource(handle).delimiter)
            parts.append(len(spans))
            outputs = []
            for start, end in spans:
                texts, persons = texts_in_span(handle, start, end, config)
                terms = RowTerms.of([(t,) for t in _stand_in(texts)], 1).only(spread_labels(config))
                outputs.append(spread_part(state, texts, terms, persons))
        return merge_parts(outputs)

    released = {}
    for name, in_parts in (("one process", None), ("in parts", spread_in_parts)):
        output, review = tmp_path / f"{name}.csv", tmp_path / f"{name}.review.csv"
        report = anonymize_csv(source, config, output, recognize=_stand_in, spread_in_parts=in_parts,
                               review_output=review)
        released[name] = (output.read_bytes(), review.read_bytes(), report["spread_terms"], report["left_for_review"])
    assert parts[0] >= 5  # the parts did run
    assert sum(released["one process"][2].values()) > 500  # string-level recoding added many terms
    assert released["in parts"] == released["one process"]


def test_parts_written_as_json_before_the_lines_merge_too():
    # A job whose parts were written by workers of the version before: their JSON is read as it was.
    texts, terms = _texts_and_terms(8, 200)
    spreader = OccurrenceSpreader("dataset").fit(texts, terms)
    whole = encode_changes(spreader.transform(texts, terms), terms)
    lines = spread_part(spreader, texts[:120], RowTerms.of([(t,) for t in terms[:120]], 1), list(range(120)))
    first, *rest = lines.decode().split("\n")
    as_json = json.dumps({"texts": int(first), "changes": {i: json.loads(c) for i, c in (r.split("\t") for r in rest)}},
                         ensure_ascii=False, separators=(",", ":")).encode()
    last = spread_part(spreader, texts[120:], RowTerms.of([(t,) for t in terms[120:]], 1), list(range(120, 200)))
    assert rest and merge_parts([as_json, last]) == merge_parts([lines, last]) == whole
