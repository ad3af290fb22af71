"""Reads of preference models: those a user may use, the one a request names, any version a contribution was
computed against, and a model's item side loaded once per process."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from anonymizer.models import PreferenceModel
from anonymizer.platform import artifacts
from anonymizer.preferences.serving import PreferenceArtifact


def preference_models_for(user: AbstractBaseUser | None) -> QuerySet[PreferenceModel]:
    """Active preference models a user may use: the built-in default and their own."""
    return artifacts.usable_by(PreferenceModel, user)


def resolve_preference_model(user: AbstractBaseUser | None, ref: str | None = None) -> PreferenceModel:
    """The model a request names (id or name; a user's own before a default of the same name), else the
    default. Raises LookupError; another user's model is not found, like one that does not exist."""
    if ref:
        return artifacts.resolve(PreferenceModel, user, ref, what="preference model")
    models = artifacts.own_first(preference_models_for(user))
    found = models.filter(owner__isnull=True).first() or models.first()
    if found is None:
        raise LookupError("No preference model is available yet; run `manage.py bootstrap` to train the default.")
    return found


def preference_model_version_for(user: AbstractBaseUser | None, model_id) -> PreferenceModel | None:
    """Any version (active or not) of a preference model the user may use, by id: contributions computed
    against a version that a newer one replaced since the page loaded are still accepted."""
    return artifacts.versions_for(PreferenceModel, user).filter(id=model_id).first()


def load_preference_model(record: PreferenceModel) -> PreferenceArtifact:
    """The item side of a record, loaded once per process (a new version has a new path)."""
    return artifacts.load(record, PreferenceArtifact.load)
