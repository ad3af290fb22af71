"""Mondrian cuts small parts in plain Python (``partition.SMALL_PART``) and large ones with numpy: both ways must
choose the same cuts, so the classes of a run do not depend on where the switch lies."""

from __future__ import annotations

import csv
import io
import random

import numpy as np
import pytest

from anonymizer.kanon import partition as partition_module
from anonymizer.kanon.config import load_config
from anonymizer.kanon.table import read_table
from anonymizer.kanon.view import build_view
from anonymizer.recognize import Term
from tests.helpers import kanon_file, shared_data

HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]
NAMES = ["Kurt", "Lucas", "Omaha", "Paris", "Acme", "Nebraska", "Tokyo", "Lima", "Oslo", "Rome", "Mia", "Ann"]


def _blog_table(tmp_path, persons_per_row: bool):
    """blogs_5k's relational columns with some ages and dates missing (persons shared by several rows when
    ``persons_per_row`` is False), and two synthetic terms per row so that text attributes are candidates."""
    rng = random.Random(5)
    with shared_data("kanon/blogs_5k.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    row_terms = []
    for n, row in enumerate(rows):
        person = f"p{n}" if persons_per_row else f"p{n // 3}"
        age = "" if rng.random() < 0.05 else row[2]
        date = "" if rng.random() < 0.05 else row[5]
        writer.writerow([person, row[1], age, row[3], row[4], date, "x"])
        row_terms.append([Term(0, 1, label, rng.choice(NAMES)) for label in ("PERSON", "GPE") if rng.random() < 0.7])
    config = load_config(kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(), columns=HEADER)
    table = read_table(io.BytesIO(out.getvalue().encode()), config)
    return config, table, row_terms


@pytest.mark.parametrize("persons_per_row", [True, False])
@pytest.mark.parametrize(("k", "weight"), [(2, 0.5), (5, 0.0), (3, 1.0), (10, 0.3)])
def test_small_parts_are_cut_as_numpy_cuts_them(tmp_path, monkeypatch, persons_per_row, k, weight):
    config, table, row_terms = _blog_table(tmp_path, persons_per_row)
    config = config.with_parameters(k=k, relational_weight=weight)
    view = build_view(table, config, row_terms)
    mixed = partition_module.partition(view, config)
    monkeypatch.setattr(partition_module, "SMALL_PART", 0)
    numpy_only = partition_module.partition(view, config)
    assert mixed.splits == numpy_only.splits
    assert len(mixed.classes) == len(numpy_only.classes) > 100  # many parts went down the small way
    assert all(np.array_equal(a, b) for a, b in zip(mixed.classes, numpy_only.classes, strict=True))
    assert min(len(c) for c in mixed.classes) >= k
