"""Quality control and sequential stopping of the crowd queue (issue 20), through the services and the
participant API: completion codes only for real work, checks early for everyone, a flagged participant's posts
asked again until they have their valid answers, decided posts no longer served, stored answers never a 409,
and the campaign API's ranges."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd import quality
from anonymizer.crowd.stats import Label
from anonymizer.crowd.web import selectors
from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, CampaignPost, Judgment, Participant
from anonymizer.platform.errors import UserFacingError

pytestmark = pytest.mark.django_db
Kind = CampaignPost.Kind


def campaign_of(staff, regular: int, *, wanted: int = 1, gold: int = 0, attention: int = 0, **options) -> Campaign:
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(regular)]
    posts += [crowd.PostSpec(f"gold {i}", Kind.GOLD, True, f"g{i}") for i in range(gold)]
    posts += crowd.attention_checks("en", attention)
    options = {"gold_share": 0.0, "min_answers_for_code": 1, **options}
    return crowd.create_campaign(owner=staff, name="q", instructions="x", consent_text="x", posts=posts,
                                 judgments_per_post=wanted, **options)


def joined(campaign: Campaign) -> Participant:
    participant = crowd.join(campaign)
    crowd.consent(participant)
    return participant


def work(participant: Participant, decide=lambda post: True, limit: int = 100) -> list[CampaignPost]:
    """Answer until the queue has nothing more; returns the posts served, in order."""
    served = []
    for _ in range(limit):
        assignment = crowd.next_assignment(participant)
        if assignment is None:
            return served
        served.append(assignment.post)
        crowd.answer(participant, assignment.post_id, answer=decide(assignment.post))
    raise AssertionError("the queue never ran out")


def test_no_completion_code_without_the_minimum_of_answered_posts(staff):
    campaign = campaign_of(staff, 3, min_answers_for_code=2, attention=1)
    early, late = joined(campaign), joined(campaign)
    work(early)  # takes all 3 posts (and the attention check): a code
    early.refresh_from_db()
    assert len(early.completion_code) == 10
    assert crowd.next_assignment(late) is None  # joined before it filled up, answered nothing
    late.refresh_from_db()
    assert late.completion_code == "" and late.completed_at is None
    assert "you answered 0" in crowd.done_message(late)
    with pytest.raises(UserFacingError, match="has all the answers it needs"):  # newcomers are told so
        crowd.join(campaign)
    page = Client().get(reverse("crowd-join", args=[campaign.join_token])).content.decode()
    assert 'id="campaign-full"' in page and 'id="consent"' not in page


def test_every_participant_meets_a_gold_post_and_an_attention_check_within_their_first_items(staff):
    campaign = campaign_of(staff, 30, wanted=20, gold=2, attention=1, checks_within=3, min_gold_answers=2)
    for _ in range(12):
        participant = joined(campaign)
        first = []
        for _item in range(3):  # their first three items
            assignment = crowd.next_assignment(participant)
            first.append(assignment.post)
            crowd.answer(participant, assignment.post_id, answer=True)
        kinds = {post.kind for post in first}
        assert {Kind.GOLD, Kind.ATTENTION} <= kinds, [post.kind for post in first]


def test_a_flagged_participants_posts_are_asked_again_until_each_has_its_valid_answers(staff):
    campaign = campaign_of(staff, 4, wanted=1, attention=1, checks_within=3)
    careless = joined(campaign)
    # A seed that places their attention check second or third (a first-place check leaves no post to requeue).
    plan = selectors.check_plan(campaign)
    careless.seed = next(seed for seed in range(100) if quality.schedule(plan, seed, 1)[0][0] >= 1)
    careless.save(update_fields=["seed"])
    served = work(careless, decide=lambda post: False)  # says No to the attention check too
    careless.refresh_from_db()
    assert careless.flagged_reason == "failed an attention check" and careless.completion_code == ""
    assert "check items" in crowd.done_message(careless)
    regular_seen = [post for post in served if post.kind == Kind.REGULAR]
    assert regular_seen  # the check comes within the first 3 items, after at least one post...
    assert len(served) <= 3  # ...and the session ends there
    assert Judgment.objects.filter(participant=careless).count() == len(served)  # stored, never deleted
    # Their answers no longer count: every post still wants its one valid answer.
    assert list(CampaignPost.objects.filter(campaign=campaign, kind=Kind.REGULAR).values_list("answered", flat=True)) \
        == [0, 0, 0, 0]
    with pytest.raises(UserFacingError, match="session has ended"):
        crowd.undo(careless)  # undoing the failed check would wipe the flag
    careful = joined(campaign)
    work(careful)
    for post in CampaignPost.objects.filter(campaign=campaign, kind=Kind.REGULAR):
        assert post.answered == 1 == Judgment.objects.filter(post=post, participant__flagged_reason="").count()
    report = selectors.campaign_report(campaign)
    assert report["judgments_done"] == report["judgments_wanted"] == 4 and report["flagged"] == 1


def test_a_decided_post_stops_being_asked_and_an_undecided_one_is_asked_to_the_maximum(staff):
    # Cut-off 10%: 2 yes of 2 decide "human-inferable" (0.34-1); No answers never clear 10% within 10.
    campaign = campaign_of(staff, 2, wanted=10, cutoff=0.1, min_judgments_per_post=2)
    placeable, vague = CampaignPost.objects.filter(campaign=campaign).order_by("id")
    for _ in range(10):
        work(joined(campaign), decide=lambda post: post.id == placeable.id)
    with pytest.raises(UserFacingError, match="has all the answers it needs"):
        joined(campaign)
    placeable.refresh_from_db()
    vague.refresh_from_db()
    assert (placeable.answered, placeable.yes, placeable.label) == (2, 2, Label.INFERABLE)
    assert (vague.answered, vague.label) == (10, Label.UNDECIDED)  # 0 of 10: interval 0-0.28 straddles 10%
    report = selectors.campaign_report(campaign)
    assert report["stopped_early"] == 1 and report["judgments_saved"] == 8
    assert report["judgments_done"] == report["judgments_wanted"] == 12
    assert report["labels"][Label.INFERABLE] == 1 and report["labels"][Label.UNDECIDED] == 1
    # Without sequential stopping the same answers keep the decided post in the queue.
    fixed = campaign_of(staff, 1, wanted=4, min_judgments_per_post=2, stop_when_decided=False)
    assert len([work(joined(fixed)) for _ in range(4)]) == 4
    assert CampaignPost.objects.get(campaign=fixed).answered == 4


def test_a_stored_answer_is_a_200_with_what_was_stored_even_when_the_next_post_must_wait(staff):
    campaign = campaign_of(staff, 2, wanted=1)
    first, second = Client(REMOTE_ADDR="192.0.2.21"), Client(REMOTE_ADDR="192.0.2.22")  # two people, two addresses
    for client in (first, second):
        client.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    url = lambda action: reverse("crowd-api", args=[campaign.join_token, action])  # noqa: E731
    mine = first.get(url("next")).json()["post"]["id"]
    second.get(url("next"))  # the other post is reserved by the second participant
    response = first.post(url("answer"), {"post": mine, "answer": True}, content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["stored"] == {"post": mine, "answer": True, "deleted": None, "latitude": None, "longitude": None}
    assert body["wait"] >= 1 and body["done"] is False
    assert Judgment.objects.get(post_id=mine).answer is True


@pytest.mark.parametrize(("field", "value"), [
    ("cutoff", 1.5), ("cutoff", -0.1), ("judgments_per_post", 0), ("judgments_per_post", 5000),
    ("gold_share", 1.0), ("min_judgments_per_post", 0), ("checks_within", 1), ("min_answers_for_code", 51),
])
def test_the_campaign_api_refuses_numbers_out_of_range_naming_the_field(staff, field, value):
    api = APIClient()
    api.force_authenticate(staff)
    body = {"name": "x", "instructions": "x", "consent_text": "x", "posts": [{"text": "a post"}],
            "per_participant_cap": 50, field: value}
    response = api.post(reverse("api-campaign-list"), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not Campaign.objects.exists()


def test_the_migration_recounts_valid_answers_and_keeps_running_campaigns_on_their_design(staff):
    import importlib

    from django.apps import apps as django_apps

    campaign = campaign_of(staff, 2, wanted=3, attention=1, per_participant_cap=3)
    careless, careful = joined(campaign), joined(campaign)
    for post in CampaignPost.objects.filter(campaign=campaign, kind=Kind.REGULAR):
        for participant in (careless, careful):
            Judgment.objects.create(participant=participant, post=post, answer=True)
    # As a campaign stood before: every answer counted, a flag set afterwards, defaults of the new columns.
    Participant.objects.filter(id=careless.id).update(flagged_reason="failed an attention check")
    CampaignPost.objects.filter(campaign=campaign, kind=Kind.REGULAR).update(answered=2, yes=0, label="no answers")
    Campaign.objects.filter(id=campaign.id).update(stop_when_decided=True, min_answers_for_code=5)
    importlib.import_module("anonymizer.migrations.0008_crowd_quality_and_stopping").recount_posts(django_apps, None)
    campaign.refresh_from_db()
    assert (campaign.stop_when_decided, campaign.min_answers_for_code) == (False, 3)
    rows = CampaignPost.objects.filter(campaign=campaign, kind=Kind.REGULAR).values_list("answered", "yes", "label")
    assert list(rows) == [(1, 1, Label.INFERABLE)] * 2  # 1 yes of 1 valid: interval 0.21-1 clears 10%
