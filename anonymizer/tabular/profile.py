"""profile_csv: one streaming pass that infers each column's type and summarises its values."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import BinaryIO

from .reader import CsvSource
from .values import (
    BOOLEAN_TOKENS,
    DATE_FORMATS,
    DATE_PARSERS,
    FLOAT_RE,
    INTEGER_RE,
    MISSING_TOKENS,
    datetime_format,
    parse_datetime,
)

TOP_VALUES = 5
TOP_VALUES_MAX_DISTINCT = 50
TEXT_MEAN_LENGTH = 40
TEXT_MEAN_WORDS = 6
# Splitting long values into words is the costliest part of profiling free text, and their word count is
# rarely needed: it is only counted (in a second pass) when the mean length and the bounds leave the
# text/string decision open.
LONG_VALUE = 256
PROGRESS_INTERVAL = 0.25  # seconds
# The job kind that profiles an upload; the k-anonymization page prefills its configuration from its result.
PROFILE_JOB = "profile_csv"
TOP_VALUE_TYPES = frozenset({"string", "boolean", "integer"})


def _integer_range(values: set[str]) -> tuple[int, int] | None:
    unsigned = all(map(str.isdigit, values)) and all(map(str.isascii, values))
    if not (unsigned or all(map(INTEGER_RE.fullmatch, values))):
        return None
    try:
        numbers = list(map(int, values))
    except ValueError:  # more digits than int() accepts (sys.get_int_max_str_digits)
        return None
    return min(numbers), max(numbers)


def _float_range(values: set[str]) -> tuple[float, float] | None:
    if not all(map(FLOAT_RE.fullmatch, values)):
        return None
    numbers = list(map(float, values))
    low, high = min(numbers), max(numbers)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


def _date_range(parse: Callable[[str], date | None], values: Iterable[str]) -> tuple[date, date] | None:
    dates = []
    for value in values:
        parsed = parse(value)
        if parsed is None:
            return None
        dates.append(parsed)
    return min(dates), max(dates)


def _merge(current: tuple | None, new: tuple) -> tuple:
    return new if current is None else (min(current[0], new[0]), max(current[1], new[1]))


class _Column:
    """Running statistics of one column; `add` takes the column's values of a batch of rows."""

    def __init__(self, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self.missing = 0
        self.present = 0
        self.chars = 0
        self.words = 0  # of values shorter than LONG_VALUE
        self.long_values = 0
        self.long_chars = 0
        self.long_words: int | None = None  # counted only if needed, see words_needed()
        # Exact counts while there are few distinct values (for top_values), then only hashes of the values:
        # a 64-bit hash keeps long texts out of memory, and a collision among max_distinct values is unlikely.
        self.counts: Counter[str] | None = Counter()
        self.hashes: set[int] | None = None
        self.capped = False
        self.maybe_boolean = self.maybe_integer = self.maybe_float = self.maybe_datetime = True
        self.date_ranges: dict[str, tuple | None] = dict.fromkeys(DATE_FORMATS)  # still viable formats
        self.int_range: tuple[int, int] | None = None
        self.float_range: tuple[float, float] | None = None
        self.datetime_range: tuple[datetime, datetime] | None = None
        self.datetime_shapes: set[tuple[str, bool, bool, bool]] = set()

    def add(self, values: tuple[str, ...], max_distinct: int) -> None:
        present = list(filter(None, map(str.strip, values)))
        if not MISSING_TOKENS.isdisjoint(present):
            present = [value for value in present if value not in MISSING_TOKENS]
        self.missing += len(values) - len(present)
        if not present:
            return
        self.present += len(present)
        lengths = list(map(len, present))
        chars = sum(lengths)
        self.chars += chars
        if max(lengths) >= LONG_VALUE:
            short = [value for value in present if len(value) < LONG_VALUE]
            self.long_values += len(present) - len(short)
            self.long_chars += chars - sum(map(len, short))
        else:
            short = present
        self.words += sum(map(len, map(str.split, short)))
        self._count_distinct(present, max_distinct)
        if self._maybe_typed():
            self._check_types(set(present))

    def _maybe_typed(self) -> bool:
        """True while the values seen so far all fit some type narrower than string."""
        return bool(self.maybe_boolean or self.maybe_integer or self.maybe_float or self.date_ranges
                    or self.maybe_datetime)

    def _count_distinct(self, present: list[str], max_distinct: int) -> None:
        if self.counts is not None:
            self.counts.update(present)
            if len(self.counts) <= TOP_VALUES_MAX_DISTINCT:
                return
            self.hashes = set(map(hash, self.counts))
            self.counts = None
        elif self.hashes is not None:
            self.hashes.update(map(hash, present))
        else:
            return
        if len(self.hashes) > max_distinct:
            self.capped = True
            self.hashes = None

    def _check_types(self, values: set[str]) -> None:
        """Drop the candidate types that some of these (distinct, non-missing) values do not fit."""
        if self.maybe_boolean and not BOOLEAN_TOKENS.issuperset(values):
            self.maybe_boolean = False
        integers = None
        if self.maybe_integer:
            integers = _integer_range(values)
            if integers is None:
                self.maybe_integer = False
            else:
                self.int_range = _merge(self.int_range, integers)
        if self.maybe_float:
            try:
                floats = (float(integers[0]), float(integers[1])) if integers else _float_range(values)
            except OverflowError:
                floats = None
            if floats is None:
                self.maybe_float = False
            else:
                self.float_range = _merge(self.float_range, floats)
        for fmt in list(self.date_ranges):
            dates = _date_range(DATE_PARSERS[fmt], values)
            if dates is None:
                del self.date_ranges[fmt]
            else:
                self.date_ranges[fmt] = _merge(self.date_ranges[fmt], dates)
        if self.maybe_datetime:
            self._check_datetimes(values)

    def _check_datetimes(self, values: set[str]) -> None:
        parsed = []
        for value in values:
            found = parse_datetime(value)
            if found is None:
                self.maybe_datetime = False
                return
            parsed.append(found[0])
            self.datetime_shapes.add(found[1])
        if len({shape[3] for shape in self.datetime_shapes}) == 1:  # aware and naive datetimes do not compare
            self.datetime_range = _merge(self.datetime_range, (min(parsed), max(parsed)))

    def _is_text(self) -> bool | None:
        """Free text (mean length >= 40 or mean word count >= 6)? None if long values' words are needed."""
        if self.chars >= TEXT_MEAN_LENGTH * self.present:
            return True
        words_needed = TEXT_MEAN_WORDS * self.present
        if self.long_words is not None:
            return self.words + self.long_words >= words_needed
        if self.words + self.long_values >= words_needed:  # a long value has at least one word
            return True
        if self.words + (self.long_chars + self.long_values) // 2 < words_needed:  # and at most (len + 1) / 2
            return False
        return None

    def words_needed(self) -> bool:
        """True if the text/string decision needs the word count of the long values (see count_long_words)."""
        return bool(self.present) and not self._maybe_typed() and self._is_text() is None

    def count_long_words(self, values: Iterable[str]) -> None:
        """Count the words of the long values among `values` (the column's values, read again)."""
        long_values = [value for value in map(str.strip, values) if len(value) >= LONG_VALUE]
        self.long_words = (self.long_words or 0) + sum(map(len, map(str.split, long_values)))

    def summary(self, max_distinct: int) -> dict:
        low = high = date_format = None
        if not self.present:
            kind = "empty"
        elif self.maybe_boolean:
            kind = "boolean"
        elif self.maybe_integer:
            kind, (low, high) = "integer", self.int_range
        elif self.maybe_float:
            kind, (low, high) = "float", self.float_range
        elif self.date_ranges:
            kind, date_format = "date", next(iter(self.date_ranges))
            low, high = (day.isoformat() for day in self.date_ranges[date_format])
        elif self.maybe_datetime:
            kind = "datetime"
            if len(self.datetime_shapes) == 1:
                date_format = datetime_format(next(iter(self.datetime_shapes)))
            if len({shape[3] for shape in self.datetime_shapes}) == 1:
                low, high = (moment.isoformat() for moment in self.datetime_range)
        else:
            kind = "text" if self._is_text() else "string"
        if self.capped:
            distinct = max_distinct + 1
        else:
            distinct = len(self.counts) if self.counts is not None else len(self.hashes)
        top_values = []
        if self.counts is not None and kind in TOP_VALUE_TYPES:
            ranked = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
            top_values = [[value, count] for value, count in ranked[:TOP_VALUES]]
        return {
            "index": self.index,
            "name": self.name,
            "type": kind,
            "missing": self.missing,
            "distinct": min(distinct, max_distinct),
            "distinct_capped": distinct > max_distinct,
            "min": low,
            "max": high,
            "mean_length": round(self.chars / self.present, 2) if self.present else 0.0,
            "top_values": top_values,
            "date_format": date_format,
        }


def profile_csv(fileobj: BinaryIO, *, sample_rows: int = 10, max_distinct: int = 100_000,
                progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Profile a CSV file in one streaming pass: per column its type, missing and distinct values, range,
    mean length and most frequent values, plus the first `sample_rows` data rows. JSON-serializable.

    Values are stripped; missing are blank values and NA, N/A, NaN, null, None in any case. Types, narrowest
    first: boolean, integer, float, date (first fitting format of values.DATE_FORMATS), datetime (ISO 8601
    with a time), then text (mean length >= 40 or mean word count >= 6) or string; a column without any
    non-missing value is "empty". Distinct counts stop at `max_distinct` ("distinct_capped" is then true);
    top_values are [value as written, count]. A second pass over the file happens only in the rare case
    where the word count of values of 256+ characters decides between text and string.
    `progress(done_bytes, total_bytes, message)` is called at most every 0.25 s, and once at the end with
    done == total. Raises CsvFormatError for a malformed file.
    """
    if sample_rows < 0 or max_distinct < 0:
        raise ValueError("sample_rows and max_distinct must not be negative")
    source = CsvSource(fileobj)
    columns = [_Column(index, name) for index, name in enumerate(source.header)]
    total = source.size_bytes
    sample: list[list[str]] = []
    last_report = time.monotonic()
    for batch in source.batches():
        if len(sample) < sample_rows:
            sample.extend(batch[: sample_rows - len(sample)])
        for column, values in zip(columns, zip(*batch, strict=True), strict=True):
            column.add(values, max_distinct)
        if progress is not None and time.monotonic() - last_report >= PROGRESS_INTERVAL:
            progress(min(source.bytes_read, total - 1), total, f"{source.rows:,} rows read")
            last_report = time.monotonic()
    recount = [column for column in columns if column.words_needed()]
    if recount:
        for batch in CsvSource(fileobj).batches():
            for column in recount:
                column.count_long_words([row[column.index] for row in batch])
    if progress is not None:
        progress(total, total, f"{source.rows:,} rows read")
    return {
        "rows": source.rows,
        "size_bytes": total,
        "delimiter": source.delimiter,
        "encoding": source.encoding,
        "nul_bytes": source.nul_bytes,
        "columns": [column.summary(max_distinct) for column in columns],
        "sample": sample,
    }
