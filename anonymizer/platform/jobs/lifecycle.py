"""What the job machinery's modules share about a job's life, below all of them: which worker process works on a
job or a part (``worker_name``), what a job past its time limit is told, stopping the parts of an ended job, and
which running jobs a worker should give up."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext

from anonymizer.models import Job, JobChunk

Status = Job.Status


def worker_name() -> str:
    """This process as a job's or a part's ``worker`` column names it: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def time_limit_message() -> str:
    limit = settings.JOB_TIME_LIMIT_SECONDS
    shown = f"{limit / 3600:g} h" if limit >= 3600 else f"{limit / 60:g} min" if limit >= 60 else f"{limit:g} s"
    return gettext("The job ran longer than the time limit of %(limit)s (JOB_TIME_LIMIT_SECONDS) and was stopped. "
                   "Try a smaller file or simpler settings, or ask the operator for a longer limit.") % {"limit": shown}


def stop_chunks(job_id) -> list[str]:
    """Mark the parts of an ended job that were still to run or running as stopped (their workers notice at
    their next heartbeat, and a process that does not stop is killed by its worker's sweeper); returns the ids
    of those not started, whose messages may still be queued."""
    parts = JobChunk.objects.filter(job_id=job_id, status__in=(JobChunk.Status.PENDING, JobChunk.Status.RUNNING))
    waiting = [str(chunk_id) for chunk_id in parts.filter(status=JobChunk.Status.PENDING).values_list("id", flat=True)]
    parts.update(status=JobChunk.Status.STOPPED, finished_at=timezone.now())
    return waiting


def abandoned_job_ids(job_ids: list[str], now: datetime | None = None) -> set[str]:
    """Of the jobs a worker's pool processes are running, those no longer theirs to run: cancelled, failed by
    a sweep or deleted, more than JOB_KILL_GRACE_SECONDS ago (time to notice at their next progress report)."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.JOB_KILL_GRACE_SECONDS)
    rows = {str(job_id): (status, finished_at) for job_id, status, finished_at in
            Job.objects.filter(id__in=job_ids).values_list("id", "status", "finished_at")}
    ended = {job_id for job_id, (status, finished_at) in rows.items()
             if status in (Status.CANCELLED, Status.FAILED) and finished_at is not None and finished_at < cutoff}
    return ended | (set(job_ids) - set(rows))
