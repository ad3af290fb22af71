"""The pair-level naturalness check (:class:`anonymizer.temporal.evaluate.NaturalnessChecker`) against a person.

The checker judges an (original, output) pair on its own: it aligns the output's pieces with the original's to find
what was removed and what was inserted, runs the parse rules of :func:`naturalness_problems` on the original's parse
with those token sets (dangling preposition, orphaned word, a verb or copula that lost its complement or subject, a
neutral phrase run into a noun or standing for an adverbial before a clause, a hedge or particle left by it, a date
or range cut in half, a separator gone from between two kept words, a word that needs a complement before the end
of a sentence, a label without its value, a greeting turned into a phrase, ...), and scores every junction of the
output with a word trigram model (Kneser-Ney, fitted on ~41k English US-Midwest posts, no SynTime text).

When it was written, on the 180 outputs of the three development samples as then judged (29 unnatural): recall
of "unnatural" 0.72 (21/29), precision 0.84. The parse rules were written while reading those samples, so that
figure is optimistic. On the **fresh held-out sample** (hand_checked_fresh.json: 100 outputs judged once before any
automatic verdict, 22 unnatural) it finds 8 of the 22 (recall 0.36, precision 0.80): the goal of 0.7 is not met.
On all four samples as judged after round 4 (40 unnatural of 280; round 4 fixed 11 of the fresh sample's outputs,
which then counts as development data): recall 22/40, precision 22/36, 14 natural ones flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonymizer.temporal.evaluate import NaturalnessChecker, align
from anonymizer.temporal.language_model import NGramLanguageModel, read_posts, tokenize
from tests.helpers import shared_data

HERE = Path(__file__).parent
SAMPLES = ("hand_checked_sample.json", "hand_checked_round2.json", "hand_checked_heldout.json",
           "hand_checked_fresh.json")
# Floors: what is measured on the four samples today (see the module docstring), so a regression shows. Rounds 6
# to 8 replaced 41 of their outputs (judged again): 18 of 33 unnatural flagged, 24 natural ones; round 9 replaced 25
# more (judged again by another reader): 16 of 31, 23 natural ones. The checker that meets the 0.7 goal is the fitted
# one (LearnedNaturalnessChecker, test_hand_checked_midwest.py).
MIN_RECALL = 0.51
MIN_PRECISION = 0.40  # round 16 (now words kept, outputs judged again): 15/37
MAX_NATURAL_FLAGGED = 23


@pytest.fixture(scope="module")
def language_model() -> NGramLanguageModel:
    return NGramLanguageModel().fit(read_posts(shared_data("geo/us_midwest_2017/tweets.csv.gz")))


@pytest.fixture(scope="module")
def checker(anonymizer, language_model) -> NaturalnessChecker:
    return NaturalnessChecker(anonymizer.nlp, language_model)


def test_the_language_model_prefers_english():
    model = NGramLanguageModel(min_count=1).fit(["see you at the park", "see you at home", "at the park today"] * 5)
    assert tokenize("See you @user at 9:30pm!!! http://x.co") == ["see", "you", "<user>", "at", "<num>", "!", "<url>"]
    fluent, broken = model.score(["see you at the park", "park the at you see"])
    assert fluent > broken
    with pytest.raises(RuntimeError):
        NGramLanguageModel().score(["unfitted"])


def test_the_alignment_finds_what_was_removed_and_inserted(anonymizer):
    alignment = align(anonymizer.nlp, "Tomorrow is my birthday, see you at 9pm!",
                      "A certain day is my birthday, see you!")
    assert alignment.inserted == ("A certain day",)
    assert [alignment.doc[i].text for i in sorted(alignment.cut)] == ["Tomorrow", "at", "9", "pm"]
    assert [alignment.doc[i].text for i in sorted(alignment.replaced)] == ["Tomorrow"]


@pytest.mark.parametrize(("original", "output"), [
    pytest.param("Practicing piano at 9am haha.", "Practicing piano at haha.", marks=pytest.mark.xfail(
        reason="known miss: the parser reads 'haha' as the object of 'at', and the language model rates the junction "
               "no worse than 'at 9am haha'", strict=True)),
    ("Goood morning!! #authentic", "A certain time!! #authentic"),
    ("It's today!", "It's!"),
    ("See you at 5pm!", "See you at!"),
    ("Dated: 21 May 2013 http://t.co/abc", "Dated: http://t.co/abc"),
    ("Tomorrow I'm in Hong Kong with my friends", "A certain day I'm in Hong Kong with my friends"),
    ("The concert is on 11 Oct in the park", "The concert is on 11 in the park"),
    ("Photo: One year ago, #Singapore was covered in haze", "Photo #Singapore was covered in haze"),
    ("I spend what 10-12 hours locked up in my room", "I spend what some time locked up in my room"),
    ("The sale is today!! Good luck to all", "The sale is!! Good luck to all"),
])
def test_bad_outputs_are_flagged(checker, original, output):
    assert checker.problems(original, output), f"{output!r} passed"


@pytest.mark.parametrize(("original", "output"), [
    ("See you at 5pm at the park!", "See you at the park!"),
    ("I went to the gym this morning with my brother.", "I went to the gym with my brother."),
    ("Tomorrow is my birthday!", "A certain day is my birthday!"),
    ("We will meet at the station at 9am.", "We will meet at the station."),
    ("Had a great time in Tokyo last week", "Had a great time in Tokyo"),
    ("Nothing about time here", "Nothing about time here"),
])
def test_natural_outputs_pass(checker, original, output):
    assert checker.is_natural(original, output), checker.problems(original, output)


def test_recall_and_precision_on_the_human_verdicts(checker, tweets):
    # A person's verdicts on 280 outputs: the checker must keep finding the unnatural ones (see the docstring).
    tp = fp = fn = 0
    for name in SAMPLES:
        for judged in json.loads((HERE / name).read_text(encoding="utf-8")):
            flagged = not checker.is_natural(tweets[judged["id"]]["text"], judged["output"])
            tp, fp, fn = tp + (flagged and not judged["natural"]), fp + (flagged and judged["natural"]), \
                fn + (not flagged and not judged["natural"])
    assert tp / (tp + fn) >= MIN_RECALL, f"recall {tp}/{tp + fn}"
    assert tp / (tp + fp) >= MIN_PRECISION, f"precision {tp}/{tp + fp}"
    assert fp <= MAX_NATURAL_FLAGGED
