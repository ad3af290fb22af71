"""Reads. Every user-data query starts from the owner, so other users' objects do not exist for a caller."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from anonymizer.location.model import LocationModel
from anonymizer.models import Job, TrainedLocationModel, Upload


def jobs_of(user: AbstractBaseUser) -> QuerySet[Job]:
    return Job.objects.filter(owner_id=user.pk).prefetch_related("inputs", "results")


def uploads_of(user: AbstractBaseUser) -> QuerySet[Upload]:
    return Upload.objects.filter(owner_id=user.pk)


def location_models_for(user: AbstractBaseUser | None) -> QuerySet[TrainedLocationModel]:
    """Active location models a user may use: the built-in defaults and their own."""
    mine = Q(owner_id=user.pk) if user is not None and user.is_authenticated else Q(pk__in=[])
    return TrainedLocationModel.objects.filter(Q(owner__isnull=True) | mine, active=True)


def load_location_model(record: TrainedLocationModel) -> LocationModel:
    """The model of a record, loaded once per process (a new version has a new path, hence a new entry)."""
    return _load_model(str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=8)
def _load_model(directory: str) -> LocationModel:
    return LocationModel.load(Path(directory))
