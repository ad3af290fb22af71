"""anonymizer.crowd.sequential: the stopping rule on hand-computed cases, the vectorized Wilson and label tables
against stats, and the simulation's savings, costs and reproducibility."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anonymizer.crowd.sequential import (
    CODE_LABELS,
    INFERABLE,
    NO_ANSWERS,
    NOT_INFERABLE,
    UNDECIDED,
    SimulationResult,
    StoppingRule,
    label_table,
    simulate,
    wilson_table,
)
from anonymizer.crowd.stats import Label, decide, wilson_interval

Z = 1.959963984540054  # the 97.5% normal quantile


def rule(min_judgments: int = 10, max_judgments: int = 100, **kwargs) -> StoppingRule:
    return StoppingRule(cutoff=0.10, min_judgments=min_judgments, max_judgments=max_judgments, **kwargs)


# --- the rule, by hand ------------------------------------------------------------------------------------------


def test_zero_yes_needs_35_answers_to_be_not_inferable():
    # 0 of n: the Wilson upper bound is z^2 / (n + z^2), below 0.10 once n > 9 z^2 = 34.57.
    assert 9 * Z**2 == pytest.approx(34.57, abs=0.01)
    assert decide(0, 34, 0.10) == Label.UNDECIDED
    assert decide(0, 35, 0.10) == Label.NOT_INFERABLE
    assert not rule(min_judgments=1).stops(0, 34)
    assert rule(min_judgments=1).stops(0, 35)


def test_two_of_two_yes_is_decided_but_min_judgments_holds_it_back():
    # 2 of 2: the lower bound is n / (n + z^2) = 2 / 5.84 = 0.342 >= 0.10.
    assert wilson_interval(2, 2).low == pytest.approx(2 / (2 + Z**2))
    assert decide(2, 2, 0.10) == Label.INFERABLE
    assert rule(min_judgments=1).stops(2, 2)
    assert rule(min_judgments=2).stops(2, 2)
    assert not rule(min_judgments=3).stops(2, 2)
    assert not rule(min_judgments=10).stops(2, 2)
    # Still decided once the floor is reached.
    assert rule(min_judgments=10).stops(6, 10)


def test_an_undecided_post_is_served_until_max():
    assert decide(10, 99, 0.10) == Label.UNDECIDED
    assert not rule(max_judgments=100).stops(10, 99)
    assert rule(max_judgments=100).stops(10, 100)
    assert rule(max_judgments=100).stops(10, 120)  # already past max (e.g. a raised limit lowered again)
    assert rule(min_judgments=5, max_judgments=5).stops(1, 5)


def test_confidence_is_passed_to_decide():
    # 0 of 35 decides at 95% but not at 99% (9 * 2.576^2 = 59.7 answers needed).
    assert rule(min_judgments=1).stops(0, 35)
    assert not rule(min_judgments=1, confidence=0.99).stops(0, 35)
    assert rule(min_judgments=1, confidence=0.99).stops(0, 60)


def test_stop_table_equals_stops():
    for r in (rule(min_judgments=1, max_judgments=25), rule(min_judgments=12, max_judgments=25)):
        table = r.stop_table()
        assert table.shape == (26, 26)
        for n in range(26):
            for yes in range(26):
                assert table[n, yes] == (yes <= n and r.stops(yes, n)), (r, yes, n)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"cutoff": -0.1, "min_judgments": 10, "max_judgments": 100}, "cutoff"),
    ({"cutoff": 1.5, "min_judgments": 10, "max_judgments": 100}, "cutoff"),
    ({"cutoff": 0.1, "min_judgments": 0, "max_judgments": 100}, "min_judgments"),
    ({"cutoff": 0.1, "min_judgments": 2.5, "max_judgments": 100}, "min_judgments"),
    ({"cutoff": 0.1, "min_judgments": True, "max_judgments": 100}, "min_judgments"),
    ({"cutoff": 0.1, "min_judgments": 50, "max_judgments": 40}, "max_judgments"),
    ({"cutoff": 0.1, "min_judgments": 10, "max_judgments": 100, "confidence": 1.0}, "confidence"),
    ({"cutoff": 0.1, "min_judgments": 10, "max_judgments": 100, "confidence": 0}, "confidence"),
])
def test_bad_rule_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        StoppingRule(**kwargs)


@pytest.mark.parametrize(("yes", "n"), [(-1, 5), (6, 5), (1, -1), (1.0, 5), (1, 5.0)])
def test_bad_counts_raise(yes, n):
    with pytest.raises(ValueError, match="0 <= yes <= n"):
        rule().stops(yes, n)


# --- the vectorized tables against stats ------------------------------------------------------------------------


@pytest.mark.parametrize(("yes", "n"), [(0, 1), (1, 1), (0, 35), (1, 10), (3, 10), (7, 40), (10, 100), (100, 100)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_table_equals_wilson_interval(yes, n, confidence):
    low, high = wilson_table(100, confidence)
    interval = wilson_interval(yes, n, confidence)
    # Bit-equal, not approximately: a bound landing exactly on the cut-off must compare the same way.
    assert (low[n, yes], high[n, yes]) == (interval.low, interval.high)


def test_wilson_table_has_no_interval_without_answers_or_above_n():
    low, high = wilson_table(5)
    assert low.shape == high.shape == (6, 6)
    assert np.isnan(low[0]).all() and np.isnan(high[0]).all()
    assert np.isnan(low[3, 4]) and not np.isnan(low[4, 3])
    with pytest.raises(ValueError, match="max_n"):
        wilson_table(-1)
    with pytest.raises(ValueError, match="confidence"):
        wilson_table(10, 1.5)


def test_label_table_equals_decide_for_every_count_up_to_100():
    codes = label_table(100, 0.10)
    assert codes[0, 0] == NO_ANSWERS
    seen = set()
    for n in range(1, 101):
        for yes in range(n + 1):
            assert CODE_LABELS[int(codes[n, yes])] == decide(yes, n, 0.10), (yes, n)
            seen.add(int(codes[n, yes]))
        assert (codes[n, n + 1:] == NO_ANSWERS).all()
    assert seen == {INFERABLE, NOT_INFERABLE, UNDECIDED}


@pytest.mark.parametrize(("cutoff", "confidence"), [(0.25, 0.9), (0.05, 0.99)])
def test_label_table_equals_decide_for_other_settings(cutoff, confidence):
    codes = label_table(60, cutoff, confidence)
    for n in range(1, 61, 6):
        for yes in range(n + 1):
            assert CODE_LABELS[int(codes[n, yes])] == decide(yes, n, cutoff, confidence), (yes, n)


# --- the simulation ---------------------------------------------------------------------------------------------


def test_clear_posts_save_judgments_and_are_labelled_right():
    result = simulate([0.0, 0.5], rule(min_judgments=10), repeats=500, seed=1)
    zero = result.select(result.true_rates == 0.0)
    half = result.select(result.true_rates == 0.5)
    assert (zero.judgments == 35).all()  # 0 of 35 is the first decided count
    assert (zero.codes == NOT_INFERABLE).all()
    assert half.judgments_per_post < 15
    assert (half.codes == INFERABLE).all()
    assert result.saved_share > 0.7
    assert result.sequential_error == 0 and result.fixed_error == 0 and result.disagreement == 0
    assert result.undecided_share == 0
    assert result.fixed_judgments == 1000 * 100
    assert result.sequential_judgments == int(result.judgments.sum())


def test_posts_at_the_cutoff_use_up_to_max():
    result = simulate([0.10], rule(min_judgments=10), repeats=500, seed=2)
    assert result.judgments.max() == 100
    assert result.judgments_per_post > 75
    assert result.undecided_share > 0.5
    # Undecided posts are exactly those that reached max without a decision.
    assert (result.judgments[~result.decided] == 100).all()
    assert result.labels.count(Label.UNDECIDED) == int((~result.decided).sum())


def test_every_stop_is_where_the_rule_first_says_stop():
    r = rule(min_judgments=5, max_judgments=60)
    result = simulate([0.03, 0.1, 0.2], r, fixed=80, repeats=8, seed=3)
    # Replay each post's stream: the same generator draws, one answer at a time, checked by stops().
    answers = np.random.default_rng(3).random((24, 80)) < np.repeat([0.03, 0.1, 0.2], 8)[:, None]
    for post in range(24):
        yes = 0
        for n in range(1, 81):
            yes += bool(answers[post, n - 1])
            if r.stops(yes, n):
                break
        assert (result.judgments[post], result.yes[post]) == (n, yes)
        assert result.labels[post] == decide(yes, n, 0.10)
        assert result.fixed_inferable[post] == (answers[post].sum() / 80 >= 0.10)


def test_shares_by_hand():
    r = rule(min_judgments=1, max_judgments=100)
    codes = np.array([INFERABLE, NOT_INFERABLE, UNDECIDED, INFERABLE], dtype=np.int8)
    result = SimulationResult(rule=r, fixed=100, true_rates=np.array([0.5, 0.2, 0.1, 0.05]),
                              judgments=np.array([10, 40, 100, 50]), yes=np.array([5, 1, 12, 20]), codes=codes,
                              fixed_inferable=np.array([True, False, True, False]))
    assert result.judgments_per_post == 50
    assert result.saved_share == 0.5
    assert result.undecided_share == 0.25
    # Decided: post 0 right, post 1 wrong (0.2 >= 0.10 but "not"), post 3 wrong ("inferable" at 0.05).
    assert result.sequential_error == pytest.approx(2 / 3)
    assert result.fixed_error == 0.25  # post 1: False at 100 answers, but 0.2 >= 0.10
    assert result.disagreement == pytest.approx(1 / 3)  # post 3
    # The undecided post falls back to 12 / 100 >= 0.10, which matches its truth (0.1 >= 0.10).
    assert result.fallback_error == 0.5
    empty = result.select(np.zeros(4, dtype=bool))
    assert empty.posts == 0 and math.isnan(empty.sequential_error) and math.isnan(empty.saved_share)


def test_same_seed_same_result_other_seed_other_result():
    r = rule(min_judgments=10)
    first = simulate([0.05, 0.1, 0.15], r, repeats=200, seed=7)
    again = simulate([0.05, 0.1, 0.15], r, repeats=200, seed=7)
    other = simulate([0.05, 0.1, 0.15], r, repeats=200, seed=8)
    for name in ("true_rates", "judgments", "yes", "codes", "fixed_inferable"):
        assert np.array_equal(getattr(first, name), getattr(again, name)), name
    assert not np.array_equal(first.judgments, other.judgments)


def test_same_stream_for_every_rule():
    # The fixed campaign's labels depend on the seed only, so rules are compared on the same answers.
    loose = simulate([0.08, 0.12], rule(min_judgments=1), repeats=300, seed=5)
    strict = simulate([0.08, 0.12], rule(min_judgments=35, confidence=0.99), repeats=300, seed=5)
    assert np.array_equal(loose.fixed_inferable, strict.fixed_inferable)
    assert loose.judgments_per_post < strict.judgments_per_post


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (([],), {}, "non-empty"),
    (([[0.1, 0.2]],), {}, "1-d"),
    (([0.1, 1.2],), {}, r"\[0, 1\]"),
    (([-0.1],), {}, r"\[0, 1\]"),
    (([math.nan],), {}, r"\[0, 1\]"),
    (([0.1],), {"fixed": 0}, "fixed"),
    (([0.1],), {"repeats": 0}, "repeats"),
    (([0.1],), {"seed": 1.5}, "seed"),
])
def test_bad_simulation_arguments_raise(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(*args, rule(), **kwargs)


def test_simulate_needs_a_rule():
    with pytest.raises(ValueError, match="StoppingRule"):
        simulate([0.1], {"cutoff": 0.1})
