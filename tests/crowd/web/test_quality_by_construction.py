"""Issue 43, finding 2: quality control that holds by construction, through the services, the form, the API and
the dashboard. A participant who answered Yes to everything passed the only attention check and got a code while
gold flagging never started (2 gold posts, judged after 3); the dashboard claimed checks the campaign lacked."""

from __future__ import annotations

import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Assignment, Campaign, CampaignPost, Judgment, Participant

pytestmark = pytest.mark.django_db
Kind = CampaignPost.Kind


def default_campaign(staff, *, regular: int = 60, wanted: int = 20, gold: int = 6, attention: int = 8,
                     **options) -> Campaign:
    """A campaign with the default quality settings: gold posts half Yes, half No, and the default attention
    checks."""
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(regular)]
    posts += [crowd.PostSpec(f"gold {i}", Kind.GOLD, i % 2 == 0, f"g{i}") for i in range(gold)]
    posts += crowd.attention_checks("en", attention)
    return crowd.create_campaign(owner=staff, name="q", instructions="x", consent_text="x", posts=posts,
                                 judgments_per_post=wanted, **options)


def session(campaign: Campaign, decide) -> Participant:
    """One participant answering until the queue has nothing more for them."""
    participant = crowd.join(campaign)
    crowd.consent(participant)
    for _ in range(campaign.per_participant_cap + 1):
        assignment = crowd.next_assignment(participant)
        if assignment is None:
            participant.refresh_from_db()
            return participant
        crowd.answer(participant, assignment.post_id, answer=decide(assignment.post))
    raise AssertionError("the queue never ran out")


def right(post: CampaignPost) -> bool:
    return bool(post.gold_answer) if post.kind != Kind.REGULAR else True


CARELESS = {"always Yes": lambda post: True, "always No": lambda post: False}


@pytest.mark.parametrize("kind", ["always Yes", "always No", "random"])
def test_careless_participants_are_flagged_and_get_no_code_with_the_default_settings(staff, kind):
    campaign = default_campaign(staff)
    rng = random.Random(43)
    decide = CARELESS.get(kind, lambda post: rng.random() < 0.5)
    for _ in range(4):
        participant = session(campaign, decide)
        assert participant.flagged_reason and participant.completion_code == "" and participant.completed_at is None
        assert "session has ended" in crowd.done_message(participant)
    careful = session(campaign, right)
    assert careful.flagged_reason == "" and len(careful.completion_code) == 10
    # The careful one met every check: all 6 gold posts and the 8 attention checks, both kinds.
    kinds = list(Judgment.objects.filter(participant=careful).exclude(post__kind=Kind.REGULAR)
                 .values_list("post__kind", "post__gold_answer"))
    assert kinds.count((Kind.GOLD, True)) + kinds.count((Kind.GOLD, False)) >= 6
    assert kinds.count((Kind.ATTENTION, True)) == 4 and kinds.count((Kind.ATTENTION, False)) == 4


def test_a_participant_whose_posts_run_out_meets_the_missing_checks_before_a_code(staff):
    """Work ends before the checks' places come: the checks are served then, and decide the code."""
    campaign = default_campaign(staff, regular=5, wanted=1, checks_within=20, per_participant_cap=50)
    yes = session(campaign, CARELESS["always Yes"])
    assert yes.flagged_reason.startswith("failed")
    assert yes.completion_code == ""
    Participant.objects.filter(id=yes.id).delete()  # its posts back to the queue for the next one
    careful = session(campaign, right)
    assert len(careful.completion_code) == 10
    assert Judgment.objects.filter(participant=careful, post__kind=Kind.ATTENTION).count() == 8


def test_the_flag_is_decided_where_a_code_would_be_issued(staff):
    """Answers stored without a flag being worked out (as an older version left them) still flag at the code."""
    campaign = default_campaign(staff, regular=5, wanted=1, gold=0, attention=2)
    participant = crowd.join(campaign)
    crowd.consent(participant)
    for post in CampaignPost.objects.filter(campaign=campaign):  # every item answered Yes, the No-check too
        Assignment.objects.create(participant=participant, post=post, served_at=campaign.created_at,
                                  answered_at=campaign.created_at, expires_at=campaign.created_at)
        Judgment.objects.create(participant=participant, post=post, answer=True)
    assert Participant.objects.get(id=participant.id).flagged_reason == ""
    assert crowd.next_assignment(participant) is None  # nothing left: the code would be issued here
    participant.refresh_from_db()
    assert participant.flagged_reason == "failed an attention check" and participant.completion_code == ""


def test_attention_checks_ask_yes_and_no_in_turn():
    checks = crowd.attention_checks("ja", 4)
    assert [c.gold_answer for c in checks] == [True, False, True, False]
    assert "「いいえ」" in checks[1].text and "「はい」" in checks[0].text


FORM = {"name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "text_column": "text",
        "sample_size": 10, "attention_checks": 8, "judgments_per_post": 5, "cutoff": 0.1, "gold_share": 0.1,
        "min_gold_accuracy": 0.5, "per_participant_cap": 50, "reservation_seconds": 60}


def posts_csv(gold: int) -> SimpleUploadedFile:
    rows = "".join(f"post {i},\n" for i in range(10)) + "".join(f"gold {i},yes\n" for i in range(gold))
    return SimpleUploadedFile("posts.csv", f"text,gold\n{rows}".encode())


def test_the_form_refuses_fewer_gold_posts_than_the_flagging_minimum_at_the_field(client, staff):
    client.force_login(staff)
    page = client.post(reverse("campaign-new"), {**FORM, "posts_file": posts_csv(2)})
    errors = page.context["form"].errors
    assert "The posts include 2 gold posts, but gold accuracy is judged only after 6 gold answers" in \
        errors["min_gold_answers"][0]
    assert "add at least 4 more gold posts, or judge accuracy after 2 gold answers" in errors["min_gold_answers"][0]
    assert not Campaign.objects.exists()
    page = client.post(reverse("campaign-new"), {**FORM, "posts_file": posts_csv(2), "min_gold_answers": 2})
    assert page.status_code == 302 and Campaign.objects.get().min_gold_answers == 2
    page = client.post(reverse("campaign-new"), {**FORM, "posts_file": posts_csv(6), "attention_checks": 1})
    assert "give 0, or at least 2" in page.context["form"].errors["attention_checks"][0]


def test_the_form_warns_about_a_campaign_without_gold_posts(client, staff):
    client.force_login(staff)
    page = client.post(reverse("campaign-new"), {**FORM, "posts_file": posts_csv(0), "attention_checks": 0},
                       follow=True)
    text = page.content.decode()
    assert "no gold post" in text and "No attention checks" in text
    campaign = Campaign.objects.get()
    checks = text[text.index('id="campaign-checks"'):]
    checks = checks[:checks.index("</dd>")]
    assert "No attention checks." in checks and "No gold posts" in checks
    assert "attention check within" not in checks and "first 5 items" not in checks
    assert campaign.posts.filter(kind=Kind.ATTENTION).count() == 0


def test_the_api_refuses_too_few_gold_posts_and_too_small_a_cap_naming_the_field(staff):
    api = APIClient()
    api.force_authenticate(staff)
    body = {"name": "x", "instructions": "x", "consent_text": "x",
            "posts": [{"text": "a post"}] + [{"text": f"gold {i}", "kind": "gold", "gold": True} for i in range(2)]}
    response = api.post(reverse("api-campaign-list"), body, format="json")
    assert response.status_code == 400
    assert "2 gold posts" in response.json()["min_gold_answers"][0] and "after 6 gold answers" in \
        response.json()["min_gold_answers"][0]
    response = api.post(reverse("api-campaign-list"), {**body, "min_gold_answers": 2, "per_participant_cap": 10},
                        format="json")
    assert response.status_code == 400
    assert "5 answered posts plus 10 check items (2 gold, 8 attention), 15 items" in \
        response.json()["per_participant_cap"][0]
    response = api.post(reverse("api-campaign-list"), {**body, "attention_checks": 1}, format="json")
    assert response.status_code == 400 and "attention_checks" in response.json()
    assert not Campaign.objects.exists()
    created = api.post(reverse("api-campaign-list"), {**body, "posts": body["posts"][:1], "attention_checks": 0},
                       format="json")
    assert created.status_code == 201
    assert any("no gold post" in w for w in created.json()["warnings"])
    assert any("No attention checks" in w for w in created.json()["warnings"])


def test_the_dashboard_draws_each_participants_gold_accuracy_against_the_minimum(staff):
    campaign = default_campaign(staff)
    careful = session(campaign, right)
    careless = session(campaign, CARELESS["always No"])
    client = Client()
    client.force_login(staff)
    page = client.get(reverse("campaign-detail", args=[campaign.id])).content.decode()
    chart = page[page.index('id="gold-chart"'):page.index("</figure>", page.index('id="gold-chart"'))]
    assert chart.count('class="participant ') == 2
    assert 'class="minimum"' in chart and "minimum 50% after 6 gold" in chart
    assert f"{str(careful.id)[:8]}: " in chart and 'class="participant passing"' in chart
    flagged = 'class="participant flagged"' in chart or 'class="participant not-judged"' in chart
    assert flagged and str(careless.id)[:8] in chart
    checks = page[page.index('id="campaign-checks"'):]
    assert "8 attention checks (4 ask Yes, 4 ask No)" in checks[:checks.index("</dd>")]
