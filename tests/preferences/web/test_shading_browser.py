"""The recommendations are shaded by confidence, not printed: every recommended cell is empty of text, carries
its number in its tooltip and accessible name, and its shade deepens with its confidence (a higher confidence is
never a paler cell of the same recommendation)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.helpers import ROOT, browser_page
from tests.preferences.web.test_page_browser import open_page, rate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"

CELLS = """[...document.querySelectorAll('#pref-grid button[data-recommendation]')].map(b => {
  const rgb = getComputedStyle(b).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number);
  return {word: b.dataset.recommendation, confidence: Number(b.dataset.confidence), level: Number(b.dataset.level),
          text: b.textContent, title: b.title, label: b.getAttribute('aria-label'),
          shade: [...b.classList].filter(c => c.startsWith('conf-')),
          lightness: 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]};
})"""


@pytest.fixture
def page():
    yield from browser_page()


def test_recommended_cells_are_shaded_by_confidence_with_the_number_in_title_and_label(live_server,
                                                                                      preference_model, page):
    open_page(page, live_server.url)
    rate(page)
    page.click("#pref-recommend")
    page.wait_for_selector("#pref-result:not([hidden])")
    cells = page.evaluate(CELLS)
    assert len(cells) == 120 - 9
    for cell in cells:
        percent = f"{round(100 * cell['confidence'])}%"
        assert cell["text"] == ""  # no "hide? 4%" in the cell
        assert cell["title"] == f"{cell['word']}? confidence {percent}"
        assert cell["label"].endswith(f"recommended {cell['word']}, confidence {percent}")
        assert cell["shade"] == [f"conf-{cell['level']}"]
        assert cell["level"] == 1 + sum(cell["confidence"] >= step for step in (0.05, 0.1, 0.2, 0.4))
    for word in ("publish", "hide"):
        ordered = sorted((c for c in cells if c["word"] == word), key=lambda c: c["confidence"])
        # Shading follows confidence: the step never falls and the colour never gets lighter as it rises.
        assert [c["level"] for c in ordered] == sorted(c["level"] for c in ordered)
        lightness = [c["lightness"] for c in ordered]
        assert all(later <= earlier + 1e-9 for earlier, later in pairwise(lightness))
        # ... and each step is a shade of its own, darker than the one before.
        by_level = {c["level"]: c["lightness"] for c in ordered}
        steps = [by_level[level] for level in sorted(by_level)]
        assert all(later < earlier - 10 for earlier, later in pairwise(steps)), by_level
    assert len({c["level"] for c in cells}) >= 4  # the model's confidences differ, and so do the shades
    # The key of the shades is shown with the recommendations.
    assert page.locator("#pref-key .swatch").count() == 10
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#pref-grid").screenshot(path=str(ARTIFACTS / "preferences-shaded-grid.png"))
    page.set_viewport_size({"width": 390, "height": 900})
    page.screenshot(path=str(ARTIFACTS / "preferences-shaded-390.png"), full_page=True)
