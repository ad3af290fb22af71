"""The remove-time form in Debian's chromium at 1280 and 390 px: its selects fit their fields and the page
(none is cut off, and no option's text is wider than its select), and a form sent without a text column says
so in words naming the field, next to it and in the list above the form (never DRF's "Ensure this field has
at least 1 elements.")."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import ROOT, browser_page, csv_bytes, cut_off_options, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
ROWS = [["id", "text", "bio"], ["1", "I go to Tokyo at 9AM.", "Night owl"]]

# Every select and input of the form, with the box of the field it sits in and the page's width.
BOXES = """[...document.querySelectorAll('#remove-time-form .field select, #remove-time-form .field input')].map(e => {
  const box = e.getBoundingClientRect(), field = e.closest('.field').getBoundingClientRect();
  return {id: e.id || e.name, left: box.left, right: box.right, fieldLeft: field.left, fieldRight: field.right,
          page: document.documentElement.clientWidth, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth};
})"""


def test_the_form_fits_and_refuses_no_text_column_in_words(live_server, user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes(ROWS)))
    ARTIFACTS.mkdir(exist_ok=True)
    for page in browser_page():
        page.set_default_timeout(20_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/temporal/{upload.id}/remove-time/")
            for box in page.evaluate(BOXES):
                if box["right"] == box["left"]:  # a hidden input
                    continue
                assert box["fieldLeft"] - 0.5 <= box["left"] and box["right"] <= box["fieldRight"] + 0.5, (width, box)
                assert box["right"] <= box["page"], (width, box)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert cut_off_options(page, '#remove-time-form select') == [], width
            page.screenshot(path=str(ARTIFACTS / f"remove-time-form-{width}.png"), full_page=True)

        for box in page.locator("#remove-time-form input[name=text_columns]").all():
            box.uncheck()
        page.click("#remove-time-run")
        page.wait_for_selector("#remove-time-errors")
        listed = " ".join(page.text_content("#remove-time-errors").split())
        assert "{#" not in page.text_content("main")
        beside = page.text_content("#remove-time-form fieldset:has(input[name=text_columns]) .error")
        page.screenshot(path=str(ARTIFACTS / "remove-time-form-refused-390.png"), full_page=True)
    assert "Choose at least one text column." in beside
    assert "Choose at least one text column." in listed and "Text column(s)" in listed
    assert "Ensure this field" not in listed and "elements" not in listed and "text_columns" not in listed
    assert not Job.objects.exists()
