"""Reads of location models: those a user may use, the one a request names, loaded once per process, and the
human-inferability scorer trained beside one."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext

from anonymizer.location import review
from anonymizer.location.deidentify import LinearScorer
from anonymizer.location.human import HumanModel
from anonymizer.location.model import LocationModel
from anonymizer.location.tokenize import detect_language
from anonymizer.models import TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.temporal import removal as time_removal


def location_models_for(user: AbstractBaseUser | None) -> QuerySet[TrainedLocationModel]:
    """Active location models a user may use: the built-in defaults and their own."""
    return artifacts.usable_by(TrainedLocationModel, user)


def resolve_location_model(user: AbstractBaseUser | None, ref: str | None, text: str = "") -> TrainedLocationModel:
    """The model a request names (id or name; a user's own model before a default of the same name), or
    without a name the default model for the text's language. Raises LookupError naming the choices."""
    if ref:
        return artifacts.resolve(TrainedLocationModel, user, ref, what="model")
    models = artifacts.own_first(location_models_for(user))
    found = models.filter(language=detect_language(text)).first() or models.first()
    if found is None:
        raise LookupError(gettext("No location model is available yet; run `manage.py bootstrap` to train the "
                                  "defaults."))
    return found


def load_location_model(record: TrainedLocationModel) -> LocationModel:
    return artifacts.load(record, _load_warmed)


def _load_warmed(directory) -> LocationModel:
    """A model read from disk with what its first inspection would build lazily (tokenizer, gazetteer index)
    built now, once per process, outside any request's deadline."""
    model = LocationModel.load(directory)
    model.deidentify(_WARM_UP_POST)
    review.warm_up(model.language)  # the word lists the verdict's review of names reads
    return model


def human_scorers(record: TrainedLocationModel) -> list[LinearScorer]:
    """The scorer of the active human-inferability model trained beside a location model (staff train them for
    everyone, like the default location models), or none."""
    human = record.human_models.filter(active=True).first()
    return [artifacts.load(human, HumanModel.load).scorer()] if human is not None else []


# Names a gazetteer of either language resolves, and a time expression: what a first inspection builds lazily.
_WARM_UP_POST = "Chicago 東京 渋谷 tomorrow at 5pm"


def warm_location_models() -> int:
    """Load every default model, its tokenizer, gazetteer index and human scorer into this process, and the time
    parser English models use (a first inspection would otherwise spend a second or more building them);
    returns how many models."""
    records = list(location_models_for(None))
    for record in records:
        load_location_model(record).deidentify(_WARM_UP_POST, extra_scorers=human_scorers(record))
        if record.language == time_removal.LANGUAGE:
            time_removal.shared_anonymizer(settings.TEMPORAL_USE_NER).transform([_WARM_UP_POST])
    return len(records)
