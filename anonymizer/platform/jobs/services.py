"""Writes for jobs outside the worker: start (validate, prepare, create, publish), cancel, retry and delete.

Starting a job is one helper for every page and the API: the kind's serializer validates the parameters, its
``prepare`` checks them against the input files, and only then are the jobs created, together, in one
transaction; each is published to the broker once that commits. A refused value is reported by field before
anything is queued.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.lifecycle import stop_chunks
from anonymizer.platform.jobs.publishing import publish_job, revoke_chunks
from anonymizer.platform.jobs.registry import JobKind, get_job_kind

Status = Job.Status


def start_job(*, owner: AbstractBaseUser, kind: str, params: dict | None, inputs: Sequence[Upload] = ()) -> Job:
    """Validate and prepare the parameters, then create and publish the job. Raises
    serializers.ValidationError by field (the kind's own field names) and creates nothing then."""
    return start_jobs(owner=owner, kind=kind, runs=[params], inputs=inputs)[0]


def start_jobs(*, owner: AbstractBaseUser, kind: str, runs: Sequence[dict | None],
               inputs: Sequence[Upload] = ()) -> list[Job]:
    """Several jobs of one kind on the same inputs (e.g. one k-anonymization run per k and λ): every run's
    parameters are validated and prepared first, then all the jobs are created in one transaction, or none."""
    job_kind = get_job_kind(kind)
    inputs = list(inputs)
    _check_inputs(job_kind, owner, inputs)
    ready = [job_kind.ready_params(params, inputs, owner) for params in runs]
    with transaction.atomic():
        return [create_job(owner=owner, kind=kind, params=params, inputs=inputs) for params in ready]


def create_job(*, owner: AbstractBaseUser, kind: str, params: dict, inputs: Iterable[Upload] = ()) -> Job:
    """Create a queued job with parameters that are already valid and publish it once the transaction commits.

    Pages and the API start jobs with :func:`start_job`, which validates first; ``inputs`` must belong to
    ``owner``."""
    inputs = list(inputs)
    _check_inputs(get_job_kind(kind), owner, inputs)
    with transaction.atomic():
        job = Job.objects.create(owner=owner, kind=kind, params=params)
        job.inputs.set(inputs)
        transaction.on_commit(lambda: publish_job(job.id))
    return job


def _check_inputs(job_kind: JobKind, owner: AbstractBaseUser, inputs: list[Upload]) -> None:
    """The caller's mistakes, not the user's: pages and the API choose the files among the owner's own."""
    if len(inputs) != job_kind.inputs:
        raise ValueError(f"A {job_kind.name} job takes {job_kind.inputs} input file(s), got {len(inputs)}.")
    if any(upload.owner_id != owner.pk for upload in inputs):
        raise PermissionError("Input files must belong to the job's owner.")


def cancel_job(job: Job) -> bool:
    """Cancel a queued or running job; a running worker notices at its next progress report or heartbeat, and
    the queued messages of its parts (a job fanned out over the workers) are revoked."""
    with transaction.atomic():
        cancelled = bool(
            Job.objects.filter(id=job.id, status__in=Job.ACTIVE_STATUSES).update(
                status=Status.CANCELLED, finished_at=timezone.now(), progress_message="Cancelled by its owner"
            )
        )
        if cancelled:
            waiting = stop_chunks(job.id)
            transaction.on_commit(lambda: revoke_chunks(waiting))
    return cancelled


def retry_job(job: Job) -> bool:
    """Queue a failed or cancelled job again with the same inputs and parameters."""
    if job.inputs.count() != get_job_kind(job.kind).inputs:
        raise UserFacingError(gettext("An input file of this job was deleted; start a new job instead."))
    with transaction.atomic():
        requeued = Job.objects.filter(id=job.id, status__in=[Status.FAILED, Status.CANCELLED]).update(
            status=Status.QUEUED, error="", result=None, started_at=None, finished_at=None, heartbeat_at=None,
            progress_done=0, progress_total=0, progress_message=gettext("Queued again"),
        )
        if requeued:
            transaction.on_commit(lambda: publish_job(job.id))
    return bool(requeued)


def delete_job(job: Job) -> None:
    """Delete an ended job, its result files and its scratch files (an active job must be cancelled first)."""
    if job.status in Job.ACTIVE_STATUSES:
        raise UserFacingError(gettext("This job is still queued or running; cancel it before deleting it."))
    job.delete()  # its files go once this commits (anonymizer.platform.signals)
