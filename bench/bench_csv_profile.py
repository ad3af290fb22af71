"""Throughput of check_csv and profile_csv (best of 3) on the Blog Authorship Corpus sample.

Usage: .venv/bin/python bench/bench_csv_profile.py [CSV_PATH]   (default: ../shared/data/kanon/blogs_20k.csv)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILE = REPO.parent / "shared/data/kanon/blogs_20k.csv"
RUNS = 3
MB = 10**6


def best_time(path: Path, run: Callable) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(RUNS):
        with path.open("rb") as fileobj:
            start = time.perf_counter()
            result = run(fileobj)
            best = min(best, time.perf_counter() - start)
    return best, result


def report(name: str, seconds: float, rows: int, size: int) -> None:
    print(f"{name:<12} {seconds:7.3f} s  {rows / seconds:>10,.0f} rows/s  {size / MB / seconds:7.1f} MB/s")


def main() -> int:
    sys.path.insert(0, str(REPO))  # run as a script from anywhere, without installing the project
    from anonymizer.tabular import check_csv, profile_csv

    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_FILE
    if not path.is_file():
        print(f"skipped: {path} not found")
        return 0
    size = path.stat().st_size
    check_seconds, shape = best_time(path, lambda f: check_csv(f, max_bytes=size))
    print(f"file: {path} ({size / MB:.1f} MB, {shape.rows:,} data rows, {len(shape.header)} columns, "
          f"{shape.nul_bytes:,} NUL bytes); best of {RUNS}, MB = 10^6 bytes")
    report("check_csv", check_seconds, shape.rows, size)
    profile_seconds, profile = best_time(path, lambda f: profile_csv(f, progress=lambda *_: None))
    report("profile_csv", profile_seconds, profile["rows"], size)
    print("types: " + ", ".join(f"{c['name']}={c['type']}" for c in profile["columns"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
