"""The Japanese catalogs read by a native-level reader (issue 49), following docs' reader protocol as far as it
applies to a translation: fresh reader, one judgment per item in file order, no automatic verdict shown, and a
baseline shuffled in — here known-bad controls: real entries degraded in the ways machine output and careless
translation go wrong (plain-form endings in a です・ます sentence, the field's terms replaced by loan-word or
wrong ones, a particle swapped). A reader who passes controls is not reading closely; their figure says so.

    python bench/reader/i18n_review.py build --seed 20261206 --out /tmp/i18n_20261206   # blind file + key
    cat bench/reader/judgments_i18n_20261206.reader?.jsonl > /tmp/judged.jsonl
    python bench/reader/i18n_review.py score bench/reader/judgments_i18n_20261206 /tmp/judged.jsonl

The blind file (``<out>.jsonl``) has one item per line: {"item", "english", "japanese", "where"}; the key
(``<out>.key.json``) says which items are controls (and how each was degraded). A judgment line:
{"item": 7, "natural": true|false, "correct": true|false, "category": "...", "reason": "...", "fix": "..."}."""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = [ROOT / "locale" / "ja" / "LC_MESSAGES" / f"{domain}.po" for domain in ("django", "djangojs")]
CONTROL_SHARE = 0.08

# How a control is made from a good translation; each returns the degraded text, or the text unchanged when it
# does not apply (the entry is then not used as a control).
_PLAIN_ENDINGS = [
    ("してください", "しろ"),
    ("ください", "くれ"),
    ("できません", "できない"),
    ("ありません", "ない"),
    ("ません", "ない"),
    ("ました", "た"),
    ("します", "する"),
    ("されます", "される"),
    ("です", "だ"),
    ("ます", "る"),
]
_WRONG_TERMS = [
    ("匿名化", "アノニマイズ"),
    ("k-匿名性", "k-アノニミティ"),
    ("差分プライバシー", "ディファレンシャル・プライバシー"),
    ("推定", "推測計算"),
    ("投稿", "ポスティング"),
    ("しきい値", "スレッショルド"),
    ("ジョブ", "仕事"),
    ("アップロード", "上載"),
    ("削除", "消去作業"),
    ("参加者", "パーティシパント"),
    ("回答", "アンサー"),
    ("列", "コラム"),
    ("行", "ロウ"),
]
_PARTICLES = [
    ("を", "が"),
    ("が", "を"),
    ("に", "で"),
    ("で", "に"),
    ("は", "を"),
]


def _plain(text: str) -> str:
    for polite, plain in _PLAIN_ENDINGS:
        if polite in text:
            return text.replace(polite, plain)
    return text


def _terms(text: str) -> str:
    for good, bad in _WRONG_TERMS:
        if good in text:
            return text.replace(good, bad, 1)
    return text


def _particle(text: str) -> str:
    for good, bad in _PARTICLES:
        match = re.search(rf"(?<=[\u3040-\u30ff\u4e00-\u9fff]){good}(?=[\u3040-\u30ff\u4e00-\u9fff])", text)
        if match:
            return text[:match.start()] + bad + text[match.end():]
    return text


DEGRADE = {"plain endings": _plain, "wrong term": _terms, "particle": _particle}


def entries() -> list[dict]:
    found = []
    for catalog_path in CATALOGS:
        with catalog_path.open("rb") as handle:
            catalog = read_po(handle, locale="ja")
        for message in catalog:
            if not message.id:
                continue
            english = message.id[0] if isinstance(message.id, tuple) else message.id
            japanese = message.string[0] if isinstance(message.string, tuple) else message.string
            found.append({"english": english, "japanese": japanese, "context": message.context or "",
                          "where": catalog_path.stem})
    return found


def build(seed: int, out: Path) -> None:
    rng = random.Random(seed)
    real = entries()
    items = [dict(entry, control=None) for entry in real]
    candidates = rng.sample(range(len(real)), len(real))
    wanted = math.ceil(CONTROL_SHARE * len(real))
    kinds = sorted(DEGRADE)
    for index in candidates:
        if wanted == 0:
            break
        kind = kinds[wanted % len(kinds)]
        degraded = DEGRADE[kind](real[index]["japanese"])
        if degraded != real[index]["japanese"]:
            items.append(dict(real[index], japanese=degraded, control=kind))
            wanted -= 1
    rng.shuffle(items)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.with_suffix(".jsonl").open("w", encoding="utf-8") as blind:
        for number, item in enumerate(items, 1):
            shown = {"item": number, "english": item["english"], "japanese": item["japanese"],
                     "where": item["where"] + (f" ({item['context']})" if item["context"] else "")}
            blind.write(json.dumps(shown, ensure_ascii=False) + "\n")
    key = {str(number): {"control": item["control"]} for number, item in enumerate(items, 1)}
    out.with_suffix(".key.json").write_text(json.dumps({"seed": seed, "items": key}, ensure_ascii=False, indent=1))
    print(f"{len(items)} items ({len(items) - len(real)} controls) -> {out.with_suffix('.jsonl')}")


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if total == 0:
        return (0.0, 0.0)
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (centre - half, centre + half)


def score(out: Path, judgments_path: Path) -> None:
    key = json.loads(out.with_suffix(".key.json").read_text())["items"]
    judgments = [json.loads(line) for line in judgments_path.read_text().splitlines() if line.strip()]
    by_item = {str(j["item"]): j for j in judgments}
    missing = sorted(set(key) - set(by_item), key=int)
    if missing:
        sys.exit(f"{len(missing)} items without a judgment, e.g. {missing[:5]}")
    real = [(k, by_item[k]) for k, v in key.items() if v["control"] is None]
    controls = [(k, by_item[k], v["control"]) for k, v in key.items() if v["control"]]
    good = sum(1 for _, j in real if j["natural"] and j["correct"])
    low, high = wilson(good, len(real))
    caught = sum(1 for _, j, _ in controls if not (j["natural"] and j["correct"]))
    print(f"catalog entries judged correct and natural: {good}/{len(real)} = {good / len(real):.1%} "
          f"[{low:.1%}, {high:.1%}]")
    print(f"controls (degraded) rejected: {caught}/{len(controls)}")
    for kind in sorted(DEGRADE):
        of_kind = [j for _, j, c in controls if c == kind]
        print(f"  {kind}: {sum(1 for j in of_kind if not (j['natural'] and j['correct']))}/{len(of_kind)}")
    categories: dict[str, int] = {}
    for _, j in real:
        if not (j["natural"] and j["correct"]):
            categories[j.get("category", "?")] = categories.get(j.get("category", "?"), 0) + 1
    print("failure kinds (catalog entries):", json.dumps(categories, ensure_ascii=False))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--seed", type=int, required=True)
    b.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("out", type=Path)
    s.add_argument("judgments", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.seed, args.out)
    else:
        score(args.out, args.judgments)


if __name__ == "__main__":
    main(sys.argv[1:])
