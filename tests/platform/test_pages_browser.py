"""Every page in Debian's chromium at a desktop width and at a 390 px phone width (issue 19): no sideways
scrolling, no error in the console, the navigation reachable (folded behind "Menu" on the phone), and a screenshot
of each saved to test-artifacts/pages/<page>-<width>.png for a person to look at."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, Job
from anonymizer.platform.jobs import runner
from tests.helpers import ROOT, browser_page, csv_upload, sign_in, wait_for_js
from tests.preferences.conftest import default_artifact, default_checkins, preference_model  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts" / "pages"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
STAFF_PASSWORD = "a long staff passphrase"


def strike_campaign(staff, model) -> Campaign:
    """A strike-words campaign with map clicks, answered by two participants (words struck, points clicked)."""
    campaign = crowd.create_campaign(owner=staff, name="Strike the place", instructions="Strike words.",
                                     consent_text="OK.", posts=crowd.posts_from_corpus(model, 3, seed=5),
                                     task=Campaign.Task.DEIDENTIFY, ask_location=True, location_model=model,
                                     judgments_per_post=2, per_participant_cap=3)
    for _ in range(2):
        participant = crowd.join(campaign)
        crowd.consent(participant)
        while (assignment := crowd.next_assignment(participant)) is not None:
            crowd.answer(participant, assignment.post_id, deleted_tokens=[0], latitude=35.68, longitude=139.76,
                         text_after=assignment.post.text[1:])
    return campaign


def pages_of(staff, location_models=None) -> dict[str, str]:
    """Every page a person reaches, with the records they show made first (through the real code paths)."""
    client = Client()
    client.force_login(staff)
    client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 2})
    job = Job.objects.get()
    runner.run_job(job.id)
    upload = job.inputs.get()
    campaign = crowd.create_campaign(owner=staff, name="Where was it?", instructions="Can you tell where?",
                                     consent_text="Answers are stored pseudonymously.",
                                     posts=[crowd.PostSpec(t) for t in ("Lunch at the river", "Quiet night")],
                                     judgments_per_post=1, per_participant_cap=2)
    return {
        "inspect": reverse("home"),
        "preferences": reverse("preferences"),
        "preference-jobs": reverse("preference-jobs"),
        "jobs": reverse("job-list"),
        "job": reverse("job-detail", args=[job.id]),
        "profile-new": reverse("profile-new"),
        "uploads": reverse("upload-list"),
        "kanon-configure": reverse("kanon-configure", args=[upload.id]),
        "kanon-runs": reverse("kanon-compare", args=[upload.id]),
        "remove-time": reverse("temporal-remove-time", args=[upload.id]),
        "campaigns": reverse("campaign-list"),
        "campaign-new": reverse("campaign-new"),
        "campaign": reverse("campaign-detail", args=[campaign.id]),
        "crowd-join": reverse("crowd-join", args=[campaign.join_token]),
        "account": reverse("account"),
        "account-delete": reverse("account-delete"),
        "password-change": reverse("password_change"),
        "api-token": reverse("api-token"),
        "not-found": "/no-such-page/",
        # The confirmations the destructive actions ask first (a GET only shows what goes).
        "upload-delete": reverse("upload-delete", args=[upload.id]),
        "job-delete": reverse("job-delete", args=[job.id]),
        "campaign-close": reverse("campaign-action", args=[campaign.id, "close"]),
        **({"campaign-strikes": reverse("campaign-detail",
                                        args=[strike_campaign(staff, location_models["tokyo-ja"]).id])}
           if location_models else {}),
    }


# Pages of a visitor who is not logged in.
VISITOR_PAGES = {"visitor-inspect": "/", "login": "/accounts/login/", "signup": "/accounts/signup/",
                 "visitor-not-found": "/no-such-page/"}


def check_page(page, url: str, name: str, width: str, errors: list[str]) -> list[str]:
    """Open one page; return what is wrong with it."""
    errors.clear()
    page.goto(url, wait_until="load")
    problems = [f"console: {message}" for message in errors
                if "not-found" not in name or "404" not in message]  # the 404 page's own status is no error
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if overflow > 1:
        widest = page.evaluate("""[...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .slice(-3).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''))""")
        problems.append(f"scrolls sideways by {overflow} px ({', '.join(widest)})")
    if width == "phone":
        if not page.is_visible("#site-nav .nav-toggle") or page.is_visible("#nav-menu"):
            problems.append("the navigation is not folded behind Menu")
        else:
            page.click("#site-nav .nav-toggle")
            if not page.is_visible("#nav-menu a[href='/preferences/']"):
                problems.append("Menu does not open the navigation")
            page.click("#site-nav .nav-toggle")
    elif not page.is_visible("#nav-menu a[href='/preferences/']"):
        problems.append("the navigation is not shown")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
    return [f"{name} at {width}: {problem}" for problem in problems]


def test_every_page_fits_a_phone_and_a_desktop_without_console_errors(live_server, staff, location_models,
                                                                       preference_model):  # noqa: F811
    pages = pages_of(staff, location_models)  # before the browser: Playwright then stops Django's database calls
    found: list[str] = []
    errors: list[str] = []  # what the page logs as an error, cleared before each page
    for page in browser_page():
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20_000)
        for width, (w, h) in WIDTHS.items():
            page.set_viewport_size({"width": w, "height": h})
            for name, path in VISITOR_PAGES.items():
                found += check_page(page, live_server.url + path, name, width, errors)
        page.set_viewport_size({"width": 1280, "height": 900})
        sign_in(page, live_server, staff.username, STAFF_PASSWORD)
        for width, (w, h) in WIDTHS.items():
            page.set_viewport_size({"width": w, "height": h})
            for name, path in pages.items():
                found += check_page(page, live_server.url + path, name, width, errors)
        wait_for_js(page, "true")
    assert found == [], "\n".join(found)
    assert len(list(ARTIFACTS.glob("*-phone.png"))) >= len(pages) + len(VISITOR_PAGES)
