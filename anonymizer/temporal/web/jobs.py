"""The temporal capability's jobs.

``temporal_patterns`` parses the posts of an uploaded CSV, finds the removable subtree of every time expression
and counts their abstract patterns with the coverage curve.

``remove_time`` removes time expressions from the text column(s) of an uploaded CSV, optionally with the location
in the same pass: every post loses its time expressions first, then the location model deletes the fewest
morphemes that make it location-ambiguous (the neutral phrases the time removal inserted are kept). The CSV is
streamed: rows are read, anonymized and written in batches, so only one batch of posts is in memory. The output
has the upload's header and rows in their order; only the text columns' cells change."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from anonymizer.models import Job, Upload
from anonymizer.platform.api_input import StrictUUIDField
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.csv_parts import Rewrite, rewrite_csv, rewrite_part
from anonymizer.platform.jobs.describe import result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError, chosen_columns
from anonymizer.tabular.reader import CsvSource
from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.dataset import LocationStep, TimeRemoval, outcome
from anonymizer.temporal.removal import (
    DEFAULT_KEEP_TIME,
    DEFAULT_TOP,
    DEFAULTS,
    KINDS,
    MAX_TOP,
    OPTION_HELP,
    PATTERNS_JOB,
    TIME_MODES,
    TimeRemovalOptions,
    not_english_message,
    shared_anonymizer,
)
from anonymizer.temporal.web.services import english_location_model, known_patterns, time_anonymizer_for

KIND = "remove_time"
PROGRESS_EVERY = 200  # posts parsed between progress reports of the patterns job


class RemoveTimeParams(serializers.Serializer):
    # The time options mean what they mean on the inspect page (anonymizer.temporal.removal says it once).
    time_mode = serializers.ChoiceField(choices=list(TIME_MODES), default=DEFAULTS.time_mode,
                                        help_text=OPTION_HELP["time_mode"])
    keep_time = serializers.ListField(child=serializers.ChoiceField(choices=list(KINDS)), required=False, max_length=50,
                                      default=DEFAULT_KEEP_TIME.copy, help_text=OPTION_HELP["keep_time"])
    remove_how_long = serializers.BooleanField(default=DEFAULTS.remove_how_long,
                                               help_text=OPTION_HELP["remove_how_long"])
    time_patterns = StrictUUIDField(required=False, allow_null=True, default=None,
                                          help_text=OPTION_HELP["time_patterns"])
    time_patterns_top = serializers.IntegerField(min_value=1, max_value=MAX_TOP, default=DEFAULT_TOP,
                                                 help_text=OPTION_HELP["time_patterns_top"])
    text_columns = serializers.ListField(
        child=serializers.CharField(max_length=1000), min_length=1, max_length=1000, default=("text",),
        error_messages={"min_length": gettext_lazy("Choose at least one text column.")},
        help_text="The columns that hold the posts; every other column is copied as it is.")
    location_model = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, default=None, max_length=200,
        help_text="Also de-identify the location of every post after its time expressions are removed: the id "
                  "or name of an English location model (see /location-models/). Empty: time only.")


def prepare(params: dict, inputs: list[Upload]) -> dict:
    """Check, before the job is queued, the text columns against the upload's header and that the patterns job
    and the location model resolve for the upload's owner; errors by field."""
    upload = inputs[0]
    columns, missing = chosen_columns(params["text_columns"], upload.metadata.get("header", []), upload.original_name)
    errors: dict[str, list[str]] = {}
    if missing:
        errors["text_columns"] = missing
    if params.get("time_patterns"):
        try:
            known_patterns(upload.owner, params["time_patterns"], params["time_patterns_top"])
        except LookupError as exc:
            errors["time_patterns"] = [str(exc)]
    if params.get("location_model"):
        try:
            english_location_model(upload.owner, params["location_model"])
        except LookupError as exc:
            errors["location_model"] = [str(exc)]
    if errors:
        raise serializers.ValidationError(errors)
    return {**params, "text_columns": columns, "keep_time": list(params.get("keep_time", DEFAULT_KEEP_TIME)),
            "time_patterns": str(params["time_patterns"]) if params.get("time_patterns") else None,
            "location_model": params.get("location_model") or None}


def _location_for(owner, ref: str | None) -> LocationStep | None:
    if not ref:
        return None
    try:
        record, model, extra = english_location_model(owner, ref)
    except LookupError as exc:
        raise UserFacingError(f"location_model: {exc}") from exc
    return LocationStep(model, tuple(extra), {"id": str(record.id), "name": record.name, "version": record.version})


@dataclass(frozen=True)
class _Setup:
    """A job's validated parameters, its time removal (options built once, here; the location model kept per
    process) and the time anonymizer of its options (around the process's one parser)."""

    params: dict
    removal: TimeRemoval
    anonymizer: TemporalAnonymizer


def _setup(job: Job) -> _Setup:
    validated = RemoveTimeParams(data=job.params)
    if not validated.is_valid():
        raise UserFacingError(f"The job's parameters are invalid: {json.dumps(validated.errors)}")
    params = validated.validated_data
    options = TimeRemovalOptions.from_params(params)
    try:
        anonymizer = time_anonymizer_for(job.owner, options)
    except LookupError as exc:
        raise UserFacingError(f"time_patterns: {exc}") from exc
    location = _location_for(job.owner, params.get("location_model"))
    return _Setup(params, TimeRemoval(options, tuple(dict.fromkeys(params["text_columns"])), location), anonymizer)


def time_rewrite(job: Job, setup: _Setup | None = None) -> Rewrite:
    """The rewrite of a remove-time job's rows (``csv_parts``; the work is ``TimeRemoval.rewrite``'s, the same a
    terminal's ``kakurega remove-time`` runs). ``setup``: the job's ``_setup``, when already made."""
    setup = setup or _setup(job)
    return setup.removal.rewrite(setup.anonymizer, job.inputs.get().original_name)


def run_remove_time(job: Job, run: JobRun) -> dict:
    started = time.perf_counter()
    upload = job.inputs.get()
    run.progress(0, 1, "loading the parser")
    setup = _setup(job)
    params, removal = setup.params, setup.removal
    output = run.scratch_path("time-removed.csv")
    parts = rewrite_csv(run, upload, output, time_rewrite(job, setup), what="removing time expressions")
    done = outcome(removal, upload.original_name, parts, time.perf_counter() - started)
    if done.refused:
        raise UserFacingError(not_english_message(upload.original_name, done.refused,
                                                  "remove or translate those rows and start the job again."))
    stem = upload.stem("dataset")
    # Named after the run: posts.mode-prune.model-us-midwest-en.time-removed.csv (the model's name, not its id).
    named = {**params, "location_model": removal.location.identity["name"] if removal.location is not None else None}
    run.add_result_file(result_file_name(KIND, stem, named, "time-removed.csv"), output, "text/csv")
    # The report holds counts only, no post text, so it can be shared; the sample is for the job page.
    run.add_result(result_file_name(KIND, stem, named, "time-removed.report.json"),
                   json.dumps(done.report, indent=1, ensure_ascii=False).encode(), "application/json")
    return {**done.report, "sample": done.sample}


register(JobKind(name=KIND, label=gettext_lazy("Remove time expressions from a dataset's posts"), run=run_remove_time,
                 params_serializer=RemoveTimeParams, inputs=1, summary_template="jobs/summary/remove_time.html",
                 prepare=prepare, title="Remove time from",
                 run_chunk=lambda job, work: rewrite_part(job, work, time_rewrite(job)),
                 distinguishing=(Distinguishing("time_mode", "mode={}", "mode-{}"),
                                 Distinguishing("location_model", "model={}", "model-{}")),
                 upload_actions=(UploadAction(gettext_lazy("remove time"), "temporal-remove-time", position=30),)))


# -- learn temporal patterns ----------------------------------------------------------------------------------
class TemporalPatternParams(serializers.Serializer):
    text_column = serializers.CharField(default="text", max_length=1000, help_text="The column that holds the posts.")


def prepare_patterns(params: dict, inputs: list[Upload]) -> dict:
    """The text column must be one of the upload's, checked before the job is queued."""
    upload = inputs[0]
    _, missing = chosen_columns([params["text_column"]], upload.metadata.get("header", []), upload.original_name)
    if missing:
        raise serializers.ValidationError({"text_column": missing})
    return params


def run_temporal_patterns(job: Job, run: JobRun) -> dict:
    from anonymizer.temporal.normalize import normalize
    from anonymizer.temporal.patterns import PatternExtractor, coverage_curve

    upload = job.inputs.get()
    column_name = job.params.get("text_column", "text")
    anonymizer = shared_anonymizer(settings.TEMPORAL_USE_NER)
    total = upload.metadata.get("rows") or 0
    try:
        with upload.file.open("rb") as fileobj:
            source = CsvSource(fileobj)
            if column_name not in source.header:
                raise UserFacingError(f"{upload.original_name} has no column {column_name!r}; its columns are: "
                                      f"{', '.join(source.header)}")
            column = source.header.index(column_name)

            def texts():
                for batch in source.batches():
                    for row in batch:
                        yield normalize(row[column]).text

            def docs():
                for done, doc in enumerate(anonymizer.nlp.pipe(texts(), batch_size=256), start=1):
                    if done % PROGRESS_EVERY == 0:
                        run.progress(done, max(total, done), f"parsing posts: {done:,} of {total:,}")
                    yield doc

            extractor = PatternExtractor(anonymizer).fit(docs())
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc
    curve = coverage_curve(extractor.counts_, extractor.expressions_)
    patterns = [{"pattern": pattern, "count": count, "share": count / extractor.expressions_}
                for pattern, count in extractor.counts_.most_common()]
    summary = {"input": upload.original_name, "text_column": column_name, "posts": source.rows,
               "expressions": extractor.expressions_, "patterns": patterns, "coverage": curve,
               "arguments": extractor.expressions_ - sum(extractor.counts_.values())}
    stem = upload.stem("posts")
    run.add_result(f"{stem}.temporal-patterns.json", json.dumps(summary, indent=1, ensure_ascii=False).encode(),
                   "application/json")
    return summary


register(JobKind(name=PATTERNS_JOB, label=gettext_lazy("Learn temporal patterns from posts"), run=run_temporal_patterns,
                 params_serializer=TemporalPatternParams, inputs=1, prepare=prepare_patterns,
                 summary_template="jobs/summary/temporal_patterns.html", title="Learn time patterns of"))
