"""The location capability's jobs: train a location model from an uploaded corpus; evaluate how well the
de-identifier protects the posts of a default model's corpus against independent attackers; de-identify every post
of an uploaded CSV (the inspect page for a whole file, fanned out over the workers by parts of the file)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

from django.conf import settings
from rest_framework import serializers

from anonymizer.location.corpus import ColumnMap, load_corpus
from anonymizer.location.defaults import DEFAULT_MODELS
from anonymizer.location.file_review import reviewed_column
from anonymizer.location.options import DEFAULT_OPTIONS
from anonymizer.location.protection import REPLACEMENTS, evaluate_protection, protection_table, replacement_options
from anonymizer.location.verdict import model_strength
from anonymizer.location.web import selectors, services
from anonymizer.location.web.serializers import InspectOptionsSerializer, inspect_options
from anonymizer.location.web.services import TrainingRequest, train_from_file
from anonymizer.models import Job, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.compute import ComputeLimit
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.grid import Grid
from anonymizer.platform.jobs.csv_parts import batches, column_indices, gather, rewrite_csv, rewrite_part
from anonymizer.platform.jobs.describe import result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.platform.selectors import succeeded_job
from anonymizer.tabular import CsvFormatError, chosen_columns
from anonymizer.tabular.reader import CsvSource
from anonymizer.temporal import removal as time_removal

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


register(JobKind(name=PROTECTION_KIND, label="Evaluate location protection against independent attackers",
                 run=run_evaluate_location_protection, params_serializer=EvaluateLocationProtectionParams, inputs=0,
                 summary_template="jobs/summary/evaluate_location_protection.html",
                 distinguishing=(Distinguishing("replacement", "replacement={}", "{}"),
                                 Distinguishing("spec", "model={}", "model-{}"))))


# -- de-identify every post of an uploaded CSV (the inspect page, for a whole file) -------------------------------
DEIDENTIFY_KIND = "deidentify_posts"
# The verdict column's values (verdict.STATUSES, best first): every check passed; under every threshold but names
# no list holds are left for the reader to check (the review column lists them); a gazetteer place inside the map
# is left; a threshold is not met.
VERDICTS = ("pass", "review", "places", "fail")
# The review column's cell: the names of the row's released text that no scorer could resolve (review.py), each
# once, in text order, joined by this; empty when there is none.
REVIEW_SEPARATOR = "; "
BATCH_ROWS = 256  # rows de-identified (and, with remove_time, parsed in one nlp.pipe call) at a time
SAMPLE_SIZE = 10  # changed posts shown on the job page for the owner's review


def verdict_column(name: str) -> str:
    """The column added after the upload's own for the verdict of each post of text column ``name``."""
    return f"{name}_location_verdict"


def review_column(name: str) -> str:
    """The column added after the verdict column of text column ``name``: the names its released post still holds
    that no scorer could resolve, "; "-joined (REVIEW_SEPARATOR), for the reader to check."""
    return f"{name}_location_review"


def added_columns(names: list[str]) -> list[str]:
    """The columns the job adds after the upload's own: per text column, its verdict and its review column."""
    return [column for name in names for column in (verdict_column(name), review_column(name))]


def review_cell(items: list[dict]) -> str:
    """A review column's cell: each name once, in text order, "; "-joined."""
    return REVIEW_SEPARATOR.join(dict.fromkeys(item["text"] for item in items))


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
        error_messages={"min_length": "Choose at least one text column."},
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
    taken = [column for column in [*added_columns(columns), *map(reviewed_column, columns)] if column in header]
    if taken:
        errors["text_columns"] = errors.get("text_columns", []) + [
            f"{upload.original_name} already has a column {name!r}, the name of a column this job adds (a verdict, "
            "a review or, in the reviewed file, a reviewed column)" for name in taken]
    record = None
    try:
        record = artifacts.resolve(TrainedLocationModel, upload.owner, params["model"], what="model")
    except LookupError as exc:
        errors["model"] = [str(exc)]
    if params.get("remove_time"):
        if record is not None and record.language != time_removal.LANGUAGE:
            errors["remove_time"] = [f"Time expressions are found in English posts only; the model {record.name!r} "
                                     f"is for {record.language!r} posts."]
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


def deidentify_rewrite(job: Job):
    """The rewrite of a de-identify-posts job's rows (``csv_parts``): every non-empty post through what the
    inspect page does (time first when asked, then the location; the verdict on the released text, re-tokenized
    and re-scored), the released text written in its cell, the verdict and the names to review in the added
    columns. State: counts per column, a sample of changed posts, and the rows that are not English when time goes
    too."""
    params = dict(job.params)
    options = inspect_options(params)
    names = list(params["text_columns"])
    upload_name = job.inputs.get().original_name

    def rewrite(header, records, writer, progress) -> dict:
        indices = column_indices(header, names, upload_name)
        counts = [{"name": name, "posts": 0, "empty": 0, "changed": 0, "units_deleted": 0, "inferable_before": 0,
                   "with_review": 0, **dict.fromkeys(VERDICTS, 0)} for name in names]
        sample: list[dict] = []
        refused: list[tuple[int, str, str]] = []
        done = 0
        for batch in batches(records, BATCH_ROWS):
            first, done = done, done + len(batch)
            if options.remove_time:
                refused.extend(time_removal.not_english_rows(batch, indices, names, first))
            if refused:
                continue  # the job will fail: only look for the other rows to name
            verdicts = [[""] * len(names) for _ in batch]
            reviews = [[""] * len(names) for _ in batch]
            released: list[list[str | None]] = [[None] * len(names) for _ in batch]
            for n, (column, counted) in enumerate(zip(indices, counts, strict=True)):
                positions = [i for i, row in enumerate(batch) if row[column].strip()]
                counted["empty"] += len(batch) - len(positions)
                if not positions:
                    continue
                try:
                    inspection = services.inspect_posts(job.owner, [batch[i][column] for i in positions], options,
                                                        in_job=True)
                except serializers.ValidationError as exc:  # the model or patterns job went away since queueing
                    raise UserFacingError(f"The job's options no longer hold: {exc.detail}") from exc
                except ComputeLimit as exc:  # one post past the deadline every inspection has: name its row
                    row = first + positions[exc.post] if exc.post is not None else "?"
                    raise UserFacingError(f"Row {row}, column {names[n]!r}: {exc.detail}") from exc
                for i, result in zip(positions, inspection.results, strict=True):
                    status = result["verdict"]["status"]
                    counted["posts"] += 1
                    counted[status] += 1
                    counted["units_deleted"] += len(result["deleted"])
                    counted["inferable_before"] += not result["before"]["under_threshold"]
                    verdicts[i][n] = status
                    reviews[i][n] = review_cell(result["verdict"]["review"])
                    counted["with_review"] += bool(reviews[i][n])
                    released[i][n] = result["text_after"]
            for i, row in enumerate(batch):  # row by row, so the sample is the same whatever the parts
                for n, (column, counted) in enumerate(zip(indices, counts, strict=True)):
                    if released[i][n] is not None and released[i][n] != row[column]:
                        counted["changed"] += 1
                        if len(sample) < SAMPLE_SIZE:
                            sample.append({"row": first + i, "column": counted["name"], "before": row[column],
                                           "after": released[i][n], "verdict": verdicts[i][n],
                                           "review": reviews[i][n]})
                        row[column] = released[i][n]
            writer.writerows(row + [cell for pair in zip(verdict, review, strict=True) for cell in pair]
                             for row, verdict, review in zip(batch, verdicts, reviews, strict=True))
            progress(done)
        return {"counts": counts, "sample": sample, "refused": refused}

    return rewrite


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
    released = _verdicts_in(output, names)
    model = selectors.load_location_model(record)
    strength = model_strength(model.metadata)
    report = {"input": upload.original_name, "rows": sum(part.rows for part in parts), "text_columns": names,
              "verdict_columns": [verdict_column(name) for name in names],
              "review_columns": [review_column(name) for name in names], "columns": counts,
              # Re-read from the written file: the verdicts it carries, and its rows with names to review (under
              # "with_review"), per text column.
              "released_verdicts": released,
              "model": {"id": str(record.id), "name": record.name, "version": record.version,
                        "threshold": model.threshold.value, "strength": strength,
                        "human_model": bool(selectors.human_scorers(record))},
              "options": {key: job.params.get(key) for key in ("remove_time", "time_mode", "keep_time",
                                                                "remove_how_long", "time_patterns", "replacement",
                                                                "places", "keep")},
              "seconds": round(time.perf_counter() - started, 3), "parts": len(parts) if len(parts) > 1 else 0}
    mismatch = [c["name"] for c in counts if {v: c[v] for v in (*VERDICTS, "with_review")} != released[c["name"]]]
    if mismatch:  # what was counted is not what was written: nothing is released on a report that is not true
        raise UserFacingError(f"The written file's verdicts differ from those counted for {', '.join(mismatch)}; "
                              "nothing was stored. Please report it.")
    stem = upload.stem("posts")
    named = {"model": record.name, "remove_time": bool(job.params.get("remove_time"))}
    run.add_result_file(result_file_name(DEIDENTIFY_KIND, stem, named, "deidentified.csv"), output, "text/csv")
    run.add_result(result_file_name(DEIDENTIFY_KIND, stem, named, "deidentified.report.json"),
                   json.dumps(report, indent=1, ensure_ascii=False).encode(), "application/json")
    return {**report, "sample": sample[:SAMPLE_SIZE]}


def _verdicts_in(path, names: list[str]) -> dict[str, dict[str, int]]:
    """How many rows of the written file carry each verdict, and how many a non-empty review cell
    ("with_review"), per text column (the file read back)."""
    out = {name: dict.fromkeys((*VERDICTS, "with_review"), 0) for name in names}
    with path.open("rb") as handle:
        source = CsvSource(handle)
        positions = {name: (source.header.index(verdict_column(name)), source.header.index(review_column(name)))
                     for name in names}
        for batch in source.batches():
            for row in batch:
                for name, (verdict, review) in positions.items():
                    if row[verdict] in VERDICTS:
                        out[name][row[verdict]] += 1
                    out[name]["with_review"] += bool(row[review])
    return out


register(JobKind(name=DEIDENTIFY_KIND, label="De-identify the location of every post of a file",
                 run=run_deidentify_posts, params_serializer=DeidentifyPostsParams, inputs=1,
                 prepare=prepare_deidentify, summary_template="jobs/summary/deidentify_posts.html",
                 title="De-identify the posts of",
                 run_chunk=lambda job, work: rewrite_part(job, work, deidentify_rewrite(job)),
                 distinguishing=(Distinguishing("time_mode", "mode={}", "mode-{}"),
                                 Distinguishing("replacement", "replacement={}", "{}")),
                 upload_actions=(UploadAction("de-identify posts", "location-deidentify-posts", position=40),)))
