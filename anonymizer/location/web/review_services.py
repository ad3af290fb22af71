"""Writes of a file's review: the owner's decisions on the posts a de-identify-posts job left for review, each
validated against the job's result file (a row it holds, one of its text columns, spans of the released text, an
edit that is not empty), all of a request or none. The job's result file is never written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from anonymizer.location import file_review
from anonymizer.location.file_review import Span
from anonymizer.location.web import review_selectors
from anonymizer.models import Job, ReviewedRow

# What a request asks for a post: keep the released text, delete spans of it, delete the whole post (explicitly:
# an edit or a deletion that leaves nothing is refused), replace it with an edit, or forget the review.
ACCEPT, DELETE, DELETE_POST, EDIT, CLEAR = "accept", "delete", "delete_post", "edit", "clear"
ACTIONS = (ACCEPT, DELETE, DELETE_POST, EDIT, CLEAR)
EMPTY = gettext_lazy("The post would be left empty; to delete the whole post, say so explicitly (delete_post; the "
                     "key X on the review page).")


@dataclass(frozen=True)
class ReviewRequest:
    """One decision on one post: its row in the result file (the header is row 1) and its text column."""

    row: int
    column: str
    action: str
    spans: tuple[Span, ...] = ()  # DELETE: spans of the released text
    text: str = ""  # EDIT: the new text


def _decide(request: ReviewRequest, released: str) -> tuple[str, str, list[list[int]]]:
    """(stored action, reviewed text, deleted spans) of one request on its released text; ValidationError by
    field."""
    if request.action == ACCEPT:
        return file_review.ACCEPTED, released, []
    if request.action == DELETE_POST:
        return file_review.DELETED, "", [[0, len(released)]]
    if request.action == DELETE:
        if not request.spans:
            raise serializers.ValidationError({"spans": [
                gettext("Name at least one span of the released text to delete.")]})
        try:
            spans = file_review.check_spans(released, request.spans)
            text = file_review.delete_spans(released, spans)
        except ValueError as exc:
            raise serializers.ValidationError({"spans": [str(exc)]}) from exc
        if not text.strip():
            raise serializers.ValidationError({"spans": [EMPTY]})
        return file_review.DELETED, text, [[span.start, span.end] for span in spans]
    if request.action == EDIT:
        if not request.text.strip():
            raise serializers.ValidationError({"text": [EMPTY]})
        if request.text == released:  # nothing changed: the released text is accepted as it is
            return file_review.ACCEPTED, released, []
        return file_review.EDITED, request.text, []
    raise serializers.ValidationError({"action": [gettext("One of %(actions)s, not %(action)r.") % {
        "actions": ", ".join(ACTIONS), "action": request.action}]})


def save_reviews(user: AbstractBaseUser, job: Job, requests: Sequence[ReviewRequest]) -> list[ReviewedRow | None]:
    """Store the decisions (one per post: a new one replaces the one before; CLEAR forgets it), all or none:
    every request is checked against the result file first, and a ValidationError lists the faults by request's
    position (``{"reviews": {index: {field: [message]}}}``, as DRF gives a list's faults) with nothing written.
    Returns each post's stored review (None once cleared)."""
    names = review_selectors.text_columns(job)
    errors: dict[int, dict] = {}
    seen: dict[tuple[int, str], int] = {}
    for index, request in enumerate(requests):
        if request.column not in names:
            errors[index] = {"column": [gettext("%(column)r is not a text column of this job; its text columns are "
                                                "%(columns)s.") % {"column": request.column,
                                                                   "columns": ", ".join(names)}]}
        elif (request.row, request.column) in seen:
            errors[index] = {"row": [gettext("Row %(row)d, column %(column)r is already decided by review %(other)d of "
                                             "this request.") % {"row": request.row, "column": request.column,
                                                                 "other": seen[(request.row, request.column)] + 1}]}
        seen.setdefault((request.row, request.column), index)
    released = review_selectors.released_cells(job, {(r.row, r.column) for r in requests if r.column in names})
    decided: list[tuple[ReviewRequest, tuple[str, str, list[list[int]]] | None]] = []
    for index, request in enumerate(requests):
        if index in errors:
            continue
        if (request.row, request.column) not in released:
            rows = (job.result or {}).get("rows")
            errors[index] = {"row": [gettext("The result has no row %(row)d (its rows are 2 to %(last)d, the header "
                                             "being row 1).") % {"row": request.row, "last": rows + 1} if rows else
                                     gettext("The result has no row %(row)d.") % {"row": request.row}]}
            continue
        if request.action == CLEAR:
            decided.append((request, None))
            continue
        try:
            decided.append((request, _decide(request, released[(request.row, request.column)])))
        except serializers.ValidationError as exc:
            errors[index] = exc.detail
    if errors:  # the shape DRF gives a list's faults: by the decision's position
        raise serializers.ValidationError({"reviews": errors})
    now = timezone.now()
    stored: list[ReviewedRow | None] = []
    with transaction.atomic():
        for request, decision in decided:
            if decision is None:
                job.reviewed_rows.filter(row=request.row, column=request.column).delete()
                stored.append(None)
                continue
            action, text, spans = decision
            review, _ = ReviewedRow.objects.update_or_create(
                job=job, row=request.row, column=request.column,
                defaults={"action": action, "text": text, "deleted_spans": spans, "reviewed_by": user,
                          "reviewed_at": now})
            stored.append(review)
    return stored
