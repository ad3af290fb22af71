"""In Debian's chromium: configure → runs → report with term generalization on (the default). Two bloggers from
Nebraska cities form a class, two from European capitals the other; the report says how the terms were written
and the downloaded file holds the class's shared value ("a city in Nebraska"), never the names."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job
from anonymizer.platform.jobs import runner
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import browser_page, run_in_process
from tests.kanon.web.test_configure_browser import sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

POSTS = [
    ("p1", "30", "We drove to Omaha on Saturday and it was great."),
    ("p1", "30", "Omaha again next week, I think."),
    ("p2", "31", "I grew up in Lincoln, Nebraska and I still love it."),
    ("p3", "60", "I spent June 2004 in Paris with my sister."),
    ("p4", "61", "London in June 2004 was rainy all month."),
]
CONFIG = "\n".join([
    "attributes:",
    "  - {name: id, role: direct_identifier}",
    "  - {name: age, role: quasi_identifier, type: numerical}",
    "  - {name: text, role: text, type: text}",
    "entity_types: [PERSON, GPE, DATE]",
])


def test_configure_run_and_report_with_term_generalization(live_server, user):
    body = io.StringIO()
    writer = csv.writer(body)
    writer.writerow(["id", "age", "text"])
    writer.writerows(POSTS)
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", body.getvalue().encode()))
    run_in_process(owner=user, kind="profile_csv", params={}, inputs=[upload])
    checked = {}
    for page in browser_page():
        page.set_default_timeout(30_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        page.goto(f"{live_server.url}/kanon/{upload.id}/configure/")
        checked["generalize"] = page.is_checked("#kanon-generalize-terms")
        checked["everywhere"] = page.is_checked("#kanon-recode-everywhere")
        page.fill("#kanon-k", "2")
        page.fill("#kanon-lambdas", "0.5")
        page.click("summary")
        page.fill("#kanon-yaml", CONFIG)
        page.click("#kanon-run")
        page.wait_for_url(f"**/kanon/{upload.id}/runs/")
    assert checked == {"generalize": True, "everywhere": True}
    (job,) = Job.objects.filter(kind="kanon")
    assert job.params["config"]["generalize_terms"] is True
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    report = {}
    for page in browser_page():
        page.set_default_timeout(30_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        page.goto(f"{live_server.url}/kanon/{upload.id}/runs/")
        page.click(f"a[href='/jobs/{job.id}/']")
        page.wait_for_url(f"**/jobs/{job.id}/")
        report["terms"] = page.text_content("#kanon-released-terms")
        report["surviving"] = page.text_content("#kanon-surviving")
        with page.expect_download() as download:
            page.click("a[download]:has-text('anonymized.csv')")
        report["file"] = download.value.path().read_text(encoding="utf-8")
    assert "generalized to what the class shares" in report["terms"]
    assert "Of the names the recognizer found, none stands where its class does not share it" in report["surviving"]
    released = list(csv.DictReader(io.StringIO(report["file"])))
    texts = [row["text"] for row in released]
    assert "a city in Nebraska" in texts[0] and "a city in Nebraska" in texts[2]
    assert not any(name in text for text in texts for name in ("Omaha", "Lincoln", "Paris", "London"))
    assert "June 2004" in texts[3] and "June 2004" in texts[4]  # both hold it: kept as written
