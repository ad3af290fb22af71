"""Does de-identification protect? An attacker model trained on other people's posts tries to locate the
posts before and after the defender's model de-identified them (no Django here).

A de-identifier that only fools the model it was built from proves little; here the corpus is cut into three
user-disjoint parts (when users are known): the defender's training posts, the attacker's training posts and
the test posts. Both models see the same tokenizer and grid, never the same people.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupShuffleSplit, ShuffleSplit

from anonymizer.location.corpus import Post
from anonymizer.location.evaluate import evaluate_predictions
from anonymizer.location.grid import Grid
from anonymizer.location.model import LocationModel, train_location_model
from anonymizer.location.tokenize import TokenizerSettings

Progress = Callable[[int, int, str], None]


def three_way_split(posts: Sequence[Post], seed: int = 0, test_share: float = 0.2
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Defender / attacker / test indices (40 / 40 / 20), user-disjoint when every post has a user."""
    indices = np.arange(len(posts))
    users = [p.user for p in posts]
    by_user = all(users) and len(set(users)) > 2
    if by_user:
        groups = np.asarray(users)
        rest, test = next(GroupShuffleSplit(1, test_size=test_share, random_state=seed).split(indices, groups=groups))
        defender, attacker = next(GroupShuffleSplit(1, test_size=0.5, random_state=seed + 1).split(
            rest, groups=groups[rest]))
    else:
        rest, test = next(ShuffleSplit(1, test_size=test_share, random_state=seed).split(indices))
        defender, attacker = next(ShuffleSplit(1, test_size=0.5, random_state=seed + 1).split(rest))
    return np.sort(rest[defender]), np.sort(rest[attacker]), np.sort(test), by_user


def _scores(model: LocationModel, docs: list[list[str]], test: Sequence[Post], grid: Grid) -> dict:
    probabilities = model.classifier.predict_proba(docs)
    return evaluate_predictions(probabilities, model.classifier.classes_, np.array([p.cell for p in test]),
                                np.array([p.lat for p in test]), np.array([p.lon for p in test]), grid,
                                model.metadata["majority_cell"])


def evaluate_protection(posts: Sequence[Post], *, grid: Grid, tokenizer_settings: TokenizerSettings,
                        seed: int = 0, max_test_posts: int = 1000, progress: Progress | None = None) -> dict:
    """Train defender and attacker, de-identify the test posts with the defender (automatic mode), and score
    both models on the original and the de-identified test posts."""
    report = progress or (lambda done, total, message: None)
    defender_idx, attacker_idx, test_idx, by_user = three_way_split(posts, seed)
    report(0, 100, "training the defender")
    defender = train_location_model([posts[i] for i in defender_idx], name="defender", grid=grid,
                                    tokenizer_settings=tokenizer_settings, test_size=0)
    report(30, 100, "training the attacker")
    attacker = train_location_model([posts[i] for i in attacker_idx], name="attacker", grid=grid,
                                    tokenizer_settings=tokenizer_settings, test_size=0)
    test = [posts[i] for i in test_idx[:max_test_posts]]
    originals, deidentified = [], []
    tokens_total = tokens_deleted = changed = not_under = 0
    started = time.perf_counter()
    for k, post in enumerate(test):
        result = defender.deidentify(post.text)
        gone = set(result.decision.deleted)
        originals.append([t.norm for t in result.tokens])
        deidentified.append([t.norm for i, t in enumerate(result.tokens) if i not in gone])
        tokens_total += len(result.tokens)
        tokens_deleted += len(gone)
        changed += bool(gone)
        not_under += not result.decision.under_threshold
        if k % 100 == 0:
            report(60 + int(35 * k / len(test)), 100, f"de-identifying: {k:,} of {len(test):,} posts")
    seconds = time.perf_counter() - started
    return {
        "posts": {"defender": len(defender_idx), "attacker": len(attacker_idx), "test": len(test),
                  "user_disjoint": by_user},
        "threshold": {"value": defender.threshold.value, "kind": defender.threshold.kind},
        "deletions": {"posts_changed": changed / len(test), "morphemes_deleted": tokens_deleted / max(tokens_total, 1),
                      "mean_deleted_per_changed_post": tokens_deleted / max(changed, 1),
                      "posts_not_under_threshold": not_under, "seconds_per_post": seconds / len(test)},
        "attacker": {"original": _scores(attacker, originals, test, grid),
                     "deidentified": _scores(attacker, deidentified, test, grid)},
        "defender": {"original": _scores(defender, originals, test, grid),
                     "deidentified": _scores(defender, deidentified, test, grid)},
    }


def protection_table(result: dict) -> str:
    """The figures as a small Markdown table (for the README and the bench)."""
    lines = ["| model | posts | accuracy | top-5 | majority baseline | median error km | mean top prob |",
             "|---|---|---|---|---|---|---|"]
    for who in ("attacker", "defender"):
        for when in ("original", "deidentified"):
            s = result[who][when]
            lines.append(f"| {who}, {when} | {s['posts']} | {s['accuracy']:.3f} | {s['top5_accuracy']:.3f} | "
                         f"{s['majority_baseline']:.3f} | {s['median_error_km']:.1f} | "
                         f"{s['mean_top_probability']:.3f} |")
    d = result["deletions"]
    lines.append("")
    lines.append(f"Posts changed: {d['posts_changed']:.1%}; morphemes deleted: {d['morphemes_deleted']:.1%} "
                 f"({d['mean_deleted_per_changed_post']:.2f} per changed post); posts left above the threshold: "
                 f"{d['posts_not_under_threshold']}; threshold {result['threshold']['value']:.3f} "
                 f"({result['threshold']['kind']}).")
    return "\n".join(lines)
