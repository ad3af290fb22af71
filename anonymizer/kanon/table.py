"""Reading a dataset for k-anonymization: the relational values of every row, parsed by their configured type,
and the person each row belongs to. Texts are not kept here: they are streamed again when recoding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import BinaryIO

from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource

Progress = Callable[[int, int, str], None]
MISSING = {"", "na", "n/a", "nan", "null", "none"}


@dataclass
class Column:
    """The parsed values of one relational column, one per row (None for a missing value)."""

    name: str
    index: int
    type: str
    values: list = field(default_factory=list)


@dataclass
class Table:
    """A dataset's relational part: the header, the person (direct identifier) of each row, parsed columns."""

    header: tuple[str, ...]
    persons: list[str]  # one per row: the direct identifier's value
    columns: dict[str, Column]
    rows: int = 0
    delimiter: str = ","
    encoding: str = "utf-8"


def parse_value(raw: str, attribute, row: int, column: int) -> object:
    """A cell parsed by its attribute's type; CsvFormatError with row and column when it cannot be."""
    text = raw.strip()
    if text.casefold() in MISSING:
        return None
    if attribute.type == "numerical":
        try:
            number = float(text)
        except ValueError:
            raise CsvFormatError(f'"{text}" is not a number (the column is configured as numerical).', row=row,
                                 column=column, column_name=attribute.name) from None
        if not math.isfinite(number):
            raise CsvFormatError(f'"{text}" is not a finite number.', row=row, column=column,
                                 column_name=attribute.name)
        return number
    if attribute.type == "date":
        try:
            return datetime.strptime(text, attribute.date_format).date()
        except ValueError:
            raise CsvFormatError(f'"{text}" does not match the date format "{attribute.date_format}".', row=row,
                                 column=column, column_name=attribute.name) from None
    if attribute.type == "ordinal" and attribute.order and text not in attribute.order:
        raise CsvFormatError(f'"{text}" is not one of the ordinal values {", ".join(attribute.order)}.', row=row,
                             column=column, column_name=attribute.name)
    return text


def read_table(fileobj: BinaryIO, config, *, progress: Progress | None = None) -> Table:
    """Parse the relational columns the configuration needs; every bad cell raises CsvFormatError (row, column).

    The direct identifier must be present on every row: rows without a person cannot be grouped.
    """
    source = CsvSource(fileobj)
    header = source.header
    position = {name: i for i, name in enumerate(header)}
    identifier = config.direct_identifier
    wanted = [a for a in config.attributes if a.role in ("quasi_identifier", "sensitive") and a.type != "text"]
    table = Table(header=header, persons=[], columns={a.name: Column(a.name, position[a.name], a.type) for a in wanted},
                  delimiter=source.delimiter, encoding=source.encoding)
    id_at = position[identifier]
    row = 1
    for batch in source.batches():
        for record in batch:
            row += 1
            person = record[id_at].strip()
            if person.casefold() in MISSING:
                raise CsvFormatError(f'the direct identifier "{identifier}" is missing; every row must name its '
                                     "person (rows are grouped by it).", row=row, column=id_at + 1,
                                     column_name=identifier)
            table.persons.append(person)
            for attribute in wanted:
                column = table.columns[attribute.name]
                column.values.append(parse_value(record[column.index], attribute, row, column.index + 1))
        if progress is not None:
            progress(source.bytes_read, source.size_bytes, f"reading: {source.rows:,} rows")
    table.rows = source.rows
    if table.rows == 0:
        raise CsvFormatError("The file has a header row but no data rows.")
    return table


def iter_rows(fileobj: BinaryIO) -> Iterator[list[str]]:
    """The data rows again (second pass, for recoding), streamed."""
    source = CsvSource(fileobj)
    for batch in source.batches():
        yield from batch


def as_number(value: object) -> float:
    """Numbers and dates on one axis (dates as proleptic ordinal days) for spans, medians and means."""
    if isinstance(value, date):
        return float(value.toordinal())
    return float(value)
