"""The inspect page in Debian's chromium with a Japanese browser (issue 49): after an inspection the page, the
maps' legend and captions, the numbers table and the verdict are Japanese, with no English word left but the kept
ones (tests/i18n_catalog.KEPT_WORDS) and the post's own; no sideways scroll at 390 px; screenshots at 1280 and 390 px
go to test-artifacts/i18n/."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT, browser_page, wait_for_js
from tests.i18n_catalog import english_words

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts" / "i18n"


@pytest.fixture
def page():
    yield from browser_page()


def test_the_inspected_page_is_japanese(live_server, location_models, tokyo, page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    text = tokyo.inferable_text()
    page.set_default_timeout(20_000)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.set_extra_http_headers({"Accept-Language": "ja-JP,ja;q=0.9"})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + "/")
    assert page.evaluate("document.documentElement.lang") == "ja"
    page.fill("#inspect-text", text)
    page.click("#inspect-submit")
    page.wait_for_selector("#inspect-result:not([hidden])")
    wait_for_js(page, "document.querySelectorAll('#map-after path.cell').length > 0")
    wait_for_js(page, "document.querySelectorAll('#map-before .place-label').length > 0")

    assert page.text_content("#legend").startswith("セルの確率：")
    assert page.text_content("#caption-before").startswith("削除前：")
    assert page.text_content("#numbers caption").startswith("地図の数値：")
    rows = page.evaluate("[...document.querySelectorAll('#numbers tbody th')].map(th => th.textContent)")
    assert rows[0] == "確率が最も高いセル" and "エントロピー" in rows
    assert page.text_content("#verdict").startswith("元の投稿：")
    labels = page.evaluate("[...document.querySelectorAll('#map-before .place-label')].map(l => l.textContent)")
    assert labels and all(not english_words(label) for label in labels)  # 世田谷区, not Setagaya
    # No English word is left on the page but the kept ones, the post's own (the post is Japanese) and the mask a
    # deleted place may be replaced by ("[place]": what the released text then reads, in every language).
    shown = page.evaluate("document.body.innerText").replace(text, "").replace("[place]", "")
    assert english_words(shown) == [], english_words(shown)
    assert page.input_value("#post-after")  # the released text is the post's, whatever the page's language
    assert not errors

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "inspect-ja.png"), full_page=True)
    # On a phone's width the Japanese texts wrap: nothing scrolls sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    wait_for_js(page, "document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(ARTIFACTS / "inspect-ja-390.png"), full_page=True)
