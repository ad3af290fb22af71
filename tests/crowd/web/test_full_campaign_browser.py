"""A whole yes/no campaign in Debian's chromium: three participants, each in their own browser context (own
cookies), one of them careless. The careless one answers No to everything, fails the attention check, is
flagged at once and ends with no code; the post they had answered goes back to the queue, so every regular post
ends with two valid answers from the careful two, who get completion codes. The staff dashboard, as rendered in
the browser, shows the labels (two of two yes clear a 10% cut-off: human-inferable; none of two cannot:
undecided); a screenshot of it is saved to test-artifacts/crowd-full-campaign-dashboard.png."""

from __future__ import annotations

import random
import secrets
import types

import pytest
from django.urls import reverse

from anonymizer.crowd.web import services as crowd
from anonymizer.models import CampaignPost, Judgment
from tests.helpers import ROOT, browser_page, sign_in, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SCREENSHOT = ROOT / "test-artifacts" / "crowd-full-campaign-dashboard.png"
STAFF_PASSWORD = "a long staff passphrase"  # tests/conftest.py's staff fixture
CHECKS_WITHIN = 3
PLACEABLE = {
    "r1": "Meet me at the Shibuya Scramble crossing by Hachiko at six.",
    "r2": "Queueing for the lift to the top of the Eiffel Tower in Paris with the kids.",
}
UNPLACEABLE = {
    "r3": "Had a nice cup of tea and read a book this afternoon.",
    "r4": "Feeling a bit tired, going to bed early tonight.",
}
GOLD_TEXT = "Made pasta for dinner and watched a film on the sofa."  # nobody can place it: the known answer is No
ATTENTION_TEXT = crowd.ATTENTION_TEXTS["en"][0]  # (asks Yes, asks No): the one check here asks Yes


def truthful(text: str) -> bool:
    if text == ATTENTION_TEXT:
        return True
    if text == GOLD_TEXT:
        return False
    assert text in PLACEABLE.values() or text in UNPLACEABLE.values(), f"an unexpected post: {text!r}"
    return text in PLACEABLE.values()


def seed_with_attention_last() -> int:
    """A participant seed whose attention check falls on the last of the first ``CHECKS_WITHIN`` items (quality.
    schedule: places = Random(seed).sample(range(checks_within), 2), gold's then attention's), so that the
    careless participant answers a regular post before the check that flags them."""
    return next(seed for seed in range(1, 1000)
                if random.Random(seed).sample(range(CHECKS_WITHIN), 2)[1] == CHECKS_WITHIN - 1)


def run_participant(browser, url: str, decide, use_keys: bool) -> dict:
    """Join, consent and answer in a fresh browser context until #crowd-done shows; what the page showed."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(url)
        page.check("#consent")
        page.click("#start")
        page.wait_for_url("**/task/")
        seen: list[str] = []
        for _ in range(20):
            wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                              " || document.getElementById('crowd-post').textContent.length > 0", 15)
            if page.is_visible("#crowd-done"):
                break
            text = page.text_content("#crowd-post").strip()
            before = page.text_content("#crowd-count")
            seen.append(text)
            yes = decide(text)
            if use_keys:
                page.keyboard.press("y" if yes else "n")
            else:
                page.click("#answer-yes" if yes else "#answer-no")
            wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                              f" || document.getElementById('crowd-count').textContent !== {before!r}", 15)
        else:
            raise AssertionError(f"never done after {seen}")
        page.wait_for_selector("#crowd-done:not([hidden])")
        return {"seen": seen, "code": page.text_content("#completion-code").strip(),
                "code_visible": page.is_visible("#completion"),
                "message": page.text_content("#done-message").strip(),
                "message_visible": page.is_visible("#done-message"),
                "error": (page.text_content("#crowd-error") or "").strip()}
    finally:
        context.close()


def test_a_full_campaign_with_a_careless_participant(live_server, staff, monkeypatch):
    posts = ([crowd.PostSpec(text, external_id=key) for key, text in {**PLACEABLE, **UNPLACEABLE}.items()]
             + [crowd.PostSpec(GOLD_TEXT, CampaignPost.Kind.GOLD, False, "g1")]
             + crowd.attention_checks("en", 1))
    campaign = crowd.create_campaign(
        owner=staff, name="Can you tell where?", instructions="Answer Yes if you could say where it was written.",
        consent_text="Answers are stored pseudonymously.", posts=posts, judgments_per_post=2, cutoff=0.1,
        per_participant_cap=10, gold_share=0.0, min_answers_for_code=2, checks_within=CHECKS_WITHIN,
        min_gold_answers=1, min_judgments_per_post=2, stop_when_decided=True)
    # Participants are created by joining (seed = secrets.randbits(62)); give every one a seed that puts the
    # attention check third, so the careless participant meets a regular post before it.
    seed = seed_with_attention_last()
    monkeypatch.setattr(crowd, "secrets", types.SimpleNamespace(
        randbits=lambda bits: seed, token_urlsafe=secrets.token_urlsafe, token_hex=secrets.token_hex))
    join_url = f"{live_server.url}/p/{campaign.join_token}/"
    dashboard_url = live_server.url + reverse("campaign-detail", args=[campaign.id])
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    # No database calls inside the browser block (Playwright's event loop makes Django refuse them).
    for page in browser_page():
        browser = page.context.browser
        careless = run_participant(browser, join_url, lambda text: False, use_keys=False)
        careful = [run_participant(browser, join_url, truthful, use_keys=True) for _ in range(2)]
        page.set_default_timeout(15_000)
        page.set_viewport_size({"width": 1280, "height": 900})
        sign_in(page, live_server, staff.username, STAFF_PASSWORD)
        page.goto(dashboard_url)
        page.wait_for_selector("#aggregates")
        labels_text = " ".join(page.text_content("#campaign-labels").split())
        rows = page.evaluate("""Array.from(document.querySelectorAll('#aggregates tbody tr')).map(
            tr => Array.from(tr.cells).map(td => td.textContent.trim().replace(/\\s+/g, ' ')))""")
        participants_text = " ".join(page.text_content("#participants").split())
        page.screenshot(path=str(SCREENSHOT), full_page=True)

    # What each participant's browser showed.
    assert careless["seen"][-1] == ATTENTION_TEXT, careless
    assert any(text in {**PLACEABLE, **UNPLACEABLE}.values() for text in careless["seen"]), careless
    assert careless["message_visible"] and "no completion code" in careless["message"], careless
    assert not careless["code_visible"] and careless["code"] == "", careless
    for shown in careful:
        assert shown["code_visible"] and len(shown["code"]) == 10, shown
        assert not shown["message_visible"], shown
        assert sorted(shown["seen"]) == sorted([*PLACEABLE.values(), *UNPLACEABLE.values(), GOLD_TEXT,
                                                ATTENTION_TEXT]), shown

    # The database.
    flagged, *good = sorted(campaign.participants.all(), key=lambda p: (not p.flagged_reason, p.id))
    assert "attention" in flagged.flagged_reason, flagged.flagged_reason
    assert flagged.completion_code == "" and flagged.completed_at is None
    assert sorted(p.completion_code for p in good) == sorted(shown["code"] for shown in careful)
    assert all(not p.flagged_reason and p.completed_at is not None for p in good)
    careless_regular = set(flagged.judgments.filter(post__kind="regular").values_list("post__external_id", flat=True))
    assert careless_regular, "the careless participant answered no regular post before being flagged"
    for post in campaign.posts.filter(kind="regular"):
        assert post.answered == 2, (post.external_id, post.answered)
        assert Judgment.objects.filter(post=post, participant__flagged_reason="").count() == 2, post.external_id
        assert post.yes == (2 if post.external_id in PLACEABLE else 0), (post.external_id, post.yes)
    assert Judgment.objects.filter(participant=flagged).count() == len(careless["seen"])

    # The dashboard as the browser rendered it.
    assert "2 human-inferable" in labels_text and "2 undecided" in labels_text, labels_text
    by_id = {row[0].split()[0]: row for row in rows}
    for key in PLACEABLE:
        assert by_id[key][4] == "human-inferable", by_id[key]
    for key in UNPLACEABLE:
        assert by_id[key][4] == "undecided", by_id[key]
    for key in (*PLACEABLE, *UNPLACEABLE):
        assert by_id[key][1] == "2", by_id[key]  # valid answers
        assert by_id[key][5] == ("1" if key in careless_regular else "0"), by_id[key]  # flagged left out
    assert "attention" in participants_text, participants_text
    assert SCREENSHOT.stat().st_size > 10_000
