"""The local randomizers match their definitions, the server's estimates are unbiased, and the accountant's
epsilon adds up as documented (anonymizer/preferences/ldp.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from anonymizer.preferences.ldp import (
    BudgetExceeded,
    LaplaceMF,
    LDPMatrixFactorization,
    Mulberry32,
    PrivacyAccountant,
    auto_groups,
    auto_rounds,
    client_report,
    debias_rr,
    laplace_noise,
    mean_clipped_gradient,
    one_bit,
    one_bit_bound,
    perturb_report,
    randomized_response,
    rr_flip_probability,
)
from anonymizer.preferences.mf import fit_user_profiles, init_factors
from tests.preferences.synthetic import planted_ratings

DRAWS = 200_000
ALPHA = 1e-3  # a chi-square p-value below this fails the test (fixed seeds: the outcome is reproducible)


# Reference outputs of the JavaScript mulberry32 (node, see Mulberry32's docstring): the browser port must match.
MULBERRY32_JS = {
    0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197, 0.1462021479383111, 0.46732782293111086],
    1: [0.6270739405881613, 0.002735721180215478, 0.5274470399599522, 0.9810509674716741, 0.9683778982143849],
    42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693, 0.17481389874592423],
    4294967295: [0.8964226141106337, 0.189478256739676, 0.7156526781618595, 0.9440599093213677,
                 0.8452364315744489],
}


@pytest.mark.parametrize("seed", sorted(MULBERRY32_JS))
def test_mulberry32_matches_the_javascript_stream(seed):
    prng = Mulberry32(seed)
    assert [prng.uniform() for _ in range(5)] == MULBERRY32_JS[seed]


def test_mulberry32_uniform_is_uniform():
    prng = Mulberry32(7)
    draws = np.array([prng() for _ in range(50_000)])
    assert draws.min() >= 0 and draws.max() < 1
    counts = np.histogram(draws, bins=20, range=(0, 1))[0]
    assert stats.chisquare(counts).pvalue > ALPHA


def one_bit_plus_probability(x: float, epsilon: float) -> float:
    """The definition: P(+B) = 1/2 + x (e^eps - 1) / (2 (e^eps + 1))."""
    return 0.5 + x * (math.exp(epsilon) - 1) / (2 * (math.exp(epsilon) + 1))


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_one_bit_bound_and_probabilities_are_as_defined(epsilon):
    bound = one_bit_bound(epsilon)
    assert bound == pytest.approx((math.exp(epsilon) + 1) / (math.exp(epsilon) - 1), rel=1e-12)
    xs = np.linspace(-1, 1, 41)
    plus = np.array([one_bit_plus_probability(x, epsilon) for x in xs])
    # Each report is unbiased: B P(+) - B (1 - P(+)) = x.
    np.testing.assert_allclose(bound * plus - bound * (1 - plus), xs, atol=1e-12)
    # epsilon-LDP: for any two inputs, both outputs' probability ratio is at most e^eps, reached at x = +-1.
    minus = 1 - plus
    ratios = np.concatenate([(plus[:, None] / plus[None, :]).ravel(), (minus[:, None] / minus[None, :]).ravel()])
    assert ratios.max() <= math.exp(epsilon) * (1 + 1e-12)
    assert ratios.max() == pytest.approx(math.exp(epsilon), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("x", [-1.0, -0.3, 0.0, 0.7, 1.0])
def test_one_bit_mechanism_matches_its_distribution(x, epsilon):
    rng = np.random.default_rng(11)
    reports = one_bit(np.full(DRAWS, x), epsilon, rng.random(DRAWS))
    bound = one_bit_bound(epsilon)
    assert set(np.unique(reports)) <= {bound, -bound}
    p = one_bit_plus_probability(x, epsilon)
    observed = [np.sum(reports > 0), np.sum(reports < 0)]
    assert stats.chisquare(observed, [DRAWS * p, DRAWS * (1 - p)]).pvalue > ALPHA
    # De-biased: the mean report is x within 4 standard errors (variance B^2 - x^2).
    assert abs(reports.mean() - x) < 4 * math.sqrt((bound**2 - x**2) / DRAWS)


def test_one_bit_clips_inputs_outside_the_unit_interval():
    uniforms = np.linspace(0, 1, 1000, endpoint=False)
    np.testing.assert_array_equal(one_bit(np.full(1000, 5.0), 1.0, uniforms), one_bit(np.ones(1000), 1.0, uniforms))


def test_scalar_client_side_equals_the_vectorized_mechanism_on_one_stream():
    values = np.random.default_rng(3).uniform(-1.5, 1.5, 500)
    stream = Mulberry32(2024)
    scalar = [perturb_report(float(v), 0.8, stream) for v in values]
    uniforms = Mulberry32(2024)
    vectorized = one_bit(values, 0.8, np.array([uniforms() for _ in values]))
    np.testing.assert_array_equal(scalar, vectorized)


def test_client_report_draws_the_index_uniformly_and_first():
    gradient = [0.5, -0.25, 0.0, 1.0, -1.0]
    prng = Mulberry32(99)
    indices = [client_report(gradient, 1.0, prng)[0] for _ in range(50_000)]
    assert stats.chisquare(np.bincount(indices, minlength=5)).pvalue > ALPHA
    # One uniform for the index, one for the value, in that order.
    a, b = Mulberry32(5), Mulberry32(5)
    index, value = client_report(gradient, 1.0, a)
    first = b()
    assert index == int(first * 5)
    assert value == perturb_report(gradient[index], 1.0, b)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("bit", [0, 1])
def test_randomized_response_matches_its_definition(bit, epsilon):
    rng = np.random.default_rng(12)
    reported = randomized_response(np.full(DRAWS, bit), epsilon, rng)
    p = rr_flip_probability(epsilon)
    p_one = 1 - p / 2 if bit else p / 2  # paper eq. 8: keep with 1 - p, else a fair coin
    observed = [np.sum(reported == 1), np.sum(reported == 0)]
    assert stats.chisquare(observed, [DRAWS * p_one, DRAWS * (1 - p_one)]).pvalue > ALPHA
    # epsilon-LDP exactly: P(1 | 1) / P(1 | 0) = e^eps.
    assert (1 - p / 2) / (p / 2) == pytest.approx(math.exp(epsilon), rel=1e-12)
    debiased = debias_rr(reported, epsilon)
    assert abs(debiased.mean() - bit) < 4 * debiased.std() / math.sqrt(DRAWS)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_laplace_noise_matches_its_distribution(epsilon):
    noise = laplace_noise(DRAWS, epsilon, 2.0, np.random.default_rng(13))
    edges = stats.laplace.ppf(np.linspace(0, 1, 21), scale=2.0 / epsilon)
    counts = np.histogram(noise, bins=edges)[0]
    assert stats.chisquare(counts).pvalue > ALPHA


def _state(n_users=300, n_items=8, rank=2, seed=0):
    ratings, _ = planted_ratings(n_users, n_items, rank=rank, density=0.4, seed=seed)
    rng = np.random.default_rng(seed)
    _, items = init_factors(ratings, rank, True, 0.5, rng)
    users = fit_user_profiles(ratings, items, rank, 0.05)
    return ratings, users, items


@pytest.mark.parametrize(("projection", "clip", "columns"), [(None, 0.5, None), (4, 5.0, None), (None, 0.1, [0, 1]),
                                                             (None, 0.7, [3])])
def test_bounded_mechanism_estimate_is_unbiased(projection, clip, columns):
    """Without projection for any clip; with projection where no projected coordinate needs a second clip
    (a large clip keeps every user's projected values inside [-1, 1]), over the draws of the projection; and for
    the column subsets a partitioned round reports (the factors, the item bias), at their own clip."""
    ratings, users, items = _state()
    model = LDPMatrixFactorization(rank=2, epsilon=2.0, rounds=1, clip=clip, projection=projection, noise_gate=False)
    truth = mean_clipped_gradient(ratings, users, items, rank=2, clip=clip)  # columns: factors 0, 1, item bias 3
    if columns is not None:
        truth = truth[:, [[0, 1, 3].index(c) for c in columns]]
    rng = np.random.default_rng(14)
    samples = np.array([model.aggregate(ratings, *model.reports(ratings, users, items, rng, columns=columns),
                                        columns=columns) for _ in range(3000)])
    assert samples.shape[1:] == truth.shape
    z = (samples.mean(axis=0) - truth) / (samples.std(axis=0) / math.sqrt(len(samples)))
    assert np.abs(z).max() < 4.5  # up to 32 coordinates
    assert 0.5 < np.mean(z**2) < 2.0
    if projection is None:
        # The closed-form noise variance the gates use is the estimate's variance (every report is +-B; the
        # signal's share of it is below 1 / (coordinates x B^2)).
        expected = model.noise_variance(ratings.n_users, ratings.n_items, columns)
        assert np.mean(samples.var(axis=0)) == pytest.approx(expected, rel=0.15)


def test_per_entry_mechanism_estimate_is_unbiased():
    ratings, users, items = _state(n_users=200, n_items=6)
    model = LaplaceMF(rank=2, epsilon_entry=1.0, epsilon_rr=1.0, clip=0.5, noise_gate=False)
    truth = mean_clipped_gradient(ratings, users, items, rank=2, clip=0.5)
    rng = np.random.default_rng(15)
    samples = np.array([model.round_gradient(ratings, users, items, rng) for _ in range(1500)])
    z = (samples.mean(axis=0) - truth) / (samples.std(axis=0) / math.sqrt(len(samples)))
    assert np.abs(z).max() < 4.5
    assert 0.5 < np.mean(z**2) < 2.0


def test_bounded_reports_are_one_coordinate_of_plus_minus_b_per_user():
    ratings, users, items = _state()
    model = LDPMatrixFactorization(rank=2, epsilon=1.0, rounds=4)
    index, report, phi = model.reports(ratings, users, items, np.random.default_rng(0))
    assert phi is None and index.shape == report.shape == (ratings.n_users,)
    assert 0 <= index.min() and index.max() < ratings.n_items * 3
    np.testing.assert_allclose(np.abs(report), one_bit_bound(0.25))


@pytest.mark.parametrize("groups", [None, 0, 3])
@pytest.mark.parametrize(("epsilon", "rounds"), [(1.0, None), (3.0, 7), (0.1, 3), (10.0, None)])
def test_bounded_mechanism_spends_exactly_the_chosen_epsilon(epsilon, rounds, groups):
    ratings, _ = planted_ratings(50, 10, seed=1)
    model = LDPMatrixFactorization(rank=2, epsilon=epsilon, rounds=rounds, groups=groups).fit(ratings)
    spent = model.accountant_.spent()
    expected_rounds = rounds if rounds is not None else auto_rounds(epsilon)
    assert model.groups_ == (groups or 0)  # auto: no partitioning for 50 users
    np.testing.assert_array_equal(model.accountant_.reports(), expected_rounds)
    np.testing.assert_allclose(spent, epsilon, rtol=1e-12)
    assert np.all(spent <= epsilon * (1 + 1e-12))


def test_partitioned_rounds_charge_each_user_once_per_pass():
    """With groups, each pass is 1 + groups rounds on disjoint groups that cover every user: per pass each
    user sends exactly one report of epsilon / rounds, so the accountant shows epsilon for everyone."""
    ratings, _ = planted_ratings(101, 10, seed=2)
    model = LDPMatrixFactorization(rank=2, epsilon=4.0, rounds=2, groups=4, bias_share=0.3).fit(ratings)
    charges = model.accountant_.charges()
    assert len(charges) == 2 * (1 + 4)
    for epsilon, _ in charges:
        assert epsilon == pytest.approx(2.0)
    for start in (0, 5):
        counts = np.array([c for _, c in charges[start:start + 5]])
        assert set(np.unique(counts)) == {0, 1}
        np.testing.assert_array_equal(counts.sum(axis=0), 1)  # disjoint groups, every user in one
        assert counts[0].sum() == round(0.3 * 101)  # the bias group
        assert counts[1:].sum(axis=1).max() - counts[1:].sum(axis=1).min() <= 1  # balanced factor groups
    assert not np.array_equal(charges[0][1], charges[5][1])  # a fresh split each pass
    np.testing.assert_array_equal(model.accountant_.reports(), 2)
    np.testing.assert_allclose(model.accountant_.spent(), 4.0, rtol=1e-12)


def test_partitioned_trainer_never_charges_past_the_budget():
    """The trainer's accountant carries the budget: a schedule that charged any user twice in a pass would raise."""
    ratings, _ = planted_ratings(40, 6, seed=3)
    model = LDPMatrixFactorization(rank=2, epsilon=1.0, groups=5).fit(ratings)
    assert model.accountant_.budget == 1.0
    with pytest.raises(BudgetExceeded):
        model.accountant_.charge(1e-6, users=np.array([0]))


def test_auto_groups_partition_only_large_populations():
    # 40 items x rank 3 at epsilon 2 (B^2 = 1.716): 8 x 120 x 1.716 = 1,647 users per factor group.
    assert auto_groups(193, 120, 2.0) == 0
    assert auto_groups(193, 120, 20.0) == 0
    assert auto_groups(11_000, 120, 2.0) == 0  # 4 groups: below the minimum of 5
    assert auto_groups(12_000, 120, 2.0) == 5
    assert auto_groups(50_000, 120, 2.0) == 20
    assert auto_groups(10**7, 120, 2.0) == 20  # at most 20
    assert auto_groups(50_000, 120, 1.0) == 7  # B^2 = 4.67: fewer, larger groups at a smaller epsilon
    assert auto_groups(50_000, 1200, 2.0) == 0  # ten times the coordinates: ten times the users per group


def test_auto_rounds_spend_about_two_per_round():
    assert [auto_rounds(e) for e in (0.1, 1.0, 2.0, 5.0, 10.0, 1000.0)] == [1, 1, 1, 2, 5, 20]


def test_per_entry_mechanism_cost_multiplies_as_documented():
    ratings, _ = planted_ratings(30, 40, seed=2)
    model = LaplaceMF(rank=3, epsilon_entry=0.01, epsilon_rr=0.02, rounds=3).fit(ratings)
    # rounds x n_items x (eps_rr + D eps_entry), D = rank + item bias = 4.
    expected = 3 * 40 * (0.02 + 4 * 0.01)
    assert model.epsilon_total(40) == pytest.approx(expected)
    np.testing.assert_allclose(model.accountant_.spent(), expected, rtol=1e-12)
    np.testing.assert_array_equal(model.accountant_.reports(), 3 * 40 * (1 + 4))


def test_accountant_adds_up_and_enforces_the_budget():
    accountant = PrivacyAccountant(4, budget=1.0)
    for _ in range(10):
        accountant.charge(0.1)
    np.testing.assert_allclose(accountant.spent(), 1.0)
    with pytest.raises(BudgetExceeded):
        accountant.charge(0.1, users=np.array([2]))
    np.testing.assert_allclose(accountant.spent(), 1.0)  # the refused charge is not recorded
    open_ended = PrivacyAccountant(3)
    open_ended.charge(0.5, count=np.array([2, 1]), users=np.array([0, 2]))
    open_ended.charge(0.25)
    np.testing.assert_allclose(open_ended.spent(), [1.25, 0.25, 0.75])
    np.testing.assert_array_equal(open_ended.reports(), [3, 1, 2])
