"""One k-anonymization run of a CSV file as every door runs it: the web job (``kanon.web.jobs``), the
``kakurega kanon`` command and ``kakurega.kanon_csv``. What the released file depends on is decided here, once:
the configuration as a queued job reads it (our schema's JSON, checked against the file's header), the
recognizer of a configuration, the persons check before the work, and the report around the pipeline's.

The doors differ only in where the term cache lives (the web's database, a file in the user's cache folder) and
in who recognizes the texts (the job's parts on every worker, or this process)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from anonymizer.kanon.config import MAX_CONFIG_BYTES, KanonConfig, load_config, validate
from anonymizer.kanon.pipeline import Progress, SpreadInParts, anonymize_csv
from anonymizer.kanon.table import MISSING
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource

if TYPE_CHECKING:
    from anonymizer.recognize import TermRecognizer


def config_of_params(params: Mapping, columns: Sequence[str], max_bytes: int = MAX_CONFIG_BYTES) -> KanonConfig:
    """The validated configuration of a job's parameters (``{"config_yaml": text}``, rx-anon's format accepted,
    or ``{"config": our schema}``) against the file's header ``columns``. ConfigError naming every bad field."""
    if "config_yaml" in params:
        return load_config(params["config_yaml"], columns=columns, max_bytes=max_bytes)
    config = KanonConfig.from_dict(params["config"])
    validate(config, columns)
    return config


def as_queued(config: KanonConfig, columns: Sequence[str]) -> KanonConfig:
    """``config`` as a queued job runs it: stored as our schema's JSON (what a job's ``prepare`` keeps) and read
    back, checked against ``columns``. ConfigError naming every bad field (a run parameter out of range)."""
    return config_of_params({"config": json.loads(json.dumps(config.to_dict(), ensure_ascii=False))}, columns)


def with_run_options(config: KanonConfig, **options: object) -> KanonConfig:
    """``config`` with the run parameters given (``RunParameters``' names; None keeps the configuration's)."""
    given = {name: value for name, value in options.items() if value is not None}
    return config.with_run(dataclasses.replace(config.run_parameters, **given)) if given else config


def header_of(source: Path) -> list[str]:
    """The CSV header of ``source`` as an upload's is read. CsvFormatError (with its row) for a bad file."""
    with source.open("rb") as handle:
        return list(CsvSource(handle).header)


def count_persons(fileobj: BinaryIO, column: str, k: int) -> int | None:
    """The distinct present values of ``column`` (as the run groups rows: stripped, missing ones left out),
    counted by streaming the file and stopping at k; None if the file cannot be read (the run reports why)."""
    try:
        source = CsvSource(fileobj)
        if column not in source.header:
            return None
        index = source.header.index(column)
        persons: set[str] = set()
        for batch in source.batches():
            persons.update(value for value in (record[index].strip() for record in batch)
                           if value.casefold() not in MISSING)
            if len(persons) >= k:
                return len(persons)
        return len(persons)
    except (CsvFormatError, OSError):
        return None


def too_few_persons_message(persons: int | None, k: int, column: str) -> str | None:
    """Why k cannot be reached in a file of ``persons`` persons (distinct values of ``column``); None when it
    has enough or when that cannot be told before the run."""
    if persons is None or persons >= k:
        return None
    noun = "person" if persons == 1 else "persons"
    hint = f"choose k from 2 to {persons}" if persons >= 2 else "k-anonymity needs at least 2 persons"
    return f"k = {k} is more than the {persons:,} {noun} in this file (distinct values of {column!r}); {hint}"


def recognizer_for(config: KanonConfig, processes: int = 1) -> TermRecognizer:
    """The TermRecognizer of a configuration, kept in the process (loading spaCy takes seconds); ``processes``
    are spaCy's for the texts not cached (the terms found are the same whatever their number)."""
    return _recognizer(config.nlp_model, tuple(config.entity_types), config.custom_entities, processes)


@lru_cache(maxsize=1)  # one model in memory per process
def _recognizer(model: str, entity_types: tuple[str, ...], custom_entities: tuple, processes: int):
    from anonymizer.recognize import TermRecognizer

    return TermRecognizer(model=model, entity_types=entity_types, custom_entities=custom_entities,
                          n_process=processes)


def anonymize_file(source: Path, config: KanonConfig, output: Path, *, input_name: str, cache,
                   processes: int = 1, progress: Progress | None = None, neutralize_formulas: bool = True,
                   review_output: Path | None = None, fan_out: Callable[[Progress], None] | None = None,
                   spread_in_parts: SpreadInParts | None = None, parts: Mapping[str, int] | None = None) -> dict:
    """The pipeline (``pipeline.anonymize_csv``) on ``source`` into ``output``, the texts recognized through
    ``cache`` (a ``TermCache``: the web's database, or an SQLite file), and its report as the job keeps it:
    the input's name first, how recognition went (``parts``: what the caller's ``fan_out`` did, read once the
    run is over; texts read from the cache and recognized by this process) and the configuration that ran.
    Raises CsvFormatError (row and column) and TooFewPersons as the pipeline does."""
    from anonymizer.recognize import recognize_with_cache

    recognizer = recognizer_for(config, processes) if config.text_columns else None
    counts: dict[str, int] = {}

    def recognize(texts, on_characters=None):
        return recognize_with_cache(texts, recognizer, cache, on_characters=on_characters, counts=counts)

    report = anonymize_csv(source, config, output, recognize=recognize, progress=progress,
                           neutralize_formulas=neutralize_formulas, cache=cache, fan_out=fan_out,
                           spread_in_parts=spread_in_parts,
                           review_output=review_output if config.text_columns else None)
    # How recognition went: texts read from the cache, texts recognized by this run's own process after the
    # parts (none when the parts covered the file), and the parts and the worker processes that ran them
    # (those of string-level recoding's parts as ``spread_workers``, when it was not read from the cache).
    return {"input": input_name, **report, "recognition": {**(parts or {}), **counts}, "config": config.to_dict()}


def report_bytes(report: dict) -> bytes:
    """The report as the job's ``report.json`` holds it."""
    return json.dumps(report, indent=1, ensure_ascii=False).encode()
