"""Streaming CSV reading shared by check_csv and profile_csv.

One reader decides the encoding, the delimiter and the header, then yields data rows in batches, and turns
every problem it meets into a CsvFormatError that says where the problem is.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
from collections.abc import Iterator
from typing import Any, BinaryIO

from anonymizer.texts import TranslatableError, gettext_noop

# csv's default field limit (128 KiB) is too small for long free text such as blog posts. The limit is
# process-global, so it is raised once, here, and never lowered if something else already raised it.
FIELD_SIZE_LIMIT = 16 * 1024 * 1024
csv.field_size_limit(max(csv.field_size_limit(), FIELD_SIZE_LIMIT))

SNIFF_BYTES = 64 * 1024
CHUNK_BYTES = 256 * 1024
# A physical line is kept in memory until its end is seen; past this size the file is not a sensible CSV.
MAX_LINE_CHARS = 64 * 1024 * 1024
DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}

# Each whole sentence is a catalog text (the web shell shows it in the page's language: TranslatableError).
_MAGIC = (
    (b"PK\x03\x04", gettext_noop("The file looks like an Excel workbook (.xlsx) or another ZIP archive, not a CSV "
                                  "text file; export or save it as CSV.")),
    (b"\xd0\xcf\x11\xe0", gettext_noop("The file looks like an old Excel workbook (.xls), not a CSV text file; "
                                          "export or save it as CSV.")),
    (b"\x1f\x8b", gettext_noop("The file looks like a gzip-compressed file, not a CSV text file; export or save it "
                                "as CSV.")),
    (b"%PDF-", gettext_noop("The file looks like a PDF document, not a CSV text file; export or save it as CSV.")),
)
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class CsvFormatError(TranslatableError):
    """A file that is not an acceptable CSV, with the 1-based row (the header is row 1) and column.

    ``message`` is a catalog text (``gettext_noop``) with %-style named placeholders filled from ``params``, so the
    web shell shows it, and where it is, in the page's language (``translate``); str() is the English text."""

    def __init__(self, message: str, *, row: int | None = None, column: int | None = None,
                 column_name: str | None = None, **params: Any) -> None:
        super().__init__(message, **params)
        self.message = message % params if params else message
        self.row = row
        self.column = column
        self.column_name = column_name

    def __reduce__(self):  # keyword-only arguments would otherwise be lost when pickled (e.g. by Celery)
        return (type(self), (self.template,), self.__dict__)

    def translate(self, gettext) -> str:
        """The message and where it is, through ``gettext`` (the active language's catalog)."""
        message = gettext(self.template) % dict(self.params) if self.params else gettext(self.template)
        values = {"row": self.row, "column": self.column, "column_name": self.column_name, "message": message}
        if self.row is not None and self.column is not None:
            where = (gettext_noop('Row %(row)s, column %(column)s ("%(column_name)s"): %(message)s')
                     if self.column_name is not None else gettext_noop("Row %(row)s, column %(column)s: %(message)s"))
        elif self.row is not None:
            where = gettext_noop("Row %(row)s: %(message)s")
        elif self.column is not None:
            where = (gettext_noop('Column %(column)s ("%(column_name)s"): %(message)s')
                     if self.column_name is not None else gettext_noop("Column %(column)s: %(message)s"))
        else:
            return message
        return gettext(where) % values

    @property
    def location(self) -> str:
        """'Row 17', 'Row 1, column 3 ("age")', 'Column 2' or '' when the problem concerns the whole file."""
        parts = []
        if self.row is not None:
            parts.append(f"Row {self.row}")
        if self.column is not None:
            column = f"column {self.column}"
            if self.column_name is not None:
                column += f' ("{self.column_name}")'
            parts.append(column if parts else column.capitalize())
        return ", ".join(parts)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message

    def as_dict(self) -> dict:
        """JSON-friendly form for API responses."""
        return {"message": str(self), "row": self.row, "column": self.column, "column_name": self.column_name}


class _BadBytes(Exception):
    """Raised by the line iterator; the reader turns it into a CsvFormatError once it knows row and line.

    `template` has a %(line)s placeholder for the physical line number, `params` its other values.
    """

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(template)
        self.template = template
        self.params = params


def describe_size(size: int) -> str:
    """Human size in MB (MiB), with the exact byte count when it is small."""
    return f"{size:,} bytes" if size < 100_000 else f"{size / 2**20:,.1f} MB"


def _delimiter_text(delimiter: str) -> str:
    shown = "\\t" if delimiter == "\t" else delimiter
    return f'"{shown}" ({DELIMITER_NAMES.get(delimiter, "delimiter")})'


def sniff_delimiter(sample: bytes, *, complete: bool) -> str:
    """Pick the delimiter that splits the first records into the most columns, consistently; ',' by default.

    `complete` says whether the sample is the whole file; if not, its last (maybe cut) record is ignored.
    """
    text = sample.decode("utf-8", errors="replace")
    if not complete:
        text = text[: max(text.rfind("\n"), text.rfind("\r")) + 1]
    best, best_score = ",", (0.0, 1)
    for delimiter in DELIMITERS:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            records = [r for r in itertools.islice(reader, 100) if any(field.strip() for field in r)]
        except csv.Error:
            continue
        if not complete and len(records) > 1:
            records.pop()
        if not records or len(records[0]) < 2:
            continue
        width = len(records[0])
        consistent = sum(len(r) == width for r in records) / len(records)
        score = (round(consistent, 2), width)
        if score > best_score:
            best, best_score = delimiter, score
    return best


class CsvSource:
    """A checked-as-it-goes CSV stream: size, encoding, delimiter and header are known after construction;
    `batches()` then yields the data rows (lists of strings), raising CsvFormatError on the first bad one.

    The file object is read from its start and is not closed.
    """

    def __init__(self, fileobj: BinaryIO, *, max_bytes: int | None = None, max_columns: int | None = None):
        fileobj.seek(0, io.SEEK_END)
        self.size_bytes: int = fileobj.tell()
        fileobj.seek(0)
        if self.size_bytes == 0:
            raise CsvFormatError(gettext_noop("The file is empty (0 bytes); expected a CSV file with a header row "
                                              "and data rows."))
        if max_bytes is not None and self.size_bytes > max_bytes:
            size, limit = describe_size(self.size_bytes), describe_size(max_bytes)
            if size == limit:
                size, limit = f"{self.size_bytes:,} bytes", f"{max_bytes:,} bytes"
            raise CsvFormatError(gettext_noop("The file is %(size)s, larger than the limit of %(limit)s."),
                                 size=size, limit=limit)
        head = fileobj.read(SNIFF_BYTES)
        self._refuse_binary(head)
        bom = len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0
        self.encoding: str = "utf-8-sig" if bom else "utf-8"
        self.delimiter: str = sniff_delimiter(head[bom:], complete=len(head) == self.size_bytes)
        self._bom = bom
        self.bytes_read: int = bom  # bytes consumed from the file so far (whole chunks), for progress
        self.rows: int = 0  # data rows read so far
        self.nul_bytes: int = 0  # NUL bytes met so far, read as U+FFFD
        self._file = fileobj
        fileobj.seek(bom)
        self._reader = csv.reader(self._lines(), delimiter=self.delimiter, strict=True)
        self._last_line = 0  # physical line on which the previous record ended
        self._header_read = False
        self.header: tuple[str, ...] = self._read_header(max_columns)

    @staticmethod
    def _refuse_binary(head: bytes) -> None:
        if head.startswith(_UTF16_BOMS):
            raise CsvFormatError(gettext_noop(
                "The file is encoded as UTF-16 (it starts with a UTF-16 byte order mark), but a UTF-8 CSV file is "
                'expected. Re-save it as UTF-8 (in Excel: "CSV UTF-8"; in LibreOffice: character set "Unicode '
                '(UTF-8)").'))
        for magic, sentence in _MAGIC:
            if head.startswith(magic):
                raise CsvFormatError(sentence)

    def _lines(self) -> Iterator[str]:
        """Decode the file incrementally and yield physical lines with their line breaks (csv needs them).

        Lines break at \\n, \\r and \\r\\n only, like open(newline=""). An invalid byte stops the stream with
        _BadBytes, after yielding every line before the one that holds it; a NUL is read as U+FFFD.
        """
        decoder = codecs.getincrementaldecoder("utf-8")()
        read = self._file.read
        pending: list[str] = []  # the start of a line whose end has not been read yet
        pending_chars = 0
        offset = self.bytes_read  # byte offset of the next chunk
        while True:
            chunk = read(CHUNK_BYTES)
            final = not chunk
            text_offset = offset - len(decoder.getstate()[0])  # where the decoded text starts, in bytes
            failure = None
            try:
                text = decoder.decode(chunk, final)
            except UnicodeDecodeError as exc:
                text = exc.object[: exc.start].decode("utf-8")
                bad = exc.object[exc.start]
                position = text_offset + exc.start
                failure = _BadBytes(gettext_noop(
                    "byte %(byte)s on line %(line)s (byte offset %(offset)s) is not valid UTF-8; the file must be "
                    "encoded as UTF-8 (it may be in Windows-1252, Latin-1 or another encoding). Re-save it as "
                    'UTF-8 (in Excel: "CSV UTF-8"; in LibreOffice: character set "Unicode (UTF-8)").'),
                    byte=f"0x{bad:02X}", offset=f"{position:,}")
            offset += len(chunk)
            self.bytes_read = offset
            nuls = text.count("\x00")
            if nuls:
                # Real corpora carry stray NULs (the Blog Authorship Corpus has 4,030 in two posts). They are
                # read as U+FFFD, counted and reported, rather than refusing the file: PostgreSQL text cannot
                # hold NUL, and the original upload is kept byte for byte anyway.
                self.nul_bytes += nuls
                text = text.replace("\x00", "\ufffd")
            flush = final and failure is None
            if flush:
                cut = len(text)
            elif failure is not None:  # keep back the line that holds the bad byte
                cut = max(text.rfind("\n"), text.rfind("\r")) + 1
            else:
                cut = text.rfind("\n") + 1
                # a \r at the very end may be the first half of a \r\n: keep it for the next chunk
                lone_cr = text.rfind("\r", cut, len(text) - 1)
                if lone_cr >= 0:
                    cut = lone_cr + 1
            if cut == 0 and not flush:
                pending.append(text)
                pending_chars += len(text)
            else:
                body = "".join(pending) + text[:cut] if pending else text[:cut]
                rest = text[cut:]
                pending, pending_chars = ([rest], len(rest)) if rest else ([], 0)
                yield from _split_lines(body)
            if failure is not None:
                raise failure
            if final:
                return
            if pending_chars > MAX_LINE_CHARS:
                raise _BadBytes(gettext_noop(
                    "line %(line)s is longer than %(mib)s MiB characters; the file does not look like a CSV file "
                    "with one record per line."), mib=MAX_LINE_CHARS // 2**20)

    def _record_number(self) -> int:
        """Row number of the record being read: the header is row 1."""
        return self.rows + 2 if self._header_read else 1

    def _error(self, exc: Exception) -> CsvFormatError:
        """Turn a problem met while reading the current record into a located CsvFormatError."""
        row = self._record_number()
        line_num = self._reader.line_num
        if isinstance(exc, _BadBytes):
            return CsvFormatError(exc.template, row=row, line=line_num + 1, **exc.params)
        text = str(exc)
        start = self._last_line + 1
        if text == "unexpected end of data":
            return CsvFormatError(gettext_noop(
                "a quoted value is never closed: the file ends inside a value that starts with a double quote (the "
                "row starts on line %(start)s). Add the missing closing double quote."), row=row, start=start)
        if text.startswith("field larger than field limit"):
            limit = csv.field_size_limit()
            column = self._long_field_column(self._last_line + 1, limit)
            names = self.header if self._header_read else ()
            name = names[column - 1] if column is not None and column <= len(names) else None
            return CsvFormatError(gettext_noop(
                "a value is longer than the limit of %(mib)s MiB (%(limit)s) characters (the row starts on line "
                "%(start)s); usually a double quote that opens a value is never closed."),
                row=row, column=column, column_name=name, mib=limit // 2**20, limit=f"{limit:,}", start=start)
        if text.endswith("expected after '\"'"):
            return CsvFormatError(gettext_noop(
                "unexpected character after a closing double quote on line %(line)s. Inside a quoted value a double "
                'quote must be doubled (""); a value that contains double quotes must be enclosed in double quotes '
                "as a whole."), row=row, line=line_num)
        return CsvFormatError(gettext_noop("the CSV syntax is invalid on line %(line)s (%(reason)s)."),
                              row=row, line=line_num, reason=text)

    def _long_field_column(self, first_line: int, limit: int) -> int | None:
        """The 1-based column of the first value longer than `limit` in the record that starts on physical line
        `first_line`, read again from the file (only when reporting that error); None if it cannot be told."""
        state = (self.bytes_read, self.nul_bytes)
        try:
            self._file.seek(self._bom)
            self.bytes_read = self._bom
            lines = self._lines()
            for _ in range(first_line - 1):
                next(lines)
            return _column_over_limit(lines, self.delimiter, limit)
        except (StopIteration, _BadBytes, OSError, ValueError):
            return None
        finally:
            self.bytes_read, self.nul_bytes = state

    def _next_record(self) -> list[str] | None:
        try:
            record = next(self._reader, None)
        except (csv.Error, _BadBytes) as exc:
            raise self._error(exc) from None
        return record

    def _read_header(self, max_columns: int | None) -> tuple[str, ...]:
        record = self._next_record()
        while record is not None and not any(field.strip() for field in record):
            self._last_line = self._reader.line_num  # blank lines before the header are skipped
            record = self._next_record()
        if record is None:
            raise CsvFormatError(gettext_noop("The file is empty: it contains only whitespace; expected a CSV file "
                                              "with a header row and data rows."))
        self._last_line = self._reader.line_num
        self._header_read = True
        header = tuple(record)
        _check_header(header, self.delimiter, max_columns)
        return header

    def batches(self, max_rows: int = 1000, max_bytes: int = 4 * 1024 * 1024) -> Iterator[list[list[str]]]:
        """Yield the data rows in lists of at most `max_rows` rows (or about `max_bytes` of the file).

        Completely blank lines are skipped. A row whose field count differs from the header's raises.
        """
        width = len(self.header)
        reader = self._reader
        rows = self.rows
        batch: list[list[str]] = []
        batch_end = self.bytes_read + max_bytes
        try:
            for record in reader:
                if len(record) != width:
                    if not record or (len(record) == 1 and not record[0].strip()):
                        self._last_line = reader.line_num
                        continue
                    self.rows = rows
                    raise self._field_count_error(record)
                batch.append(record)
                rows += 1
                self._last_line = reader.line_num
                if len(batch) >= max_rows or self.bytes_read >= batch_end:
                    self.rows = rows
                    yield batch
                    batch = []
                    batch_end = self.bytes_read + max_bytes
        except (csv.Error, _BadBytes) as exc:
            self.rows = rows
            raise self._error(exc) from None
        self.rows = rows
        if batch:
            yield batch

    def _field_count_error(self, record: list[str]) -> CsvFormatError:
        width = len(self.header)
        found = len(record)
        row = self._record_number()
        start = self._last_line + 1
        # Whole sentences, one per case, so each reads naturally in every language.
        if found > width:
            message = (gettext_noop("the row has %(found)s fields, but the header has %(width)s columns. A value "
                                    "that contains the delimiter %(delimiter)s must be enclosed in double quotes.")
                       if start == row else
                       gettext_noop("the row has %(found)s fields, but the header has %(width)s columns. A value "
                                    "that contains the delimiter %(delimiter)s must be enclosed in double quotes. "
                                    "The row starts on line %(start)s of the file."))
        elif found == 1:
            message = (gettext_noop("the row has %(found)s field, but the header has %(width)s columns. Check for a "
                                    "missing delimiter, or a line break inside a value that is not enclosed in "
                                    "double quotes.")
                       if start == row else
                       gettext_noop("the row has %(found)s field, but the header has %(width)s columns. Check for a "
                                    "missing delimiter, or a line break inside a value that is not enclosed in "
                                    "double quotes. The row starts on line %(start)s of the file."))
        else:
            message = (gettext_noop("the row has %(found)s fields, but the header has %(width)s columns. Check for a "
                                    "missing delimiter, or a line break inside a value that is not enclosed in "
                                    "double quotes.")
                       if start == row else
                       gettext_noop("the row has %(found)s fields, but the header has %(width)s columns. Check for a "
                                    "missing delimiter, or a line break inside a value that is not enclosed in "
                                    "double quotes. The row starts on line %(start)s of the file."))
        return CsvFormatError(message, row=row, found=found, width=width,
                              delimiter=_delimiter_text(self.delimiter), start=start)


def _column_over_limit(lines: Iterator[str], delimiter: str, limit: int) -> int | None:
    """The 1-based column of the first value longer than `limit` characters in the CSV record that `lines`
    start with (csv's own dialect: double quotes, doubled inside a quoted value), or None."""
    column, length, quoted, at_start = 1, 0, False, True
    for line in lines:
        i, end = 0, len(line)
        while i < end:
            if quoted:
                close = line.find('"', i)
                if close < 0:  # the value goes on, line break included
                    length, i = length + end - i, end
                elif close + 1 < end and line[close + 1] == '"':
                    length, i = length + close - i + 1, close + 2
                else:
                    length, i, quoted = length + close - i, close + 1, False
            elif at_start and line[i] == '"':
                quoted, at_start, i = True, False, i + 1
            else:
                at_start = False
                cut = line.find(delimiter, i)
                stop = cut if cut >= 0 else len(line.rstrip("\r\n"))
                length += max(stop - i, 0)
                if length > limit:
                    return column
                if cut < 0:
                    return None  # the record ended without a value over the limit
                column, length, at_start, i = column + 1, 0, True, cut + 1
            if length > limit:
                return column
    return column if length > limit else None


def _split_lines(body: str) -> list[str] | io.StringIO:
    """Lines of `body` (which ends with a line break, or at the end of the file), breaks kept."""
    lines = body.splitlines(True)
    if not all(map(str.endswith, lines[:-1], itertools.repeat(("\n", "\r")))):
        # splitlines also breaks at \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029, which are text in a CSV file
        return io.StringIO(body, newline="")
    return lines


def _check_header(header: tuple[str, ...], delimiter: str, max_columns: int | None) -> None:
    if max_columns is not None and len(header) > max_columns:
        raise CsvFormatError(gettext_noop("the header has %(columns)s columns, more than the limit of %(limit)s."),
                             row=1, columns=f"{len(header):,}", limit=f"{max_columns:,}")
    seen: dict[str, int] = {}
    for number, name in enumerate(header, start=1):
        key = name.strip()
        if not key:
            if number == len(header) and number > 1:
                raise CsvFormatError(gettext_noop(
                    "the column has no name; every column needs a name in the header row. A delimiter %(delimiter)s "
                    "at the end of the header line adds an empty last column."),
                    row=1, column=number, delimiter=_delimiter_text(delimiter))
            raise CsvFormatError(gettext_noop("the column has no name; every column needs a name in the header row."),
                                 row=1, column=number)
        if key in seen:
            raise CsvFormatError(gettext_noop('the column name "%(name)s" is used for columns %(first)s and '
                                              "%(second)s; column names must be unique."),
                                 row=1, column=number, column_name=name, name=key, first=seen[key], second=number)
        seen[key] = number
