"""Who may see what: participants see only their own items, staff only their own campaigns, others nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, Judgment

pytestmark = pytest.mark.django_db



@pytest.fixture
def other_staff(django_user_model):
    return django_user_model.objects.create_user("suzuki", password="another staff passphrase", is_staff=True)


@pytest.fixture
def campaign(staff) -> Campaign:
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(4)]
    return crowd.create_campaign(owner=staff, name="private", instructions="Judge.", consent_text="OK.", posts=posts,
                                 judgments_per_post=2)


def participant_client(campaign: Campaign, address: str = "127.0.0.1") -> Client:
    """A participant's browser, from ``address``: two people on one address share its reservations' cap."""
    client = Client(REMOTE_ADDR=address)
    client.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    return client


def api(client: Client, campaign: Campaign, action: str, body=None):
    url = reverse("crowd-api", args=[campaign.join_token, action])
    return client.post(url, body, content_type="application/json") if body is not None else client.get(url)


def test_participants_see_only_their_own_items(campaign):
    alice, bob = participant_client(campaign, "192.0.2.1"), participant_client(campaign, "192.0.2.2")
    served = api(alice, campaign, "next").json()
    assert set(served) == {"progress", "error", "done", "post", "expires_at"}
    assert set(served["post"]) == {"id", "text"}  # no kind (gold), no other answers, no counts
    after = api(alice, campaign, "answer", {"post": served["post"]["id"], "answer": True}).json()
    assert after["progress"] == {"answered": 1, "cap": 50}
    # Bob cannot answer, undo or learn anything about Alice's post.
    stolen = api(bob, campaign, "answer", {"post": served["post"]["id"], "answer": False})
    assert stolen.status_code == 400 and "not served to you" in stolen.json()["error"]
    assert api(bob, campaign, "undo", {}).status_code == 400
    assert api(bob, campaign, "next").json()["progress"]["answered"] == 0
    assert Judgment.objects.count() == 1


def test_strangers_and_participants_cannot_read_aggregates(campaign, staff, other_staff, django_user_model):
    participant = participant_client(campaign)
    outsider = django_user_model.objects.create_user("kato", password="an ordinary passphrase")
    pages = [reverse("campaign-detail", args=[campaign.id]),
             reverse("campaign-export", args=[campaign.id, "aggregates", "csv"]),
             reverse("campaign-export", args=[campaign.id, "judgments", "jsonl"]),
             reverse("campaign-export", args=[campaign.id, "participants", "csv"])]
    for url in pages:
        assert participant.get(url).status_code == 302  # to the log-in page
        client = Client()
        client.force_login(outsider)
        assert client.get(url).status_code == 403
        client.force_login(other_staff)
        assert client.get(url).status_code == 404
        client.force_login(staff)
        assert client.get(url).status_code == 200
    api_urls = [reverse("api-campaign-detail", args=[campaign.id]), reverse("api-campaign-report", args=[campaign.id]),
                reverse("api-campaign-export", args=[campaign.id, "aggregates", "csv"]),
                reverse("api-campaign-export", args=[campaign.id, "participants", "jsonl"])]
    for url in api_urls:
        assert APIClient().get(url).status_code in (401, 403)
        client = APIClient()
        client.force_authenticate(outsider)
        assert client.get(url).status_code == 403
        client.force_authenticate(other_staff)
        assert client.get(url).status_code == 404
        client.force_authenticate(staff)
        assert client.get(url).status_code == 200


def test_non_staff_cannot_create_campaigns(django_user_model, tokyo, location_models):
    outsider = django_user_model.objects.create_user("kato", password="an ordinary passphrase")
    client = APIClient()
    client.force_authenticate(outsider)
    body = {"name": "x", "instructions": "x", "consent_text": "x", "posts": [{"text": "hello"}]}
    assert client.post(reverse("api-campaign-list"), body, format="json").status_code == 403
    page = Client()
    page.force_login(outsider)
    assert page.get(reverse("campaign-new")).status_code == 403
    assert not Campaign.objects.exists()
    with pytest.raises(PermissionError):
        crowd.create_campaign(owner=outsider, name="x", instructions="x", consent_text="x",
                              posts=[crowd.PostSpec("hello")])


def test_staff_create_a_campaign_through_the_api_and_export_it(staff, location_models):
    client = APIClient()
    client.force_authenticate(staff)
    body = {"name": "Tokyo sample", "instructions": "Judge.", "consent_text": "OK.", "location_model": "tokyo-ja",
            "sample": 30, "attention_checks": 2, "judgments_per_post": 3, "min_gold_answers": 1,
            "posts": [{"text": "東京タワーの真下なう", "kind": "gold", "gold": True, "id": "g1"}]}
    created = client.post(reverse("api-campaign-list"), body, format="json")
    assert created.status_code == 201, created.content
    campaign = Campaign.objects.get(id=created.json()["id"])
    assert campaign.posts.filter(kind="regular").count() == 30
    assert campaign.posts.filter(kind="attention").count() == 2 and campaign.posts.filter(kind="gold").count() == 1
    assert created.json()["join_url"].endswith(f"/p/{campaign.join_token}/")
    export = client.get(reverse("api-campaign-export", args=[campaign.id, "aggregates", "csv"]))
    lines = b"".join(export.streaming_content if export.streaming else [export.content]).decode().splitlines()
    assert lines[0].startswith("post,") and len(lines) == 31
    report = client.get(reverse("api-campaign-report", args=[campaign.id])).json()
    assert report["posts"] == 30 and report["judgments_wanted"] == 90 and report["alpha"] is None


def test_a_bad_posts_csv_is_refused_with_its_row(staff, client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(staff)
    file = SimpleUploadedFile("posts.csv", b"text,gold\nhello,yes\nworld,maybe\n")
    response = client.post(reverse("campaign-new"), {
        "name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "posts_file": file,
        "text_column": "text", "sample_size": 10, "attention_checks": 0, "judgments_per_post": 5, "cutoff": 0.1,
        "gold_share": 0.1, "min_gold_accuracy": 0.7, "per_participant_cap": 10, "reservation_seconds": 60})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'Row 3, column 2 (&quot;gold&quot;)' in page, page[page.find("errorlist"): page.find("errorlist") + 400]
    assert not Campaign.objects.exists()
