"""Reads of a de-identified file under review: the owner's succeeded de-identify-posts job, the rows it left for
review with the spans to check, the released cells a review names, and the reviewed file and its report, both
built from the job's result file as it was written (streamed, row by row) and the stored reviews."""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from anonymizer.location import file_review
from anonymizer.location.file_review import Flag
from anonymizer.location.inspect import places_left
from anonymizer.location.web import selectors
from anonymizer.location.web.jobs import DEIDENTIFY_KIND, REVIEW_SEPARATOR, review_column, verdict_column
from anonymizer.models import Job, JobResult, ReviewedRow, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.selectors import jobs_of
from anonymizer.tabular.export import neutralize_cell
from anonymizer.tabular.reader import CsvSource

RESULT_SUFFIX = ".deidentified.csv"
PAGE_ROWS = 50  # rows to review shown on one page


def review_job(user: AbstractBaseUser, job_id) -> Job | None:
    """The user's succeeded de-identify-posts job with this id and its result file; None for anyone else's job,
    another kind, a job that did not succeed, or one whose result file is gone (the page answers 404)."""
    if not user.is_authenticated:
        return None
    job = jobs_of(user).filter(id=job_id, kind=DEIDENTIFY_KIND, status=Job.Status.SUCCEEDED).first()
    result = result_of(job) if job is not None else None
    # A file gone from storage is a 404 too, not a crash half-way through a streamed download.
    return job if result is not None and result.file.storage.exists(result.file.name) else None


def result_of(job: Job) -> JobResult | None:
    return job.results.filter(name__endswith=RESULT_SUFFIX).first()


def text_columns(job: Job) -> list[str]:
    return list(job.params.get("text_columns") or [])


@dataclass(frozen=True)
class _Columns:
    """Where each text column's cells are in the result file (a review column absent, -1: a result written before
    the job added them)."""

    text: dict[str, int]
    verdict: dict[str, int]
    review: dict[str, int]


def _columns(header: tuple[str, ...], names: list[str]) -> _Columns:
    index = {name: i for i, name in enumerate(header)}
    return _Columns(text={name: index[name] for name in names},
                    verdict={name: index.get(verdict_column(name), -1) for name in names},
                    review={name: index.get(review_column(name), -1) for name in names})


@contextlib.contextmanager
def _result_records(job: Job) -> Iterator[tuple[CsvSource, Iterator[tuple[int, list[str]]]]]:
    """The result file's reader and its records numbered as in the file (the header is row 1)."""
    result = result_of(job)
    with result.file.open("rb") as handle:
        source = CsvSource(handle)

        def numbered() -> Iterator[tuple[int, list[str]]]:
            row = 1
            for batch in source.batches():
                for record in batch:
                    row += 1
                    yield row, record

        yield source, numbered()


def _cell(record: list[str], index: int) -> str:
    return record[index] if index >= 0 else ""


def released_cells(job: Job, wanted: set[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """The released text of each (row, text column) asked for that the result holds; the file is read until every
    one was found."""
    names = text_columns(job)
    found: dict[tuple[int, str], str] = {}
    rows = {row for row, _ in wanted}
    with _result_records(job) as (source, records):
        columns = _columns(source.header, names)
        for row, record in records:
            if row in rows:
                for name in names:
                    if (row, name) in wanted:
                        found[(row, name)] = record[columns.text[name]]
                if len(found) == len(wanted):
                    break
    return found


@dataclass
class RowToReview:
    """One post left for review: where it is, its verdict, the released text and the spans to check in it, and
    the owner's review so far (None when not reviewed)."""

    row: int
    column: str
    verdict: str
    released: str
    names: list[str]
    flags: list[Flag]
    review: ReviewedRow | None = None

    @property
    def key(self) -> str:
        return f"{self.row}:{self.column}"


@dataclass
class ReviewListing:
    rows: list[RowToReview] = field(default_factory=list)
    next_row: int | None = None  # where the next page starts, when there are more rows to review
    to_review: int = 0  # posts the job's report counts as left for review (review, places, fail)


def _places_model(job: Job):
    """The job's location model, to find the places its released texts still name; None when it is gone."""
    try:  # by id once the job was prepared, by name when it was created directly
        record = artifacts.resolve(TrainedLocationModel, job.owner, job.params.get("model") or "", what="model")
    except LookupError:
        return None
    return selectors.load_location_model(record)


def rows_to_review(job: Job, *, start: int = 2, limit: int = PAGE_ROWS) -> ReviewListing:
    """The posts of the result, from row ``start``, that the job left for review (file_review.needs_review), at
    most ``limit``, with the names of their review cell and, for a place or a failed threshold, the gazetteer's
    places still in the text flagged; each with its stored review."""
    names = text_columns(job)
    listing = ReviewListing(to_review=left_for_review(job))
    model = None
    with _result_records(job) as (source, records):
        columns = _columns(source.header, names)
        for row, record in records:
            if row < start:
                continue
            flagged = [(name, _cell(record, columns.verdict[name]), _cell(record, columns.review[name]))
                       for name in names]
            flagged = [cell for cell in flagged if file_review.needs_review(cell[1], cell[2])]
            if not flagged:
                continue
            if len(listing.rows) >= limit:  # a whole row per page: the next one starts with it
                listing.next_row = row
                break
            for name, verdict, review in flagged:
                released = record[columns.text[name]]
                places: list[str] = []
                if verdict in ("places", "fail"):
                    model = model or _places_model(job)
                    places = places_left(model, released) if model is not None else []
                listed = file_review.review_names(review, REVIEW_SEPARATOR)
                listing.rows.append(RowToReview(row=row, column=name, verdict=verdict, released=released,
                                                names=listed, flags=file_review.flagged_spans(released, listed,
                                                                                              places)))
    reviews = {(r.row, r.column): r for r in job.reviewed_rows.filter(row__in={r.row for r in listing.rows})}
    for item in listing.rows:
        item.review = reviews.get((item.row, item.column))
    return listing


# -- the reviewed file and its report -----------------------------------------------------------------------------
def reviewed_file_name(job: Job, what: str = "reviewed.csv") -> str:
    """"<stem>.deidentified.reviewed.csv" beside the result "<stem>.deidentified.csv"."""
    return result_of(job).name.removesuffix(".csv") + "." + what


class _Echo:
    """A file-like object whose write returns what it was given, for a csv writer feeding a streamed response."""

    def write(self, value: str) -> str:
        return value


def reviewed_csv(job: Job) -> Iterator[str]:
    """The job's result file with the stored reviews applied, row by row: a reviewed cell carries the reviewed
    text, every other cell is as the result wrote it, and a `<column>_reviewed` column per text column (after the
    result's own) says accepted, deleted, edited or nothing. Written as the result was (its delimiter, csv's
    quoting and line ends); a reviewed text a spreadsheet would run as a formula is neutralized like every export."""
    names = text_columns(job)
    reviews = {(review.row, review.column): review for review in job.reviewed_rows.all()}
    with _result_records(job) as (source, records):
        columns = _columns(source.header, names)
        writer = csv.writer(_Echo(), delimiter=source.delimiter)
        yield writer.writerow([*source.header, *(file_review.reviewed_column(name) for name in names)])
        chunk = io.StringIO()
        for row, record in records:
            actions = []
            for name in names:
                review = reviews.get((row, name))
                if review is not None and review.action != ReviewedRow.Action.ACCEPTED:
                    text = review.text
                    record[columns.text[name]] = neutralize_cell(text) if settings.CSV_NEUTRALIZE_FORMULAS else text
                actions.append(review.action if review is not None else "")
            chunk.write(writer.writerow([*record, *actions]))
            if chunk.tell() >= 64 * 1024:
                yield chunk.getvalue()
                chunk = io.StringIO()
        yield chunk.getvalue()


def review_report(job: Job) -> dict:
    """What the owner changed and how, row by row (no post text: the reviewed file holds the texts), with the
    counts per action."""
    reviews = list(job.reviewed_rows.select_related("reviewed_by").order_by("row", "column"))
    counts = dict.fromkeys((file_review.ACCEPTED, file_review.DELETED, file_review.EDITED), 0)
    for review in reviews:
        counts[review.action] += 1
    return {
        "job": str(job.id), "input": (job.result or {}).get("input"), "result_file": result_of(job).name,
        "reviewed_file": reviewed_file_name(job), "text_columns": text_columns(job),
        "rows_in_result": (job.result or {}).get("rows"),
        "left_for_review": left_for_review(job),
        "reviewed": len(reviews), "changed": counts[file_review.DELETED] + counts[file_review.EDITED],
        "counts": counts, "generated_at": timezone.now().isoformat(),
        "rows": [{"row": review.row, "column": review.column, "action": review.action,
                  "whole_post": review.action == file_review.DELETED and not review.text,
                  "deleted_spans": review.deleted_spans,
                  "reviewed_by": review.reviewed_by.get_username() if review.reviewed_by else None,
                  "reviewed_at": review.reviewed_at.isoformat()} for review in reviews],
    }


def left_for_review(job: Job) -> int:
    """The posts the job's report counts with a verdict other than pass."""
    return sum(counted.get(verdict, 0) for counted in (job.result or {}).get("columns", [])
               for verdict in file_review.TO_REVIEW)
