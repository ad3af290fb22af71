"""Reads of the k-anonymization workflow: a user's upload and its runs, the upload's newest profile and the
configuration prefilled from it, and the worker processes that ran a job's parts."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.shortcuts import get_object_or_404

from anonymizer.kanon.config import KanonConfig, config_from_profile
from anonymizer.models import Job, Upload
from anonymizer.platform import selectors
from anonymizer.tabular.profile import PROFILE_JOB

#: The job kind of a k-anonymization run (``kanon.web.jobs`` registers it).
KIND = "kanon"


def upload_of(user: AbstractBaseUser, upload_id: object) -> Upload:
    """The user's upload of that id; Http404 for any other."""
    return get_object_or_404(selectors.uploads_of(user), id=upload_id)


def runs_of(user: AbstractBaseUser, upload: Upload) -> list[Job]:
    """The user's k-anonymization runs of one upload, oldest first."""
    return list(selectors.jobs_of(user).filter(kind=KIND, inputs=upload).order_by("created_at"))


def newest_profile(upload: Upload) -> dict | None:
    """The result of the upload's newest successful profile job, if any."""
    job = upload.jobs.filter(kind=PROFILE_JOB, status=Job.Status.SUCCEEDED).order_by("-finished_at").first()
    return job.result if job is not None and isinstance(job.result, dict) else None


def default_config(upload: Upload) -> KanonConfig | None:
    """Prefilled from the newest successful profile of the upload, when there is one."""
    profile = newest_profile(upload)
    return config_from_profile(profile) if profile is not None else None


def part_workers(job: Job, step: str) -> int:
    """The worker processes that ran the job's parts of one fanned-out pass."""
    return job.chunks.filter(step=step).values("worker").distinct().count()
