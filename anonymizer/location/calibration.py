"""A de-identification threshold calibrated against an independent attacker (no Django here).

The paper's threshold (0.37) is the mean top-cell probability of posts people de-identified by hand; it says
nothing about what another model can still infer. Here the threshold is the largest one at which an attacker
written apart from the defender (``attackers.CharNgramAttacker``, trained on the model's own training posts)
places the de-identified validation posts hardly better than guessing the busiest cell:

    attacker accuracy on the released posts  <=  target_ratio x majority-baseline accuracy.

Lower thresholds delete more, so the attacker's accuracy falls as the threshold falls (not strictly: the
search assumes it is monotone and bisects over the sorted candidates, measuring each tried one afresh).

A bound met on the validation posts pooled can still be missed on a smaller set of other users' posts: a split's
test part holds a few hundred posts and a majority baseline right for a few dozen, so a handful of posts moves a
ratio by 0.2 (one Tokyo split of five was at 1.36x while the pooled figure was 0.91x). With ``folds`` > 1 the
validation posts are cut into user-disjoint folds and a threshold passes only when the attacker meets the bound
on every fold, each against its own fold's baseline, as well as pooled.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupKFold

from anonymizer.location.attackers import CharNgramAttacker, ComplementNBAttacker
from anonymizer.location.corpus import Post
from anonymizer.location.evaluate import split_train_test
from anonymizer.location.model import LocationModel, Threshold, train_location_model

Progress = Callable[[int, int, str], None]
TARGET_RATIO = 1.25
HIGHEST_CANDIDATE = 0.5
LOWEST_OVER_MAJORITY = 1.5
CANDIDATES = 16
# User-disjoint validation folds the bound must hold on (each as well as pooled), see the module's docstring. One:
# measured on Tokyo's five protection splits (seeds 0-4), three folds deleted 7.7% of the units instead of 6.2%,
# left 17 posts over a threshold instead of 0, and moved no split's attacker figure (split 0 stays at 1.32x): what
# that split's attacker still places, no threshold reaches.
CALIBRATION_FOLDS = 1


def default_candidates(majority_share: float, count: int = CANDIDATES, highest: float = HIGHEST_CANDIDATE
                       ) -> list[float]:
    """Thresholds from ``highest`` down to 1.5 x the busiest cell's training share, evenly spaced on a log
    scale, descending (a threshold near the share itself could not be reached by deleting: an empty post scores
    about that much)."""
    low = min(max(LOWEST_OVER_MAJORITY * majority_share, 1e-3), highest)
    return sorted({round(float(v), 4) for v in np.geomspace(highest, low, count)}, reverse=True)


def _attacker_name(attacker) -> str:
    if isinstance(attacker, list | tuple):
        return "strongest of " + " and ".join(map(_attacker_name, attacker))
    return getattr(attacker, "label", None) or type(attacker).__name__


def _right(attacker, texts: list[str], cells: np.ndarray) -> list[np.ndarray]:
    """Per attacker (one, or each of several), which posts it places in their cell."""
    attackers = attacker if isinstance(attacker, list | tuple) else [attacker]
    return [np.asarray(one.predict(texts)) == cells for one in attackers]


def validation_folds(posts: Sequence[Post], folds: int) -> list[np.ndarray]:
    """The validation posts' indices cut into ``folds`` user-disjoint folds (a post without a user is its own
    group), deterministic; fewer folds when there are fewer groups."""
    n = len(posts)
    groups = [p.user if p.user else f"\x00post{i}" for i, p in enumerate(posts)]
    folds = min(folds, len(set(groups)))
    if folds <= 1:
        return [np.arange(n)]
    return [np.sort(test) for _, test in GroupKFold(n_splits=folds).split(np.zeros(n), groups=groups)]


def calibrate_against_attacker(model: LocationModel, validation_posts: Sequence[Post], attacker, *,
                               target_ratio: float = TARGET_RATIO, candidates: Sequence[float] | None = None,
                               highest: float = HIGHEST_CANDIDATE, folds: int = 1,
                               progress: Progress | None = None) -> tuple[Threshold, dict]:
    """The largest candidate threshold at which ``attacker`` (fitted, with ``predict(texts)``; several: each
    of them) places at most ``target_ratio`` x the majority baseline's share of the de-identified
    ``validation_posts`` in their cell, pooled and on each of ``folds`` user-disjoint folds.

    Returns the threshold (kind "attacker") and the measurements per tried threshold: {value: {accuracy,
    ratio, fold_ratios, worst_ratio, passes, posts_changed, morphemes_deleted, seconds}}; ``ratio`` is the
    pooled one, ``worst_ratio`` the largest of it and the folds'. When even the lowest candidate misses the
    target, that lowest one is returned and its explanation says by how much the target was missed.
    """
    if not validation_posts:
        raise ValueError("calibration needs validation posts")
    report = progress or (lambda done, total, message: None)
    cells = _validation_cells(model, validation_posts)
    n = len(validation_posts)
    majority_cell = int(model.metadata["majority_cell"])
    measured_baseline = float(np.mean(cells == majority_cell))
    # No validation post in the busiest cell: count one, so the target is not "never right".
    baseline = max(measured_baseline, 1.0 / n)
    parts = validation_folds(validation_posts, folds)
    part_baselines = [max(float(np.mean(cells[part] == majority_cell)), 1.0 / len(part)) for part in parts]
    values = _candidate_values(model, candidates, highest)
    texts = [p.text for p in validation_posts]
    tried: dict[float, dict] = {}
    name = _attacker_name(attacker)

    def measure(value: float) -> dict:
        if value in tried:
            return tried[value]
        report(len(tried), len(values), f"threshold {value:.4f}: de-identifying {n} validation posts")
        begin = time.perf_counter()
        trial = model.with_threshold(Threshold(value, "attacker", f"trial threshold {value:.4f}"))
        released, changed, deleted, total = _release_all(trial, texts)
        right = _right(attacker, released, cells)
        accuracy = max(float(np.mean(r)) for r in right)
        fold_ratios = [max(float(np.mean(r[part])) for r in right) / part_base
                       for part, part_base in zip(parts, part_baselines, strict=True)] if len(parts) > 1 else []
        worst = max([accuracy / baseline, *fold_ratios])
        tried[value] = {"accuracy": accuracy, "ratio": accuracy / baseline,
                        "fold_ratios": [round(r, 4) for r in fold_ratios], "worst_ratio": worst,
                        "passes": worst <= target_ratio + 1e-12, "posts_changed": changed / n,
                        "morphemes_deleted": deleted / max(total, 1),
                        "seconds": round(time.perf_counter() - begin, 2)}
        return tried[value]

    # Bisection for the largest passing candidate, assuming a lower threshold never helps the attacker. The
    # highest (cheapest: it deletes least) is tried first; the lowest (dearest) only when nothing above passes.
    on_folds = f", pooled and on each of {len(parts)} user-disjoint folds" if len(parts) > 1 else ""
    lo = _largest_passing(values, measure)
    if lo < 0:  # even the lowest candidate (values[0], measured last) misses the target
        lowest = tried[values[0]]
        report(len(values), len(values), "calibrated")
        explanation = (
            f"Attacker-calibrated, target NOT reached: even at the lowest candidate, {values[0]:.4f}, the "
            f"{name} (other code, this model's training posts) places {lowest['accuracy']:.3f} of {n} "
            f"de-identified validation posts in their cell, {lowest['ratio']:.2f}x the majority baseline "
            f"({baseline:.3f}), {lowest['worst_ratio']:.2f}x at worst{on_folds and ' over the folds'}; the target "
            f"was {target_ratio:.2f}x{on_folds}, missed by {lowest['worst_ratio'] - target_ratio:.2f}x.")
        return Threshold(values[0], "attacker", explanation), _measurements(
            tried, baseline, measured_baseline, target_ratio, n, reached=False, folds=len(parts))
    chosen = values[lo]
    best = tried[chosen]
    report(len(values), len(values), "calibrated")
    explanation = (
        f"Attacker-calibrated: the largest tried threshold at which the {name} (other code, this model's "
        f"training posts) places at most {target_ratio:.2f}x the majority baseline's share of {n} de-identified "
        f"validation posts in their cell{on_folds}: measured {best['ratio']:.2f}x pooled (accuracy "
        f"{best['accuracy']:.3f}, baseline {baseline:.3f})"
        + (f", {best['worst_ratio']:.2f}x on the worst fold" if len(parts) > 1 else "") + ".")
    return Threshold(chosen, "attacker", explanation), _measurements(
        tried, baseline, measured_baseline, target_ratio, n, reached=True, folds=len(parts))


def _validation_cells(model: LocationModel, validation_posts: Sequence[Post]) -> np.ndarray:
    """The grid cell of each validation post (ValueError when one lies outside the grid)."""
    grid = model.grid
    cells = np.array([grid.cell_of(p.lat, p.lon) if p.cell is None else p.cell for p in validation_posts])
    if any(cell is None for cell in cells):
        raise ValueError("every validation post must lie inside the model's grid")
    return cells.astype(np.int64)


def _candidate_values(model: LocationModel, candidates: Sequence[float] | None, highest: float) -> list[float]:
    """The candidate thresholds to try, sorted (by default the model's, up to ``highest``)."""
    values = sorted({float(v) for v in (candidates if candidates is not None
                                        else default_candidates(float(model.metadata["majority_share"]),
                                                                highest=highest))})
    if not values or not all(0 < v <= 1 for v in values):
        raise ValueError("candidate thresholds must be in (0, 1]")
    return values


def _release_all(trial: LocationModel, texts: Sequence[str]) -> tuple[list[str], int, int, int]:
    """Each text de-identified by ``trial``: the released texts, the posts changed, the units deleted and the
    tokens in all."""
    released, changed, deleted, total = [], 0, 0, 0
    for text in texts:
        result = trial.deidentify(text)
        released.append(result.text_after)
        changed += bool(result.decision.deleted)
        deleted += len(result.decision.deleted)
        total += len(result.tokens)
    return released, changed, deleted, total


def _largest_passing(values: Sequence[float], measure: Callable[[float], dict]) -> int:
    """The index of the largest passing value by bisection (-1: none passes); the highest is tried first, the
    lowest only when nothing above passes."""
    lo, hi = -1, len(values) - 1
    if measure(values[hi])["passes"]:
        lo = hi
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if measure(values[middle])["passes"]:
            lo = middle
        else:
            hi = middle
    return lo


def _measurements(tried: dict[float, dict], baseline: float, measured_baseline: float, target_ratio: float,
                  n: int, *, reached: bool, folds: int = 1) -> dict:
    return {"posts": n, "baseline_accuracy": baseline, "measured_baseline_accuracy": measured_baseline,
            "target_ratio": target_ratio, "reached": reached, "folds": folds,
            "tried": {value: tried[value] for value in sorted(tried, reverse=True)}}


# Validation posts de-identified per tried threshold: enough for a baseline of a few percent to be measured.
MAX_VALIDATION_POSTS = 600


def train_calibrated_model(posts: Sequence[Post], *, name: str, grid, tokenizer_settings, seed: int = 0,
                           max_validation_posts: int = MAX_VALIDATION_POSTS, folds: int = CALIBRATION_FOLDS,
                           progress: Progress | None = None, **training) -> LocationModel:
    """Train on 60% of ``posts`` (user-disjoint when users are known), then calibrate the threshold on a seeded
    sample of the other 40% against a character n-gram attacker and a Complement NB attacker fitted on the same
    60%, the bound holding pooled and on each of ``folds`` user-disjoint folds. The model's metadata keeps the
    calibration's measurements."""
    report = progress or (lambda done, total, message: None)
    model = train_location_model(posts, name=name, grid=grid, tokenizer_settings=tokenizer_settings, seed=seed,
                                 progress=lambda done, total, message: report(int(0.6 * done), 100, message),
                                 **training)
    split = model.metadata["split"]
    train, test, _ = split_train_test(len(posts), users=[p.user for p in posts], test_size=split["test_size"],
                                      seed=split["seed"])
    if not len(test):
        return model
    if len(test) > max_validation_posts:
        test = np.sort(np.random.default_rng(seed).choice(test, size=max_validation_posts, replace=False))
    report(60, 100, "calibrating the threshold: fitting the attackers")
    train_posts = [posts[i] for i in train]
    cells = np.array([grid.cell_of(p.lat, p.lon) if p.cell is None else p.cell for p in train_posts], dtype=np.int64)
    texts = [p.text for p in train_posts]
    attackers = [CharNgramAttacker(grid.n_cells).fit(texts, cells),
                 ComplementNBAttacker(grid.n_cells).fit(texts, cells)]
    # Calibration only ever makes the threshold stricter than the paper's rule (0.37, or relative): a weak
    # validation attacker must not buy a laxer one.
    threshold, measured = calibrate_against_attacker(
        model, [posts[i] for i in test], attackers, highest=model.threshold.value, folds=folds,
        progress=lambda done, total, message: report(65 + int(35 * done / max(total, 1)), 100, message))
    calibrated = model.with_threshold(threshold)
    calibrated.metadata["calibration"] = {**measured, "tried": {str(k): v for k, v in measured["tried"].items()}}
    report(100, 100, "calibrated")
    return calibrated
