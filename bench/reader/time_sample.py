"""A time-removal reader figure that means the same from sample to sample (issue 46 item 4; docs/time.md).

Usage (.venv/bin/python bench/reader/time_sample.py ...):
  draw {btc,midwest} SEED --posts N [--plain M] [--btc-dir DIR]
      -> /tmp/kk/time/<source>-<seed>/sample.jsonl ({"post", "text", "dct"}: N posts with a time hint) and
         plain.jsonl (M posts without one, never shown to a reader); the ids go to the committed ledger
         bench/reader/time_drawn.json, so no later draw takes them again.
  release SAMPLE_DIR --label NAME [--repo CHECKOUT]
      -> SAMPLE_DIR/NAME.jsonl: the product's time removal with its defaults (what /api/v1/inspect with
         remove_time and the remove_time job run), output null where it refuses a post as not English, seconds
         per post; NAME.meta.json says which commit. --repo: import the anonymizer from another checkout (a
         "before" column: `git worktree add /tmp/kk/before bca5bb4`, then --repo /tmp/kk/before).
  naive SAMPLE_DIR [--repo CHECKOUT]
      -> SAMPLE_DIR/naive.jsonl: the baseline, the time spans simply deleted (a row's gold "spans" where the sample
         has them, else the tagger's removal units, TimeTagger.tag), only the whitespace tidied.
  blind SAMPLE_DIR SEED [--systems NAME ...]
      -> SAMPLE_DIR/blind.jsonl ({"item", "original", "output"}, shuffled; one item per distinct (post, output),
         whichever systems gave it), key.json (item -> post, systems) and brief.md (time_reader_brief.md filled in).
  score SAMPLE_DIR JUDGMENTS.jsonl [JUDGMENTS2.jsonl ...]
      -> a markdown table per system: correct, natural, both (Wilson 95%), per reader and pooled; agreement
         between readers on the same items (share, Cohen's kappa); failures by category with 3 examples; and the
         plain draw's posts left unchanged (automatic, no reader).

reader-protocol.md: fresh, seeded, never tuned on; blind with a baseline inside; one judgment per item in file
order before any key is opened. Texts stay outside the repo: only ids are committed (the ledger).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = Path("/tmp/kk/time")
LEDGER = REPO / "bench" / "reader" / "time_drawn.json"
BRIEF_TEMPLATE = REPO / "bench" / "reader" / "time_reader_brief.md"
MIDWEST = REPO.parent / "shared" / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz"
BTC_FILES = ("a.no-labels.json", "b.no-labels.json")  # sections A and B: general UK tweets of 2012 (SynTime-like)
# What /api/v1/inspect with remove_time and the remove_time job run when no option is given (the serializer's
# defaults, anonymizer/location/web/serializers.py), with spaCy's NER on (settings.TEMPORAL_USE_NER's default).
# keep_time is left to the checkout's own default (bca5bb4: nothing kept; since issue 46: "now" words kept).
PRODUCT_OPTIONS = {"time_mode": "both", "remove_how_long": False}


def _product_options():
    """PRODUCT_OPTIONS as the checkout's time_anonymizer takes them: typed since issue 47, a mapping before."""
    from anonymizer.temporal import removal

    typed = getattr(removal, "TimeRemovalOptions", None)
    return PRODUCT_OPTIONS if typed is None else typed.from_params(PRODUCT_OPTIONS)


CATEGORIES = ("time left", "odd replacement", "changed without a time", "empty slot", "meaning damaged", "other")
SYSTEM_FILES_SKIPPED = {"sample", "plain", "blind"}


# -- draw -------------------------------------------------------------------------------------------------------
def _is_retweet(row: dict) -> bool:
    return row["text"].startswith("RT ") or bool(row.get("retweeted_status"))


def load_ledger(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"draws": []}


def ledger_ids(ledger: dict, source: str) -> frozenset[str]:
    """Every post of ``source`` any earlier draw took (timed or plain): never drawn again."""
    return frozenset(
        str(i) for draw in ledger["draws"] if draw["source"] == source for i in draw["posts"] + draw["plain"]
    )


def _midwest_module():
    """tests/temporal/core/test_hand_checked_midwest.py: TIME_HINT and the earlier samples (its tests.helpers
    imports the Django models, so Django is set up first)."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from tests.temporal.core import test_hand_checked_midwest

    return test_hand_checked_midwest


def midwest_posts(path: Path = MIDWEST) -> tuple[list[dict], frozenset[str]]:
    """The US Midwest 2017 posts and the ids no fresh draw may take: every hand-checked sample's and the posts read
    while developing (the first 2,300 of the seed-101 shuffle), by the functions of the test module that drew them."""
    if not path.exists():
        raise SystemExit(f"{path} is missing: the midwest source needs ../shared/data")
    midwest = _midwest_module()
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_id = {row["id"]: row for row in rows}
    sampled = {judged["id"] for sample in midwest.SAMPLES.values() for judged in sample.timed + sample.plain}
    read = midwest.read_in_development(by_id, max(midwest.READ_IN_DEVELOPMENT.values()))
    posts = [{"post": row["id"], "text": row["text"], "dct": row["created"], "lang": row["lang"]} for row in rows]
    return posts, frozenset(sampled | read)


def btc_posts(btc_dir: Path | None) -> tuple[list[dict], frozenset[str]]:
    """The Broad Twitter Corpus' sections A and B (raw tweet JSON, one per line; bench/reader/fetch_btc.sh)."""
    missing = [name for name in BTC_FILES if btc_dir is None or not (btc_dir / name).exists()]
    if missing:
        raise SystemExit(
            f"the Broad Twitter Corpus files {', '.join(missing)} are not in {btc_dir or '(no --btc-dir)'}: "
            "run bench/reader/fetch_btc.sh DIR and pass --btc-dir DIR (or set BTC_DIR)"
        )
    posts = []
    for name in BTC_FILES:
        for line in (btc_dir / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                tweet = json.loads(line)
                posts.append(
                    {
                        "post": str(tweet.get("id_str") or tweet["id"]),
                        "text": tweet["text"],
                        "dct": tweet.get("created_at"),
                        "lang": tweet.get("lang"),
                        "retweeted_status": bool(tweet.get("retweeted_status")),
                    }
                )
    return posts, frozenset()


def draw_from(
    posts: Sequence[dict], excluded: Iterable[str], seed: int, n: int, plain: int, hint: re.Pattern
) -> tuple[list[dict], list[dict]]:
    """``random.Random(seed).sample`` of ``n`` over the sorted ids of the English posts (``lang`` "en" where the source
    says), not retweets, not ``excluded``, that ``hint`` finds a time in; then, from the same generator, ``plain`` of
    those it finds none in."""
    excluded = frozenset(excluded)
    pool = {
        row["post"]: row
        for row in posts
        if row.get("lang") in (None, "en") and not _is_retweet(row) and row["post"] not in excluded
    }
    timed = sorted(i for i, row in pool.items() if hint.search(row["text"]))
    untimed = sorted(i for i, row in pool.items() if not hint.search(row["text"]))
    if n > len(timed) or plain > len(untimed):
        raise SystemExit(f"only {len(timed)} posts with a time hint and {len(untimed)} without are left to draw")
    rng = random.Random(seed)
    picked, picked_plain = rng.sample(timed, n), rng.sample(untimed, plain)
    keep = ("post", "text", "dct")
    return (
        [{k: pool[i][k] for k in keep if pool[i].get(k)} for i in picked],
        [{k: pool[i][k] for k in keep if pool[i].get(k)} for i in picked_plain],
    )


def _write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def draw(
    source: str,
    seed: int,
    n: int,
    plain: int,
    *,
    btc_dir: Path | None,
    out: Path = OUT,
    ledger_path: Path = LEDGER,
    posts: tuple[list[dict], frozenset[str]] | None = None,
) -> Path:
    """Draw, write the sample directory and record the ids in the ledger (a seed of a source is spent once)."""
    ledger = load_ledger(ledger_path)
    if any(d["source"] == source and d["seed"] == seed for d in ledger["draws"]):
        raise SystemExit(f"{source} seed {seed} was drawn before ({ledger_path}): a seed is spent once, take another")
    sample_dir = out / f"{source}-{seed}"
    if sample_dir.exists():
        raise SystemExit(f"{sample_dir} exists: move it away first")
    hint = _midwest_module().TIME_HINT  # the earlier draws' split, imported, never copied
    if posts is None:
        posts = midwest_posts() if source == "midwest" else btc_posts(btc_dir)
    rows, excluded = posts
    timed, untimed = draw_from(rows, excluded | ledger_ids(ledger, source), seed, n, plain, hint)
    sample_dir.mkdir(parents=True)
    _write_jsonl(sample_dir / "sample.jsonl", timed)
    _write_jsonl(sample_dir / "plain.jsonl", untimed)
    ledger["draws"].append(
        {
            "source": source,
            "seed": seed,
            "drawn": datetime.now(UTC).strftime("%Y-%m-%d"),
            "posts": [r["post"] for r in timed],
            "plain": [r["post"] for r in untimed],
        }
    )
    ledger_path.write_text(
        '{"draws": [\n' + ",\n".join(json.dumps(d) for d in ledger["draws"]) + "\n]}\n", encoding="utf-8"
    )  # one draw a line
    print(
        f"{source} seed {seed}: {len(timed)} posts with a time hint -> {sample_dir / 'sample.jsonl'}, "
        f"{len(untimed)} without -> plain.jsonl; ids recorded in {ledger_path} (commit it)"
    )
    return sample_dir


# -- release and naive ------------------------------------------------------------------------------------------
def _use_checkout(repo: Path) -> str:
    """Put ``repo`` first on the import path and say which commit it is; refuse when the anonymizer was already
    imported from elsewhere (the column would be mislabelled)."""
    repo = repo.resolve()
    if "anonymizer" in sys.modules:
        loaded = Path(sys.modules["anonymizer"].__file__).resolve().parents[1]
        if loaded != repo:
            raise SystemExit(f"the anonymizer is already imported from {loaded}, not {repo}")
    sys.path.insert(0, str(repo))
    import anonymizer

    loaded = Path(anonymizer.__file__).resolve().parents[1]
    if loaded != repo:
        raise SystemExit(f"imported the anonymizer from {loaded}, not {repo}")
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+uncommitted changes" if dirty else "")


def _sample_rows(sample_dir: Path) -> list[dict]:
    rows = [{**row, "plain": False} for row in _read_jsonl(sample_dir / "sample.jsonl")]
    if (sample_dir / "plain.jsonl").exists():
        rows += [{**row, "plain": True} for row in _read_jsonl(sample_dir / "plain.jsonl")]
    return rows


def release(sample_dir: Path, label: str, repo: Path = REPO) -> Path:
    """Run the checkout's time removal as the product does (public API of anonymizer.temporal.removal only, as it
    was at bca5bb4: time_anonymizer, not_english) on every drawn post, one post at a time, timed."""
    if label in SYSTEM_FILES_SKIPPED | {"naive"}:
        raise SystemExit(f"--label {label} is taken; use e.g. before / after")
    commit = _use_checkout(repo)
    from anonymizer.temporal.removal import not_english, time_anonymizer

    anonymizer = time_anonymizer(_product_options(), use_ner=True)
    anonymizer.transform(["Warming up the parser at 9am tomorrow."])  # loading spaCy is not a post's time
    out = []
    for row in _sample_rows(sample_dir):
        started = time.perf_counter()
        # The product refuses the whole request for a post that is not English; the column records null.
        output = None if not_english([row["text"]]) else anonymizer.transform([row["text"]])[0].text
        out.append(
            {
                "post": row["post"],
                "plain": row["plain"],
                "output": output,
                "seconds": round(time.perf_counter() - started, 6),
            }
        )
    return _write_system(
        sample_dir,
        label,
        out,
        {"label": label, "repo": str(repo.resolve()), "commit": commit, "options": PRODUCT_OPTIONS, "use_ner": True},
    )


def delete_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` without ``spans``, only the whitespace tidied where a cut was: the spaces on both sides of it become
    one, none before the punctuation that follows it, none at the ends. Nothing rewritten (the naive baseline)."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    bounds = [0] + [i for span in merged for i in span] + [len(text)]
    pieces = [text[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2)]
    out = pieces[0]
    for piece in pieces[1:]:
        left, right = out.rstrip(" \t"), piece.lstrip(" \t")
        if not left or not right or right[0] in ",.!?;:)\n" or left[-1] in "(\n":
            out = left + right
        else:
            out = left + (" " if left != out or right != piece else "") + right
    return out.strip()


def naive(sample_dir: Path, repo: Path = REPO) -> Path:
    """The baseline: delete the gold spans where a row has them, else the tokens TimeTagger.tag marks (mapped back
    to the post as written through the normalizer's pieces); nothing rewritten, nothing refused."""
    commit = _use_checkout(repo)
    from anonymizer.temporal.normalize import normalize
    from anonymizer.temporal.removal import time_anonymizer

    anonymizer = time_anonymizer(_product_options(), use_ner=True)
    anonymizer.nlp("Warming up the parser at 9am tomorrow.")
    out = []
    for row in _sample_rows(sample_dir):
        started = time.perf_counter()
        if row.get("spans") is not None:
            spans = [(span[0], span[1]) for span in row["spans"]]
        else:
            norm = normalize(row["text"])
            doc = anonymizer.nlp(norm.text)
            cut = {i for i, marked in enumerate(anonymizer.tagger.tag(doc)) if marked}
            spans = anonymizer.anonymize_doc(norm, doc, (cut, {}, set())).removed_spans
        out.append(
            {
                "post": row["post"],
                "plain": row["plain"],
                "output": delete_spans(row["text"], spans),
                "seconds": round(time.perf_counter() - started, 6),
            }
        )
    return _write_system(
        sample_dir,
        "naive",
        out,
        {
            "label": "naive",
            "repo": str(repo.resolve()),
            "commit": commit,
            "method": "TimeTagger.tag units (or gold spans) deleted, whitespace tidied",
        },
    )


def _write_system(sample_dir: Path, label: str, rows: list[dict], meta: dict) -> Path:
    path = sample_dir / f"{label}.jsonl"
    _write_jsonl(path, rows)
    texts = {row["post"]: row["text"] for row in _sample_rows(sample_dir)}
    timed = [row for row in rows if not row["plain"]]
    seconds = sorted(row["seconds"] for row in rows)
    meta = {
        **meta,
        "posts": len(timed),
        "plain": len(rows) - len(timed),
        "changed": sum(row["output"] not in (None, texts[row["post"]]) for row in timed),
        "refused": sum(row["output"] is None for row in rows),
        "posts_per_second": round(len(seconds) / max(sum(seconds), 1e-9), 1),
        "median_ms": round(1000 * seconds[len(seconds) // 2], 2) if seconds else None,
    }
    (sample_dir / f"{label}.meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(
        f"{label} ({meta['commit'][:12]}): {meta['posts']} posts, {meta['changed']} changed, {meta['refused']} "
        f"refused; {meta['plain']} plain; {meta['posts_per_second']} posts/s one at a time -> {path}"
    )
    return path


# -- blind ------------------------------------------------------------------------------------------------------
def systems_in(sample_dir: Path) -> list[str]:
    return sorted(p.name.removesuffix(".meta.json") for p in sample_dir.glob("*.meta.json"))


def blind(sample_dir: Path, seed: int, systems: Sequence[str] | None = None) -> Path:
    """One item per distinct (post, output) of the timed posts over ``systems`` (default: every released system of
    the directory), shuffled by ``seed``; a refused post (null) is no item. The key lists every system of an item."""
    systems = list(systems or systems_in(sample_dir))
    if len(systems) < 2:
        raise SystemExit(f"{sample_dir}: blind needs at least two systems (e.g. after and naive), found {systems}")
    texts = {row["post"]: row["text"] for row in _sample_rows(sample_dir)}
    items: dict[tuple[str, str], list[str]] = {}
    for system in systems:
        for row in _read_jsonl(sample_dir / f"{system}.jsonl"):
            if not row["plain"] and row["output"] is not None:
                items.setdefault((row["post"], row["output"]), []).append(system)
    order = sorted(items)
    random.Random(seed).shuffle(order)
    key = {str(n): {"post": post, "systems": items[(post, output)]} for n, (post, output) in enumerate(order)}
    _write_jsonl(
        sample_dir / "blind.jsonl",
        ({"item": n, "original": texts[post], "output": output} for n, (post, output) in enumerate(order)),
    )
    (sample_dir / "key.json").write_text(
        json.dumps({"seed": seed, "systems": systems, "items": key}, indent=1) + "\n", encoding="utf-8"
    )
    template = BRIEF_TEMPLATE.read_text(encoding="utf-8")
    (sample_dir / "brief.md").write_text(
        template.replace("{{ITEMS}}", str(len(order)))
        .replace("{{BLIND}}", str(sample_dir / "blind.jsonl"))
        .replace("{{JUDGMENTS}}", str(sample_dir / "judgments-<reader>.jsonl")),
        encoding="utf-8",
    )
    merged = sum(len(s) > 1 for s in items.values())
    print(
        f"{len(order)} items from {', '.join(systems)} (seed {seed}; {merged} given by more than one system) -> "
        f"{sample_dir / 'blind.jsonl'}; brief -> brief.md; key -> key.json (not for the reader)"
    )
    return sample_dir / "blind.jsonl"


# -- score ------------------------------------------------------------------------------------------------------
def _yes(value, item, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("yes", "y", "no", "n"):
        return value.lower() in ("yes", "y")
    raise SystemExit(f"item {item}: {field} must be true/false or yes/no, not {value!r}")


def read_judgments(path: Path, key: dict) -> dict[int, dict]:
    """One reader's verdicts by item, checked: every item of the key once, a category and a reason for every no."""
    verdicts: dict[int, dict] = {}
    for row in _read_jsonl(path):
        item = int(row["item"])
        if str(item) not in key["items"] or item in verdicts:
            raise SystemExit(f"{path}: item {item} is {'judged twice' if item in verdicts else 'not in the key'}")
        correct, natural = _yes(row["correct"], item, "correct"), _yes(row["natural"], item, "natural")
        if not (correct and natural) and (row.get("category") not in CATEGORIES or not row.get("reason")):
            raise SystemExit(f"{path}: item {item} is a no without a reason and one of the categories {CATEGORIES}")
        verdicts[item] = {
            "correct": correct,
            "natural": natural,
            "category": row.get("category"),
            "reason": row.get("reason") or "",
        }
    missing = sorted(set(map(int, key["items"])) - set(verdicts))
    if missing:
        raise SystemExit(f"{path}: no judgment for {len(missing)} items, e.g. {missing[:5]}")
    return verdicts


def _share(k: int, n: int) -> str:
    from anonymizer.crowd.stats import wilson_interval

    interval = wilson_interval(k, n)
    if interval is None:
        return "-"
    return f"{k}/{n} = {k / n:.1%} [{interval.low:.1%}, {interval.high:.1%}]"


def counts(key: dict, verdicts: dict[int, dict]) -> dict[str, Counter]:
    """Per system: posts judged, correct, natural, both (an item given by several systems counts for each)."""
    per: dict[str, Counter] = {system: Counter() for system in key["systems"]}
    for item, verdict in verdicts.items():
        for system in key["items"][str(item)]["systems"]:
            per[system].update(
                n=1,
                correct=verdict["correct"],
                natural=verdict["natural"],
                both=verdict["correct"] and verdict["natural"],
            )
    return per


def _kappa(a: list[bool], b: list[bool]) -> str:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_a, p_b = sum(a) / n, sum(b) / n
    expected = p_a * p_b + (1 - p_a) * (1 - p_b)
    return "undefined" if expected == 1 else f"{(observed - expected) / (1 - expected):.2f}"


def unchanged_plain(sample_dir: Path, systems: Sequence[str]) -> dict[str, tuple[int, int, int]]:
    """Per system: (plain posts left unchanged, plain posts, refused): no reader, the regex found no time in them."""
    texts = {row["post"]: row["text"] for row in _sample_rows(sample_dir) if row["plain"]}
    found = {}
    for system in systems:
        rows = [row for row in _read_jsonl(sample_dir / f"{system}.jsonl") if row["plain"]]
        found[system] = (
            sum(row["output"] == texts[row["post"]] for row in rows),
            len(rows),
            sum(row["output"] is None for row in rows),
        )
    return found


def score(sample_dir: Path, judgment_files: Sequence[Path]) -> dict:
    """Print the markdown tables; return the figures (for tests)."""
    key = json.loads((sample_dir / "key.json").read_text(encoding="utf-8"))
    blind_rows = {row["item"]: row for row in _read_jsonl(sample_dir / "blind.jsonl")}
    readers = {path.stem: read_judgments(path, key) for path in judgment_files}
    systems = key["systems"]
    per_reader = {reader: counts(key, verdicts) for reader, verdicts in readers.items()}
    pooled = {system: sum((c[system] for c in per_reader.values()), Counter()) for system in systems}
    refused = {
        system: sum(row["output"] is None for row in _read_jsonl(sample_dir / f"{system}.jsonl") if not row["plain"])
        for system in systems
    }
    print(f"Seed {key['seed']}, {len(key['items'])} items; readers: {', '.join(readers)}\n")
    print("| system | reader | correct | natural | correct and natural | refused (no item) |")
    print("|---|---|---|---|---|---|")
    for system in systems:
        rows = list(per_reader.items()) + ([("pooled", pooled)] if len(readers) > 1 else [])
        for reader, figures in rows:
            c = figures[system]
            print(
                f"| {system} | {reader} | {_share(c['correct'], c['n'])} | {_share(c['natural'], c['n'])} | "
                f"{_share(c['both'], c['n'])} | {refused[system]} |"
            )
    if len(readers) > 1:
        print(
            "\n(pooled: every reader's verdicts summed; where readers judged the same items, a post counts once per "
            "reader and the interval is too narrow)"
        )
    agreement = {}
    names = list(readers)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            common = sorted(set(readers[first]) & set(readers[second]))
            if not common:
                continue
            print(f"\nAgreement {first} / {second} on {len(common)} items:")
            for field in ("correct", "natural", "both"):

                def value(verdict, field=field):
                    return verdict["correct"] and verdict["natural"] if field == "both" else verdict[field]

                a = [value(readers[first][item]) for item in common]
                b = [value(readers[second][item]) for item in common]
                same = sum(x == y for x, y in zip(a, b, strict=True))
                agreement[(first, second, field)] = (same, len(common), _kappa(a, b))
                print(f"- {field}: {same}/{len(common)} = {same / len(common):.1%}, Cohen's kappa {_kappa(a, b)}")
    failures: dict[str, dict[str, list]] = {system: defaultdict(list) for system in systems}
    for reader, verdicts in readers.items():
        for item, verdict in sorted(verdicts.items()):
            if not (verdict["correct"] and verdict["natural"]):
                for system in key["items"][str(item)]["systems"]:
                    failures[system][verdict["category"]].append((reader, item, verdict["reason"]))
    for system in systems:
        print(f"\nFailures of {system} by category (all readers):" + ("" if failures[system] else " none"))
        for category in CATEGORIES:
            found = failures[system].get(category, [])
            if found:
                print(f"- {category} ({len(found)}):")
                for reader, item, reason in found[:3]:
                    row = blind_rows[item]
                    print(
                        f"  - {reason} ({reader}, item {item}): {' '.join(row['original'].split())!r} -> "
                        f"{' '.join(row['output'].split())!r}"
                    )
    plain = unchanged_plain(sample_dir, systems)
    print("\n| system | posts without a time hint left unchanged (automatic, no reader) | refused |")
    print("|---|---|---|")
    for system, (same, n, no) in plain.items():
        print(f"| {system} | {_share(same, n)} | {no} |")
    return {
        "per_reader": per_reader,
        "pooled": pooled,
        "agreement": agreement,
        "plain": plain,
        "failures": {s: {c: len(v) for c, v in f.items()} for s, f in failures.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="draw a fresh sample and record it in the ledger")
    d.add_argument("source", choices=("btc", "midwest"))
    d.add_argument("seed", type=int)
    d.add_argument("--posts", type=int, required=True)
    d.add_argument("--plain", type=int, default=0)
    d.add_argument("--btc-dir", type=Path, default=Path(os.environ["BTC_DIR"]) if os.environ.get("BTC_DIR") else None)
    d.add_argument("--out", type=Path, default=OUT)
    r = sub.add_parser("release", help="this (or --repo's) checkout's time removal on the sample")
    r.add_argument("sample_dir", type=Path)
    r.add_argument("--label", required=True)
    r.add_argument("--repo", type=Path, default=REPO)
    n = sub.add_parser("naive", help="the baseline: the time spans simply deleted")
    n.add_argument("sample_dir", type=Path)
    n.add_argument("--repo", type=Path, default=REPO)
    b = sub.add_parser("blind", help="shuffle the systems' outputs into one blind file")
    b.add_argument("sample_dir", type=Path)
    b.add_argument("seed", type=int)
    b.add_argument("--systems", nargs="+")
    s = sub.add_parser("score", help="score readers' judgments against the key")
    s.add_argument("sample_dir", type=Path)
    s.add_argument("judgments", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "draw":
        draw(args.source, args.seed, args.posts, args.plain, btc_dir=args.btc_dir, out=args.out)
    elif args.command == "release":
        release(args.sample_dir, args.label, args.repo)
    elif args.command == "naive":
        naive(args.sample_dir, args.repo)
    elif args.command == "blind":
        blind(args.sample_dir, args.seed, args.systems)
    else:
        sys.path.insert(0, str(REPO))
        score(args.sample_dir, args.judgments)
    return 0


if __name__ == "__main__":
    sys.exit(main())
