"""Issue 43, findings 2 and 6, in Debian's chromium at 1280 and 390 px: simulated careless participants (always Yes,
always No, at random) are flagged and shown no completion code; a careful participant's pages fit their task — no
site navigation on the join, task and done pages, the code copied by a keyboard-operated button that says
"Copied", and a progress line that reads "Done" when done (not "7 of up to 8" beside "Thank you!"). Screenshots
go to test-artifacts/crowd/."""

from __future__ import annotations

import random

import pytest

from anonymizer.crowd.web import services as crowd
from anonymizer.models import CampaignPost, Participant
from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
Kind = CampaignPost.Kind
ARTIFACTS = ROOT / "test-artifacts" / "crowd"
WIDTHS = {1280: 900, 390: 844}
NAVIGATION = ("Log in", "Sign up", "API", "Inspect", "Preferences")


def make_campaign(staff, *, regular: int, wanted: int, gold: int, attention: int, **options):
    posts = [crowd.PostSpec(f"Lunch by the river, post {i}", external_id=f"r{i}") for i in range(regular)]
    posts += [crowd.PostSpec(f"Known post {i}: the answer is {'yes' if i % 2 == 0 else 'no'}", Kind.GOLD,
                             i % 2 == 0, f"g{i}") for i in range(gold)]
    posts += crowd.attention_checks("en", attention)
    return crowd.create_campaign(owner=staff, name="Where was it?", instructions="Can you tell where?",
                                 consent_text="Answers are stored pseudonymously.", posts=posts,
                                 judgments_per_post=wanted, **options)


def no_site_navigation(page) -> None:
    assert page.query_selector("#site-nav") is None
    links = [link.strip() for link in page.eval_on_selector_all("header a, header button", "els => els.map("
                                                                 "e => e.textContent)")]
    assert not set(links) & set(NAVIGATION), links
    header = " ".join(page.text_content("header").split())
    assert header == "Skip to content 隠れ家 Kakurega", header  # the site's name, nothing else shown


def join_and_answer(context, live_server, campaign, decide, shots: str = "") -> tuple:
    """Join by the link, consent by keyboard, answer with Y / N until the session ends; the page and the keys.
    With ``shots``, screenshots of the join page and the first task under that name."""
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/p/{campaign.join_token}/")
    no_site_navigation(page)
    if shots:
        page.screenshot(path=str(ARTIFACTS / f"join-{shots}.png"), full_page=True)
    page.focus("#consent")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    page.wait_for_url("**/task/")
    keys = []
    for _ in range(campaign.per_participant_cap + 1):
        wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                          " || document.getElementById('crowd-post').textContent.length > 0", 15)
        if page.is_visible("#crowd-done"):
            return page, keys
        if shots and not keys:
            no_site_navigation(page)
            page.screenshot(path=str(ARTIFACTS / f"task-{shots}.png"), full_page=True)
        before = page.text_content("#crowd-count")
        key = "y" if decide(page.text_content("#crowd-post")) else "n"
        keys.append(key)
        page.keyboard.press(key)
        wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                          f" || document.getElementById('crowd-count').textContent !== {before!r}", 15)
    raise AssertionError("the session never ended")


def test_careless_participants_are_flagged_and_shown_no_code(live_server, staff):
    # Default gold settings (6 gold posts judged at 50%) and the most attention checks, so that a participant
    # answering at random passes every check with a chance below one in a million: the test cannot flake.
    campaign = make_campaign(staff, regular=40, wanted=20, gold=6, attention=20)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    rng = random.Random(43)
    careless = {"always-yes": lambda text: True, "always-no": lambda text: False,
                "random": lambda text: rng.random() < 0.5}
    for page in browser_page():
        for width, height in WIDTHS.items():
            for name, decide in careless.items():
                context = page.context.browser.new_context(viewport={"width": width, "height": height})
                done, keys = join_and_answer(context, live_server, campaign, decide)
                assert done.is_hidden("#completion") and done.text_content("#completion-code") == ""
                assert "Your session has ended" in done.text_content("#done-message")
                assert done.text_content("h2#done-heading") == "Your session has ended"  # not "Thank you!"
                assert "of up to" not in done.text_content("#crowd-progress-text")
                assert int(done.text_content("#crowd-count")) == len(keys)
                no_site_navigation(done)
                assert done.evaluate("document.documentElement.scrollWidth") <= width
                done.screenshot(path=str(ARTIFACTS / f"careless-{name}-{width}.png"), full_page=True)
                context.close()
    participants = list(Participant.objects.filter(campaign=campaign))
    assert len(participants) == 6
    assert all(p.flagged_reason and p.completion_code == "" and p.completed_at is None for p in participants)


def test_a_careful_participant_copies_the_code_and_the_progress_reads_done(live_server, staff):
    # 4 posts to judge (two answers each: one per width) and 4 checks: each session ends after 8 items, under
    # the cap of 10.
    campaign = make_campaign(staff, regular=4, wanted=2, gold=2, attention=2, per_participant_cap=10,
                             min_answers_for_code=1, min_gold_answers=2, gold_share=0.0)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def careful(text: str) -> bool:
        return "answer No" not in text and "the answer is no" not in text

    codes = []
    for page in browser_page():
        for width, height in WIDTHS.items():
            context = page.context.browser.new_context(viewport={"width": width, "height": height},
                                                       permissions=["clipboard-read", "clipboard-write"])
            done, keys = join_and_answer(context, live_server, campaign, careful, shots=str(width))
            assert done.text_content("h2#done-heading") == "Thank you!"
            progress = " ".join(done.text_content("#crowd-progress-text").split())
            assert progress == f"Done: {len(keys)} items answered" and "of up to" not in progress
            assert done.evaluate("document.getElementById('crowd-progress').value") == \
                done.evaluate("document.getElementById('crowd-progress').max")
            code = done.text_content("#completion-code")
            assert len(code) == 10
            codes.append(code)
            # The keyboard lands on the copy button; Enter copies the code and the page says so.
            assert done.evaluate("document.activeElement.id") == "copy-code"
            done.keyboard.press("Enter")
            wait_for_js(done, "document.getElementById('copy-status').textContent === 'Copied'", 10)
            assert done.evaluate("navigator.clipboard.readText()") == code
            no_site_navigation(done)
            assert done.evaluate("document.documentElement.scrollWidth") <= width
            done.screenshot(path=str(ARTIFACTS / f"done-{width}.png"), full_page=True)
            context.close()
    assert len(set(codes)) == 2
