"""In Debian's chromium through Playwright: sign up, upload a CSV, watch the progress bar reach 100% without a
page reload while a real worker runs the job, and download the result."""

from __future__ import annotations

import csv
import json

import pytest

from tests.helpers import PAPER_EXAMPLE_ROWS, browser_page, csv_bytes, sign_in, wait_for_js, write_large_csv

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def page():
    yield from browser_page()


def test_sign_up_profile_a_csv_watch_progress_and_download(page, live_server, start_worker, tmp_path):
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/accounts/signup/")
    page.fill("#id_username", "hana")
    page.fill("#id_password1", "a long enough passphrase 7")
    page.fill("#id_password2", "a long enough passphrase 7")
    page.click("main button[type=submit]")
    page.wait_for_url("**/jobs/")

    page.click("text=Profile a CSV file")
    csv_path = tmp_path / "posts.csv"
    csv_path.write_bytes(csv_bytes(PAPER_EXAMPLE_ROWS))
    page.set_input_files("#id_file", str(csv_path))
    page.fill("#id_sample_rows", "3")
    page.click("text=Start profiling")
    page.wait_for_url("**/jobs/*-*/")

    # No worker runs yet: the page shows the queued job. Mark the document to prove it is never reloaded.
    assert page.text_content("#job-status") == "queued"
    assert page.get_attribute("#job-progress", "value") == "0"
    page.evaluate("window.__notReloaded = true")

    start_worker()
    wait_for_js(page, "document.getElementById('job-percent').textContent === '100%'")
    page.wait_for_selector("#job-results a")
    assert page.text_content("#job-status") == "succeeded"
    assert page.get_attribute("#job-progress", "value") == "100"
    assert page.evaluate("window.__notReloaded") is True
    assert "14,May,2004" in page.text_content(".sample")  # the swapped-in profile shows the sample

    with page.expect_download() as download_info:
        page.click("#job-results a:has-text('posts.profile.json')")
    profile = json.loads(open(download_info.value.path(), encoding="utf-8").read())
    assert profile["rows"] == 4 and len(profile["sample"]) == 3
    assert [column["type"] for column in profile["columns"]][:3] == ["integer", "string", "integer"]


def test_k_anonymize_upload_configure_run_watch_progress_download_and_open_the_report(live_server, start_worker,
                                                                                     tmp_path, user, page):
    """The k-anonymization workflow end to end, on a 10,000-row table (NER keeps the worker busy for seconds)."""
    page.set_default_timeout(60_000)
    sign_in(page, live_server, "alice", "correct horse battery staple")
    start_worker()

    page.click("text=Profile a CSV file")
    page.set_input_files("#id_file", str(write_large_csv(tmp_path / "diary.csv", rows=10_000)))
    page.click("text=Start profiling")
    page.wait_for_url("**/jobs/*-*/")
    page.click("#kanon-configure")  # appears when the profile is done
    page.wait_for_url("**/kanon/*/configure/")
    # Prefilled from the profile; the id column (every person has several rows) is the direct identifier.
    assert page.input_value("select[name=role-0]") == "direct_identifier"
    assert page.input_value("select[name=type-4]") == "date" and page.input_value("input[name=format-4]")
    assert page.input_value("select[name=role-5]") == "text"
    page.fill("#kanon-k", "2")
    page.fill("#kanon-lambdas", "0.5")
    page.click("#kanon-run")
    page.wait_for_url("**/kanon/*/runs/")
    page.click("#kanon-runs tbody a")
    page.wait_for_url("**/jobs/*-*/")

    # Watch the stages go by in place (no reload), then the report.
    page.evaluate("""() => {
        window.__notReloaded = true; window.__messages = [];
        const message = document.getElementById('job-message');
        new MutationObserver(() => window.__messages.push(message.textContent))
            .observe(message, {childList: true, characterData: true, subtree: true});
    }""")
    # A bound on liveness, not a speed goal: NER over 10,000 rows took over 60 s on a loaded 2-core CI machine.
    wait_for_js(page, "document.getElementById('job-percent').textContent === '100%'", timeout=240)
    page.wait_for_selector("#kanon-verdict")
    messages = page.evaluate("window.__messages")
    assert any(m.startswith("recognizing sensitive terms") for m in messages), messages
    assert page.evaluate("window.__notReloaded") is True
    assert page.text_content("#job-status") == "succeeded"
    assert page.text_content("#kanon-verdict").startswith("k = 2 reached")
    assert "NCP_A" in page.text_content("#kanon-ncp")

    with page.expect_download() as download_info:
        page.click("#job-results a:has-text('anonymized.csv')")
    with open(download_info.value.path(), encoding="utf-8", newline="") as handle:
        released = list(csv.DictReader(handle))
    assert len(released) == 10_000 and "id" not in released[0]
    with page.expect_download() as download_info:
        page.click("#job-results a:has-text('report.json')")
    report = json.loads(open(download_info.value.path(), encoding="utf-8").read())
    assert report["k_reached"] and report["rows"] == 10_000

    page.click("text=All runs of diary.csv")
    page.wait_for_url("**/kanon/*/runs/")
    assert page.locator("#kanon-tradeoff svg").count() == 1  # the runs as NCP_A against NCP_X
