"""The job machinery, run in-process against the real database: claim, progress, results, cancel, staleness,
retry, deletion, and a broker that cannot be reached."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from anonymizer.models import Job, JobResult, Upload
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import broker_at, csv_upload

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def upload(user):
    return create_csv_upload(owner=user, uploaded=csv_upload())


def queued_profile_job(user, upload) -> Job:
    # Created without publishing: these tests call run_job themselves.
    job = Job.objects.create(owner=user, kind="profile_csv", params={"sample_rows": 2})
    job.inputs.set([upload])
    return job


def test_run_job_profiles_the_csv_and_stores_results(user, upload):
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.started_at <= job.finished_at
    assert job.progress_fraction == 1.0
    assert job.result["rows"] == 4
    columns = {column["name"]: column for column in job.result["columns"]}
    assert columns["age"]["type"] == "integer"
    assert columns["text"]["type"] == "text"
    assert len(job.result["sample"]) == 2
    names = sorted(result.name for result in job.results.all())
    assert names == ["posts.columns.csv", "posts.profile.json"]
    stored = json.loads(job.results.get(name="posts.profile.json").file.read())
    assert stored["rows"] == 4


def test_run_job_twice_runs_it_once(user, upload):
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    first = Job.objects.get(id=job.id)
    runner.run_job(job.id)  # a redelivered message
    again = Job.objects.get(id=job.id)
    assert (again.status, again.finished_at, again.attempts) == (first.status, first.finished_at, 1)
    assert JobResult.objects.filter(job=job).count() == 2


def test_cancelled_queued_job_is_never_run(user, upload):
    job = queued_profile_job(user, upload)
    assert job_services.cancel_job(job)
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert job.started_at is None and not job.results.exists()
    assert not job_services.cancel_job(job)  # already ended


def test_cancel_while_running_stops_the_job_without_results(user, upload, monkeypatch):
    job = queued_profile_job(user, upload)
    from anonymizer.tabular.web import jobs as profiling

    real_run = profiling.run_profile_csv

    def run_then_get_cancelled(job_, run):
        summary = real_run(job_, run)
        job_services.cancel_job(job_)  # the owner cancels while the worker is still busy
        run.progress(1, 2, "still working")
        return summary

    monkeypatch.setattr(runner, "get_job_kind", lambda name: _kind_with(run_then_get_cancelled))
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert not job.results.exists()
    assert not list(Path(upload.file.storage.location).glob(f"results/*/{job.id}/*"))


def _kind_with(run):
    from dataclasses import replace

    from anonymizer.platform.jobs.registry import _KINDS

    return replace(_KINDS["profile_csv"], run=run)


def test_a_bad_file_fails_the_job_with_the_row(user, upload):
    # The stored file went bad after the upload check (e.g. edited on the server): the job says where.
    Path(upload.file.path).write_bytes(b"a,b\n1,2\n3\n")
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "Row 3" in job.error and "posts.csv" in job.error
    assert not job.results.exists()


def test_an_unexpected_error_fails_the_job_without_leaking_details(user, upload, monkeypatch):
    def crash(job_, run):
        raise RuntimeError("secret post text")

    monkeypatch.setattr(runner, "get_job_kind", lambda name: _kind_with(crash))
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "internal error (RuntimeError)" in job.error
    assert "secret post text" not in job.error


def test_stale_running_job_is_failed_with_the_reason(user, upload, settings):
    settings.JOB_STALE_AFTER_SECONDS = 60
    now = timezone.now()
    lost = queued_profile_job(user, upload)
    alive = queued_profile_job(user, upload)
    Job.objects.filter(id=lost.id).update(status="running", heartbeat_at=now - timedelta(seconds=61), worker="w1:42")
    Job.objects.filter(id=alive.id).update(status="running", heartbeat_at=now - timedelta(seconds=30))
    assert runner.fail_stale_jobs(now) == 1
    lost.refresh_from_db()
    alive.refresh_from_db()
    assert lost.status == Job.Status.FAILED and lost.finished_at == now
    assert "w1:42" in lost.error and "stopped responding" in lost.error
    assert alive.status == Job.Status.RUNNING


def test_retry_requeues_a_failed_job_and_it_can_succeed(user, upload):
    job = queued_profile_job(user, upload)
    Job.objects.filter(id=job.id).update(status="failed", error="worker lost", finished_at=timezone.now())
    assert job_services.retry_job(job)
    job.refresh_from_db()
    assert (job.status, job.error, job.finished_at) == (Job.Status.QUEUED, "", None)
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.attempts == 1
    assert not job_services.retry_job(job)  # a succeeded job is not re-run


def test_delete_job_removes_its_result_files(user, upload):
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    paths = [Path(result.file.path) for result in Job.objects.get(id=job.id).results.all()]
    assert paths and all(path.exists() for path in paths)
    job_services.delete_job(Job.objects.get(id=job.id))
    assert not Job.objects.filter(id=job.id).exists()
    assert not any(path.exists() for path in paths)
    assert Upload.objects.filter(id=upload.id).exists()  # the original stays until its owner deletes it


def test_create_job_with_unreachable_broker_fails_the_job_visibly(user, upload):
    with broker_at("redis://127.0.0.1:1/0"):  # nothing listens on port 1
        job = job_services.create_job(owner=user, kind="profile_csv", params={"sample_rows": 1}, inputs=[upload])
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "broker" in job.error


def test_create_job_refuses_another_users_upload(user, other_user, upload):
    with pytest.raises(PermissionError):
        job_services.create_job(owner=other_user, kind="profile_csv", params={}, inputs=[upload])
    assert not Job.objects.exists()


def test_deleting_an_account_deletes_its_files(user, upload):
    job = queued_profile_job(user, upload)
    runner.run_job(job.id)
    paths = [Path(upload.file.path)] + [Path(result.file.path) for result in JobResult.objects.filter(job=job)]
    assert len(paths) == 3 and all(path.exists() for path in paths)
    user.delete()
    assert not Job.objects.exists() and not Upload.objects.exists()
    assert not any(path.exists() for path in paths)
