"""Reading check-ins and uploaded preferences into arrays.

Check-ins: the Foursquare NYC "multiple aspect trajectories" file ``fs_ny_top_users_193.csv`` (';'-separated;
columns new_tid, tid, lat_lon, time, day, poi, type, root_type, rating, weather, label), read straight from the
MAT repository's ``original.zip`` or from the extracted CSV. ``time`` is the local minute of the day (0-1439),
``day`` the weekday's English name, ``type`` the Foursquare venue category, ``root_type`` its top-level
category, ``label`` the user id, ``tid`` the user's weekly trajectory.

Preferences: a CSV a user uploads with their real choices, one row per (user, time, place) with a 0/1 label
(1 = fine to publish, 0 = hide). Columns, by header name (',', ';' or tab separated):
    user     any identifier
    time     minute-of-day as "HH:MM", an hour "18", or an hour range "18-24" (its start is used)
             (``slot`` is accepted as the column's name too)
    weekday  optional: Monday..Sunday, Mon..Sun, or 0..6 with 0 = Monday
    place    the place as the uploader names it (a category, an area, ...)
    label    1/0 (also publish/hide, yes/no, true/false)
Every error names the row (1 = the header) and the column.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WEEKDAY_INDEX = {name.lower(): i for i, name in enumerate(WEEKDAYS)} | {
    name[:3].lower(): i for i, name in enumerate(WEEKDAYS)} | {str(i): i for i in range(7)}
FOURSQUARE_MEMBER = "fs_ny_top_users_193.csv"
FOURSQUARE_COLUMNS = ("lat_lon", "time", "day", "type", "root_type", "label")
_LABELS = {"1": 1, "0": 0, "publish": 1, "hide": 0, "yes": 1, "no": 0, "true": 1, "false": 0}


class InputFormatError(ValueError):
    """A row of an input file does not hold what its column should; the message names the row and column."""

    def __init__(self, row: int, column: str, message: str) -> None:
        super().__init__(f"row {row}, column {column!r}: {message}")
        self.row = row
        self.column = column


def _codes(values: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Integer codes into the sorted distinct values."""
    names, codes = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
    return codes.astype(np.int32), tuple(str(n) for n in names)


@dataclass(frozen=True)
class CheckIns:
    """One entry per check-in; ``*_names[code]`` gives the string behind a code."""

    user: np.ndarray  # int32 code into user_names
    weekday: np.ndarray  # int8, 0 = Monday
    minute: np.ndarray  # int16, minute of the day 0..1439
    category: np.ndarray  # int32 code into category_names (fine Foursquare venue category)
    root: np.ndarray  # int32 code into root_names (top-level category)
    lat: np.ndarray  # float64 decimal degrees
    lon: np.ndarray
    venue: np.ndarray  # int32 code of the venue (its exact "lat lon" text)
    week: np.ndarray  # int32 weekly trajectory id ("tid"), -1 when absent
    user_names: tuple[str, ...]
    category_names: tuple[str, ...]
    root_names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.user)

    @property
    def n_users(self) -> int:
        return len(self.user_names)

    def places(self, kind: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """Place codes and names for a place kind: "root" (top-level category) or "category" (fine)."""
        if kind == "root":
            return self.root, self.root_names
        if kind == "category":
            return self.category, self.category_names
        raise ValueError(f"check-ins have no place kind {kind!r} (root, category; grid is computed from lat/lon)")

    def subset(self, mask: np.ndarray) -> CheckIns:
        """The check-ins where ``mask`` holds (codes and names unchanged)."""
        keep = np.asarray(mask)
        return CheckIns(self.user[keep], self.weekday[keep], self.minute[keep], self.category[keep],
                        self.root[keep], self.lat[keep], self.lon[keep], self.venue[keep], self.week[keep],
                        self.user_names, self.category_names, self.root_names)


def _foursquare_lines(path: Path) -> Iterator[str]:
    if path.suffix.lower() == ".zip":
        with zipfile.ZipFile(path) as archive:
            members = [n for n in archive.namelist() if n.lower().endswith(".csv")]
            member = FOURSQUARE_MEMBER if FOURSQUARE_MEMBER in members else (members[0] if members else None)
            if member is None:
                raise ValueError(f"{path} holds no CSV file")
            with archive.open(member) as raw:
                yield from io.TextIOWrapper(raw, encoding="utf-8", newline="")
    else:
        with path.open(encoding="utf-8", newline="") as handle:
            yield from handle


def parse_foursquare(lines: Iterable[str], delimiter: str = ";") -> CheckIns:
    """Parse the Foursquare MAT CSV text (header included) into arrays; a bad cell raises InputFormatError."""
    reader = csv.reader(lines, delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise InputFormatError(1, "(header)", "the file is empty")
    header = [h.strip() for h in header]
    missing = [c for c in FOURSQUARE_COLUMNS if c not in header]
    if missing:
        raise InputFormatError(1, missing[0], f"missing column(s) {', '.join(missing)}; the header has {header}")
    at = {c: header.index(c) for c in (*FOURSQUARE_COLUMNS, "tid") if c in header}
    users, weekdays, minutes, categories, roots, lats, lons, venues, weeks = [], [], [], [], [], [], [], [], []
    for row_number, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) < len(header):
            raise InputFormatError(row_number, header[len(row)] if len(row) < len(header) else "",
                                   f"the row has {len(row)} fields, the header {len(header)}")
        users.append(row[at["label"]].strip())
        day = row[at["day"]].strip().lower()
        if day not in _WEEKDAY_INDEX:
            raise InputFormatError(row_number, "day", f"{row[at['day']]!r} is not a weekday name")
        weekdays.append(_WEEKDAY_INDEX[day])
        try:
            minute = int(row[at["time"]])
        except ValueError:
            raise InputFormatError(row_number, "time", f"{row[at['time']]!r} is not a minute of the day") from None
        if not 0 <= minute < 1440:
            raise InputFormatError(row_number, "time", f"{minute} is not a minute of the day (0-1439)")
        minutes.append(minute)
        categories.append(row[at["type"]].strip())
        roots.append(row[at["root_type"]].strip())
        parts = row[at["lat_lon"]].split()
        try:
            lat, lon = (float(p) for p in parts)
        except ValueError:
            raise InputFormatError(row_number, "lat_lon",
                                   f"{row[at['lat_lon']]!r} is not 'latitude longitude'") from None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise InputFormatError(row_number, "lat_lon", f"{lat} {lon} is not a position on Earth")
        lats.append(lat)
        lons.append(lon)
        venues.append(" ".join(parts))
        if "tid" in at:
            try:
                weeks.append(int(row[at["tid"]]))
            except ValueError:
                raise InputFormatError(row_number, "tid", f"{row[at['tid']]!r} is not an integer") from None
        else:
            weeks.append(-1)
    if not users:
        raise InputFormatError(2, "(rows)", "the file has a header but no check-ins")
    user, user_names = _codes(users)
    category, category_names = _codes(categories)
    root, root_names = _codes(roots)
    venue, _ = _codes(venues)
    return CheckIns(user=user, weekday=np.asarray(weekdays, np.int8), minute=np.asarray(minutes, np.int16),
                    category=category, root=root, lat=np.asarray(lats), lon=np.asarray(lons), venue=venue,
                    week=np.asarray(weeks, np.int32), user_names=user_names, category_names=category_names,
                    root_names=root_names)


def read_foursquare(path: str | Path) -> CheckIns:
    """Read the Foursquare NYC MAT check-ins from ``original.zip`` or the extracted ';'-separated CSV."""
    return parse_foursquare(_foursquare_lines(Path(path)))


@dataclass(frozen=True)
class PreferenceUpload:
    """One entry per uploaded (user, time, place, label) row."""

    user: np.ndarray  # int32 code into user_names
    weekday: np.ndarray  # int8, 0 = Monday, -1 = not given
    minute: np.ndarray  # int16 minute of the day
    place: np.ndarray  # int32 code into place_names
    label: np.ndarray  # int8, 1 = publish, 0 = hide
    user_names: tuple[str, ...]
    place_names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.user)

    @property
    def n_users(self) -> int:
        return len(self.user_names)

    def places(self, kind: str) -> tuple[np.ndarray, tuple[str, ...]]:
        if kind == "given":
            return self.place, self.place_names
        raise ValueError(f"uploaded preferences name their places themselves: use place='given', not {kind!r}")


def _minute_of(text: str) -> int:
    """'HH:MM' -> minute; '18' -> 18 * 60; '18-24' -> 18 * 60 (a slot's start)."""
    text = text.strip()
    if "-" in text:
        text = text.split("-", 1)[0].strip()
    if ":" in text:
        hours, minutes = text.split(":", 1)
        value = int(hours) * 60 + int(minutes[:2])
        if not 0 <= int(minutes[:2]) < 60:
            raise ValueError(text)
    else:
        value = int(float(text.rstrip("hH")) * 60)
    if not 0 <= value < 1440:
        raise ValueError(text)
    return value


def parse_preferences(text: str) -> PreferenceUpload:
    """Parse an uploaded preference CSV (see the module docstring); a bad cell raises InputFormatError."""
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = [h.strip().lower() for h in next(reader, [])]
    if not header:
        raise InputFormatError(1, "(header)", "the file is empty")
    time_column = "time"
    if "time" not in header and "slot" in header:
        header[header.index("slot")] = "time"
        time_column = "slot"
    missing = [c for c in ("user", "time", "place", "label") if c not in header]
    if missing:
        raise InputFormatError(1, missing[0], f"missing column(s) {', '.join(missing)} (needed: user, time or "
                                              f"slot, place, label; optional: weekday); the header has {header}")
    at = {c: header.index(c) for c in ("user", "time", "place", "label", "weekday") if c in header}
    users, weekdays, minutes, places, labels = [], [], [], [], []
    for row_number, row in enumerate(reader, start=2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(at.values()):
            raise InputFormatError(row_number, header[len(row)], f"the row has {len(row)} fields, the header "
                                                                 f"{len(header)}")
        user = row[at["user"]].strip()
        if not user:
            raise InputFormatError(row_number, "user", "empty user")
        try:
            minutes.append(_minute_of(row[at["time"]]))
        except ValueError:
            raise InputFormatError(row_number, time_column,
                                   f"{row[at['time']]!r} is not a time of day (HH:MM, an hour, or a range "
                                   f"like 18-24)") from None
        if "weekday" in at and row[at["weekday"]].strip():
            day = row[at["weekday"]].strip().lower()
            if day not in _WEEKDAY_INDEX:
                raise InputFormatError(row_number, "weekday", f"{row[at['weekday']]!r} is not a weekday "
                                                              f"(Monday..Sunday, Mon..Sun or 0..6)")
            weekdays.append(_WEEKDAY_INDEX[day])
        else:
            weekdays.append(-1)
        place = row[at["place"]].strip()
        if not place:
            raise InputFormatError(row_number, "place", "empty place")
        label = row[at["label"]].strip().lower()
        if label not in _LABELS:
            raise InputFormatError(row_number, "label", f"{row[at['label']]!r} is not 1/0 (publish/hide)")
        users.append(user)
        places.append(place)
        labels.append(_LABELS[label])
    if not users:
        raise InputFormatError(2, "(rows)", "the file has a header but no preferences")
    user, user_names = _codes(users)
    place, place_names = _codes(places)
    return PreferenceUpload(user=user, weekday=np.asarray(weekdays, np.int8), minute=np.asarray(minutes, np.int16),
                            place=place, label=np.asarray(labels, np.int8), user_names=user_names,
                            place_names=place_names)


def read_preferences(path: str | Path) -> PreferenceUpload:
    """Read an uploaded preference CSV file (UTF-8, a BOM is allowed)."""
    return parse_preferences(Path(path).read_text(encoding="utf-8-sig"))
