"""Fault drills with real processes, bounded and on loopback only (issue 15, findings 3–5).

- A job stuck where Python cannot interrupt it (inside the C regex engine) is stopped when cancelled, and by
  the hard time limit when nobody cancels it; the same worker then runs the next job.
- A job looping in Python past the time limit is stopped by the soft limit and failed with the reason.
- A pool process killed like the OOM killer does fails its job at once with the reason.
- A Redis that hangs (SIGSTOP): /healthz answers 503 within 5 s, creating a job answers a clear error within
  5 s and leaves no job queued; once Redis is back the next job runs.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.urls import reverse

from anonymizer.models import Job
from anonymizer.platform.jobs import publishing, runner
from anonymizer.platform.jobs import services as job_services
from tests.helpers import broker_at, csv_upload, wait_for
from tests.hostile import misbehaving_kinds
from webapp import embedded_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

INCLUDE = misbehaving_kinds.__name__


def start_job(user, kind: str) -> Job:
    return job_services.start_job(owner=user, kind=kind, params={})


def status_of(job: Job) -> Job:
    job.refresh_from_db()
    return job


def profile_job(api) -> dict:
    upload = api.post(reverse("api-upload-list"), {"file": csv_upload()}, format="multipart")
    assert upload.status_code == 201, upload.content
    job = api.post(reverse("api-job-list"), {"kind": "profile_csv", "inputs": [upload.json()["id"]]}, format="json")
    assert job.status_code == 201, job.content
    return job.json()


def wait_succeeded(api, job: dict, timeout: float = 60) -> dict:
    done = wait_for(lambda: (j := api.get(job["url"]).json())["status"] in ("succeeded", "failed") and j, timeout, 0.2)
    assert done["status"] == "succeeded", done["error"]
    return done


def test_cancel_stops_a_job_stuck_in_c_code_and_the_worker_runs_the_next(user, api, start_worker):
    start_worker(include=INCLUDE)
    stuck = start_job(user, "test_stuck_in_c")
    wait_for(lambda: status_of(stuck).status == "running", 30, 0.05)
    pid = int(stuck.worker.rsplit(":", 1)[1])
    time.sleep(1.0)  # well inside the regex: its process can no longer notice anything by itself
    assert job_services.cancel_job(stuck)
    # The worker's main process kills that pool process JOB_KILL_GRACE_SECONDS (1 s here) after the cancel.
    wait_for(lambda: not _alive(pid), 15, 0.1)
    assert status_of(stuck).status == "cancelled" and stuck.results.count() == 0
    wait_succeeded(api, profile_job(api), 60)  # the same (only) worker is free again


def test_hard_time_limit_fails_a_job_stuck_in_c_code_with_the_reason(user, api, start_worker, settings):
    # Soft limit at 2 s cannot interrupt the C engine; the hard limit (2 s + 1 s grace) kills the process.
    # (Its heartbeat thread cannot run either, so the stale-job sweep would fail it too: keep that out of it.)
    settings.JOB_STALE_AFTER_SECONDS = 3600
    start_worker(include=INCLUDE, JOB_TIME_LIMIT_SECONDS="2", JOB_STALE_AFTER_SECONDS="3600")
    stuck = start_job(user, "test_stuck_in_c")
    started = time.monotonic()
    failed = wait_for(lambda: (j := status_of(stuck)).status == "failed" and j, 30, 0.1)
    assert time.monotonic() - started < 15
    assert "time limit of 2 s" in failed.error and "JOB_TIME_LIMIT_SECONDS" in failed.error
    wait_succeeded(api, profile_job(api), 60)


def test_soft_time_limit_stops_a_silent_python_loop_with_the_reason(user, api, start_worker):
    start_worker(include=INCLUDE, JOB_TIME_LIMIT_SECONDS="2", JOB_KILL_GRACE_SECONDS="30")
    looping = start_job(user, "test_silent_loop")
    failed = wait_for(lambda: (j := status_of(looping)).status == "failed" and j, 20, 0.1)
    assert "time limit of 2 s" in failed.error
    # Stopped by the soft limit inside the job, well before the hard limit (2 s + 30 s) would kill it.
    assert (failed.finished_at - failed.started_at).total_seconds() < 10
    wait_succeeded(api, profile_job(api), 60)


def test_a_killed_pool_process_fails_its_job_at_once_with_the_reason(user, api, start_worker, settings):
    settings.JOB_STALE_AFTER_SECONDS = 3600  # the heartbeat sweep must not be what notices it
    start_worker(include=INCLUDE, JOB_STALE_AFTER_SECONDS="3600")
    stuck = start_job(user, "test_stuck_in_c")
    wait_for(lambda: status_of(stuck).status == "running", 30, 0.05)
    os.kill(int(stuck.worker.rsplit(":", 1)[1]), signal.SIGKILL)  # as the kernel's OOM killer does
    failed = wait_for(lambda: (j := status_of(stuck)).status == "failed" and j, 10, 0.1)
    assert "worker process running this job died" in failed.error and "SIGKILL" in failed.error
    wait_succeeded(api, profile_job(api), 60)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (killed, not yet reaped by its parent) counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.fixture
def hung_redis(tmp_path):
    """A Redis of its own that the test can stop (SIGSTOP) and resume; it is resumed and ended afterwards."""
    port = embedded_redis.free_port()
    process = embedded_redis.start(tmp_path / "redis", port)
    yield process, f"redis://127.0.0.1:{port}/0"
    process.send_signal(signal.SIGCONT)
    process.terminate()
    process.wait(10)


def test_hung_redis_gives_a_quick_503_and_a_clear_job_error(hung_redis, admin_client, api, settings):
    process, url = hung_redis
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    with broker_at(url):
        assert admin_client.get(reverse("healthz")).json()["checks"]["broker"]["ok"]  # connections now pooled
        process.send_signal(signal.SIGSTOP)
        try:
            started = time.monotonic()
            health = admin_client.get(reverse("healthz"))
            assert time.monotonic() - started <= 5.0
            assert health.status_code == 503 and not health.json()["checks"]["broker"]["ok"]

            upload = api.post(reverse("api-upload-list"), {"file": csv_upload()}, format="multipart")
            started = time.monotonic()
            created = api.post(reverse("api-job-list"), {"kind": "profile_csv", "inputs": [upload.json()["id"]]},
                               format="json")
            assert time.monotonic() - started <= 5.0
            assert created.status_code == 503, created.content
            assert "task broker (Redis) did not answer" in created.json()["detail"]
            job = Job.objects.get(id=created.json()["job"]["id"])
            assert job.status == "failed" and "start the job again" in job.error
            assert not Job.objects.filter(status="queued").exists()
        finally:
            process.send_signal(signal.SIGCONT)
        # Redis is back: the failed job runs again when asked, and nothing was left queued meanwhile.
        assert admin_client.get(reverse("healthz")).json()["checks"]["broker"]["ok"]
        assert job_services.retry_job(job)
        assert status_of(job).status == "queued"


def test_a_queued_job_without_a_message_is_published_again(user):
    """A web process that died between committing a job and publishing it leaves a queued row and no message:
    a worker's sweep finds it and publishes it; jobs whose message is waiting are not published twice."""
    job = Job.objects.create(owner=user, kind="profile_csv", params={})
    assert runner.republish_lost_jobs(older_than_seconds=3600) == 0  # too young to count as lost
    Job.objects.filter(id=job.id).update(created_at=job.created_at.replace(year=2020))
    with broker_at("redis://127.0.0.1:1/0"):  # broker down: nothing to do, nothing failed
        assert runner.republish_lost_jobs(older_than_seconds=1) == 0
    assert status_of(job).status == "queued"
    assert runner.republish_lost_jobs(older_than_seconds=1) == 1
    assert runner.republish_lost_jobs(older_than_seconds=1) == 0  # its message is in the queue now
    assert str(job.id) in publishing.job_ids_in_broker()
