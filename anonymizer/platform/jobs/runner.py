"""The worker's side of jobs: claim, run with a heartbeat and progress, store results, and the detection of
jobs whose worker was lost.

A job's status only moves forward through conditional UPDATEs (``WHERE status = ...``), so a task that is
delivered twice, a cancel racing a finishing worker, or a stale-job sweep racing a heartbeat each resolve to
exactly one outcome.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import close_old_connections, connection, transaction
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext

from anonymizer.models import FanOutInput, Job, JobChunk, JobResult
from anonymizer.platform import disk
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.i18n import language_of, user_message
from anonymizer.platform.jobs.chunks import fan_out
from anonymizer.platform.jobs.lifecycle import stop_chunks, time_limit_message, worker_name
from anonymizer.platform.jobs.publishing import job_ids_in_broker, publish_job
from anonymizer.platform.jobs.registry import get_job_kind

logger = logging.getLogger(__name__)

Status = Job.Status


class JobAborted(Exception):
    """The job was cancelled or declared lost while this worker ran it: stop without writing."""


@dataclass
class PendingResult:
    name: str
    content: bytes | None
    content_type: str
    path: Path | None = None  # a file written by the job, moved into storage only if the job succeeds


@dataclass
class JobRun:
    """What a job kind's ``run`` receives: progress reporting and result collection for one claimed job."""

    job: Job
    min_progress_interval: float = 0.5
    results: list[PendingResult] = field(default_factory=list)
    _last_write: float = 0.0

    def progress(self, done: int, total: int, message: str = "") -> None:
        """Record progress (throttled); raise JobAborted when the job is no longer ours to run."""
        now = time.monotonic()
        if now - self._last_write < self.min_progress_interval and done < total:
            return
        self._last_write = now
        updated = Job.objects.filter(id=self.job.id, status=Status.RUNNING).update(
            progress_done=done, progress_total=total, progress_message=message[:200], heartbeat_at=timezone.now()
        )
        if not updated:
            raise JobAborted
        self.job.progress_done, self.job.progress_total, self.job.progress_message = done, total, message[:200]

    def add_result(self, name: str, content: bytes, content_type: str) -> None:
        """Queue a result file; it is stored only if the job succeeds (no partial results)."""
        self.results.append(PendingResult(name, content, content_type))

    def add_result_file(self, name: str, path: Path, content_type: str) -> None:
        """Queue a large result the job wrote to ``path`` (from ``scratch_path``), streamed into storage."""
        self.results.append(PendingResult(name, None, content_type, path))

    def fan_out(self, spans: list[tuple[int, int]], progress=None, *, step: str = "",
                shared: bytes | None = None) -> Iterator[bytes | None]:
        """Split the job over the workers by byte ranges of its input (``anonymizer.platform.jobs.chunks``)."""
        return fan_out(self, spans, progress, step=step, shared=shared)

    def scratch_path(self, name: str) -> Path:
        """A private temporary file for this job; removed when the job ends, whatever the outcome."""
        directory = scratch_directory(self.job.id)
        directory.mkdir(parents=True, exist_ok=True)
        return directory / name


def scratch_directory(job_id) -> Path:
    """Where a running job keeps its temporary files, on the worker's own disk (JOB_SCRATCH_DIR)."""
    return Path(settings.JOB_SCRATCH_DIR) / str(job_id)


def remove_scratch(job_id) -> None:
    """Remove a job's temporary files, if this machine has any; logged, never raised: whoever calls it (a job
    that ended, a deletion that committed, the sweep) must not fail because of it, and the sweep tries again."""
    try:
        disk.remove(scratch_directory(job_id), root=settings.JOB_SCRATCH_DIR)
    except OSError:
        logger.exception("Could not remove the scratch files of job %s", job_id)


def sweep_scratch() -> int:
    """Remove the scratch directories of the jobs that are neither queued nor running, or no longer exist
    (a worker killed mid-job never ran its job's ``finally``); return how many. A queued job's are kept: it may
    be claimed while this sweep runs, and its run clears what an earlier attempt left before it starts."""
    root = Path(settings.JOB_SCRATCH_DIR)
    try:
        names = {entry.name: uuid.UUID(entry.name) for entry in root.iterdir() if _is_job_id(entry.name)}
    except FileNotFoundError:
        return 0
    if not names:
        return 0
    active = {str(job_id) for job_id in Job.objects.filter(id__in=list(names.values()),
                                                           status__in=Job.ACTIVE_STATUSES).values_list("id", flat=True)}
    left = [name for name, job_id in names.items() if str(job_id) not in active]
    for name in left:
        remove_scratch(name)
    if left:
        logger.info("Removed the scratch files of %d job(s) that no longer run", len(left))
    return len(left)


def _is_job_id(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name  # only directories named as scratch_directory names them
    except ValueError:
        return False


class _Heartbeat(threading.Thread):
    """Touches the running job's heartbeat so a lost worker is detectable; ends once the job is not running."""

    def __init__(self, job_id, interval: float) -> None:
        super().__init__(name=f"job-heartbeat-{job_id}", daemon=True)
        self.job_id, self.interval = job_id, interval
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                if not Job.objects.filter(id=self.job_id, status=Status.RUNNING).update(heartbeat_at=timezone.now()):
                    return  # cancelled or declared lost: the job's next progress report stops it
        except Exception:  # a heartbeat hiccup must not kill the job; the sweep decides staleness
            logger.exception("Heartbeat for job %s failed", self.job_id)
        finally:
            connection.close()  # this thread's own connection


def run_job(job_id) -> None:
    """Run one job to its end. Safe to call twice for the same job: only a queued job is claimed."""
    now = timezone.now()
    claimed = Job.objects.filter(id=job_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=now, heartbeat_at=now, worker=worker_name(), error="",
        progress_done=0, progress_total=0, progress_message="Started", attempts=F("attempts") + 1,
    )
    if not claimed:
        current = Job.objects.filter(id=job_id).values_list("status", flat=True).first()
        logger.info("Job %s not run: its status is %s", job_id, current or "deleted")
        return
    job = Job.objects.get(id=job_id)
    remove_scratch(job.id)  # what an earlier attempt left, if its worker was killed before its ``finally``
    heartbeat = _Heartbeat(job.id, settings.JOB_HEARTBEAT_SECONDS)
    heartbeat.start()
    run = JobRun(job)
    # What the job writes for its owner (progress, summary, the reason it failed) is in the owner's language.
    with translation.override(language_of(job.owner_id)):
        try:
            summary = get_job_kind(job.kind).run(job, run)
            _finish(job, run, summary)
        except JobAborted:
            logger.info("Job %s stopped: it was cancelled or declared lost", job.id)
        except SoftTimeLimitExceeded:
            _fail(job.id, time_limit_message())
        except UserFacingError as exc:
            _fail(job.id, user_message(exc))
        except Exception as exc:
            logger.exception("Job %s (%s) failed unexpectedly", job.id, job.kind)
            _fail(job.id, gettext("The job failed because of an internal error (%(error)s). The details are in the "
                                  "worker's log; please report it.") % {"error": type(exc).__name__})
        finally:
            heartbeat.stopped.set()
            heartbeat.join()
            remove_scratch(job.id)
            JobChunk.objects.filter(job_id=job.id, output__isnull=False).update(output=None)  # gathered or void
            FanOutInput.objects.filter(job_id=job.id).delete()  # what parts of a pass read is not kept past the job


def _finish(job: Job, run: JobRun, summary: dict | None) -> None:
    """Store the result files and mark success in one transaction, unless the job was cancelled meanwhile."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().filter(id=job.id, status=Status.RUNNING).first()
        if locked is None:
            raise JobAborted
        stored: list[JobResult] = []
        try:
            for pending in run.results:
                if pending.path is not None:
                    with pending.path.open("rb") as handle:
                        result = JobResult(job=locked, name=pending.name, content_type=pending.content_type,
                                           size_bytes=pending.path.stat().st_size)
                        result.file.save(pending.name, File(handle), save=False)
                else:
                    result = JobResult(job=locked, name=pending.name, content_type=pending.content_type,
                                       size_bytes=len(pending.content))
                    result.file.save(pending.name, ContentFile(pending.content), save=False)
                stored.append(result)
            JobResult.objects.bulk_create(stored)
            locked.status = Status.SUCCEEDED
            locked.result = summary
            locked.finished_at = timezone.now()
            locked.progress_done = locked.progress_total = max(locked.progress_total, 1)
            locked.progress_message = "Done"
            locked.save(update_fields=["status", "result", "finished_at", "progress_done", "progress_total",
                                       "progress_message"])
        except Exception:
            for result in stored:  # the row rolls back with the transaction; the file would not
                result.file.delete(save=False)
            raise


#: The progress message of a job that failed (the page and the API say "failed", never the last step's "Started").
FAILED_MESSAGE = "Failed"


def _fail(job_id, message: str) -> bool:
    with transaction.atomic():
        failed = bool(Job.objects.filter(id=job_id, status=Status.RUNNING).update(
            status=Status.FAILED, error=message, finished_at=timezone.now(), progress_message=FAILED_MESSAGE
        ))
        if failed:
            stop_chunks(job_id)
    return failed


def fail_lost_process(job_id, message: str) -> bool:
    """Fail a running job whose pool process the worker's main process saw end (killed, out of memory, past
    the hard time limit): that process can no longer report it. Called from the main process."""
    close_old_connections()
    failed = _fail(job_id, message)
    if failed:
        logger.warning("Job %s failed: %s", job_id, message)
    return failed


def fail_stale_jobs(now: datetime | None = None) -> int:
    """Mark running jobs whose heartbeat went silent as failed, with the reason; return how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS)
    failed = 0
    for job in Job.objects.filter(status=Status.RUNNING, heartbeat_at__lt=cutoff).only(
            "id", "heartbeat_at", "worker", "owner_id"):
        with translation.override(language_of(job.owner_id)):  # the reason, in its owner's language
            message = gettext(
                "The worker running this job (%(worker)s) stopped responding: no heartbeat since %(since)s UTC. It "
                "probably crashed or was stopped. Start the job again.") % {
                    "worker": job.worker or "unknown", "since": f"{job.heartbeat_at:%Y-%m-%d %H:%M:%S}"}
        with transaction.atomic():
            lost = Job.objects.filter(id=job.id, status=Status.RUNNING, heartbeat_at__lt=cutoff).update(
                status=Status.FAILED, error=message, finished_at=now, progress_message=FAILED_MESSAGE
            )
            if lost:
                stop_chunks(job.id)
        failed += lost
    if failed:
        logger.warning("Marked %d job(s) failed: their worker was lost", failed)
    return failed


def republish_lost_jobs(older_than_seconds: float | None = None) -> int:
    """Publish again the queued jobs that have no message in the broker (a Redis restart without persistence,
    a web process that died between committing a job and publishing it); return how many.

    Only jobs queued for JOB_REPUBLISH_AFTER_SECONDS count, so a job being published right now is left alone.
    A duplicate delivery would be harmless anyway: only a queued job is ever claimed.
    """
    if older_than_seconds is None:
        older_than_seconds = settings.JOB_REPUBLISH_AFTER_SECONDS
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    queued = [str(job_id) for job_id in
              Job.objects.filter(status=Status.QUEUED, created_at__lt=cutoff).values_list("id", flat=True)]
    if not queued:
        return 0
    try:
        in_broker = job_ids_in_broker()
    except Exception as exc:  # the broker is down: nothing can be published now; the next sweep tries again
        logger.warning("Could not read the broker's queue: %s", exc)
        return 0
    lost = [job_id for job_id in queued if job_id not in in_broker]
    for job_id in lost:
        publish_job(job_id)
    if lost:
        logger.warning("Published %d queued job(s) again: the broker had no message for them", len(lost))
    return len(lost)


def sweep() -> None:
    """One round of the housekeeping every worker's main process does (anonymizer.platform.jobs.tasks)."""
    close_old_connections()
    fail_stale_jobs()
    republish_lost_jobs()
    sweep_scratch()  # after fail_stale_jobs: a lost job's files go in the same round


def on_worker_ready() -> None:
    """A worker (re)starting is the moment to clean up after one that died."""
    sweep()

