"""Gazetteer speed: loading the place list and one `find` over a post (moved here from the test suite, issue 47:
speed figures live in bench/, not in tests).

Usage: .venv/bin/python bench/bench_gazetteer.py [--calls N]

The load is timed once in a fresh process (what a worker pays at start); `find` is the mean of N calls (default
200) after one warm-up, on three texts that stress it: a URL, a Japanese address run without spaces and a run of
glued place names.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.recognize.gazetteer import Gazetteer  # noqa: E402

TEXTS = (
    "http://www.desmoinesregister.com/story",
    "横浜市港北区綱島駅から品川区上大崎３丁目まで歩いた今日",
    "saskatoonsanantoniosaltlakecitystlouis12",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    started = time.perf_counter()
    gazetteer = Gazetteer.load()
    print(f"Gazetteer at {commit}: {len(gazetteer):,} places loaded in {time.perf_counter() - started:.3f} s")
    gazetteer.find("warm up the index")
    for text in TEXTS:
        per_call = timeit.timeit(lambda text=text: gazetteer.find(text), number=args.calls) / args.calls
        print(f"  find({text!r}): {per_call * 1e6:,.0f} µs per call (mean of {args.calls})")


if __name__ == "__main__":
    main()
