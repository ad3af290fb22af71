"""Reads of the platform's records. Every query starts from the owner, so other users' objects do not exist
for a caller."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from anonymizer.models import Job, Upload
from anonymizer.platform.jobs.registry import kind_label


def jobs_of(user: AbstractBaseUser) -> QuerySet[Job]:
    return Job.objects.filter(owner_id=user.pk).prefetch_related("inputs", "results")


def uploads_of(user: AbstractBaseUser) -> QuerySet[Upload]:
    return Upload.objects.filter(owner_id=user.pk)


def upload_of(user: AbstractBaseUser, ref: str) -> Upload | None:
    """One of the user's uploads by its id as a page sends it (any text); None when there is no such upload."""
    try:
        return uploads_of(user).filter(id=uuid.UUID(str(ref))).first()
    except ValueError:
        return None


def succeeded_jobs_of(user: AbstractBaseUser, kind: str, *, limit: int = 20) -> list[Job]:
    """A user's succeeded jobs of one kind, newest first (none for a visitor)."""
    if not user.is_authenticated:
        return []
    return list(Job.objects.filter(owner_id=user.pk, kind=kind, status=Job.Status.SUCCEEDED)
                .order_by("-finished_at")[:limit])


def succeeded_job(user: AbstractBaseUser | None, job_id: uuid.UUID | str, kind: str, *, what: str = "") -> Job:
    """A user's succeeded job of one kind, whose result another job or request builds on. Raises LookupError,
    saying why (the job called ``what``, by default its kind's label), when the user has no such job or it has
    not succeeded."""
    job = jobs_of(user).filter(id=job_id, kind=kind).first() if user is not None else None
    label = what or kind_label(kind)
    if job is None:
        raise LookupError(f"You have no '{label}' job {job_id}.")
    if job.status != Job.Status.SUCCEEDED:
        raise LookupError(f"The '{label}' job {job_id} is {job.status}, not succeeded.")
    return job
