"""Speed of location inference and de-identification, and whether de-identification protects.

Usage: .venv/bin/python bench/bench_location.py [--quick]   (--quick skips the 200,000-post training)

Figures, on the default models trained from data/ (the same specs as `make run`):
- model load time and one-post classification latency;
- automatic de-identification per held-out post (median, p95);
- fixed m = 3 and m = 4 against a fair exhaustive search (each candidate's feature set built once, every
  scorer) on the same posts, with a check that the results are identical;
- training time and peak memory for the English corpus and for 200,000 posts resampled from it;
- the protection evaluation: independent attackers (other code, other posts) before and after.
"""

from __future__ import annotations

import math
import multiprocessing
import resource
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.location.calibration import train_calibrated_model  # noqa: E402
from anonymizer.location.classifier import ngrams  # noqa: E402
from anonymizer.location.corpus import Post, load_corpus  # noqa: E402
from anonymizer.location.defaults import TOKYO, US_MIDWEST, ModelSpec  # noqa: E402
from anonymizer.location.deidentify import TIE_TOLERANCE, Deidentifier, link_scores  # noqa: E402
from anonymizer.location.evaluate import split_train_test  # noqa: E402
from anonymizer.location.inspect import inspect_text  # noqa: E402
from anonymizer.location.model import LocationModel  # noqa: E402
from anonymizer.location.protection import evaluate_protection, protection_table  # noqa: E402


def ms(values: list[float], q: float) -> float:
    return float(np.percentile(values, q) * 1000)


def load(spec: ModelSpec) -> list[Post]:
    posts, _ = load_corpus(REPO / "data" / spec.corpus, columns=spec.columns, grid=spec.grid,
                           where={k: set(v) for k, v in spec.where.items()} or None)
    return posts


def train(spec: ModelSpec, posts: list[Post]) -> LocationModel:
    """As `make run` trains a default model: threshold calibrated against the independent attackers."""
    return train_calibrated_model(posts, name=spec.name, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings)


def held_out(posts: list[Post]) -> list[Post]:
    _, test, _ = split_train_test(len(posts), users=[p.user for p in posts])
    return [posts[i] for i in test]


def bench_inference(spec: ModelSpec, model: LocationModel, test: list[Post]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model.save(Path(tmp))
        started = time.perf_counter()
        LocationModel.load(Path(tmp))
        load_seconds = time.perf_counter() - started
    texts = [p.text for p in test[:1000]]
    for text in texts[:20]:
        model.infer(text)  # warm the tokenizer
    times = []
    for text in texts:
        started = time.perf_counter()
        model.infer(text)
        times.append(time.perf_counter() - started)
    print(f"{spec.name}: model load {load_seconds * 1000:.0f} ms; classify one post (tokenize + probabilities): "
          f"median {ms(times, 50):.2f} ms, p95 {ms(times, 95):.2f} ms over {len(times)} posts")
    times, deleted, under = [], [], 0
    for text in texts:
        started = time.perf_counter()
        result = model.deidentify(text)
        times.append(time.perf_counter() - started)
        deleted.append(len(result.decision.deleted))
        under += result.decision.under_threshold
    print(f"{spec.name}: automatic de-identification (tokenize + search + probabilities after): median "
          f"{ms(times, 50):.2f} ms, p95 {ms(times, 95):.2f} ms, max {max(times) * 1000:.0f} ms over {len(times)} posts;"
          f" {sum(1 for d in deleted if d)} needed deletions, {under} ended under the threshold")
    times = []
    for text in texts:  # what the inspect page and API answer: the search, both states, the verdict, the review
        started = time.perf_counter()
        inspect_text(model, text)
        times.append(time.perf_counter() - started)
    print(f"{spec.name}: automatic inspect (inspect_text: the above + scorer views, verdict and review list): median "
          f"{ms(times, 50):.2f} ms, p95 {ms(times, 95):.2f} ms, max {max(times) * 1000:.0f} ms over {len(times)} posts")


def fair_exhaustive(norms: list[str], allowed: list[int], m: int, scorers) -> tuple[int, ...]:
    """The strongest plain exhaustive search: each candidate's feature set is built once (ngrams of the kept
    units, looked up once per distinct feature), its rows summed per scorer, the tie rule applied."""
    rows = [{} for _ in scorers]
    best, best_ratio = None, math.inf
    for candidate in combinations(allowed, m):
        gone = set(candidate)
        features = set(ngrams([t for i, t in enumerate(norms) if i not in gone]))
        ratio = 0.0
        for k, scorer in enumerate(scorers):
            cache = rows[k]
            z = np.array(scorer.intercept, dtype=np.float64)
            for feature in features:
                index = cache.get(feature, -2)
                if index == -2:
                    index = cache[feature] = scorer.vocabulary.get(feature, -1)
                if index >= 0:
                    z = z + scorer.weights[index]
            ratio = max(ratio, float(link_scores(z[None, :], scorer.link)[0]) / scorer.threshold)
        if ratio < best_ratio - TIE_TOLERANCE:
            best, best_ratio = candidate, ratio
    return best


def bench_fixed_m(spec: ModelSpec, model: LocationModel, test: list[Post], m: int, posts: int = 150) -> None:
    """The fast search against the fair exhaustive one, both over every scorer the model uses (classifier and
    gazetteer scorer), on the same posts."""
    scorers = model.scorers()
    # The exhaustive search itself: the work budget that bounds a request (25 M numbers) is lifted here, or the
    # larger of these posts (up to 300,000 candidates) would go to the beam and nothing would be compared.
    deidentifier = Deidentifier(scorers, max_work=10**15)
    fast_times, oracle_times, same, cases = [], [], 0, 0
    for post in test:
        tokens = model.tokenize(post.text)
        norms, allowed = [t.norm for t in tokens], [i for i, t in enumerate(tokens) if t.deletable]
        if len(allowed) < m or math.comb(len(allowed), m) > 300_000:
            continue
        started = time.perf_counter()
        fast = deidentifier.best_deletion(norms, m, allowed)
        fast_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        expected = fair_exhaustive(norms, allowed, m, scorers)
        oracle_times.append(time.perf_counter() - started)
        same += fast.positions == expected
        cases += 1
        if cases == posts:
            break
    ratios = np.array(oracle_times) / np.array(fast_times)
    print(f"{spec.name} m={m}: {cases} posts, identical results {same}/{cases}; fast median {ms(fast_times, 50):.2f} ms"
          f" p95 {ms(fast_times, 95):.2f} ms; fair exhaustive median {ms(oracle_times, 50):.2f} ms p95 "
          f"{ms(oracle_times, 95):.1f} ms; speed-up: total {sum(oracle_times) / sum(fast_times):.0f}x, "
          f"median per post {np.median(ratios):.1f}x, at the exhaustive search's p95 post "
          f"{ms(oracle_times, 95) / ms(fast_times, 95):.0f}x")


def _train_child(spec: ModelSpec, size: int | None, queue) -> None:
    posts = load(spec)
    if size is not None:  # resample with replacement to the wanted size
        rng = np.random.default_rng(0)
        posts = [posts[i] for i in rng.integers(0, len(posts), size)]
    started = time.perf_counter()
    model = train(spec, posts)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((len(posts), seconds, peak_mb, model.metadata["seconds"], model.metadata["scores"]["accuracy"],
               model.metadata["vocabulary_size"], model.metadata["classes"]))


def bench_training(spec: ModelSpec, size: int | None) -> None:
    """Train in a fresh process so that its peak resident memory is the training's own."""
    queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_train_child, args=(spec, size, queue))
    child.start()
    posts, seconds, peak_mb, parts, accuracy, vocabulary, classes = queue.get()
    child.join()
    print(f"{spec.name} training on {posts:,} posts: {seconds:.1f} s (tokenize {parts['tokenize']} s, fit "
          f"{parts['fit']} s), peak RSS {peak_mb:.0f} MB; {vocabulary:,} features x {classes} cells, held-out "
          f"accuracy {accuracy:.3f}")


def bench_protection_pooled(spec: ModelSpec, posts: list[Post], seeds: range = range(5),
                            replacement: str = "delete") -> None:
    """The protection figures pooled over several splits: one split's test part is a few hundred posts, and with
    a majority baseline right for 5-8% of them a handful of posts moves a ratio by 0.2. Pooled: every split's
    right guesses added up, for each attacker and for the baseline, before dividing."""
    right: dict[str, list[float]] = {}
    per_split: dict[str, list[float]] = {}  # each split's own accuracy ratio after de-identification
    base = base5 = named_before = named_after = n = 0.0
    units = units_deleted = changed = not_under = replaced = 0
    for seed in seeds:
        result = evaluate_protection(posts, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings, seed=seed,
                                     max_test_posts=1000, examples=0, replacement=replacement)
        posts_n = result["posts"]["test"]
        n += posts_n
        deletions = result["deletions"]
        units += deletions["morphemes"]
        units_deleted += deletions["morphemes_deleted_count"]
        changed += round(deletions["posts_changed"] * posts_n)
        not_under += deletions["posts_not_under_threshold"]
        replaced += deletions["posts_with_replacements"]
        base += result["baseline"]["accuracy"] * posts_n
        base5 += result["baseline"]["top5_accuracy"] * posts_n
        for name, attack in result["attackers"].items():
            per_split.setdefault(name, []).append(attack["released"]["accuracy_ratio"])
            totals = right.setdefault(name, [0.0, 0.0, 0.0, 0.0])
            for k, part in enumerate(("original", "released")):
                totals[2 * k] += attack[part]["accuracy"] * posts_n
                totals[2 * k + 1] += attack[part]["top5_accuracy"] * posts_n
        if result["place_mentions"]["available"]:
            named_before += result["place_mentions"]["original_posts"]
            named_after += result["place_mentions"]["released_posts"]
    print(f"\n{spec.name}, replacement={replacement}: pooled over {len(seeds)} splits (seeds {seeds.start}-"
          f"{seeds.stop - 1}), {int(n):,} test posts; majority baseline right for {int(base)}, its top-5 for "
          f"{int(base5)}")
    for name, (acc0, top0, acc1, top1) in right.items():
        print(f"  {name:14s} accuracy {acc0 / base:.2f}x -> {acc1 / base:.2f}x   top-5 {top0 / base5:.2f}x -> "
              f"{top1 / base5:.2f}x   (right: {int(acc0)} -> {int(acc1)}; each split after: "
              f"{' '.join(f'{r:.2f}' for r in per_split[name])})")
    print(f"  released posts naming a place inside the grid: {named_after / n:.1%} ({int(named_after)}); "
          f"originals {named_before / n:.1%}")
    print(f"  units deleted {units_deleted / units:.1%} ({units_deleted:,} of {units:,}); posts changed "
          f"{changed / n:.1%}; released posts not under every threshold: {not_under}"
          + (f"; posts that keep a mask or a coarser place: {replaced}" if replacement != "delete" else ""))


def main() -> int:
    quick = "--quick" in sys.argv
    for spec in (TOKYO, US_MIDWEST):
        posts = load(spec)
        model, test = train(spec, posts), held_out(posts)
        scores = model.metadata["scores"]
        print(f"\n== {spec.name}: {len(posts):,} posts, {scores['posts']:,} held out; accuracy {scores['accuracy']:.3f}"
              f" vs majority {scores['majority_baseline']:.3f} (lift {scores['lift']:.2f}x), top-5 "
              f"{scores['top5_accuracy']:.3f}, median error {scores['median_error_km']:.1f} km; threshold "
              f"{model.threshold.value:.3f} ({model.threshold.kind})")
        bench_inference(spec, model, test)
        for m in (3, 4):
            bench_fixed_m(spec, model, test, m)
        print(f"\n{spec.name}: does it protect? (defender / attacker / test = 40 / 40 / 20%)")
        print(protection_table(evaluate_protection(posts, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings,
                                                   max_test_posts=1000, examples=5)))
        bench_protection_pooled(spec, posts)
        bench_protection_pooled(spec, posts, replacement="generalize")
    print()
    bench_training(US_MIDWEST, None)
    if not quick:
        bench_training(US_MIDWEST, 200_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
