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
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework import serializers

from anonymizer.models import Job, TrainedLocationModel, Upload
from anonymizer.platform.api_input import StrictUUIDField
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.csv_parts import Rewrite, batches, column_indices, gather, rewrite_csv, rewrite_part
from anonymizer.platform.jobs.describe import result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError, chosen_columns
from anonymizer.tabular.reader import CsvSource
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
    describe_time_removal,
    not_english_message,
    not_english_rows,
    shared_anonymizer,
)
from anonymizer.temporal.web.services import english_location_model, known_patterns, time_anonymizer_for

if TYPE_CHECKING:
    from anonymizer.location.deidentify import LinearScorer
    from anonymizer.location.model import LocationModel
    from anonymizer.temporal.anonymize import TemporalAnonymizer

KIND = "remove_time"
PROGRESS_EVERY = 200  # posts parsed between progress reports of the patterns job
BATCH_ROWS = 256  # rows read, anonymized (one nlp.pipe call per text column) and written at a time
SAMPLE_SIZE = 10  # changed posts shown on the job page for the owner's review


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
        error_messages={"min_length": "Choose at least one text column."},
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


@dataclass
class ColumnCounts:
    """What happened in one text column."""

    name: str
    posts: int = 0  # non-empty cells
    empty: int = 0
    changed: int = 0  # cells written differently
    time_removed: int = 0  # phrases cut ("at 9AM" is one)
    time_generalized: int = 0  # expressions replaced by a neutral phrase
    posts_time_changed: int = 0
    # With a location model:
    location_inferable_before: int = 0  # the post as written: top-cell probability >= the model's threshold
    location_inferable_after: int = 0  # the post written out
    morphemes_deleted: int = 0
    posts_location_changed: int = 0


@dataclass
class _Location:
    record: TrainedLocationModel
    model: LocationModel
    extra: list[LinearScorer]  # the human-inferability scorer trained beside the model, if any (as on inspect)

    @property
    def threshold(self) -> float:
        return self.model.threshold.value


def _location_for(owner, ref: str | None) -> _Location | None:
    if not ref:
        return None
    try:
        return _Location(*english_location_model(owner, ref))
    except LookupError as exc:
        raise UserFacingError(f"location_model: {exc}") from exc


def _anonymize_cells(cells: list[str], anonymizer: TemporalAnonymizer, location: _Location | None,
                     counts: ColumnCounts) -> list[str]:
    """The cells of one column of a batch, anonymized; an empty (or blank) cell and an unchanged post stay as
    they were, byte for byte."""
    out = list(cells)
    positions = [i for i, cell in enumerate(cells) if cell.strip()]
    counts.empty += len(cells) - len(positions)
    counts.posts += len(positions)
    results = anonymizer.transform([cells[i] for i in positions])
    for i, result in zip(positions, results, strict=True):
        after = result.text if result.changed else cells[i]
        if result.changed:
            described = describe_time_removal(result)
            counts.time_removed += len(described["removed"])
            counts.time_generalized += len(described["generalized"])
            counts.posts_time_changed += 1
        if location is not None:
            post = location.model.deidentify(result.text, keep_spans=result.inserted_spans,
                                              extra_scorers=location.extra)
            before = post.probabilities_before
            if result.changed:  # "before" is the post as written, not the one without its time expressions
                before = location.model.cell_probabilities([[t.norm for t in location.model.tokenize(cells[i])]])[0]
            counts.location_inferable_before += bool(before.max() >= location.threshold)
            counts.location_inferable_after += bool(post.probabilities_after.max() >= location.threshold)
            if post.decision.deleted:
                counts.morphemes_deleted += len(post.decision.deleted)
                counts.posts_location_changed += 1
                after = post.text_after
        if after != cells[i]:
            out[i] = after
            counts.changed += 1
    return out


def _options(options: TimeRemovalOptions, location: _Location | None) -> dict:
    """The options of the job's report."""
    report = {"time_mode": options.time_mode, "keep_time": list(options.keep_time),
              # Stored as what was kept: a result from before the option (none of it) then reads right.
              "keep_how_long": not options.remove_how_long,
              "time_patterns": options.time_patterns, "location_model": None}
    if options.time_patterns:
        report["time_patterns_top"] = options.time_patterns_top
    if location is not None:
        report["location_model"] = {"id": str(location.record.id), "name": location.record.name,
                                    "version": location.record.version, "threshold": location.threshold,
                                    "human_model": bool(location.extra)}
    return report


@dataclass(frozen=True)
class _Setup:
    """A job's validated parameters and time options (built once, here), its time anonymizer and location model
    (both kept per process), its text columns."""

    params: dict
    options: TimeRemovalOptions
    anonymizer: TemporalAnonymizer
    location: _Location | None
    names: list[str]


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
    return _Setup(params, options, anonymizer, _location_for(job.owner, params.get("location_model")),
                  list(dict.fromkeys(params["text_columns"])))


def time_rewrite(job: Job, setup: _Setup | None = None) -> Rewrite:
    """The rewrite of a remove-time job's rows (``csv_parts``): every text cell anonymized, one ``nlp.pipe``
    call per column of a batch; counts, a sample of changed posts and the rows that are not English as its
    state (rows from 0 within the records it is given). ``setup``: the job's ``_setup``, when already made."""
    setup = setup or _setup(job)
    anonymizer, location, names = setup.anonymizer, setup.location, setup.names
    upload_name = job.inputs.get().original_name

    def rewrite(header, records, writer, progress) -> dict:
        indices = column_indices(header, names, upload_name)
        counts = [ColumnCounts(name) for name in names]
        sample: list[dict] = []
        refused: list[tuple[int, str, str]] = []  # (row, column, why) of the posts that are not English
        done = 0
        for batch in batches(records, BATCH_ROWS):
            first, done = done, done + len(batch)
            refused.extend(not_english_rows(batch, indices, names, first))
            if refused:
                continue  # the job will fail: only look for the other rows to name
            anonymized = [_anonymize_cells([row[column] for row in batch], anonymizer, location, column_counts)
                          for column, column_counts in zip(indices, counts, strict=True)]
            for offset, row in enumerate(batch):  # row by row, so the sample is the same whatever the parts
                for column, name, cells in zip(indices, names, anonymized, strict=True):
                    if cells[offset] != row[column]:
                        if len(sample) < SAMPLE_SIZE:
                            sample.append({"row": first + offset, "column": name, "before": row[column],
                                           "after": cells[offset]})
                        row[column] = cells[offset]
            writer.writerows(batch)
            progress(done)
        return {"counts": [asdict(c) for c in counts], "sample": sample, "refused": refused}

    return rewrite


def run_remove_time(job: Job, run: JobRun) -> dict:
    started = time.perf_counter()
    upload = job.inputs.get()
    run.progress(0, 1, "loading the parser")
    setup = _setup(job)
    params, location, names = setup.params, setup.location, setup.names
    rewrite = time_rewrite(job, setup)
    output = run.scratch_path("time-removed.csv")
    parts = rewrite_csv(run, upload, output, rewrite, what="removing time expressions")
    counts, sample, refused = gather(parts)
    if refused:
        raise UserFacingError(not_english_message(upload.original_name, refused,
                                                  "remove or translate those rows and start the job again."))
    report = {"input": upload.original_name, "rows": sum(part.rows for part in parts), "text_columns": names,
              "columns": counts or [asdict(ColumnCounts(name)) for name in names],
              "options": _options(setup.options, location),
              "seconds": round(time.perf_counter() - started, 3), "parts": len(parts) if len(parts) > 1 else 0}
    stem = upload.stem("dataset")
    # Named after the run: posts.mode-prune.model-us-midwest-en.time-removed.csv (the model's name, not its id).
    named = {**params, "location_model": location.record.name if location is not None else None}
    run.add_result_file(result_file_name(KIND, stem, named, "time-removed.csv"), output, "text/csv")
    # The report holds counts only, no post text, so it can be shared; the sample is for the job page.
    run.add_result(result_file_name(KIND, stem, named, "time-removed.report.json"),
                   json.dumps(report, indent=1, ensure_ascii=False).encode(), "application/json")
    return {**report, "sample": sample[:SAMPLE_SIZE]}


register(JobKind(name=KIND, label="Remove time expressions from a dataset's posts", run=run_remove_time,
                 params_serializer=RemoveTimeParams, inputs=1, summary_template="jobs/summary/remove_time.html",
                 prepare=prepare, title="Remove time from",
                 run_chunk=lambda job, work: rewrite_part(job, work, time_rewrite(job)),
                 distinguishing=(Distinguishing("time_mode", "mode={}", "mode-{}"),
                                 Distinguishing("location_model", "model={}", "model-{}")),
                 upload_actions=(UploadAction("remove time", "temporal-remove-time", position=30),)))


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


register(JobKind(name=PATTERNS_JOB, label="Learn temporal patterns from posts", run=run_temporal_patterns,
                 params_serializer=TemporalPatternParams, inputs=1, prepare=prepare_patterns,
                 summary_template="jobs/summary/temporal_patterns.html", title="Learn time patterns of"))
