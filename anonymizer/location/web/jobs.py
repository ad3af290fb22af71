"""The location capability's job: train a location model from an uploaded corpus."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers

from anonymizer.location.corpus import ColumnMap
from anonymizer.location.grid import Grid
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
