"""A long text dense with names must cost time in proportion to its length: the span-merging steps once scanned
every span for every token or strong span (quadratic). These call them directly with tens of thousands of spans;
the bounds are minutes below what the quadratic versions took and hundreds of times above the linear ones."""

from __future__ import annotations

import time

from anonymizer.recognize.extend import grow_person_spans
from anonymizer.recognize.recognizer import _override

NER_TYPES = frozenset({"PERSON", "ORG", "GPE", "DATE", "CARDINAL"})


def test_growing_names_over_twenty_thousand_spans_is_linear():
    # "Ann Wolkowicz 5 " repeated: PERSON "Ann", a rare name token to grow over, a CARDINAL that blocks growth
    unit = "Ann Wolkowicz 5 "
    text = unit * 20000
    spans = []
    for k in range(20000):
        base = k * len(unit)
        spans += [(base, base + 3, "PERSON"), (base + 14, base + 15, "CARDINAL")]
    started = time.perf_counter()
    grown = grow_person_spans(text, spans, NER_TYPES)
    elapsed = time.perf_counter() - started
    assert grown[:2] == [(0, 13, "PERSON"), (14, 15, "CARDINAL")]     # "Ann" grew to "Ann Wolkowicz"
    assert len(grown) == 40000
    assert elapsed < 20, f"{elapsed:.1f} s for 40,000 spans"     # the quadratic scan: 1.6 billion comparisons


def test_strong_spans_replace_what_they_cover_in_one_pass():
    # "the 70th anniversary" as a strong DATE over an ORDINAL, 20,000 times, beside 20,000 PERSON spans
    unit = "Kim the 70th anniversary "
    ner, strong = [], []
    for k in range(20000):
        base = k * len(unit)
        ner += [(base, base + 3, "PERSON"), (base + 8, base + 12, "ORDINAL")]
        strong.append((base + 4, base + 24, "DATE"))
    started = time.perf_counter()
    merged = _override(ner, strong, NER_TYPES)
    elapsed = time.perf_counter() - started
    assert merged[:2] == [(0, 3, "PERSON"), (4, 24, "DATE")] and len(merged) == 40000
    assert elapsed < 20, f"{elapsed:.1f} s for 20,000 strong spans over 40,000 NER spans"
