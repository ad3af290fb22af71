"""Sending work to the broker: a job's message, its parts' messages, revoking those of an ended job, and reading
which jobs the broker holds.

The tasks are found by name in the Celery app (``anonymizer.platform.jobs.tasks`` registers them when the app
starts), so publishing sits below the runner and the tasks that the messages reach, and nothing imports back.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from django.conf import settings
from django.utils import timezone

from anonymizer.models import Job
from webapp.celery import app as celery_app

logger = logging.getLogger(__name__)

# The tasks keep their original names so messages queued by an older release are still run.
RUN_JOB_TASK = "anonymizer.run_job"
RUN_CHUNK_TASK = "anonymizer.run_job_chunk"

BROKER_DOWN_MESSAGE = ("The job could not be queued: the task broker (Redis) did not answer within "
                       "{timeout:g} s. Nothing was run; start the job again (Run again) once the service is back.")


def publish_job(job_id) -> bool:
    """Send the job's task to the broker; a broker that cannot be reached, or hangs, fails the job visibly
    within REDIS_TIMEOUT_SECONDS. Returns whether it was sent."""
    try:
        # time_limit=None: the message carries no limit, so the worker's own JOB_TIME_LIMIT_SECONDS applies
        # (Celery would otherwise stamp the publishing process's setting on the message). No kombu-level retry:
        # redis-py already reconnects a pooled connection that Redis closed, and a retry after a timeout would
        # only double the wait on a hung Redis.
        celery_app.tasks[RUN_JOB_TASK].apply_async(args=[str(job_id)], time_limit=None, soft_time_limit=None,
                                                   retry_policy={"max_retries": 0})
    except Exception as exc:  # kombu raises OperationalError, socket timeouts and friends; none may leave the
        logger.warning("Could not publish job %s: %s", job_id, exc)  # job queued forever
        Job.objects.filter(id=job_id, status=Job.Status.QUEUED).update(
            status=Job.Status.FAILED, finished_at=timezone.now(), progress_message="Failed",
            error=BROKER_DOWN_MESSAGE.format(timeout=settings.REDIS_TIMEOUT_SECONDS),
        )
        return False
    return True


def publish_chunks(chunk_ids: Sequence[str]) -> None:
    """One message per part, its id as the task id (for revoking). A broker that fails here costs only speed:
    the parent works on every part nobody else took."""
    try:
        task = celery_app.tasks[RUN_CHUNK_TASK]
        for chunk_id in chunk_ids:
            task.apply_async(args=[chunk_id], task_id=chunk_id, time_limit=None, soft_time_limit=None,
                             retry_policy={"max_retries": 0})
    except Exception as exc:
        logger.warning("Could not publish the parts of a job (%s); its own worker runs them", exc)


def revoke_chunks(chunk_ids: list[str]) -> None:
    """Tell the workers to drop the queued messages of an ended job's parts. Best effort: a message that
    still arrives finds its part stopped and does nothing."""
    if not chunk_ids:
        return
    try:
        celery_app.control.revoke(chunk_ids)
    except Exception as exc:
        logger.warning("Could not revoke %d queued part(s) of a job: %s", len(chunk_ids), exc)


_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def job_ids_in_broker() -> set[str]:
    """The ids of the jobs that have a message in the broker: waiting in the queue or delivered to a worker
    and not yet acknowledged. Reads kombu's Redis layout (one list per queue and priority, the ``unacked``
    hash); a job's id is in its message's ``argsrepr`` header."""
    queue = celery_app.conf.task_default_queue
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        client = channel.client
        raw = [message for priority in channel.priority_steps
               for message in client.lrange(channel._q_for_pri(queue, priority), 0, -1)]
        raw.extend(client.hvals(channel.unacked_key))
    return {found.decode() for message in raw for found in _UUID.findall(message)}
