"""anonymizer.crowd.strikes: per-post strike counts, consensus and token-level Krippendorff's alpha of the
strike-words task, against numbers computed by hand and the krippendorff package."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from anonymizer.crowd.strikes import PostStrikes, StrikeRecord, strike_alpha, summarize_strikes

S = StrikeRecord

# Post a has 3 tokens, post b 2. Three valid participants; p4 is flagged and struck what nobody else did.
RECORDS = [
    S("p1", "a", (0,), 3), S("p2", "a", (0, 1), 3), S("p3", "a", (0,), 3),
    S("p1", "b", (1,), 2), S("p2", "b", (), 2),
    S("p4", "a", (2,), 3, flagged=True), S("p4", "b", (0,), 2, flagged=True),
]


def test_counts_consensus_and_flagged_answers_by_hand() -> None:
    summary = summarize_strikes(RECORDS, {"a": 3, "b": 2, "c": 4})
    a, b, c = summary.posts
    assert a == PostStrikes(post="a", tokens=3, answers=3, excluded=1, counts=(3, 1, 0), consensus=(0,))
    # 1 of 2 is half: consensus ("at least half").
    assert b == PostStrikes(post="b", tokens=2, answers=2, excluded=1, counts=(0, 1), consensus=(1,))
    # A post nobody answered is listed, with nothing struck and no consensus.
    assert c == PostStrikes(post="c", tokens=4, answers=0, excluded=0, counts=(0, 0, 0, 0), consensus=())
    assert a.share(0) == 1.0 and a.share(1) == pytest.approx(1 / 3) and c.share(0) is None


def test_one_of_three_is_no_consensus_two_of_four_is() -> None:
    three = [S("p1", "x", (0,), 1), S("p2", "x", (), 1), S("p3", "x", (), 1)]
    four = [S(f"p{i}", "y", (0,) if i < 2 else (), 1) for i in range(4)]
    x, y = summarize_strikes(three + four).posts
    assert x.consensus == () and y.consensus == (0,)


def test_alpha_by_hand() -> None:
    # Units (post, token) with the valid values (S struck, N not): a0 SSS, a1 NSN, a2 NNN, b0 NN, b1 SN.
    # Coincidences: o_SS = 3, o_SN = o_NS = 1 (a1) + 1 (b1) = 2, o_NN = 1 (a1) + 3 (a2) + 2 (b0) = 6; n = 13,
    # n_S = 5, n_N = 8. Do = 4/13, De = 2*5*8 / (13*12) = 80/156, alpha = 1 - (4/13) / (80/156) = 0.4.
    summary = summarize_strikes(RECORDS)
    assert summary.alpha == pytest.approx(0.4, abs=1e-12)
    assert summary.units == 5
    assert strike_alpha(RECORDS) == pytest.approx(0.4, abs=1e-12)


def test_alpha_equals_the_krippendorff_package_on_the_same_matrix() -> None:
    nan = np.nan
    # Raters p1..p3 x units a0 a1 a2 b0 b1 (p3 did not answer b); 1 = struck.
    matrix = np.array([[1, 0, 0, 0, 1],
                       [1, 1, 0, 0, 0],
                       [1, 0, 0, nan, nan]])
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert summarize_strikes(RECORDS).alpha == pytest.approx(expected, abs=1e-12)


def test_tokens_that_cannot_be_struck_are_no_units() -> None:
    # Token a2 as punctuation: unit a2 (NNN) goes. o_NN = 3, n = 10, n_S = n_N = 5: Do = 4/10,
    # De = 2*25 / 90, alpha = 1 - 0.4 * 90 / 50 = 0.28.
    summary = summarize_strikes([r for r in RECORDS if not r.flagged], fixed={"a": {2}})
    assert summary.alpha == pytest.approx(0.28, abs=1e-12) and summary.units == 4
    # The counts do not change: the token is still there, struck by nobody.
    assert summary.posts[0].counts == (3, 1, 0)
    with pytest.raises(ValueError, match="cannot be struck"):
        summarize_strikes(RECORDS, fixed={"a": {2}})  # the flagged p4 struck it: still inconsistent input


def test_alpha_undefined_without_pairs_or_variation() -> None:
    assert summarize_strikes([S("p1", "a", (0,), 2)]).alpha is None  # a single answer
    assert strike_alpha([S("p1", "a", (), 2), S("p2", "a", (), 2)]) is None  # nobody struck anything
    assert summarize_strikes([]).posts == [] and summarize_strikes([]).alpha is None
    # Flagged answers do not make pairs.
    assert summarize_strikes([S("p1", "a", (0,), 2), S("p2", "a", (1,), 2, flagged=True)]).alpha is None


def test_order_follows_posts_and_other_posts_are_ignored() -> None:
    summary = summarize_strikes(RECORDS, {"b": 2})
    assert [p.post for p in summary.posts] == ["b"]
    # Alpha over b alone: b0 NN, b1 SN -> o_NN = 2, o_SN = o_NS = 1, n = 4, n_S = 1, n_N = 3:
    # Do = 2/4, De = 6/12, alpha = 0.
    assert summary.alpha == pytest.approx(0.0, abs=1e-12)
    # Without posts: in order of first answer.
    assert [p.post for p in summarize_strikes(list(reversed(RECORDS))).posts] == ["b", "a"]


@pytest.mark.parametrize("records, posts, message", [
    ([S("p1", "a", (3,), 3)], None, "outside"),
    ([S("p1", "a", (-1,), 3)], None, "outside"),
    ([S("p1", "a", (0,), 0)], None, "outside"),
    ([S("p1", "a", (True,), 3)], None, "outside"),
    ([S("p1", "a", (1, 1), 3)], None, "twice"),
    ([S("p1", "a", (0,), 3), S("p1", "a", (1,), 3)], None, "more than once"),
    ([S("p1", "a", (0,), 3), S("p1", "a", (1,), 3, flagged=True)], None, "more than once"),
    ([S("p1", "a", (0,), 3), S("p2", "a", (0,), 4)], None, "tokens"),
    ([S("p1", "a", (0,), 3)], {"a": 5}, "tokens"),
    ([S("p1", "a", (), -1)], None, "non-negative"),
    ([], {"a": -2}, "non-negative"),
])
def test_inconsistent_input_is_a_value_error(records, posts, message) -> None:
    with pytest.raises(ValueError, match=message):
        summarize_strikes(records, posts)


def test_strike_alpha_checks_its_input_too() -> None:
    with pytest.raises(ValueError, match="more than once"):
        strike_alpha([S("p1", "a", (), 1), S("p1", "a", (0,), 1)])
    with pytest.raises(ValueError, match="outside"):
        strike_alpha([S("p1", "a", (0,), 3)], fixed={"a": {7}})
