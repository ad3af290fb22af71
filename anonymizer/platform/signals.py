"""Stored files follow their rows: however a row is deleted (by its owner, or in cascade when a job or a
whole account is deleted), its file or model directory is removed once the deletion has committed."""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from anonymizer.models import HumanInferabilityModel, JobResult, PreferenceModel, TrainedLocationModel, Upload


@receiver(post_delete, sender=Upload)
@receiver(post_delete, sender=JobResult)
def delete_stored_file(sender, instance: Upload | JobResult, **kwargs) -> None:
    file = instance.file
    if file:
        transaction.on_commit(lambda: file.delete(save=False))


@receiver(post_delete, sender=TrainedLocationModel)
@receiver(post_delete, sender=HumanInferabilityModel)
@receiver(post_delete, sender=PreferenceModel)
def delete_model_directory(sender, instance: TrainedLocationModel | HumanInferabilityModel | PreferenceModel,
                           **kwargs) -> None:
    directory = Path(settings.MODEL_DIR) / instance.path
    transaction.on_commit(lambda: shutil.rmtree(directory, ignore_errors=True))
