"""anonymizer.location.corpus: streaming import of geotagged posts, on the shared corpora and on broken files."""

from __future__ import annotations

import csv
import gzip
import inspect
import io
import json
import pickle

import pytest

from anonymizer.location.corpus import (
    MAX_EXAMPLES,
    ColumnMap,
    CorpusReport,
    Post,
    corpus_fingerprint,
    detect_format,
    load_corpus,
    open_corpus,
    read_corpus,
)
from anonymizer.platform.grid import Grid
from anonymizer.tabular import CsvFormatError
from tests.helpers import shared_data

TOKYO = Grid(35.50, 139.45, 35.85, 139.95, 20, 10)



def to_csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def to_jsonl(objects: list) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode("utf-8")


def read(data: bytes, **kwargs) -> tuple[list[Post], CorpusReport]:
    report = CorpusReport()
    posts = list(read_corpus(io.BytesIO(data), report=report, **kwargs))
    return posts, report


def refusal(data: bytes, **kwargs) -> CsvFormatError:
    with pytest.raises(CsvFormatError) as caught:
        read(data, **kwargs)
    return caught.value


GOOD = [["text", "lat", "lon"], ["hello", "35.68", "139.76"], ["world", "35.69", "139.70"]]


# --- the shared corpora -------------------------------------------------------------------------------------------


def test_japan_311_with_the_tokyo_grid():
    posts, report = load_corpus(shared_data("geo/japan_311/tweets.csv"), grid=TOKYO, columns=ColumnMap(id="id"))
    assert report.format == "csv"
    assert report.rows_read == 4660
    assert 2000 <= report.accepted <= 3200
    assert report.accepted == len(posts)
    assert report.accepted + sum(report.rejected.values()) == report.rows_read
    assert report.rejected.most_common(1)[0][0] == "outside_grid"
    assert len(report.examples) == MAX_EXAMPLES
    assert all(message.startswith(f"Row {row}: ") for row, message in report.examples)
    rows = [post.row for post in posts]
    assert rows == sorted(rows) and len(set(rows)) == len(rows) and rows[0] >= 2 and rows[-1] <= 4661
    for post in posts:
        assert post.cell is not None and 0 <= post.cell < TOKYO.n_cells
        assert post.cell == TOKYO.cell_of(post.lat, post.lon)
        assert post.text and post.text == post.text.strip()
        assert post.id.startswith("jp311-")
    assert len({post.cell for post in posts}) > 50  # spread over the city, not piled in one cell
    summary = report.summary()
    assert summary.startswith(f"Read 4,660 rows: {report.accepted:,} accepted, ")
    assert "outside the grid" in summary
    json.dumps(report.as_dict(), allow_nan=False)
    assert report.as_dict()["rejected"]["outside_grid"] == report.rejected["outside_grid"]


def test_japan_311_first_post_is_row_two():
    posts, report = load_corpus(shared_data("geo/japan_311/tweets.csv"), columns=ColumnMap(id="id"))
    first = posts[0]
    assert (first.row, first.id, first.text) == (2, "jp311-0", "地震です\uff01")
    assert (first.lat, first.lon) == (35.66856, 139.6633)
    assert first.cell is None and first.user is None
    assert report.accepted + sum(report.rejected.values()) == 4660


def test_us_midwest_gzip_through_open_corpus():
    path = shared_data("geo/us_midwest_2017/tweets.csv.gz")
    report = CorpusReport()
    with open_corpus(path) as fileobj:
        assert fileobj.read(3) == b"id,"  # decompressed, and seekable for read_corpus
        posts = read_corpus(fileobj, columns=ColumnMap(id="id", user="user", time="created"), report=report)
        users = set()
        count = 0
        for post in posts:
            count += 1
            users.add(post.user)
            assert post.user.startswith("u") and len(post.user) == 13
    assert report.rows_read == 46651
    assert count == report.accepted
    assert report.accepted + sum(report.rejected.values()) == 46651
    assert len(users) > 1000


def test_fingerprint_is_stable_and_sensitive():
    posts, _ = load_corpus(shared_data("geo/japan_311/tweets.csv"), grid=TOKYO)
    again, _ = load_corpus(shared_data("geo/japan_311/tweets.csv"), grid=TOKYO)
    fingerprint = corpus_fingerprint(posts)
    assert len(fingerprint) == 64 and int(fingerprint, 16) >= 0
    assert corpus_fingerprint(again) == fingerprint
    assert corpus_fingerprint(iter(posts)) == fingerprint
    # Stable across processes: the same posts pickled and fingerprinted elsewhere give the same digest, and the
    # digest does not depend on the grid cell or the row number.
    moved = [Post(row=p.row + 1, text=p.text, lat=p.lat, lon=p.lon, user=p.user) for p in pickle.loads(
        pickle.dumps(posts))]
    assert corpus_fingerprint(moved) == fingerprint
    changed = list(posts)
    changed[100] = Post(row=changed[100].row, text=changed[100].text + "!", lat=changed[100].lat,
                        lon=changed[100].lon)
    assert corpus_fingerprint(changed) != fingerprint
    nudged = list(posts)
    nudged[5] = Post(row=nudged[5].row, text=nudged[5].text, lat=nudged[5].lat + 1e-9, lon=nudged[5].lon)
    assert corpus_fingerprint(nudged) != fingerprint
    assert corpus_fingerprint(posts[::-1]) != fingerprint
    assert corpus_fingerprint(posts[:-1]) != fingerprint


def test_fingerprint_known_value():
    # A fixed value, so that a change of the encoding (which would orphan fingerprints stored with models) is seen.
    posts = [Post(row=2, text="地震です\uff01", lat=35.66856, lon=139.6633),
             Post(row=3, text="a", lat=-1.5, lon=2.0, user="u1")]
    assert corpus_fingerprint(posts) == "765add2a052fb787f4c75fabaf9934468c73c8f1250178919fa0892ae284c810"
    assert corpus_fingerprint([]) != corpus_fingerprint(posts)
    split = [Post(row=2, text="ab", lat=1.0, lon=2.0, user="c")]
    joined = [Post(row=2, text="a", lat=1.0, lon=2.0, user="bc")]
    assert corpus_fingerprint(split) != corpus_fingerprint(joined)


# --- CSV ----------------------------------------------------------------------------------------------------------


def test_csv_basic_fields_and_optional_columns():
    data = to_csv([["post_id", "who", "when", "text", "lat", "lon"],
                   ["7", "alice", "2011-03-11T14:46", "  揺れた  ", "35.6812", "139.7671"],
                   ["8", "", "", "ok", "+35.7", "139.8e0"]])
    posts, report = read(data, columns=ColumnMap(id="post_id", user="who", time="when"), grid=TOKYO)
    assert posts[0] == Post(row=2, text="揺れた", lat=35.6812, lon=139.7671, id="7", user="alice",
                            time="2011-03-11T14:46", cell=TOKYO.cell_of(35.6812, 139.7671))
    assert (posts[1].user, posts[1].time, posts[1].lat, posts[1].lon) == (None, None, 35.7, 139.8)
    assert report.as_dict()["rejected"] == {} and report.accepted == 2 and report.rows_read == 2
    assert report.summary() == "Read 2 rows: 2 accepted."


def test_wrong_columns_name_the_missing_ones_and_list_the_file_columns():
    data = to_csv([["id", "text", "latitude", "longitude"], ["1", "x", "35.6", "139.7"]])
    error = refusal(data)
    assert error.row == 1
    message = str(error)
    assert message.startswith('Row 1: the file has no columns "lat" (expected latitude in decimal degrees) and "lon"')
    assert "its columns are: id, text, latitude, longitude." in message
    assert "Map the columns or rename them." in message
    posts, _ = read(data, columns=ColumnMap(lat="latitude", lon="longitude"))
    assert posts[0].lat == 35.6
    # An optional column, when mapped, must exist too.
    error = refusal(to_csv(GOOD), columns=ColumnMap(user="user_id"))
    assert 'no column "user_id" (expected a user identifier)' in str(error)
    assert "its columns are: text, lat, lon." in str(error)


def test_columns_match_case_insensitively_when_exact_fails():
    data = to_csv([["Text", " LAT ", "Lon", "lat_error"], ["x", "35.6", "139.7", "5"]])
    posts, _ = read(data)
    assert (posts[0].text, posts[0].lat, posts[0].lon) == ("x", 35.6, 139.7)
    # An exact match wins over a case-insensitive one.
    data = to_csv([["text", "LAT", "lat", "lon"], ["x", "1.0", "35.6", "139.7"]])
    assert read(data)[0][0].lat == 35.6
    # Two columns equal but for case, neither exact: ambiguous.
    data = to_csv([["text", "LAT", "Lat", "lon"], ["x", "1.0", "35.6", "139.7"]])
    error = refusal(data)
    assert '"LAT" and "Lat"' in str(error)


def test_bad_coordinates_are_counted_with_row_numbers():
    rows = [["id", "text", "lat", "lon"],
            ["1", "fine", "35.6", "139.7"],          # row 2
            ["2", "", "35.6", "139.7"],              # row 3: missing text
            ["3", "   ", "35.6", "139.7"],           # row 4: missing text
            ["4", "x", "abc", "139.7"],              # row 5
            ["5", "x", "", "139.7"],                 # row 6
            ["6", "x", "nan", "139.7"],              # row 7
            ["7", "x", "35.6", "inf"],               # row 8
            ["8", "x", "35.6", "1_39"],              # row 9
            ["9", "x", "95.2", "139.7"],             # row 10
            ["10", "x", "35.6", "-180.5"],           # row 11
            ["11", "x", "35,6", "139,7"],            # row 12
            ["12", "fine too", "-89.9", "180"]]      # row 13
    posts, report = read(to_csv(rows))
    assert [p.row for p in posts] == [2, 13]
    assert [p.id for p in posts] == [None, None]
    assert report.rows_read == 12 and report.accepted == 2
    assert report.rejected == {"missing_text": 2, "bad_latitude": 4, "bad_longitude": 2,
                               "coordinates_out_of_range": 2}
    examples = dict(report.examples)
    assert sorted(examples) == list(range(3, 13))
    assert examples[3] == "Row 3: the text is empty."
    assert examples[5] == 'Row 5: latitude "abc" is not a number.'
    assert examples[6] == "Row 6: latitude is empty."
    assert examples[7] == 'Row 7: latitude "nan" is not a number.'
    assert examples[8] == 'Row 8: longitude "inf" is not a number.'
    assert examples[10] == 'Row 10: latitude "95.2" is outside -90 to 90.'
    assert examples[11] == 'Row 11: longitude "-180.5" is outside -180 to 180.'
    assert examples[12].startswith('Row 12: latitude "35,6"')
    summary = report.summary()
    assert summary.startswith("Read 12 rows: 2 accepted, 10 rejected (4 bad latitude, 2 bad longitude, "
                              "2 coordinates out of range, 2 missing text).")
    assert "First rejected: row 3 (the text is empty)" in summary
    assert list(report.as_dict()["rejected"]) == sorted(report.rejected)


def test_examples_stop_at_one_hundred_but_counts_do_not():
    rows = [["text", "lat", "lon"], ["ok", "1", "2"]] + [["x", "bad", "2"]] * 250
    posts, report = read(to_csv(rows))
    assert len(posts) == 1
    assert report.rejected["bad_latitude"] == 250
    assert len(report.examples) == MAX_EXAMPLES
    assert report.examples[-1][0] == 102


def test_all_rows_outside_the_grid_is_an_error_with_the_summary():
    data = to_csv([["text", "lat", "lon"]] + [["x", "34.69", "135.50"]] * 5)  # Osaka, not Tokyo
    report = CorpusReport()
    with pytest.raises(CsvFormatError) as caught:
        list(read_corpus(io.BytesIO(data), grid=TOKYO, report=report))
    message = str(caught.value)
    assert "No post was accepted." in message
    assert "Read 5 rows: 0 accepted, 5 rejected (5 outside the grid)." in message
    assert "Expected posts inside the grid (latitude 35.5 to 35.85, longitude 139.45 to 139.95)" in message
    assert report.rejected == {"outside_grid": 5}  # the report is complete even so
    # Swapped latitude and longitude are pointed out.
    swapped = to_csv([["text", "lat", "lon"]] + [["x", "10.5", "20.5"]] * 3)
    error = refusal(swapped, grid=Grid(20, 10, 21, 11, 2, 2))
    assert "latitude and longitude swapped" in str(error)


def test_all_rows_bad_says_what_was_expected():
    error = refusal(to_csv([["text", "lat", "lon"], ["", "1", "2"], ["x", "north", "2"]]))
    assert "Read 2 rows: 0 accepted, 2 rejected (1 bad latitude, 1 missing text)." in str(error)
    assert "Expected records with a non-empty text and latitude and longitude as decimal degrees" in str(error)
    error = refusal(b"text,lat,lon\n")
    assert "header row but no data rows" in str(error)


def test_empty_and_blank_files():
    assert "empty" in str(refusal(b""))
    assert "empty" in str(refusal(b"", format="jsonl"))
    assert "empty" in str(refusal(b"", name="posts.jsonl"))
    assert "empty" in str(refusal(b" \n\n  \n"))
    assert "empty" in str(refusal(b"\n \n", format="jsonl"))


def test_latin1_bytes_name_the_line():
    data = "text,lat,lon\ncafé,35.6,139.7\n".encode("latin-1")
    error = refusal(data)
    assert error.row == 2
    assert "byte 0xE9 on line 2" in str(error) and "UTF-8" in str(error)
    data = to_jsonl([{"text": "a", "lat": 1, "lon": 2}]) + '{"text": "café", "lat": 1, "lon": 2}\n'.encode("latin-1")
    error = refusal(data, format="jsonl")
    assert error.row == 2
    assert "byte 0xE9 on line 2" in str(error)


def test_broken_csv_keeps_the_tabular_errors():
    error = refusal(b"text,lat,lon\nx,1,2\ny,1,2,3\n")
    assert error.row == 3 and "4 fields" in str(error)
    error = refusal(b'text,lat,lon\nx,1,2\n"y,1,2\n')
    assert "never closed" in str(error)


def test_semicolon_and_tab_separated_files():
    posts, _ = read(b"text;lat;lon\nhallo;52.5;13.4\n")
    assert (posts[0].lat, posts[0].lon) == (52.5, 13.4)
    posts, _ = read(b"text\tlat\tlon\nhallo, welt\t52.5\t13.4\n", name="posts.tsv")
    assert posts[0].text == "hallo, welt"


def test_gzip_csv_through_open_corpus_and_read_corpus(tmp_path):
    plain = to_csv(GOOD)
    for name in ("posts.csv.gz", "posts.data"):  # found by the magic bytes, not only by the name
        path = tmp_path / name
        path.write_bytes(gzip.compress(plain))
        with open_corpus(path) as fileobj:
            assert fileobj.seekable() and fileobj.read() == plain
        posts, report = load_corpus(path)
        assert [p.text for p in posts] == ["hello", "world"] and report.format == "csv"
    # read_corpus also takes a gzip stream directly, even one that cannot seek.
    posts, _ = read(gzip.compress(plain))
    assert len(posts) == 2
    posts = list(read_corpus(_Unseekable(gzip.compress(plain))))
    assert len(posts) == 2
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(gzip.compress(plain * 200)[:-40])
    with pytest.raises(CsvFormatError, match="gzip"), open_corpus(broken):
        pass


class _Unseekable(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


class _CountingReader(io.BytesIO):
    """A BytesIO that remembers the furthest byte read."""

    furthest = 0

    def read(self, size=-1):
        data = super().read(size)
        self.furthest = max(self.furthest, self.tell())
        return data

    def readline(self, size=-1):
        data = super().readline(size)
        self.furthest = max(self.furthest, self.tell())
        return data


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_streaming_reads_only_the_start_for_the_first_post(kind):
    n = 100_000
    if kind == "csv":
        data = b"text,lat,lon\n" + b"".join(b"post number %d,35.6,139.7\n" % i for i in range(n))
    else:
        data = b"".join(b'{"text": "post number %d", "lat": 35.6, "lon": 139.7}\n' % i for i in range(n))
    fileobj = _CountingReader(data)
    report = CorpusReport()
    posts = read_corpus(fileobj, report=report)
    assert inspect.isgenerator(posts)
    assert fileobj.furthest == 0  # nothing is read before the first post is asked for
    first = next(posts)
    assert first.text == "post number 0"
    assert fileobj.furthest < len(data) // 4
    assert report.rows_read < n // 10
    assert sum(1 for _ in posts) == n - 1
    assert report.rows_read == report.accepted == n
    assert fileobj.furthest == len(data)


def test_format_detection():
    assert detect_format("x.jsonl", b"text,lat") == "jsonl"
    assert detect_format("X.NDJSON.GZ", b"") == "jsonl"
    assert detect_format("x.json", b"") == "jsonl"
    assert detect_format("x.csv.gz", b"{") == "csv"
    assert detect_format("x.tsv", b"{") == "csv"
    assert detect_format("", b"\xef\xbb\xbf \n {\"a\": 1}") == "jsonl"
    assert detect_format("upload.txt", b"text,lat,lon") == "csv"
    with pytest.raises(ValueError, match="format"):
        read_corpus(io.BytesIO(b""), format="xlsx")


# --- JSON Lines ---------------------------------------------------------------------------------------------------


def test_jsonl_posts_with_numbers_strings_and_optional_keys():
    data = b"\xef\xbb\xbf" + to_jsonl([
        {"text": "a", "lat": 35.6, "lon": "139.7", "id": 12345678901234567890, "user": "u1", "at": "t"},
        {"text": " b ", "lat": "35.61", "lon": 139.71, "id": "x"},
    ])
    data = data.replace(b"\n", b"\n\n   \n", 1)  # blank lines are skipped but counted as lines
    posts, report = read(data, columns=ColumnMap(id="id", user="user", time="at"), grid=TOKYO)
    assert report.format == "jsonl"
    assert posts[0] == Post(row=1, text="a", lat=35.6, lon=139.7, id="12345678901234567890", user="u1", time="t",
                            cell=TOKYO.cell_of(35.6, 139.7))
    assert (posts[1].row, posts[1].text, posts[1].id, posts[1].user, posts[1].time) == (4, "b", "x", None, None)
    assert report.rows_read == 2


def test_jsonl_broken_middle_line_is_rejected_with_its_line_number():
    lines = [json.dumps({"text": f"p{i}", "lat": 35.6, "lon": 139.7}) for i in range(6)]
    lines[2] = '{"text": "cut off", "lat": 35.6'
    lines[4] = '["not", "an", "object"]'
    data = ("\n".join(lines) + "\n").encode()
    posts, report = read(data, name="posts.jsonl")
    assert [p.row for p in posts] == [1, 2, 4, 6]
    assert report.rows_read == 6 and report.accepted == 4
    assert report.rejected == {"invalid_json": 1, "not_an_object": 1}
    examples = dict(report.examples)
    assert examples[3].startswith("Line 3: the line is not valid JSON: ")
    assert examples[5] == "Line 5: the line holds a JSON array, not a JSON object."
    assert report.summary().startswith("Read 6 lines: 4 accepted, 2 rejected (1 not valid JSON, 1 not a JSON object). "
                                      "First rejected: line 3 (the line is not valid JSON: Expecting ")


def test_jsonl_broken_first_line_is_fatal():
    data = b'{"text": "a", "lat": 35.6,\n{"text": "b", "lat": 35.6, "lon": 139.7}\n'
    error = refusal(data)
    assert error.row == 1
    assert "first line is not valid JSON" in str(error) and "JSON Lines" in str(error)
    error = refusal(b'[\n  {"text": "a", "lat": 1, "lon": 2}\n]\n', name="posts.json")
    assert "one JSON array" in str(error)
    error = refusal(b'\n\n  \nnot json\n{"text": "b", "lat": 35.6, "lon": 139.7}\n', format="jsonl")
    assert error.row == 4


def test_jsonl_missing_and_bad_values_are_rejected():
    objects = [{"text": "ok", "lat": 1, "lon": 2}] * 6 + [
        {"lat": 1, "lon": 2},                       # line 7: no text key
        {"text": None, "lat": 1, "lon": 2},         # line 8
        {"text": 5, "lat": 1, "lon": 2},            # line 9
        {"text": "x", "lon": 2},                    # line 10: no lat key
        {"text": "x", "lat": True, "lon": 2},       # line 11
        {"text": "x", "lat": 1, "lon": None},       # line 12
        {"text": "x", "lat": 1, "lon": [2]},        # line 13
        {"text": "x", "lat": -91, "lon": 2},        # line 14
        {"text": "x", "lat": 1, "lon": "NaN"},      # line 15
    ]
    posts, report = read(to_jsonl(objects), format="jsonl")
    assert len(posts) == 6
    assert report.rejected == {"missing_text": 3, "bad_latitude": 2, "bad_longitude": 3,
                               "coordinates_out_of_range": 1}
    examples = dict(report.examples)
    assert examples[7] == 'Line 7: there is no "text" key.'
    assert examples[9] == "Line 9: the text is 5, not a string."
    assert examples[10] == 'Line 10: there is no "lat" key (latitude).'
    assert examples[11] == "Line 11: latitude true is not a number."
    assert examples[12] == "Line 12: longitude is null."
    assert examples[14] == "Line 14: latitude -91 is outside -90 to 90 (are latitude and longitude swapped?)."


def test_jsonl_keys_match_case_insensitively():
    posts, _ = read(to_jsonl([{"Text": "a", "LAT": 1.5, "Lon": 2.5}, {"text": "b", "lat": 3, "lon": 4}]))
    assert [(p.text, p.lat, p.lon) for p in posts] == [("a", 1.5, 2.5), ("b", 3.0, 4.0)]


def test_jsonl_key_missing_in_most_rows_is_fatal_and_lists_the_keys():
    objects = [{"id": i, "text": "x", "latitude": 35.6, "longitude": 139.7} for i in range(1500)]
    error = refusal(to_jsonl(objects))
    message = str(error)
    assert 'have no "lat" key' in message and "probably named differently" in message
    assert "the keys seen are: id, text, latitude, longitude." in message
    posts, _ = read(to_jsonl(objects), columns=ColumnMap(lat="latitude", lon="longitude"))
    assert len(posts) == 1500
    # Missing in a minority of the first rows: those rows are rejected, not the file.
    mixed = [{"text": "x", "lat": 1, "lon": 2}] * 3 + [{"text": "x", "lon": 2}] * 2
    posts, report = read(to_jsonl(mixed))
    assert len(posts) == 3 and report.rejected == {"bad_latitude": 2}
    # A mapped optional key counts too.
    error = refusal(to_jsonl([{"text": "x", "lat": 1, "lon": 2}] * 3), columns=ColumnMap(user="user_id"))
    assert '"user_id"' in str(error)
    # After the first 1,000 rows a missing key is an ordinary rejection.
    late = [{"text": "x", "lat": 1, "lon": 2}] * 1000 + [{"text": "x", "lon": 2}] * 1500
    posts, report = read(to_jsonl(late))
    assert len(posts) == 1000 and report.rejected == {"bad_latitude": 1500}


def test_report_is_json_friendly():
    _, report = read(to_csv([*GOOD, ["", "1", "2"]]))
    data = report.as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["rows_read"] == 3 and data["accepted"] == 2 and data["rejected"] == {"missing_text": 1}
    assert data["examples"] == [{"row": 4, "message": "Row 4: the text is empty."}]
    assert data["summary"] == report.summary()
