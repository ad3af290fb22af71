"""Tokenizer throughput of the location capability (posts per second), the figure a timed test used to assert.

Usage: .venv/bin/python bench/bench_tokenize.py
Targets: Japanese (fugashi + unidic-lite) 5,000 posts/s, English (spaCy's tokenizer) 2,000 posts/s, on 5,000 posts
of the shared geotagged tweets (skipped when ../shared/data/geo is absent). A fresh tokenizer per language, so no
cache warmed by another run flatters the figure; 50 posts first to load the dictionaries.
"""

from __future__ import annotations

import csv
import gzip
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.location.tokenize import Tokenizer, TokenizerSettings  # noqa: E402

CORPORA = {"ja": (REPO.parent / "shared/data/geo/japan_311/tweets.csv", 5000),
           "en": (REPO.parent / "shared/data/geo/us_midwest_2017/tweets.csv.gz", 2000)}


def main() -> int:
    for language, (path, target) in CORPORA.items():
        if not path.exists():
            print(f"skipped {language}: {path} is absent")
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8", newline="") as handle:
            texts = [row["text"] for row in csv.DictReader(handle)]
        texts = (texts * (5000 // len(texts) + 1))[:5000]
        tokenizer = Tokenizer(TokenizerSettings(language))
        list(tokenizer.tokenize_many(texts[:50]))
        started = time.perf_counter()
        n_tokens = sum(map(len, tokenizer.tokenize_many(texts)))
        rate = len(texts) / (time.perf_counter() - started)
        print(f"tokenize_many {language}: {rate:,.0f} posts/s ({n_tokens:,} tokens; target {target:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
