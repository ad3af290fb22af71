"""What the job pages' polls read: the job's JSON carries where it stands (queue place counted over every user's
jobs, time run, an estimate of the time left once there is a rate to go by), and the lists' status endpoint
answers only for the caller's own jobs."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from anonymizer.models import Job
from anonymizer.platform import selectors
from anonymizer.platform.jobs.describe import estimate_seconds, remaining_text
from tests.helpers import token_client

pytestmark = pytest.mark.django_db


def test_an_estimate_needs_a_few_percent_and_a_few_seconds_and_reads_roughly():
    assert estimate_seconds(0.02, 600) is None  # too little done to go by
    assert estimate_seconds(0.5, 2) is None  # too soon
    assert estimate_seconds(1.0, 60) is None  # done
    assert estimate_seconds(0.25, 60) == 180
    assert [remaining_text(s) for s in (None, 3, 42, 180, 200, 3600, 5000)] == [
        "", "about 5 s left", "about 40 s left", "about 3 min left", "about 3 min left", "about 1 h left",
        "about 1 h 25 min left"]


def test_the_polled_job_says_its_place_among_every_users_jobs_and_nothing_of_theirs(api, queue):
    body = api.get(reverse("api-job-detail", args=[queue["second"].id])).json()
    standing = body["standing"]
    assert standing["queue_position"] == 3 and standing["jobs_ahead"] == 2 and standing["jobs_running"] == 1
    assert standing["text"].startswith("3rd in the queue: 2 jobs ahead (1 running), queued ")
    assert standing["brief"] == "3rd in the queue, 2 jobs ahead"
    assert standing["elapsed_seconds"] is None and standing["estimate_seconds"] is None
    assert standing["waited_seconds"] >= 0
    text = json.dumps(body)
    for job in (queue["running"], queue["ahead"]):
        assert str(job.id) not in text
    assert "mallory" not in text


def test_the_estimate_is_none_before_enough_progress_and_a_number_after(api, queue):
    first = queue["first"]
    url = reverse("api-job-detail", args=[first.id])
    started = timezone.now() - timedelta(seconds=60)
    Job.objects.filter(id=first.id).update(status=Job.Status.RUNNING, started_at=started,
                                           heartbeat_at=timezone.now(), progress_done=1, progress_total=100)
    standing = api.get(url).json()["standing"]
    assert standing["queue_position"] is None and 60 <= standing["elapsed_seconds"] <= 62
    assert standing["estimate_seconds"] is None and standing["estimate_text"] == ""
    assert standing["text"].startswith("Running for 1 min")

    Job.objects.filter(id=first.id).update(progress_done=25)
    standing = api.get(url).json()["standing"]
    assert 180 <= standing["estimate_seconds"] <= 190 and standing["estimate_text"] == "about 3 min left"
    assert standing["brief"].startswith("running 1 min") and standing["brief"].endswith(", about 3 min left")

    # The job page shows the same on load, beside the percent.
    client = APIClient()
    client.force_login(first.owner)
    shown = client.get(reverse("job-detail", args=[first.id])).content.decode()
    assert 'id="job-estimate" class="muted">about 3 min left<' in shown

    Job.objects.filter(id=first.id).update(status=Job.Status.SUCCEEDED, finished_at=started + timedelta(seconds=90))
    standing = api.get(url).json()["standing"]
    assert standing["elapsed_seconds"] == 90 and standing["estimate_seconds"] is None
    assert standing["text"].startswith("Succeeded at ") and standing["text"].endswith(" after 1 min 30 s")


def test_the_status_endpoint_answers_for_the_callers_jobs_only(api, other_user, queue):
    url = reverse("api-job-status")
    everyone = ",".join(str(job.id) for job in queue.values())
    body = api.get(url, {"ids": everyone + ",not-an-id,,"}).json()
    assert {job["id"] for job in body["jobs"]} == {str(queue["first"].id), str(queue["second"].id)}
    by_id = {job["id"]: job for job in body["jobs"]}
    assert by_id[str(queue["first"].id)]["standing"]["queue_position"] == 2
    assert by_id[str(queue["first"].id)]["status"] == "queued"
    assert by_id[str(queue["first"].id)]["progress"]["fraction"] == 0
    assert "mallory" not in json.dumps(body)

    mallory = token_client(other_user)
    mine = f"{queue['first'].id},{queue['second'].id}"
    assert mallory.get(url, {"ids": mine}).json() == {"jobs": []}
    assert api.get(url).json() == {"jobs": []}
    assert APIClient().get(url, {"ids": mine}).status_code in (401, 403)


def test_a_browser_session_polls_with_a_plain_get(alice_client, queue):
    """The pages poll with their session cookie: a GET, no CSRF token needed (and none given)."""
    response = alice_client.get(reverse("api-job-status"), {"ids": str(queue["first"].id)},
                                HTTP_ACCEPT="application/json")
    assert response.status_code == 200 and response.json()["jobs"][0]["standing"]["queue_position"] == 2
    assert alice_client.post(reverse("api-job-status")).status_code == 405


def test_the_lists_render_the_place_and_the_poll_hooks(alice_client, user, queue):
    shown = alice_client.get(reverse("job-list")).content.decode()
    assert f'data-live-url="{reverse("api-job-status")}"' in shown
    assert f'data-job-id="{queue["first"].id}" data-status="queued"' in shown
    assert "2nd in the queue, 1 job ahead" in shown and "3rd in the queue, 2 jobs ahead" in shown
    assert "js/job-list" in shown
    upload = queue["first"].inputs.get()
    Job.objects.filter(id=queue["first"].id).update(kind="kanon")
    runs = alice_client.get(reverse("kanon-compare", args=[upload.id])).content.decode()
    assert f'data-job-id="{queue["first"].id}" data-status="queued"' in runs
    assert "2nd in the queue, 1 job ahead" in runs and 'id="kanon-charts" data-live-swap' in runs


def test_standings_count_the_running_jobs_once(django_assert_max_num_queries, user, queue):
    jobs = list(selectors.jobs_of(user))
    with django_assert_max_num_queries(1 + len(jobs)):
        rows = selectors.standings_of(jobs)
    assert [standing.place.position for _, standing in rows] == [3, 2]
