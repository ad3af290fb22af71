"""Hand-checked random samples of SynTime tweets (../shared/data/temporal/syntime_tweets/train.jsonl), so the
automatic checks of :mod:`anonymizer.temporal.evaluate` stay honest: a person read every original and the
anonymizer's output and judged it **correct** (no time information of the gold spans survives; generalized counts
as removed) and **natural** (a grammatical, natural post: nothing left dangling or orphaned, no punctuation
debris, still makes sense). The verdicts, with a reason for every "no", are in one file per sample:

- hand_checked_sample.json, the first **development** sample: ``random.Random(7).sample`` of 60 over the sorted
  ids of the tweets with a gold time expression, less the 9 of test_real_tweets.py. It was used to develop the
  anonymizer and the checks (round 1), so its figures are optimistic.
- hand_checked_round2.json: ``random.Random(11).sample`` of 60 over the same pool less the development ids. It
  was judged once as a held-out sample after round 1 (a person: 41/60 correct and natural, where the automatic
  checks said 53/60), then used to develop round 2: now optimistic too.
- hand_checked_heldout.json, the round-3 sample: ``random.Random(13).sample`` of 60 over the pool less both
  samples above, judged once after round 2 as the held-out sample (42/60 correct and natural), then read to
  develop the stricter natural check and the role rewrites of issue 18: now optimistic too.
- hand_checked_fresh.json, the round-4 sample: ``random.Random(17).sample`` of 100 over the pool less the three
  samples above, drawn before the issue-18 work began and kept out of it (the tagger was tuned on the other 622
  tweets), judged once on the round-3 anonymizer before any automatic verdict was looked at (75/100 correct and
  natural), then read to develop round 4: now optimistic too. The held-out estimate after round 4 comes from
  posts of another source, never read before (tests/temporal/core/test_hand_checked_midwest.py).

The verdicts are about the outputs stored with them: if the anonymizer's output for a sampled tweet changes, the
output test fails and that tweet must be read and judged again (for the fresh held-out sample, a change made to fix
one of its tweets spends it: draw and judge a new held-out sample instead).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from anonymizer.temporal.evaluate import is_correct, naturalness_problems, placing_spans
from anonymizer.temporal.normalize import normalize

HERE = Path(__file__).parent
DEVELOPMENT = json.loads((HERE / "hand_checked_sample.json").read_text(encoding="utf-8"))
ROUND2 = json.loads((HERE / "hand_checked_round2.json").read_text(encoding="utf-8"))
HELDOUT = json.loads((HERE / "hand_checked_heldout.json").read_text(encoding="utf-8"))
FRESH = json.loads((HERE / "hand_checked_fresh.json").read_text(encoding="utf-8"))
# The ids test_real_tweets.py had hand-checked when the development sample was drawn (left out of both draws).
EARLIER = frozenset({"train_52", "train_93", "train_102", "train_165", "train_234", "train_403", "train_435",
                     "train_553", "train_710"})
# Measured on the development sample. When it was first judged, 22 of the 60 outputs a person found unnatural
# passed the automatic check (agreement 38/60) and 35/60 were correct and natural. After three rounds of development
# (the outputs that changed were judged again each time): the natural check misses 5 of the 8 outputs a person finds
# unnatural and flags 3 natural ones; the correct check fails one output whose only survivor of a gold span is 'the'.
# Round 6 changed 5 of its outputs, judged again by a reader who saw only the pairs ("Enjoy my day" kept as written:
# not correct against the gold span).
# Round 15 keeps "one night stand" and "Nights out" (no time, the reader agreed); the gold spans count them.
NATURAL_AGREEMENT = 51
CORRECT_AGREEMENT = 58
HUMAN_CORRECT_AND_NATURAL = 51  # round 8: 4 more changed, judged again (50); round 15 as above
# Measured on the round-2 sample: judged once after round 1 (55 correct, 45 natural, 41 both; the natural check
# passed 14 outputs the person found unnatural), then used for rounds 2 and 3 and the changed outputs judged again.
# Round 4 lets a describing word kept before a neutral noun pass ("bright time"), which this person found odd once.
# Round 6: 5 outputs changed and judged again ("The time of Location Based ... Apps", "Sad time already" unnatural).
# Round 7: 3 more changed and judged again; the gold-span check now counts "bright future", "The whole time" and a
# kept title as survivors, which the reader did not.
# Round 9: 5 more changed and judged again (the re-judging reader took "after 4+ hours of queuing" to pay respects to
# Mr Lee as dating the post); the gold-span check now counts only DATE and TIME spans (placing_spans).
ROUND2_NATURAL_AGREEMENT = 52
ROUND2_CORRECT_AGREEMENT = 55
ROUND2_HUMAN_CORRECT_AND_NATURAL = 51
# Measured on the round-3 sample: judged once after round 2 (54 correct, 47 natural, 42 both; the natural check then
# passed 11 of the 13 outputs the person found unnatural), then used for round 3 (issue 18) and re-judged.
# Round 6: 6 outputs changed and judged again.
# Round 7: 4 more changed and judged again.
# Round 9: 4 more changed and judged again ("my daily #lunch time #coffee" read as lunchtime now, "Dated" hanging).
# Issue 46: train_214 and train_342 await a reader; the agreements count the other 58.
HELDOUT_NATURAL_AGREEMENT = 50
HELDOUT_CORRECT_AGREEMENT = 56
HELDOUT_HUMAN_CORRECT_AND_NATURAL = 51  # round 16: outputs judged again (now words, "future" kept)
# Measured on the round-4 sample: judged once on the round-3 anonymizer before the automatic verdicts were looked
# at (a person: 97 correct, 78 natural, 75 both, Wilson 95%: 66-82%; the natural check caught 7 of the 22 outputs
# the person found unnatural), then used for round 4 and the 12 changed outputs judged again.
# Round 6: 8 outputs changed and judged again (a "day" the tagger now leaves in "Enjoy my day" is not correct
# against its gold span).
# Round 7: 1 more changed and judged again ("It should be reserved ...": an "it" without a referent).
# Round 9: 10 more changed and judged again ("to lead our country 26 years" with #Pakistan read as dating the post).
# Round 12: 3 more changed and judged again ("BEFORE MY LAST DAY" kept: the check counts it, the reader did not).
# Issue 46: train_76 awaits a reader; the agreements count the other 99.
FRESH_NATURAL_AGREEMENT = 89
FRESH_CORRECT_AGREEMENT = 94
FRESH_HUMAN_CORRECT_AND_NATURAL = 88  # round 8: 5 more changed, judged again

# name -> (verdicts, seed of the draw, ids left out of the pool, natural agreement, correct agreement, person's
# correct-and-natural count)
SAMPLES = {
    "development": (DEVELOPMENT, 7, EARLIER, NATURAL_AGREEMENT, CORRECT_AGREEMENT, HUMAN_CORRECT_AND_NATURAL),
    "round2": (ROUND2, 11, EARLIER | {judged["id"] for judged in DEVELOPMENT}, ROUND2_NATURAL_AGREEMENT,
               ROUND2_CORRECT_AGREEMENT, ROUND2_HUMAN_CORRECT_AND_NATURAL),
    "heldout": (HELDOUT, 13, EARLIER | {judged["id"] for judged in DEVELOPMENT + ROUND2}, HELDOUT_NATURAL_AGREEMENT,
                HELDOUT_CORRECT_AGREEMENT, HELDOUT_HUMAN_CORRECT_AND_NATURAL),
    "fresh": (FRESH, 17, EARLIER | {judged["id"] for judged in DEVELOPMENT + ROUND2 + HELDOUT},
              FRESH_NATURAL_AGREEMENT, FRESH_CORRECT_AGREEMENT, FRESH_HUMAN_CORRECT_AND_NATURAL),
}


@pytest.fixture(scope="module")
def automatic(tweets, anonymizer) -> dict[str, tuple[str, bool, bool]]:
    """id -> (output, automatically correct, automatically natural) for every tweet of the samples."""
    verdicts = {}
    for judged in DEVELOPMENT + ROUND2 + HELDOUT + FRESH:
        row = tweets[judged["id"]]
        norm = normalize(row["text"])
        doc = anonymizer.nlp(norm.text)
        result = anonymizer.anonymize_doc(norm, doc)
        problems = naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, row["text"], result.text)
        placing = placing_spans(row["spans"], row["text"])
        verdicts[judged["id"]] = (result.text, is_correct(result, placing, row["text"]), not problems)
    return verdicts


@pytest.mark.parametrize("name", SAMPLES)
def test_the_sample_is_the_seeded_draw(tweets, name):
    sample, seed, excluded = SAMPLES[name][:3]
    pool = sorted(i for i, row in tweets.items() if row["spans"] and i not in excluded)
    assert [judged["id"] for judged in sample] == random.Random(seed).sample(pool, len(sample))
    assert all(judged["note"] for judged in sample if not (judged["correct"] and judged["natural"]))


# Outputs the issue-46 tagging changed since their verdicts were given: "the future" dates nothing and is kept as
# written now (TimeML and the gold spans count it, the readers of issue 46 did not). The verdicts are about outputs we
# no longer give, so they stay out of the human count (it counts only outputs still given) and out of the agreement
# until a reader judges the new outputs; then store those verdicts and drop the ids from here.
AWAITING_JUDGMENT: dict[str, str] = {}  # round 16's changed outputs were judged again (see the files' notes)


@pytest.mark.parametrize("judged", [judged for sample, *_ in SAMPLES.values() for judged in sample],
                         ids=[f"{name}-{judged['id']}" for name, (sample, *_) in SAMPLES.items() for judged in sample])
def test_the_anonymizer_still_gives_the_judged_output(automatic, judged):
    # On failure the verdict in the sample's file is about an output we no longer give: judge it again.
    if judged["id"] in AWAITING_JUDGMENT:
        assert automatic[judged["id"]][0] != judged["output"], "the output is the judged one again: drop it from " \
            "AWAITING_JUDGMENT"
        return
    assert automatic[judged["id"]][0] == judged["output"]


@pytest.mark.parametrize("name", SAMPLES)
def test_the_automatic_checks_agree_with_the_person(automatic, name):
    sample, _, _, natural_agreement, correct_agreement, _ = SAMPLES[name]
    sample = [j for j in sample if j["id"] not in AWAITING_JUDGMENT]
    natural = [j["id"] for j in sample if automatic[j["id"]][2] != j["natural"]]
    correct = [j["id"] for j in sample if automatic[j["id"]][1] != j["correct"]]
    assert len(sample) - len(natural) >= natural_agreement, f"natural: automatic check disagrees on {natural}"
    assert len(sample) - len(correct) >= correct_agreement, f"correct: automatic check disagrees on {correct}"


@pytest.mark.parametrize("name", SAMPLES)
def test_the_human_correct_and_natural_count(automatic, name):
    # The person's figure holds for the outputs they judged: it counts only the outputs the anonymizer still
    # gives, so a change that alters a judged-good output lowers it (and that output must be judged again).
    sample, *_, human_correct_and_natural = SAMPLES[name]
    assert len(sample) == (100 if name == "fresh" else 60)
    still_given = [j for j in sample if automatic[j["id"]][0] == j["output"]]
    assert sum(j["correct"] and j["natural"] for j in still_given) == human_correct_and_natural
