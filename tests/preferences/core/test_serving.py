"""The reference of the browser's side (anonymizer.preferences.serving) agrees with the core: the profile a
person fits is the trainer's on-device profile, the gradient is the trainer's clipped gradient, and the server's
aggregation of stored reports estimates the contributors' mean gradient without bias."""

from __future__ import annotations

import numpy as np
import pytest

from anonymizer.preferences import serving
from anonymizer.preferences.ldp import Mulberry32, mean_clipped_gradient, one_bit_bound
from anonymizer.preferences.mf import fit_user_profiles
from anonymizer.preferences.ratings import Ratings


def full_items(model: serving.PreferenceArtifact) -> np.ndarray:
    """The core's V layout: factors, the constant 1, the item bias."""
    return np.hstack([model.factors, np.ones((model.n_items, 1)), model.biases[:, None]])


@pytest.mark.parametrize("size", [1, 5, 30])
def test_the_profile_and_gradient_are_the_trainers(default_artifact, size):
    rng = np.random.default_rng(size)
    items = rng.choice(default_artifact.n_items, size, replace=False)
    ratings = {int(j): int(rng.random() < 0.6) for j in items}
    as_core = Ratings(np.zeros(size, int), np.array(list(ratings)), np.array(list(ratings.values()), float), 1,
                      default_artifact.n_items)
    users = fit_user_profiles(as_core, full_items(default_artifact), default_artifact.rank,
                              default_artifact.regularization)
    profile = serving.fit_profile(default_artifact, ratings)
    assert profile == pytest.approx(users[0, :-1], abs=1e-10)
    expected = mean_clipped_gradient(as_core, users, full_items(default_artifact), default_artifact.rank)
    assert serving.gradient(default_artifact, profile, ratings) == pytest.approx(expected.ravel(), abs=1e-10)


def test_the_aggregated_reports_estimate_the_mean_gradient(default_artifact):
    rng = np.random.default_rng(0)
    people = []
    for _ in range(3):
        items = rng.choice(default_artifact.n_items, 20, replace=False)
        ratings = {int(j): int(rng.random() < 0.5) for j in items}
        people.append(serving.gradient(default_artifact, serving.fit_profile(default_artifact, ratings), ratings))
    truth = np.mean(people, axis=0)
    contributions = []
    for k in range(30_000):  # 10,000 contributions per person, 2 reports each, epsilon 8 in all
        reports = serving.contribution_reports(people[k % 3], 8.0, 2, Mulberry32(k))
        contributions.append([(r["index"], r["value"], r["epsilon"]) for r in reports])
    updated = serving.aggregate_reports(default_artifact, contributions, learning_rate=1.0, noise_gate=False)
    before, after = full_items(default_artifact)[:, [0, 1, 2, 4]], full_items(updated)[:, [0, 1, 2, 4]]
    estimate = (before - after) - default_artifact.regularization * before
    # n x (a sum of 60,000 reports, each +-B on coordinate k with probability 1/n) / 60,000: the standard error
    # of a coordinate is about sqrt(n B^2 / 60,000) (0.093 here).
    n = default_artifact.n_coordinates
    error = (estimate.ravel() - truth) / np.sqrt(n * one_bit_bound(4.0) ** 2 / 60_000)
    assert abs(error.mean()) < 0.1 and 0.85 < error.std() < 1.15
    assert updated.training["aggregated"]["contributions"] == 30_000
