"""Matrix factorization and its baselines (mf.py), the rating container (ratings.py), the LDP trainer learning at
scale (ldp.py) and the cross-validation runner (experiment.py), on synthetic data and on the real check-ins."""

from __future__ import annotations

import numpy as np
import pytest

from anonymizer.preferences.checkins import read_foursquare
from anonymizer.preferences.experiment import (
    MethodSettings,
    SweepConfig,
    confusion,
    cross_validate,
    hide_ratings,
    metrics,
    run_sweeps,
    with_population,
)
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule
from anonymizer.preferences.ldp import LaplaceMF, LDPMatrixFactorization
from anonymizer.preferences.mf import ItemMean, MatrixFactorization, UserMean, fit_user_profiles, init_factors
from anonymizer.preferences.ratings import Ratings
from tests.helpers import shared_data
from tests.preferences.synthetic import checkins, planted_ratings


def unobserved_accuracy(model, ratings: Ratings, truth: np.ndarray) -> float:
    user, item = np.nonzero(np.isnan(ratings.to_dense()))
    return float(np.mean(model.predict(user, item) == truth[user, item]))


def test_ratings_round_trip_sort_and_refuse_duplicates():
    dense = np.array([[1.0, np.nan, 0.0], [np.nan, np.nan, 1.0]])
    ratings = Ratings.from_dense(dense)
    np.testing.assert_array_equal(ratings.to_dense(), dense)
    shuffled = Ratings(np.array([1, 0, 0]), np.array([2, 2, 0]), np.array([1.0, 0.0, 1.0]), 2, 3)
    np.testing.assert_array_equal(shuffled.key, ratings.key)
    np.testing.assert_array_equal(shuffled.per_user(), [2, 1])
    with pytest.raises(ValueError, match="twice"):
        Ratings(np.array([0, 0]), np.array([1, 1]), np.array([1.0, 0.0]), 1, 2)
    with pytest.raises(ValueError, match="outside"):
        Ratings(np.array([0]), np.array([3]), np.array([1.0]), 1, 3)


def test_resampled_users_are_copies_of_drawn_users():
    ratings, _ = planted_ratings(20, 8, seed=3)
    big = ratings.resample_users(500, np.random.default_rng(0))
    assert big.n_users == 500 and big.n_items == 8
    dense, source = big.to_dense(), ratings.to_dense()
    for row in dense[:50]:
        assert any(np.array_equal(row, s, equal_nan=True) for s in source)


def test_mf_recovers_a_planted_low_rank_matrix():
    ratings, truth = planted_ratings(400, 30, rank=2, density=0.5, seed=4)
    mf = MatrixFactorization(rank=2, epochs=300, seed=0).fit(ratings)
    item_mean = ItemMean().fit(ratings)
    mf_accuracy = unobserved_accuracy(mf, ratings, truth)
    assert mf_accuracy > 0.85
    assert mf_accuracy > unobserved_accuracy(item_mean, ratings, truth) + 0.1
    # Training is deterministic for a seed.
    again = MatrixFactorization(rank=2, epochs=300, seed=0).fit(ratings)
    np.testing.assert_array_equal(mf.item_factors_, again.item_factors_)


def test_baselines_predict_their_means():
    ratings = Ratings.from_dense(np.array([[1.0, 0.0, np.nan], [1.0, np.nan, np.nan], [0.0, 0.0, 1.0]]))
    item_mean = ItemMean().fit(ratings)
    np.testing.assert_allclose(item_mean.item_means_, [2 / 3, 0.0, 1.0])
    np.testing.assert_array_equal(item_mean.predict(np.zeros(3, int), np.arange(3)), [1, 0, 1])
    user_mean = UserMean().fit(ratings)
    np.testing.assert_allclose(user_mean.user_means_, [0.5, 1.0, 1 / 3])


def test_user_profiles_are_each_users_ridge_solution():
    ratings, _ = planted_ratings(30, 12, seed=5)
    _, items = init_factors(ratings, 3, True, 0.5, np.random.default_rng(0))
    users = fit_user_profiles(ratings, items, rank=3, regularization=0.1)
    dense = ratings.to_dense()
    for i in range(5):
        rated = ~np.isnan(dense[i])
        x = items[rated][:, :4]
        target = dense[i, rated] - items[rated, 4]
        w = np.linalg.solve(x.T @ x / rated.sum() + 0.1 * np.eye(4), x.T @ target / rated.sum())
        np.testing.assert_allclose(users[i, :4], w, rtol=1e-9, atol=1e-12)
        assert users[i, 4] == 1.0


def test_ldp_mf_learns_item_structure_with_many_users_and_gates_noise_with_few():
    """With 20,000 users at epsilon = 10 the bounded mechanism learns what a user alone cannot; with 200 the
    noise gate keeps every round's noise out of V, so it predicts like each user's own mean."""
    ratings, truth = planted_ratings(20_000, 20, rank=2, density=0.3, seed=6, item_bias=1.5)
    ldp = LDPMatrixFactorization(rank=2, epsilon=10.0, seed=0).fit(ratings)
    user_mean = UserMean().fit(ratings)
    assert unobserved_accuracy(ldp, ratings, truth) > unobserved_accuracy(user_mean, ratings, truth) + 0.1
    np.testing.assert_allclose(ldp.accountant_.spent(), 10.0)
    few, _ = planted_ratings(200, 20, rank=2, density=0.3, seed=6, item_bias=1.5)
    start = LDPMatrixFactorization(rank=2, epsilon=10.0, seed=0, noise_gate=False).fit(few)
    gated = LDPMatrixFactorization(rank=2, epsilon=10.0, seed=0).fit(few)
    free = [0, 1, 3]  # the factors and the item bias (column 2 is the constant 1)
    assert np.abs(gated.item_factors_[:, free]).max() < 0.5 < np.abs(start.item_factors_[:, free]).max()


def test_partitioned_ldp_mf_learns_factors_that_one_round_cannot():
    """30,000 users at epsilon 2 send one report each. In one round of all of them V takes a single step from its
    random start: the item biases, no factors, so it predicts little better than each user's own mean. Split into
    a bias group and 20 factor groups (the default for this many users), the same reports give 21 steps and the
    planted rank-2 structure is learned - with each user's epsilon still exactly 2."""
    ratings, truth = planted_ratings(30_000, 10, rank=2, density=0.5, seed=0)
    partitioned = LDPMatrixFactorization(rank=2, epsilon=2.0, seed=0).fit(ratings)
    single = LDPMatrixFactorization(rank=2, epsilon=2.0, seed=0, groups=0).fit(ratings)
    assert partitioned.groups_ == 20 and partitioned.factor_steps_ == 20 and single.groups_ == 0
    user_mean = unobserved_accuracy(UserMean().fit(ratings), ratings, truth)
    assert unobserved_accuracy(single, ratings, truth) < user_mean + 0.1
    assert unobserved_accuracy(partitioned, ratings, truth) > unobserved_accuracy(single, ratings, truth) + 0.15
    for model in (partitioned, single):
        np.testing.assert_array_equal(model.accountant_.reports(), 1)
        np.testing.assert_allclose(model.accountant_.spent(), 2.0, rtol=1e-12)


def test_partitioned_factor_rounds_are_gated_together_with_few_users():
    """Forced onto 300 users, the factor rounds carry nothing but noise: their joint gate puts the factors back
    where they started (without the gate they wander off)."""
    ratings, _ = planted_ratings(300, 20, rank=2, density=0.3, seed=6, item_bias=1.5)
    gated = LDPMatrixFactorization(rank=2, epsilon=2.0, groups=10, seed=0).fit(ratings)
    free = LDPMatrixFactorization(rank=2, epsilon=2.0, groups=10, seed=0, noise_gate=False).fit(ratings)
    start = init_factors(ratings, 2, True, 0.1, np.random.default_rng(0))[1]
    assert gated.factor_steps_ == 0
    np.testing.assert_array_equal(gated.item_factors_[:, :2], start[:, :2])
    assert np.abs(free.item_factors_[:, :2] - start[:, :2]).max() > 0.3


def test_laplace_mf_runs_in_user_chunks_with_the_same_result():
    ratings, _ = planted_ratings(50, 10, seed=7)
    one = LaplaceMF(rank=2, epsilon_entry=0.5, rounds=2, chunk_users=50, seed=1).fit(ratings)
    assert np.isfinite(one.item_factors_).all()
    np.testing.assert_allclose(one.accountant_.spent(), 2 * 10 * (0.5 + 3 * 0.5))


def test_hide_ratings_hides_the_documented_share_of_test_users_only():
    ratings, _ = planted_ratings(40, 20, density=0.4, seed=8)
    test_users = np.arange(10)
    for share in (0.1, 0.5, 0.9):
        hidden = hide_ratings(ratings, test_users, share, np.random.default_rng(0))
        per_user_hidden = np.bincount(ratings.user[hidden], minlength=40)
        counts = ratings.per_user()
        expected = np.clip(np.rint(share * counts), 1, counts - 1)
        np.testing.assert_array_equal(per_user_hidden[:10], expected[:10])
        assert per_user_hidden[10:].sum() == 0


def test_metrics_follow_their_definitions():
    counts = confusion(np.array([1, 1, 1, 0, 0, 0, 0]), np.array([1, 1, 0, 1, 0, 0, 0]))
    assert counts == {"tp": 2, "fp": 1, "tn": 3, "fn": 1}
    assert metrics(counts) == pytest.approx({"fpr": 1 / 4, "recall": 2 / 3, "reconstruction": 5 / 7})
    assert np.isnan(metrics({"tp": 1, "fp": 0, "tn": 0, "fn": 0})["fpr"])


def test_cross_validation_rows_on_a_synthetic_set():
    ratings, _ = planted_ratings(60, 15, density=0.5, seed=9)
    seen = []
    rows = cross_validate(ratings, ["item-mean", "user-mean", "mf", "ldp-mf", "ldp-laplace"],
                          MethodSettings(mf_epochs=50, epsilon=2.0, laplace_epsilon_entry=0.1, laplace_rounds=2),
                          folds=5, hidden_share=0.3, repeats=2, progress=lambda done, total, _: seen.append(
                              (done, total)))
    assert [r["method"] for r in rows] == ["item-mean", "user-mean", "mf", "ldp-mf", "ldp-laplace"]
    hidden = sum(np.clip(np.rint(0.3 * n), 1, n - 1) for n in ratings.per_user())
    for row in rows:
        assert row["tp"] + row["fp"] + row["tn"] + row["fn"] == 2 * hidden
        assert 0 <= row["reconstruction"] <= 1
    assert rows[3]["epsilon_user_max"] == pytest.approx(2.0)
    assert rows[4]["epsilon_user_max"] == pytest.approx(2 * 15 * (0.1 + 4 * 0.1))
    assert "epsilon_user_max" not in rows[2]
    assert seen[-1] == (50, 50)


def test_a_simulated_population_keeps_the_test_users_known_ratings():
    ratings, _ = planted_ratings(30, 10, seed=10)
    test_users = np.array([3, 7])
    population, index = with_population(ratings, test_users, 200, np.random.default_rng(0))
    assert population.n_users == 202
    np.testing.assert_array_equal(index[test_users], [200, 201])
    np.testing.assert_array_equal(population.to_dense()[200], ratings.to_dense()[3])
    rows = cross_validate(ratings, ["mf", "ldp-mf"], MethodSettings(mf_epochs=20), folds=3, population=500)
    assert len(rows) == 2


def random_checkins(n_users=30, per_user=80, seed=11):
    rng = np.random.default_rng(seed)
    categories = ("Bar", "Home (private)", "Office", "Park")
    roots = ("Nightlife Spot", "Residence", "Professional & Other Places", "Outdoors & Recreation")
    rows = []
    for user in range(n_users):
        for _ in range(per_user):
            category = int(rng.integers(4))
            rows.append((user, int(rng.integers(7)), int(rng.integers(1440)), category, category,
                         40.7 + rng.random() / 10, -74 + rng.random() / 10, user * 10 + int(rng.integers(10))))
    return checkins(rows, categories, roots)


def test_run_sweeps_on_small_synthetic_check_ins():
    config = SweepConfig(slot_hours=(6, 12), epsilons=(0.5, 2.0), hidden_shares=(0.2, 0.5), folds=3,
                         methods=("item-mean", "mf", "ldp-mf", "ldp-laplace"),
                         settings=MethodSettings(mf_epochs=30, laplace_rounds=2))
    rows = run_sweeps(random_checkins(), config)
    assert len(rows) == 6 * 4
    assert {(r["sweep"], r["value"]) for r in rows} == {("slot_hours", 6), ("slot_hours", 12), ("epsilon", 0.5),
                                                        ("epsilon", 2.0), ("hidden_share", 0.2),
                                                        ("hidden_share", 0.5)}
    by = {(r["sweep"], r["value"], r["method"]): r for r in rows}
    assert by[("slot_hours", 12, "mf")]["n_items"] == 2 * 4
    assert by[("epsilon", 2.0, "ldp-mf")]["epsilon_user_max"] == pytest.approx(2.0)
    # In the epsilon sweep the per-entry mechanism reads epsilon per entry: rounds x items x (eps + D eps).
    assert by[("epsilon", 0.5, "ldp-laplace")]["epsilon_user_max"] == pytest.approx(2 * 16 * 0.5 * 5)


def test_mf_beats_the_item_mean_on_the_foursquare_check_ins():
    data = read_foursquare(shared_data("ldp/mat_foursquare_nyc/original.zip"))
    items = ItemSpace(slot_hours=6).fit(data)
    ratings = ProxyLabelRule().ratings(data, items)
    hidden_share = 1 - ratings.value.mean()
    assert 0.2 < hidden_share < 0.45  # the proxy hides a plausible share, varying per user
    per_user = np.bincount(ratings.user, weights=1 - ratings.value) / ratings.per_user()
    assert np.quantile(per_user, 0.9) - np.quantile(per_user, 0.1) > 0.2
    rows = {r["method"]: r for r in cross_validate(ratings, ["item-mean", "mf"], folds=10, hidden_share=0.1)}
    assert rows["mf"]["reconstruction"] > rows["item-mean"]["reconstruction"] + 0.02
    assert rows["mf"]["fpr"] < rows["item-mean"]["fpr"]
