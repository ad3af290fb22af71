"""check_csv: the acceptance check an uploaded CSV file must pass before it is stored; chosen_columns: the check
of the columns a job is asked to read against a stored file's header."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from anonymizer.texts import gettext_noop

from .reader import CsvFormatError, CsvSource


@dataclass(frozen=True)
class CsvShape:
    """What check_csv learnt about an accepted file."""

    encoding: str  # "utf-8", or "utf-8-sig" when the file starts with a byte order mark
    delimiter: str  # one of , ; \t |
    header: tuple[str, ...]
    rows: int  # data rows, header excluded
    size_bytes: int
    nul_bytes: int = 0  # NUL bytes in the file, read as U+FFFD


def check_csv(fileobj: BinaryIO, *, max_bytes: int, max_columns: int = 1000) -> CsvShape:
    """Read the whole file once and return its shape, or raise CsvFormatError at the first problem.

    Refused: an empty or whitespace-only file, one over `max_bytes`, one that is not UTF-8, CSV syntax
    errors, a header with an empty or duplicate column name or over `max_columns` columns, a row whose field
    count differs from the header, and a header without data rows. NUL bytes are read as U+FFFD and
    counted. The file is read from its start, left open and rewound to its start on success.
    """
    source = CsvSource(fileobj, max_bytes=max_bytes, max_columns=max_columns)
    for _batch in source.batches():
        pass
    if source.rows == 0:
        raise CsvFormatError(gettext_noop("The file has a header row but no data rows; expected at least one data "
                                          "row below the header."))
    fileobj.seek(0)
    return CsvShape(encoding=source.encoding, delimiter=source.delimiter, header=source.header,
                    rows=source.rows, size_bytes=source.size_bytes, nul_bytes=source.nul_bytes)


def chosen_columns(names: Iterable[str], header: Sequence[str], file_name: str) -> tuple[list[str], list[str]]:
    """The columns a job is asked to read, once each in the order given, and one message for each that the file's
    header lacks ("posts.csv has no column 'txt'; its columns are: id, text"): every job kind that reads text
    columns checks them here, before it is queued."""
    columns = list(dict.fromkeys(names))
    missing = [f"{file_name} has no column {name!r}; its columns are: {', '.join(header)}"
               for name in columns if name not in header]
    return columns, missing
