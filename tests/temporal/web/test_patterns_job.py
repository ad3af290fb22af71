"""The "learn temporal patterns" job: an uploaded CSV of posts in, known patterns with counts and the coverage
curve out, shown on the job page; a missing text column fails the job by name."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, run_in_process

pytestmark = pytest.mark.django_db(transaction=True)

POSTS = [
    ["id", "text"],
    ["1", "I go to Tokyo with friends at 9AM."],
    ["2", "Heading to the gym at 3 PM"],
    ["3", "We met in the morning and left on Monday"],
    ["4", "Tomorrow is my birthday"],
    ["5", "No time in this one, just sushi"],
]


def test_patterns_are_learned_counted_and_shown(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes(POSTS)))
    job = run_in_process(owner=user, kind="temporal_patterns", params={}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    result = job.result
    assert result["posts"] == 5 and result["expressions"] == 5 and result["arguments"] == 1  # "Tomorrow": a subject
    counts = {p["pattern"]: p["count"] for p in result["patterns"]}
    assert counts["prep:ANY(pobj:TIME)"] == 4  # at 9AM, at 3 PM, in the morning, on Monday: one shape
    assert result["coverage"] == [pytest.approx(4 / 5)]
    stored = json.loads(job.results.get(name="posts.temporal-patterns.json").file.read())
    assert stored["patterns"] == result["patterns"]
    page = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    assert "prep:ANY(pobj:TIME)" in page and page.count("<svg") == 1


def test_a_missing_text_column_fails_the_job_by_name(user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", csv_bytes(POSTS)))
    job = run_in_process(owner=user, kind="temporal_patterns", params={"text_column": "body"}, inputs=[upload])
    assert job.status == Job.Status.FAILED
    assert job.error == "posts.csv has no column 'body'; its columns are: id, text"
