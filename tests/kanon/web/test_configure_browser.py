"""In Debian's chromium: the k-anonymization configure page refuses a bad k, a bad λ, a bad date format and a
configuration naming a column the file does not have, before anything is queued, naming the field as the page
shows it, and queues the run once the values are right."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import browser_page, kanon_file, run_in_process, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def submit_and_read_errors(page) -> str:
    with page.expect_navigation():
        page.click("#kanon-run")
    return page.text_content("#config-errors") if page.query_selector("#config-errors") else ""


def test_configure_refuses_bad_values_by_the_fields_name_before_anything_is_queued(live_server, user):
    source = kanon_file("rx-anon/paper_example.csv")
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("paper_example.csv", source.read_bytes()))
    run_in_process(owner=user, kind="profile_csv", params={}, inputs=[upload])  # prefills the form
    # The whole configuration as YAML, naming a column "zodiac" where the file has "sign".
    yaml_text = "\n".join([
        "attributes:",
        "  - {name: id, role: direct_identifier}",
        "  - {name: gender, role: quasi_identifier, type: nominal}",
        "  - {name: age, role: quasi_identifier, type: numerical}",
        "  - {name: topic, role: quasi_identifier, type: nominal}",
        "  - {name: zodiac, role: insensitive}",
        "  - {name: date, role: quasi_identifier, type: date, date_format: '%d,%B,%Y'}",
        "  - {name: text, role: text, type: text}",
        "entity_types: [PERSON, GPE]",
    ])
    errors = {}
    # The database is read once the browser is closed: Playwright's event loop runs while it is open.
    for page in browser_page():
        page.set_default_timeout(30_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        page.goto(f"{live_server.url}/kanon/{upload.id}/configure/")
        page.fill("#kanon-k", "1")
        page.fill("#kanon-lambdas", "0.5")
        errors["k"] = submit_and_read_errors(page)
        page.fill("#kanon-k", "2")
        page.fill("#kanon-lambdas", "2")
        errors["lambda"] = submit_and_read_errors(page)
        page.fill("#kanon-lambdas", "0.5")
        page.fill("[aria-label='date format of date']", "%H:%M")
        errors["date format"] = submit_and_read_errors(page)
        page.click("summary")
        page.fill("#kanon-yaml", yaml_text)
        errors["missing column"] = submit_and_read_errors(page)
        # Right at last: the file's column name.
        page.fill("#kanon-yaml", yaml_text.replace("zodiac", "sign"))
        page.click("#kanon-run")
        page.wait_for_url(f"**/kanon/{upload.id}/runs/")
    assert "k: 1 is too small; expected an integer >= 2" in errors["k"]
    assert "λ: 2 is not a number between 0 and 1" in errors["lambda"] and "relational_weight" not in errors["lambda"]
    assert "date format of date: '%H:%M' contains no date" in errors["date format"]
    assert "column zodiac: no such column; the columns are: id, gender, age, topic, sign, date, text" in errors[
        "missing column"]
    # Only the last, accepted form queued anything.
    (job,) = Job.objects.filter(kind="kanon")
    assert job.status == Job.Status.QUEUED
    assert (job.params["config"]["k"], job.params["config"]["relational_weight"]) == (2, 0.5)
