"""Celery tasks: thin wrappers that take ids and call the runner."""

from celery import shared_task
from celery.signals import worker_ready

from anonymizer.platform.jobs import runner


# The task keeps its original name so messages queued by an older release are still run.
@shared_task(name="anonymizer.run_job", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job_task(job_id: str) -> None:
    runner.run_job(job_id)


@worker_ready.connect
def _on_worker_ready(**_kwargs) -> None:
    runner.on_worker_ready()
