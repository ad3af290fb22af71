"""The raw ratings never leave the page. In chromium a person rates cells, asks for recommendations and
contributes; every request the page sends is recorded (post data included). Only one carries data: the
reports, {round, index, value, epsilon} each, every value ±B, as many as the rounds, equal to what the Python
reference computes from the same ratings and random stream, with coordinate indices that depend on the
stream alone. No request names a rated cell or its rating, and the recommendations appear for the empty cells."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import numpy as np
import pytest

from anonymizer.preferences import serving
from anonymizer.preferences.ldp import Mulberry32, one_bit_bound
from tests.helpers import ROOT, browser_page
from tests.preferences.web.test_page_browser import RATED, open_page, rate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SEED, EPSILON, ROUNDS = 20240611, 2.0, 4
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def page():
    yield from browser_page()


def test_only_the_ldp_reports_leave_the_page(live_server, preference_model, default_artifact, page):
    sent: list[dict] = []
    page.on("request", lambda r: sent.append({"method": r.method, "url": r.url, "body": r.post_data}))
    open_page(page, live_server.url)
    ratings = rate(page)
    page.fill("#pref-epsilon", str(EPSILON))
    page.fill("#pref-rounds", str(ROUNDS))
    page.click("#pref-recommend")
    page.wait_for_selector("#pref-result:not([hidden])")
    # Fix the page's random stream (normally fresh crypto.getRandomValues bits for every draw) to compare with
    # the Python reference.
    page.evaluate(f"window.KakuregaLDP.reportUniform = () => window.KakuregaLDP.uniformStream({SEED})")
    page.click("#pref-contribute")
    page.wait_for_selector("#pref-contribution:not([hidden])")
    summary = page.text_content("#pref-contribution-summary")
    recommended = page.evaluate("[...document.querySelectorAll('#pref-grid button[data-recommendation]')]"
                                ".map(b => Number(b.dataset.item))")
    shown_sent = json.loads(page.text_content("#pref-sent"))
    shown_reports = page.evaluate("[...document.querySelectorAll('#pref-reports tbody tr')].map(tr => "
                                  "[...tr.cells].map(td => td.textContent))")
    about = page.text_content("#pref-reports-about")

    # The recommendations are there, for exactly the empty cells.
    assert sorted(recommended) == sorted(set(range(120)) - set(ratings))
    assert f"ε = {EPSILON:.3f}" in summary and f"{ROUNDS} one-bit reports" in summary

    # Every request: the page, its static files and texts, the model (GET, no query), and one POST of the reports.
    with_data = [r for r in sent if r["body"]]
    assert [(r["method"], urlsplit(r["url"]).path) for r in with_data] == [("POST", "/api/v1/preferences/reports")]
    for request in sent:
        parts = urlsplit(request["url"])
        assert parts.netloc == urlsplit(live_server.url).netloc  # nothing goes anywhere else
        assert not parts.query, request["url"]
        if request is not with_data[0]:
            assert request["method"] == "GET" and (
                # /i18n/catalog.js: the interface's texts in the page's language (base.html), the same for all
                parts.path in ("/preferences/", "/api/v1/preferences/model", "/i18n/catalog.js")
                or parts.path.startswith("/static/"))
    body = json.loads(with_data[0]["body"])
    assert body == shown_sent  # the page shows exactly what it sent
    assert set(body) == {"model", "reports"} and body["model"] == str(preference_model.id)
    reports = body["reports"]
    assert len(reports) == ROUNDS and [r["round"] for r in reports] == list(range(ROUNDS))
    bound = one_bit_bound(EPSILON / ROUNDS)
    for report in reports:
        assert set(report) == {"round", "index", "value", "epsilon"}
        assert report["epsilon"] == EPSILON / ROUNDS and abs(report["value"]) == pytest.approx(bound, rel=1e-12)
        assert 0 <= report["index"] < default_artifact.n_coordinates

    # The page shows each report as the one bit it carries and the ±B it was sent as, and says what B is.
    assert shown_reports == [[str(r["round"] + 1), str(r["index"]), "+" if r["value"] > 0 else "−",
                              f"{'+' if r['value'] > 0 else '−'}B = {'+' if r['value'] > 0 else '−'}{bound:.4f}"]
                             for r in reports]
    assert f"B = (e^ε′ + 1) / (e^ε′ − 1) = {bound:.4f}" in about and f"ε / {ROUNDS} = {EPSILON / ROUNDS:.4f}" in about
    assert "one bit" in about and f"ε = {EPSILON:.3f}-LDP" in about
    ARTIFACTS.mkdir(exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#pref-contribution").scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing scrolls sideways
        page.locator("#pref-contribution").screenshot(path=str(ARTIFACTS / f"preferences-sent-{width}.png"))

    # No rated cell is named: not its label, not its time slot with a rating, nothing rating-like at all.
    labels = default_artifact.labels()
    everything = " ".join(f"{r['url']} {r['body'] or ''}" for r in sent)
    for item in ratings:
        assert labels[item] not in everything
    for word in ("publish", "hide", "rating", "profile", "item", "cell"):
        assert word not in with_data[0]["body"]

    # The reports are exactly the mechanism's output for these ratings and this random stream ...
    profile = serving.fit_profile(default_artifact, ratings)
    gradient = serving.gradient(default_artifact, profile, ratings)
    expected = serving.contribution_reports(gradient, EPSILON, ROUNDS, Mulberry32(SEED))
    assert [(r["round"], r["index"], np.sign(r["value"])) for r in reports] == [
        (e["round"], e["index"], np.sign(e["value"])) for e in expected]
    # ... and which coordinates are reported depends on the stream alone, not on what was rated.
    blank = serving.contribution_reports(np.zeros(default_artifact.n_coordinates), EPSILON, ROUNDS, Mulberry32(SEED))
    assert [r["index"] for r in reports] == [b["index"] for b in blank]
    assert len(RATED) == len(ratings)
