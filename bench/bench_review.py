"""How often the verdict reads "review" on real posts, what it lists, and what the review costs per post.

Usage: .venv/bin/python bench/bench_review.py [--posts 1000]

For the held-out posts of each default model (the tests' cached models, trained once under var/test-cache): the
post is de-identified in automatic mode as the inspect page does, then the released text is checked
(review.needs_review). It prints the share of released texts under every threshold whose verdict is "review"
rather than "pass" (names no list holds left), the most listed names with why, and the review's time per post
(median, p95), the released text tokenized once more as inspect does.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1000, help="held-out posts per model (the first ones)")
    args = parser.parse_args()
    import django

    django.setup()
    from anonymizer.location.defaults import TOKYO, US_MIDWEST
    from anonymizer.location.evaluate import split_train_test
    from anonymizer.location.inspect import places_left
    from anonymizer.location.review import needs_review, warm_up
    from tests.helpers import default_corpus
    from tests.model_cache import cached_training

    for spec in (TOKYO, US_MIDWEST):
        posts, _ = default_corpus(spec.name)
        model = cached_training(spec, posts, REPO / "data")
        _, test, _ = split_train_test(len(posts), users=[p.user for p in posts])
        held_out = [posts[i].text for i in test][: args.posts]
        warm_up(model.language)
        statuses: Counter = Counter()
        names: Counter = Counter()
        seconds: list[float] = []
        for text in held_out:
            result = model.deidentify(text)
            started = time.perf_counter()
            tokens = model.tokenize(result.text_after)
            items = needs_review(model, result.text_after, tokens)
            seconds.append(time.perf_counter() - started)
            if not result.decision.under_threshold:
                statuses["fail"] += 1
            elif places_left(model, result.text_after, tokens):
                statuses["places"] += 1
            else:
                statuses["review" if items else "pass"] += 1
            names.update((item.text, item.why) for item in items)
        under = statuses["pass"] + statuses["review"]
        ms = np.array(seconds) * 1000
        print(f"{spec.name}: {len(held_out)} held-out posts: {dict(statuses)}; review is "
              f"{statuses['review'] / max(under, 1):.1%} of the {under} that would otherwise pass; review "
              f"{np.median(ms):.2f} ms median, {np.percentile(ms, 95):.2f} ms p95 per post (tokenize + review)")
        for (name, why), count in names.most_common(25):
            print(f"  {count:4d}  {name}  ({why})")


if __name__ == "__main__":
    main()
