"""The inspect page's maps in Debian's chromium, at desktop width and at 390 px: land and borders drawn from the
vendored TopoJSON under the cells, the top cell named by its place on the map and in the numbers, and after a
failed request (a 400, then an unreachable server) nothing of the earlier result stays and Copy is disabled.
Screenshots go to test-artifacts/ (the project's convention)."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SCREENSHOTS = ROOT / "test-artifacts"
POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
# The network errors the failed requests below cause on purpose; any other console error fails the test.
EXPECTED_CONSOLE = ("Failed to load resource",)


@pytest.fixture
def page():
    yield from browser_page()


def inspect(page, text: str, timings: int) -> None:
    page.fill("#inspect-text", text)
    page.click("#inspect-submit")
    if timings:
        wait_for_js(page, f"(window.inspectTimings || []).length >= {timings}")


@pytest.mark.parametrize("width", [1280, 390])
def test_maps_show_geography_and_place_names_and_an_error_clears_the_result(live_server, location_models, width,
                                                                            page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900})
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/")
    assert page.is_disabled("#copy-after")
    page.select_option("#inspect-model", label="US Midwest and South (English)")
    inspect(page, POST, 1)
    page.wait_for_selector("#inspect-result:not([hidden])")
    api = page.request.post(live_server.url + "/api/v1/inspect", data={"text": POST, "model": "us-midwest-en"}).json()
    # The maps show the cells of the scorer that decided (here the classifier, furthest over its threshold).
    assert api["map_scorer"] == "location"
    before = api["before"]
    assert before["top_place"] == api["model"]["cell_places"][before["top_cell"]]

    # Land and state borders in the geography pane, below the cells.
    wait_for_js(page, "document.querySelectorAll('#map-before .leaflet-geography-pane path.geo-land').length > 0")
    assert page.evaluate("document.querySelectorAll('#map-before .leaflet-geography-pane path.geo-border').length") > 0
    assert page.evaluate("document.querySelectorAll('#map-after .leaflet-geography-pane path.geo-land').length") > 0
    # ... and visible: the land covers part of the map (an SVG squeezed to 0 px by a page rule draws nothing).
    assert page.evaluate("""(() => {
      const map = document.querySelector('#map-before').getBoundingClientRect();
      const land = document.querySelector('#map-before path.geo-land').getBoundingClientRect();
      const w = Math.min(map.right, land.right) - Math.max(map.left, land.left);
      const h = Math.min(map.bottom, land.bottom) - Math.max(map.top, land.top);
      return w > map.width / 4 && h > map.height / 4;
    })()""")
    assert page.evaluate("getComputedStyle(document.querySelector('#map-before .leaflet-geography-pane')).zIndex"
                         " < getComputedStyle(document.querySelector('#map-before .leaflet-overlay-pane')).zIndex")
    # The top cell is outlined on the map and named under it; other places are labelled on the map.
    top_text = f"{before['top_label']} ≈ {before['top_place']}"
    assert top_text in page.text_content("#top-before")
    assert page.evaluate("document.querySelectorAll('#map-before path.top-cell').length") == 1
    labels = page.evaluate("[...document.querySelectorAll('#map-before .place-label:not(.top-cell-label)')]"
                           ".map(l => l.textContent)")
    assert labels and set(labels) <= {label["name"] for label in api["model"]["place_labels"]}
    # ... and in the numbers and the verdict.
    assert page.text_content("#numbers td.value-before").startswith(top_text + ":")
    assert top_text in page.text_content("#verdict")
    assert page.is_enabled("#copy-after") and page.input_value("#post-after") == api["text_after"]

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"inspect-maps-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    page.locator("#map-before").screenshot(path=str(SCREENSHOTS / f"inspect-maps-{width}-before-map.png"))
    print(f"screenshots: {path}, {SCREENSHOTS / f'inspect-maps-{width}-before-map.png'}")

    # A failed request (empty post: 400) leaves nothing of the earlier result and nothing to copy.
    inspect(page, "", 0)
    page.wait_for_selector("#inspect-error:not([hidden])")
    assert page.is_hidden("#inspect-result")
    assert page.input_value("#post-after") == "" and page.is_disabled("#copy-after")

    # A success enables Copy again; an unreachable server disables it.
    inspect(page, POST, 2)
    page.wait_for_selector("#inspect-result:not([hidden])")
    assert page.is_enabled("#copy-after") and page.input_value("#post-after") == api["text_after"]
    page.route("**/api/v1/inspect", lambda route: route.abort())
    page.click("#inspect-submit")
    wait_for_js(page, "document.getElementById('inspect-error').textContent.includes('could not be reached')")
    assert page.is_hidden("#inspect-result")
    assert page.input_value("#post-after") == "" and page.is_disabled("#copy-after")

    assert [e for e in errors if not e.startswith(EXPECTED_CONSOLE)] == []
