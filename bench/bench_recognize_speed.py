"""NER throughput of the recognition core, posts per second in one process (issue 44: the added recognizers may
cost at most 20% of it).

Usage: .venv/bin/python bench/bench_recognize_speed.py [--posts N] [--repeat R]

On the first N (default 1,000) posts of blogs_1k.csv, in one process (n_process = 1, batch_size 64, as a Celery
worker runs it), with rx-anon's blog configuration's entity types:
- spaCy alone: the recognizer's own NER pipeline (``TermRecognizer.nlp.pipe``), entities read, nothing else;
- the full recognizer: ``TermRecognizer.recognize_many`` (spaCy + rules + lexicons + resolution);
- the full recognizer with every entity type (the default configuration).
Each figure is the best of R runs (default 2), in wall time and in this process's CPU time: the machine is
shared, the best run is the least disturbed and the CPU time leaves out the time others held the cores. The
model is loaded and warmed up outside the timing. The commit measured is printed with the figures.
The data sets live in ../shared/data/kanon (research use only, not shipped); the benchmark is skipped without it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.kanon.config import load_config  # noqa: E402
from anonymizer.kanon.table import iter_rows  # noqa: E402
from anonymizer.recognize import TermRecognizer  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "kanon"
CONFIG = DATA / "rx-anon" / "e_blog_authorship_corpus.yaml"
HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]


def texts_of(path: Path) -> list[str]:
    with path.open("rb") as handle:
        return [row[HEADER.index("text")] for row in iter_rows(handle)]


def commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cI"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "unknown") + (" (with uncommitted changes)" if dirty else "")


def best_of(repeat: int, run) -> tuple[float, float, int]:
    """The shortest wall time and the shortest CPU time of this process over ``repeat`` calls of ``run`` (which
    returns a count of what it found), and that count. On a shared machine the CPU time is the steadier figure:
    it does not count the time other processes held the cores."""
    wall, cpu, found = float("inf"), float("inf"), 0
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        found = run()
        wall, cpu = min(wall, time.perf_counter() - started), min(cpu, time.process_time() - started_cpu)
    return wall, cpu, found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    blog = load_config(CONFIG.read_text(encoding="utf-8"), columns=HEADER)
    texts = texts_of(DATA / "blogs_1k.csv")[:args.posts]
    chars = sum(map(len, texts))
    print(f"Recognizer throughput, one process, {len(texts):,} posts of blogs_1k.csv ({chars / len(texts):,.0f} "
          f"characters on average), best of {args.repeat}; commit {commit()}:")
    blog_recognizer = TermRecognizer(model=blog.nlp_model, entity_types=blog.entity_types)
    every_type = TermRecognizer(model=blog.nlp_model)
    for recognizer in (blog_recognizer, every_type):
        list(recognizer.recognize_many(texts[:20]))  # load the model and warm up outside the timing

    def spacy_alone() -> int:
        return sum(len(doc.ents) for doc in blog_recognizer.nlp.pipe(texts, batch_size=blog_recognizer.batch_size))

    rows = [("spaCy alone (its NER pipeline)", spacy_alone),
            ("full recognizer, blog configuration",
             lambda: sum(map(len, blog_recognizer.recognize_many(texts)))),
            ("full recognizer, every entity type", lambda: sum(map(len, every_type.recognize_many(texts))))]
    print(f"  {'':<38}{'wall':>14}{'CPU':>16}")
    spacy_cpu = None
    for name, run in rows:
        wall, cpu, found = best_of(args.repeat, run)
        spacy_cpu = spacy_cpu or cpu
        print(f"  {name:<38}{len(texts) / wall:7.1f} posts/s{len(texts) / cpu:7.1f} posts/s  ({cpu:5.1f} s CPU, "
              f"{cpu / spacy_cpu:4.2f}x spaCy's; {found:,} spans/terms)", flush=True)


if __name__ == "__main__":
    main()
