"""Draw a fresh sample of blog posts for a reader to annotate by hand: the recall hand check of entity mentions.

Usage: .venv/bin/python bench/reader/sample_kanon_entities.py [--seed 20261201] [--posts 200]
                                                               [--out /tmp/kk/reader/sample.jsonl]
                                                               [--exclude-seed S --exclude-posts N ...]

The pool is ``../shared/data/kanon/blogs_100k.csv.gz`` (Blog Authorship Corpus, research use only, see
PROVENANCE.txt there), minus every post whose text also occurs in ``blogs_1k.csv``, ``blogs_5k.csv`` or
``blogs_20k.csv`` of the same folder: those files were used for tuning, so a post seen there (even if it occurs
again under another row) would flatter recall. Of the rest, only posts of 200-1,500 characters are kept, so that
each post can be annotated in full by hand. The pool, in file order, is shuffled with ``random.Random(seed)`` and
the first --posts are written as JSON lines ``{"post": n, "id": ..., "text": ...}`` (n = 0, 1, ...).

A later hand check must not reread an earlier sample's posts. The command line therefore skips, by default,
every post whose text occurs among the first 200 posts of seed 20261201 (the first hand check).
``--exclude-seed S --exclude-posts N`` names earlier samples instead; both may be given several times, paired in
order (e.g. ``--exclude-seed 20261201 --exclude-posts 200 --exclude-seed 20261205 --exclude-posts 200``), and
replace the default. A pair with N = 0 (``--exclude-posts 0`` alone turns the default off) or with S equal to
--seed is ignored, so ``--seed 20261201`` still gives the first sample unchanged. Excluded posts are removed
after the shuffle, so the rest keep their shuffled order. In code, ``draw(seed, posts)`` excludes nothing;
``draw(seed, posts, exclude=[(S, N), ...])`` skips the first N posts of each seed S.

The reader annotates the posts strictly in order, every post in full (no skipping of posts with few entities),
until at least 320 mentions are reached, and stores only offsets, labels and mention strings plus a SHA-256 of
each text in ``bench/reader/judgments_kanon_entities.jsonl`` (the corpus is not copied into the repo): this
script recreates the texts. The judgments were made once, before any automatic output was seen
(bench/reader/judgments_kanon_entities.md). Seeds 20261201, 20261205, 20261206 and 20261208 are spent; draw
a new seed for a new hand check and exclude all earlier samples.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "kanon"
TUNING = ("blogs_1k.csv", "blogs_5k.csv", "blogs_20k.csv")
MIN_CHARS, MAX_CHARS = 200, 1500

csv.field_size_limit(sys.maxsize)


def tuning_texts(data: Path = DATA) -> set[str]:
    texts: set[str] = set()
    for name in TUNING:
        with open(data / name, newline="", encoding="utf-8") as handle:
            texts.update(row["text"] for row in csv.DictReader(handle))
    return texts


def _pool(data: Path) -> list[tuple[str, str]]:
    excluded = tuning_texts(data)
    with gzip.open(data / "blogs_100k.csv.gz", "rt", newline="", encoding="utf-8") as handle:
        return [(row["id"], row["text"]) for row in csv.DictReader(handle)
                if row["text"] not in excluded and MIN_CHARS <= len(row["text"]) <= MAX_CHARS]


def draw(seed: int, posts: int, data: Path = DATA, *,
         exclude: list[tuple[int, int]] | None = None) -> list[dict]:
    """The first ``posts`` posts of the pool shuffled with ``seed``.

    ``exclude`` lists earlier samples as (seed, posts) pairs; a post whose text is among the first ``posts``
    of such a sample is skipped (after the shuffle). Without ``exclude`` the result is unchanged from the
    first hand check (seed 20261201)."""
    base = _pool(data)
    skip: set[str] = set()
    for old_seed, old_posts in exclude or ():
        old = list(base)
        random.Random(old_seed).shuffle(old)
        skip.update(text for _, text in old[:old_posts])
    pool = list(base)
    random.Random(seed).shuffle(pool)
    if skip:
        pool = [(blog_id, text) for blog_id, text in pool if text not in skip]
    return [{"post": n, "id": blog_id, "text": text} for n, (blog_id, text) in enumerate(pool[:posts])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kk/reader/sample.jsonl"))
    parser.add_argument("--exclude-seed", type=int, action="append",
                        help="skip the posts of this earlier sample (repeatable; never applied to its own seed)")
    parser.add_argument("--exclude-posts", type=int, action="append",
                        help="how many posts of the matching --exclude-seed to skip (repeatable); 0 skips none")
    args = parser.parse_args()
    seeds = args.exclude_seed or [20261201]
    counts = args.exclude_posts or [200]
    if len(seeds) != len(counts):
        parser.error("give --exclude-seed and --exclude-posts the same number of times")
    exclude = [(s, n) for s, n in zip(seeds, counts, strict=True) if n > 0 and s != args.seed] or None
    rows = draw(args.seed, args.posts, exclude=exclude)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    note = "".join(f", excluding seed {s}'s first {n}" for s, n in exclude or ())
    print(f"{len(rows)} posts (seed {args.seed}{note}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
