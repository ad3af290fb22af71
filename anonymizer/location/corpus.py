"""Streaming import of geotagged posts from CSV or JSON Lines files (no Django here).

read_corpus yields one Post per accepted record and counts every rejected one, with a reason and a located
example, in a CorpusReport; problems with the file as a whole raise CsvFormatError, like the tabular reader.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import json
import math
import re
import shutil
import tempfile
import zlib
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from anonymizer.platform.grid import Grid
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource

MAX_EXAMPLES = 100
KEY_CHECK_ROWS = 1000  # JSON Lines: the first rows in which a mapped key that is mostly missing is fatal
MAX_LINE_BYTES = 64 * 2**20
SNIFF_BYTES = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_COPY_CHUNK = 1024 * 1024

REASONS = {
    "missing_text": "missing text",
    "bad_latitude": "bad latitude",
    "bad_longitude": "bad longitude",
    "coordinates_out_of_range": "coordinates out of range",
    "outside_grid": "outside the grid",
    "invalid_json": "not valid JSON",
    "not_an_object": "not a JSON object",
    "filtered_out": "excluded by a filter",
}
_EXPECTED = {
    "text": "the post's text",
    "lat": "latitude in decimal degrees",
    "lon": "longitude in decimal degrees",
    "id": "a post identifier",
    "user": "a user identifier",
    "time": "the posting time",
}
_ROLE_NAMES = {"lat": "latitude", "lon": "longitude"}
# Decimal degrees as written by people and programs; float() alone would also take "1_0", "nan" or full-width digits.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_MISSING = object()


@dataclass(frozen=True)
class ColumnMap:
    """Which CSV column (or JSON key) holds each field; id, user and time are optional."""

    text: str = "text"
    lat: str = "lat"
    lon: str = "lon"
    id: str | None = None
    user: str | None = None
    time: str | None = None

    def mapped(self) -> list[tuple[str, str]]:
        """(field, column name) for the fields to read, required ones first."""
        roles = ("text", "lat", "lon", "id", "user", "time")
        return [(role, getattr(self, role)) for role in roles if getattr(self, role) is not None]


@dataclass(frozen=True)
class Post:
    """One accepted record."""

    row: int  # 1-based record number: for CSV the header is row 1 (the first post is row 2); for JSON Lines the line
    text: str
    lat: float
    lon: float
    id: str | None = None
    user: str | None = None
    time: str | None = None
    cell: int | None = None  # the grid cell when a grid was given


@dataclass
class CorpusReport:
    """What read_corpus accepted and rejected; complete once its generator is exhausted."""

    rows_read: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[tuple[int, str]] = field(default_factory=list)  # first MAX_EXAMPLES (row, sentence) rejected
    format: str | None = None  # "csv" or "jsonl", once known

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())

    def reject(self, row: int, reason: str, sentence: str) -> None:
        """Count a rejected record, keeping its sentence if it is among the first MAX_EXAMPLES."""
        self.rejected[reason] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append((row, sentence))

    def as_dict(self) -> dict:
        """JSON-friendly form, rejected reasons sorted by name."""
        return {
            "format": self.format,
            "rows_read": self.rows_read,
            "accepted": self.accepted,
            "rejected_total": self.rejected_total,
            "rejected": {reason: self.rejected[reason] for reason in sorted(self.rejected)},
            "examples": [{"row": row, "message": message} for row, message in self.examples],
            "summary": self.summary(),
        }

    def summary(self) -> str:
        """One paragraph: counts, rejections by reason (most frequent first) and the first rejected records."""
        unit = "line" if self.format == "jsonl" else "row"
        text = f"Read {_count(self.rows_read, unit)}: {self.accepted:,} accepted"
        total = self.rejected_total
        if total:
            reasons = sorted(self.rejected.items(), key=lambda item: (-item[1], item[0]))
            parts = ", ".join(f"{count:,} {REASONS.get(reason, reason)}" for reason, count in reasons if count)
            text += f", {total:,} rejected ({parts})"
        text += "."
        if self.examples:
            shown = [f"{unit} {row} ({_detail(message)})" for row, message in self.examples[:3]]
            text += f" First rejected: {'; '.join(shown)}."
        return text


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _detail(sentence: str) -> str:
    """'Row 5: latitude "x" is not a number.' -> 'latitude "x" is not a number'."""
    _, _, rest = sentence.partition(": ")
    return (rest or sentence).rstrip(".")


def _shown(value: Any, limit: int = 40) -> str:
    """A raw value for a message: quoted when it is text, cut when long."""
    if isinstance(value, str):
        return json.dumps(value if len(value) <= limit else value[: limit - 1] + "…", ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)[:limit]


# --- opening files ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _plain_seekable(fileobj: BinaryIO) -> Iterator[BinaryIO]:
    """The file itself when it is seekable and not gzip-compressed, else a decompressed/copied temporary file."""
    seekable = getattr(fileobj, "seekable", lambda: False)()
    if seekable:
        fileobj.seek(0)
        magic = fileobj.read(2)
        fileobj.seek(0)
        if magic != _GZIP_MAGIC:
            yield fileobj
            return
    with tempfile.TemporaryFile(prefix="kakurega-corpus-") as copy:
        magic = b"" if seekable else fileobj.read(2)
        if seekable or magic == _GZIP_MAGIC:
            compressed = _Prefixed(magic, fileobj) if magic else fileobj
            try:
                with gzip.GzipFile(fileobj=compressed, mode="rb") as source:
                    shutil.copyfileobj(source, copy, _COPY_CHUNK)
            except (OSError, EOFError, zlib.error) as exc:
                raise CsvFormatError(f"The file is gzip-compressed but cannot be decompressed ({exc}); it is "
                                     "probably truncated or damaged.") from None
        else:  # a pipe or a socket: CsvSource needs to seek
            copy.write(magic)
            shutil.copyfileobj(fileobj, copy, _COPY_CHUNK)
        copy.seek(0)
        yield copy


class _Prefixed:
    """A read-only stream: `head` (already read from `rest`) followed by the rest."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size is None or size < 0:
            data, self._head = self._head + self._rest.read(), b""
            return data
        data, self._head = self._head[:size], self._head[size:]
        return data


@contextlib.contextmanager
def open_corpus(path: str | Path) -> Iterator[BinaryIO]:
    """Open a corpus file for read_corpus: a seekable binary file, gzip (found by its magic bytes) decompressed
    into a temporary file that is removed on exit."""
    with Path(path).open("rb") as raw, _plain_seekable(raw) as plain:
        yield plain


def load_corpus(path: str | Path, **kwargs: Any) -> tuple[list[Post], CorpusReport]:
    """open_corpus + read_corpus into a list; keyword arguments go to read_corpus (name defaults to the file's)."""
    report = kwargs.pop("report", None)
    report = CorpusReport() if report is None else report
    kwargs.setdefault("name", Path(path).name)
    with open_corpus(path) as fileobj:
        posts = list(read_corpus(fileobj, report=report, **kwargs))
    return posts, report


def corpus_fingerprint(posts: Iterable[Post]) -> str:
    """sha256 (hex) of the posts' text, lat, lon and user, in order; the same in every run and process."""
    digest = hashlib.sha256(b"kakurega-corpus-v1\n")
    for post in posts:
        record = json.dumps([post.text, post.lat, post.lon, post.user], ensure_ascii=False, separators=(",", ":"))
        digest.update(record.encode("utf-8", errors="surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


# --- reading ------------------------------------------------------------------------------------------------------


def detect_format(name: str, head: bytes) -> str:
    """"csv" or "jsonl": by the name's extension (.gz ignored), else by the first non-blank byte of `head`."""
    lowered = name.lower().strip()
    if lowered.endswith(".gz"):
        lowered = lowered[:-3]
    if lowered.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if lowered.endswith((".csv", ".tsv")):
        return "csv"
    head = head.removeprefix(codecs.BOM_UTF8).lstrip()
    return "jsonl" if head.startswith(b"{") else "csv"


def read_corpus(fileobj: BinaryIO, *, columns: ColumnMap = ColumnMap(), grid: Grid | None = None,
                report: CorpusReport | None = None, format: str | None = None, name: str = "",
                where: Mapping[str, Collection[str]] | None = None) -> Iterator[Post]:
    """Stream the accepted posts of a CSV or JSON Lines file, counting rejected records in `report`.

    `where` keeps only records whose column (or key) holds one of the given values, e.g. {"lang": {"en"}};
    the others are counted as "filtered_out".

    `format` is "csv", "jsonl" or None to detect it from `name` or the content. gzip content is decompressed.
    File-level problems raise CsvFormatError: a missing mapped column, bytes that are not UTF-8, broken CSV, a
    first line that is not JSON, an empty file, or no accepted post at all (the message holds the summary).
    Memory stays constant whatever the file's size; read `report` once the generator is exhausted.
    """
    if format not in (None, "csv", "jsonl"):
        raise ValueError(f'format must be "csv", "jsonl" or None (detect), not {format!r}.')
    if not isinstance(columns, ColumnMap):
        raise TypeError(f"columns must be a ColumnMap, not {type(columns).__name__}.")
    if grid is not None and not isinstance(grid, Grid):
        raise TypeError(f"grid must be a Grid or None, not {type(grid).__name__}.")
    if not name:
        candidate = getattr(fileobj, "name", "")
        name = candidate if isinstance(candidate, str) else ""
    filters = {column: frozenset(values) for column, values in (where or {}).items()}
    return _read(fileobj, columns, grid, CorpusReport() if report is None else report, format, name, filters)


def _read(fileobj: BinaryIO, columns: ColumnMap, grid: Grid | None, report: CorpusReport, format: str | None,
          name: str, filters: dict[str, frozenset[str]]) -> Iterator[Post]:
    with _plain_seekable(fileobj) as plain:
        if format is None:
            plain.seek(0)
            format = detect_format(name, plain.read(SNIFF_BYTES))
            plain.seek(0)
        report.format = format
        checker = _Checker(grid, report, "Row" if format == "csv" else "Line")
        if format == "csv":
            yield from _read_csv(plain, columns, checker, filters)
        else:
            yield from _read_jsonl(plain, columns, checker, filters)
    if checker.rows == 0:
        what = "a header row but no data rows" if format == "csv" else "no JSON objects"
        raise CsvFormatError(f"The file has {what}; expected at least one post with text, latitude and longitude.")
    if checker.accepted == 0:
        raise CsvFormatError(f"No post was accepted. {report.summary()} {checker.expectation()}")


class _Checker:
    """Validates one record's raw values into a Post, or counts the rejection in the report."""

    def __init__(self, grid: Grid | None, report: CorpusReport, unit: str) -> None:
        self.grid = grid
        self.report = report
        self.unit = unit
        self.rows = 0
        self.accepted = 0
        self.swapped = 0  # rows outside the grid that would be inside with latitude and longitude swapped

    def reject(self, row: int, reason: str, detail: str) -> None:
        self.report.reject(row, reason, f"{self.unit} {row}: {detail}")

    def excluded(self, row: int, values: Mapping[str, Any], filters: dict[str, frozenset[str]]) -> bool:
        """Count the record as filtered out when one of its filter columns holds another value."""
        for column, allowed in filters.items():
            value = values[column]
            if (value.strip() if isinstance(value, str) else value) not in allowed:
                self.rows += 1
                self.report.rows_read += 1
                self.reject(row, "filtered_out", f"{column} is {_shown(None if value is _MISSING else value)}.")
                return True
        return False

    def check(self, row: int, text: Any, lat: Any, lon: Any, extra: dict[str, str | None],
              names: dict[str, str]) -> Post | None:
        self.rows += 1
        self.report.rows_read += 1
        if text is _MISSING:
            return self.reject(row, "missing_text", f'there is no "{names["text"]}" key.')
        if text is None:
            return self.reject(row, "missing_text", "the text is null.")
        if not isinstance(text, str):
            return self.reject(row, "missing_text", f"the text is {_shown(text)}, not a string.")
        text = text.strip()
        if not text:
            return self.reject(row, "missing_text", "the text is empty.")
        lat_value = self._coordinate(row, "lat", lat, names["lat"], "bad_latitude")
        if lat_value is None:
            return None
        lon_value = self._coordinate(row, "lon", lon, names["lon"], "bad_longitude")
        if lon_value is None:
            return None
        if not -90.0 <= lat_value <= 90.0:
            hint = " (are latitude and longitude swapped?)" if abs(lon_value) <= 90 else ""
            return self.reject(row, "coordinates_out_of_range",
                               f"latitude {_shown(lat)} is outside -90 to 90{hint}.")
        if not -180.0 <= lon_value <= 180.0:
            return self.reject(row, "coordinates_out_of_range", f"longitude {_shown(lon)} is outside -180 to 180.")
        cell = None
        if self.grid is not None:
            cell = self.grid.cell_of(lat_value, lon_value)
            if cell is None:
                if self.grid.contains(lon_value, lat_value):
                    self.swapped += 1
                return self.reject(row, "outside_grid",
                                   f"the point at latitude {lat_value!r}, longitude {lon_value!r} is outside the "
                                   f"grid.")
        self.accepted += 1
        self.report.accepted += 1
        return Post(row=row, text=text, lat=lat_value, lon=lon_value, cell=cell, **extra)

    def _coordinate(self, row: int, role: str, raw: Any, key: str, reason: str) -> float | None:
        what = _ROLE_NAMES[role]
        if raw is _MISSING:
            return self.reject(row, reason, f'there is no "{key}" key ({what}).')
        if raw is None:
            return self.reject(row, reason, f"{what} is null.")
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            return self.reject(row, reason, f"{what} {_shown(raw)} is not a number.")
        if isinstance(raw, str):
            stripped = raw.strip()
            if not stripped:
                return self.reject(row, reason, f"{what} is empty.")
            if not _NUMBER.fullmatch(stripped):
                return self.reject(row, reason, f"{what} {_shown(raw)} is not a number.")
            value = float(stripped)
        else:
            value = float(raw)
        if not math.isfinite(value):
            return self.reject(row, reason, f"{what} {_shown(raw)} is not a finite number.")
        return value

    def expectation(self) -> str:
        """What was expected, for the error raised when nothing was accepted."""
        rejected = self.report.rejected
        if self.grid is not None and rejected["outside_grid"] and rejected.most_common(1)[0][0] == "outside_grid":
            g = self.grid
            message = (f"Expected posts inside the grid (latitude {g.south!r} to {g.north!r}, longitude {g.west!r} "
                       f"to {g.east!r}); check that the grid covers the area of the data")
            if self.swapped * 2 > rejected["outside_grid"]:
                message += ": most points would be inside with latitude and longitude swapped, so check the mapping"
            return message + "."
        return ("Expected records with a non-empty text and latitude and longitude as decimal degrees "
                "(e.g. 35.6812 and 139.7671).")


def _read_csv(fileobj: BinaryIO, columns: ColumnMap, checker: _Checker,
              filters: dict[str, frozenset[str]]) -> Iterator[Post]:
    source = CsvSource(fileobj)
    index = _resolve_columns(source.header, columns)
    filter_at = {column: _resolve_columns(source.header, ColumnMap(text=column))["text"] for column in filters}
    names = dict(columns.mapped())
    text_at, lat_at, lon_at = index["text"], index["lat"], index["lon"]
    optional = [(role, at) for role, at in index.items() if role in ("id", "user", "time")]
    row = 1
    for batch in source.batches(max_rows=500):
        for record in batch:
            row += 1
            if filters and checker.excluded(row, {column: record[at] for column, at in filter_at.items()}, filters):
                continue
            extra = {role: record[at].strip() or None for role, at in optional}
            post = checker.check(row, record[text_at], record[lat_at], record[lon_at], extra, names)
            if post is not None:
                yield post


def _resolve_columns(header: tuple[str, ...], columns: ColumnMap) -> dict[str, int]:
    """Header position of each mapped column: exact name, then stripped, then case-insensitive."""
    stripped = [name.strip() for name in header]
    folded = [name.casefold() for name in stripped]
    index: dict[str, int] = {}
    missing: list[tuple[str, str]] = []
    for role, wanted in columns.mapped():
        for names, key in ((header, wanted), (stripped, wanted.strip()), (folded, wanted.strip().casefold())):
            hits = [i for i, name in enumerate(names) if name == key]
            if len(hits) == 1:
                index[role] = hits[0]
                break
            if len(hits) > 1:
                listed = " and ".join(f'"{header[i]}"' for i in hits)
                raise CsvFormatError(f'the columns {listed} both match "{wanted}" when case is ignored; rename '
                                     "one of them or map the exact name.", row=1)
        else:
            missing.append((role, wanted))
    if missing:
        described = " and ".join(f'"{wanted}" (expected {_EXPECTED[role]})' for role, wanted in missing)
        plural = "s" if len(missing) > 1 else ""
        raise CsvFormatError(f"the file has no column{plural} {described}; its columns are: "
                             f"{', '.join(stripped)}. Map the columns or rename them.", row=1)
    return index


def _lines(fileobj: BinaryIO) -> Iterator[tuple[int, str]]:
    """(line number, decoded line) of each non-blank line; bytes that are not UTF-8 raise."""
    fileobj.seek(0)
    offset = 0
    number = 0
    while True:
        raw = fileobj.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise CsvFormatError(f"line {number} is longer than {MAX_LINE_BYTES // 2**20} MiB; the file does not "
                                 "look like JSON Lines (one JSON object per line).", row=number)
        start = 3 if number == 1 and raw.startswith(codecs.BOM_UTF8) else 0
        try:
            line = raw[start:].decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = raw[start + exc.start]
            raise CsvFormatError(
                f"byte 0x{bad:02X} on line {number} (byte offset {offset + start + exc.start:,}) is not valid "
                "UTF-8; the file must be encoded as UTF-8 (it may be in Windows-1252, Latin-1 or another "
                "encoding). Re-save it as UTF-8.", row=number) from None
        offset += len(raw)
        if line.strip():
            yield number, line


class _KeyFinder:
    """Looks a mapped key up in a JSON object: exact, else case-insensitive (remembering the spelling found)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.folded = key.casefold()
        self.spelling = key

    def get(self, obj: dict) -> Any:
        if self.key in obj:
            return obj[self.key]
        if self.spelling in obj:
            return obj[self.spelling]
        for key in obj:
            if isinstance(key, str) and key.casefold() == self.folded:
                self.spelling = key
                return obj[key]
        return _MISSING


def _read_jsonl(fileobj: BinaryIO, columns: ColumnMap, checker: _Checker,
                filters: dict[str, frozenset[str]]) -> Iterator[Post]:
    fileobj.seek(0, 2)
    if fileobj.tell() == 0:
        raise CsvFormatError("The file is empty (0 bytes); expected JSON Lines: one JSON object per line.")
    mapped = columns.mapped()
    names = dict(mapped)
    finders = {role: _KeyFinder(key) for role, key in mapped}
    filter_finders = {column: _KeyFinder(column) for column in filters}
    optional = [(role, finders[role]) for role in ("id", "user", "time") if role in finders]
    # The first KEY_CHECK_ROWS posts wait in `held` until the key check below has passed.
    held: list[Post] = []
    missing: Counter[str] = Counter()
    keys_seen: dict[str, None] = {}
    objects = 0
    checked = False
    first = True
    for number, line in _lines(fileobj):
        try:
            obj = json.loads(line)
        except ValueError as exc:
            if first:
                raise CsvFormatError(_not_json_lines(line, exc), row=number) from None
            checker.rows += 1
            checker.report.rows_read += 1
            checker.reject(number, "invalid_json", f"the line is not valid JSON: {_json_error(exc)}.")
            obj = _MISSING
        first = False
        post = None
        if obj is not _MISSING:
            if not isinstance(obj, dict):
                checker.rows += 1
                checker.report.rows_read += 1
                checker.reject(number, "not_an_object", f"the line holds {_json_kind(obj)}, not a JSON object.")
            elif filters and checker.excluded(number, {c: f.get(obj) for c, f in filter_finders.items()}, filters):
                pass
            else:
                values = {role: finder.get(obj) for role, finder in finders.items()}
                if not checked:
                    objects += 1
                    missing.update(role for role, value in values.items() if value is _MISSING)
                    keys_seen.update((str(key), None) for key in obj)
                extra = {role: _optional_text(values[role]) for role, _ in optional}
                post = checker.check(number, values["text"], values["lat"], values["lon"], extra, names)
        if checked:
            if post is not None:
                yield post
            continue
        if post is not None:
            held.append(post)
        if checker.rows >= KEY_CHECK_ROWS:
            _check_keys(missing, objects, keys_seen, names)
            checked = True
            yield from held
            held = []
    if first:
        raise CsvFormatError("The file is empty: it contains only whitespace; expected JSON Lines: one JSON object "
                             "per line.")
    if not checked:
        _check_keys(missing, objects, keys_seen, names)
        yield from held


def _check_keys(missing: Counter[str], objects: int, keys_seen: dict[str, None], names: dict[str, str]) -> None:
    for role, count in missing.most_common():
        if count * 2 > objects:
            keys = list(keys_seen)
            listed = ", ".join(keys[:50]) + (f" and {len(keys) - 50} more" if len(keys) > 50 else "")
            raise CsvFormatError(
                f'{count:,} of the first {objects:,} JSON objects have no "{names[role]}" key (expected '
                f"{_EXPECTED[role]}), so it is probably named differently; the keys seen are: {listed or 'none'}. "
                "Map the keys or rename them.")


def _optional_text(value: Any) -> str | None:
    if value is _MISSING or value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.strip() or None


def _json_error(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc)


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, str):
        return "a JSON string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "a number"


def _not_json_lines(line: str, exc: ValueError) -> str:
    message = (f"the first line is not valid JSON ({_json_error(exc)}); expected JSON Lines: one JSON object per "
               "line.")
    if line.lstrip().startswith("["):
        message += " A file that holds one JSON array must be rewritten with one object per line."
    return message
