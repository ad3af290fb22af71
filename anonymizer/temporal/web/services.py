"""Temporal services: the time anonymizer a request's options describe, limited to the known patterns of one of
the owner's "learn temporal patterns" jobs when asked, and the English location model a dataset job also
de-identifies with."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext

from anonymizer.location.deidentify import LinearScorer
from anonymizer.location.human import HumanModel
from anonymizer.location.model import LocationModel
from anonymizer.models import TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.selectors import succeeded_job
from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.removal import (
    DEFAULT_TOP,
    LANGUAGE,
    PATTERNS_JOB,
    PATTERNS_JOB_NAME,
    TimeRemovalOptions,
    time_anonymizer,
    top_patterns,
)


def known_patterns(owner: AbstractBaseUser | None, job_id: uuid.UUID | str, top: int = DEFAULT_TOP) -> dict[str, int]:
    """The ``top`` most frequent patterns one of the owner's "learn temporal patterns" jobs found; LookupError
    (saying why) when the owner has no such job or it has not succeeded."""
    job = succeeded_job(owner, job_id, PATTERNS_JOB, what=PATTERNS_JOB_NAME)
    return top_patterns(job.result, top)


def time_anonymizer_for(owner: AbstractBaseUser | None, options: TimeRemovalOptions) -> TemporalAnonymizer:
    """The anonymizer of the time options; LookupError for a patterns job the owner does not have or that has not
    succeeded."""
    known = None
    if options.time_patterns:
        known = known_patterns(owner, options.time_patterns, options.time_patterns_top)
    return time_anonymizer(options, use_ner=settings.TEMPORAL_USE_NER, known_patterns=known)


def english_location_model(owner: AbstractBaseUser | None,
                           ref: str) -> tuple[TrainedLocationModel, LocationModel, list[LinearScorer]]:
    """The English location model a dataset job names (id or name), loaded, with the human-inferability scorer
    trained beside it when there is one (as the inspect page uses it). LookupError, with the reason, for an
    unknown model or one for another language."""
    record = artifacts.resolve(TrainedLocationModel, owner, ref, what="model")
    if record.language != LANGUAGE:
        raise LookupError(gettext("Time expressions are found in English posts only; the model %(model)r is for "
                                  "%(language)r posts. Choose an English model (language %(english)r).") % {
            "model": record.name, "language": record.language, "english": LANGUAGE})
    human = record.human_models.filter(active=True).first()
    extra = [artifacts.load(human, HumanModel.load).scorer()] if human is not None else []
    return record, artifacts.load(record, LocationModel.load), extra
