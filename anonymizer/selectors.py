"""Reads. Every user-data query starts from the owner, so other users' objects do not exist for a caller."""

from __future__ import annotations

import uuid
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, Q, QuerySet

from anonymizer.location.model import LocationModel
from anonymizer.location.tokenize import detect_language
from anonymizer.models import Job, TrainedLocationModel, Upload


def jobs_of(user: AbstractBaseUser) -> QuerySet[Job]:
    return Job.objects.filter(owner_id=user.pk).prefetch_related("inputs", "results")


def uploads_of(user: AbstractBaseUser) -> QuerySet[Upload]:
    return Upload.objects.filter(owner_id=user.pk)


def location_models_for(user: AbstractBaseUser | None) -> QuerySet[TrainedLocationModel]:
    """Active location models a user may use: the built-in defaults and their own."""
    mine = Q(owner_id=user.pk) if user is not None and user.is_authenticated else Q(pk__in=[])
    return TrainedLocationModel.objects.filter(Q(owner__isnull=True) | mine, active=True)


def resolve_location_model(user: AbstractBaseUser | None, ref: str | None, text: str = "") -> TrainedLocationModel:
    """The model a request names (id or name; a user's own model before a default of the same name), or
    without a name the default model for the text's language. Raises LookupError naming the choices."""
    models = location_models_for(user).order_by(F("owner_id").desc(nulls_last=True), "name")
    if ref:
        try:
            found = models.filter(id=uuid.UUID(str(ref))).first()
        except ValueError:
            found = models.filter(name=ref).first()
        if found is None:
            names = ", ".join(sorted({m.name for m in models})) or "none"
            raise LookupError(f"No model {ref!r} is available to you; available: {names}.")
        return found
    found = models.filter(language=detect_language(text)).first() or models.first()
    if found is None:
        raise LookupError("No location model is available yet; run `manage.py bootstrap` to train the defaults.")
    return found


def load_location_model(record: TrainedLocationModel) -> LocationModel:
    """The model of a record, loaded once per process (a new version has a new path, hence a new entry)."""
    return _load_model(str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=8)
def _load_model(directory: str) -> LocationModel:
    return LocationModel.load(Path(directory))


def warm_location_models() -> int:
    """Load every default model and its tokenizer into this process; returns how many."""
    records = list(location_models_for(None))
    for record in records:
        model = load_location_model(record)
        model.tokenize("warm up")
    return len(records)
