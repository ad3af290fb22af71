"""The preferences page in Debian's chromium: rate cells of the week grid, press Recommend, and get for every
empty cell the recommendation and confidence the Python reference computes from the same model."""

from __future__ import annotations

import pytest

from anonymizer.preferences import serving
from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
# (item, clicks): one click publishes, two hide. Items are row * 10 + column of the 12 x 10 grid.
RATED = [(3, 1), (17, 2), (25, 1), (47, 2), (60, 1), (71, 2), (88, 1), (94, 2), (110, 2)]


@pytest.fixture
def page():
    yield from browser_page()


def open_page(page, url: str) -> None:
    page.set_default_timeout(20_000)
    page.goto(url + "/preferences/")
    wait_for_js(page, "window.preferencesReady === true")


def rate(page, rated=RATED) -> dict[int, int]:
    for item, clicks in rated:
        for _ in range(clicks):
            page.click(f"#pref-grid button[data-item='{item}']")
    return {item: 1 if clicks == 1 else 0 for item, clicks in rated}


def test_recommendations_for_the_empty_cells_match_the_python_reference(live_server, preference_model,
                                                                         default_artifact, page):
    open_page(page, live_server.url)
    assert page.locator("#pref-grid tbody tr").count() == 12
    assert page.locator("#pref-grid button[data-item]").count() == 120
    assert page.text_content("#pref-grid thead th:nth-child(2)") == default_artifact.item_space["columns"][0]
    assert "proxy" in page.text_content("#pref-notice").lower()
    assert "ε = 1 per user" in page.text_content("#pref-model-facts")
    assert page.input_value("#pref-rounds") == str(default_artifact.training["rounds"])

    ratings = rate(page)
    assert page.text_content("#pref-count") == f"{len(RATED)} cells rated."
    states = page.evaluate("Object.fromEntries([...document.querySelectorAll('#pref-grid button[data-item]')]"
                           ".filter(b => b.dataset.state !== 'unrated').map(b => [b.dataset.item, b.dataset.state]))")
    assert states == {str(i): "publish" if v else "hide" for i, v in ratings.items()}

    page.click("#pref-recommend")
    page.wait_for_selector("#pref-result:not([hidden])")
    shown = page.evaluate("[...document.querySelectorAll('#pref-grid button[data-item]')].map(b => "
                          "[Number(b.dataset.item), b.dataset.recommendation || null, b.dataset.confidence || null])")
    profile = serving.fit_profile(default_artifact, ratings)
    scores = serving.scores(default_artifact, profile)
    confidence = serving.confidence(default_artifact, scores)
    for item, recommendation, conf in shown:
        if item in ratings:
            assert recommendation is None and conf is None
        else:
            expected = "publish" if scores[item] >= default_artifact.threshold else "hide"
            assert recommendation == expected and float(conf) == pytest.approx(confidence[item], abs=1e-4)
    empty = 120 - len(RATED)
    assert page.text_content("#pref-summary").startswith(f"{empty} empty cells:")
    assert "nothing was sent" in page.text_content("#pref-summary")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "preferences.png"), full_page=True)

    # A third click empties a cell again; the recommendations were for the old ratings and go.
    page.click("#pref-grid button[data-item='3']")
    page.click("#pref-grid button[data-item='3']")
    assert page.get_attribute("#pref-grid button[data-item='3']", "data-state") == "unrated"
    assert page.locator("#pref-grid button[data-recommendation]").count() == 0


def test_recommend_without_ratings_asks_for_some(live_server, preference_model, page):
    open_page(page, live_server.url)
    page.click("#pref-recommend")
    assert page.text_content("#pref-error") == "Rate at least one cell first."
    assert page.is_hidden("#pref-result")


@pytest.fixture
def served_model(default_checkins, settings, tmp_path):
    """The model bootstrap serves (chosen on held-out users, issue 17), registered as the default."""
    from anonymizer.preferences.items import ItemSpace
    from anonymizer.preferences.labels import ProxyLabelRule
    from anonymizer.preferences.selection import select_served_model
    from anonymizer.preferences.web.services import DEFAULT_PREFERENCE_MODEL as SPEC
    from anonymizer.preferences.web.services import register_preference_model

    settings.MODEL_DIR = tmp_path / "models"
    items = ItemSpace(slot_hours=SPEC.slot_hours, split_week=SPEC.split_week, place=SPEC.place).fit(default_checkins)
    artifact, scores = select_served_model(SPEC.name, ProxyLabelRule().ratings(default_checkins, items), items,
                                           SPEC.trainer(), source="proxy")
    register_preference_model(artifact, title=SPEC.title, metadata={"labels": "proxy", "scores": scores})
    return artifact, scores


def test_the_served_model_says_what_it_is_and_hides_below_its_threshold(live_server, served_model, page):
    """The page names the served model, states the rule and the figures, and says publish only at or above the
    threshold chosen for the false-positive target."""
    artifact, scores = served_model
    open_page(page, live_server.url)
    facts = page.text_content("#pref-model-facts")
    assert f"served as {scores['served']}" in facts and scores["rule"] in facts
    served = scores["methods"][scores["served"]]
    assert f"{scores['served']} (served): false-positive rate {served['fpr']:.3f}" in facts
    ratings = rate(page)
    page.click("#pref-recommend")
    page.wait_for_selector("#pref-result:not([hidden])")
    assert f"reaches {artifact.threshold:.3f}" in page.text_content("#pref-summary")
    shown = dict(page.evaluate("[...document.querySelectorAll('#pref-grid button[data-recommendation]')].map(b => "
                               "[Number(b.dataset.item), b.dataset.recommendation])"))
    s = serving.scores(artifact, serving.fit_profile(artifact, ratings))
    assert shown == {j: "publish" if s[j] >= artifact.threshold else "hide" for j in range(120) if j not in ratings}
    assert 0 < sum(v == "hide" for v in shown.values()) < len(shown)


def test_every_header_cell_of_the_grid_has_text(live_server, preference_model, page):
    """axe's empty-table-header: the grid's corner cell heads the time slots; it says so to a screen reader
    (visually hidden), and every other header cell has its label."""
    open_page(page, live_server.url)
    headers = page.evaluate("[...document.querySelectorAll('#pref-grid th')].map(th => th.textContent.trim())")
    assert len(headers) == 1 + 10 + 12 and all(headers), headers
    corner = page.locator("#pref-grid thead th").first
    assert corner.text_content().strip() == "Time slot"
    box = corner.locator("span").bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1  # heard, not seen
