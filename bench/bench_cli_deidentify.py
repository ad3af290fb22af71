"""``kakurega deidentify`` on held-out-style English tweets, one process and then two, side by side in one run
(issue 48's goal: two processes >= 1.8x one, the same file).

Usage: .venv/bin/python bench/bench_cli_deidentify.py [--rows 10000] [--one-thread]

The tweets: ../shared/data/geo/us_midwest_2017/tweets.csv.gz (not shipped; the benchmark says so and stops when
it is absent). The shipped data/geo/us_midwest_2017/tweets.csv.gz is that file byte for byte (its PROVENANCE: the
other 20% of users were kept aside before either copy was made), so "held-out-style" here means English rows the
default model ``us-midwest-en`` never learnt from: the rows of its held-out users (the user-disjoint 40% of its
corpus, as its ``split`` metadata says) and the English rows its corpus filter leaves out (state-level places),
the first ``--rows`` of them in file order. Nothing else about them is chosen.

Printed: the machine's load before each run (a figure taken while other work loads the machine is not the
command's), a small run's time (starting a process: imports, the model, the first post's lazy set-up), each run's
wall time and posts per second, the ratio, and whether the two files are byte for byte the same.

What limits the ratio: each process starts once (a spawned interpreter, its imports and the model: the small
run's time, paid in parallel by the two); the parent only cuts the file and writes the parts in order; with
``--one-thread`` both runs keep BLAS/OpenMP to one thread (the pool's processes always do), so the one-process
run does not borrow the second core for its matrix products.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SHARED = REPO.parent / "shared" / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz"
MODEL = "us-midwest-en"


def held_out_rows(count: int) -> tuple[list[str], list[list[str]]]:
    """The header and the first ``count`` English rows the default US model was not trained on."""
    from anonymizer.location.corpus import load_corpus
    from anonymizer.location.defaults import US_MIDWEST
    from anonymizer.location.evaluate import split_train_test
    from kakurega.location_models import load_location_model

    split = load_location_model(MODEL).metadata["split"]  # trained on first use, outside the timed runs
    posts, _ = load_corpus(SHARED, columns=US_MIDWEST.columns, grid=US_MIDWEST.grid,
                           where={key: set(values) for key, values in US_MIDWEST.where.items()})
    train, _, _ = split_train_test(len(posts), users=[post.user for post in posts], test_size=split["test_size"],
                                   seed=split["seed"])
    trained = {posts[i].id for i in train}
    with gzip.open(SHARED, "rt", encoding="utf-8", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    lang, ident, text = header.index("lang"), header.index("id"), header.index("text")
    chosen = [row for row in rows if row[lang] == "en" and row[ident] not in trained and row[text].strip()]
    if len(chosen) < count:
        sys.exit(f"only {len(chosen):,} held-out English rows, fewer than --rows {count:,}")
    return header, chosen[:count]


def write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def run(source: Path, output: Path, processes: int, env: dict[str, str]) -> tuple[float, float]:
    """The command's wall time and the CPU time it and its processes used (seconds)."""
    command = [sys.executable, "-m", "kakurega", "deidentify", str(source), "-o", str(output), "--model", MODEL,
               "--processes", str(processes)]
    cpu_before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    return seconds, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000, help="held-out tweets to de-identify (10,000)")
    parser.add_argument("--one-thread", action="store_true",
                        help="OMP/OpenBLAS/MKL threads = 1 for the one-process run too (the pool's always have 1)")
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"skipped: {SHARED} is absent (the shared data set is not on this machine)")
        return
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if args.one_thread:
        env.update({name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    header, rows = held_out_rows(args.rows)
    with tempfile.TemporaryDirectory(prefix="bench-cli-deidentify-") as folder:
        folder = Path(folder)
        source = write(folder / "held_out.csv", header, rows)
        small = write(folder / "small.csv", header, rows[:20])
        print(f"{len(rows):,} held-out English tweets ({source.stat().st_size / 1e6:.1f} MB), model {MODEL}, "
              f"{os.cpu_count()} cores, one thread for the single process: {args.one_thread}")
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        startup, _ = run(small, folder / "small.out.csv", 1, env)
        print(f"start-up (20 posts, one process): {startup:.1f} s")
        seconds = {}
        for processes in (1, 2):
            print(f"load average before {processes} process(es): {os.getloadavg()[0]:.2f}")
            seconds[processes], cpu = run(source, folder / f"out-{processes}.csv", processes, env)
            # CPU time near wall time x processes: the cores were ours; far below: other work shared them.
            print(f"{processes} process(es): {seconds[processes]:.1f} s, {len(rows) / seconds[processes]:.1f} posts/s "
                  f"(CPU {cpu:.1f} s, {cpu / seconds[processes]:.2f} cores busy on average)")
        same = (folder / "out-1.csv").read_bytes() == (folder / "out-2.csv").read_bytes()
        ratio = seconds[1] / seconds[2]
        print(f"2 processes / 1: {ratio:.2f}x (goal >= 1.8x); files byte-identical: {same}")


if __name__ == "__main__":
    main()
