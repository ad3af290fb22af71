"""Reads of the platform's records. Every query starts from the owner, so other users' objects do not exist
for a caller."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.utils import timezone

from anonymizer.models import Job, JobResult, PreferenceModel, TrainedLocationModel, Upload
from anonymizer.platform.jobs.describe import duration_text, job_title, queue_text
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


def title_of(job: Job) -> str:
    """What the job is called on pages: its kind, its input and the parameters that tell it from the other runs
    ("k-anonymize paper_example.csv — k=2, λ=0.5")."""
    return job_title(job.kind, job.params, [upload.original_name for upload in job.inputs.all()])


@dataclass(frozen=True)
class QueuePlace:
    """Where a queued job stands among every user's queued and running jobs (counts only: nothing of another
    user's job is told)."""

    ahead: int  # queued before it, not yet started
    running: int
    text: str


def queue_place(job: Job, now: datetime | None = None) -> QueuePlace | None:
    """A queued job's place in the shared queue: the queued jobs created before it (workers take the oldest
    first) and the running ones; None for a job that is not queued."""
    if job.status != Job.Status.QUEUED:
        return None
    now = now or timezone.now()
    ahead = Job.objects.filter(status=Job.Status.QUEUED).filter(
        Q(created_at__lt=job.created_at) | Q(created_at=job.created_at, id__lt=job.id)).count()
    running = Job.objects.filter(status=Job.Status.RUNNING).count()
    return QueuePlace(ahead=ahead, running=running, text=queue_text(ahead, running, job.created_at, now))


def job_state(job: Job, now: datetime | None = None) -> str:
    """One sentence of where the job stands: its place in the queue, how long it has run, when it ended and
    how; never "Started" for a job that failed."""
    now = now or timezone.now()
    when = "%Y-%m-%d %H:%M:%S %Z"
    local = timezone.localtime
    if job.status == Job.Status.QUEUED:
        place = queue_place(job, now)
        return place.text if place else ""
    if job.status == Job.Status.RUNNING and job.started_at:
        return (f"Running for {duration_text(now - job.started_at)} (since "
                f"{local(job.started_at).strftime(when)})")
    if job.finished_at is None:
        return ""
    took = f" after {duration_text(job.finished_at - job.started_at)}" if job.started_at else ""
    verb = {Job.Status.SUCCEEDED: "Succeeded", Job.Status.FAILED: "Failed",
            Job.Status.CANCELLED: "Cancelled"}.get(job.status, str(job.status).capitalize())
    if job.status == Job.Status.FAILED and job.started_at is None:
        took = " before it started"
    return f"{verb} at {local(job.finished_at).strftime(when)}{took}"


# -- what a deletion takes with it ------------------------------------------------------------------------------
@dataclass
class JobLoss:
    """A job that goes, with its result files."""

    job: Job
    title: str
    results: list[JobResult] = field(default_factory=list)


@dataclass
class Consequences:
    """What deleting something takes with it, and what stays, for the confirmation page."""

    jobs: list[JobLoss] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # what stays although it came from what goes
    blocked: str = ""  # why it cannot be deleted now (a queued or running job uses it)

    @property
    def result_count(self) -> int:
        return sum(len(loss.results) for loss in self.jobs)


def _losses(jobs: QuerySet[Job]) -> list[JobLoss]:
    return [JobLoss(job=job, title=title_of(job), results=list(job.results.all()))
            for job in jobs.prefetch_related("inputs", "results").order_by("created_at")]


def _models_from(job_ids: list) -> list[str]:
    """The models the jobs trained: their records stay when the jobs go (their ``job`` link is cleared)."""
    kept = []
    for model_class, what in ((TrainedLocationModel, "location model"), (PreferenceModel, "preference model")):
        for record in model_class.objects.filter(job_id__in=job_ids).order_by("name", "created_at"):
            kept.append(f"The {what} “{record.name}” version {record.version} trained by one of these jobs stays "
                        "(it no longer links to its job).")
    return kept


def upload_deletion(upload: Upload) -> Consequences:
    """Deleting an upload deletes every job that read it, with their result files (they are derived from the
    file's data); the models such jobs trained stay."""
    jobs = upload.jobs.all()
    consequences = Consequences(jobs=_losses(jobs), kept=_models_from(list(jobs.values_list("id", flat=True))))
    if jobs.filter(status__in=Job.ACTIVE_STATUSES).exists():
        consequences.blocked = ("A queued or running job still uses this file; cancel the job or wait for it to "
                                "end, then delete the file.")
    return consequences


def job_deletion(job: Job) -> Consequences:
    consequences = Consequences(jobs=_losses(Job.objects.filter(id=job.id)), kept=_models_from([job.id]))
    if job.is_active:
        consequences.blocked = "This job is still queued or running; cancel it before deleting it."
    return consequences
