"""A held-out sample from another source: English posts of ../shared/data/geo/us_midwest_2017 (Twitter's ``lang``
"en", no retweets), which no tagger rule, rewrite or checker rule was written from.

The draw, made before the round-4 outputs were looked at: the posts are split by an independent broad regular
expression (``TIME_HINT`` below, not the tagger: weekdays, months, "today", parts of the day, clock times and
dates, years, seasons, holidays), and ``random.Random(23).sample`` takes 100 of the sorted ids that match
(``hand_checked_midwest.json``) and ``random.Random(29).sample`` 100 of the rest (``hand_checked_midwest_plain.json``).
A person read every original and the round-4 anonymizer's output once, before any automatic verdict, and judged:
- each timed post **correct** (nothing a reader could take as when the post was written or the writer was
  somewhere survives; generalized counts as removed) and **natural** (as in test_hand_checked_sample.py), with a
  reason for every "no";
- each plain post whether it holds a time expression the regex missed ("earlier", "these days"); for the ones
  without, an output different from the post is a content word lost.

Round 4, judged once: 93 correct, 63 natural, **61 correct and natural** (Wilson 95%: 51-70%), below the SynTime
samples: ages cut as durations ("A fucking just flipped me off"), neutral phrases where no phrase fits ("it is a
certain time and"), articles and hedges left ("in the 💪", "with me like"), day numbers of "Jun 28" / "July 4"
left, weather-bot lines cut to nothing. Posts without time: 86 of 87 unchanged (the age "12yr old" cut).
Round 5 was developed on these failures, and the 25 changed outputs judged again: 96 correct, 76 natural, 75 both,
87 of 87 unchanged. That is development data now (optimistic); the held-out estimate of round 5 is
test_hand_checked_midwest2.py.

The verdicts are about the outputs stored with them: when an output changes, the test fails and the output must be
judged again (and the sample is then development data: draw another).
"""

from __future__ import annotations

import csv
import gzip
import json
import random
import re
from pathlib import Path

import pytest

from anonymizer.temporal.evaluate import NaturalnessChecker
from anonymizer.temporal.language_model import NGramLanguageModel
from tests.helpers import shared_data

HERE = Path(__file__).parent
TIMED = json.loads((HERE / "hand_checked_midwest.json").read_text(encoding="utf-8"))
PLAIN = json.loads((HERE / "hand_checked_midwest_plain.json").read_text(encoding="utf-8"))
# The draw's split, independent of the tagger (word-bounded, case-insensitive).
TIME_HINT = re.compile(
    r"\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(today|tonight|tomorrow|yesterday|tmrw|tmr|tonite|2nite|2day)\b|"
    r"\b(morning|afternoon|evening|night|noon|midnight|weekend|week|month|year|hour|minute)s?\b|"
    r"\b(january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|"
    r"aug|sep|sept|oct|nov|dec)\b|\b\d{1,2}(:\d\d)?\s?(am|pm)\b|\b\d{1,2}:\d\d\b|\b\d{1,2}/\d{1,2}(/\d{2,4})?\b|"
    r"\b(ago|o'clock|christmas|xmas|thanksgiving|easter|halloween|summer|winter|spring|fall)\b|\b(19|20)\d\d\b", re.I)
# The person's counts on the outputs stored in the two files (see the module docstring).
HUMAN_CORRECT = 96
HUMAN_NATURAL = 76
HUMAN_CORRECT_AND_NATURAL = 75
PLAIN_WITHOUT_TIME = 87
PLAIN_WITHOUT_TIME_UNCHANGED = 87
# The pair-level checker (parse rules + a trigram model fitted without the sampled posts) against the person's
# "natural" verdicts on the 100 timed outputs. Round 4, judged once: it flagged 11 of the 37 unnatural outputs
# (recall 0.30) and 13 of the 63 natural ones. On the round-5 outputs: 6 of 24 unnatural, 16 of 76 natural. On posts
# it was not written from, the checker is no guide yet.
CHECKER_FLAGGED_UNNATURAL = 6
CHECKER_FLAGGED_NATURAL = 16


@pytest.fixture(scope="module")
def posts() -> dict[str, dict]:
    with gzip.open(shared_data("geo/us_midwest_2017/tweets.csv.gz"), "rt", encoding="utf-8", newline="") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def outputs(posts, anonymizer) -> dict[str, str]:
    ids = [judged["id"] for judged in TIMED + PLAIN]
    return dict(zip(ids, (result.text for result in anonymizer.transform([posts[i]["text"] for i in ids])),
                    strict=True))


def test_the_samples_are_the_seeded_draws(posts):
    english = [row for row in posts.values() if row["lang"] == "en" and not row["text"].startswith("RT ")]
    timed = sorted(row["id"] for row in english if TIME_HINT.search(row["text"]))
    plain = sorted(row["id"] for row in english if not TIME_HINT.search(row["text"]))
    assert [judged["id"] for judged in TIMED] == random.Random(23).sample(timed, 100)
    assert [judged["id"] for judged in PLAIN] == random.Random(29).sample(plain, 100)
    assert all(judged["note"] for judged in TIMED if not (judged["correct"] and judged["natural"]))
    assert all(judged["note"] for judged in PLAIN if judged["has_time"])


@pytest.mark.parametrize("judged", TIMED + PLAIN, ids=[judged["id"] for judged in TIMED + PLAIN])
def test_the_anonymizer_still_gives_the_judged_output(outputs, judged):
    # On failure the verdict is about an output we no longer give: judge it again.
    assert outputs[judged["id"]] == judged["output"]


def test_the_human_counts(outputs, posts):
    still_given = [judged for judged in TIMED if outputs[judged["id"]] == judged["output"]]
    assert sum(judged["correct"] for judged in still_given) == HUMAN_CORRECT
    assert sum(judged["natural"] for judged in still_given) == HUMAN_NATURAL
    assert sum(judged["correct"] and judged["natural"] for judged in still_given) == HUMAN_CORRECT_AND_NATURAL
    without_time = [judged for judged in PLAIN if not judged["has_time"]]
    assert len(without_time) == PLAIN_WITHOUT_TIME
    assert sum(outputs[judged["id"]] == posts[judged["id"]]["text"] for judged in without_time) \
        == PLAIN_WITHOUT_TIME_UNCHANGED


def test_the_checker_against_the_person(anonymizer, posts):
    sampled = {judged["id"] for judged in TIMED + PLAIN}
    model = NGramLanguageModel().fit([row["text"] for row in posts.values()
                                      if row["lang"] == "en" and row["id"] not in sampled and row["text"]])
    checker = NaturalnessChecker(anonymizer.nlp, model)
    flagged = {judged["id"] for judged in TIMED if not checker.is_natural(posts[judged["id"]]["text"],
                                                                           judged["output"])}
    assert sum(judged["id"] in flagged for judged in TIMED if not judged["natural"]) == CHECKER_FLAGGED_UNNATURAL
    assert sum(judged["id"] in flagged for judged in TIMED if judged["natural"]) == CHECKER_FLAGGED_NATURAL
