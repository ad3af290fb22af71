"""anonymizer.crowd.stats: Wilson intervals, Krippendorff's alpha, gold accuracy and flags, per-post aggregates
and the machine x human cross table, against numbers computed by hand or published."""

from __future__ import annotations

import math

import pytest

from anonymizer.crowd.stats import (
    CrossTable,
    Interval,
    JudgmentRecord,
    Label,
    PostAggregate,
    aggregate,
    aggregates_to_rows,
    cross_table,
    decide,
    flag_participants,
    gold_accuracy,
    krippendorff_alpha,
    nominal_alpha,
    wilson_interval,
)

J = JudgmentRecord


def judgments(post: str, yes: int, no: int, *, prefix: str = "p", flagged: bool = False) -> list[JudgmentRecord]:
    """``yes`` yes answers then ``no`` no answers on ``post``, by distinct participants ``{prefix}0, {prefix}1...``."""
    answers = [True] * yes + [False] * no
    return [J(f"{prefix}{i}", post, answer, flagged) for i, answer in enumerate(answers)]


# --- Wilson interval ------------------------------------------------------------------------------------------
# Expected bounds from the closed form (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964,
# evaluated separately; the module itself asks scipy.


@pytest.mark.parametrize(
    ("yes", "n", "low", "high"),
    [
        (3, 10, 0.107791, 0.603222),
        (0, 20, 0.0, 0.161125),  # high = z² / (n + z²)
        (20, 20, 0.838875, 1.0),  # low = n / (n + z²)
        (10, 100, 0.055229, 0.174366),
    ],
)
def test_wilson_interval_matches_closed_form(yes: int, n: int, low: float, high: float) -> None:
    interval = wilson_interval(yes, n)
    assert interval is not None
    assert interval.low == pytest.approx(low, abs=1e-6)
    assert interval.high == pytest.approx(high, abs=1e-6)
    assert type(interval.low) is float and type(interval.high) is float


def test_wilson_interval_edges_and_confidence() -> None:
    assert wilson_interval(0, 0) is None
    zero = wilson_interval(0, 20)
    full = wilson_interval(20, 20)
    assert zero is not None and zero.low == 0.0
    assert full is not None and full.high == 1.0
    # 3 of 10 at 90%: z = 1.644854 gives (0.126877, 0.558300); narrower than at 95%.
    narrow = wilson_interval(3, 10, confidence=0.90)
    assert narrow == Interval(pytest.approx(0.126877, abs=1e-6), pytest.approx(0.558300, abs=1e-6))


@pytest.mark.parametrize(("yes", "n", "confidence"), [(-1, 5, 0.95), (6, 5, 0.95), (0, -1, 0.95), (1, 5, 1.0)])
def test_wilson_interval_rejects_nonsense(yes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(yes, n, confidence)


# --- Krippendorff's alpha -------------------------------------------------------------------------------------


def test_nominal_alpha_reproduces_krippendorff_2011_example() -> None:
    # Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for Communication,
    # University of Pennsylvania, Departmental Papers 43; section C, "Nominal data, any number of observers,
    # missing data": 4 observers x 12 units, published nominal alpha = 0.743. None = the observer gave no value.
    observers = {
        "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    }
    ratings = {
        f"unit{u + 1}": {obs: values[u] for obs, values in observers.items() if values[u] is not None}
        for u in range(12)
    }
    alpha = nominal_alpha(ratings)
    assert alpha is not None
    assert round(alpha, 3) == 0.743
    # Categories are only identities: relabelling them as strings changes nothing.
    labels = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    relabelled = {unit: {obs: labels[v] for obs, v in by_obs.items()} for unit, by_obs in ratings.items()}
    assert nominal_alpha(relabelled) == pytest.approx(alpha, abs=1e-12)


# Three posts, three trusted participants and one flagged participant who disagrees.
#   post1: a yes, b yes, c yes       (flagged d: no)
#   post2: a yes, b no,  c no        (flagged d: yes)
#   post3:        b no,  c no
# Without d, coincidences o_YY = 3, o_NN = 3, o_YN = o_NY = 1; n_Y = n_N = 4, n = 8, so
#   alpha = 1 - (n - 1) * (o_YN + o_NY) / (2 * n_Y * n_N) = 1 - 7 * 2 / 32 = 9/16.
# With d: post1 and post2 have 4 values each (pairs weighted 1/3): o_YN = 1 + 4/3 = 7/3, n_Y = n_N = 5, n = 10,
#   alpha = 1 - 9 * (14/3) / 50 = 4/25.
ALPHA_RECORDS = [
    J("a", "post1", True), J("b", "post1", True), J("c", "post1", True), J("d", "post1", False, flagged=True),
    J("a", "post2", True), J("b", "post2", False), J("c", "post2", False), J("d", "post2", True, flagged=True),
    J("b", "post3", False), J("c", "post3", False),
]


def test_krippendorff_alpha_hand_computed_and_flagged_excluded_by_default() -> None:
    assert krippendorff_alpha(ALPHA_RECORDS) == pytest.approx(9 / 16, abs=1e-12)
    assert krippendorff_alpha(ALPHA_RECORDS, include_flagged=True) == pytest.approx(4 / 25, abs=1e-12)
    # A generator works as well as a list, and a post judged once cannot be paired, so it changes nothing.
    with_single = [*ALPHA_RECORDS, J("a", "post4", False)]
    assert krippendorff_alpha(r for r in with_single) == pytest.approx(9 / 16, abs=1e-12)


@pytest.mark.parametrize(
    "records",
    [
        [],
        judgments("post1", 5, 0) + judgments("post2", 3, 0),  # everybody says yes: no variation
        [J("a", "post1", True), J("a", "post2", False), J("a", "post3", True)],  # a single rater
        [J("a", "post1", True), J("b", "post2", False), J("c", "post3", True)],  # no post judged twice
        # Paired answers all agree; the only "no" sits on a post that cannot be paired (0/0 inside the library).
        [J("a", "post1", True), J("b", "post1", True), J("c", "post2", False)],
        # Only the flagged participant disagrees.
        [J("a", "post1", True), J("b", "post1", True), J("c", "post1", False, flagged=True)],
    ],
    ids=["empty", "all-same", "single-rater", "no-pairs", "unpaired-variation", "variation-only-flagged"],
)
def test_krippendorff_alpha_degenerate_data_is_none(records: list[JudgmentRecord]) -> None:
    assert krippendorff_alpha(records) is None


def test_krippendorff_alpha_rejects_a_double_judgment() -> None:
    with pytest.raises(ValueError, match="more than once"):
        krippendorff_alpha([J("a", "post1", True), J("b", "post1", True), J("a", "post1", False)])


# --- gold accuracy and flags ----------------------------------------------------------------------------------

GOLD = {"g1": True, "g2": False, "g3": True, "g4": False, "g5": True}


def _answers(participant: str, answers: dict[str, bool], flagged: bool = False) -> list[JudgmentRecord]:
    return [J(participant, post, answer, flagged) for post, answer in answers.items()]


QUALITY_RECORDS = [
    *_answers("alice", {"g1": True, "g2": False, "g3": True, "g4": False, "g5": True, "r1": True}),  # 5 of 5
    *_answers("bob", {"g1": True, "g2": True, "g3": False, "g4": True, "g5": True, "r1": False}),  # 2 of 5
    *_answers("carol", {"g1": False, "g2": True}),  # 0 of 2: too few gold answers to judge
    *_answers("dave", {"g1": True, "g2": False, "g3": True}),  # 3 of 3, but fails an attention check
    *_answers("erin", {"g3": True, "g4": True, "g5": False}, flagged=True),  # 1 of 3, already flagged
    *_answers("frank", {"r1": True, "r2": False}),  # no gold posts at all
]


def test_gold_accuracy_counts_gold_posts_only() -> None:
    assert gold_accuracy(QUALITY_RECORDS, GOLD) == {
        "alice": (5, 5),
        "bob": (2, 5),
        "carol": (0, 2),
        "dave": (3, 3),
        "erin": (1, 3),
    }
    assert gold_accuracy(QUALITY_RECORDS, {}) == {}


def test_flag_participants_accuracy_min_gold_and_attention() -> None:
    accuracy = gold_accuracy(QUALITY_RECORDS, GOLD)
    flags = flag_participants(accuracy, min_accuracy=0.7, min_gold=3, failed_attention=["dave"])
    assert flags == {
        "bob": "gold accuracy 2 of 5 (40%) is below 70%",
        "dave": "failed an attention check",
        "erin": "gold accuracy 1 of 3 (33.3%) is below 70%",
    }
    # With a lower bar for the number of gold answers, carol is judged as well.
    lenient = flag_participants(accuracy, min_accuracy=0.7, min_gold=2)
    assert lenient["carol"] == "gold accuracy 0 of 2 (0%) is below 70%"
    # An attention failure flags even somebody without gold answers; both reasons are kept.
    flags = flag_participants(accuracy, min_accuracy=0.7, min_gold=3, failed_attention=["bob", "frank", "bob"])
    assert flags == {
        "bob": "failed 2 attention checks; gold accuracy 2 of 5 (40%) is below 70%",
        "erin": "gold accuracy 1 of 3 (33.3%) is below 70%",
        "frank": "failed an attention check",
    }


def test_flag_participants_boundary_and_validation() -> None:
    assert flag_participants({"x": (7, 10)}, min_accuracy=0.7, min_gold=3) == {}
    assert flag_participants({"x": (6, 10)}, min_accuracy=0.7, min_gold=3) == {
        "x": "gold accuracy 6 of 10 (60%) is below 70%"
    }
    assert flag_participants({"x": (0, 0)}, min_accuracy=0.7, min_gold=0) == {}
    with pytest.raises(ValueError):
        flag_participants({"x": (3, 2)}, min_accuracy=0.7, min_gold=1)
    with pytest.raises(ValueError):
        flag_participants({}, min_accuracy=70, min_gold=1)


# --- aggregates -----------------------------------------------------------------------------------------------


def test_aggregate_rates_intervals_cutoff_boundary_and_exclusions() -> None:
    records = [
        *judgments("p10", 10, 90),
        *judgments("p9", 9, 91),
        *judgments("mixed", 3, 7),
        *judgments("mixed", 5, 0, prefix="flagged", flagged=True),
        *judgments("all-flagged", 2, 0, prefix="flagged", flagged=True),
        *judgments("not-asked-for", 4, 0),
    ]
    order = ["empty", "p9", "mixed", "p10", "all-flagged", "p9"]
    result = aggregate(records, order)
    assert [a.post for a in result] == ["empty", "p9", "mixed", "p10", "all-flagged"]
    by_post = {a.post: a for a in result}

    p10 = by_post["p10"]
    assert (p10.judgments, p10.yes, p10.yes_rate, p10.at_or_above_cutoff, p10.excluded) == (100, 10, 0.1, True, 0)
    assert p10.interval == Interval(pytest.approx(0.055229, abs=1e-6), pytest.approx(0.174366, abs=1e-6))
    # 10 of 100 meets the paper's point rule, but its interval (0.055-0.174) straddles 10%: not decided.
    assert (p10.label, p10.human_inferable, p10.decided) == (Label.UNDECIDED, None, False)
    p9 = by_post["p9"]
    assert (p9.judgments, p9.yes, p9.yes_rate, p9.at_or_above_cutoff, p9.label) == (100, 9, 0.09, False,
                                                                                     Label.UNDECIDED)

    mixed = by_post["mixed"]
    assert (mixed.judgments, mixed.yes, mixed.yes_rate, mixed.excluded) == (10, 3, 0.3, 5)
    assert mixed.interval == Interval(pytest.approx(0.107791, abs=1e-6), pytest.approx(0.603222, abs=1e-6))

    assert by_post["empty"] == PostAggregate("empty", 0, 0, None, None, Label.NO_ANSWERS, None, 0)
    assert by_post["all-flagged"] == PostAggregate("all-flagged", 0, 0, None, None, Label.NO_ANSWERS, None, 2)
    assert by_post["mixed"].label == Label.INFERABLE  # 3 of 10: the interval starts at 0.108, above 10%

    with_flagged = {a.post: a for a in aggregate(records, order, include_flagged=True)}
    assert (with_flagged["mixed"].judgments, with_flagged["mixed"].yes, with_flagged["mixed"].excluded) == (15, 8, 0)
    assert with_flagged["all-flagged"].at_or_above_cutoff is True
    assert with_flagged["all-flagged"].label == Label.INFERABLE  # 2 of 2: interval 0.34-1.00

    stricter = {a.post: a for a in aggregate(records, ["p10", "mixed"], cutoff=0.3)}
    assert stricter["p10"].human_inferable is False  # 0.055-0.174 lies wholly below 30%
    assert stricter["mixed"].at_or_above_cutoff is True and stricter["mixed"].label == Label.UNDECIDED


def test_aggregate_rejects_a_double_judgment_and_a_bad_cutoff() -> None:
    with pytest.raises(ValueError, match="more than once"):
        aggregate([J("a", "p", True), J("a", "p", True)], ["p"])
    with pytest.raises(ValueError):
        aggregate([], ["p"], cutoff=10)


def test_aggregates_to_rows_is_flat() -> None:
    rows = aggregates_to_rows(aggregate(judgments("p", 3, 7), ["p", "q"]))
    assert rows[0].keys() == {
        "post", "judgments", "yes", "yes_rate", "interval_low", "interval_high", "label", "human_inferable",
        "at_or_above_cutoff", "excluded",
    }
    assert rows[0]["post"] == "p" and rows[0]["yes"] == 3 and rows[0]["human_inferable"] is True
    assert math.isclose(rows[0]["interval_low"], 0.107791, abs_tol=1e-6)
    assert math.isclose(rows[0]["interval_high"], 0.603222, abs_tol=1e-6)
    assert rows[1] == {
        "post": "q", "judgments": 0, "yes": 0, "yes_rate": None, "interval_low": None, "interval_high": None,
        "label": "no answers", "human_inferable": None, "at_or_above_cutoff": None, "excluded": 0,
    }


# --- cross table ----------------------------------------------------------------------------------------------


def test_cross_table_counts_members_and_row_order() -> None:
    machine = {"a": True, "b": True, "c": False, "d": False, "e": True, "machine-only": True, "z": False}
    human = {"e": True, "d": False, "c": True, "b": False, "a": True, "human-only": False, "z": None}
    table = cross_table(machine, human)
    assert isinstance(table, CrossTable)
    assert table.counts == {(True, True): 2, (True, False): 1, (False, True): 1, (False, False): 1}
    assert table.posts == {(True, True): ["a", "e"], (True, False): ["b"], (False, True): ["c"], (False, False): ["d"]}
    assert table.as_rows() == [
        {"machine": True, "human": True, "posts": 2},
        {"machine": True, "human": False, "posts": 1},
        {"machine": False, "human": True, "posts": 1},
        {"machine": False, "human": False, "posts": 1},
    ]
    empty = cross_table({}, {"a": True})
    assert [row["posts"] for row in empty.as_rows()] == [0, 0, 0, 0]
    assert empty.posts == {(True, True): [], (True, False): [], (False, True): [], (False, False): []}


@pytest.mark.parametrize(("yes", "n", "cutoff", "label"), [
    (0, 0, 0.10, Label.NO_ANSWERS),
    (2, 2, 0.10, Label.INFERABLE),  # Wilson 0.342-1.000
    (1, 2, 0.10, Label.UNDECIDED),  # 0.095-0.905: the paper's rule says yes; the interval cannot tell
    (0, 2, 0.10, Label.UNDECIDED),  # 0.000-0.658
    (0, 34, 0.10, Label.UNDECIDED),  # the upper bound 3.84 / (34 + 3.84) = 0.1015 still reaches 10%
    (0, 35, 0.10, Label.NOT_INFERABLE),  # 3.84 / 38.84 = 0.0989 < 10%
    (10, 100, 0.10, Label.UNDECIDED),
    (3, 5, 0.5, Label.UNDECIDED),
])
def test_a_post_is_decided_only_when_its_interval_clears_the_cutoff(yes, n, cutoff, label) -> None:
    assert decide(yes, n, cutoff) == label
    interval = wilson_interval(yes, n)
    if label == Label.INFERABLE:
        assert interval.low >= cutoff
    elif label == Label.NOT_INFERABLE:
        assert interval.high < cutoff
    elif label == Label.UNDECIDED:
        assert interval.low < cutoff <= interval.high
