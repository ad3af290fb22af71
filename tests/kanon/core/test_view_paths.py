"""The person-centric view is built from Term objects row by row, or from the term arrays of a RowTerms store
with numpy (the pipeline's way, for a million posts): both must give the same view, redundant terms (a term
stating its row's age) left out by both."""

from __future__ import annotations

import csv
import io
import random

import numpy as np
import pytest

from anonymizer.kanon.config import load_config
from anonymizer.kanon.hierarchies import TermHierarchies
from anonymizer.kanon.table import read_table
from anonymizer.kanon.terms import RowTerms
from anonymizer.kanon.view import build_view
from anonymizer.recognize import Term
from tests.helpers import shared_data
from tests.kanon.core.test_engine import BLOG_HEADER, PAPER_CONFIG

WORDS = {"PERSON": ["Kurt", "kurt", "Lucas", "Mia", "Ann"], "GPE": ["Omaha", "Paris", "Lincoln", "omaha"],
         "DATE": ["June 5, 2004", "2004", "today", "17"]}


def _sample(persons_per_row: bool):
    rng = random.Random(11)
    with shared_data("kanon/blogs_5k.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[1:2001]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(BLOG_HEADER)
    row_terms = []
    for n, row in enumerate(rows):
        writer.writerow([f"p{n}" if persons_per_row else f"p{n // 4}", *row[1:6], "x"])
        terms = []
        for label, words in WORDS.items():
            for _ in range(rng.randrange(0, 3)):
                # now and then the row's own age, which the age attribute makes redundant (mapped to DATE)
                text = row[2] if label == "DATE" and rng.random() < 0.3 else rng.choice(words)
                terms.append(Term(len(terms) * 20, len(terms) * 20 + len(text), label, text))
        row_terms.append(terms)
    config = load_config(PAPER_CONFIG, columns=BLOG_HEADER)
    return config, read_table(io.BytesIO(out.getvalue().encode()), config), row_terms


@pytest.mark.parametrize("persons_per_row", [True, False])
@pytest.mark.parametrize("generalize", [True, False])
def test_the_view_from_term_arrays_equals_the_view_from_terms(persons_per_row, generalize):
    config, table, row_terms = _sample(persons_per_row)
    hierarchies = TermHierarchies(enabled=generalize)
    from_terms = build_view(table, config, row_terms, hierarchies)
    from_arrays = build_view(table, config, RowTerms.of([(terms,) for terms in row_terms], 1), hierarchies)
    assert sorted(from_terms.terms) == sorted(from_arrays.terms) == ["DATE", "GPE", "PERSON"]
    for label, sets in from_terms.terms.items():
        other = from_arrays.terms[label]
        assert sets.keys == other.keys
        assert np.array_equal(sets.indptr, other.indptr) and np.array_equal(sets.indices, other.indices)
    assert from_terms.spellings == from_arrays.spellings
    assert from_terms.labels == from_arrays.labels
    assert from_terms.codes.keys() == from_arrays.codes.keys()
    assert all(np.array_equal(from_terms.codes[name], from_arrays.codes[name]) for name in from_terms.codes)
    # The redundant ages are out of both: no person holds their own age as a DATE term, though texts say it.
    ages = table.columns["age"].values
    stated = {(from_arrays.row_person[row], f"{ages[row]:g}") for row, terms in enumerate(row_terms) for t in terms
              if t.label == "DATE" and t.text == f"{ages[row]:g}"}
    assert len(stated) > 100
    dates = from_arrays.terms["DATE"]
    assert not any(age in dates[person] and age != "17" for person, age in stated)
