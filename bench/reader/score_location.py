"""Score a reader's blind location judgments (``sample_location.py SEED --controls N``) against the sample's key.

Usage: .venv/bin/python bench/reader/score_location.py JUDGMENTS.jsonl KEY.json

The reader writes one line per item of ``<lang>-blind.txt``, in file order, before the key is opened:
  {"item": "B000", "placed": "Y"|"Road"|"E"|"S"|"W"|"N", "confidence": "high"|"medium"|"low",
   "where": "...", "clue": "...", "reason": "..."}
with the categories of ``judgments_location.md`` (Y: a reader with a map places it at a specific place inside the
grid). Printed: the released posts placed (Y) with a Wilson 95% interval, of those high/medium confidence, the
same for the controls (untouched posts: how strict the reader was), and the released posts by their verdict
(what Kakurega claimed for each: pass, review, places, fail).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from anonymizer.crowd.stats import wilson_interval  # noqa: E402


def _share(k: int, n: int) -> str:
    interval = wilson_interval(k, n)
    low, high = (interval.low, interval.high) if interval else (0.0, 1.0)
    return f"{k} of {n} = {k / max(n, 1):.1%} [{low:.1%}, {high:.1%}]"


def score(judgments: Path, key_path: Path) -> dict:
    key = json.loads(key_path.read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in judgments.read_text(encoding="utf-8").splitlines() if line.strip()]
    missing = sorted(set(key) - {row["item"] for row in rows})
    if missing:
        raise SystemExit(f"{judgments}: no judgment for {len(missing)} items, e.g. {missing[:5]}")
    per: dict[str, Counter] = defaultdict(Counter)
    by_verdict: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        entry = key[row["item"]]
        placed = row["placed"] == "Y"
        strong = placed and row.get("confidence") in ("high", "medium")
        per[entry["kind"]].update(posts=1, placed=placed, strong=strong, **{row["placed"]: 1})
        if entry["kind"] == "released":
            by_verdict[entry["verdict"]].update(posts=1, placed=placed, strong=strong)
    for kind in ("released", "control"):
        c = per[kind]
        print(f"{kind:>8}: placed {_share(c['placed'], c['posts'])}; high/medium {c['strong']}; categories "
              + ", ".join(f"{cat} {c[cat]}" for cat in ("Y", "Road", "E", "S", "W", "N") if c[cat]))
    for verdict, c in sorted(by_verdict.items()):
        print(f"  released with verdict {verdict or '?'}: placed {_share(c['placed'], c['posts'])}, "
              f"high/medium {c['strong']}")
    return {kind: dict(c) for kind, c in per.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("judgments", type=Path)
    parser.add_argument("key", type=Path)
    args = parser.parse_args()
    score(args.judgments, args.key)
    return 0


if __name__ == "__main__":
    sys.exit(main())
