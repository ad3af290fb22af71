"""Jobs that rewrite an uploaded CSV row by row (remove time expressions, de-identify every post), fanned out over
the workers by parts of the file (``chunks``): each part's rows are rewritten by whichever worker takes it, and
the job's own task writes the header and the parts' rows in order, so the file is the one a single process
writes. A file of one part is rewritten in the job's own process, by the same function.

A job kind gives one function, ``rewrite(header, records, writer, progress) -> state``: it reads the records
(lists of strings), writes what it releases through ``writer`` and returns what it counted as JSON (its rows
numbered from 0 within the records it was given); ``progress(rows_done)`` must be called now and then (it is
where a cancelled part stops). The job then gets, per part in order, the number of records before it and its
state, to add up (``Part``).
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from django.conf import settings

from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.chunks import ChunkWork
from anonymizer.tabular import CsvFormatError, chosen_columns, export
from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.spans import record_spans, records_in_span

Rewrite = Callable[[Sequence[str], Iterable[list[str]], Any, Callable[[int], None]], dict]


@dataclass(frozen=True)
class Part:
    """One part's outcome: ``rows_before`` data records precede it in the file (its first record is row
    ``rows_before + 2``, the header being row 1), ``rows`` it holds, and the ``state`` its rewrite returned."""

    rows_before: int
    rows: int
    state: dict


class _Counted:
    """The records of a part, counted as they are read."""

    def __init__(self, records: Iterable[list[str]]) -> None:
        self.records, self.count = records, 0

    def __iter__(self) -> Iterator[list[str]]:
        for record in self.records:
            self.count += 1
            yield record


def gather(parts: Sequence[Part]) -> tuple[list[dict], list[dict], list[tuple[int, str, str]]]:
    """The parts of a rewrite whose state holds ``counts`` (a dict per text column: its ``name`` and numbers),
    ``sample`` (dicts with a ``row``) and ``refused`` ((row, column, reason)), as one: the numbers summed, the
    rows numbered in the file (the header is row 1, as in the upload's error messages)."""
    counts: list[dict] = []
    sample: list[dict] = []
    refused: list[tuple[int, str, str]] = []
    for part in parts:
        if not counts:
            counts = [{"name": counted["name"]} for counted in part.state["counts"]]
        for total, counted in zip(counts, part.state["counts"], strict=True):
            for key, value in counted.items():
                if key != "name":
                    total[key] = total.get(key, 0) + value
        sample.extend({**item, "row": part.rows_before + item["row"] + 2} for item in part.state["sample"])
        refused.extend((part.rows_before + row + 2, name, why) for row, name, why in part.state["refused"])
    return counts, sample, refused


def column_indices(header: Sequence[str], names: Sequence[str], file_name: str) -> list[int]:
    """Where the named columns are in ``header``; UserFacingError naming the first one the file lacks."""
    _, missing = chosen_columns(names, header, file_name)
    if missing:
        raise UserFacingError(missing[0])
    return [list(header).index(name) for name in names]


def batches(records: Iterable[list[str]], size: int) -> Iterator[list[list[str]]]:
    """The records in lists of ``size`` (the last one shorter)."""
    iterator = iter(records)
    while batch := list(islice(iterator, size)):
        yield batch


def _writer(out, delimiter: str):
    return export.writer(out, delimiter=delimiter, neutralize=settings.CSV_NEUTRALIZE_FORMULAS)


def rewrite_csv(run, upload: Upload, output: Path, rewrite: Rewrite, *, what: str,
                header: Callable[[Sequence[str]], Sequence[str]] | None = None) -> list[Part]:
    """Rewrite ``upload`` into ``output`` with ``rewrite``, by parts on every free worker when the file has more
    than one (``JOB_CHUNK_BYTES``); returns the parts in file order. ``what`` names the work in progress
    messages ("removing time expressions"); ``header(upload's header)`` is the output's, when it adds columns."""
    try:
        with upload.file.open("rb") as handle:
            source = CsvSource(handle)
            columns, delimiter = source.header, source.delimiter
            spans = record_spans(handle, settings.JOB_CHUNK_BYTES, delimiter)
        total = upload.metadata.get("rows") or 0
        with output.open("w", encoding="utf-8", newline="") as out:
            writer = _writer(out, delimiter)
            writer.writerow(columns if header is None else header(columns))
            if len(spans) <= 1:
                with upload.file.open("rb") as handle:
                    source = CsvSource(handle)
                    records = _Counted(record for batch in source.batches() for record in batch)
                    state = rewrite(columns, records, writer, lambda done: run.progress(
                        done, max(total, done), f"{what}: {done:,} of {max(total, done):,} rows"))
                return [Part(0, records.count, state)]
            parts, before = [], 0
            for blob in run.fan_out(spans, progress=lambda done, count, message: run.progress(
                    done, count, f"{what}: {message}")):
                part = json.loads(zlib.decompress(blob))
                out.write(part["csv"])
                parts.append(Part(before, part["rows"], part["state"]))
                before += part["rows"]
            return parts
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc


def rewrite_part(job: Job, work: ChunkWork, rewrite: Rewrite) -> bytes:
    """One part of ``rewrite_csv``, on any worker: its rows rewritten, with the rewrite's state, compressed
    for the job's own task to gather."""
    upload = job.inputs.get()
    out = io.StringIO()
    try:
        with upload.file.open("rb") as handle:
            source = CsvSource(handle)
            records = _Counted(records_in_span(handle, work.start, work.end, delimiter=source.delimiter,
                                               width=len(source.header)))
            state = rewrite(source.header, records, _writer(out, source.delimiter), lambda done: work.check())
    except CsvFormatError as exc:  # the file was checked whole when it was uploaded: a cut in the wrong place
        raise UserFacingError(f"{upload.original_name}, bytes {work.start:,} to {work.end:,}: {exc.message}") from exc
    return zlib.compress(json.dumps({"rows": records.count, "csv": out.getvalue(), "state": state},
                                    ensure_ascii=False).encode("utf-8"))
