"""Shuffle the released posts of several systems into one blind file for a reader, and score the reader's verdicts.

Usage:
  python bench/reader/blind_release.py make --seed 20261207 /tmp/kk/release/before.jsonl /tmp/kk/release/after.jsonl
      -> /tmp/kk/release/blind.jsonl ({"item", "original", "released"}, shuffled) and key.json (item -> system, post)
  python bench/reader/blind_release.py score bench/reader/judgments_release_<seed>.jsonl [--key key.json]
      -> per system: released posts with at least one span a data-protection officer would remove (Wilson 95%),
         placeholders, and the share of placeholders that replaced an ordinary word

The reader writes one line per item, in file order, before seeing any key:
  {"item": n, "leaks": [{"text": ..., "category": ..., "reason": ...}], "ordinary": [{"text": ..., "reason": ...}],
   "placeholders": <how many placeholders the released text has>}
(``reader-protocol.md``: fresh, blind, a baseline inside, one judgment per item). The texts stay outside the repo.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
OUT = Path("/tmp/kk/release")


def _interval(k: int, n: int) -> tuple[float, float]:
    from anonymizer.crowd.stats import wilson_interval

    interval = wilson_interval(k, n)
    return (interval.low, interval.high) if interval else (0.0, 1.0)


def make(seed: int, files: list[Path]) -> None:
    items = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            items.append((path.stem, row))
    random.Random(seed).shuffle(items)
    key = {}
    with (OUT / "blind.jsonl").open("w", encoding="utf-8") as handle:
        for n, (system, row) in enumerate(items):
            key[n] = {"system": system, "post": row["post"]}
            handle.write(json.dumps({"item": n, "original": row["original"], "released": row["released"]},
                                    ensure_ascii=False) + "\n")
    (OUT / "key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
    print(f"{len(items)} items (seed {seed}) -> {OUT / 'blind.jsonl'}; key -> {OUT / 'key.json'}")


def score(verdicts: Path, key_path: Path) -> None:
    key = {int(k): v for k, v in json.loads(key_path.read_text(encoding="utf-8")).items()}
    per = defaultdict(lambda: {"posts": 0, "leaking": 0, "placeholders": 0, "ordinary": 0})
    for line in verdicts.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        system = per[key[row["item"]]["system"]]
        system["posts"] += 1
        system["leaking"] += bool(row["leaks"])
        system["placeholders"] += row["placeholders"]
        system["ordinary"] += len(row["ordinary"])
    for name, s in sorted(per.items()):
        lo, hi = _interval(s["leaking"], s["posts"])
        olo, ohi = _interval(s["ordinary"], s["placeholders"])
        print(f"{name:>10}: leaking posts {s['leaking']}/{s['posts']} = {s['leaking'] / s['posts']:.1%} "
              f"[{lo:.1%}, {hi:.1%}]; placeholders that replaced an ordinary word {s['ordinary']}/"
              f"{s['placeholders']} = {s['ordinary'] / max(1, s['placeholders']):.1%} [{olo:.1%}, {ohi:.1%}]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--seed", type=int, required=True)
    m.add_argument("files", nargs="+", type=Path)
    s = sub.add_parser("score")
    s.add_argument("verdicts", type=Path)
    s.add_argument("--key", type=Path, default=OUT / "key.json")
    args = parser.parse_args()
    if args.command == "make":
        make(args.seed, args.files)
    else:
        score(args.verdicts, args.key)
    return 0


if __name__ == "__main__":
    sys.exit(main())
