"""Celery tasks: thin wrappers that take ids and call a service."""

from celery import shared_task
from celery.signals import worker_ready

from anonymizer.services import jobs


@shared_task(name="anonymizer.run_job", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job_task(job_id: str) -> None:
    jobs.run_job(job_id)


@worker_ready.connect
def _on_worker_ready(**_kwargs) -> None:
    jobs.on_worker_ready()
