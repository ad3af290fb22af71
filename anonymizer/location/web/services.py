"""Location services: train a model from a corpus (as a job or a command), save it as the active version of
its name, keep the default models of `make run` up to date, and inspect posts (infer, de-identify and describe,
optionally after their time expressions are removed)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.templatetags.static import static
from django.utils.translation import gettext, ngettext
from rest_framework import serializers

from anonymizer.location import report
from anonymizer.location.corpus import CorpusReport, Post
from anonymizer.location.defaults import DEFAULT_MODELS, ModelSpec
from anonymizer.location.deidentify import TooFewDeletable
from anonymizer.location.inspect import inspect_text, model_description
from anonymizer.location.model import LocationModel
from anonymizer.location.options import InspectOptions
from anonymizer.location.topojson import cached_shapes
from anonymizer.location.training import (
    TrainingRequest,
    build_default_model,
    train_default_model,
    train_from_corpus,
)
from anonymizer.location.web import selectors
from anonymizer.models import HumanInferabilityModel, Job, TrainedLocationModel
from anonymizer.platform import artifacts, compute
from anonymizer.platform.deadline import Deadline, DeadlineExceeded
from anonymizer.platform.selectors import succeeded_job
from anonymizer.temporal import removal as time_removal

logger = logging.getLogger(__name__)
Progress = Callable[[int, int, str], None]


def register_location_model(model: LocationModel, *, title: str, owner: AbstractBaseUser | None = None,
                            job: Job | None = None, activate: bool = True) -> TrainedLocationModel:
    """Save the model under MODEL_DIR and record it; the new version becomes the active one of its name."""
    return artifacts.save_version(TrainedLocationModel, model.save, owner=owner, title=title, job=job,
                                  activate=activate, **model.record_fields())


def train_from_file(fileobj: BinaryIO, request: TrainingRequest, *, owner: AbstractBaseUser | None = None,
                    job: Job | None = None, name: str = "", activate: bool = True,
                    progress: Progress | None = None) -> tuple[TrainedLocationModel, CorpusReport]:
    """Read the corpus, train, evaluate and register. Bad corpora raise CsvFormatError (row numbers)."""
    model, report = train_from_corpus(fileobj, request, name=name, progress=progress)
    return register_location_model(model, title=request.title, owner=owner, job=job, activate=activate), report


def ensure_default_models(data_dir: Path | None = None, specs: Sequence[ModelSpec] = DEFAULT_MODELS,
                          log: Callable[[str], None] = logger.info,
                          train: Callable[[ModelSpec, Sequence[Post]], LocationModel] = train_default_model,
                          ) -> list[TrainedLocationModel]:
    """Train (with ``train``) each default model whose spec or corpus changed since its active version, or
    whose files are gone (idempotent; the second run only hashes the corpus files)."""
    data_dir = Path(settings.DATA_DIR if data_dir is None else data_dir)
    records = []
    for spec in specs:
        fingerprint = spec.fingerprint(data_dir)
        current = TrainedLocationModel.objects.filter(owner=None, name=spec.name, active=True).first()
        if current is not None and current.metadata.get("spec_fingerprint") == fingerprint and (
                Path(settings.MODEL_DIR) / current.path / "model.json").exists():
            records.append(current)
            continue
        started = time.perf_counter()
        model = build_default_model(spec, data_dir, fingerprint=fingerprint, train=train)
        record = register_location_model(model, title=spec.title)
        scores = model.metadata["scores"]
        log(f"{spec.name}: trained on {model.metadata['train_posts']:,} posts in {time.perf_counter() - started:.1f} s;"
            f" held-out accuracy {scores['accuracy']:.1%} vs majority baseline {scores['majority_baseline']:.1%}")
        records.append(record)
    return records


# -- inspect ---------------------------------------------------------------------------------------------------
@dataclass
class Inspection:
    """The model a request used and, per post, what the inspect page shows, or why the post could not be
    de-identified as asked (too few deletable units for a fixed m)."""

    record: TrainedLocationModel
    model: LocationModel
    results: list[dict | TooFewDeletable]

    def model_payload(self) -> dict:
        description = model_description(self.model)
        return {"id": str(self.record.id), "title": gettext(self.record.title), "version": self.record.version,
                **description, "geography": geography_urls(description["geography"])}


def geography_urls(layers: Sequence[Mapping]) -> list[dict]:
    """The geography layers of a grid's map with their files' static URLs (hashed names in production)."""
    return [{**{k: v for k, v in layer.items() if k != "path"}, "url": static(layer["path"])} for layer in layers]


def inspect_posts(user: AbstractBaseUser | None, texts: Sequence[str], options: InspectOptions, *,
                  in_job: bool = False) -> Inspection:
    """Infer and de-identify posts with the model the options name (the human-inferability scorer beside it
    too), removing their time expressions first when asked (location and time in one pass; every span stays one
    of the post as written). A request the options make impossible raises ValidationError on the field at
    fault (model, remove_time, time_patterns).

    A request's posts share one deadline (INSPECT_DEADLINE_SECONDS) and one of the web process's compute slots;
    a job's (``in_job``) each get the deadline, and the worker's concurrency stands for the slots. Past it:
    ComputeLimit (503), naming the limit and the post it stopped at, and no result."""
    try:
        record = selectors.resolve_location_model(user, options.model, texts[0])
    except LookupError as exc:
        raise serializers.ValidationError({"model": [str(exc)]}) from exc
    model, extra = selectors.load_location_model(record), selectors.human_scorers(record)
    anonymizer = _time_removal(user, record, texts, options.time) if options.remove_time else None
    what = ngettext("De-identifying this post", "De-identifying these %(n)d posts", len(texts)) % {"n": len(texts)}
    deadline = compute.request_deadline()
    with nullcontext() if in_job else compute.compute_slot(deadline, what):
        results: list[dict | TooFewDeletable] = []
        for index, text in enumerate(texts):
            if in_job:
                deadline = compute.request_deadline()
            try:
                results.append(_inspect_one(model, extra, anonymizer, text, options, deadline))
            except DeadlineExceeded as exc:
                raise compute.too_slow(exc, what, post=index) from exc
    return Inspection(record, model, results)


def _inspect_one(model: LocationModel, extra: Sequence, anonymizer, text: str, options: InspectOptions,
                 deadline: Deadline) -> dict | TooFewDeletable:
    deadline.check()
    edit = anonymizer.transform([text])[0] if anonymizer is not None else None
    try:
        result = inspect_text(model, text, options, extra_scorers=extra, edit=edit, deadline=deadline)
    except TooFewDeletable as exc:
        return exc
    if edit is not None:
        result["time"] = time_removal.describe_time_removal(edit)
    return result


@dataclass(frozen=True)
class Report:
    """A downloadable file of one inspection: its bytes, media type and file name."""

    content: bytes
    content_type: str
    filename: str


REPORT_TYPES = {"html": "text/html; charset=utf-8", "svg": "image/svg+xml; charset=utf-8"}


def inspection_report(user: AbstractBaseUser | None, text: str, options: InspectOptions, fmt: str, *,
                      include_before: bool = False) -> Report:
    """The map report of one post (the same options as inspect): a standalone, offline HTML page (Folium, Leaflet
    inlined) or an SVG figure, of the released text only (the after map); with ``include_before`` the before map
    too, the file then saying first that it reveals where the post points. Computed again from the request, never
    stored; the post's text is not logged. Raises ValidationError like inspect."""
    inspection = inspect_posts(user, [text], options)
    result = inspection.results[0]
    if isinstance(result, TooFewDeletable):
        raise serializers.ValidationError({"m": [str(result)]})
    model = inspection.model
    description = {**model_description(model), "title": gettext(inspection.record.title)}
    grid = model.grid
    root = Path(settings.STATICFILES_DIRS[0])
    shapes = cached_shapes(root, description["geography"], (grid.south, grid.west, grid.north, grid.east),
                           report.shape_digits(grid))
    created = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    before = include_before
    if fmt == "svg":
        document = report.report_svg(result, description, shapes, created, include_before=before)
    else:
        document = report.report_html(result, description, shapes, created, root, include_before=before)
        if report.external_urls(document):  # never serve a report that loads anything from elsewhere
            raise RuntimeError("the map report would load a file from another host")
    return Report(document.encode(), REPORT_TYPES[fmt],
                  report.report_filename(description, created, fmt, include_before=before))


def english_only(record: TrainedLocationModel) -> str:
    """Why a model of another language cannot remove time expressions (they are found in English posts only)."""
    return gettext("Time expressions are found in English posts only; the model %(model)r is for %(language)r "
                   "posts.") % {"model": record.name, "language": record.language}


def _time_removal(user: AbstractBaseUser | None, record: TrainedLocationModel, texts: Sequence[str],
                  options: Mapping):
    """The time anonymizer the time-removal options ask for, once the posts and options are checked for it."""
    if record.language != time_removal.LANGUAGE:
        raise serializers.ValidationError({"remove_time": [english_only(record)]})
    refused = time_removal.not_english(texts)
    if refused:
        # The parser, lexicon and neutral phrases are English: another language comes out broken, dates intact.
        field = "text" if len(texts) == 1 else "texts"
        raise serializers.ValidationError({field: [
            gettext("post %(n)d: not English (%(reason)s); time expressions are removed from English posts only.") % {
                "n": index + 1, "reason": reason} if len(texts) > 1 else
            gettext("not English (%(reason)s); time expressions are removed from English posts only.") % {
                "reason": reason} for index, reason in refused]})
    time_options = time_removal.TimeRemovalOptions.from_params(options)  # typed once, here
    known = None
    if time_options.time_patterns:
        try:
            job = succeeded_job(user, time_options.time_patterns, time_removal.PATTERNS_JOB,
                                what=time_removal.PATTERNS_JOB_NAME)
        except LookupError as exc:
            raise serializers.ValidationError({"time_patterns": [str(exc)]}) from exc
        known = time_removal.top_patterns(job.result, time_options.time_patterns_top)
    return time_removal.time_anonymizer(time_options, use_ner=settings.TEMPORAL_USE_NER, known_patterns=known)


# -- choosing which saved version is used ---------------------------------------------------------------------
def own_version(user: AbstractBaseUser, version_id) -> TrainedLocationModel | HumanInferabilityModel | None:
    """A version its user may switch to: a location model version of their own, or a human-inferability model
    trained beside a location model of their own (one beside a built-in model serves everyone: the operator's)."""
    found = TrainedLocationModel.objects.filter(id=version_id, owner_id=user.pk).first()
    return found or HumanInferabilityModel.objects.filter(id=version_id, owner_id=user.pk,
                                                          location_model__owner_id=user.pk).first()


def use_version(record: TrainedLocationModel | HumanInferabilityModel) -> None:
    """Make a saved version the one in use among its owner's versions of its name (a location model) or beside
    its location model (a human-inferability model); the one it replaces stays, unused."""
    if isinstance(record, HumanInferabilityModel):
        artifacts.activate(record, {"location_model_id": record.location_model_id})
    else:
        artifacts.activate(record)


def promote_version(version_id) -> str:
    """The operator's command (``manage.py promote_model_version``): a location model version becomes the built-in
    default of its name for every user (its files copied), or a human-inferability model the one used beside its
    location model. Returns what changed, in a sentence."""
    version_id = uuid.UUID(str(version_id))  # ValueError for what is not an id
    record = TrainedLocationModel.objects.filter(id=version_id).first()
    if record is not None:
        if record.owner_id is None:
            artifacts.activate(record)
            return f"The built-in {record.name} version {record.version} is now the default."
        default = artifacts.copy_version(
            record, owner=None, name=record.name, title=record.title,
            **{key: getattr(record, key) for key in ("language", "threshold", "threshold_kind", "metadata")})
        return f"{record.name} version {record.version} of user {record.owner_id} is now the built-in default " \
               f"(copied as version {default.version})."
    human = HumanInferabilityModel.objects.filter(id=version_id).first()
    if human is None:
        raise LookupError(f"No location or human-inferability model version has the id {version_id}.")
    use_version(human)
    return f"Human-inferability model {human.id} is now used beside {human.location_model.name}."
