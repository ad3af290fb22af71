"""Fan-out: one job's work split into parts (byte ranges of its input file) that any worker on any machine takes.

The job's own task (the *parent*) records the parts as ``JobChunk`` rows and publishes one Celery message per
part once they are committed; then it works on the parts itself, from the last one down, while the other
workers' tasks take them from the first one up. So a job never waits on a message that no free process will
run (Celery's docs warn against a task waiting synchronously for its subtasks: with every process busy it
deadlocks), one worker alone runs a fanned-out job at the speed of an unsplit one, and every idle process
anywhere joins in. When no part is left to start, the parent waits for those others are running, then gathers
their outputs in order.

Every step is a conditional UPDATE, as for jobs: a part is claimed only while it is pending and its job
running, so a message delivered twice, or a part taken by both the parent and a task, runs once. A part whose
worker was lost (killed, out of memory: its heartbeat goes silent, or its worker's main process saw the pool
process die) is pending again and taken by whoever comes next, at most ``MAX_CHUNK_ATTEMPTS`` times. A part's
work must be idempotent (kanon's recognition parts fill the shared term cache; its string-level recoding parts
only read). Cancelling the job revokes the queued messages, and a part being worked on stops at its next check
(``ChunkWork.check``) or has its process killed by the worker's sweeper.

A job may fan out several passes one after the other, each with its own ``step`` name (kanon: recognition, then
string-level recoding's adding pass), and give the parts of a pass one input they all read (``shared``: what
the job learned from the whole file), stored once in the database while the pass runs (``FanOutInput``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from anonymizer.models import FanOutInput, Job, JobChunk
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.lifecycle import abandoned_job_ids, time_limit_message, worker_name
from anonymizer.platform.jobs.publishing import publish_chunks
from anonymizer.platform.jobs.registry import get_job_kind

logger = logging.getLogger(__name__)

ChunkStatus = JobChunk.Status
#: Claims of one part before its job fails: a part that kills its worker every time (a pathological text
#: running it out of memory) must not go round the workers for ever.
MAX_CHUNK_ATTEMPTS = 3
Progress = Callable[[int, int, str], None]
T = TypeVar("T")
#: What this process made of the last shared input of a pass it read, by (input id, load): one entry at most.
_loaded_inputs: dict[tuple, object] = {}


class ChunkAborted(Exception):
    """The part's job ended, or the part was handed to another worker, while this one worked on it."""


@dataclass
class ChunkWork:
    """What a job kind's ``run_chunk`` receives: its part's byte range, the pass it belongs to (``step``), and
    ``check()``, which it calls often."""

    job: Job
    index: int
    start: int
    end: int
    step: str = ""
    stopped: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        """Raise ChunkAborted when the part is no longer this worker's to run (its heartbeat found out)."""
        if self.stopped.is_set():
            raise ChunkAborted

    def shared_input(self, load: Callable[[bytes], T]) -> T:
        """``load`` of what every part of this pass reads (``fan_out(shared=...)``). Made once per process and
        pass: the next part of the same pass on this process gets the same object without reading it again.
        ChunkAborted once it is gone: the pass ended."""
        found = FanOutInput.objects.filter(job_id=self.job.id, step=self.step).values_list("id", flat=True).first()
        key = (found, load)
        if key not in _loaded_inputs:
            content = FanOutInput.objects.filter(id=found).values_list("content", flat=True).first()
            if content is None:
                raise ChunkAborted
            _loaded_inputs.clear()  # one pass's input at a time: it may be large
            _loaded_inputs[key] = load(bytes(content))
        return _loaded_inputs[key]


class _ChunkHeartbeat(threading.Thread):
    """Touches the part's heartbeat while its job runs and the part is still this worker's; otherwise tells the
    part to stop (``ChunkWork.stopped``)."""

    def __init__(self, chunk_id, worker: str, stopped: threading.Event, interval: float) -> None:
        super().__init__(name=f"chunk-heartbeat-{chunk_id}", daemon=True)
        self.chunk_id, self.worker, self.stopped, self.interval = chunk_id, worker, stopped, interval
        self.ended = threading.Event()

    def run(self) -> None:
        try:
            while not self.ended.wait(self.interval):
                if not JobChunk.objects.filter(id=self.chunk_id, status=ChunkStatus.RUNNING, worker=self.worker,
                                               job__status=Job.Status.RUNNING).update(heartbeat_at=timezone.now()):
                    self.stopped.set()
                    return
        except Exception:  # a hiccup must not kill the part; staleness is decided by whoever waits for it
            logger.exception("Heartbeat for chunk %s failed", self.chunk_id)
        finally:
            connection.close()


def claim_chunk(chunk_id) -> JobChunk | None:
    """Take a pending part of a running job for this worker; None when it is not there to take."""
    now = timezone.now()
    # A stopped part of a running job was handed on while its first worker was slow: it is to be done still.
    claimed = JobChunk.objects.filter(
        id=chunk_id, status__in=(ChunkStatus.PENDING, ChunkStatus.STOPPED), attempts__lt=MAX_CHUNK_ATTEMPTS,
        job__status=Job.Status.RUNNING,
    ).update(status=ChunkStatus.RUNNING, worker=worker_name(), heartbeat_at=now, started_at=now, error="",
             attempts=F("attempts") + 1)
    return JobChunk.objects.select_related("job").get(id=chunk_id) if claimed else None


def work_on(chunk: JobChunk) -> None:
    """Run a claimed part through its job kind's ``run_chunk`` and record how it ended."""
    worker = chunk.worker
    mine = JobChunk.objects.filter(id=chunk.id, status=ChunkStatus.RUNNING, worker=worker)
    work = ChunkWork(chunk.job, chunk.index, chunk.start, chunk.end, chunk.step)
    heartbeat = _ChunkHeartbeat(chunk.id, worker, work.stopped, settings.JOB_HEARTBEAT_SECONDS)
    heartbeat.start()
    try:
        output = get_job_kind(chunk.job.kind).run_chunk(chunk.job, work)
        mine.update(status=ChunkStatus.DONE, output=output, finished_at=timezone.now())
    except ChunkAborted:
        mine.update(status=ChunkStatus.STOPPED, finished_at=timezone.now())
        logger.info("Chunk %s stopped: its job ended or it was handed on", chunk.id)
    except SoftTimeLimitExceeded:
        mine.update(status=ChunkStatus.FAILED, error=time_limit_message(), finished_at=timezone.now())
    except UserFacingError as exc:
        mine.update(status=ChunkStatus.FAILED, error=str(exc), finished_at=timezone.now())
    except Exception as exc:
        logger.exception("Chunk %s of job %s (%s) failed unexpectedly", chunk.index, chunk.job_id, chunk.job.kind)
        mine.update(status=ChunkStatus.FAILED, finished_at=timezone.now(),
                    error=f"an internal error ({type(exc).__name__}); the details are in the worker's log")
    finally:
        heartbeat.ended.set()
        heartbeat.join()
        if not JobChunk.objects.filter(job_id=chunk.job_id, step=chunk.step, status=ChunkStatus.PENDING).exists():
            _loaded_inputs.clear()  # the pass has no part left to start: its input is not kept in an idle worker


def run_chunk(chunk_id) -> None:
    """The chunk task's work: claim the part and run it; a part already taken or ended is left alone."""
    chunk = claim_chunk(chunk_id)
    if chunk is None:
        logger.info("Chunk %s not run: taken by another worker, ended, or its job is not running", chunk_id)
        return
    work_on(chunk)


def release_lost_chunk(chunk_id, reason: str) -> None:
    """A part whose pool process died (seen by its worker's main process): pending again for the next taker,
    or failed once it has been tried MAX_CHUNK_ATTEMPTS times."""
    close_old_connections()
    running = JobChunk.objects.filter(id=chunk_id, status=ChunkStatus.RUNNING)
    if not running.filter(attempts__lt=MAX_CHUNK_ATTEMPTS).update(status=ChunkStatus.PENDING, worker=""):
        running.update(status=ChunkStatus.FAILED, finished_at=timezone.now(), error=_lost_message(reason))


def _lost_message(reason: str) -> str:
    return (f"its worker was lost {MAX_CHUNK_ATTEMPTS} times ({reason}); out of memory or killed, it could not "
            "finish")


def release_stale_chunks(job_id, now: datetime | None = None) -> None:
    """Parts of a job whose worker went silent for JOB_STALE_AFTER_SECONDS: pending again, or failed after
    MAX_CHUNK_ATTEMPTS tries."""
    now = now or timezone.now()
    stale = JobChunk.objects.filter(job_id=job_id, status=ChunkStatus.RUNNING,
                                    heartbeat_at__lt=now - timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS))
    for chunk in stale.only("id", "worker", "attempts"):
        logger.warning("Chunk %s of job %s: its worker %s stopped responding", chunk.id, job_id, chunk.worker)
        release_lost_chunk(chunk.id, f"{chunk.worker or 'a worker'} stopped responding")


def abandoned_chunk_ids(chunk_ids: list[str], now: datetime | None = None) -> set[str]:
    """Of the parts a worker's pool processes are running, those of a job no longer to run (``lifecycle.
    abandoned_job_ids``: ended more than JOB_KILL_GRACE_SECONDS ago, or deleted), and those that are gone (the
    job was started again)."""
    job_of = {str(chunk_id): str(job_id) for chunk_id, job_id in
              JobChunk.objects.filter(id__in=chunk_ids).values_list("id", "job_id")}
    ended = abandoned_job_ids(list(set(job_of.values())), now)
    return {chunk_id for chunk_id in chunk_ids if chunk_id not in job_of or job_of[chunk_id] in ended}


def fan_out(run, spans: Sequence[tuple[int, int]], progress: Progress | None = None,
            poll_seconds: float = 0.2, *, step: str = "", shared: bytes | None = None) -> Iterator[bytes | None]:
    """Run ``run.job``'s kind's ``run_chunk`` on every byte range in ``spans`` across the workers, this one
    included, and return the parts' outputs in order (read one by one as they are iterated).
    ``progress(parts_done, parts, message)`` (by default ``run.progress``, which it must end in) is called as
    parts finish. ``step`` names the pass (``ChunkWork.step``) for a kind that fans out more than one, one after
    the other; ``shared`` is what all its parts read (``ChunkWork.shared_input``), stored once while the pass
    runs. Raises JobAborted when the job is cancelled, UserFacingError when a part failed (with its reason) or
    was lost too often."""
    job = run.job
    with transaction.atomic():
        # A job run again starts its parts again. A job's passes run one after the other: the parts of an earlier
        # pass that are not done are left from an earlier run of the job, and go too.
        JobChunk.objects.filter(job_id=job.id).filter(Q(step=step) | ~Q(status=ChunkStatus.DONE)).delete()
        FanOutInput.objects.filter(job_id=job.id).delete()
        if shared is not None:
            FanOutInput.objects.create(job_id=job.id, step=step, content=shared)
        chunks = JobChunk.objects.bulk_create(
            [JobChunk(job_id=job.id, index=index, start=start, end=end, step=step)
             for index, (start, end) in enumerate(spans)])
        # The first parts go out first: this worker starts from the last ones, the others meet it half way.
        ids = [str(chunk.id) for chunk in chunks[:-1]]
        transaction.on_commit(lambda: publish_chunks(ids))
    try:
        _run_parts(run, job, chunks, step, progress, poll_seconds)
    finally:  # a large input is not kept past its pass; a part still running finds it gone and stops
        if shared is not None:
            FanOutInput.objects.filter(job_id=job.id, step=step).delete()
    return _outputs(job.id, step, len(chunks))


def _run_parts(run, job: Job, chunks: list[JobChunk], step: str, progress: Progress | None, poll_seconds: float
               ) -> None:
    """Work on the parts nobody else took and wait for the others, until all are done (see ``fan_out``)."""
    total = len(chunks)
    by_index = {chunk.index: chunk.id for chunk in chunks}
    parts = JobChunk.objects.filter(job_id=job.id, step=step)
    while True:
        states = dict(parts.values_list("index", "status"))
        if ChunkStatus.FAILED in states.values():
            failed = parts.filter(status=ChunkStatus.FAILED).order_by("index").first()
            raise UserFacingError(f"Part {failed.index + 1} of {total} (bytes {failed.start:,}–{failed.end:,} of the "
                                  f"file) failed: {failed.error}")
        done = sum(status == ChunkStatus.DONE for status in states.values())
        running = sum(status == ChunkStatus.RUNNING for status in states.values())
        message = f"{done:,} of {total:,} parts done" + (f", {running:,} running" if running else "")
        (progress or run.progress)(done, total, message)  # ends in run.progress: JobAborted once cancelled
        if done == total:
            break
        pending = sorted((index for index, status in states.items()
                          if status in (ChunkStatus.PENDING, ChunkStatus.STOPPED)), reverse=True)
        claimed = next((chunk for chunk in (claim_chunk(by_index[index]) for index in pending[:4]) if chunk), None)
        if claimed is not None:
            work_on(claimed)
            continue
        release_stale_chunks(job.id)
        time.sleep(poll_seconds)


def _outputs(job_id, step: str, total: int) -> Iterator[bytes | None]:
    """The parts' outputs in order, read one at a time (all of them may not fit in memory at once)."""
    for index in range(total):
        output = JobChunk.objects.filter(job_id=job_id, step=step, index=index).values_list("output", flat=True).get()
        yield None if output is None else bytes(output)
