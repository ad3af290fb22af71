"""Reviewing a de-identified file (issue 45, part 4): the owner's decisions on the posts a deidentify_posts job left
for review (accepted, spans deleted, the whole post deleted, edited) are validated against the job's result file
and stored all together or not at all; the reviewed file is the result with them applied, byte for byte, plus a
`<column>_reviewed` column; the report counts them; the job's result file never changes; everything is the job
owner's only (404 for anyone else)."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.location import file_review
from anonymizer.location.file_review import Span
from anonymizer.location.web import review_selectors
from anonymizer.models import Job, ReviewedRow
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, run_in_process, token_client

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = ["id", "text", "note"]
# Real-world shaped posts (those of test_deidentify_posts_job.py), with one formula-looking note kept as written.
ROWS = [
    ["1", "Grabbing lunch downtown in Little Rock before the Razorbacks game", "a"],
    ["2", "Tornado warning for Polk County, Des Moines, Iowa until 9 PM", "b"],
    ["3", "No place in this one, just coffee", "c"],
    ["4", "", "empty post"],
    ["5", "Traffic on I-235 near the Iowa State Fair again, see you at the Hy-Vee", "d"],
    ["6", "Omaha steaks and a Creighton game tonight", "e"],
]
# Only the places the thresholds need deleted, and a place kept (as the inspect page lets one): posts come back
# with a place left, over a threshold, or with a name to review (Hy-Vee).
OPTIONS = {"text_columns": ["text"], "model": "us-midwest-en", "places": "needed", "keep": ["Omaha"]}


@pytest.fixture
def job(user, midwest_model):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes([HEADER, *ROWS])))
    done = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    assert done.status == Job.Status.SUCCEEDED, done.error
    return done


def result_bytes(job: Job) -> bytes:
    with review_selectors.result_of(job).file.open("rb") as handle:
        return handle.read()


def download(client, job: Job) -> bytes:
    response = client.get(reverse("location-review-download", args=[job.id]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"].endswith('.deidentified.reviewed.csv"')
    return b"".join(response.streaming_content)


def review(api, job: Job, *reviews: dict):
    return api.post(reverse("api-location-review", args=[job.id]), {"reviews": list(reviews)}, format="json")


def test_the_page_lists_the_posts_left_for_review_with_their_spans(alice_client, job):
    rows = list(csv.reader(io.StringIO(result_bytes(job).decode())))
    verdicts = {n + 1: row[3] for n, row in enumerate(rows) if n}  # row numbers: the header is row 1
    flagged = [row for row, verdict in verdicts.items() if verdict in file_review.TO_REVIEW]
    assert flagged, verdicts  # the fixture's posts leave something to review
    listing = review_selectors.rows_to_review(job)
    assert [item.row for item in listing.rows] == flagged
    for item in listing.rows:
        assert item.released == rows[item.row - 1][1]
        for flag in item.flags:  # every flagged span is a place the gazetteer finds, or a name to review, as written
            assert item.released[flag.start:flag.end] == flag.text
    page = alice_client.get(reverse("location-review", args=[job.id])).content.decode()
    assert all(f'data-key="{row}:text"' in page for row in flagged)
    assert 'src="/static/js/review-file.js"' in page and "<kbd>A</kbd> Accept" in page
    assert reverse("location-review", args=[job.id]) in alice_client.get(
        reverse("job-detail", args=[job.id])).content.decode()
    later = alice_client.get(reverse("location-review", args=[job.id]) + f"?from={flagged[1]}").content.decode()
    assert f'data-key="{flagged[0]}:text"' not in later and f'data-key="{flagged[1]}:text"' in later
    assert ">First page</a>" in later
    # Pages of whole rows: a limit of one row gives the first, and the next page starts at the second.
    first = review_selectors.rows_to_review(job, limit=1)
    assert [item.row for item in first.rows] == flagged[:1] and first.next_row == (flagged[1:] or [None])[0]


def test_reviews_are_applied_to_the_result_byte_for_byte_and_reported(api, alice_client, job):
    before = hashlib.sha256(result_bytes(job)).hexdigest()
    rows = list(csv.reader(io.StringIO(result_bytes(job).decode(), newline="")))
    released = {n + 1: row[1] for n, row in enumerate(rows) if n}
    word = released[3].split()[0]
    response = review(
        api, job,
        {"row": 2, "column": "text", "action": "accept"},
        {"row": 3, "column": "text", "action": "delete", "spans": [[0, len(word)]]},
        {"row": 4, "column": "text", "action": "edit", "text": "=just coffee, edited"},
        {"row": 6, "column": "text", "action": "delete_post"},
    )
    assert response.status_code == 200, response.content
    stored = response.json()["reviews"]
    assert [r["action"] for r in stored] == ["accepted", "deleted", "edited", "deleted"]
    assert stored[1]["text"] == released[3][len(word):].lstrip() and stored[1]["deleted_spans"] == [[0, len(word)]]
    assert stored[0]["reviewed_by"] == "alice"
    # A later decision on a post replaces the earlier one; clear forgets it.
    assert review(api, job, {"row": 7, "column": "text", "action": "accept"}).status_code == 200
    assert review(api, job, {"row": 7, "column": "text", "action": "clear"}).json()["reviews"][0]["action"] is None

    content = download(alice_client, job)
    expected = io.StringIO()
    writer = csv.writer(expected)
    writer.writerow([*rows[0], "text_reviewed"])
    changes = {2: (released[2], "accepted"), 3: (stored[1]["text"], "deleted"),
               4: ("'=just coffee, edited", "edited"),  # a formula is neutralized like every export's
               6: ("", "deleted")}
    for n, row in enumerate(rows[1:], start=2):
        text, action = changes.get(n, (row[1], ""))
        writer.writerow([row[0], text, *row[2:], action])
    assert content == expected.getvalue().encode("utf-8")
    # The rows nobody reviewed are the result's own bytes, with an empty reviewed cell.
    result_lines, reviewed_lines = result_bytes(job).split(b"\r\n"), content.split(b"\r\n")
    for n in (5, 7):
        assert reviewed_lines[n - 1] == result_lines[n - 1] + b","
    assert hashlib.sha256(result_bytes(job)).hexdigest() == before  # the job's result stays as it was

    response = alice_client.get(reverse("location-review-report", args=[job.id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    report = json.loads(response.content)
    assert report["counts"] == {"accepted": 1, "deleted": 2, "edited": 1}
    assert report["reviewed"] == 4 and report["changed"] == 3
    assert [(r["row"], r["action"], r["whole_post"]) for r in report["rows"]] == [
        (2, "accepted", False), (3, "deleted", False), (4, "edited", False), (6, "deleted", True)]
    assert {r["reviewed_by"] for r in report["rows"]} == {"alice"} and all(r["reviewed_at"] for r in report["rows"])
    assert report["result_file"] == review_selectors.result_of(job).name
    assert "coffee" not in response.content.decode()  # what changed and how, never the texts


def test_bad_reviews_are_refused_by_field_and_nothing_is_written(api, job):
    released = review_selectors.released_cells(job, {(2, "text")})[(2, "text")]
    ok = {"row": 2, "column": "text", "action": "accept"}

    def refused(*reviews: dict) -> dict:
        response = review(api, job, ok, *reviews)
        assert response.status_code == 400, response.content
        assert not ReviewedRow.objects.exists()  # the good decision beside a bad one is not stored either
        return response.json()["reviews"]

    assert "no row 99" in refused({"row": 99, "column": "text", "action": "accept"})["1"]["row"][0]
    assert "not a text column" in refused({"row": 3, "column": "note", "action": "accept"})["1"]["column"][0]
    assert "delete the whole post" in refused({"row": 3, "column": "text", "action": "edit", "text": "  "})["1"][
        "text"][0]
    assert "not a non-empty part" in refused(
        {"row": 3, "column": "text", "action": "delete", "spans": [[0, 10_000]]})["1"]["spans"][0]
    assert "not a non-empty part" in refused(
        {"row": 3, "column": "text", "action": "delete", "spans": [[5, 5]]})["1"]["spans"][0]
    assert "overlap" in refused({"row": 3, "column": "text", "action": "delete", "spans": [[0, 4], [2, 6]]})["1"][
        "spans"][0]
    everything = [[0, len(released)]]
    assert "already decided" in refused({"row": 2, "column": "text", "action": "edit", "text": "x"})["1"]["row"][0]
    response = review(api, job, {"row": 1, "column": "text", "action": "accept"})
    assert response.json()["reviews"]["0"]["row"] == ["Rows are numbered from 2 (the header is row 1)."]
    response = review(api, job, {"row": 2, "column": "text", "action": "delete", "spans": everything})
    assert response.status_code == 400 and "delete the whole post" in response.json()["reviews"]["0"]["spans"][0]
    assert not ReviewedRow.objects.exists()
    # An edit that changes nothing is the released text accepted.
    response = review(api, job, {"row": 2, "column": "text", "action": "edit", "text": released})
    assert response.json()["reviews"][0]["action"] == "accepted"


def test_only_the_owner_sees_or_reviews_the_file(client, other_user, user, job, api):
    assert review(api, job, {"row": 2, "column": "text", "action": "accept"}).status_code == 200
    urls = [reverse(name, args=[job.id]) for name in ("location-review", "location-review-download",
                                                      "location-review-report")]
    client.force_login(other_user)
    for url in urls:
        assert client.get(url).status_code == 404
    mallory = token_client(other_user)
    response = review(mallory, job, {"row": 2, "column": "text", "action": "edit", "text": "mine now"})
    assert response.status_code == 404
    assert ReviewedRow.objects.get().action == "accepted"
    # Not signed in: the pages ask to log in, the API refuses.
    client.logout()
    assert client.get(urls[0]).status_code == 302
    assert review(client, job, {"row": 2, "column": "text", "action": "accept"}).status_code == 403
    # The owner's own job that did not succeed has no review page either.
    Job.objects.filter(id=job.id).update(status=Job.Status.FAILED)
    client.force_login(user)
    assert all(client.get(url).status_code == 404 for url in urls)


def test_each_text_column_is_reviewed_on_its_own(alice_client, api, user, midwest_model):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes([HEADER, *ROWS])))
    job = run_in_process(owner=user, kind="deidentify_posts", params={**OPTIONS, "text_columns": ["text", "note"]},
                         inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    response = review(api, job, {"row": 3, "column": "note", "action": "edit", "text": "noted"},
                      {"row": 3, "column": "text", "action": "accept"})
    assert response.status_code == 200, response.content
    rows = list(csv.reader(io.StringIO(result_bytes(job).decode(), newline="")))
    reviewed = list(csv.reader(io.StringIO(download(alice_client, job).decode(), newline="")))
    assert reviewed[0] == [*rows[0], "text_reviewed", "note_reviewed"]
    assert reviewed[2] == [rows[2][0], rows[2][1], "noted", *rows[2][3:], "accepted", "edited"]
    assert all(row == [*original, "", ""] for row, original in zip(reviewed[3:], rows[3:], strict=True))
    # The result file gone from storage: no page, no download (404, not a crash half-way through).
    result = review_selectors.result_of(job)
    result.file.storage.delete(result.file.name)
    assert alice_client.get(reverse("location-review-download", args=[job.id])).status_code == 404
    assert review(api, job, {"row": 3, "column": "text", "action": "accept"}).status_code == 404


def test_spans_are_deleted_as_the_de_identifier_deletes_a_unit():
    text = "Lunch at Kinnick then Hy-Vee, Des Moines"
    assert file_review.delete_spans(text, [Span(9, 16)]) == "Lunch at then Hy-Vee, Des Moines"
    assert file_review.delete_spans(text, [Span(0, 5), Span(30, 40)]) == "at Kinnick then Hy-Vee,"
    with pytest.raises(ValueError, match="overlap"):
        file_review.delete_spans(text, [Span(0, 5), Span(3, 8)])
    flags = file_review.flagged_spans(text, ["Kinnick", "Des", "Hy", "Vee"], ["Des Moines"])
    assert [(f.text, f.kind) for f in flags] == [("Kinnick", "review"), ("Hy-Vee", "review"), ("Des Moines", "place")]
    assert [text[f.start:f.end] for f in flags] == [f.text for f in flags]
    assert file_review.review_names("Kinnick; Hy-Vee; Kinnick", "; ") == ["Kinnick", "Hy-Vee"]
    # A name is marked as a word, never inside a longer one; a Japanese name inside a run of letters is.
    assert [f.text for f in file_review.flagged_spans("Hyatt by the Hy-Vee", ["Hy"])] == ["Hy"]
    assert [f.start for f in file_review.flagged_spans("Hyatt by the Hy-Vee", ["Hy"])] == [13]
    assert [f.text for f in file_review.flagged_spans("ハチ公前で待ち合わせ", ["ハチ公前"])] == ["ハチ公前"]
