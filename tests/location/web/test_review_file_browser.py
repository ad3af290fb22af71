"""The review page of a de-identified file in Debian's chromium (issue 45, part 4): a small deidentify_posts job on
real posts, its page reached from the job's page, at 1280 and 390 px wide with no sideways scroll, no console error
and no serious or critical axe-core violation; three posts reviewed with the keyboard alone (one accepted, a span
deleted in one, one edited), then the reviewed file and the report downloaded and checked against the job's
result. Screenshots go to test-artifacts/ (and /tmp/kk/ for the lead)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.location import file_review
from anonymizer.location.file_review import Span
from anonymizer.location.web import review_selectors
from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import ROOT, axe_violations, browser_page, csv_bytes, run_in_process, sign_in, wait_for_js
from tests.location.web.test_review_file import HEADER, OPTIONS, ROWS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"
SHOTS = Path("/tmp/kk")
WIDTHS = {1280: 900, 390: 844}
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
PASSWORD = "correct horse battery staple"  # the `user` fixture's


@pytest.fixture
def job(user, midwest_model):
    """The job, run before the browser starts (see below), with what the test checks the page against."""
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes([HEADER, *ROWS])))
    done = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    assert done.status == Job.Status.SUCCEEDED, done.error
    with review_selectors.result_of(done).file.open("rb") as handle:
        result = handle.read()
    return done, result, review_selectors.rows_to_review(done)


@pytest.fixture
def page():
    yield from browser_page()


def selected_index(page, row: int) -> tuple[int, int]:
    """Which of the post's selectable pieces is selected, and how many it has."""
    return tuple(page.evaluate("""(key) => {
      const pieces = [...document.querySelector(`[data-key="${key}"]`).querySelectorAll('.seg')];
      return [pieces.findIndex(piece => piece.classList.contains('selected')), pieces.length];
    }""", f"{row}:text"))


def state_of(page, row: int) -> str:
    return page.text_content(f'[data-key="{row}:text"] [data-role=state]').strip()


def test_a_file_is_reviewed_with_the_keyboard_and_downloaded(live_server, job, page):
    # page last: Playwright runs an event loop in this thread, after which Django refuses database calls
    job, result, listing = job
    flagged = [item.row for item in listing.rows]
    assert len(flagged) >= 3, flagged  # one to accept, one to delete a span of, one to edit
    released = {item.row: item.released for item in listing.rows}
    errors: list[str] = []
    page.on("console", lambda message: errors.append(f"{message.text} at {message.location.get('url')}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(30_000)
    sign_in(page, live_server, "alice", PASSWORD)
    page.goto(f"{live_server.url}/jobs/{job.id}/")
    page.click("#review-file-link")
    page.wait_for_url(f"**/jobs/{job.id}/review/")
    wait_for_js(page, "document.querySelector('.review-row.current') !== null")
    SHOTS.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate(OVERFLOW) <= 1, f"sideways scroll at {width} px"
        assert axe_violations(page) == [], width  # no serious or critical accessibility fault
        page.screenshot(path=str(SHOTS / f"review-page-{width}.png"), full_page=True)
        page.screenshot(path=str(ARTIFACTS / f"review-page-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # The first post has the focus, with a visible outline, and its first span selected.
    first, second, third = flagged[:3]
    assert page.evaluate("document.activeElement.dataset.key") == f"{first}:text"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("a")  # accept; the focus moves on
    wait_for_js(page, f"document.querySelector('[data-key=\"{first}:text\"]').dataset.action === 'accepted'")
    assert page.evaluate("document.activeElement.dataset.key") == f"{second}:text"
    # The second post starts at its first marked span; the arrows move the selection off it and back.
    selection = f'[data-key="{second}:text"] .seg.selected'
    selected = page.text_content(selection)
    assert selected == listing.rows[1].flags[0].text
    where, count = selected_index(page, second)
    page.keyboard.press("ArrowRight")
    assert selected_index(page, second) == ((where + 1) % count, count)
    page.keyboard.press("ArrowLeft")
    assert page.text_content(selection) == selected
    page.keyboard.press("d")
    wait_for_js(page, f"document.querySelector('[data-key=\"{second}:text\"]').dataset.action === 'deleted'")
    assert page.text_content(f'[data-key="{second}:text"] del') == selected
    page.keyboard.press("j")
    page.keyboard.press("e")
    editor = f'[data-key="{third}:text"] [data-role=editor]'
    assert page.evaluate("document.activeElement.dataset.role") == "editor"
    # An empty edit is refused with a clear error (the API's 400, the one console error expected); then a real
    # edit is saved with Ctrl+Enter.
    assert errors == []
    page.fill(editor, "   ")
    page.keyboard.press("Control+Enter")
    wait_for_js(page, "!document.getElementById('review-error').hidden")
    assert "delete the whole post" in page.text_content("#review-error")
    assert errors == [f"Failed to load resource: the server responded with a status of 400 (Bad Request) at "
                      f"{live_server.url}/api/v1/jobs/{job.id}/reviews"]
    errors.clear()
    page.fill(editor, "Lunch somewhere, edited by hand")
    page.keyboard.press("Control+Enter")
    wait_for_js(page, f"document.querySelector('[data-key=\"{third}:text\"]').dataset.action === 'edited'")
    assert page.is_hidden("#review-error")
    assert state_of(page, third) == "edited by alice" and page.text_content("#review-count") == "3"

    page.keyboard.press("Escape")  # nothing to cancel: the focus stays where it was
    page.keyboard.press("j")  # past the page's last post: it says so
    assert page.text_content("#review-status") == "Last post left for review."
    with page.expect_download() as download:
        page.click("#download-reviewed")
    path = ARTIFACTS / "review-reviewed.csv"
    download.value.save_as(str(path))
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    original = list(csv.reader(io.StringIO(result.decode("utf-8"), newline="")))
    assert rows[0] == [*original[0], "text_reviewed"]
    by_row = {n: row for n, row in enumerate(rows[1:], start=2)}
    assert by_row[first][1] == released[first] and by_row[first][-1] == "accepted"
    with page.expect_download() as download:
        page.click("#download-report")
    report = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert report["counts"] == {"accepted": 1, "deleted": 1, "edited": 1}
    (spans,) = [r["deleted_spans"] for r in report["rows"] if r["row"] == second]
    assert [released[second][start:end] for start, end in spans] == [selected]
    assert by_row[second][1] == file_review.delete_spans(released[second], [Span(*span) for span in spans])
    assert by_row[second][-1] == "deleted"
    assert by_row[third][1] == "Lunch somewhere, edited by hand" and by_row[third][-1] == "edited"
    for n, row in by_row.items():  # every other row as the job released it
        if n not in (first, second, third):
            assert row == [*original[n - 1], ""]
    assert errors == [], errors
