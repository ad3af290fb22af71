"""Stored files follow their rows: however a row is deleted (by its owner, or in cascade when an upload, a job or
a whole account is deleted), its file or directory is removed once the deletion has committed, with the
directories that this left empty (an upload's, a job's results, a model's versions, a user's own), up to the
storage's root (anonymizer.platform.disk). A job takes its scratch files and its result directory along."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from anonymizer.models import HumanInferabilityModel, Job, JobResult, PreferenceModel, TrainedLocationModel, Upload
from anonymizer.models.jobs import result_directory
from anonymizer.platform import disk
from anonymizer.platform.jobs.runner import remove_scratch

logger = logging.getLogger(__name__)


def _after_commit(what: str, remove: Callable[[], object]) -> None:
    """Run ``remove`` once the deletion commits; a file that cannot be removed is logged, never raised (the rows
    are gone already, and the request that deleted them succeeded)."""

    def run() -> None:
        try:
            remove()
        except (OSError, disk.OutsideRoot):
            logger.exception("Could not remove %s from the disk", what)

    transaction.on_commit(run)


@receiver(post_delete, sender=Upload)
@receiver(post_delete, sender=JobResult)
def delete_stored_file(sender, instance: Upload | JobResult, **kwargs) -> None:
    file = instance.file
    if file:
        storage, name = file.storage, file.name
        _after_commit(f"the file of {sender.__name__} {instance.pk}", lambda: disk.remove_stored(storage, name))


@receiver(post_delete, sender=Job)
def delete_job_files(sender, instance: Job, **kwargs) -> None:
    """The job's scratch files (on this machine; a worker's sweep removes those on its own disk) and its
    result directory, whatever is still in it."""
    job_id, results = instance.id, result_directory(instance)

    def remove() -> None:
        remove_scratch(job_id)
        disk.remove_stored(JobResult._meta.get_field("file").storage, results)

    _after_commit(f"the files of job {job_id}", remove)


@receiver(post_delete, sender=TrainedLocationModel)
@receiver(post_delete, sender=HumanInferabilityModel)
@receiver(post_delete, sender=PreferenceModel)
def delete_model_directory(sender, instance: TrainedLocationModel | HumanInferabilityModel | PreferenceModel,
                           **kwargs) -> None:
    root = Path(settings.MODEL_DIR)
    directory = root / instance.path
    _after_commit(f"the directory of {sender.__name__} {instance.pk}", lambda: disk.remove(directory, root=root))
