"""Held-out evaluation of a location classifier: the paper's accuracy and majority baseline, plus top-5
accuracy, error distances and a reliability (calibration) summary."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.model_selection import GroupShuffleSplit, ShuffleSplit

from anonymizer.platform.grid import Grid, haversine_km

RELIABILITY_BINS = 10


def split_train_test(n: int, *, users: Sequence[str | None] | None = None, test_size: float = 0.4,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray, bool]:
    """Indices of a train/test split (the paper: 60/40); user-disjoint when every post has a user, so the
    model is never tested on the people it learnt from. Returns (train, test, user_disjoint)."""
    indices = np.arange(n)
    if test_size == 0:
        return indices, indices[:0], False
    if users is not None and len(users) == n and all(users) and len(set(users)) > 1:
        splitter = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
        train, test = next(splitter.split(indices, groups=np.asarray(users)))
        return np.sort(train), np.sort(test), True
    train, test = next(ShuffleSplit(n_splits=1, test_size=test_size, random_state=seed).split(indices))
    return np.sort(train), np.sort(test), False


def evaluate_predictions(probabilities: np.ndarray, classes: np.ndarray, true_cells: np.ndarray,
                         lats: np.ndarray, lons: np.ndarray, grid: Grid, majority_cell: int) -> dict:
    """Scores of class probabilities (n_posts x n_classes over ``classes``) against the true cells.

    Error distance: from the post's true point to the centre of the predicted cell.
    """
    true_cells = np.asarray(true_cells)
    top = np.argmax(probabilities, axis=1)
    predicted = classes[top]
    top5 = classes[np.argsort(-probabilities, axis=1)[:, :5]]
    centers = grid.centers()
    errors = haversine_km(np.asarray(lats), np.asarray(lons), centers[predicted, 0], centers[predicted, 1])
    confidence = probabilities[np.arange(len(top)), top]
    correct = predicted == true_cells
    accuracy = float(correct.mean())
    majority = float((true_cells == majority_cell).mean())
    return {
        "posts": len(true_cells),
        "accuracy": accuracy,
        "top5_accuracy": float((top5 == true_cells[:, None]).any(axis=1).mean()),
        "majority_baseline": majority,
        "lift": accuracy / majority if majority else None,
        "median_error_km": float(np.median(errors)),
        "mean_error_km": float(np.mean(errors)),
        "mean_top_probability": float(confidence.mean()),
        "reliability": reliability(confidence, correct),
    }


def reliability(confidence: np.ndarray, correct: np.ndarray, bins: int = RELIABILITY_BINS) -> dict:
    """Reliability diagram data: per confidence bin, how often the top cell was right; and the expected
    calibration error (the count-weighted gap between confidence and accuracy)."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1]), 0, bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        mask = which == b
        count = int(mask.sum())
        if not count:
            continue
        mean_confidence, accuracy = float(confidence[mask].mean()), float(correct[mask].mean())
        ece += count / len(confidence) * abs(mean_confidence - accuracy)
        rows.append({"from": float(edges[b]), "to": float(edges[b + 1]), "posts": count,
                     "mean_confidence": mean_confidence, "accuracy": accuracy})
    return {"bins": rows, "expected_calibration_error": ece}
