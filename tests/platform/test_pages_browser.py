"""Every page in Debian's chromium at a desktop width and at a 390 px phone width (issue 19): no sideways
scrolling, no error in the console, the navigation reachable (folded behind "Menu" on the phone), a "Skip to
content" link first on the keyboard, no serious or critical axe-core violation (issue 43), and a screenshot of each
saved to test-artifacts/pages/<page>-<width>.png for a person to look at (axe's counts in axe.json there).

The same again in a browser set to Japanese (issue 49; screenshots in test-artifacts/pages/ja/): every text a
reader sees or a screen reader reads is Japanese, apart from what the user wrote or uploaded, code, and the names
and symbols of tests/i18n_catalog.KEPT_WORDS. The participants' pages of this test's campaign are in its language,
English, whatever the browser says; tests/crowd checks a Japanese campaign's."""

from __future__ import annotations

import functools
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, Job
from anonymizer.platform.jobs import runner
from tests.helpers import PAPER_EXAMPLE_ROWS, ROOT, axe_violations, browser_page, csv_upload, sign_in, wait_for_js
from tests.i18n_catalog import english_words
from tests.preferences.conftest import default_artifact, default_checkins, preference_model  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts" / "pages"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
STAFF_PASSWORD = "a long staff passphrase"


def strike_campaign(staff, model, participants: int = 2) -> Campaign:
    """A strike-words campaign with map clicks, answered by ``participants`` participants (words struck, points
    clicked)."""
    campaign = crowd.create_campaign(owner=staff, name="Strike the place", instructions="Strike words.",
                                     consent_text="OK.", posts=crowd.posts_from_corpus(model, 3, seed=5),
                                     task=Campaign.Task.DEIDENTIFY, ask_location=True, location_model=model,
                                     judgments_per_post=2, per_participant_cap=3)
    for _ in range(participants):
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
        "inspect-result": reverse("home"),  # after inspecting a post (PREPARE)
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
        "crowd-task": reverse("crowd-join", args=[campaign.join_token]),  # started, a post shown (PREPARE)
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
        # A participant striking words with the map to click (PREPARE starts it).
        **({"crowd-task-strikes": reverse("crowd-join", args=[strike_campaign(
            staff, location_models["tokyo-ja"], participants=0).join_token])} if location_models else {}),
    }


# Pages of a visitor who is not logged in.
VISITOR_PAGES = {"visitor-inspect": "/", "login": "/accounts/login/", "signup": "/accounts/signup/",
                 "visitor-not-found": "/no-such-page/"}


def skip_link_problems(page, screenshot: str | None = None) -> list[str]:
    """From the top of a freshly loaded page, Tab once shows "Skip to content" and Enter moves the focus to main
    (a screenshot of the shown link to ``screenshot``, a file name in ARTIFACTS, when given)."""
    # A form's autofocus (Django's login and password forms) starts the keyboard in its field: back to the top, as
    # the "#top" fragment goes. The browser applies autofocus at a later rendering step than "load", so wait (at most
    # 2 s) until it has been, or a Tab pressed before it would start from the field (seen once in CI, on signup).
    page.evaluate("""() => new Promise(done => {
        const field = document.querySelector('[autofocus]'), start = performance.now();
        (function settle() {
            if (field && document.activeElement !== field && performance.now() - start < 2000)
                return requestAnimationFrame(settle);
            if (document.activeElement !== document.body) { document.activeElement.blur(); location.hash = '#top'; }
            done();
        })();
    })""")
    page.keyboard.press("Tab")
    focused = page.evaluate("""(() => { const e = document.activeElement, r = e.getBoundingClientRect();
        return {skip: e.matches('a.skip-link[href="#content"]'), text: (e.textContent || e.tagName).trim(),
                shown: r.width > 1 && r.height > 1 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight}; })()""")
    if not focused["skip"]:
        return [f"Tab from the top focuses {focused['text'][:40]!r}, not the skip link"]
    problems = [] if focused["shown"] else ["the focused skip link is not visible"]
    problems += [f"the focused skip link: axe {v['id']} ({v['help']})"
                 for v in axe_violations(page, selector=".skip-link", rules=("color-contrast",), undecided=True)]
    if screenshot:
        page.screenshot(path=str(ARTIFACTS / screenshot))
    page.keyboard.press("Enter")
    if not page.evaluate("document.activeElement === document.querySelector('main#content')"):
        problems.append("Enter on the skip link does not move the focus to main#content")
    return problems


INSPECTED_POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
#: What the users of this test wrote or uploaded: shown as it is in any language.
USER_TEXTS = sorted({INSPECTED_POST, *INSPECTED_POST.split(), "posts.csv", "Where was it?", "Can you tell where?",
                     "Answers are stored pseudonymously.", "Lunch at the river", "Quiet night", "Strike the place",
                     "Strike words.", *(cell for row in PAPER_EXAMPLE_ROWS for cell in row),
                     # the columns and values a campaign's CSV takes, named as the file must name them
                     "text", "id", "kind", "regular", "gold", "attention", "yes", "no", "lat", "lon"},
                    key=len, reverse=True)


def gazetteer_names(client: Client, text: str) -> list[str]:
    """The place names the inspect API gives for ``text`` with the first English model (as the page asks): the
    gazetteer's own names, shown as it has them (a US place has no Japanese name)."""
    page = client.get(reverse("home")).content.decode()
    model = re.search(r'<option value="([^"]+)" data-language="en"', page).group(1)
    answer = client.post(reverse("api-inspect"), {"text": text, "model": model}, content_type="application/json")
    names: set[str] = set()

    def walk(value, under_place: bool) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                walk(child, under_place or "place" in key)
        elif isinstance(value, list):
            for child in value:
                walk(child, under_place)
        elif isinstance(value, str) and under_place and value:
            names.add(value)

    walk(answer.json(), False)
    return sorted(names, key=len, reverse=True)
# Every text node a reader sees, and every label a screen reader reads, outside what is not to be translated.
_SHOWN_TEXTS = """(() => {
    const kept = e => e.closest('[translate="no"], code, kbd, samp, pre, script, style, noscript, textarea, ' +
                                '.leaflet-pane');  // what the user typed; the map's own place labels (data)
    const texts = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const e = walker.currentNode.parentElement;
        if (e && !kept(e) && e.checkVisibility() && walker.currentNode.textContent.trim())
            texts.push(walker.currentNode.textContent.trim());
    }
    for (const e of document.querySelectorAll('[title], [placeholder], [aria-label], [alt], input[type=submit]'))
        if (!kept(e)) for (const name of ['title', 'placeholder', 'aria-label', 'alt', 'value'])
            if (e.getAttribute(name) && (name !== 'value' || e.type === 'submit')) texts.push(e.getAttribute(name));
    return texts;
})()"""


def english_left(page, user_texts: list[str]) -> list[str]:
    """The texts of a Japanese page that still hold English words (users' own texts taken out first)."""
    left = []
    for text in page.evaluate(_SHOWN_TEXTS):
        for user_text in user_texts:  # whole words only: the cell "id" is no part of "identification"
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(user_text)}(?![A-Za-z0-9])", " ", text)
        if english_words(text):
            left.append(text[:80])
    return sorted(set(left))


def inspect_a_post(page) -> list[str]:
    """The inspect page with a result (maps, numbers); Tab from Inspect reaches the before map's zoom-in button
    (in a few steps: past the result's buttons and the map, not past every cell)."""
    page.select_option("#inspect-model", page.get_attribute("#inspect-model option[data-language=en]", "value"))
    page.fill("#inspect-text", INSPECTED_POST)
    page.click("#inspect-submit")
    page.wait_for_selector("#inspect-result:not([hidden]) #map-before .leaflet-control-zoom-in")
    page.focus("#inspect-submit")
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate("""(e => e.matches('#map-before .leaflet-control-zoom-in') ? null
            : e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''))(document.activeElement)""")
        if focused is None:
            return []
        reached.append(focused)
    return [("zoom-in-by-keyboard", "40 Tabs from Inspect do not reach the before map's zoom-in button (they reach "
             f"{', '.join(reached[:8])} …)")]


# What to do on a page after the skip link's check and before the rest: wait for what its script builds after
# "load", or bring it to the state to check; each returns its problems as (check, problem) pairs.
def start_a_task(page) -> list[str]:
    """From a campaign's consent page to its first post, as a participant starts (the link of a session that
    started already opens its task page)."""
    if page.query_selector("#consent") is not None:  # a session that joined already goes straight to its task
        page.check("#consent")
        page.click("#start")
    wait_for_js(page, "(document.getElementById('crowd-post') || {}).textContent?.trim().length > 0")
    return []


PREPARE = {
    "preferences": lambda page: wait_for_js(page, "document.querySelector('#pref-grid tbody tr') !== null") or [],
    "inspect-result": inspect_a_post,
    "crowd-task": start_a_task,
    "crowd-task-strikes": start_a_task,
}


#: Pages of a campaign's participants (no account): the site's name only, no navigation (issue 43, finding 6).
PARTICIPANT_PAGES = {"crowd-join", "crowd-task", "crowd-task-strikes"}


def check_page(page, url: str, name: str, width: str, errors: list[str], axe_counts: dict,
               language: str = "en", user_texts: tuple[str, ...] = ()) -> list[str]:
    """Open one page; return what is wrong with it (and count its serious and critical axe violations)."""
    errors.clear()
    artifacts = ARTIFACTS if language == "en" else ARTIFACTS / language
    artifacts.mkdir(parents=True, exist_ok=True)
    page.goto(url, wait_until="load")
    problems = ["the page itself loads axe-core (vendored for the tests only)"] if page.evaluate("'axe' in window") \
        else []
    problems += skip_link_problems(page, f"skip-link-{width}.png" if name == "visitor-inspect" else None)
    problems += [problem for _check, problem in PREPARE.get(name, lambda page: [])(page)]
    problems += [f"console: {message}" for message in errors
                 if "not-found" not in name or "404" not in message]  # the 404 page's own status is no error
    violations = axe_violations(page)
    axe_counts[f"{name}-{width}"] = {v["id"]: len(v["targets"]) for v in violations}
    problems += [f"axe {v['impact']} {v['id']} ({v['help']}): {', '.join(v['targets'])}" for v in violations]
    if language == "ja":
        if page.evaluate("document.documentElement.lang") != ("en" if name in PARTICIPANT_PAGES else "ja"):
            problems.append(f"html lang is {page.evaluate('document.documentElement.lang')!r}")
        if name not in PARTICIPANT_PAGES:
            problems += [f"English left: {text!r}" for text in english_left(page, [*USER_TEXTS, *user_texts])]
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if overflow > 1:
        widest = page.evaluate("""[...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .slice(-3).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''))""")
        problems.append(f"scrolls sideways by {overflow} px ({', '.join(widest)})")
    if name in PARTICIPANT_PAGES:  # a campaign link's pages show no site navigation (issue 43, finding 6)
        if page.query_selector("#site-nav") is not None:
            problems.append("a participant's page shows the site navigation")
    elif width == "phone":
        if not page.is_visible("#site-nav .nav-toggle") or page.is_visible("#nav-menu"):
            problems.append("the navigation is not folded behind Menu")
        else:
            page.click("#site-nav .nav-toggle")
            if not page.is_visible("#nav-menu a[href='/preferences/']"):
                problems.append("Menu does not open the navigation")
            page.click("#site-nav .nav-toggle")
    elif not page.is_visible("#nav-menu a[href='/preferences/']"):
        problems.append("the navigation is not shown")
    page.screenshot(path=str(artifacts / f"{name}-{width}.png"), full_page=True)
    return [f"{name} at {width}: {problem}" for problem in problems]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_every_page_fits_a_phone_and_a_desktop_without_console_errors(language, live_server, staff, location_models,
                                                                       preference_model):  # noqa: F811
    pages = pages_of(staff, location_models)  # before the browser: Playwright then stops Django's database calls
    found: list[str] = []
    axe_counts: dict[str, dict[str, int]] = {}  # page-width: {rule: elements}, serious and critical only
    errors: list[str] = []  # what the page logs as an error, cleared before each page
    client = Client()
    client.force_login(staff)
    user_texts = (staff.username, *gazetteer_names(client, INSPECTED_POST))
    check = functools.partial(check_page, errors=errors, axe_counts=axe_counts, language=language,
                              user_texts=user_texts)
    artifacts = ARTIFACTS if language == "en" else ARTIFACTS / language
    for page in browser_page(locale={"en": "en-US", "ja": "ja-JP"}[language]):
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20_000)
        for width, (w, h) in WIDTHS.items():
            page.set_viewport_size({"width": w, "height": h})
            for name, path in VISITOR_PAGES.items():
                found += check(page, live_server.url + path, name, width)
        page.set_viewport_size({"width": 1280, "height": 900})
        sign_in(page, live_server, staff.username, STAFF_PASSWORD)
        for width, (w, h) in WIDTHS.items():
            page.set_viewport_size({"width": w, "height": h})
            for name, path in pages.items():
                found += check(page, live_server.url + path, name, width)
        wait_for_js(page, "true")
    (artifacts / "axe.json").write_text(json.dumps(axe_counts, indent=1, sort_keys=True))
    assert found == [], "\n".join(found)
    assert len(list(artifacts.glob("*-phone.png"))) >= len(pages) + len(VISITOR_PAGES)
