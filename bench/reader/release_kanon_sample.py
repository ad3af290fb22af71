"""Release a fresh sample of blog posts through the k-anonymization pipeline, for a reader to judge blind.

Usage: python bench/reader/release_kanon_sample.py --label NAME [--seed 20261206] [--rows 500] [--read 50]
                                                    [--out /tmp/kk/release]

Draws ``--rows`` posts of the Blog Authorship pool with ``--seed`` (never a post of an earlier sample, ``EARLIER``,
other than the seed's own, nor of the tuning files; see sample_kanon_entities.py), writes them as a dataset
with their relational columns, runs the pipeline as a user's job does (rx-anon's blog configuration,
e_blog_authorship_corpus.yaml, k = 2, λ = 0.5, string-level recoding on), re-reads the released file, and
writes the first ``--read`` posts as ``{"post", "original", "released"}`` JSON lines to OUT/NAME.jsonl. Run it
at two commits (before and after a change) with two labels, then ``blind_file.py`` shuffles both into one file
for the reader. The corpus stays outside the repo (research use only).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

csv.field_size_limit(sys.maxsize)
HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]
# Every earlier sample drawn for a reader (hand checks 20261201, 20261205, 20261208; release check 20261206).
EARLIER = [(20261201, 200), (20261205, 200), (20261206, 500), (20261208, 200)]


def main() -> int:
    import sample_kanon_entities as sample

    from anonymizer.kanon.config import load_config
    from anonymizer.kanon.pipeline import anonymize_csv
    from anonymizer.recognize import TermRecognizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--read", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kk/release"))
    args = parser.parse_args()
    if not sample.DATA.is_dir():
        print(f"skipped: {sample.DATA} is absent")
        return 0
    drawn = sample.draw(args.seed, args.rows, exclude=[e for e in EARLIER if e[0] != args.seed])
    wanted = {post["text"]: post["post"] for post in drawn}
    rows: dict[int, dict] = {}
    with gzip.open(sample.DATA / "blogs_100k.csv.gz", "rt", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            n = wanted.get(row["text"])
            if n is not None and n not in rows:
                rows[n] = row
    config_text = (sample.DATA / "rx-anon" / "e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    config = load_config(config_text, columns=HEADER).with_parameters(k=2, relational_weight=0.5)
    recognizer = TermRecognizer(entity_types=config.entity_types, custom_entities=config.custom_entities)
    with tempfile.TemporaryDirectory() as tmp:
        source, output = Path(tmp) / "posts.csv", Path(tmp) / "released.csv"
        with source.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(HEADER)
            for n in range(len(drawn)):
                writer.writerow([rows[n][column] for column in HEADER])
        report = anonymize_csv(source, config, output, recognize=recognizer.recognize_many)
        with output.open(newline="", encoding="utf-8") as handle:
            released = [row["text"] for row in csv.DictReader(handle)]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.label}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for n in range(args.read):
            handle.write(json.dumps({"post": n, "original": rows[n]["text"], "released": released[n]},
                                    ensure_ascii=False) + "\n")
    print(f"{args.read} of {len(drawn)} released posts (seed {args.seed}, k = 2, λ = 0.5) -> {path}; "
          f"report keys: {sorted(report)[:8]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
