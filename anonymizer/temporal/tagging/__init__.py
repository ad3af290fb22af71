"""Which tokens of a parsed post express a time: spaCy's DATE/TIME entities plus a lexicon and clock/date shapes.

spaCy's entities alone cover 58% of the gold time tokens of the SynTime tweets (776 of 1,340): they miss
"now", "tonight", "this morning", "every day", "430pm", weekday abbreviations and most SNS spellings. The
lexicon below adds the time words and shapes; modifiers that belong to a time word ("this", "last", "every",
"a few", numbers) are taken in through the parse (det / amod / nummod / quantmod / advmod children).
Works on a spaCy ``Doc`` of the *normalized* text (see :mod:`anonymizer.temporal.normalize`).

Character recall / precision against the gold spans of the 742 training tweets (``bench/bench_temporal.py``):
entities 0.637 / 0.907, lexicon 0.875 / 0.945, both 0.922 / 0.901. dateparser 1.5.0's ``search_dates`` (a
well-kept rule-based recognizer from PyPI, measured by hand, not a dependency) would add 0.019 recall to both
for 0.097 precision, at 443 posts/s on its own — it would halve the throughput — so it is not used.
"""

from __future__ import annotations

from anonymizer.temporal.tagging.tagger import TimeTagger, runs
from anonymizer.temporal.tagging.words import (
    DEFAULT_KEEP_KINDS,
    EVALUATIVE_WORDS,
    KIND_LABELS,
    KINDS,
    MAKE_FORMS,
    MONTHS,
    TIME_LABELS,
    hashtag_word,
    holiday_phrases,
    is_link,
    kind_of,
)

__all__ = ["DEFAULT_KEEP_KINDS", "EVALUATIVE_WORDS", "KINDS", "KIND_LABELS", "MAKE_FORMS", "MONTHS", "TIME_LABELS",
           "TimeTagger", "hashtag_word", "holiday_phrases", "is_link", "kind_of", "runs"]
