"""The "remove time expressions" dataset job: an uploaded CSV in, the same CSV out with only the text column's
cells anonymized (cell by cell, row order kept, other columns as uploaded), a report, a summary with a sample on
the job page; refused before queueing for a missing column; optionally the location too, in one pass; and the web
form that starts it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from anonymizer.location.model import LocationModel
from anonymizer.models import Job, JobResult
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, run_in_process

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = ["id", "created_at", "text", "bio"]
# (id, created_at, text as posted, bio, text expected with the default options)
POSTS = [
    ("101", "2017-06-03 09:12", "I go to Tokyo with friends at 9AM.", "Up at 6am every day",
     "I go to Tokyo with friends."),
    ("102", "2017-06-03 10:40", "Tomorrow is my birthday", "Cat person, coffee addict",
     "It is my birthday"),
    ("103", "2017-06-03 11:05", "Last night was wild,\nsee you tonight at the show", "Night owl\nsince 2009",
     "It was wild,\nsee you at the show"),
    ("104", "2017-06-03 11:30", "", "no posts yet", ""),
    ("105", "2017-06-03 12:00", "No time in this one, just sushi", "", "No time in this one, just sushi"),
    ("106", "2017-06-03 13:15", "We met in the morning and left on Monday", "Weekend hiker",
     "We met and left"),
    ("107", "2017-06-03 14:20", "Grabbing lunch downtown in Little Rock at 9AM before the Razorbacks game",
     "Hogs fan", "Grabbing lunch downtown in Little Rock before the Razorbacks game"),
    ("108", "2017-06-03 15:45", 'Coffee, bagels and "jazz" on Sunday mornings', 'Says "hi" on Mondays',
     'Coffee, bagels and "jazz"'),
]
ROWS = [HEADER, *[list(post[:4]) for post in POSTS]]


@pytest.fixture
def upload(user):
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes(ROWS)))


def output_rows(job: Job) -> list[list[str]]:
    result = job.results.get(name__endswith=".time-removed.csv")
    return list(csv.reader(io.StringIO(result.file.read().decode("utf-8"), newline="")))


def test_the_text_column_is_anonymized_cell_by_cell_and_everything_else_is_kept(alice_client, user, upload):
    job = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    rows = output_rows(job)
    assert rows[0] == HEADER
    assert len(rows) == len(POSTS) + 1
    for row, (post_id, created, _, bio, expected) in zip(rows[1:], POSTS, strict=True):
        assert row == [post_id, created, expected, bio]  # row order, untouched columns, the post anonymized

    summary = job.result
    assert summary["rows"] == 8 and summary["text_columns"] == ["text"]
    (counts,) = summary["columns"]
    assert counts["name"] == "text" and counts["posts"] == 7 and counts["empty"] == 1
    assert counts["changed"] == 6  # all but the empty cell and the one without a time
    # at 9AM | "night" of Last night, tonight | in the morning, on Monday | at 9AM | on Sunday mornings
    assert counts["time_removed"] == 7 and counts["time_generalized"] == 2  # Tomorrow -> It, Last night -> It
    assert summary["options"] == {"time_mode": "both", "keep_time": ["now"], "keep_how_long": True,
                                  "time_patterns": None, "location_model": None}
    assert [s["row"] for s in summary["sample"]] == [2, 3, 4, 7, 8, 9]  # the header is row 1
    assert summary["sample"][1] == {"row": 3, "column": "text", "before": "Tomorrow is my birthday",
                                    "after": "It is my birthday"}

    report = json.loads(job.results.get(name="posts.mode-both.time-removed.report.json").file.read())
    assert report["columns"] == summary["columns"] and report["rows"] == 8
    assert "sample" not in report  # counts only: no post text in the report

    page = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    assert 'id="remove-time-counts"' in page and 'id="remove-time-sample"' in page
    assert "It is my birthday" in page and "Location-inferable" not in page


def test_prune_only_leaves_an_argument_and_several_columns_are_counted_apart(user, upload):
    job = run_in_process(owner=user, kind="remove_time",
                         params={"text_columns": ["text", "bio"], "time_mode": "prune"}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    rows = output_rows(job)
    assert rows[2][2] == "Tomorrow is my birthday"  # cutting the subject would break the sentence
    assert rows[1][2] == "I go to Tokyo with friends."
    assert (rows[1][3], rows[8][3]) == ("Up", 'Says "hi"')  # the bio column lost its times too
    assert (rows[2][3], rows[4][3], rows[5][3]) == ("Cat person, coffee addict", "no posts yet", "")
    assert [row[:2] for row in rows[1:]] == [list(post[:2]) for post in POSTS]
    text, bio = job.result["columns"]
    assert (text["name"], bio["name"]) == ("text", "bio")
    # "Last night was wild": the subject stays with pruning alone (cutting it would leave "Was wild").
    assert (text["posts"], text["changed"], text["time_removed"], text["time_generalized"]) == (7, 5, 6, 0)
    assert bio["posts"] == 7 and bio["empty"] == 1 and bio["changed"] >= 2
    assert job.result["options"]["time_mode"] == "prune"


def test_known_patterns_limit_the_job_and_its_report_names_the_patterns_job(user, upload):
    # The options reach the job as one TimeRemovalOptions (issue 47); the report says the patterns job's id as text
    # (the validated parameters hold it as a UUID, which the report's JSON could not hold).
    learned = {"input": "posts.csv", "patterns": [{"pattern": "prep:ANY(pobj:TIME)", "count": 4}]}
    patterns = Job.objects.create(owner=user, kind="temporal_patterns", status=Job.Status.SUCCEEDED,
                                  finished_at=timezone.now(), result=learned)
    job = run_in_process(owner=user, kind="remove_time", inputs=[upload],
                         params={"text_columns": ["text"], "time_mode": "prune", "time_patterns": str(patterns.id)})
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["options"] == {"time_mode": "prune", "keep_time": ["now"], "keep_how_long": True,
                                     "time_patterns": str(patterns.id), "location_model": None,
                                     "time_patterns_top": 10}


def test_a_missing_column_is_refused_before_anything_is_queued(api, upload):
    response = api.post(reverse("api-job-list"), {"kind": "remove_time", "params": {"text_columns": ["text", "body"]},
                                                  "inputs": [str(upload.id)]}, format="json")
    assert response.status_code == 400
    assert response.json() == {"params": {"text_columns": [
        "posts.csv has no column 'body'; its columns are: id, created_at, text, bio"]}}
    assert not Job.objects.exists()


def test_a_japanese_location_model_is_refused_by_field(api, upload, location_models):
    response = api.post(reverse("api-job-list"), {"kind": "remove_time", "params": {"location_model": "tokyo-ja"},
                                                  "inputs": [str(upload.id)]}, format="json")
    assert response.status_code == 400
    (message,) = response.json()["params"]["location_model"]
    assert "English posts only" in message and "'tokyo-ja'" in message
    assert not Job.objects.exists()


def test_the_location_goes_too_in_the_same_pass(alice_client, user, upload, location_models):
    job = run_in_process(owner=user, kind="remove_time",
                         params={"text_columns": ["text"], "location_model": "us-midwest-en"}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    rows = output_rows(job)
    # "at 9AM", then the places: "Little Rock" and the Razorbacks (the University of Arkansas's team).
    assert rows[7][2] == "Grabbing lunch downtown in before the game"
    assert rows[2][2].startswith("It is")  # the neutral phrase is never deleted
    # A post without time expressions loses only what the location model deletes on its own.
    model = LocationModel.load(Path(settings.MODEL_DIR) / location_models["us-midwest-en"].path)
    assert rows[5][2] == model.deidentify("No time in this one, just sushi").text_after and rows[4][2] == ""
    assert [[row[0], row[1], row[3]] for row in rows[1:]] == [[post[0], post[1], post[3]] for post in POSTS]
    (counts,) = job.result["columns"]
    assert (counts["location_inferable_before"], counts["location_inferable_after"]) == (2, 0)
    # Two posts lose units to the location model, Little Rock's post two (the city and the Razorbacks).
    assert counts["posts_location_changed"] == 2 and counts["morphemes_deleted"] == 3
    assert counts["time_removed"] == 7 and counts["time_generalized"] == 2
    location = job.result["options"]["location_model"]
    assert location["name"] == "us-midwest-en" and location["id"] == str(location_models["us-midwest-en"].id)
    page = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    assert "Location-inferable before" in page
    form = alice_client.get(reverse("temporal-remove-time", args=[upload.id])).content.decode()
    assert f'value="{location_models["us-midwest-en"].id}"' in form  # English models only
    assert str(location_models["tokyo-ja"].id) not in form


def test_bad_content_mid_file_fails_the_job_naming_the_file_and_row(user, upload):
    with open(upload.file.path, "ab") as handle:  # a file changed after its upload check
        handle.write(b'109,2017-06-04 08:00,"never closed\n')
    job = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]}, inputs=[upload])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("posts.csv: Row 10: a quoted value is never closed"), job.error
    assert not JobResult.objects.filter(job=job).exists()


def test_posts_that_are_not_english_fail_the_job_naming_their_rows(user):
    rows = [HEADER, ["201", "2017-06-05 09:00", "Heading to the gym at 3 PM", ""],
            ["202", "2017-06-05 10:00", "Férias de 3 meses amo EUA por isso kkk", ""],
            ["203", "2017-06-05 11:00", "明日の朝9時に渋谷で", ""]]
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("mixed.csv", csv_bytes(rows)))
    job = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]}, inputs=[upload])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("mixed.csv: 2 post(s) are not English (rows 3, 4; row 3, column 'text': only "), \
        job.error
    assert "remove or translate those rows" in job.error
    assert not JobResult.objects.filter(job=job).exists()  # nothing half-written; the upload stays
    assert upload.file.storage.exists(upload.file.name)


def test_the_web_form_starts_the_job_for_its_owner_only(alice_client, client, user, other_user, upload):
    url = reverse("temporal-remove-time", args=[upload.id])
    page = alice_client.get(url).content.decode()
    assert 'name="text_columns" value="text" checked' in page and 'name="text_columns" value="bio">' in page
    assert 'value="part_of_day"' in page
    uploads_page = alice_client.get(reverse("upload-list")).content.decode()
    assert url in uploads_page

    refused = alice_client.post(url, {"text_columns": ["body"], "time_mode": "both"})
    assert refused.status_code == 200 and "has no column &#x27;body&#x27;" in refused.content.decode()
    assert not Job.objects.exists()

    response = alice_client.post(url, {"text_columns": ["text"], "time_mode": "prune", "keep_time": ["clock"],
                                       "remove_how_long": "1", "time_patterns": "", "location_model": ""})
    job = Job.objects.get(kind="remove_time")
    assert response.status_code == 302 and response["Location"] == reverse("job-detail", args=[job.id])
    assert job.owner == user and list(job.inputs.all()) == [upload]
    assert job.params == {"text_columns": ["text"], "time_mode": "prune", "keep_time": ["clock"],
                          "remove_how_long": True, "time_patterns": None, "time_patterns_top": 10,
                          "location_model": None}

    learn = alice_client.post(reverse("temporal-learn-patterns", args=[upload.id]), {"text_column": "bio"})
    patterns = Job.objects.get(kind="temporal_patterns")
    assert learn.status_code == 302 and patterns.params == {"text_column": "bio"}

    client.force_login(other_user)
    assert client.get(url).status_code == 404
    assert client.post(url, {"text_columns": ["text"]}).status_code == 404
    assert client.post(reverse("temporal-learn-patterns", args=[upload.id]), {"text_column": "text"}).status_code == 404
    assert Job.objects.count() == 2


def test_by_parts_over_the_workers_the_file_and_the_summary_are_those_of_one_piece(user, upload, settings):
    one_piece = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text", "bio"]},
                               inputs=[upload])
    settings.JOB_CHUNK_BYTES = 1  # a part per row: the job's own process runs them all (no worker here)
    by_parts = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text", "bio"]},
                              inputs=[upload])
    assert one_piece.status == by_parts.status == Job.Status.SUCCEEDED, by_parts.error
    assert by_parts.chunks.count() == len(POSTS) and by_parts.result["parts"] == len(POSTS)
    assert output_rows(by_parts) == output_rows(one_piece)
    assert by_parts.results.get(name__endswith=".csv").file.read() == \
        one_piece.results.get(name__endswith=".csv").file.read()
    assert by_parts.result["columns"] == one_piece.result["columns"]
    assert by_parts.result["sample"] == one_piece.result["sample"]  # rows numbered in the file, not in the part
    assert not by_parts.chunks.filter(output__isnull=False).exists()  # the parts' rows are dropped once gathered


def test_by_parts_posts_that_are_not_english_are_named_by_their_rows_in_the_file(user, settings):
    rows = [HEADER, ["201", "2017-06-05 09:00", "Heading to the gym at 3 PM", ""],
            ["202", "2017-06-05 10:00", "Férias de 3 meses amo EUA por isso kkk", ""],
            ["203", "2017-06-05 11:00", "Back home by 5", ""],
            ["204", "2017-06-05 12:00", "明日の朝9時に渋谷で", ""]]
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("mixed.csv", csv_bytes(rows)))
    settings.JOB_CHUNK_BYTES = 1
    job = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]}, inputs=[upload])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("mixed.csv: 2 post(s) are not English (rows 3, 5; row 3, column 'text'"), job.error
    assert not JobResult.objects.filter(job=job).exists()
