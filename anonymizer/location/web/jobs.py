"""The location capability's jobs: train a location model from an uploaded corpus; evaluate how well the
de-identifier protects the posts of a default model's corpus against independent attackers."""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from rest_framework import serializers

from anonymizer.location.corpus import ColumnMap, load_corpus
from anonymizer.location.defaults import DEFAULT_MODELS
from anonymizer.location.grid import Grid
from anonymizer.location.protection import REPLACEMENTS, evaluate_protection, protection_table, replacement_options
from anonymizer.location.web.services import TrainingRequest, train_from_file
from anonymizer.models import Job
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.registry import JobKind, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError

KIND = "train_location_model"


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
    text_column = serializers.CharField(default="text", max_length=1000)
    lat_column = serializers.CharField(default="lat", max_length=1000)
    lon_column = serializers.CharField(default="lon", max_length=1000)
    id_column = serializers.CharField(required=False, allow_null=True, default=None, max_length=1000)
    user_column = serializers.CharField(required=False, allow_null=True, default=None, max_length=1000,
                                        help_text="With users, the held-out split keeps each user on one side.")
    time_column = serializers.CharField(required=False, allow_null=True, default=None, max_length=1000)
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


def run_train_location_model(job: Job, run: JobRun) -> dict:
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


register(JobKind(name=KIND, label="Train a location model", run=run_train_location_model,
                 params_serializer=TrainLocationModelParams, inputs=1,
                 summary_template="jobs/summary/train_location_model.html"))


# -- protection against independent attackers, on a default model's corpus ----------------------------------------
PROTECTION_KIND = "evaluate_location_protection"
GAZETTEER = "geo/gazetteer/places.json.gz"


class EvaluateLocationProtectionParams(serializers.Serializer):
    spec = serializers.ChoiceField(choices=[spec.name for spec in DEFAULT_MODELS],
                                   help_text="Which default model's corpus to split and de-identify.")
    max_posts = serializers.IntegerField(min_value=10, max_value=2000, default=300,
                                         help_text="Test posts to de-identify and attack.")
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
    replacement = serializers.ChoiceField(choices=list(REPLACEMENTS), default="delete",
                                          help_text="What a deleted place becomes in the released text.")

    def validate_replacement(self, value: str) -> str:
        try:
            replacement_options(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return value


def run_evaluate_location_protection(job: Job, run: JobRun) -> dict:
    params = job.params
    spec = next(spec for spec in DEFAULT_MODELS if spec.name == params["spec"])
    path = settings.DATA_DIR / spec.corpus
    if not path.exists():
        raise UserFacingError(f"The corpus of {spec.name} ({spec.corpus}) is missing on this server.")
    run.progress(0, 100, f"reading {spec.corpus}")
    posts, report = load_corpus(path, columns=spec.columns, grid=spec.grid,
                                where={k: set(v) for k, v in spec.where.items()} or None)
    try:
        result = evaluate_protection(posts, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings,
                                     seed=params["seed"], max_test_posts=params["max_posts"],
                                     gazetteer_path=settings.DATA_DIR / GAZETTEER, progress=run.progress,
                                     **replacement_options(params["replacement"]))
    except ValueError as exc:  # e.g. too few posts for three parts
        raise UserFacingError(str(exc)) from exc
    corpus = report.as_dict()
    return {**result, "spec": spec.name, "title": spec.title,
            "corpus": {key: corpus[key] for key in ("rows_read", "accepted", "rejected_total")},
            "report": protection_table(result)}


register(JobKind(name=PROTECTION_KIND, label="Evaluate location protection against independent attackers",
                 run=run_evaluate_location_protection, params_serializer=EvaluateLocationProtectionParams, inputs=0,
                 summary_template="jobs/summary/evaluate_location_protection.html"))
