"""Every post of a CSV file de-identified (no Django here): what the inspect page does to one post, done to each
non-empty cell of the text columns, the released text written in its cell and, per text column, a verdict column
and a review column added after the file's own. The rewrite of the web's de-identify-posts job (its parts on any
worker) and of ``kakurega deidentify`` (its parts on this machine's processes): the same rows give the same bytes.

A rewrite's state (``anonymizer.tabular.rewrite``): ``counts`` per text column, a ``sample`` of changed posts and
the rows ``refused`` (not English, when time goes too: the run then fails, naming them). Once the file is written
it is read back (``verdicts_in``) and its verdicts must be those counted (``check_verdicts``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from anonymizer.location.file_review import reviewed_column
from anonymizer.location.inspect import inspect_text
from anonymizer.location.model import LocationModel
from anonymizer.location.options import InspectOptions
from anonymizer.platform.deadline import Deadline, DeadlineExceeded
from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.rewrite import batches, column_indices

# The verdict column's values (verdict.STATUSES, best first): every check passed; under every threshold but names
# no list holds are left for the reader to check (the review column lists them); a gazetteer place inside the map
# is left; a threshold is not met.
VERDICTS = ("pass", "review", "places", "fail")
# The review column's cell: the names of the row's released text that no scorer could resolve (review.py), each
# once, in text order, joined by this; empty when there is none.
REVIEW_SEPARATOR = "; "
BATCH_ROWS = 256  # rows de-identified (and, with remove_time, checked for English) at a time
SAMPLE_SIZE = 10  # changed posts kept for the owner's review (the job page)


def verdict_column(name: str) -> str:
    """The column added after the file's own for the verdict of each post of text column ``name``."""
    return f"{name}_location_verdict"


def review_column(name: str) -> str:
    """The column added after the verdict column of text column ``name``: the names its released post still holds
    that no scorer could resolve, "; "-joined (REVIEW_SEPARATOR), for the reader to check."""
    return f"{name}_location_review"


def added_columns(names: Sequence[str]) -> list[str]:
    """The columns added after the file's own: per text column, its verdict and its review column."""
    return [column for name in names for column in (verdict_column(name), review_column(name))]


def taken_columns(header: Sequence[str], names: Sequence[str]) -> list[str]:
    """The columns of ``header`` named as one this release adds, or the reviewed file later adds (refused before
    anything runs: a duplicate column name is not a file anyone can read back)."""
    return [column for column in [*added_columns(names), *map(reviewed_column, names)] if column in header]


def taken_message(file_name: str, column: str) -> str:
    return (f"{file_name} already has a column {column!r}, the name of a column this job adds (a verdict, a review "
            "or, in the reviewed file, a reviewed column)")


def review_cell(items: Sequence[dict]) -> str:
    """A review column's cell: each name once, in text order, "; "-joined."""
    return REVIEW_SEPARATOR.join(dict.fromkeys(item["text"] for item in items))


class TimeAnonymizer(Protocol):
    def transform(self, texts: Sequence[str]) -> list[Any]: ...


@dataclass(frozen=True)
class TimeStep:
    """Time expressions removed before the location (English posts only): the anonymizer, and the function that
    names the cells of a batch that are not English, ``(batch, column indices, names, first row) -> [(row, name,
    reason)]`` (anonymizer.temporal.removal.not_english_rows; given, since one capability's core does not import
    another's)."""

    anonymizer: TimeAnonymizer
    not_english_rows: Callable[[Sequence[Sequence[str]], Sequence[int], Sequence[str], int], list[tuple[int, str, str]]]


class PostTooSlow(Exception):
    """A post ran past its deadline. ``row``: counted from 0 within the records the rewrite was given; ``index``
    of the post among the ``posts`` of its column's batch; ``seconds``: the deadline's."""

    def __init__(self, row: int, column: str, index: int, posts: int, seconds: float) -> None:
        super().__init__(row, column, index, posts, seconds)
        self.row, self.column, self.index, self.posts, self.seconds = row, column, index, posts, seconds

    def __str__(self) -> str:
        return f"Row {self.row}, column {self.column!r}: stopped after the limit of {self.seconds:g} s"


def _no_deadline() -> None:
    return None


@dataclass(frozen=True)
class PostsRelease:
    """How the posts of a file are de-identified: the ``model``, the ``human_scorers`` a released post must also
    be under (the human-inferability model trained beside it, or none), the inspect ``options`` (automatic mode),
    an optional ``time`` step, the text ``columns``, the ``file_name`` its messages name, and ``deadline()``, a
    new deadline for each post (or None: no limit)."""

    model: LocationModel
    columns: tuple[str, ...]
    file_name: str
    options: InspectOptions = field(default_factory=InspectOptions)
    human_scorers: tuple = ()
    time: TimeStep | None = None
    deadline: Callable[[], Deadline | None] = _no_deadline

    def rewrite(self, header: Sequence[str], records: Iterable[list[str]], writer, progress: Callable[[int], None],
                ) -> dict:
        """The file's rewrite (``anonymizer.tabular.rewrite.Rewrite``): each batch's posts released, the rows
        written with their verdict and review cells; counts, sample and refused rows as the state."""
        names = list(self.columns)
        indices = column_indices(header, names, self.file_name)
        counts = [{"name": name, "posts": 0, "empty": 0, "changed": 0, "units_deleted": 0, "inferable_before": 0,
                   "with_review": 0, **dict.fromkeys(VERDICTS, 0)} for name in names]
        sample: list[dict] = []
        refused: list[tuple[int, str, str]] = []
        done = 0
        for batch in batches(records, BATCH_ROWS):
            first, done = done, done + len(batch)
            if self.time is not None:
                refused.extend(self.time.not_english_rows(batch, indices, names, first))
            if refused:
                continue  # the run will fail: only look for the other rows to name
            verdicts, reviews, released = self._release_batch(batch, first, indices, counts)
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

    def _release_batch(self, batch: list[list[str]], first: int, indices: list[int], counts: list[dict]):
        """Per row and text column of a batch: the verdict, the review cell and the released text (None for an
        empty post), counted."""
        verdicts = [[""] * len(indices) for _ in batch]
        reviews = [[""] * len(indices) for _ in batch]
        released: list[list[str | None]] = [[None] * len(indices) for _ in batch]
        for n, (column, counted) in enumerate(zip(indices, counts, strict=True)):
            positions = [i for i, row in enumerate(batch) if row[column].strip()]
            counted["empty"] += len(batch) - len(positions)
            for index, i in enumerate(positions):
                try:
                    result = self.inspect(batch[i][column])
                except DeadlineExceeded as exc:
                    raise PostTooSlow(first + i, counted["name"], index, len(positions), exc.seconds) from exc
                status = result["verdict"]["status"]
                counted["posts"] += 1
                counted[status] += 1
                counted["units_deleted"] += len(result["deleted"])
                counted["inferable_before"] += not result["before"]["under_threshold"]
                verdicts[i][n] = status
                reviews[i][n] = review_cell(result["verdict"]["review"])
                counted["with_review"] += bool(reviews[i][n])
                released[i][n] = result["text_after"]
        return verdicts, reviews, released

    def inspect(self, text: str) -> dict:
        """One post as the inspect page releases it (its time expressions first, when asked), under a deadline of
        its own."""
        deadline = self.deadline()
        if deadline is not None:
            deadline.check()
        edit = self.time.anonymizer.transform([text])[0] if self.time is not None else None
        return inspect_text(self.model, text, self.options, extra_scorers=self.human_scorers, edit=edit,
                            deadline=deadline)


class VerdictMismatch(RuntimeError):
    """The written file's verdicts are not those counted: nothing may be released on a report that is not true."""


def verdicts_in(path: Path, names: Sequence[str]) -> dict[str, dict[str, int]]:
    """How many rows of the written file carry each verdict, and how many a non-empty review cell
    ("with_review"), per text column (the file read back)."""
    out = {name: dict.fromkeys((*VERDICTS, "with_review"), 0) for name in names}
    with Path(path).open("rb") as handle:
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


def check_verdicts(counts: Sequence[dict], released: dict[str, dict[str, int]]) -> None:
    """VerdictMismatch naming the text columns whose counted verdicts differ from the file's."""
    mismatch = [c["name"] for c in counts if {v: c[v] for v in (*VERDICTS, "with_review")} != released[c["name"]]]
    if mismatch:
        raise VerdictMismatch(f"The written file's verdicts differ from those counted for {', '.join(mismatch)}; "
                              "nothing was stored. Please report it.")


def release_report(*, input_name: str, rows: int, names: Sequence[str], counts: list[dict],
                   released: dict[str, dict[str, int]], model: dict, options: dict, seconds: float,
                   parts: int) -> dict:
    """The report of a released file (counts only, no post text, so it can be shared), its keys in the web job's
    order. ``released``: the verdicts re-read from the written file (``verdicts_in``); ``parts``: how many parts
    the file was cut into (0 for one)."""
    return {"input": input_name, "rows": rows, "text_columns": list(names),
            "verdict_columns": [verdict_column(name) for name in names],
            "review_columns": [review_column(name) for name in names], "columns": counts,
            # Re-read from the written file: the verdicts it carries, and its rows with names to review (under
            # "with_review"), per text column.
            "released_verdicts": released, "model": model, "options": options,
            "seconds": round(seconds, 3), "parts": parts if parts > 1 else 0}
