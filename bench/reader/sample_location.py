"""Draw a fresh sample of released posts for a person to judge: can a reader still place it inside the grid?

Usage: .venv/bin/python bench/reader/sample_location.py SEED [--posts 100] [--out var/reader-samples]

For each default corpus, the protection evaluation's split for SEED (defender / attacker / test = 40 / 40 / 20%,
user-disjoint where users are known) trains a defender as a default model is trained, and de-identifies a seeded
sample of its test posts in automatic mode with the defaults. Three files per language go to --out:

- ``<lang>-released.txt``: the released texts alone, shuffled, numbered R00, R01, ... Judge these first, once,
  before looking at anything else: the figure to report is the share a reader can place.
- ``<lang>-original.txt``: the original texts, shuffled in another order (for a "before" figure, judged after).
- ``<lang>-full.json``: originals, released texts, deleted units, verdicts and cells: read only after judging.
- ``<lang>-blind.txt`` (with ``--controls N``, reader-protocol.md's baseline inside): the released texts and N
  untouched test posts that were not sampled (controls), shuffled together, numbered B000, B001, ...; the reader
  judges this file alone, and ``<lang>-key.json`` (item -> released or control, corpus row, verdict) is read only
  by ``score_location.py`` afterwards. The controls' placed share tells how strict the reader was.

A seed is spent once its released texts have been read; seeds 11-14, 20261211 and 20261212 were
(bench/reader/judgments_location.md).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from anonymizer.location.calibration import train_calibrated_model  # noqa: E402
from anonymizer.location.corpus import load_corpus  # noqa: E402
from anonymizer.location.defaults import TOKYO, US_MIDWEST  # noqa: E402
from anonymizer.location.inspect import inspect_text  # noqa: E402
from anonymizer.location.protection import three_way_split  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument("--out", type=Path, default=REPO / "var" / "reader-samples")
    parser.add_argument("--controls", type=int, default=0, help="untouched test posts shuffled into a blind file")
    args = parser.parse_args()
    out = args.out / f"seed-{args.seed}"
    out.mkdir(parents=True, exist_ok=True)
    for language, spec in (("ja", TOKYO), ("en", US_MIDWEST)):
        posts, _ = load_corpus(REPO / "data" / spec.corpus, columns=spec.columns, grid=spec.grid,
                               where={k: set(v) for k, v in spec.where.items()} or None)
        defender_idx, _, test_idx, _ = three_way_split(posts, args.seed)
        defender = train_calibrated_model([posts[i] for i in defender_idx], name="defender", grid=spec.grid,
                                          tokenizer_settings=spec.tokenizer_settings, seed=args.seed)
        drawn = np.random.default_rng(args.seed).choice(
            test_idx, size=min(args.posts + args.controls, len(test_idx)), replace=False)
        picked, controls = drawn[:args.posts], drawn[args.posts:]
        rows = []
        for index in picked:
            post = posts[int(index)]
            # What the inspect page and API answer (verdict included), automatic mode with the defaults.
            result = inspect_text(defender, post.text)
            rows.append({"corpus_row": int(index), "original": post.text, "released": result["text_after"],
                         "deleted": [span["text"] for span in result["deleted"]],
                         "under_threshold": bool(result["after"]["under_threshold"]),
                         "verdict": result["verdict"]["status"],
                         "review": [item.get("text") for item in result["verdict"].get("review", [])],
                         "cell": spec.grid.label(spec.grid.cell_of(post.lat, post.lon))})
        if args.controls:
            items = [("released", row["corpus_row"], row["released"], row["verdict"]) for row in rows] + [
                ("control", int(index), posts[int(index)].text, "") for index in controls]
            random.Random(args.seed + 2).shuffle(items)
            key = {f"B{k:03d}": {"kind": kind, "corpus_row": row, "verdict": verdict}
                   for k, (kind, row, _, verdict) in enumerate(items)}
            (out / f"{language}-blind.txt").write_text("".join(
                f"B{k:03d}\t{' '.join(text.split())}\n" for k, (_, _, text, _) in enumerate(items)))
            (out / f"{language}-key.json").write_text(json.dumps(key, indent=1))
        (out / f"{language}-full.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
        for name, key, salt in (("released", "released", 0), ("original", "original", 1)):
            order = list(range(len(rows)))
            random.Random(args.seed + salt).shuffle(order)
            lines = [f"{'R' if key == 'released' else 'O'}{k:02d}\t{' '.join(rows[j][key].split())}"
                     for k, j in enumerate(order)]
            (out / f"{language}-{name}.txt").write_text("\n".join(lines) + "\n")
        print(f"{language}: {len(rows)} posts -> {out}/{language}-released.txt (judge these first)"
              + (f"; blind with {len(controls)} controls -> {out}/{language}-blind.txt" if args.controls else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
