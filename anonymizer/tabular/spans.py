r"""A CSV file cut into byte ranges of whole records, so that workers on other machines can each read their part of
the same file (no copy of it) for a job fanned out over them.

Records are found by a regular expression of the CSV grammar the reader accepts (``reader.CsvSource``: strict
quoting, a double quote special only at the start of a value, records ending at ``\r\n``, ``\n`` or ``\r``),
run over the file's bytes through ``mmap``: no decoding, and in C, not byte by byte in Python. A cut is thus
exactly where the reader ends a record, whatever the values hold (``6'2" tall`` unquoted, a quoted value over
many lines); ``test_spans`` checks it against the reader on generated files.
"""

from __future__ import annotations

import codecs
import csv
import io
import mmap
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import BinaryIO

from anonymizer.tabular.reader import CsvFormatError


@lru_cache(maxsize=8)
def _record_pattern(delimiter: str) -> re.Pattern[bytes]:
    d = re.escape(delimiter.encode("utf-8"))
    field = rb'"[^"]*(?:""[^"]*)*"|[^' + d + rb'"\r\n][^' + d + rb'\r\n]*|'
    return re.compile(rb"(?:" + field + rb")(?:" + d + rb"(?:" + field + rb"))*(?:\r\n|\n|\r|\Z)")


def _is_blank(record: bytes, delimiter: str) -> bool:
    """Whether the reader skips this record before the header (no value with anything but whitespace)."""
    text = record.decode("utf-8", errors="replace")
    return not any(value.strip() for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
                   for value in row)


def record_spans(fileobj: BinaryIO, target_bytes: int, delimiter: str = ",") -> list[tuple[int, int]]:
    """Byte ranges ``[start, end)`` covering every data record after the header, each of about ``target_bytes``
    (at least one whole record) and cut only where a record ends; [] when the file has no data after a header."""
    if target_bytes < 1:
        raise ValueError("target_bytes must be >= 1")
    try:
        data: bytes | mmap.mmap = mmap.mmap(fileobj.fileno(), 0, access=mmap.ACCESS_READ)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):  # in memory, or empty
        fileobj.seek(0)
        data = fileobj.read()
    try:
        return _spans(data, target_bytes, delimiter)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def _spans(data, target_bytes: int, delimiter: str) -> list[tuple[int, int]]:
    size = len(data)
    position = len(codecs.BOM_UTF8) if data[:3] == codecs.BOM_UTF8 else 0
    pattern = _record_pattern(delimiter)
    start = None  # where the data records begin, once the header has been read
    spans: list[tuple[int, int]] = []
    while position < size:
        match = pattern.match(data, position)
        if match is None or match.end() == position:  # not CSV the reader accepts: no cut from here on
            break
        position = match.end()
        if start is None:
            if not _is_blank(data[match.start():position], delimiter):
                start = position
            continue
        if position - start >= target_bytes:
            spans.append((start, position))
            start = position
    if start is not None and size > start:
        spans.append((start, size))
    return spans


def records_in_span(fileobj: BinaryIO, start: int, end: int, *, delimiter: str, width: int) -> Iterator[list[str]]:
    """The records in bytes ``[start, end)`` of a file ``record_spans`` cut, read as ``CsvSource`` reads them
    (UTF-8, a NUL as U+FFFD, blank lines skipped, every other record ``width`` values); CsvFormatError (with the
    row counted from the part's first record) where it would refuse the file."""
    fileobj.seek(start)
    try:
        text = fileobj.read(end - start).decode("utf-8").replace("\x00", "\ufffd")
    except UnicodeDecodeError as exc:
        raise CsvFormatError(f"byte {start + exc.start:,} of the file is not valid UTF-8") from None
    rows = 0
    try:
        for record in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True):
            if len(record) != width:
                if not record or (len(record) == 1 and not record[0].strip()):
                    continue
                raise CsvFormatError(f"the row has {len(record)} fields, but the header has {width} columns",
                                     row=rows + 1)
            rows += 1
            yield record
    except csv.Error as exc:
        raise CsvFormatError(f"the CSV syntax is invalid ({exc})", row=rows + 1) from None
