"""A person's review of a de-identified file, the pure part (no Django here): where the spans to check are in a
released text, what deleting spans of it leaves, and what a reviewed cell says.

The de-identify-posts job leaves a post for its owner to check when its verdict is not "pass" (a name no scorer
could resolve: "review"; a gazetteer place still named: "places"; a threshold not met: "fail") or its review
column lists names. The owner accepts the released text, deletes more of it (spans of the released text) or
edits it; the reviewed file is the job's result with those decisions applied and a `<column>_reviewed` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from anonymizer.location.release import remove_spans

# The verdicts that put a post on the review page (any verdict with a non-empty review list does too).
TO_REVIEW = ("review", "places", "fail")
# What the reviewed column says of a cell; empty when the owner did not review it.
ACCEPTED, DELETED, EDITED = "accepted", "deleted", "edited"


def reviewed_column(name: str) -> str:
    """The column the reviewed file adds, after the result's own, for text column ``name``."""
    return f"{name}_reviewed"


def review_names(cell: str, separator: str) -> list[str]:
    """The names of a review column's cell (joined by ``separator``), each once, in order."""
    return list(dict.fromkeys(name.strip() for name in cell.split(separator) if name.strip()))


def needs_review(verdict: str, review_cell: str) -> bool:
    return verdict in TO_REVIEW or bool(review_cell.strip())


@dataclass(frozen=True)
class Span:
    """[start, end) characters of a released text."""

    start: int
    end: int


@dataclass(frozen=True)
class Flag:
    """A span of the released text to check, and why: a name no scorer resolved ("review") or a gazetteer place
    inside the map ("place")."""

    start: int
    end: int
    kind: str
    text: str


# Two marked spans of one kind joined by one of these are one name to the reader ("Hy-Vee", listed as Hy and Vee).
_JOINERS = frozenset("-'’")


def _word_char(char: str) -> bool:
    """A letter or digit of a script that spaces its words (a Japanese name sits inside a run of letters)."""
    return char.isalnum() and ord(char) < 0x2E80


def _bounded(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is not the inside of a longer word ("Hy" in "Hyatt")."""
    before = start > 0 and _word_char(text[start - 1]) and _word_char(text[start])
    after = end < len(text) and _word_char(text[end]) and _word_char(text[end - 1])
    return not (before or after)


def flagged_spans(text: str, names: Sequence[str], places: Sequence[str] = ()) -> list[Flag]:
    """Every occurrence of each name (review) and place in ``text``, longest first where two overlap, in text
    order; two of a kind with only a hyphen or an apostrophe between them are one. A name is found as written
    (the job listed it from this very text)."""
    wanted = sorted({(name, "review") for name in names if name} | {(place, "place") for place in places if place},
                    key=lambda item: (-len(item[0]), item[1] != "review", item[0]))
    taken: list[Flag] = []
    for name, kind in wanted:
        position = text.find(name)
        while position >= 0:
            end = position + len(name)
            if _bounded(text, position, end) and not any(flag.start < end and position < flag.end for flag in taken):
                taken.append(Flag(position, end, kind, name))
            position = text.find(name, position + 1)
    merged: list[Flag] = []
    for flag in sorted(taken, key=lambda flag: flag.start):
        last = merged[-1] if merged else None
        if last is not None and last.kind == flag.kind and text[last.end:flag.start] in _JOINERS:
            merged[-1] = Flag(last.start, flag.end, flag.kind, text[last.start:flag.end])
        else:
            merged.append(flag)
    return merged


def check_spans(text: str, spans: Sequence[Span]) -> list[Span]:
    """The spans in text order; ValueError saying which one is out of the text, empty or overlaps another."""
    ordered = sorted(spans, key=lambda span: (span.start, span.end))
    for span in ordered:
        if not 0 <= span.start < span.end <= len(text):
            raise ValueError(f"The span [{span.start}, {span.end}] is not a non-empty part of the post's "
                             f"{len(text)} characters.")
    for before, after in pairwise(ordered):
        if after.start < before.end:
            raise ValueError(f"The spans [{before.start}, {before.end}] and [{after.start}, {after.end}] overlap.")
    return ordered


def delete_spans(text: str, spans: Sequence[Span]) -> str:
    """The text without the spans, as the de-identifier deletes a unit: a space left doubled, or left at the
    start of a line, is dropped, and so is white space at either end (release.build_release). ValueError for spans
    that do not fit the text."""
    return remove_spans(text, check_spans(text, spans))
