"""The "de-identify every post of a file" job (issue 21): each post of the chosen columns goes through what the
inspect page does, the released text in its cell and the verdict in an added column, counted in the report and
counted again from the written file; the same file by parts over the workers; refused by field before queueing;
started from its page by the upload's owner only."""

from __future__ import annotations

import csv
import io
import json

import psutil
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.location.web.jobs import REVIEW_SEPARATOR
from anonymizer.location.web.serializers import inspect_options
from anonymizer.location.web.services import inspect_posts
from anonymizer.models import Job
from anonymizer.platform.jobs.services import create_job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, run_in_process, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = ["id", "text", "note"]
ROWS = [
    ["1", "Grabbing lunch downtown in Little Rock before the Razorbacks game", "a"],
    ["2", "Tornado warning for Polk County, Des Moines, Iowa until 9 PM", "b"],
    ["3", "No place in this one, just coffee", "c"],
    ["4", "", "empty post"],
    ["5", "Traffic on I-235 near the Iowa State Fair again, see you at the Hy-Vee", "d"],
    ["6", "Omaha steaks and a Creighton game tonight", "e"],
    # A name no gazetteer will ever hold: never "pass" while it stays, and it is named in the review column.
    ["7", "Dinner at Zubrowka's Diner tonight, so good", "f"],
]
OPTIONS = {"text_columns": ["text"], "model": "us-midwest-en"}


@pytest.fixture
def upload(user):
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes([HEADER, *ROWS])))


def released(job: Job) -> tuple[bytes, list[list[str]], dict]:
    content = job.results.get(name__endswith=".deidentified.csv").file.read()
    report = json.loads(job.results.get(name__endswith=".deidentified.report.json").file.read())
    return content, list(csv.reader(io.StringIO(content.decode("utf-8"), newline=""))), report


def test_every_post_is_what_the_inspect_page_releases_with_its_verdict(alice_client, user, upload, location_models):
    job = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    _, rows, report = released(job)
    assert rows[0] == [*HEADER, "text_location_verdict", "text_location_review"]
    posts = [row[1] for row in ROWS if row[1]]
    expected = {result["text"]: result for result in inspect_posts(user, posts, inspect_options(OPTIONS)).results}
    for row, original in zip(rows[1:], ROWS, strict=True):
        assert [row[0], row[2]] == [original[0], original[2]]  # the other columns as uploaded, in order
        if not original[1]:
            assert row[1] == "" and row[3] == "" and row[4] == ""  # an empty post stays empty, with no verdict
            continue
        verdict = expected[original[1]]["verdict"]
        assert row[1] == expected[original[1]]["text_after"]
        assert row[3] == verdict["status"]
        names = row[4].split(REVIEW_SEPARATOR) if row[4] else []
        assert names == list(dict.fromkeys(item["text"] for item in verdict["review"]))
        assert all(name in row[1] for name in names)  # words of the released text
        assert row[3] != "pass" or not names  # never "pass" while a name is left to review
    assert "Little Rock" not in rows[1][1] and "Des Moines" not in rows[2][1]
    assert "Zubrowka's Diner" in rows[7][4].split(REVIEW_SEPARATOR) and rows[7][3] in ("review", "fail")
    (counts,) = report["columns"]
    assert counts["posts"] == 6 and counts["empty"] == 1
    assert sum(counts[v] for v in ("pass", "review", "places", "fail")) == 6
    assert counts["review"] == sum(row[3] == "review" for row in rows[1:]) >= 1
    assert counts["with_review"] == sum(bool(row[4]) for row in rows[1:]) >= 1
    assert counts["changed"] == sum(rows[i + 1][1] != ROWS[i][1] for i in range(len(ROWS))) >= 3
    assert report["released_verdicts"] == {"text": {v: counts[v] for v in ("pass", "review", "places", "fail",
                                                                          "with_review")}}
    assert report["review_columns"] == ["text_location_review"]
    assert report["model"]["name"] == "us-midwest-en" and "held-out" in report["model"]["strength"]["message"]
    assert "sample" not in report and "Little Rock" not in json.dumps(report)  # counts only, no post text
    page = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    assert "Still inferable — not safe to release" in page and 'id="deidentify-sample"' in page
    assert "names to review ◐" in page and "<code>text_location_review</code>" in page


def test_by_parts_the_file_is_that_of_one_piece(user, upload, location_models, settings):
    one_piece = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    settings.JOB_CHUNK_BYTES = 1
    by_parts = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    assert by_parts.status == Job.Status.SUCCEEDED, by_parts.error
    assert by_parts.result["parts"] == len(ROWS)
    assert released(by_parts)[0] == released(one_piece)[0]
    assert by_parts.result["columns"] == one_piece.result["columns"]
    assert by_parts.result["sample"] == one_piece.result["sample"]


def test_bad_options_are_refused_by_field_before_anything_is_queued(api, upload, location_models):
    def refusal(params: dict) -> dict:
        response = api.post(reverse("api-job-list"), {"kind": "deidentify_posts", "params": params,
                                                      "inputs": [str(upload.id)]}, format="json")
        assert response.status_code == 400, response.content
        return response.json()["params"]

    assert "has no column 'body'" in refusal({**OPTIONS, "text_columns": ["body"]})["text_columns"][0]
    assert "model" in refusal({**OPTIONS, "model": "atlantis-en"})
    assert "English posts only" in refusal({**OPTIONS, "model": "tokyo-ja", "remove_time": True})["remove_time"][0]
    assert "mode" in refusal({**OPTIONS, "mode": "fixed", "m": 2})
    # A column of the name the job (or the reviewed file) would add: refused, not written twice.
    taken = create_csv_upload(owner=upload.owner, uploaded=SimpleUploadedFile("taken.csv", csv_bytes(
        [["id", "text", "text_location_review", "text_reviewed"], ["1", "Hello", "", ""]])))
    response = api.post(reverse("api-job-list"), {"kind": "deidentify_posts", "params": OPTIONS,
                                                  "inputs": [str(taken.id)]}, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["params"]["text_columns"]
    assert [e.split(" already has a column ")[1].split(",")[0] for e in errors] == ["'text_location_review'",
                                                                                    "'text_reviewed'"]
    assert not Job.objects.exists()


def test_the_page_starts_the_job_for_the_uploads_owner_only(alice_client, client, user, other_user, upload,
                                                            location_models):
    url = reverse("location-deidentify-posts", args=[upload.id])
    page = alice_client.get(url).content.decode()
    assert 'name="text_columns" value="text" checked' in page
    assert str(location_models["us-midwest-en"].id) in page and str(location_models["tokyo-ja"].id) in page
    assert url in alice_client.get(reverse("upload-list")).content.decode()
    refused = alice_client.post(url, {"text_columns": ["text"], "model": str(location_models["tokyo-ja"].id),
                                      "remove_time": "1"})
    assert refused.status_code == 200 and "English posts only" in refused.content.decode()
    response = alice_client.post(url, {"text_columns": ["text"], "model": str(location_models["us-midwest-en"].id),
                                       "replacement": "mask", "places": "all"})
    job = Job.objects.get(kind="deidentify_posts")
    assert response.status_code == 302 and response["Location"] == reverse("job-detail", args=[job.id])
    assert job.params["model"] == str(location_models["us-midwest-en"].id) and job.params["replacement"] == "mask"
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    assert client.post(url, {"text_columns": ["text"]}).status_code == 404
    assert Job.objects.count() == 1


def test_the_page_refuses_no_text_column_in_words_and_says_submitted_not_queued(alice_client, upload,
                                                                                location_models):
    """Issue 43: DRF's "Ensure this field has at least 1 elements." and the field's code name never reach the page;
    a started job's confirmation never says "queued" (it goes stale once the job ends)."""
    url = reverse("location-deidentify-posts", args=[upload.id])
    refused = alice_client.post(url, {"model": str(location_models["us-midwest-en"].id)})
    page = refused.content.decode()
    listed = page[page.index('id="deidentify-errors"'):]
    listed = listed[:listed.index("</div>")]
    assert refused.status_code == 200 and "Text column(s): Choose at least one text column." in listed
    assert "elements" not in page and "<code>text_columns</code>" not in page
    assert not Job.objects.exists()
    started = alice_client.post(url, {"text_columns": ["text"], "model": str(location_models["us-midwest-en"].id)},
                                follow=True).content.decode()
    assert "De-identifying the posts of posts.csv: job submitted." in started and "queued." not in started


@pytest.mark.worker
def test_two_workers_share_the_parts_and_release_the_file_of_one_piece(user, location_models, settings, start_worker):
    many = [[f"{n}-{row[0]}", *row[1:]] for n in range(8) for row in ROWS]  # 48 rows, a part each
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("many.csv", csv_bytes([HEADER, *many])))
    one_piece = run_in_process(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    settings.JOB_CHUNK_BYTES = 1
    workers = [start_worker(JOB_CHUNK_BYTES="1", MODEL_DIR=str(settings.MODEL_DIR)) for _ in range(2)]
    job = create_job(owner=user, kind="deidentify_posts", params=OPTIONS, inputs=[upload])
    wait_for(lambda: Job.objects.get(id=job.id).status not in Job.ACTIVE_STATUSES, timeout=180, interval=0.3)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert released(job)[0] == released(one_piece)[0]
    assert job.result["parts"] == len(many)
    ran_on = {int(worker.rsplit(":", 1)[1]) for worker in job.chunks.values_list("worker", flat=True)}
    assert all(ran_on & {child.pid for child in psutil.Process(worker.process.pid).children(recursive=True)}
               for worker in workers), "each worker ran parts"
