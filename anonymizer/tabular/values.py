"""Recognising values: missing markers, booleans, numbers, dates and ISO datetimes.

Values are recognised with precompiled regular expressions and plain comparisons rather than by trying
strptime on each one, so that profiling stays fast; every date format accepts a subset of what
datetime.strptime accepts for it, so the reported format can be used with strptime downstream.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import date, datetime


def _all_cases(words: tuple[str, ...]) -> frozenset[str]:
    # Every upper/lower-case spelling, so that sets of values can be tested with C-level set operations.
    return frozenset("".join(chars) for word in words
                     for chars in itertools.product(*({c.lower(), c.upper()} for c in word)))


MISSING_TOKENS = _all_cases(("na", "n/a", "nan", "null", "none"))
BOOLEAN_TOKENS = _all_cases(("true", "false", "yes", "no", "t", "f", "y", "n"))

INTEGER_RE = re.compile(r"[+-]?[0-9]+")
FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

# strptime's %B follows the C locale unless the process calls setlocale(), which Django does not do.
MONTHS = {name: number for number, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"), start=1)}
_DAYS_IN_MONTH = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

_D = r"(?P<d>0?[1-9]|[12][0-9]|3[01])"
_M = r"(?P<m>0?[1-9]|1[0-2])"
_Y = r"(?P<Y>[0-9]{4})"
_B = r"(?P<B>[A-Za-z]{3,9})"
# Tried in this order; a column gets the first format that fits all its values.
DATE_FORMATS: dict[str, re.Pattern[str]] = {
    fmt: re.compile(pattern) for fmt, pattern in (
        ("%Y-%m-%d", f"{_Y}-{_M}-{_D}"),
        ("%d,%B,%Y", f"{_D},{_B},{_Y}"),
        ("%d.%m.%Y", rf"{_D}\.{_M}\.{_Y}"),
        ("%d/%m/%Y", f"{_D}/{_M}/{_Y}"),
        ("%m/%d/%Y", f"{_M}/{_D}/{_Y}"),
        ("%d %B %Y", f"{_D} {_B} {_Y}"),
        ("%B %d, %Y", f"{_B} {_D}, {_Y}"),
        ("%Y/%m/%d", f"{_Y}/{_M}/{_D}"),
    )
}
DATE_MIN_LEN, DATE_MAX_LEN = 8, 18  # "1.1.2004" .. "September 30, 2004"

DATETIME_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?P<sep>[T ])[0-9]{2}:[0-9]{2}"
    r"(?P<sec>:[0-9]{2}(?P<frac>\.[0-9]{1,6})?)?(?P<tz>Z|[+-][0-9]{2}:?[0-9]{2})?"
)


def date_parser(fmt: str) -> Callable[[str], date | None]:
    """A function returning the date a value stands for in `fmt`, or None if it is not such a date."""
    match = DATE_FORMATS[fmt].fullmatch

    def parse(value: str) -> date | None:
        if not DATE_MIN_LEN <= len(value) <= DATE_MAX_LEN:
            return None
        found = match(value)
        if found is None:
            return None
        parts = found.groupdict()
        if "B" in parts:
            month = MONTHS.get(parts["B"].lower())
            if month is None:
                return None
        else:
            month = int(parts["m"])
        year, day = int(parts["Y"]), int(parts["d"])
        if year == 0 or day > _DAYS_IN_MONTH[month]:
            return None
        if month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
            return None
        return date(year, month, day)

    return parse


DATE_PARSERS: dict[str, Callable[[str], date | None]] = {fmt: date_parser(fmt) for fmt in DATE_FORMATS}


def parse_datetime(value: str) -> tuple[datetime, tuple[str, bool, bool, bool]] | None:
    """An ISO 8601 date with a time, and its shape (separator, seconds?, fraction?, offset?), or None."""
    found = DATETIME_RE.fullmatch(value)
    if found is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:  # reached only for well-shaped values, e.g. "2004-02-30 10:00"
        return None
    shape = (found["sep"], found["sec"] is not None, found["frac"] is not None, found["tz"] is not None)
    return parsed, shape


def datetime_format(shape: tuple[str, bool, bool, bool]) -> str:
    """The strptime format for ISO datetimes of this shape."""
    sep, seconds, fraction, offset = shape
    time_format = "%H:%M" + (":%S" if seconds else "") + (".%f" if fraction else "")
    return f"%Y-%m-%d{sep}{time_format}" + ("%z" if offset else "")
