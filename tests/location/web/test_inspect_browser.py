"""The inspect page in Debian's chromium, offline: real held-out posts in Japanese and English, both maps
coloured, struck-through words equal to the API's spans, changing m redraws the "after" map. Screenshots
and the time to the first result go to test-artifacts/."""

from __future__ import annotations

import json

import pytest

from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"

COLOURED = ("[...document.querySelectorAll('#map-{which} path.cell')]"
            ".filter(p => p.getAttribute('fill-opacity') !== '0')")


@pytest.fixture
def page():
    yield from browser_page()


def after_column(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('td.value-after')].map(td => td.textContent)")


def coloured_cells(page, which: str) -> list[str]:
    """The fill colour of every coloured cell of one map, in cell order."""
    return page.evaluate(f"{COLOURED.format(which=which)}.map(p => p.getAttribute('fill'))")


@pytest.mark.parametrize("language", ["ja", "en"])
def test_inspect_a_real_post(live_server, location_models, tokyo, midwest, language, page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    trained = tokyo if language == "ja" else midwest
    text = trained.inferable_text()
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/")
    page.fill("#inspect-text", text)
    page.keyboard.press("Tab")
    page.click("#inspect-submit")
    page.wait_for_selector("#inspect-result:not([hidden])")
    wait_for_js(page, "document.querySelectorAll('#map-after path.cell').length > 0")

    assert len(coloured_cells(page, "before")) > 0 and len(coloured_cells(page, "after")) > 0
    api = page.request.post(live_server.url + "/api/v1/inspect", data={"text": text}).json()
    assert api["model"]["language"] == language
    struck = page.evaluate("[...document.querySelectorAll('#post-marked del')]"
                           ".map(d => [Number(d.dataset.start), Number(d.dataset.end), d.textContent])")
    assert struck == [[s["start"], s["end"], s["text"]] for s in api["deleted"]] and struck
    assert page.input_value("#post-after") == api["text_after"]
    assert page.text_content("#post-marked") == text  # struck-through, not removed: the exact original

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"inspect-{language}.png"), full_page=True)
    timings = page.evaluate("window.inspectTimings")
    (ARTIFACTS / f"inspect-{language}-timing.json").write_text(json.dumps({"first_result_ms": timings[0]}))

    # Fixed mode: changing m redraws the "after" map and its numbers without a page reload.
    page.evaluate("window.notReloaded = true")
    page.check("input[name=mode][value=fixed]")
    page.fill("#inspect-m", "1")
    page.dispatch_event("#inspect-m", "change")
    wait_for_js(page, "window.inspectTimings.length >= 3")
    # The after column holds every scorer (the maps show the one that decided before, which may stay flat).
    one = (coloured_cells(page, "after"), after_column(page))
    page.fill("#inspect-m", "3")
    page.dispatch_event("#inspect-m", "change")
    wait_for_js(page, "window.inspectTimings.length >= 4")
    three = (coloured_cells(page, "after"), after_column(page))
    assert one != three
    assert page.evaluate("document.querySelectorAll('#post-marked del').length") == 3
    assert page.evaluate("window.notReloaded") is True


def test_bad_input_is_explained_on_the_page(live_server, location_models, page):
    page.goto(live_server.url + "/")
    page.click("#inspect-submit")
    page.wait_for_selector("#inspect-error:not([hidden])")
    assert "text" in page.text_content("#inspect-error")
    assert page.is_hidden("#inspect-result")


def test_remove_time_too(live_server, location_models, page):
    text = "83 days to my birthday!! Party at the Capitol in Little Rock at 9PM"
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/")
    assert page.is_hidden("#time-options")
    page.fill("#inspect-text", text)
    page.select_option("#inspect-model", label="US Midwest and South (English)")
    page.check("#inspect-remove-time")
    assert page.is_visible("#time-options")
    page.click("#inspect-submit")
    page.wait_for_selector("#inspect-result:not([hidden])")
    api = page.request.post(live_server.url + "/api/v1/inspect",
                            data={"text": text, "model": "us-midwest-en", "remove_time": True}).json()
    assert api["time"]["removed"] and api["time"]["generalized"]
    marks = page.evaluate("[...document.querySelectorAll('#post-marked del')]"
                          ".map(d => [d.dataset.kind, Number(d.dataset.start), d.textContent])")
    expected = sorted([["location", s["start"], s["text"]] for s in api["deleted"]]
                      + [["time", s["start"], s["text"]] for s in api["time"]["removed"] + api["time"]["generalized"]],
                      key=lambda mark: mark[1])
    assert marks == expected
    assert page.text_content("#post-marked ins") == "Counting down"
    # Struck through, not removed: the original, plus the neutral phrase shown after what it replaces.
    assert page.evaluate("(() => { const p = document.querySelector('#post-marked').cloneNode(true);"
                         " p.querySelectorAll('ins').forEach(i => i.remove()); return p.textContent; })()") == text
    assert page.input_value("#post-after") == api["text_after"]
    assert "9PM" not in api["text_after"] and api["text_after"].startswith("Counting down")
    assert "generalizing 1 time expression" in page.text_content("#verdict")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "inspect-en-time.png"), full_page=True)
