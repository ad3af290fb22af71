"""Speed of string-level recoding (``OccurrenceSpreader``; issue 44, item 6: a dataset's first run at 1M rows,
string-level recoding <= 120 s on two workers).

Usage: .venv/bin/python bench/bench_recode_speed.py [--rows 100000,1000000] [--old-max 100000] [--fill 5000]
       [--first-run-rows 1000000] [--posts 100000] [--fill-100k N] [--skip throughput,pipeline,first-run]

Three sections, one run:
- throughput: the distinct posts whose terms are known (up to 20,000 of blogs_20k.csv), learned once in one
  process, then every post's learned strings found by three engines side by side, in one process: the Python
  pass over every word (what string-level recoding did until the automaton, ``recode_baselines.python_pass``),
  one RE2 alternation of every learned string (``recode_baselines.RegexSpreader``), and the Aho-Corasick
  automaton (``OccurrenceSpreader``, what runs now); posts per second in wall and CPU time, and how many posts
  each engine gives other terms than the automaton.
- pipeline: for each size of ``--rows`` (default 100,000), a file of that many posts drawn with replacement from
  those posts, each the only post of a new person (as bench_kanon's "million" section: the most persons a file
  can hold); string-level recoding as a dataset's first run does it (``pipeline.spread_terms``): learning in the
  main process, then the adding pass in parts of 4 MB on 2 fresh worker processes (each reads its part from the
  file and its terms from the term cache, makes the spreader from the learned strings' JSON, as a Celery worker
  does), then the parts' changes applied; with the automaton, and with the Python pass for sizes up to
  ``--old-max``. The figure of the goal is the sum of the three steps. On a shared machine the wall times say
  little: the CPU time of the main process and of the parts is printed too, and what it would take on 2 cores of
  its own (main process + parts / 2), which is what the extrapolation to 1M rows uses.

- first-run (issue 44, item 6's figure, measured, not extrapolated): a dataset's first run at ``--first-run-rows``
  (default 1,000,000) rows, string-level recoding on 2 worker processes, wall and CPU time (main process, and every
  worker process from its start: making the spreader from the learned strings' JSON included). The rows are the
  posts of blogs_100k.csv.gz whose NER terms the term cache var/bench/blogs_100k.terms.sqlite3 holds (the one
  bench_kanon.py's "million" section fills; ``--fill-100k N`` recognizes its first N posts first, 2 processes,
  about 60 posts/s/process), in order, repeated until the size, each copy's ids made distinct ("<id>#<copy>"): the
  persons keep their posts (several per person, as in the corpus), and no person is in two copies (``--posts``:
  at most that many distinct posts, so that runs at two commits use the same). What a first
  run has, and nothing more: every text's terms are in the term cache (its recognition pass put them there, the
  workers read them from it, as ``kanon.web.jobs.spread_part_of`` does; a miss stops the bench), no string-level
  recoding is cached, and a copy is 4 MB parts away from the next, so no part reads a text twice. What it has
  less of: the learned strings are those of the distinct posts, not of a million distinct ones (fewer strings,
  so somewhat fewer matches per post; the automata's passes are linear in the text whatever their number).
  Skipped when the cache holds no post of blogs_100k. ``--baseline`` also times the pieces that existed before
  this section (at an older commit: run the file from there).

The terms: recognized by the recognizer (rx-anon's blog configuration) into var/bench/blogs_20k.terms.sqlite3, the
first ``--fill`` posts of blogs_20k.csv when the cache holds none (2 processes). When the current recognizer's
terms are not there, those of the version with the most posts in the cache are used, and said so: the speed of
string-level recoding depends on how many terms and strings there are, not on which version found them. Resampled
posts repeat the same learned strings, fewer than as many distinct posts would hold: the automaton's pass is
linear in the text whatever the number of strings; the learning step grows with the distinct strings.
The data sets live in ../shared/data/kanon (research use only, not shipped); the benchmark is skipped without it.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing
import random
import resource
import sqlite3
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.kanon.config import load_config  # noqa: E402
from anonymizer.kanon.occurrences import OccurrenceSpreader  # noqa: E402
from anonymizer.kanon.pipeline import merge_parts, spread_labels, spread_part, spread_terms, texts_in_span  # noqa: E402
from anonymizer.kanon.table import iter_rows, read_table  # noqa: E402
from anonymizer.kanon.terms import RowTerms  # noqa: E402
from anonymizer.recognize import TermCache, TermRecognizer, recognize_with_cache  # noqa: E402
from anonymizer.tabular.reader import CsvSource  # noqa: E402
from anonymizer.tabular.spans import record_spans  # noqa: E402

sys.path.insert(0, str(REPO / "bench"))
from recode_baselines import RegexSpreader, python_pass  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "kanon"
CONFIG = DATA / "rx-anon" / "e_blog_authorship_corpus.yaml"
HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]
TERMS = REPO / "var" / "bench" / "blogs_20k.terms.sqlite3"
#: A part of the adding pass, as a job cuts them (bench_kanon.PART_BYTES): 8 x JOB_CHUNK_BYTES of 512 KB.
PART_BYTES = 8 * 512 * 1024
WORKERS = 2


def config():
    return load_config(CONFIG.read_text(encoding="utf-8"), columns=HEADER)


def rows_of(path: Path) -> list[list[str]]:
    with path.open("rb") as handle:
        return list(iter_rows(handle))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fingerprint_in_cache(recognizer: TermRecognizer) -> tuple[str, int, str]:
    """The recognizer version whose terms are used: the current one's when the cache holds some, else the one
    with the most posts; with its number of posts and how it is described."""
    with sqlite3.connect(TERMS) as db:
        counts = dict(db.execute("SELECT fingerprint, count(*) FROM terms_v1 GROUP BY fingerprint"))
    if counts.get(recognizer.fingerprint):
        return recognizer.fingerprint, counts[recognizer.fingerprint], "the current recognizer's"
    fingerprint = max(counts, key=counts.get)
    return fingerprint, counts[fingerprint], f"an earlier recognizer version's ({fingerprint[:10]})"


def known_posts(fill: int) -> tuple[list[list[str]], list[list], str, str]:
    """The rows of blogs_20k.csv whose terms the cache holds (filled with ``fill`` posts when it holds none),
    their terms (the configured types only), the fingerprint, and a line saying where they come from."""
    base = config()
    recognizer = TermRecognizer(model=base.nlp_model, entity_types=base.entity_types, n_process=2)
    rows = rows_of(DATA / "blogs_20k.csv")
    TERMS.parent.mkdir(parents=True, exist_ok=True)
    with TermCache(TERMS) as cache:
        if not len(cache):
            started = time.perf_counter()
            for _ in recognize_with_cache([row[-1] for row in rows[:fill]], recognizer, cache):
                pass
            print(f"  recognized {fill:,} posts of blogs_20k.csv into {TERMS.relative_to(REPO)} in "
                  f"{time.perf_counter() - started:.0f} s")
        fingerprint, _, whose = fingerprint_in_cache(recognizer)
        found = cache.get_many(fingerprint, [row[-1] for row in rows])
    labels = spread_labels(base)
    kept = [(row, [t for t in terms if t.label in labels]) for row, terms in zip(rows, found, strict=True)
            if terms is not None]
    return [r for r, _ in kept], [t for _, t in kept], fingerprint, f"{whose} terms of {len(kept):,} posts"


def timed(run) -> tuple[float, float, object]:
    started, started_cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - started, time.process_time() - started_cpu, result


def bench_throughput(texts: list[str], terms: list[list]) -> None:
    persons = list(range(len(texts)))
    scope = "dataset" if config().recode_everywhere else "person"
    wall, cpu, spreader = timed(lambda: OccurrenceSpreader(scope).fit(texts, terms, persons))
    everywhere = sum(p.everywhere for p in spreader.learned_)
    chars = sum(map(len, texts))
    print(f"throughput, one process, {len(texts):,} distinct posts ({chars / len(texts):,.0f} characters on average), "
          f"one person each: learned {len(spreader.learned_):,} strings ({everywhere:,} spread everywhere) in "
          f"{wall:.1f} s")
    wall, _, regex = timed(lambda: RegexSpreader.of(spreader))
    print(f"  (the RE2 alternation of the {everywhere:,} strings compiled in {wall:.1f} s)")
    engines = [("Python pass over every word (before)", lambda t, b, p: python_pass(spreader, t, b, p)),
               ("one RE2 alternation", regex.transform_one),
               ("Aho-Corasick automaton (now)", spreader.transform_one)]
    print(f"  {'engine':<40}{'posts/s wall':>13}{'posts/s CPU':>13}{'MB/s CPU':>10}{'posts changed':>15}")
    outputs = {}
    for name, transform in engines:
        wall, cpu, result = timed(lambda transform=transform: [
            transform(text, before, person) for text, before, person in zip(texts, terms, persons, strict=True)])
        outputs[name] = result
        changed = sum(after != list(before) for after, before in zip(result, terms, strict=True))
        print(f"  {name:<40}{len(texts) / wall:>13,.0f}{len(texts) / cpu:>13,.0f}{chars / cpu / 2**20:>10.2f}"
              f"{changed:>15,}", flush=True)
    now = outputs[engines[-1][0]]
    for name, _ in engines[:-1]:
        differ = sum(a != b for a, b in zip(outputs[name], now, strict=True))
        print(f"  {name}: {differ:,} of {len(texts):,} posts get other terms than from the automaton")


def resampled(tmp: Path, rows: list[list[str]], size: int, seed: int = 44) -> Path:
    rng = random.Random(seed)
    path = tmp / f"resampled_{size}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for n in range(size):
            writer.writerow([f"p{n}", *rng.choice(rows)[1:]])
    return path


_worker: dict = {}  # in each worker process: the spreader made from the learned strings, the term cache


def _start_worker(learned: bytes, fingerprint: str, engine: str) -> None:
    _worker["spreader"] = OccurrenceSpreader.from_state(json.loads(learned.decode("utf-8", "surrogatepass")))
    if engine == "python":
        _worker["spreader"].transform_one = lambda text, terms, person=None: python_pass(
            _worker["spreader"], text, terms, person)
    _worker["cache"] = TermCache(TERMS)
    _worker["fingerprint"] = fingerprint


def _spread_one_part(source: str, start: int, end: int) -> tuple[bytes, float, float]:
    """What a worker does with one part (``kanon.web.jobs.spread_part_of``): its texts from the file, their terms
    from the term cache, the adding pass; the process's peak memory so far (MB) and the CPU time the part took."""
    started = time.process_time()
    with open(source, "rb") as handle:
        texts, persons = texts_in_span(handle, start, end, config())
    terms = RowTerms(1)
    for found in _worker["cache"].get_many(_worker["fingerprint"], texts):
        terms.append(found)
    output = spread_part(_worker["spreader"], texts, terms.only(spread_labels(config())), persons)
    return output, peak_mb(), time.process_time() - started


def _in_parts(source: Path, fingerprint: str, engine: str, facts: dict):
    def spread_in_parts(spreader, progress) -> str:
        started = time.perf_counter()
        with source.open("rb") as handle:
            spans = record_spans(handle, PART_BYTES, CsvSource(handle).delimiter)
        learned = json.dumps(spreader.state(), ensure_ascii=False).encode("utf-8", "surrogatepass")
        facts.update(parts=len(spans), learned_mb=len(learned) / 2**20, state=time.perf_counter() - started)
        with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("forkserver"),
                                 initializer=_start_worker, initargs=(learned, fingerprint, engine)) as pool:
            peaks: list[float] = []
            cpu: list[float] = []

            def outputs():
                for output, peak, seconds in pool.map(_spread_one_part, [str(source)] * len(spans),
                                                      *zip(*spans, strict=True)):
                    peaks.append(peak)
                    cpu.append(seconds)
                    yield output

            merged = merge_parts(outputs())
        facts["worker_peak_mb"] = max(peaks)
        facts["parts_cpu"] = sum(cpu)
        return merged

    return spread_in_parts


def bench_pipeline(tmp: Path, rows: list[list[str]], fingerprint: str, sizes: list[int], old_max: int) -> None:
    base = config()
    print(f"pipeline: string-level recoding of a dataset's first run (pipeline.spread_terms), the adding pass in "
          f"parts of {PART_BYTES / 2**20:.0f} MB on {WORKERS} worker processes; posts resampled from the "
          f"{len(rows):,} above, one person each")
    measured = {}
    for size in sizes:
        path = resampled(tmp, rows, size)
        with path.open("rb") as handle:
            table = read_table(handle, base)
        row_terms = RowTerms(1)
        with TermCache(TERMS) as cache:
            texts = [row[-1] for row in rows_of(path)]
            for i in range(0, len(texts), 5000):
                for found in cache.get_many(fingerprint, texts[i:i + 5000]):
                    row_terms.append(found)
            del texts
        print(f"  {size:,} posts ({path.stat().st_size / 2**20:,.0f} MB):", flush=True)
        for engine in ("python", "automaton") if size <= old_max else ("automaton",):
            facts: dict = {}
            seconds: dict = {}
            started, started_cpu = time.perf_counter(), time.process_time()
            spread_terms(path, table, base, row_terms, spread_in_parts=_in_parts(path, fingerprint, engine, facts),
                         seconds=seconds)
            total, main_cpu = time.perf_counter() - started, time.process_time() - started_cpu
            # On a machine of its own: the main process's steps, then the parts shared by the 2 workers.
            alone = main_cpu + facts["parts_cpu"] / WORKERS
            measured[(size, engine)] = alone
            name = "Python pass (before)" if engine == "python" else "automaton (now)"
            print(f"    {name:<22}{total:7.1f} s = learn {seconds['spread_learn']:.1f} s + parts "
                  f"{seconds['spread_parts']:.1f} s ({facts['parts']} parts, learned strings "
                  f"{facts['learned_mb']:.1f} MB of JSON, worker peak RSS {facts['worker_peak_mb']:.0f} MB) + apply "
                  f"{seconds['spread_apply']:.1f} s", flush=True)
            print(f"    {'':<22}CPU: main process {main_cpu:.1f} s, the parts {facts['parts_cpu']:.1f} s in all; on 2 "
                  f"cores of its own about {alone:.1f} s (main + parts / {WORKERS})", flush=True)
        path.unlink()
    biggest = max(sizes)
    if biggest < 1_000_000:
        for engine in ("python", "automaton"):
            if (biggest_old := max((s for s, e in measured if e == engine), default=0)):
                print(f"  at 1,000,000 posts, linear from {biggest_old:,}, on 2 cores of its own: {engine} about "
                      f"{measured[(biggest_old, engine)] * 1_000_000 / biggest_old:.0f} s (an extrapolation from CPU "
                      "time, not a measurement)")


#: NER of blogs_100k.csv.gz, as bench_kanon.py's "million" section keeps it.
TERMS_100K = REPO / "var" / "bench" / "blogs_100k.terms.sqlite3"


class _CachedOnly:
    """The recognizer of a first run's string-level recoding: every text's terms are in the term cache (its
    recognition pass put them there); one that is not stops the bench rather than run NER."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint

    def recognize_many(self, texts, on_characters=None):
        raise RuntimeError("a text's terms are not in the term cache: not what a first run's workers meet")


def _corpus_100k() -> list[list[str]]:
    import gzip

    csv.field_size_limit(1 << 30)
    with gzip.open(DATA / "blogs_100k.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))[1:]


def _fill_100k(rows: list[list[str]], posts: int) -> None:
    base = config()
    recognizer = TermRecognizer(model=base.nlp_model, entity_types=base.entity_types, n_process=2)
    started = time.perf_counter()
    TERMS_100K.parent.mkdir(parents=True, exist_ok=True)
    with TermCache(TERMS_100K) as cache:
        for _ in recognize_with_cache([row[-1] for row in rows[:posts]], recognizer, cache):
            pass
    print(f"  recognized the first {posts:,} posts of blogs_100k into {TERMS_100K.relative_to(REPO)} in "
          f"{time.perf_counter() - started:.0f} s", flush=True)


def _known_100k(rows: list[list[str]]) -> tuple[list[list[str]], str]:
    """The first posts of blogs_100k whose terms the cache holds, up to the first that it does not, and the
    recognizer version (the one with the most posts)."""
    with sqlite3.connect(TERMS_100K) as db:
        counts = dict(db.execute("SELECT fingerprint, count(*) FROM terms_v1 GROUP BY fingerprint"))
    fingerprint = max(counts, key=counts.get)
    known = 0
    with TermCache(TERMS_100K) as cache:
        for i in range(0, len(rows), 2000):
            found = cache.get_many(fingerprint, [row[-1] for row in rows[i:i + 2000]])
            ahead = next((n for n, terms in enumerate(found) if terms is None), None)
            known += len(found) if ahead is None else ahead
            if ahead is not None:
                break
    return rows[:known], fingerprint


_first: dict = {}  # in each worker process of the first-run section


def _start_first_run_worker(learned: bytes, fingerprint: str) -> None:
    _first["spreader"] = OccurrenceSpreader.from_state(json.loads(learned.decode("utf-8", "surrogatepass")))
    _first["cache"] = TermCache(TERMS_100K)
    _first["recognizer"] = _CachedOnly(fingerprint)
    _first["config"] = config()


def _first_run_part(source: str, start: int, end: int) -> tuple[bytes, int, float, float]:
    """``kanon.web.jobs.spread_part_of`` with the SQLite term cache: the part's texts from the file, their terms
    from the cache (``recognize_with_cache``, chunks of 50, as the job), the adding pass. With the worker's pid,
    its CPU time since it started and its peak memory (MB)."""
    import os

    base = _first["config"]
    with open(source, "rb") as handle:
        texts, persons = texts_in_span(handle, start, end, base)
    terms = RowTerms(1)
    for found in recognize_with_cache(texts, _first["recognizer"], _first["cache"], chunk=50):
        terms.append(found)
    output = spread_part(_first["spreader"], texts, terms.only(spread_labels(base)), persons)
    return output, os.getpid(), time.process_time(), peak_mb()


def bench_first_run(tmp: Path, size: int, fill: int, posts: int) -> None:
    import os

    if not fill and not TERMS_100K.exists():
        print(f"first run: skipped, {TERMS_100K.relative_to(REPO)} holds no terms (--fill-100k N recognizes N posts)")
        return
    rows = _corpus_100k()
    if fill:
        _fill_100k(rows, fill)
    known, fingerprint = _known_100k(rows[:posts])
    if not known:
        print("first run: skipped, the term cache holds no post of blogs_100k")
        return
    path = tmp / f"first_run_{size}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for n in range(size):
            row = known[n % len(known)]
            writer.writerow([f"{row[0]}#{n // len(known)}", *row[1:]])
    del rows
    base = config()
    with path.open("rb") as handle:
        table = read_table(handle, base)
    started = time.perf_counter()
    row_terms = RowTerms(1)  # what the pipeline's gathering step reads back from the term cache before
    with TermCache(TERMS_100K) as cache, path.open("rb") as handle:
        for batch in CsvSource(handle).batches(max_rows=5000):
            for found in cache.get_many(fingerprint, [row[-1] for row in batch]):
                if found is None:
                    raise RuntimeError("a text's terms are not in the term cache")
                row_terms.append(found)
    gathered = time.perf_counter() - started
    print(f"first run: {size:,} rows ({path.stat().st_size / 2**30:.2f} GB), the {len(known):,} first posts of "
          f"blogs_100k.csv.gz with their NER terms (recognizer {fingerprint[:10]}) repeated "
          f"{size / len(known):.1f} times under distinct ids, {len(set(table.persons)):,} persons, "
          f"{row_terms.arrays()['start'].size:,} terms; gathered from the term cache in {gathered:.0f} s (not part "
          "of the stage)", flush=True)
    facts: dict = {}

    def spread_in_parts(spreader, progress) -> str:
        with path.open("rb") as handle:
            spans = record_spans(handle, PART_BYTES, CsvSource(handle).delimiter)
        learned = json.dumps(spreader.state(), ensure_ascii=False).encode("utf-8", "surrogatepass")
        facts.update(parts=len(spans), learned_mb=len(learned) / 2**20)
        workers: dict[int, float] = {}
        peaks: list[float] = []
        with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("forkserver"),
                                 initializer=_start_first_run_worker, initargs=(learned, fingerprint)) as pool:
            def outputs():
                for output, pid, cpu, peak in pool.map(_first_run_part, [str(path)] * len(spans),
                                                       *zip(*spans, strict=True)):
                    workers[pid] = max(workers.get(pid, 0.0), cpu)
                    peaks.append(peak)
                    yield output

            merged = merge_parts(outputs())
        facts.update(workers_cpu=sum(workers.values()), workers=len(workers), worker_peak_mb=max(peaks),
                     digest=hashlib.sha256(merged.encode("utf-8", "surrogatepass")).hexdigest()[:16])
        return merged

    seconds: dict = {}
    load = os.getloadavg()
    started, started_cpu = time.perf_counter(), time.process_time()
    spread, _ = spread_terms(path, table, base, row_terms, spread_in_parts=spread_in_parts, seconds=seconds)
    wall, main_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    after = os.getloadavg()
    added = spread.arrays()["start"].size - row_terms.arrays()["start"].size
    alone = main_cpu + facts["workers_cpu"] / WORKERS
    print(f"  string-level recoding (pipeline.spread_terms, no cached result): {wall:.1f} s wall = learn "
          f"{seconds['spread_learn']:.1f} s + parts {seconds['spread_parts']:.1f} s ({facts['parts']} parts of "
          f"{PART_BYTES / 2**20:.0f} MB on {facts['workers']} worker processes, learned strings "
          f"{facts['learned_mb']:.1f} MB of JSON, worker peak RSS {facts['worker_peak_mb']:.0f} MB) + apply "
          f"{seconds['spread_apply']:.1f} s; {added:+,} terms (the parts' changes: sha256 {facts['digest']}, the same "
          "whenever the same terms are added)", flush=True)
    print(f"  CPU: main process {main_cpu:.1f} s, the {facts['workers']} workers {facts['workers_cpu']:.1f} s in all; "
          f"on 2 cores of its own about {alone:.1f} s (main + workers / {WORKERS}); load average "
          f"{load[0]:.1f} before, {after[0]:.1f} (1 min) / {after[1]:.1f} (5 min) after; goal <= 120 s", flush=True)
    path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="100000", help="sizes of the pipeline section, comma-separated")
    parser.add_argument("--old-max", type=int, default=100_000, help="the largest size the Python pass runs at")
    parser.add_argument("--fill", type=int, default=5000, help="posts to recognize when the term cache is empty")
    parser.add_argument("--skip", default="", help="sections to leave out: throughput, pipeline, first-run")
    parser.add_argument("--first-run-rows", type=int, default=1_000_000, help="rows of the first-run section")
    parser.add_argument("--fill-100k", type=int, default=0, help="recognize this many posts of blogs_100k first")
    parser.add_argument("--posts", type=int, default=100_000, help="the first-run section's distinct posts, at most")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    if "first-run" not in args.skip:
        with tempfile.TemporaryDirectory() as directory:
            bench_first_run(Path(directory), args.first_run_rows, args.fill_100k, args.posts)
    if "throughput" in args.skip and "pipeline" in args.skip:
        return
    rows, terms, fingerprint, whose = known_posts(args.fill)
    print(f"String-level recoding speed; {whose} (blogs_20k.csv)")
    if "throughput" not in args.skip:
        bench_throughput([row[-1] for row in rows], terms)
    if "pipeline" not in args.skip:
        with tempfile.TemporaryDirectory() as directory:
            bench_pipeline(Path(directory), rows, fingerprint, [int(s) for s in args.rows.split(",")], args.old_max)


if __name__ == "__main__":
    main()
