"""The manual in Debian's chromium, at the running address, under the app's own Content-Security-Policy: from the
header's Help link to the index, on to a capability's page and from a capability's page to its own help page, its
search working offline, nothing asked of another address and nothing in the console of a help page."""

from __future__ import annotations

import pytest

from tests.helpers import browser_page, wait_for, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture
def page():
    yield from browser_page()


def test_help_from_the_header_to_a_capability_page_with_a_clean_console(page, live_server, help_site):
    errors: list[str] = []
    search_ready: list[str] = []

    def console(message) -> None:
        if "/help/" not in page.url:
            return  # the app's own pages are checked by test_pages_browser.py
        if message.type == "error":
            errors.append(message.text)
        elif "search ready" in message.text:
            search_ready.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    outside: list[str] = []
    page.on("request", lambda request: outside.append(request.url)
            if not request.url.startswith(live_server.url) else None)
    page.set_default_timeout(30_000)

    page.goto(live_server.url + "/accounts/login/")
    page.click("#site-nav a:has-text('Help')")
    page.wait_for_url("**/help/")
    assert page.title() == "Kakurega"
    page.click("[role=main] a[href='location/']")
    page.wait_for_url("**/help/location/")
    assert page.text_content("h1").startswith("Location")
    assert page.is_visible("#threat-model")

    # The search runs in a web worker from the same folder (worker-src falls back to script-src 'self').
    wait_for(lambda: page.evaluate("true") and search_ready, 30)  # a call lets Playwright deliver the events
    page.click("a[data-bs-target='#mkdocs_search_modal']")
    page.type("#mkdocs-search-query", "threshold")  # it searches as keys are typed
    wait_for_js(page, "document.querySelectorAll('#mkdocs-search-results article').length > 0", timeout=30)

    # A capability's page links to its own help page.
    page.goto(live_server.url + "/preferences/")
    page.click("a[href='/help/preferences/']")
    page.wait_for_url("**/help/preferences/")
    assert "Location-privacy preferences" in page.text_content("h1")

    assert errors == [], errors
    assert outside == [], outside
