"""The location capability's jobs: train a location model from an uploaded corpus; evaluate how well the
de-identifier protects the posts of a default model's corpus against independent attackers; de-identify every post
of an uploaded CSV (the inspect page for a whole file, fanned out over the workers by parts of the file)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

from django.conf import settings
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from anonymizer.location.corpus import ColumnMap, load_corpus
from anonymizer.location.defaults import DEFAULT_MODELS
from anonymizer.location.options import DEFAULT_OPTIONS
from anonymizer.location.posts_file import (
    REVIEW_SEPARATOR,
    SAMPLE_SIZE,
    VERDICTS,
    PostsRelease,
    PostTooSlow,
    TimeStep,
    VerdictMismatch,
    added_columns,
    check_verdicts,
    release_report,
    review_cell,
    review_column,
    taken_columns,
    taken_message,
    verdict_column,
    verdicts_in,
)
from anonymizer.location.protection import REPLACEMENTS, evaluate_protection, protection_table, replacement_options
from anonymizer.location.verdict import model_strength
from anonymizer.location.web import selectors
from anonymizer.location.web.serializers import InspectOptionsSerializer, inspect_options
from anonymizer.location.web.services import TrainingRequest, english_only, train_from_file
from anonymizer.models import Job, TrainedLocationModel
from anonymizer.platform import artifacts, compute
from anonymizer.platform.deadline import DeadlineExceeded
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.grid import Grid
from anonymizer.platform.jobs.csv_parts import Rewrite, gather, rewrite_csv, rewrite_part
from anonymizer.platform.jobs.describe import result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.platform.selectors import succeeded_job
from anonymizer.tabular import CsvFormatError, chosen_columns
from anonymizer.temporal import removal as time_removal

KIND = "train_location_model"
# The de-identify-posts job's columns and verdicts are named here too, for the review pages that import them.
__all__ = ["DEIDENTIFY_KIND", "KIND", "PROTECTION_KIND", "REVIEW_SEPARATOR", "VERDICTS", "deidentify_rewrite",
           "prepare_deidentify", "review_cell", "review_column", "run_deidentify_posts", "verdict_column"]


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


register(JobKind(name=KIND, label=gettext_lazy("Train a location model"), run=run_train_location_model,
                 params_serializer=TrainLocationModelParams, inputs=1,
                 summary_template="jobs/summary/train_location_model.html",
                 distinguishing=(Distinguishing("name", "name={}", "{}"),)))


# -- protection against independent attackers, on a default model's corpus ----------------------------------------
PROTECTION_KIND = "evaluate_location_protection"
GAZETTEER = "geo/gazetteer/places.json.gz"


class EvaluateLocationProtectionParams(serializers.Serializer):
    spec = serializers.ChoiceField(choices=[spec.name for spec in DEFAULT_MODELS],
                                   help_text="Which default model's corpus to split and de-identify.")
    max_posts = serializers.IntegerField(min_value=10, max_value=2000, default=300,
                                         help_text="Test posts to de-identify and attack.")
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
    replacement = serializers.ChoiceField(choices=list(REPLACEMENTS), default=DEFAULT_OPTIONS.replacement,
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


register(JobKind(name=PROTECTION_KIND, label=gettext_lazy("Evaluate location protection against independent attackers"),
                 run=run_evaluate_location_protection, params_serializer=EvaluateLocationProtectionParams, inputs=0,
                 summary_template="jobs/summary/evaluate_location_protection.html",
                 distinguishing=(Distinguishing("replacement", "replacement={}", "{}"),
                                 Distinguishing("spec", "model={}", "model-{}"))))


# -- de-identify every post of an uploaded CSV (the inspect page, for a whole file) -------------------------------
# The rewrite, its columns and its checks are pure (anonymizer.location.posts_file, which `kakurega deidentify`
# shares); this shell resolves the owner's model and patterns job, and keeps the web's deadline per post.
DEIDENTIFY_KIND = "deidentify_posts"


class DeidentifyPostsParams(InspectOptionsSerializer):
    """The inspect page's options for every post of a file: automatic mode only (a fixed m per post means
    nothing across a dataset), a model named explicitly, and the text columns."""

    mode = serializers.ChoiceField(choices=["auto"], default="auto",
                                   help_text="Automatic: each post loses the fewest units that get it under every "
                                             "threshold (the only mode for a whole file).")
    model = serializers.CharField(max_length=200, help_text="The location model, by id or name (see "
                                                            "/api/v1/location-models/).")
    text_columns = serializers.ListField(
        child=serializers.CharField(max_length=1000), min_length=1, max_length=1000, default=("text",),
        error_messages={"min_length": gettext_lazy("Choose at least one text column.")},
        help_text="The columns that hold the posts; every other column is copied as it is, and for each a verdict "
                  "column (<column>_location_verdict: pass, review, places or fail) and a review column "
                  "(<column>_location_review: the names no scorer could resolve, \"; \"-joined) are added.")


def prepare_deidentify(params: dict, inputs: list) -> dict:
    """Before the job is queued: the text columns against the upload's header, the model and the patterns job
    among the owner's, time removal only with an English model; errors by field."""
    upload = inputs[0]
    header = list(upload.metadata.get("header", []))
    columns, missing = chosen_columns(params["text_columns"], header, upload.original_name)
    errors: dict[str, list[str]] = {}
    if missing:
        errors["text_columns"] = missing
    # The reviewed download (file_review) adds <column>_reviewed later: refused now, not a duplicate name then.
    taken = taken_columns(header, columns)
    if taken:
        errors["text_columns"] = errors.get("text_columns", []) + [taken_message(upload.original_name, name)
                                                                   for name in taken]
    record = None
    try:
        record = artifacts.resolve(TrainedLocationModel, upload.owner, params["model"], what="model")
    except LookupError as exc:
        errors["model"] = [str(exc)]
    if params.get("remove_time"):
        if record is not None and record.language != time_removal.LANGUAGE:
            errors["remove_time"] = [english_only(record)]
        if params.get("time_patterns"):
            try:
                succeeded_job(upload.owner, params["time_patterns"], time_removal.PATTERNS_JOB,
                              what=time_removal.PATTERNS_JOB_NAME)
            except LookupError as exc:
                errors["time_patterns"] = [str(exc)]
    if errors:
        raise serializers.ValidationError(errors)
    return {**params, "text_columns": columns, "model": str(record.id), "keep_time": list(params.get("keep_time", ())),
            "time_patterns": str(params["time_patterns"]) if params.get("time_patterns") else None}


def deidentify_rewrite(job: Job) -> Rewrite:
    """The rewrite of a de-identify-posts job's rows (``csv_parts``): the owner's model (and the human scorer
    beside it) and the time step its options ask for, given to the pure release (``posts_file``); each post gets
    the deadline of an inspection (INSPECT_DEADLINE_SECONDS), the worker's concurrency standing for the web's
    compute slots. A post past it fails the job naming its row (within the part) and column."""
    params = dict(job.params)
    options = inspect_options(params)
    try:
        record = selectors.resolve_location_model(job.owner, options.model)
    except LookupError as exc:  # the model went away since queueing
        detail = serializers.ValidationError({"model": [str(exc)]}).detail
        raise UserFacingError(f"The job's options no longer hold: {detail}") from exc
    release = PostsRelease(model=selectors.load_location_model(record), columns=tuple(params["text_columns"]),
                           file_name=job.inputs.get().original_name, options=options,
                           human_scorers=tuple(selectors.human_scorers(record)),
                           time=_time_step(job, options) if options.remove_time else None,
                           deadline=compute.request_deadline)

    def rewrite(header, records, writer, progress) -> dict:
        try:
            return release.rewrite(header, records, writer, progress)
        except PostTooSlow as exc:
            what = "De-identifying this post" if exc.posts == 1 else f"De-identifying these {exc.posts} posts"
            limit = compute.too_slow(DeadlineExceeded(exc.seconds), what, post=exc.index)
            raise UserFacingError(f"Row {exc.row}, column {exc.column!r}: {limit.detail}") from exc

    return rewrite


def _time_step(job: Job, options) -> TimeStep:
    """The time anonymizer the job's options ask for (prepare_deidentify checked the model's language)."""
    time_options = time_removal.TimeRemovalOptions.from_params(options.time)
    known = None
    if time_options.time_patterns:
        try:
            patterns = succeeded_job(job.owner, time_options.time_patterns, time_removal.PATTERNS_JOB,
                                     what=time_removal.PATTERNS_JOB_NAME)
        except LookupError as exc:  # the patterns job went away since queueing
            detail = serializers.ValidationError({"time_patterns": [str(exc)]}).detail
            raise UserFacingError(f"The job's options no longer hold: {detail}") from exc
        known = time_removal.top_patterns(patterns.result, time_options.time_patterns_top)
    anonymizer = time_removal.time_anonymizer(time_options, use_ner=settings.TEMPORAL_USE_NER, known_patterns=known)
    return TimeStep(anonymizer, time_removal.not_english_rows)


def run_deidentify_posts(job: Job, run: JobRun) -> dict:
    started = time.perf_counter()
    upload = job.inputs.get()
    names = list(job.params["text_columns"])
    try:
        record = artifacts.resolve(TrainedLocationModel, job.owner, job.params["model"], what="model")
    except LookupError as exc:
        raise UserFacingError(f"model: {exc}") from exc
    run.progress(0, 1, "loading the model")
    output = run.scratch_path("deidentified.csv")
    parts = rewrite_csv(run, upload, output, deidentify_rewrite(job), what="de-identifying posts",
                        header=lambda header: [*header, *added_columns(names)])
    counts, sample, refused = gather(parts)
    if refused:
        raise UserFacingError(time_removal.not_english_message(
            upload.original_name, refused, "remove or translate those rows, or start the job again without removing "
                                           "time."))
    released = verdicts_in(output, names)
    model = selectors.load_location_model(record)
    report = release_report(
        input_name=upload.original_name, rows=sum(part.rows for part in parts), names=names, counts=counts,
        released=released, model={"id": str(record.id), "name": record.name, "version": record.version,
                                  "threshold": model.threshold.value, "strength": model_strength(model.metadata),
                                  "human_model": bool(selectors.human_scorers(record))},
        options={key: job.params.get(key) for key in ("remove_time", "time_mode", "keep_time", "remove_how_long",
                                                      "time_patterns", "replacement", "places", "keep")},
        seconds=time.perf_counter() - started, parts=len(parts))
    try:
        check_verdicts(counts, released)
    except VerdictMismatch as exc:  # what was counted is not what was written: nothing is released
        raise UserFacingError(str(exc)) from exc
    stem = upload.stem("posts")
    named = {"model": record.name, "remove_time": bool(job.params.get("remove_time"))}
    run.add_result_file(result_file_name(DEIDENTIFY_KIND, stem, named, "deidentified.csv"), output, "text/csv")
    run.add_result(result_file_name(DEIDENTIFY_KIND, stem, named, "deidentified.report.json"),
                   json.dumps(report, indent=1, ensure_ascii=False).encode(), "application/json")
    return {**report, "sample": sample[:SAMPLE_SIZE]}


register(JobKind(name=DEIDENTIFY_KIND, label=gettext_lazy("De-identify the location of every post of a file"),
                 run=run_deidentify_posts, params_serializer=DeidentifyPostsParams, inputs=1,
                 prepare=prepare_deidentify, summary_template="jobs/summary/deidentify_posts.html",
                 title="De-identify the posts of",
                 run_chunk=lambda job, work: rewrite_part(job, work, deidentify_rewrite(job)),
                 distinguishing=(Distinguishing("time_mode", "mode={}", "mode-{}"),
                                 Distinguishing("replacement", "replacement={}", "{}")),
                 upload_actions=(UploadAction(gettext_lazy("de-identify posts"), "location-deidentify-posts",
                                              position=40),)))
