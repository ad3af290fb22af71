"""Issue 46's decision: "now" words (now, rn, currently, lately, soon, these days, earlier, later) are not time
expressions to remove. They say nothing beyond the post's own timestamp, so the default keeps them; a time beside
them still goes. Asking to keep nothing (``keep_kinds=frozenset()``, or ``keep_time: []`` in a request) removes
them as the paper did."""

from __future__ import annotations

import pytest

from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.evaluate import placing_spans
from anonymizer.temporal.removal import DEFAULT_KEEP_TIME, TimeRemovalOptions, time_anonymizer

NOW_POSTS = [
    "I'm at the gym right now",
    "See you soon!",
    "Currently reading a great book",
    "These days I walk to work",
    "I was there earlier",
    "rn im so tired",
    "Now playing: Hello by Adele",
    "Lately I've been thinking about you",
    "what are you doing now?",
    "Recently moved to a new flat",
    "I will call you later",
]


@pytest.mark.parametrize("text", NOW_POSTS)
def test_a_post_whose_only_time_is_a_now_word_is_unchanged(anonymizer, text):
    assert anonymizer.transform([text])[0].text == text


@pytest.mark.parametrize(("text", "expected"), [
    ("Leaving now, see you at 9am", "Leaving now, see you"),
    ("Happening now: the parade on Monday", "Happening now: the parade"),
    ("Tonight I'm out with friends", "I'm out with friends"),
    ("I'll do it later today", "I'll do it"),  # "later today" names a day: it goes whole
])
def test_a_time_beside_a_now_word_still_goes(anonymizer, text, expected):
    assert anonymizer.transform([text])[0].text == expected


def test_keeping_nothing_removes_the_now_words_too(anonymizer):
    strict = TemporalAnonymizer(anonymizer.nlp, tagger=anonymizer.tagger, keep_kinds=frozenset())
    outputs = [result.text for result in strict.transform(NOW_POSTS)]
    assert outputs[:3] == ["I'm at the gym", "See you!", "Reading a great book"]
    assert all(out != text for out, text in zip(outputs, NOW_POSTS, strict=True))


def test_a_request_keeps_now_words_unless_it_asks_to_keep_nothing():
    assert DEFAULT_KEEP_TIME == ["now"]
    assert time_anonymizer(TimeRemovalOptions(), use_ner=False).transform(["See you soon!"])[0].text == "See you soon!"
    keep_nothing = TimeRemovalOptions(keep_time=())
    assert time_anonymizer(keep_nothing, use_ner=False).transform(["See you soon!"])[0].text == "See you!"


def test_the_gold_check_leaves_out_spans_that_date_nothing():
    text = "Right now I'm in town, back tomorrow. Currently busy, the future"
    spans = [(0, 9, "DATE"), (28, 36, "DATE"), (38, 47, "DATE"), (23, 27, "DURATION"), (54, 64, "DATE")]
    assert text[54:64] == "the future"
    assert placing_spans(spans, text) == [(28, 36)]
