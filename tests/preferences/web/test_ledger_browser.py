"""The person's privacy budget on the preferences page (issue 17): a ledger per model in the browser's
localStorage refuses a contribution that would take them past PREFERENCE_LEDGER_EPSILON within
PREFERENCE_LEDGER_DAYS, sends nothing then, survives a reload, and forgets what is older than the window."""

from __future__ import annotations

import json

import pytest

from tests.helpers import browser_page, wait_for_js
from tests.preferences.web.test_page_browser import open_page, rate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
KEY = "kakurega:ldp-ledger:built-in:foursquare-nyc"


@pytest.fixture
def page():
    yield from browser_page()


def contribute(page, epsilon: float) -> str:
    """Press Contribute at ``epsilon``: the contribution's summary, or the error the page shows."""
    page.evaluate("document.getElementById('pref-error').hidden = true;"
                  "document.getElementById('pref-contribution').hidden = true")
    page.fill("#pref-epsilon", str(epsilon))
    page.fill("#pref-rounds", "2")
    page.click("#pref-contribute")
    page.wait_for_selector("#pref-error:not([hidden]), #pref-contribution:not([hidden])")
    if page.is_visible("#pref-error"):
        return "refused: " + page.text_content("#pref-error")
    return page.text_content("#pref-contribution-summary")


def test_the_ledger_refuses_past_the_cap_and_survives_a_reload(live_server, preference_model, page):
    posts: list[dict] = []
    stored: list[int] = []
    page.on("request", lambda r: posts.append(json.loads(r.post_data)) if r.method == "POST" else None)
    page.on("response", lambda r: stored.append(r.status) if r.request.method == "POST" else None)
    open_page(page, live_server.url)
    assert "ε = 2.00 per 30 days" in page.text_content("#pref-ledger")
    assert "Spent: ε = 0.000 in 0 contributions; left: ε = 2.000." in page.text_content("#pref-ledger")
    rate(page)
    assert "1.500 of 2.00 in 30 days" in contribute(page, 1.5)
    assert "left: ε = 0.500" in page.text_content("#pref-ledger")
    refused = contribute(page, 1.0)
    assert refused.startswith("refused: ") and "only ε = 0.500" in refused and "Nothing was sent" in refused
    assert len(posts) == 1

    page.reload()  # the ledger is the browser's, not the page's memory
    wait = "window.preferencesReady === true"
    wait_for_js(page, wait)
    assert "Spent: ε = 1.500 in 1 contribution; left: ε = 0.500." in page.text_content("#pref-ledger")
    rate(page)
    assert contribute(page, 0.6).startswith("refused: ")
    assert "2.000 of 2.00 in 30 days" in contribute(page, 0.5)
    assert contribute(page, 0.01).startswith("refused: ")
    assert len(posts) == 2 and stored == [201, 201]
    # Each POST carried the reports and the model id only; the ledger itself never leaves the browser.
    assert all(set(body) == {"model", "reports"} for body in posts)
    ledger = page.evaluate(f"JSON.parse(localStorage.getItem('{KEY}'))")
    assert [entry["epsilon"] for entry in ledger] == [1.5, 0.5]

    # A contribution older than the window no longer counts.
    page.evaluate(f"localStorage.setItem('{KEY}', JSON.stringify([{{epsilon: 2, at: Date.now() - 31 * 86400000}}]))")
    page.reload()
    wait_for_js(page, wait)
    assert "left: ε = 2.000" in page.text_content("#pref-ledger")
    rate(page)
    assert "2.000 of 2.00" in contribute(page, 2.0)
    assert len(posts) == 3 and all(r["model"] == str(preference_model.id) for r in posts)


def test_a_damaged_or_unwritable_ledger_sends_nothing(live_server, preference_model, page):
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    open_page(page, live_server.url)
    page.evaluate(f"localStorage.setItem('{KEY}', '{{not json')")
    rate(page)
    assert "cannot be read" in contribute(page, 0.5)
    page.evaluate(f"localStorage.removeItem('{KEY}'); Storage.prototype.setItem = () => {{ throw new "
                  "DOMException('full', 'QuotaExceededError'); }; true")
    assert "could not be written" in contribute(page, 0.5)
    assert posts == []
