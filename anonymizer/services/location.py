"""Writes for location models: train from a corpus (as a job or a command), save the artifact, register and
activate it, and keep the default models of `make run` up to date."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework import serializers

from anonymizer.jobkinds import JobKind, UserFacingError, register
from anonymizer.location.corpus import ColumnMap, CorpusReport, Post, open_corpus, read_corpus
from anonymizer.location.defaults import DEFAULT_MODELS, ModelSpec
from anonymizer.location.grid import Grid
from anonymizer.location.model import LocationModel, calibrated_threshold, train_location_model
from anonymizer.location.tokenize import TokenizerSettings, detect_language
from anonymizer.models import Job, TrainedLocationModel
from anonymizer.services.artifacts import deactivate_others, saved_artifact
from anonymizer.services.jobs import JobRun
from anonymizer.tabular import CsvFormatError

logger = logging.getLogger(__name__)
KIND = "train_location_model"
Progress = Callable[[int, int, str], None]


def register_location_model(model: LocationModel, *, title: str, owner: AbstractBaseUser | None = None,
                            job: Job | None = None, activate: bool = True) -> TrainedLocationModel:
    """Save the model under MODEL_DIR and record it; the new version becomes the active one of its name."""
    with saved_artifact("", owner, model.name, model.save) as (version, relative), transaction.atomic():
        record = TrainedLocationModel.objects.create(
            owner=owner, name=model.name, title=title, version=version, language=model.language,
            path=relative, active=activate, threshold=model.threshold.value,
            threshold_kind=model.threshold.kind, metadata=model_summary(model), job=job,
        )
        if activate:
            deactivate_others(record)
    return record


def model_summary(model: LocationModel) -> dict:
    """What the database keeps about an artifact (the weights stay on disk)."""
    return {**model.metadata, "grid": model.grid.to_dict(), "tokenizer": model.tokenizer_settings.to_dict(),
            "threshold": {"value": model.threshold.value, "kind": model.threshold.kind,
                          "explanation": model.threshold.explanation}}


def calibrate_threshold(record: TrainedLocationModel, hand_deidentified: Sequence[str]) -> TrainedLocationModel:
    """Give a model the paper's calibrated threshold: the mean top-cell probability of posts that people
    de-identified by hand. Saved as a new version (artifacts are never changed in place)."""
    from anonymizer.selectors import load_location_model

    model = load_location_model(record)
    calibrated = model.with_threshold(calibrated_threshold(model, hand_deidentified))
    return register_location_model(calibrated, title=record.title, owner=record.owner, activate=record.active)


@dataclass(frozen=True)
class TrainingRequest:
    """Everything needed to train a model from a corpus file."""

    name: str
    title: str
    language: str  # "ja", "en" or "auto"
    grid: Grid
    columns: ColumnMap
    where: Mapping[str, Sequence[str]]
    C: float = 1.0
    min_df: int = 2


def read_posts(fileobj: BinaryIO, request: TrainingRequest, *, name: str = "",
               progress: Progress | None = None) -> tuple[list[Post], CorpusReport]:
    report = CorpusReport()
    posts: list[Post] = []
    for post in read_corpus(fileobj, columns=request.columns, grid=request.grid, report=report, name=name,
                            where={k: set(v) for k, v in request.where.items()} or None):
        posts.append(post)
        if progress is not None and len(posts) % 20_000 == 0:
            progress(0, 100, f"reading the corpus: {len(posts):,} posts")
    return posts, report


def choose_language(request: TrainingRequest, posts: Sequence[Post]) -> str:
    if request.language != "auto":
        return request.language
    sample = [detect_language(post.text) for post in posts[:500]]
    return max(set(sample), key=sample.count)


def train_from_file(fileobj: BinaryIO, request: TrainingRequest, *, owner: AbstractBaseUser | None = None,
                    job: Job | None = None, name: str = "", activate: bool = True,
                    progress: Progress | None = None) -> tuple[TrainedLocationModel, CorpusReport]:
    """Read the corpus, train, evaluate and register. Bad corpora raise CsvFormatError (row numbers)."""
    posts, report = read_posts(fileobj, request, name=name, progress=progress)
    language = choose_language(request, posts)
    model = train_location_model(posts, name=request.name, grid=request.grid,
                                 tokenizer_settings=TokenizerSettings(language), C=request.C, min_df=request.min_df,
                                 progress=progress)
    model.metadata["corpus_report"] = report.as_dict()
    return register_location_model(model, title=request.title, owner=owner, job=job, activate=activate), report


def ensure_default_models(data_dir: Path | None = None, specs: Sequence[ModelSpec] = DEFAULT_MODELS,
                          log: Callable[[str], None] = logger.info) -> list[TrainedLocationModel]:
    """Train each default model whose spec or corpus changed since its active version (idempotent; the
    second run only hashes the corpus files)."""
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
        request = TrainingRequest(name=spec.name, title=spec.title, language=spec.language, grid=spec.grid,
                                  columns=spec.columns, where=spec.where)
        with open_corpus(data_dir / spec.corpus) as fileobj:
            posts, report = read_posts(fileobj, request, name=spec.corpus)
        model = train_location_model(posts, name=spec.name, grid=spec.grid,
                                     tokenizer_settings=spec.tokenizer_settings)
        model.metadata.update(spec_fingerprint=fingerprint, corpus_report=report.as_dict(), corpus=spec.corpus)
        record = register_location_model(model, title=spec.title)
        scores = model.metadata["scores"]
        log(f"{spec.name}: trained on {model.metadata['train_posts']:,} posts in {time.perf_counter() - started:.1f} s;"
            f" held-out accuracy {scores['accuracy']:.1%} vs majority baseline {scores['majority_baseline']:.1%}")
        records.append(record)
    return records


# -- the training job -------------------------------------------------------------------------------------
class TrainLocationModelParams(serializers.Serializer):
    name = serializers.SlugField(max_length=64, help_text="A short name for the model, e.g. kyoto-ja.")
    title = serializers.CharField(max_length=200, required=False, default="")
    language = serializers.ChoiceField(choices=["auto", "ja", "en"], default="auto")
    south = serializers.FloatField(min_value=-90, max_value=90)
    west = serializers.FloatField(min_value=-180, max_value=180)
    north = serializers.FloatField(min_value=-90, max_value=90)
    east = serializers.FloatField(min_value=-180, max_value=180)
    rows = serializers.IntegerField(min_value=1, max_value=200, default=20)
    cols = serializers.IntegerField(min_value=1, max_value=200, default=10)
    text_column = serializers.CharField(default="text")
    lat_column = serializers.CharField(default="lat")
    lon_column = serializers.CharField(default="lon")
    id_column = serializers.CharField(required=False, allow_null=True, default=None)
    user_column = serializers.CharField(required=False, allow_null=True, default=None,
                                        help_text="With users, the held-out split keeps each user on one side.")
    time_column = serializers.CharField(required=False, allow_null=True, default=None)
    C = serializers.FloatField(min_value=1e-4, max_value=1e4, default=1.0, help_text="Inverse L2 strength.")
    min_df = serializers.IntegerField(min_value=1, max_value=100, default=2,
                                      help_text="Features seen in fewer posts are dropped.")

    def validate(self, data: dict) -> dict:
        try:
            Grid(data["south"], data["west"], data["north"], data["east"], data["rows"], data["cols"])
        except ValueError as exc:
            raise serializers.ValidationError({"grid": str(exc)}) from exc
        return data


def request_from_params(params: Mapping) -> TrainingRequest:
    return TrainingRequest(
        name=params["name"], title=params.get("title") or params["name"], language=params["language"],
        grid=Grid(params["south"], params["west"], params["north"], params["east"], params["rows"], params["cols"]),
        columns=ColumnMap(text=params["text_column"], lat=params["lat_column"], lon=params["lon_column"],
                          id=params.get("id_column"), user=params.get("user_column"), time=params.get("time_column")),
        where={}, C=params["C"], min_df=params["min_df"],
    )


def run_training_job(job: Job, run: JobRun) -> dict:
    upload = job.inputs.get()
    try:
        with upload.file.open("rb") as fileobj:
            record, report = train_from_file(fileobj, request_from_params(job.params), owner=job.owner, job=job,
                                             name=upload.original_name, progress=run.progress)
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc
    except ValueError as exc:  # e.g. every post in one cell
        raise UserFacingError(str(exc)) from exc
    return {"model": str(record.id), "name": record.name, "version": record.version, "language": record.language,
            "threshold": record.metadata["threshold"], "scores": record.metadata["scores"],
            "corpus": report.as_dict()}


register(JobKind(name=KIND, label="Train a location model", run=run_training_job,
                 params_serializer=TrainLocationModelParams, inputs=1,
                 summary_template="jobs/summary/train_location_model.html"))
