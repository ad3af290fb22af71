"""In Debian's chromium with a real worker: the jobs list says a queued job's place, then, without a reload, that
it succeeded once a worker took it; polling stops when nothing listed is queued or running."""

from __future__ import annotations

import pytest

from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import browser_page, csv_upload, sign_in, wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def queued(user):
    """A job queued while no worker runs (made before the browser starts: the database is not to be used from
    Playwright's event loop)."""
    return job_services.start_job(owner=user, kind="profile_csv", params={},
                                  inputs=[create_csv_upload(owner=user, uploaded=csv_upload())])


@pytest.fixture
def page():
    yield from browser_page()


def test_the_jobs_list_shows_the_queue_place_then_success_without_a_reload(queued, live_server, start_worker, page):
    page.set_default_timeout(30_000)
    job = queued
    sign_in(page, live_server, "alice", "correct horse battery staple")

    row = f'tr[data-job-id="{job.id}"]'
    assert page.text_content(f"{row} .live-status") == "queued"  # no worker runs yet
    assert page.text_content(f"{row} .live-standing").strip().startswith("1st in the queue")
    page.evaluate("""() => {
        window.__notReloaded = true; window.__polls = 0;
        const fetch = window.fetch;
        window.fetch = (...args) => { window.__polls += 1; return fetch(...args); };
    }""")

    start_worker()  # seconds, during which the page polls while the job waits
    wait_for_js(page, f"""document.querySelector('{row} .live-status').textContent === 'succeeded'""")
    assert page.text_content(f"{row} .live-percent") == "100%"
    assert page.text_content(f"{row} .live-standing") == ""
    assert "status-succeeded" in page.get_attribute(f"{row} .live-status", "class")
    assert page.evaluate("window.__notReloaded") is True
    assert page.evaluate("window.__polls") >= 2  # the status, then the page's fresh copy of the row

    polls = page.evaluate("window.__polls")
    page.wait_for_timeout(2800)  # longer than the poll interval: nothing is active, so nothing more is asked
    assert page.evaluate("window.__polls") == polls
