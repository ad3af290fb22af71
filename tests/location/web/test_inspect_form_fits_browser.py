"""The inspect form's selects in Debian's chromium at 1280 and 390 px (issue 43, finding 5): with time removal
ticked, no option of any shown select is cut off (the long "How" options were, at both widths), nor on the form that
de-identifies a whole file, and neither page scrolls sideways; screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import ROOT, browser_page, csv_bytes, cut_off_options, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def test_no_option_of_the_inspect_form_is_cut_off(live_server, location_models):
    ARTIFACTS.mkdir(exist_ok=True)
    found = {}
    for page in browser_page():
        page.set_default_timeout(20_000)
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(live_server.url + "/")
            page.check("#inspect-remove-time")
            page.wait_for_selector("#inspect-time-mode", state="visible")
            found[width] = (cut_off_options(page, "#inspect-form select"),
                            page.evaluate(SIDEWAYS))
            page.screenshot(path=str(ARTIFACTS / f"inspect-form-{width}.png"), full_page=True)
    assert found == {1280: ([], 0), 390: ([], 0)}


def test_no_option_of_the_deidentify_form_is_cut_off(live_server, user, location_models):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes([["text"], ["Hi"]])))
    found = {}
    for page in browser_page():
        page.set_default_timeout(20_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(live_server.url + reverse("location-deidentify-posts", args=[upload.id]))
            page.wait_for_selector("#deidentify-form")
            found[width] = (cut_off_options(page, "#deidentify-form select"),
                            page.evaluate(SIDEWAYS))
            page.screenshot(path=str(ARTIFACTS / f"deidentify-form-{width}.png"), full_page=True)
    assert found == {1280: ([], 0), 390: ([], 0)}
