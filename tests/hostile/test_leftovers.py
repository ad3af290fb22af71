"""Nothing left behind (issue 42, findings 3 and 8): after deleting any job, upload or account, no file or
directory of it under var/ (MEDIA_ROOT, MODEL_DIR, JOB_SCRATCH_DIR); a worker killed mid-job leaves scratch
files that its job's deletion, or the next sweep, removes."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from anonymizer.models import Job, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from tests.helpers import csv_upload, token_client, wait_for
from tests.hostile import misbehaving_kinds

INCLUDE = misbehaving_kinds.__name__
PASSWORD = "correct horse battery staple"


def var_roots() -> list[Path]:
    return [Path(settings.MEDIA_ROOT), Path(settings.MODEL_DIR), Path(settings.JOB_SCRATCH_DIR)]


def everything_on_disk() -> set[Path]:
    """Every file and directory below the roots (the roots themselves are the operator's)."""
    return {path for root in var_roots() if root.exists() for path in root.rglob("*")}


def named_after(*names: object) -> list[Path]:
    """The paths on disk with one of ``names`` (ids, user pks as directory names) in them."""
    wanted = {str(name) for name in names}
    return sorted(path for path in everything_on_disk()
                  if wanted & set(path.relative_to(next(r for r in var_roots() if r in path.parents)).parts))


def scratch_file(job: Job) -> Path:
    return Path(settings.JOB_SCRATCH_DIR) / str(job.id) / "deidentified.csv"


@pytest.fixture
def var(settings, tmp_path) -> Path:
    """One var/ for this test: media, models and scratch below it, as a default install has them."""
    settings.MEDIA_ROOT = tmp_path / "var" / "media"
    settings.MODEL_DIR = tmp_path / "var" / "models"
    settings.JOB_SCRATCH_DIR = tmp_path / "var" / "scratch"
    return tmp_path / "var"


def start_scratch_job(user) -> Job:
    job = job_services.start_job(owner=user, kind="test_scratch_then_work", params={})
    wait_for(lambda: scratch_file(job).exists(), 30, 0.05)
    return job


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_job_whose_worker_was_killed_mid_run_leaves_no_file_once_deleted(var, user, api, start_worker):
    worker = start_worker(include=INCLUDE)
    job = start_scratch_job(user)
    assert "35.6812" in scratch_file(job).read_text()  # original coordinates beside the released text
    worker.kill()  # SIGKILL, worker and pool process: no ``finally`` runs, as in a crash or an OOM kill
    url = reverse("api-job-detail", args=[job.id])
    failed = wait_for(lambda: (j := api.get(url).json())["status"] == "failed" and j, 30, 0.2)  # its worker is lost
    assert "stopped responding" in failed["error"]
    assert scratch_file(job).exists()  # nobody has run anything for it since

    assert api.delete(url).status_code == 204
    assert not Job.objects.filter(id=job.id).exists()
    assert named_after(job.id) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_the_sweep_removes_scratch_of_jobs_that_no_longer_run_and_keeps_a_running_jobs(var, user, start_worker):
    lost_worker = start_worker(include=INCLUDE)
    lost = start_scratch_job(user)
    lost_worker.kill()
    orphan = Path(settings.JOB_SCRATCH_DIR) / str(uuid.uuid4())  # a job deleted while its worker was down
    orphan.mkdir(parents=True)
    (orphan / "anonymized.csv").write_text("text\nsecret\n")
    stranger = Path(settings.JOB_SCRATCH_DIR) / "not-a-job"  # not named like a job's: not the sweep's to judge
    stranger.mkdir()

    start_worker(include=INCLUDE)  # sweeps at start, then every JOB_SWEEP_SECONDS (0.5 s here)
    running = start_scratch_job(user)
    wait_for(lambda: not scratch_file(lost).parent.exists() and not orphan.exists(), 30, 0.1)
    lost.refresh_from_db()
    assert lost.status == Job.Status.FAILED
    # The running job's files stay through those sweeps, and go when it ends.
    assert scratch_file(running).exists() and stranger.is_dir()
    assert job_services.cancel_job(running)
    wait_for(lambda: not scratch_file(running).parent.exists(), 30, 0.1)


def profile_job(client: Client) -> Job:
    """An upload profiled to the end in this process, so its result files exist on disk."""
    assert client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1}).status_code == 302
    job = Job.objects.latest("created_at")
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.results.count() >= 1
    return job


@pytest.mark.django_db
def test_deleting_an_upload_leaves_no_file_or_directory_of_it(var, user, alice_client,
                                                              django_capture_on_commit_callbacks):
    job = profile_job(alice_client)
    upload = job.inputs.get()
    assert named_after(upload.id) and named_after(job.id)
    with django_capture_on_commit_callbacks(execute=True):
        assert token_client(user).delete(reverse("api-upload-detail", args=[upload.id])).status_code == 204
    assert named_after(upload.id, job.id, user.pk) == []  # nor the owner's directories, now empty
    assert everything_on_disk() == set()


def save_model_version(owner, name: str) -> TrainedLocationModel:
    def write(directory: Path) -> None:
        directory.mkdir(parents=True)
        (directory / "model.json").write_text("{}")

    return artifacts.save_version(TrainedLocationModel, write, owner=owner, name=name, title=name, language="en",
                                  threshold=0.5, threshold_kind="fixed")


@pytest.mark.django_db
def test_deleting_an_account_leaves_no_empty_directory(var, user, other_user, alice_client,
                                                       django_capture_on_commit_callbacks):
    alice_job = profile_job(alice_client)
    save_model_version(user, "mine")
    save_model_version(user, "mine")
    save_model_version(user, "other-name")
    mallory = Client()
    mallory.force_login(other_user)
    profile_job(mallory)
    save_model_version(other_user, "mine")
    before = everything_on_disk()
    theirs = before - set(named_after(user.pk, alice_job.id))
    assert len(named_after(user.pk)) >= 8  # uploads/<pk>/…, results/<pk>/…, users/<pk>/mine/<version>…

    with django_capture_on_commit_callbacks(execute=True):
        assert alice_client.post(reverse("account-delete"), {"password": PASSWORD}).status_code == 302
    assert not get_user_model().objects.filter(pk=user.pk).exists()
    assert named_after(user.pk, alice_job.id) == []  # no file, and no directory named after the account
    assert everything_on_disk() == theirs  # mallory's files, and the directories above them, stay
    assert not [path for path in everything_on_disk() if path.is_dir() and not any(path.iterdir())]
