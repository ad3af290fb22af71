"""A CSV file cut into byte ranges of whole records, so that workers on other machines can each read their part of
the same file (no copy of it) for a job fanned out over them.

Where a record ends is found from the bytes alone: at a line feed outside any quoted value, i.e. when the
number of double quotes since the record began is even (a doubled quote inside a value counts twice). That is
how the reader (``reader.CsvSource``) reads them, with the one difference that it also ends a line at a lone
carriage return; a file with only those has no cut after its header and becomes a single part. The parts are
an aid to speed only: whoever gathers them must still read the whole file with ``CsvSource`` (kanon's job reads
the terms of every text from the term cache and recognizes what is missing).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import BinaryIO

# Read at most this much of a line at once: a file with carriage returns only is one long "line".
_READ = 1 << 20


def record_spans(fileobj: BinaryIO, target_bytes: int) -> list[tuple[int, int]]:
    """Byte ranges ``[start, end)`` covering every data record after the header, each of about ``target_bytes``
    (at least one whole record) and cut only where a record ends; [] when the file has no data after a header."""
    if target_bytes < 1:
        raise ValueError("target_bytes must be >= 1")
    fileobj.seek(0)
    spans: list[tuple[int, int]] = []
    offset = quotes = 0
    start: int | None = None  # where the data records begin, once the header has been read
    record_has_text = False
    for piece in iter(lambda: fileobj.readline(_READ), b""):
        offset += len(piece)
        quotes += piece.count(b'"')
        record_has_text = record_has_text or bool(piece.strip())
        if quotes % 2 or not piece.endswith(b"\n"):
            continue  # inside a quoted value, or a line longer than one read
        quotes = 0
        if start is None:
            if record_has_text:  # blank lines before the header are not the header
                start = offset
        elif offset - start >= target_bytes:
            spans.append((start, offset))
            start = offset
        record_has_text = False
    if start is not None and offset > start:
        spans.append((start, offset))
    return spans


def records_in_span(fileobj: BinaryIO, start: int, end: int, *, delimiter: str, width: int) -> Iterator[list[str]]:
    """The records in bytes ``[start, end)`` of a file ``record_spans`` cut, read as ``CsvSource`` reads them
    (UTF-8, a NUL as U+FFFD, blank lines skipped). A record of another width than ``width`` is skipped: the file
    was checked whole before it was cut, so only a cut that is not a record's end yields one."""
    fileobj.seek(start)
    text = fileobj.read(end - start).decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    try:
        for record in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True):
            if len(record) == width:
                yield record
    except csv.Error:
        return  # not a record boundary after all: the gatherer reads these records itself
