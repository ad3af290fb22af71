"""Replays of issue 42, finding 2: anyone with a campaign link could starve the campaign. 40 joins from one
address in 1.8 s each held a reservation for 300 s, and a real participant was then told to wait 299 s; a
flagged participant cleared cookies and joined again unseen; completion codes were bound to nobody. Each test
failed before the fix. Every test uses addresses of its own: rate-limit counts live in the session's Redis."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Assignment, Campaign, CampaignPost, Participant

pytestmark = pytest.mark.django_db
Kind = CampaignPost.Kind


def campaign_of(staff, *, regular: int = 2, wanted: int = 20, attention: int = 0, **options) -> Campaign:
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(regular)]
    posts += crowd.attention_checks("en", attention)
    options = {"gold_share": 0.0, "min_answers_for_code": 1, "reservation_seconds": 300, **options}
    return crowd.create_campaign(owner=staff, name="link", instructions="x", consent_text="x", posts=posts,
                                 judgments_per_post=wanted, **options)


class Participant_:
    """A browser on the campaign link: the Django test client, from one client address (REMOTE_ADDR)."""

    def __init__(self, campaign: Campaign, address: str, browser: Client | None = None) -> None:
        self.campaign = campaign
        self.http = browser or Client(REMOTE_ADDR=address)

    def join(self):
        return self.http.post(reverse("crowd-join", args=[self.campaign.join_token]), {"consent": "yes"})

    def next(self):
        return self.http.get(reverse("crowd-api", args=[self.campaign.join_token, "next"]))

    def answer(self, post: int, answer: bool):
        return self.http.post(reverse("crowd-api", args=[self.campaign.join_token, "answer"]),
                              {"post": post, "answer": answer}, content_type="application/json")

    def forget_session(self) -> None:
        """Clear the session cookie but keep the others, as a participant starting over does."""
        del self.http.cookies["sessionid"]


def test_a_flood_of_joins_from_one_address_leaves_a_participant_elsewhere_served(staff):
    campaign = campaign_of(staff)  # 2 posts x 20 answers: 40 slots, as in the finding
    flood = [Participant_(campaign, "10.42.2.1") for _ in range(40)]
    for bot in flood:
        assert bot.join().status_code == 302
    answers = [bot.next() for bot in flood]
    served = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if r.status_code == 429]
    assert len(served) + len(refused) == 40
    # The address holds a bounded share of what the campaign still needs, never all of it.
    held = Assignment.objects.filter(participant__campaign=campaign, answered_at__isnull=True,
                                     expires_at__gt=timezone.now()).count()
    assert held == len(served) < 20
    assert all(r.json()["wait"] >= 1 and "on your network" in r.json()["error"] and r["Retry-After"] for r in refused)
    # A real participant from another address is served at once, not told to wait.
    real = Participant_(campaign, "10.42.2.2")
    assert real.join().status_code == 302
    response = real.next()
    assert response.status_code == 200, response.json()
    assert response.json()["post"]["text"].startswith("post ")


def test_joining_again_releases_the_sessions_reservation(staff):
    campaign = campaign_of(staff)
    participant = Participant_(campaign, "10.42.2.11")
    participant.join()
    first = participant.next().json()["post"]["id"]
    reservation = Assignment.objects.get(post_id=first)
    assert reservation.expires_at > timezone.now()
    assert participant.join().status_code == 302  # the same session presses Start again
    reservation.refresh_from_db()
    assert reservation.expires_at <= timezone.now()  # back in the queue for others
    # A fresh session from the same browser (session cookie cleared) releases what the old session held.
    second = participant.next().json()["post"]["id"]
    old = Assignment.objects.get(post_id=second, participant__secret=participant.http.session["crowd-participant-"
                                                                                               f"{campaign.id}"])
    participant.forget_session()
    assert participant.join().status_code == 302
    old.refresh_from_db()
    assert old.expires_at <= timezone.now()
    assert Participant.objects.filter(campaign=campaign).count() == 2


def test_joins_are_rate_limited_per_address(staff, settings):
    settings.CROWD_JOIN_RATE = "3/hour"
    campaign = campaign_of(staff)
    codes = [Participant_(campaign, "10.42.2.21").join().status_code for _ in range(3)]
    assert codes == [302, 302, 302]
    refused = Participant_(campaign, "10.42.2.21").join()
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many joins came from your address" in refused.content.decode()
    assert Participant.objects.filter(campaign=campaign).count() == 3  # the refused join made nobody
    assert Participant_(campaign, "10.42.2.22").join().status_code == 302  # another address is unaffected


def test_a_completion_code_is_shown_once_to_its_own_session(staff):
    campaign = campaign_of(staff, regular=1, wanted=2, per_participant_cap=1)
    participant = Participant_(campaign, "10.42.2.31")
    participant.join()
    post = participant.next().json()["post"]["id"]
    finished = participant.answer(post, True).json()
    code = finished["completion_code"]
    record = Participant.objects.get(campaign=campaign)
    assert finished["done"] and len(code) == 10 and code == record.completion_code
    assert record.code_shown_at is not None  # when it was shown is on record
    again = participant.next().json()  # a reload, a second tab, a shared session cookie
    assert again["done"] and again["completion_code"] == "" and "shown only once" in again["message"]
    # Nobody else's session ever sees it.
    other = Participant_(campaign, "10.42.2.32")
    other.join()
    other_post = other.next().json()["post"]["id"]
    assert code not in other.answer(other_post, True).content.decode()


def test_a_flagged_browser_joining_afresh_is_shown_to_staff(staff):
    campaign = campaign_of(staff, regular=4, wanted=5, attention=1, checks_within=2)
    careless = Participant_(campaign, "10.42.2.41")
    careless.join()
    payload = careless.next().json()
    while not payload["done"]:  # says No to everything, the attention check too
        payload = careless.answer(payload["post"]["id"], False).json()
    assert Participant.objects.get(campaign=campaign).flagged_reason
    careless.forget_session()  # clears the session cookie and starts again
    assert careless.join().status_code == 302
    careless.http.cookies.clear()  # clears every cookie and starts again, from the same address
    assert careless.join().status_code == 302
    unrelated = Participant_(campaign, "10.42.2.42")
    unrelated.join()
    rejoined = dict(Participant.objects.filter(campaign=campaign).values_list("created_at", "rejoined_after_flag"))
    assert [rejoined[at] for at in sorted(rejoined)] == ["", "browser", "address", ""]
    dashboard = Client()
    dashboard.force_login(staff)
    page = dashboard.get(reverse("campaign-detail", args=[campaign.id])).content.decode()
    assert "2 rejoined after a flagged session" in page
    assert "same browser" in page and "same address" in page
    export = dashboard.get(reverse("campaign-export", args=[campaign.id, "participants", "csv"]))
    assert export.status_code == 200
    header, *rows = export.content.decode().splitlines()
    assert "rejoined_after_flag" in header and "completion_code" in header and "flagged_reason" in header
    assert len(rows) == 4
    # The browser cookie is HttpOnly and long-lived; neither it nor the address is stored, only keyed hashes.
    cookie = unrelated.http.cookies["kakurega_browser"]
    assert cookie["httponly"] and int(cookie["max-age"]) >= 300 * 86_400
    stored = str(list(Participant.objects.values()))
    assert cookie.value not in stored and "10.42.2.4" not in stored
