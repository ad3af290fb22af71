"""Issue 43, finding 5: what the campaign pages hand a researcher reads in their terms — exports named by the
campaign and the day (not by its UUID), and the new-campaign help without a developer's file path."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from anonymizer.crowd.web import services as crowd
from tests.helpers import token_client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("name", "stem"), [("Where was it? (pilot #2)", "where-was-it-pilot-2"),
                                            ("港区の投稿", "港区の投稿"), ("???", "campaign")])
def test_exports_are_named_by_the_campaign_and_the_day(staff, name, stem):
    campaign = crowd.create_campaign(owner=staff, name=name, instructions="Judge.", consent_text="I agree.",
                                     posts=[crowd.PostSpec("Lunch at the river")])
    client = Client()
    client.force_login(staff)
    today = f"{timezone.localdate():%Y-%m-%d}"
    for what, fmt in (("judgments", "csv"), ("aggregates", "jsonl"), ("participants", "csv")):
        for response in (client.get(reverse("campaign-export", args=[campaign.id, what, fmt])),
                         token_client(staff).get(reverse("api-campaign-export", args=[campaign.id, what, fmt]))):
            assert response.status_code == 200
            disposition = response["Content-Disposition"]
            assert str(campaign.id) not in disposition
            expected = f"{stem}-{today}-{what}.{fmt}"
            if stem.isascii():
                assert disposition == f'attachment; filename="{expected}"'
            else:  # RFC 6266: a non-ASCII name travels percent-encoded as UTF-8
                from urllib.parse import quote
                assert disposition == f"attachment; filename*=utf-8''{quote(expected)}"


def test_the_new_campaign_help_speaks_to_researchers_not_developers(staff):
    client = Client()
    client.force_login(staff)
    page = client.get(reverse("campaign-new")).content.decode()
    assert "bench/" not in page and ".py" not in page
    assert "44% fewer answers" in page  # the finding is still said, in the user's terms
