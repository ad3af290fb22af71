"""The k-anonymization job: an uploaded CSV, a configuration (ours or rx-anon's YAML), run on a worker with
stage-by-stage progress; the anonymized CSV and the report are its results, named after the upload and the
run (``blogs.k5.lambda0.5.anonymized.csv``). Before the job is queued (``prepare``), from the
configure page as from the API, the configuration is validated against the upload's columns and k against the
number of persons in the file, so what cannot succeed is refused in seconds rather than after the NER."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy, ngettext
from rest_framework import serializers

from anonymizer.kanon.config import ConfigError, KanonConfig, check_config_size
from anonymizer.kanon.occurrences import OccurrenceSpreader
from anonymizer.kanon.partition import TooFewPersons
from anonymizer.kanon.pipeline import merge_parts, spread_labels, spread_part, texts_in_span
from anonymizer.kanon.run import (
    anonymize_file,
    config_of_params,
    count_persons,
    recognizer_for,
    report_bytes,
    too_few_persons_message,
)
from anonymizer.kanon.terms import RowTerms
from anonymizer.kanon.web import selectors
from anonymizer.kanon.web.selectors import KIND
from anonymizer.kanon.web.term_cache import DatabaseTermCache
from anonymizer.models import Job, JobResult, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.i18n import user_message
from anonymizer.platform.jobs.chunks import ChunkWork
from anonymizer.platform.jobs.describe import result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.spans import record_spans

MAX_RUNS = 30  # runs one configure form may start (k values x lambda values)


class KanonParams(serializers.Serializer):
    config = serializers.JSONField(required=False, help_text="A configuration in Kakurega's schema (see the job page).")
    config_yaml = serializers.CharField(required=False, help_text="Or a YAML / JSON text, rx-anon's format accepted.")

    def validate_config(self, value):
        refuse_large_config(len(json.dumps(value, ensure_ascii=False).encode("utf-8")))
        return value

    def validate_config_yaml(self, text: str) -> str:
        refuse_large_config(len(text.encode("utf-8", errors="surrogatepass")))
        return text

    def validate(self, data: dict) -> dict:
        if ("config" in data) == ("config_yaml" in data):
            raise serializers.ValidationError(gettext("Give exactly one of config and config_yaml."))
        return data


def refuse_large_config(size: int, field: str | None = None) -> None:
    """A configuration text or file of `size` bytes over KANON_CONFIG_MAX_BYTES is refused before it is read
    or parsed: ValidationError naming `field` (or, without one, for the field being validated)."""
    try:
        check_config_size(size, settings.KANON_CONFIG_MAX_BYTES)
    except ConfigError as exc:
        raise serializers.ValidationError({field: [exc.message]} if field else [exc.message]) from None


def config_error_text(error: ConfigError) -> str:
    """One problem of a configuration as a person reads it: its field as the configuration spells it, and its
    message in the request's language (a catalog text) or as the core wrote it; in English, str(error)."""
    return gettext("%(field)s: %(problem)s") % {"field": error.field, "problem": user_message(error)}


def config_for(upload: Upload, params: dict) -> KanonConfig:
    """The validated configuration of a job's parameters against the upload's columns."""
    return config_of_params(params, upload.metadata.get("header", []), settings.KANON_CONFIG_MAX_BYTES)


def prepare(params: dict, inputs: list) -> dict:
    """Validate before queueing; store the configuration in our schema so the job page shows what ran."""
    try:
        config = config_for(inputs[0], params)
    except ConfigError as exc:
        raise serializers.ValidationError({"config": [config_error_text(error) for error in exc.errors]}) from exc
    problem = too_few_persons(inputs[0], config)
    if problem:
        raise serializers.ValidationError({"k": [problem]})
    return {"config": config.to_dict()}


def too_few_persons(upload: Upload, config: KanonConfig) -> str | None:
    """Why ``config.k`` cannot be reached in the upload, which has fewer persons (distinct values of the direct
    identifier) than k; None when it has enough or when that cannot be told before the run.

    The upload's profile tells the number when it was counted exactly, or that there are at least as many as
    it counted; otherwise the column is read, only until k distinct values were seen (so a file that has
    enough persons is read no further than its first rows)."""
    column = config.direct_identifier
    persons = _profiled_persons(upload, column, config.k)
    if persons is None:
        persons = _count_persons(upload, column, config.k)
    if too_few_persons_message(persons, config.k, column) is None:
        return None
    # The core's message (too_few_persons_message), in the request's language.
    values = {"k": config.k, "persons": f"{persons:,}", "column": repr(column)}
    if persons >= 2:
        return gettext("k = %(k)s is more than the %(persons)s persons in this file (distinct values of %(column)s); "
                       "choose k from 2 to %(persons)s") % values
    return ngettext("k = %(k)s is more than the %(persons)s person in this file (distinct values of %(column)s); "
                    "k-anonymity needs at least 2 persons",
                    "k = %(k)s is more than the %(persons)s persons in this file (distinct values of %(column)s); "
                    "k-anonymity needs at least 2 persons", persons) % values


def _profiled_persons(upload: Upload, column: str, k: int) -> int | None:
    """The distinct values of ``column`` by the upload's profile when they decide whether there are k persons:
    the exact count, or a capped one of at least k; None when the profile does not tell."""
    profile = selectors.newest_profile(upload)
    header = upload.metadata.get("header", [])
    if profile is None or column not in header:
        return None
    index = header.index(column)
    for entry in profile.get("columns", []):
        if not isinstance(entry, dict) or entry.get("index") != index or entry.get("name") != column:
            continue
        distinct = entry.get("distinct")
        if not isinstance(distinct, int) or isinstance(distinct, bool):
            return None
        if entry.get("distinct_capped", False):  # at least this many: decides only when that is enough
            return distinct if distinct >= k else None
        return distinct
    return None


def _count_persons(upload: Upload, column: str, k: int) -> int | None:
    """The persons of the upload, counted up to k (``run.count_persons``)."""
    try:
        with upload.file.open("rb") as fileobj:
            return count_persons(fileobj, column, k)
    except OSError:
        return None


def _source_path(upload: Upload, run: JobRun) -> Path:
    try:
        return Path(upload.file.path)
    except NotImplementedError:  # remote storage: the pipeline reads the file three times, so copy it once
        path = run.scratch_path("source.csv")
        with upload.file.open("rb") as source, path.open("wb") as target:
            shutil.copyfileobj(source, target)
        return path


def run_kanon(job: Job, run: JobRun) -> dict:
    upload = job.inputs.get()
    try:
        config = config_for(upload, job.params)
    except ConfigError as exc:
        raise UserFacingError(gettext("The configuration is invalid: %(problems)s") % {
            "problems": "; ".join(config_error_text(error) for error in exc.errors)}) from exc
    output = run.scratch_path("anonymized.csv")
    review = run.scratch_path("left_for_review.csv")
    source = _source_path(upload, run)
    parts: dict[str, int] = {"parts": 0}
    spans: list[tuple[int, int]] = []

    def fan_out(progress) -> None:
        """The texts recognized in parts by every free worker, into the shared cache."""
        with source.open("rb") as handle:
            spans[:] = record_spans(handle, settings.JOB_CHUNK_BYTES, CsvSource(handle).delimiter)
        if len(spans) > 1:
            run.fan_out(spans, progress=lambda done, total, message: progress(
                done, total, f"recognizing sensitive terms: {message}"), step=RECOGNIZE)
            parts.update(parts=len(spans), workers=selectors.part_workers(job, RECOGNIZE))

    def spread_in_parts(spreader: OccurrenceSpreader, progress) -> str | None:
        """String-level recoding's adding pass in parts, with the strings learned from all texts."""
        joined = spread_spans(spans)
        if len(joined) <= 1:
            return None
        learned = json.dumps(spreader.state(), ensure_ascii=False).encode("utf-8", "surrogatepass")
        outputs = run.fan_out(joined, progress=lambda done, total, message: progress(
            done, total, f"recoding every occurrence of the recognized strings: {message}"), step=SPREAD,
                              shared=learned)
        changes = merge_parts(outputs)
        parts.update(spread_workers=selectors.part_workers(job, SPREAD))
        return changes

    try:
        # The run every door shares (``kanon.run``): the job adds its term cache in the database, its parts on
        # every free worker and the site's settings.
        report = anonymize_file(source, config, output, input_name=upload.original_name, cache=DatabaseTermCache(),
                                processes=settings.KANON_NER_PROCESSES, progress=run.progress,
                                neutralize_formulas=settings.CSV_NEUTRALIZE_FORMULAS, review_output=review,
                                fan_out=fan_out, spread_in_parts=spread_in_parts, parts=parts)
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc
    except TooFewPersons as exc:
        raise UserFacingError(str(exc)) from exc
    run.add_result_file(result_name(upload, config, "anonymized.csv"), output, "text/csv")
    if config.text_columns:  # the words of the released texts a reviewer reads first (``kanon.review``)
        run.add_result_file(result_name(upload, config, "left_for_review.csv"), review, "text/csv")
    run.add_result(result_name(upload, config, "report.json"), report_bytes(report), "application/json")
    return report


#: The passes of a k-anonymization job fanned out over the workers (``ChunkWork.step``).
RECOGNIZE, SPREAD = "recognize", "spread"
#: A part of string-level recoding is this many parts of recognition put together: it spends about a
#: millisecond on a post where NER spends a hundred, so what every part costs (its claim, reading the upload's
#: header and the job's configuration, its queries) would otherwise be a good share of its work.
SPREAD_SPANS_PER_PART = 8


def spread_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The byte ranges of string-level recoding's parts: recognition's (``spans``), consecutive ones joined."""
    return [(spans[i][0], spans[min(i + SPREAD_SPANS_PER_PART, len(spans)) - 1][1])
            for i in range(0, len(spans), SPREAD_SPANS_PER_PART)]


def run_part(job: Job, work: ChunkWork) -> bytes | None:
    """One part (a byte range of the upload) of one of a job's fanned-out passes, on any worker."""
    return spread_part_of(job, work) if work.step == SPREAD else recognize_part(job, work)


def _part_texts(job: Job, work: ChunkWork) -> tuple[KanonConfig, list[str], list[str]]:
    """The job's configuration, and the texts of the part with each one's person (``pipeline.texts_in_span``)."""
    upload = job.inputs.get()
    config = config_for(upload, job.params)
    with upload.file.open("rb") as handle:
        texts, persons = texts_in_span(handle, work.start, work.end, config)
    return config, texts, persons


def recognize_part(job: Job, work: ChunkWork) -> None:
    """One part of a job's texts recognized into the shared term cache. Idempotent: what is cached already is
    only looked up."""
    config, texts, _ = _part_texts(job, work)
    for _ in _recognized(config, texts, work):
        pass


def _recognized(config: KanonConfig, texts: list[str], work: ChunkWork):
    from anonymizer.recognize import recognize_with_cache

    return recognize_with_cache(texts, recognizer_for(config, settings.KANON_NER_PROCESSES), DatabaseTermCache(),
                                chunk=50,
                                progress=lambda done, message: work.check(),
                                on_characters=lambda characters: work.check())


def spread_part_of(job: Job, work: ChunkWork) -> bytes:
    """String-level recoding's adding pass on one part of a job's texts, with the strings the job learned from
    all of them (the pass's shared input): the part's changes (``pipeline.spread_part``). The texts' terms are
    read from the shared term cache, which the recognition pass filled. Idempotent: it only reads."""
    spreader = work.shared_input(_spreader)
    config, texts, persons = _part_texts(job, work)
    terms = RowTerms(1)
    for found in _recognized(config, texts, work):
        terms.append(found)
    terms = terms.only(spread_labels(config))
    work.check()
    return spread_part(spreader, texts, terms, persons)


def _spreader(learned: bytes) -> OccurrenceSpreader:
    return OccurrenceSpreader.from_state(json.loads(learned.decode("utf-8", "surrogatepass")))


def result_name(upload: Upload, config: KanonConfig, what: str) -> str:
    """The name a run's file is downloaded as: the upload's name, then the run's k and λ (or "gdf" for the GDF
    baseline), then ``what``: ``blogs.k5.lambda0.5.anonymized.csv``, ``blogs.k5.gdf.report.json``. So the files
    of one dataset's runs never share a name. Bounded as result names are: the upload's stem is cut
    (Upload.stem), and cut further if the whole would not fit JobResult.name."""
    return result_file_name(KIND, upload.stem("dataset"), {"config": config.to_dict()}, what,
                            max_chars=JobResult._meta.get_field("name").max_length)


def _gdf_has_no_lambda(parameter) -> tuple[str, str] | None:
    """A GDF run (the baseline without λ) says "GDF" where a Mondrian run gives its λ."""
    return ("GDF", "gdf") if parameter("strategy") == "gdf" else None


register(JobKind(name=KIND, label="k-anonymize a dataset (rx-anon)", run=run_kanon, params_serializer=KanonParams,
                 inputs=1, summary_template="jobs/summary/kanon.html", prepare=prepare, title="k-anonymize",
                 run_chunk=run_part,
                 distinguishing=(Distinguishing("k", "k={}", "k{}"),
                                 Distinguishing("relational_weight", "λ={}", "lambda{}", instead=_gdf_has_no_lambda)),
                 upload_actions=(UploadAction(gettext_lazy("k-anonymize"), "kanon-configure", position=10),
                                 UploadAction(gettext_lazy("runs"), "kanon-compare", position=20))))
