"""The check-ins the product ships, aggregated: no coordinates, no venue names, one row per group of check-ins.

The default preference model is trained at bootstrap from the Foursquare NYC check-ins, but the product ships
only what the proxy labels and the item spaces need (``data/preferences/foursquare_nyc/``): per pseudonymous
user, weekday, hour of the day, venue category, top-level category and *per-user venue pseudonym* (v1 = the
venue that user checked in at most often, v2 the next, ...), the number of check-ins. The venue pseudonym keeps
the proxy rule's routine venues computable (``labels.ProxyLabelRule`` only compares a user's check-ins at the
same venue) without saying which venue it is; two users' "v1" are unrelated places.

Gzipped CSV, ',' separated, header ``user,weekday,hour,category,root,venue,checkins``; weekday 0 = Monday.
Reading it back expands every row into ``checkins`` check-ins at minute ``hour * 60`` with no position
(latitude and longitude NaN), so every item space with whole-hour slots ("root" or "category" places) gives
exactly the ratings of the original file; a "grid" item space needs positions and is refused.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from anonymizer.preferences.checkins import CheckIns, InputFormatError
from anonymizer.tabular import export

COLUMNS = ("user", "weekday", "hour", "category", "root", "venue", "checkins")


def aggregate_rows(checkins: CheckIns) -> list[tuple[str, int, int, str, str, str, int]]:
    """The aggregated rows of ``checkins``, sorted. User i becomes ``u{i:03d}`` (the order of the user codes is
    kept, so user indices stay the same); venues become per-user pseudonyms by decreasing visits."""
    user = checkins.user.astype(np.int64)
    venue_counts = Counter(zip(user.tolist(), checkins.venue.tolist(), strict=True))
    pseudonym: dict[tuple[int, int], str] = {}
    for u in range(checkins.n_users):
        ranked = sorted(((-n, v) for (uu, v), n in venue_counts.items() if uu == u))
        pseudonym.update({(u, v): f"v{rank}" for rank, (_, v) in enumerate(ranked, start=1)})
    groups = Counter(zip(user.tolist(), checkins.weekday.tolist(), (checkins.minute // 60).tolist(),
                         checkins.category.tolist(), checkins.root.tolist(), checkins.venue.tolist(), strict=True))
    width = max(3, len(str(checkins.n_users - 1)))
    rows = [(f"u{u:0{width}d}", int(day), int(hour), checkins.category_names[cat], checkins.root_names[root],
             pseudonym[(u, v)], n) for (u, day, hour, cat, root, v), n in groups.items()]
    return sorted(rows, key=lambda r: (r[0], r[1], r[2], r[3], int(r[5][1:])))


def write_aggregate(checkins: CheckIns, path: str | Path, *, neutralize_formulas: bool = True) -> int:
    """Write the aggregate of ``checkins`` as a gzipped CSV (reproducible bytes: no time stamp in the gzip
    header); returns the number of rows. ``neutralize_formulas``: a category a spreadsheet would run as a
    formula is written quoted (``tabular.export``)."""
    rows = aggregate_rows(checkins)
    text = io.StringIO()
    writer = export.writer(text, lineterminator="\n", neutralize=neutralize_formulas)
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    with Path(path).open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
        handle.write(text.getvalue().encode("utf-8"))
    return len(rows)


def _integer(row_number: int, column: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputFormatError(row_number, column, f"{text!r} is not an integer") from None
    if not low <= value <= high:
        raise InputFormatError(row_number, column, f"{value} is not between {low} and {high}")
    return value


def parse_aggregate(lines: Iterable[str]) -> CheckIns:
    """Aggregated rows (header included) back into check-ins; a bad cell raises InputFormatError."""
    reader = csv.reader(lines)
    header = [h.strip() for h in next(reader, [])]
    if tuple(header) != COLUMNS:
        raise InputFormatError(1, "(header)", f"expected the columns {', '.join(COLUMNS)}; got {header}")
    users, weekdays, hours, categories, roots, venues, counts = [], [], [], [], [], [], []
    for row_number, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise InputFormatError(row_number, COLUMNS[min(len(row), len(COLUMNS) - 1)],
                                   f"the row has {len(row)} fields, the header {len(COLUMNS)}")
        for column, cell in zip(("user", "category", "root", "venue"), (row[0], row[3], row[4], row[5]),
                                strict=True):
            if not cell.strip():
                raise InputFormatError(row_number, column, "empty")
        users.append(row[0])
        weekdays.append(_integer(row_number, "weekday", row[1], 0, 6))
        hours.append(_integer(row_number, "hour", row[2], 0, 23))
        categories.append(row[3])
        roots.append(row[4])
        venues.append(f"{row[0]}\t{row[5]}")
        counts.append(_integer(row_number, "checkins", row[6], 1, 10**9))
    if not users:
        raise InputFormatError(2, "(rows)", "the file has a header but no rows")
    repeat = np.asarray(counts, np.int64)

    def codes(values: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
        names, inverse = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
        return np.repeat(inverse.astype(np.int32), repeat), tuple(str(n) for n in names)

    user, user_names = codes(users)
    category, category_names = codes(categories)
    root, root_names = codes(roots)
    venue, _ = codes(venues)
    n = int(repeat.sum())
    return CheckIns(user=user, weekday=np.repeat(np.asarray(weekdays, np.int8), repeat),
                    minute=np.repeat(np.asarray(hours, np.int16) * 60, repeat), category=category, root=root,
                    lat=np.full(n, np.nan), lon=np.full(n, np.nan), venue=venue, week=np.full(n, -1, np.int32),
                    user_names=user_names, category_names=category_names, root_names=root_names)


def read_aggregate(path: str | Path) -> CheckIns:
    """Read a gzipped (or plain) aggregate CSV written by ``write_aggregate``."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        return parse_aggregate(handle)
