"""RowTerms, the array store of a dataset's terms: rows read back as the term lists that went in, and the
counts taken from its arrays agree with counting Term objects."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from anonymizer.kanon.terms import RowTerms
from anonymizer.recognize import Term

LABELS = ["PERSON", "GPE", "DATE", "ORG"]
WORDS = ["Kurt", "Omaha", "June 5", "Acme Inc", "kurt", "Ünïcode", "😀 emoji", "Omaha"]


def _random_rows(seed: int, rows: int, width: int) -> list[tuple[list[Term], ...]]:
    rng = random.Random(seed)
    out = []
    for _ in range(rows):
        row = []
        for _ in range(width):
            terms, position = [], 0
            for _ in range(rng.randrange(0, 5)):
                text = rng.choice(WORDS)
                position += rng.randrange(0, 20)
                terms.append(Term(position, position + len(text), rng.choice(LABELS), text))
                position += len(text)
            row.append(terms)
        out.append(tuple(row))
    return out


@pytest.mark.parametrize(("seed", "width"), [(1, 1), (2, 2), (3, 3)])
def test_rows_read_back_as_they_went_in(seed, width):
    rows = _random_rows(seed, 300, width)
    store = RowTerms.of(rows, width)
    assert len(store) == 300 and store.texts == 300 * width
    assert store == rows
    assert store[-1] == rows[-1] and store[10:13] == rows[10:13]
    assert list(store.iter_texts()) == [terms for row in rows for terms in row]
    assert store.label_counts() == Counter(t.label for row in rows for terms in row for t in terms)
    pairs = Counter()
    for row in rows:
        for terms in row:
            pairs.update((t.text, t.label) for t in terms)
    counted = store.spelling_label_counts()
    assert counted == pairs
    first_seen = list(dict.fromkeys((t.text, t.label) for row in rows for terms in row for t in terms))
    assert list(counted) == first_seen  # in order of first appearance: the re-read breaks label ties by it
    with pytest.raises(IndexError):
        store[300]


def test_a_store_without_text_columns_still_has_its_rows():
    store = RowTerms.of([()] * 7, 0)
    assert len(store) == 7 and store[3] == () and store.texts == 0 and store.label_counts() == Counter()


def test_added_over_counts_the_spans_a_text_did_not_have():
    before = RowTerms.of([([Term(0, 4, "PERSON", "Kurt")],), ([],), ([Term(0, 6, "DATE", "august")],)], 1)
    after = RowTerms.of([([Term(0, 4, "PERSON", "Kurt")],),
                         ([Term(4, 8, "PERSON", "Kurt"), Term(13, 17, "PERSON", "Kurt")],),
                         ([Term(0, 10, "DATE", "august 4th")],)], 1)  # took in the shorter "august"
    assert after.added_over(before) == Counter({"PERSON": 2, "DATE": 1})
    assert before.added_over(before) == Counter()
    with pytest.raises(ValueError, match="different numbers"):
        after.added_over(RowTerms.of([([],)], 1))


@pytest.mark.parametrize(("seed", "width"), [(4, 1), (5, 2)])
def test_only_keeps_the_terms_of_the_labels_asked_for(seed, width):
    rows = _random_rows(seed, 200, width)
    rows[-1] = tuple([] for _ in range(width))  # texts without terms at the end too
    store = RowTerms.of(rows, width)
    kept = store.only({"PERSON", "GPE"})
    assert kept == [tuple([t for t in terms if t.label in {"PERSON", "GPE"}] for terms in row) for row in rows]
    assert store.only(set(LABELS)) is store  # nothing to leave out: no copy
    assert store.only(set()) == [tuple([] for _ in range(width)) for _ in rows]


def test_copy_text_appends_another_stores_text_as_it_is():
    store = RowTerms.of(_random_rows(6, 50, 1), 1)
    copy = store.empty_like()
    for index in range(store.texts):
        if index % 3:
            copy.copy_text(store, index)
        else:
            copy.append(list(reversed(store.text(index))))  # a Term list, numbered on as usual
    copy.append([Term(0, 3, "NEW", "new")])
    assert [copy.text(i) for i in range(store.texts) if i % 3] == [store.text(i) for i in range(store.texts) if i % 3]
    assert [copy.text(i) for i in range(0, store.texts, 3)] == [list(reversed(store.text(i)))
                                                                for i in range(0, store.texts, 3)]
    assert copy.text(store.texts) == [Term(0, 3, "NEW", "new")] and "NEW" not in store.labels
