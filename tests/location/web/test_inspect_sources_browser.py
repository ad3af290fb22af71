"""The inspect page names its sources, in Debian's chromium at 1280 and 390 px (issue 43): a post the place scorer
places is said to be placed by it, with the place it found, and both maps show that scorer's cells, the top cell
outlined (no label over its neighbours) and named under the map; units, not morphemes; a Chinese post for the
Japanese model is warned about. The report download flow: the default HTML report shows the after map only and
fits the window (no sideways scroll), the one with "before" says so first; screenshots go to test-artifacts/."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
TSUNASHIMA = "綱島駅で友達と待ち合わせ"
CHINESE = "我在东京塔附近"
NO_SIDEWAYS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.fixture
def page():
    yield from browser_page()


def inspect(page, text: str, count: int) -> None:
    page.fill("#inspect-text", text)
    page.click("#inspect-submit")
    wait_for_js(page, f"(window.inspectTimings || []).length >= {count}")


def download(page, button: str, name: str):
    with page.expect_download() as info:
        page.click(button)
    path = ARTIFACTS / name
    info.value.save_as(str(path))
    return path, info.value.suggested_filename


def open_offline(context, path, width: int, errors: list[str]):
    offline = context.new_page()
    offline.on("pageerror", lambda error: errors.append(str(error)))
    offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                  else route.abort())
    offline.set_viewport_size({"width": width, "height": 900})
    offline.goto(path.as_uri())
    wait_for_js(offline, "document.querySelectorAll('.folium-map path.leaflet-interactive').length >= 200")
    return offline


@pytest.mark.parametrize("width", [1280, 390])
def test_the_verdict_names_its_scorer_and_the_report_shares_only_the_after_map(live_server, location_models,
                                                                              width, page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/")
    inspect(page, TSUNASHIMA, 1)
    api = page.request.post(live_server.url + "/api/v1/inspect", data={"text": TSUNASHIMA}).json()
    places = next(v for v in api["before"]["scorers"] if v["name"] == "places")
    verdict = page.text_content("#verdict")
    assert verdict.startswith("Before: the place scorer (gazetteer) found “綱島駅” in the text: ")
    assert "above the threshold" not in verdict and "morpheme" not in verdict and "deleting 1 unit" in verdict
    assert page.text_content("#caption-before") == "Before: the cells of the place scorer (gazetteer)"
    # The top cell the verdict names is the one outlined on the before map and named under it; no label on it.
    named = f"{places['top_label']} ≈ {places['top_place']}"
    assert f"on {named}, at or over its threshold" in verdict and named in page.text_content("#top-before")
    assert page.evaluate("document.querySelectorAll('.top-cell-label').length") == 0
    outline = page.evaluate("""(() => {
      const cells = [...document.querySelectorAll('#map-before path.cell')];
      const top = document.querySelector('#map-before path.top-cell');
      const cellBox = top.getBBox();  // the cell's own geometry, in the SVG's units
      return {count: document.querySelectorAll('#map-before path.top-cell').length,
              stroke: Number(top.getAttribute('stroke-width')), fill: top.getAttribute('fill'),
              width: cellBox.width, height: cellBox.height, hasCells: cells.length};
    })()""")
    assert outline["count"] == 1 and outline["hasCells"] == 200
    # The outline's stroke stays within a fraction of the cell: half of it falls on the neighbours' edge only.
    assert outline["stroke"] <= 3 and outline["stroke"] < min(outline["width"], outline["height"]) / 4, outline
    numbers = page.text_content("#numbers")
    assert "Units deleted" in numbers and "Morphemes" not in numbers
    assert f"Places (threshold {100 * places['threshold']:.1f}%)" in numbers and "found “綱島駅”" in numbers
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"inspect-sources-{width}.png"), full_page=True)

    # The report download flow: by default the after map only, and it fits the window.
    assert not page.is_checked("#download-before")
    report, name = download(page, "#download-map", f"inspect-report-default-{width}.html")
    assert "-with-before" not in name
    document = report.read_text()
    assert "WARNING" not in document and places["top_place"] not in document and TSUNASHIMA not in document
    offline = open_offline(page.context, report, width, errors)
    assert offline.evaluate("document.querySelectorAll('.folium-map').length") == 1
    assert offline.evaluate(NO_SIDEWAYS), offline.evaluate("document.documentElement.scrollWidth")
    offline.screenshot(path=str(ARTIFACTS / f"inspect-report-default-{width}.png"), full_page=True)
    offline.close()
    figure, _ = download(page, "#download-svg", f"inspect-figure-default-{width}.svg")
    root = ET.parse(figure).getroot()
    assert root.find(".//{http://www.w3.org/2000/svg}g[@id='before']") is None
    assert root.findall(".//{http://www.w3.org/2000/svg}text[@class='place-label']")

    # Asked for: the before map too, and the file says first what it reveals.
    page.check("#download-before")
    report, name = download(page, "#download-map", f"inspect-report-with-before-{width}.html")
    assert name.endswith("-with-before.html")
    assert report.read_text().splitlines()[0].startswith("<!-- WARNING: this file includes the “before” map")
    offline = open_offline(page.context, report, width, errors)
    assert offline.evaluate("document.querySelectorAll('.folium-map').length") == 2
    assert offline.evaluate("document.body.querySelector('p, h1').id") == "before-warning"
    assert offline.evaluate(NO_SIDEWAYS), offline.evaluate("document.documentElement.scrollWidth")
    offline.screenshot(path=str(ARTIFACTS / f"inspect-report-with-before-{width}.png"), full_page=True)
    offline.close()

    # A Chinese post for the Japanese model: warned about on the page, never a silent pass.
    inspect(page, CHINESE, 2)
    assert page.is_visible("#inspect-warning")
    warning = page.text_content("#inspect-warning")
    assert warning.startswith("This post does not look Japanese (it has no kana, and 东 is a Simplified Chinese")
    assert warning in page.text_content("#verdict")
    page.screenshot(path=str(ARTIFACTS / f"inspect-language-warning-{width}.png"), full_page=True)
    assert errors == []
