"""Celery tasks: thin wrappers that take ids and call the runner, and what each worker's main process does
for the jobs of its pool processes (which cannot report their own death)."""

from __future__ import annotations

import logging
import threading

from celery import Task, shared_task
from celery.exceptions import TimeLimitExceeded, WorkerLostError
from celery.signals import worker_ready, worker_shutdown
from celery.worker import state as worker_state
from celery.worker.request import Request
from django.conf import settings
from django.db import connection

from anonymizer.platform.jobs import chunks, runner
from anonymizer.platform.jobs.lifecycle import abandoned_job_ids, time_limit_message
from anonymizer.platform.jobs.publishing import RUN_CHUNK_TASK, RUN_JOB_TASK

logger = logging.getLogger(__name__)


class _LostWorkRequest(Request):
    """A delivery as the worker's main process sees it: when the pool process running it is killed (the kernel's
    OOM killer, a crash) or exceeds the hard time limit, ``lost`` is called at once instead of waiting for a
    heartbeat to go stale."""

    def lost(self, exc: Exception | None) -> None:
        """The process died (``exc``: the WorkerLostError) or ran past the hard limit (``exc`` None)."""
        raise NotImplementedError

    def on_timeout(self, soft: bool, timeout: float) -> None:
        super().on_timeout(soft, timeout)
        if not soft:
            self.lost(None)

    def on_failure(self, exc_info, send_failed_event: bool = True, return_ok: bool = False):
        outcome = super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)
        exc = getattr(exc_info.exception, "exc", exc_info.exception)  # unwrap ExceptionWithTraceback
        if isinstance(exc, WorkerLostError) and not isinstance(exc, TimeLimitExceeded):
            self.lost(exc)
        return outcome


class JobRequest(_LostWorkRequest):
    """A job's delivery: the job fails at once with the reason."""

    def lost(self, exc: Exception | None) -> None:
        runner.fail_lost_process(self.args[0], time_limit_message() if exc is None else (
            f"The worker process running this job died ({exc}); out of memory or killed, it could not "
            "finish. Nothing was stored. Start the job again, with a smaller file if it keeps happening."))


class JobTask(Task):
    Request = JobRequest


@shared_task(base=JobTask, name=RUN_JOB_TASK, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True)
def run_job_task(job_id: str) -> None:
    runner.run_job(job_id)


class ChunkRequest(_LostWorkRequest):
    """A part's delivery: the part is handed back at once (or failed, after its last attempt)."""

    def lost(self, exc: Exception | None) -> None:
        chunks.release_lost_chunk(self.args[0], "it ran past the time limit" if exc is None
                                  else f"its process died: {exc}")


class ChunkTask(Task):
    Request = ChunkRequest


@shared_task(base=ChunkTask, name=RUN_CHUNK_TASK, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True)
def run_job_chunk_task(chunk_id: str) -> None:
    """One part of a fanned-out job (anonymizer.platform.jobs.chunks)."""
    chunks.run_chunk(chunk_id)


class JobSweeper(threading.Thread):
    """In each worker's main process, every JOB_SWEEP_SECONDS: kill a pool process still busy with a job that
    was cancelled or failed (its code may never reach a progress report: a C extension, a pathological input),
    and the platform-wide housekeeping of runner.sweep. Every worker sweeps; each step is idempotent."""

    def __init__(self, pool) -> None:
        super().__init__(name="job-sweeper", daemon=True)
        self.pool = pool
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(settings.JOB_SWEEP_SECONDS):
            try:
                self.stop_abandoned_work()
                runner.sweep()
            except Exception:  # a database or broker hiccup: the next round tries again
                logger.exception("Job sweep failed")
            finally:
                connection.close()

    def stop_abandoned_work(self) -> None:
        for task, abandoned in ((run_job_task, abandoned_job_ids),
                                (run_job_chunk_task, chunks.abandoned_chunk_ids)):
            running = {request.args[0]: request for request in list(worker_state.active_requests)
                       if request.name == task.name and request.time_start and request.args}
            if not running:
                continue
            for work_id in abandoned(list(running)):
                request = running[work_id]
                logger.warning("%s %s ended but pool process %s still works on it: killing that process",
                               "Job" if task is run_job_task else "The job of chunk", work_id, request.worker_pid)
                request.terminate(self.pool, signal="SIGKILL")


_sweepers: list[JobSweeper] = []


@worker_ready.connect
def _on_worker_ready(sender=None, **_kwargs) -> None:
    runner.on_worker_ready()
    if sender is not None and getattr(sender, "pool", None) is not None:
        sweeper = JobSweeper(sender.pool)
        sweeper.start()
        _sweepers.append(sweeper)


@worker_shutdown.connect
def _on_worker_shutdown(**_kwargs) -> None:
    for sweeper in _sweepers:
        sweeper.stopped.set()
