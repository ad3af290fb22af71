"""A participant in Debian's chromium: joins by the campaign link, consents, answers with the keyboard only,
undoes an answer, and reaches the completion code."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Judgment
from tests.helpers import browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]



def test_join_consent_answer_with_the_keyboard_and_finish(live_server, staff):
    posts = [crowd.PostSpec(text) for text in ("Lunch at the river", "Heading to the station", "Quiet night")]
    campaign = crowd.create_campaign(owner=staff, name="Where was it?", instructions="Can you tell where?",
                                     consent_text="Answers are stored pseudonymously.", posts=posts,
                                     judgments_per_post=1, per_participant_cap=3, min_answers_for_code=3)
    for page in browser_page():
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}/p/{campaign.join_token}/")
        assert "Answers are stored pseudonymously." in page.text_content("main")
        page.keyboard.press("Tab")
        page.focus("#consent")
        page.keyboard.press("Space")
        page.keyboard.press("Enter")  # submits the consent form
        page.wait_for_url("**/task/")
        wait_for_js(page, "document.getElementById('crowd-post').textContent.length > 0")
        first = page.text_content("#crowd-post")
        page.keyboard.press("y")
        wait_for_js(page, f"document.getElementById('crowd-post').textContent !== {first!r}")
        assert page.text_content("#crowd-count") == "1"
        page.keyboard.press("u")  # undo: the first post comes back
        wait_for_js(page, f"document.getElementById('crowd-post').textContent === {first!r}")
        assert page.text_content("#crowd-count") == "0"
        for key in ("n", "y", "n"):
            before = page.text_content("#crowd-count")
            page.keyboard.press(key)
            wait_for_js(page, f"document.getElementById('crowd-count').textContent !== {before!r}")
        page.wait_for_selector("#crowd-done:not([hidden])")
        code = page.text_content("#completion-code")
        assert len(code) == 10
    participant = campaign.participants.get()
    assert participant.completion_code == code and participant.completed_at is not None
    assert sorted(Judgment.objects.values_list("answer", flat=True)) == [False, False, True]


def test_the_click_map_shows_land_and_places(live_server, staff, location_models):
    campaign = crowd.create_campaign(owner=staff, name="Where?", instructions="Click where.",
                                     consent_text="Answers are stored pseudonymously.",
                                     posts=[crowd.PostSpec("Lunch at the river")], judgments_per_post=1,
                                     per_participant_cap=1, min_answers_for_code=1, ask_location=True,
                                     location_model=location_models["us-midwest-en"])
    errors: list[str] = []
    for page in browser_page():
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}/p/{campaign.join_token}/")
        page.check("#consent")
        page.keyboard.press("Enter")
        page.wait_for_url("**/task/")
        wait_for_js(page, "document.querySelectorAll('#crowd-map .leaflet-geography-pane path.geo-land').length > 0")
        assert page.evaluate("document.querySelector('#crowd-map path.geo-land').getBoundingClientRect().width") > 100
        assert page.evaluate("document.querySelectorAll('#crowd-map .place-label').length") > 0
    assert errors == []


def test_a_page_whose_address_holds_its_share_waits_and_asks_again(live_server, staff):
    """Issue 42: the next-post endpoint answers 429 with a wait while the address holds its share of the open
    reservations; the page says so and asks again after the wait, once, and is served when a slot comes free."""
    posts = [crowd.PostSpec(text) for text in ("Lunch at the river", "Heading to the station", "Quiet night")]
    campaign = crowd.create_campaign(owner=staff, name="Where was it?", instructions="Can you tell where?",
                                     consent_text="Answers are stored pseudonymously.", posts=posts,
                                     judgments_per_post=1, per_participant_cap=3, min_answers_for_code=1,
                                     reservation_seconds=10)
    # Someone else on the browser's address (the live server sees 127.0.0.1) holds the address's one slot:
    # 3 answers needed, a fifth of them rounds down to the minimum of one.
    neighbour = crowd.join(campaign, address="127.0.0.1")
    crowd.consent(neighbour)
    assert crowd.next_assignment(neighbour) is not None
    asked: list[int] = []
    for page in browser_page():
        page.set_default_timeout(15_000)
        page.on("response", lambda response: asked.append(response.status) if "/api/next" in response.url else None)
        page.goto(f"{live_server.url}/p/{campaign.join_token}/")
        page.check("#consent")
        page.keyboard.press("Enter")
        page.wait_for_url("**/task/")
        page.wait_for_selector("#crowd-error:not([hidden])")
        assert "Many people on your network" in page.text_content("#crowd-error")
        # The neighbour's reservation ends: the page is served at its next ask. (From a thread: Playwright's
        # event loop runs in this one, and Django refuses database calls from within a running loop.)
        release = threading.Thread(target=_in_own_connection, args=(crowd.rejoin, neighbour))
        release.start()
        release.join(30)
        wait_for_js(page, "document.getElementById('crowd-post').textContent.length > 0", timeout=30)
        assert page.is_hidden("#crowd-error")
    assert asked == [429, 200]  # one polite ask after the wait, not a stream of retries


def _in_own_connection(function, *args) -> None:
    try:
        function(*args)
    finally:
        connection.close()
