"""Trained-model artifacts under MODEL_DIR, shared by every kind of model (location, preference): a new
version's directory, written whole or not at all, and the one active version per owner and name."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import models


@contextmanager
def saved_artifact(prefix: str, owner: AbstractBaseUser | None, name: str,
                   write: Callable[[Path], None]) -> Iterator[tuple[str, str]]:
    """Write a new version with ``write(directory)`` and yield (version, path relative to MODEL_DIR) for the
    caller to record; when recording fails, the directory goes again."""
    # Sortable by time, unique even for two trainings in the same second.
    version = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    owner_part = f"users/{owner.pk}" if owner is not None else "default"
    relative = f"{prefix}{owner_part}/{name}/{version}"
    directory = Path(settings.MODEL_DIR) / relative
    # Written beside its final place and renamed: a directory under MODEL_DIR is always a whole model.
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    write(partial)
    partial.rename(directory)
    try:
        yield version, relative
    except Exception:
        shutil.rmtree(directory, ignore_errors=True)
        raise


def deactivate_others(record: models.Model) -> None:
    """Make ``record`` the only active version of its owner's model of that name."""
    type(record).objects.filter(owner_id=record.owner_id, name=record.name, active=True).exclude(
        id=record.id).update(active=False)
