"""The inspect page's maps under use, in Debian's chromium (issue 43): 50 consecutive inspects in one page, the
model (and so the maps) switching every time and the window resized between 1280 and 390 px after each, with no
uncaught error or console error; the maps are groups with a name, not images around Leaflet's zoom buttons, and
those buttons are reached with the Tab key; the numbers table has no empty header. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT, browser_page, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
POSTS = [("us-midwest-en", "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"),
         ("tokyo-ja", "綱島駅で友達と待ち合わせ"),
         ("us-midwest-en", "Game day in Little Rock, so hyped"),
         ("tokyo-ja", "今日は浅草の雷門の前で待ち合わせ！")]
INSPECTS = 50


@pytest.fixture
def page():
    yield from browser_page()


def test_fifty_inspects_switching_models_and_resizing_raise_no_error(live_server, location_models, settings, page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    settings.INSPECT_RATE_ANON = "1000/minute"  # 50 inspects in a row from one address
    ids = {name: str(record.id) for name, record in location_models.items()}
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/")
    for i in range(INSPECTS):
        model, text = POSTS[i % len(POSTS)]
        page.evaluate(f"document.getElementById('inspect-model').value = '{ids[model]}'")
        page.fill("#inspect-text", text)
        page.click("#inspect-submit")
        wait_for_js(page, f"(window.inspectTimings || []).length >= {i + 1}")
        # The window resized after each (a phone turned, a window narrowed): every map alive or removed hears it.
        page.set_viewport_size({"width": 390 if i % 2 == 0 else 1280, "height": 900})
        page.evaluate("new Promise(requestAnimationFrame)")
        if i >= INSPECTS - 2:
            ARTIFACTS.mkdir(exist_ok=True)
            width = page.viewport_size["width"]
            page.screenshot(path=str(ARTIFACTS / f"inspect-50-inspects-{width}.png"), full_page=True)
    page.evaluate("new Promise(r => setTimeout(r, 300))")  # a resize's redraw runs on the next animation frame
    print(f"{INSPECTS} inspects, uncaught and console errors: {len(errors)}")
    assert errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_the_maps_are_named_groups_with_zoom_buttons_reached_by_keyboard(live_server, location_models, settings,
                                                                         width, page):
    settings.INSPECT_RATE_ANON = "1000/minute"  # after the 50 inspects above, from the same address
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900})
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/")
    page.fill("#inspect-text", POSTS[1][1])
    page.click("#inspect-submit")
    wait_for_js(page, "(window.inspectTimings || []).length >= 1 || document.querySelector('#inspect-error')"
                      ".textContent", 20)
    assert errors == [] and page.is_hidden("#inspect-error"), page.text_content("#inspect-error")
    for which in ("before", "after"):
        container = f"#map-{which}"
        # No role=img around interactive controls (axe-core's nested-interactive); a name and a description.
        assert page.get_attribute(container, "role") == "group"
        assert page.get_attribute(container, "aria-label") == f"Map {which} de-identification"
        assert "arrow keys" in page.text_content("#" + page.get_attribute(container, "aria-describedby"))
        assert page.evaluate(f"document.querySelectorAll('{container} [role=img], {container}[role=img]').length") == 0
        # The zoom buttons are reached with Tab from the map.
        zoom_in = f"{container} .leaflet-control-zoom-in"
        page.focus(container)
        for _ in range(5):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement === document.querySelector('{zoom_in}')"):
                break
        assert page.evaluate(f"document.activeElement === document.querySelector('{zoom_in}')"), \
            page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    # Every header cell of the numbers says what it heads (axe-core's empty-table-header).
    headers = page.evaluate("[...document.querySelectorAll('#numbers th')].map(th => th.textContent.trim())")
    assert headers and all(headers), headers
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".maps").screenshot(path=str(ARTIFACTS / f"inspect-maps-keyboard-{width}.png"))
    assert errors == []
