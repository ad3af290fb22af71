"""The pure quality-control core (issue 43): checks of both kinds, a plan every participant meets before a code,
settings under which the checks cannot hold refused with their numbers, and the dashboard's description."""

from __future__ import annotations

import pytest

from anonymizer.crowd import quality

DEFAULT = quality.CheckItems(gold=6, attention_yes=4, attention_no=4)


def plan_of(items: quality.CheckItems = DEFAULT, min_gold: int = 6, within: int = 5) -> quality.CheckPlan:
    return quality.plan_checks(items, min_gold=min_gold, min_accuracy=0.5, checks_within=within)


@pytest.mark.parametrize("always", [True, False])
def test_answering_the_same_to_everything_fails_an_attention_check_of_the_other_kind(always):
    plan = plan_of()
    failed = sum(1 for expected in [True] * plan.attention_yes + [False] * plan.attention_no if always != expected)
    assert failed == 4
    assert quality.verdict(plan, gold_correct=3, gold_answered=6, attention_failed=failed) == \
        "failed 4 attention checks"


def test_gold_accuracy_is_judged_from_the_planned_number_and_the_minimum_is_inclusive():
    plan = plan_of()
    assert quality.verdict(plan, gold_correct=0, gold_answered=5, attention_failed=0) == ""  # not judged yet
    assert quality.verdict(plan, gold_correct=3, gold_answered=6, attention_failed=0) == ""  # 50% passes
    assert quality.verdict(plan, gold_correct=2, gold_answered=6, attention_failed=0) == \
        "gold accuracy 2 of 6 (33.3%) is below 50%"
    # A campaign holding fewer gold posts than the minimum (made before that was refused) is judged on all it has.
    few = plan_of(quality.CheckItems(gold=2, attention_yes=1, attention_no=1))
    assert (few.gold, few.judged_after) == (2, 2)
    assert quality.verdict(few, gold_correct=0, gold_answered=2, attention_failed=0)


def test_every_check_is_placed_before_the_shortest_session_that_earns_a_code():
    plan = plan_of()
    for seed in range(200):
        places = quality.schedule(plan, seed, min_answers_for_code=5)
        assert sorted(kind for _, kind in places) == sorted(["gold"] * 6 + ["attention-yes"] * 4 +
                                                            ["attention-no"] * 4)
        assert max(place for place, _ in places) < 5 + plan.required
        for kind in quality.CHECK_KINDS:  # the first of each kind within the first checks_within items
            assert min(place for place, of in places if of == kind) < 5


def test_missing_checks_fall_due_before_the_cap_and_when_a_session_finishes():
    plan = plan_of()
    places = quality.schedule(plan, 7, min_answers_for_code=5)
    met = {"gold": 6, "attention-yes": 3, "attention-no": 4}
    assert quality.missing_checks(plan, met) == {"attention-yes": 1}
    assert quality.due_checks(plan, places, answered=0, met=met, items_left=1) == ["attention-yes"]
    assert quality.due_checks(plan, places, answered=0, met=met, items_left=40, finishing=True) == ["attention-yes"]
    assert quality.due_checks(plan, places, answered=0, met=dict.fromkeys(quality.CHECK_KINDS, 0), items_left=40) \
        == [kind for place, kind in places if place == 0]


def test_a_code_only_with_every_check_met_and_no_flag():
    plan = plan_of()
    met = {"gold": 6, "attention-yes": 4, "attention-no": 4}
    assert quality.code_allowed(plan, flagged=False, regular_answers=5, min_answers_for_code=5, met=met)
    assert not quality.code_allowed(plan, flagged=True, regular_answers=5, min_answers_for_code=5, met=met)
    assert not quality.code_allowed(plan, flagged=False, regular_answers=4, min_answers_for_code=5, met=met)
    assert not quality.code_allowed(plan, flagged=False, regular_answers=40, min_answers_for_code=5,
                                    met={**met, "attention-no": 3})


def test_fewer_gold_posts_than_the_minimum_or_a_cap_too_small_is_refused_with_the_numbers():
    problems = quality.campaign_problems(quality.CheckItems(gold=2, attention_yes=1, attention_no=1), min_gold=3,
                                         per_participant_cap=50, min_answers_for_code=5)
    assert problems[0].refused and problems[0].field == "min_gold_answers"
    assert "2 gold posts" in problems[0].message and "after 3 gold answers" in problems[0].message
    assert "1 more gold post" in problems[0].message
    small = quality.campaign_problems(DEFAULT, min_gold=6, per_participant_cap=12, min_answers_for_code=5)
    assert small[0].refused and small[0].field == "per_participant_cap"
    assert "5 answered posts plus 14 check items (6 gold, 8 attention), 19 items" in small[0].message
    assert not quality.campaign_problems(DEFAULT, min_gold=6, per_participant_cap=19, min_answers_for_code=5)


def test_weak_checks_are_warned_about():
    messages = {p.field: p.message for p in quality.campaign_problems(
        quality.CheckItems(gold=0, attention_yes=3), min_gold=6, per_participant_cap=50, min_answers_for_code=5)}
    assert all(not p.refused for p in quality.campaign_problems(
        quality.CheckItems(gold=0, attention_yes=3), min_gold=6, per_participant_cap=50, min_answers_for_code=5))
    assert "no gold post" in messages["posts"]
    assert "answers Yes to everything passes" in messages["attention_checks"]
    none = quality.campaign_problems(quality.CheckItems(gold=6), min_gold=6, per_participant_cap=50,
                                     min_answers_for_code=5)
    assert [p.field for p in none] == ["attention_checks"] and "No attention checks" in none[0].message


def test_the_description_says_the_checks_the_campaign_really_has():
    text = " ".join(quality.describe_checks(plan_of(), DEFAULT, 5))
    assert "8 attention checks (4 ask Yes, 4 ask No)" in text and "6 gold posts (of the campaign's 6)" in text
    assert "below 50% once 6 are answered" in text and "first 5 items" in text
    bare = quality.CheckItems(gold=0)
    text = " ".join(quality.describe_checks(plan_of(bare), bare, 5))
    assert "No attention checks." in text and "No gold posts" in text
    assert "attention check within" not in text and "first 5 items" not in text  # claims no check it lacks
    yes_only = quality.CheckItems(gold=0, attention_yes=1)
    assert "All attention checks ask Yes" in " ".join(quality.describe_checks(plan_of(yes_only), yes_only, 5))
