"""Reads of the platform's records. Every query starts from the owner, so other users' objects do not exist
for a caller."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext

from anonymizer.models import Job, JobResult, PreferenceModel, TrainedLocationModel, Upload
from anonymizer.platform.jobs.describe import (
    duration_text,
    estimate_seconds,
    job_title,
    ordinal,
    queue_text,
    remaining_text,
)
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
        raise LookupError(gettext("You have no '%(label)s' job %(id)s.") % {"label": label, "id": job_id})
    if job.status != Job.Status.SUCCEEDED:
        raise LookupError(gettext("The '%(label)s' job %(id)s is %(status)s, not succeeded.") % {
            "label": label, "id": job_id, "status": job.status})
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

    @property
    def position(self) -> int:
        """1 for the next job a worker takes."""
        return self.ahead + 1


def running_count() -> int:
    """How many jobs of every user run now."""
    return Job.objects.filter(status=Job.Status.RUNNING).count()


def queue_place(job: Job, now: datetime | None = None, *, running: int | None = None) -> QueuePlace | None:
    """A queued job's place in the shared queue: the queued jobs created before it (workers take the oldest
    first) and the running ones (``running`` when the caller counted them already); None for a job that is not
    queued."""
    if job.status != Job.Status.QUEUED:
        return None
    now = now or timezone.now()
    ahead = Job.objects.filter(status=Job.Status.QUEUED).filter(
        Q(created_at__lt=job.created_at) | Q(created_at=job.created_at, id__lt=job.id)).count()
    running = running_count() if running is None else running
    return QueuePlace(ahead=ahead, running=running, text=queue_text(ahead, running, job.created_at, now))


@dataclass(frozen=True)
class Standing:
    """Where a job stands now, as its page, the jobs lists and their polls show it: one sentence (``text``), a
    short line for a row of a list (``brief``), and the numbers behind them."""

    status: str
    text: str
    brief: str = ""
    place: QueuePlace | None = None  # while queued
    waited_seconds: int | None = None  # while queued: since it was queued
    elapsed_seconds: int | None = None  # running: so far; ended: how long it ran
    estimate_seconds: int | None = None  # running, once progress allows a rate (describe.estimate_seconds)

    @property
    def estimate_text(self) -> str:
        return remaining_text(self.estimate_seconds)

    def as_dict(self) -> dict:
        """The poll's JSON (counts of other users' jobs only, never anything of theirs)."""
        place = self.place
        return {"text": self.text, "brief": self.brief,
                "queue_position": place.position if place else None, "jobs_ahead": place.ahead if place else None,
                "jobs_running": place.running if place else None, "waited_seconds": self.waited_seconds,
                "elapsed_seconds": self.elapsed_seconds, "estimate_seconds": self.estimate_seconds,
                "estimate_text": self.estimate_text}


def _seconds(delta: timedelta) -> int:
    return max(int(delta.total_seconds()), 0)


def job_standing(job: Job, now: datetime | None = None, *, running: int | None = None) -> Standing:
    """Where the job stands: its place in the queue, how long it has run and about how long it still needs,
    when it ended and how; never "Started" for a job that failed. The one place the job page, the lists and
    their polls take it from (``running``: the running jobs, when the caller counted them already)."""
    now = now or timezone.now()
    def when(moment: datetime) -> str:  # 2026-12-06 11:23:43 UTC; 2026年12月6日 11:23:43 UTC
        return date_format(timezone.localtime(moment), "DATETIME_FORMAT")

    status = str(job.status)
    if job.status == Job.Status.QUEUED:
        place = queue_place(job, now, running=running)
        if place is None:
            return Standing(status=status, text="")
        brief = ngettext("%(ordinal)s in the queue, %(ahead)s job ahead", "%(ordinal)s in the queue, %(ahead)s jobs "
                         "ahead", place.ahead) % {"ordinal": ordinal(place.position), "ahead": place.ahead}
        return Standing(status=status, text=place.text, place=place, waited_seconds=_seconds(now - job.created_at),
                        brief=brief)
    if job.status == Job.Status.RUNNING and job.started_at:
        elapsed = _seconds(now - job.started_at)
        estimate = estimate_seconds(job.progress_fraction, elapsed)
        ran = duration_text(now - job.started_at)
        left = remaining_text(estimate)
        values = {"ran": ran, "since": when(job.started_at), "left": left}
        return Standing(status=status, text=gettext("Running for %(ran)s (since %(since)s)") % values,
                        brief=(gettext("running %(ran)s, %(left)s") if left else gettext("running %(ran)s")) % values,
                        elapsed_seconds=elapsed, estimate_seconds=estimate)
    if job.finished_at is None:
        return Standing(status=status, text="")
    values = {"when": when(job.finished_at),
              "took": duration_text(job.finished_at - job.started_at) if job.started_at else ""}
    if job.status == Job.Status.FAILED and job.started_at is None:
        text = gettext("Failed at %(when)s before it started")
    elif job.started_at:
        text = {Job.Status.SUCCEEDED: gettext("Succeeded at %(when)s after %(took)s"),
                Job.Status.FAILED: gettext("Failed at %(when)s after %(took)s"),
                Job.Status.CANCELLED: gettext("Cancelled at %(when)s after %(took)s")}.get(
                    job.status, f"{status.capitalize()} at %(when)s after %(took)s")
    else:
        text = {Job.Status.SUCCEEDED: gettext("Succeeded at %(when)s"),
                Job.Status.FAILED: gettext("Failed at %(when)s"),
                Job.Status.CANCELLED: gettext("Cancelled at %(when)s")}.get(
                    job.status, f"{status.capitalize()} at %(when)s")
    return Standing(status=status, text=text % values,
                    elapsed_seconds=_seconds(job.finished_at - job.started_at) if job.started_at else None)


def standings_of(jobs: Iterable[Job], now: datetime | None = None) -> list[tuple[Job, Standing | None]]:
    """Each job with where it stands while it is queued or running (None once it has ended: its row shows its
    status). The running jobs are counted once for all of them."""
    jobs = list(jobs)
    now = now or timezone.now()
    running = running_count() if any(job.status == Job.Status.QUEUED for job in jobs) else None
    return [(job, job_standing(job, now, running=running) if job.is_active else None) for job in jobs]


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
    for model_class, sentence in (
            (TrainedLocationModel, gettext("The location model “%(name)s” version %(version)s trained by one of "
                                           "these jobs stays (it no longer links to its job).")),
            (PreferenceModel, gettext("The preference model “%(name)s” version %(version)s trained by one of these "
                                      "jobs stays (it no longer links to its job)."))):
        for record in model_class.objects.filter(job_id__in=job_ids).order_by("name", "created_at"):
            kept.append(sentence % {"name": record.name, "version": record.version})
    return kept


def upload_deletion(upload: Upload) -> Consequences:
    """Deleting an upload deletes every job that read it, with their result files (they are derived from the
    file's data); the models such jobs trained stay."""
    jobs = upload.jobs.all()
    consequences = Consequences(jobs=_losses(jobs), kept=_models_from(list(jobs.values_list("id", flat=True))))
    if jobs.filter(status__in=Job.ACTIVE_STATUSES).exists():
        consequences.blocked = gettext("A queued or running job still uses this file; cancel the job or wait for it "
                                       "to end, then delete the file.")
    return consequences


def job_deletion(job: Job) -> Consequences:
    consequences = Consequences(jobs=_losses(Job.objects.filter(id=job.id)), kept=_models_from([job.id]))
    if job.is_active:
        consequences.blocked = gettext("This job is still queued or running; cancel it before deleting it.")
    return consequences
