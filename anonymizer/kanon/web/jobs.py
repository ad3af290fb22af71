"""The k-anonymization job: an uploaded CSV, a configuration (ours or rx-anon's YAML), run on a worker with
stage-by-stage progress; the anonymized CSV and the report are its results. The configuration is validated
against the upload's columns before the job is queued (``prepare``), from the configure page as from the API."""

from __future__ import annotations

import json
import shutil
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from rest_framework import serializers

from anonymizer.kanon.config import (
    ConfigError,
    KanonConfig,
    check_config_size,
    config_from_profile,
    load_config,
    validate,
)
from anonymizer.kanon.partition import TooFewPersons
from anonymizer.kanon.pipeline import anonymize_csv
from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.registry import JobKind, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.profile import PROFILE_JOB

KIND = "kanon"
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
            raise serializers.ValidationError("Give exactly one of config and config_yaml.")
        return data


def refuse_large_config(size: int, field: str | None = None) -> None:
    """A configuration text or file of `size` bytes over KANON_CONFIG_MAX_BYTES is refused before it is read
    or parsed: ValidationError naming `field` (or, without one, for the field being validated)."""
    try:
        check_config_size(size, settings.KANON_CONFIG_MAX_BYTES)
    except ConfigError as exc:
        raise serializers.ValidationError({field: [exc.message]} if field else [exc.message]) from None


def config_for(upload: Upload, params: dict) -> KanonConfig:
    """The validated configuration of a job's parameters against the upload's columns."""
    columns = upload.metadata.get("header", [])
    if "config_yaml" in params:
        return load_config(params["config_yaml"], columns=columns, max_bytes=settings.KANON_CONFIG_MAX_BYTES)
    config = KanonConfig.from_dict(params["config"])
    validate(config, columns)
    return config


def prepare(params: dict, inputs: list) -> dict:
    """Validate before queueing; store the configuration in our schema so the job page shows what ran."""
    try:
        config = config_for(inputs[0], params)
    except ConfigError as exc:
        raise serializers.ValidationError({"config": [str(error) for error in getattr(exc, "errors", [exc])]}) from exc
    return {"config": config.to_dict()}


def default_config(upload: Upload) -> KanonConfig | None:
    """Prefilled from the newest successful profile of the upload, when there is one."""
    profile = upload.jobs.filter(kind=PROFILE_JOB, status=Job.Status.SUCCEEDED).order_by("-finished_at").first()
    return config_from_profile(profile.result) if profile is not None else None


def recognizer_for(config: KanonConfig):
    """The TermRecognizer of a configuration, kept in each worker process (loading spaCy takes seconds)."""
    return _recognizer(config.nlp_model, tuple(config.entity_types), config.custom_entities)


@lru_cache(maxsize=1)  # one model in memory per worker process
def _recognizer(model: str, entity_types: tuple[str, ...], custom_entities: tuple):
    from anonymizer.kanon.recognize import TermRecognizer

    return TermRecognizer(model=model, entity_types=entity_types, custom_entities=custom_entities,
                          n_process=settings.KANON_NER_PROCESSES)


def _source_path(upload: Upload, run: JobRun) -> Path:
    try:
        return Path(upload.file.path)
    except NotImplementedError:  # remote storage: the pipeline reads the file three times, so copy it once
        path = run.scratch_path("source.csv")
        with upload.file.open("rb") as source, path.open("wb") as target:
            shutil.copyfileobj(source, target)
        return path


def run_kanon(job: Job, run: JobRun) -> dict:
    from anonymizer.kanon.recognize import TermCache, recognize_with_cache

    upload = job.inputs.get()
    try:
        config = config_for(upload, job.params)
    except ConfigError as exc:
        raise UserFacingError(f"The configuration is invalid: {exc}") from exc
    output = run.scratch_path("anonymized.csv")
    cache_path = Path(settings.KANON_CACHE_PATH)
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = TermCache(cache_path)
    try:
        recognizer = recognizer_for(config) if config.text_columns else None

        def recognize(texts):
            return recognize_with_cache(texts, recognizer, cache)

        report = anonymize_csv(_source_path(upload, run), config, output, recognize=recognize, progress=run.progress,
                               neutralize_formulas=settings.CSV_NEUTRALIZE_FORMULAS)
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc
    except TooFewPersons as exc:
        raise UserFacingError(str(exc)) from exc
    finally:
        cache.close()
    stem = upload.stem("dataset")
    report = {"input": upload.original_name, **report, "config": config.to_dict()}
    run.add_result_file(f"{stem}.k{config.k}.anonymized.csv", output, "text/csv")
    run.add_result(f"{stem}.k{config.k}.report.json", json.dumps(report, indent=1, ensure_ascii=False).encode(),
                   "application/json")
    return report


register(JobKind(name=KIND, label="k-anonymize a dataset (rx-anon)", run=run_kanon, params_serializer=KanonParams,
                 inputs=1, summary_template="jobs/summary/kanon.html", prepare=prepare))
