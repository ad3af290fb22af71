"""Preference services: train a model from LDP reports (the default at bootstrap; a user's own from an uploaded
preference file is a job, see jobs.py), save and activate it, store the anonymous contributions the preferences
page sends, and aggregate them into a new version.

The server only ever holds the item side of a model (factors, biases, threshold); the person's profile and
ratings stay in their browser (``static/js/ldp.js``, mirrored by ``anonymizer.preferences.serving``)."""

from __future__ import annotations

import csv
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext

from anonymizer.models import Job, PreferenceContribution, PreferenceModel, PreferenceReport, Upload
from anonymizer.platform import artifacts
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.uploads import create_csv_upload
from anonymizer.preferences.aggregate import read_aggregate
from anonymizer.preferences.checkins import InputFormatError, PreferenceUpload, parse_preferences
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule, preferences_to_ratings
from anonymizer.preferences.ratings import Ratings
from anonymizer.preferences.selection import select_served_model
from anonymizer.preferences.serving import (
    DEFAULT_PREFERENCE_MODEL,
    PreferenceArtifact,
    PreferenceModelSpec,
    aggregate_reports,
)
from anonymizer.tabular import check_csv

logger = logging.getLogger(__name__)
Progress = Callable[[int, int, str], None]


def register_preference_model(artifact: PreferenceArtifact, *, title: str, owner: AbstractBaseUser | None = None,
                              job: Job | None = None, activate: bool = True,
                              metadata: dict | None = None) -> PreferenceModel:
    """Save the artifact under MODEL_DIR and record it; the new version becomes the active one of its name."""
    return artifacts.save_version(PreferenceModel, artifact.save, owner=owner, name=artifact.name,
                                  prefix="preferences/", activate=activate, title=title, item_space=artifact.item_space,
                                  training=artifact.training, metadata=metadata or {}, job=job)


def ensure_default_preference_model(data_dir: Path | None = None,
                                    spec: PreferenceModelSpec = DEFAULT_PREFERENCE_MODEL,
                                    log: Callable[[str], None] = logger.info) -> PreferenceModel:
    """Train the default model when its spec or data changed since its active version (idempotent)."""
    data_dir = Path(settings.DATA_DIR if data_dir is None else data_dir)
    fingerprint = spec.fingerprint(data_dir)
    current = PreferenceModel.objects.filter(owner=None, name=spec.name, active=True).first()
    if current is not None and current.metadata.get("spec_fingerprint") == fingerprint and (
            Path(settings.MODEL_DIR) / current.path / "model.json").exists():
        return current
    started = time.perf_counter()
    checkins = read_aggregate(data_dir / spec.data)
    items = ItemSpace(slot_hours=spec.slot_hours, split_week=spec.split_week, place=spec.place).fit(checkins)
    ratings = ProxyLabelRule().ratings(checkins, items)
    artifact, scores = select_served_model(spec.name, ratings, items, spec.trainer(), source="proxy")
    metadata = {"spec_fingerprint": fingerprint, "data": spec.data, "labels": "proxy", "scores": scores}
    record = register_preference_model(artifact, title=spec.title, metadata=metadata)
    served = scores["methods"][scores["served"]]
    log(f"{spec.name}: preference model chosen and trained in {time.perf_counter() - started:.1f} s: serving "
        f"{scores['served']} (held out: false-positive rate {served['fpr']:.1%}, recall {served['recall']:.1%} at "
        f"the target {scores['fpr_target']:g})")
    return record


# -- contributions from the preferences page ------------------------------------------------------------------------
def create_contribution(record: PreferenceModel, reports: Sequence[dict]) -> PreferenceContribution:
    """Store one anonymous contribution's reports (already validated: rounds 0..R-1, index in range, value
    +-B of its epsilon). Nothing else about the contributor is stored, and of the time only the day (UTC)."""
    with transaction.atomic():
        contribution = PreferenceContribution.objects.create(
            model=record, rounds=len(reports), epsilon=float(sum(r["epsilon"] for r in reports)),
            received_on=datetime.now(UTC).date())
        PreferenceReport.objects.bulk_create(
            PreferenceReport(contribution=contribution, round=r["round"], index=r["index"], value=r["value"],
                             epsilon=r["epsilon"]) for r in reports)
    return contribution


def aggregate_contributions(record: PreferenceModel, artifact: PreferenceArtifact, *, learning_rate: float = 1.0,
                            min_contributions: int | None = None) -> PreferenceModel:
    """One gradient step on the model's item profiles from the contributions not yet aggregated, saved as a
    new active version of the model; the contributions are marked as used. Raises UserFacingError when there
    are fewer than ``min_contributions`` (default PREFERENCE_MIN_CONTRIBUTIONS)."""
    if min_contributions is None:
        min_contributions = settings.PREFERENCE_MIN_CONTRIBUTIONS
    pending = list(PreferenceContribution.objects.filter(model=record, aggregated_into=None)
                   .prefetch_related("reports"))
    if len(pending) < max(min_contributions, 1):
        raise UserFacingError(f"{len(pending)} contribution(s) wait for aggregation; at least "
                              f"{max(min_contributions, 1)} needed.")
    updated = aggregate_reports(artifact, [[(r.index, r.value, r.epsilon) for r in c.reports.all()]
                                           for c in pending], learning_rate=learning_rate)
    with transaction.atomic():
        new = register_preference_model(updated, title=record.title, owner=record.owner, activate=record.active,
                                        metadata={**record.metadata, "aggregated_from": str(record.id)})
        PreferenceContribution.objects.filter(id__in=[c.id for c in pending]).update(aggregated_into=new)
    return new


# -- a user's own model from uploaded preferences ------------------------------------------------------------------
def _parse(text: str, name: str) -> PreferenceUpload:
    """parse_preferences, every problem a UserFacingError naming the file (and the row and column)."""
    try:
        return parse_preferences(text)
    except InputFormatError as exc:
        raise UserFacingError(f"{name}: {exc}") from exc
    except csv.Error as exc:  # CSV syntax the shared check lets through to no other reader (it refuses it first)
        raise UserFacingError(gettext("%(name)s: the CSV syntax is invalid (%(error)s).") % {
            "name": name, "error": exc}) from exc


def read_uploaded_preferences(upload: Upload) -> PreferenceUpload:
    """Parse an uploaded preference CSV; a bad row raises UserFacingError naming the row and column."""
    try:
        with upload.file.open("rb") as handle:
            text = handle.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserFacingError(gettext("%(name)s is not UTF-8 text") % {"name": upload.original_name}) from exc
    return _parse(text, upload.original_name)


def create_preference_upload(*, owner: AbstractBaseUser, uploaded: UploadedFile) -> Upload:
    """Store an uploaded preference file once it parses. The shared CSV check comes first (size, UTF-8, CSV
    syntax, a value over the field limit: CsvFormatError with row and column, as for every upload); then a bad
    row raises UserFacingError naming the row and the column. Nothing is stored then."""
    check_csv(uploaded, max_bytes=settings.UPLOAD_MAX_BYTES)
    uploaded.seek(0)
    try:
        text = uploaded.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserFacingError(gettext("%(name)s is not UTF-8 text") % {"name": uploaded.name}) from exc
    _parse(text, uploaded.name)
    uploaded.seek(0)
    return create_csv_upload(owner=owner, uploaded=uploaded)


def upload_items(data: PreferenceUpload, slot_hours: int, split_week: bool) -> tuple[ItemSpace, Ratings]:
    """The item space of an upload's own place names and its ratings; UserFacingError when a weekday/weekend
    split is asked of a file without weekdays."""
    try:
        items = ItemSpace(slot_hours=slot_hours, split_week=split_week, place="given").fit(data)
        return items, preferences_to_ratings(data, items)
    except ValueError as exc:
        raise UserFacingError(str(exc)) from exc
