"""Trained-model artifacts under MODEL_DIR, for every kind of model (location, human-inferability, preference):
the one way to save a new version (its directory written whole or not at all, its record, the one active
version), to find the versions a user may use, and to load one (once per process).

Generic over the record's model class; the capability passes what is its own (how to write and read the
artifact, the record's fields), so nothing here knows any capability."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction
from django.db.models import F, Q, QuerySet

from anonymizer.platform import disk

Record = TypeVar("Record", bound=models.Model)
Artifact = TypeVar("Artifact")


def save_version(model_class: type[Record], write: Callable[[Path], None], *, owner: AbstractBaseUser | None,
                 name: str, prefix: str = "", active_among: Mapping[str, Any] | None = None, activate: bool = True,
                 **fields: Any) -> Record:
    """Write a new version with ``write(directory)`` under MODEL_DIR and record it with ``fields`` (and its name
    and version, where the record has those). When activated, it becomes the only active record among those
    matching ``active_among``, by default the owner's versions of that name. A directory is renamed into place
    only once written, and removed again when the record cannot be saved, so MODEL_DIR only ever holds whole,
    recorded models."""
    # Sortable by time, unique even for two trainings in the same second.
    version = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    owner_part = f"users/{owner.pk}" if owner is not None else "default"
    relative = f"{prefix}{owner_part}/{name}/{version}"
    directory = Path(settings.MODEL_DIR) / relative
    partial = directory.with_name(directory.name + ".partial")
    try:
        write(partial)
        partial.rename(directory)
    except BaseException:  # a half-written version, and the directories made for it, go
        disk.remove(partial, root=settings.MODEL_DIR)
        raise
    columns = {field.name for field in model_class._meta.fields}
    fields.update({key: value for key, value in (("name", name), ("version", version)) if key in columns})
    if active_among is None:
        active_among = {"owner_id": owner.pk if owner is not None else None, "name": name}
    try:
        with transaction.atomic():
            record = model_class.objects.create(owner=owner, path=relative, active=activate, **fields)
            if activate:
                model_class.objects.filter(active=True, **active_among).exclude(pk=record.pk).update(active=False)
    except Exception:
        disk.remove(directory, root=settings.MODEL_DIR)
        raise
    return record


def activate(record: Record, active_among: Mapping[str, Any] | None = None) -> Record:
    """Make a saved version the one in use: the only active record among those matching ``active_among`` (by
    default its owner's versions of its name). The versions it replaces stay, inactive."""
    model_class = type(record)
    if active_among is None:
        active_among = {"owner_id": record.owner_id, "name": record.name}
    with transaction.atomic():
        model_class.objects.filter(active=True, **active_among).exclude(pk=record.pk).update(active=False)
        model_class.objects.filter(pk=record.pk).update(active=True)
    record.active = True
    return record


def copy_version(record: Record, *, owner: AbstractBaseUser | None, name: str, prefix: str = "",
                 active_among: Mapping[str, Any] | None = None, **fields: Any) -> Record:
    """A new version, owned by ``owner``, holding a copy of ``record``'s files (records never share a directory:
    deleting one deletes its files); active among ``active_among``."""
    source = Path(settings.MODEL_DIR) / record.path
    return save_version(type(record), lambda directory: shutil.copytree(source, directory), owner=owner, name=name,
                        prefix=prefix, active_among=active_among, **fields)


def versions_for(model_class: type[Record], user: AbstractBaseUser | None) -> QuerySet[Record]:
    """Every version, active or not, of the models of a kind a user may use: the built-in defaults (no owner)
    and their own."""
    mine = Q(owner_id=user.pk) if user is not None and user.is_authenticated else Q(pk__in=[])
    return model_class.objects.filter(Q(owner__isnull=True) | mine)


def usable_by(model_class: type[Record], user: AbstractBaseUser | None) -> QuerySet[Record]:
    """The active versions of the models of a kind a user may use."""
    return versions_for(model_class, user).filter(active=True)


def own_first(records: QuerySet[Record]) -> QuerySet[Record]:
    """A user's own models before the defaults, then by name."""
    return records.order_by(F("owner_id").desc(nulls_last=True), "name")


def named(records: QuerySet[Record], ref: str) -> Record | None:
    """The record ``ref`` names among ``records``: by id, else by name (the first in their order)."""
    try:
        return records.filter(id=uuid.UUID(str(ref))).first()
    except ValueError:
        return records.filter(name=ref).first()


def resolve(model_class: type[Record], user: AbstractBaseUser | None, ref: str, *, what: str) -> Record:
    """The model ``ref`` (an id or a name) names among those a user may use, their own before a default of the
    same name. Raises LookupError naming the choices; another user's model is not found, like one that does not
    exist."""
    records = own_first(usable_by(model_class, user))
    found = named(records, ref)
    if found is None:
        names = ", ".join(sorted({record.name for record in records})) or "none"
        raise LookupError(f"No {what} {ref!r} is available to you; available: {names}.")
    return found


def load(record: models.Model, loader: Callable[[Path], Artifact]) -> Artifact:
    """The artifact of a record, read by ``loader`` once per process: a new version has a new path, hence a
    new entry, and records are never changed in place."""
    return _load(loader, str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=16)
def _load(loader: Callable[[Path], Artifact], directory: str) -> Artifact:
    return loader(Path(directory))
