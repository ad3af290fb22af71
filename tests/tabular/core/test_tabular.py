"""anonymizer.tabular: the CSV acceptance check and the column profile (plain pytest, no Django)."""

from __future__ import annotations

import csv
import io
import json
import pickle
import random
from datetime import datetime

import pytest

from anonymizer.tabular import CsvFormatError, CsvShape, check_csv, chosen_columns, profile_csv
from anonymizer.tabular import profile as profile_module
from anonymizer.tabular import reader as reader_module
from anonymizer.tabular.values import DATE_FORMATS, DATE_PARSERS
from tests.helpers import kanon_file, shared_data

MAX = 10 * 2**20



def check(data: bytes, **kwargs) -> CsvShape:
    return check_csv(io.BytesIO(data), max_bytes=kwargs.pop("max_bytes", MAX), **kwargs)


def refusal(data: bytes, **kwargs) -> CsvFormatError:
    with pytest.raises(CsvFormatError) as caught:
        check(data, **kwargs)
    return caught.value


def profile(data: bytes, **kwargs) -> dict:
    result = profile_csv(io.BytesIO(data), **kwargs)
    json.dumps(result, allow_nan=False)  # must be plain JSON
    return result


def column(result: dict, name: str) -> dict:
    return next(c for c in result["columns"] if c["name"] == name)


def to_csv(rows: list[list[str]], delimiter: str = ",", lineterminator: str = "\r\n") -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out, delimiter=delimiter, lineterminator=lineterminator).writerows(rows)
    return out.getvalue().encode("utf-8")


# --- CsvFormatError -----------------------------------------------------------------------------------------


def test_error_puts_the_location_first_and_serialises():
    error = CsvFormatError("the row has 5 fields, but the header has 4 columns.", row=17)
    assert str(error) == "Row 17: the row has 5 fields, but the header has 4 columns."
    named = CsvFormatError("the column has no name.", row=1, column=3, column_name="age")
    assert str(named) == 'Row 1, column 3 ("age"): the column has no name.'
    assert named.as_dict() == {"message": str(named), "row": 1, "column": 3, "column_name": "age"}
    assert str(CsvFormatError("The file is empty.")) == "The file is empty."
    assert str(CsvFormatError("x.", column=2)) == "Column 2: x."
    assert isinstance(named, ValueError)
    copy = pickle.loads(pickle.dumps(named))
    assert (str(copy), copy.row, copy.column, copy.column_name) == (str(named), 1, 3, "age")


# --- check_csv: refusals ------------------------------------------------------------------------------------


def test_refuses_an_empty_file():
    error = refusal(b"")
    assert "empty (0 bytes)" in str(error)
    assert (error.row, error.column) == (None, None)


def test_refuses_a_whitespace_only_file():
    error = refusal(b"  \r\n\n \t \n")
    assert "only whitespace" in str(error)
    assert error.row is None


def test_refuses_a_file_over_the_size_limit_before_reading_it():
    data = b"\xff" * (3 * 2**20)  # not UTF-8 either: the size is what must be reported
    error = refusal(data, max_bytes=2 * 2**20)
    assert str(error) == "The file is 3.0 MB, larger than the limit of 2.0 MB."
    small = refusal(b"a,b\n1,2\n", max_bytes=5)
    assert "8 bytes" in str(small) and "limit of 5 bytes" in str(small)
    assert check(b"a,b\n1,2\n", max_bytes=8).rows == 1  # exactly at the limit is fine


def test_refuses_non_utf8_with_line_and_byte():
    error = refusal("id,name\n1,Ann\n2,Ren\xe9e\n".encode("latin-1"))
    assert error.row == 3
    assert "byte 0xE9 on line 3 (byte offset 19)" in str(error)  # 0-based: "id,name\n1,Ann\n2,Ren" is 19
    assert "UTF-8" in error.message and "Re-save" in error.message


def test_non_utf8_inside_a_multiline_value_names_row_and_physical_line():
    error = refusal(b'id,note\n1,"first\nsecond\nbad \xff here"\n')
    assert error.row == 2
    assert "byte 0xFF on line 4" in str(error)


def test_non_utf8_far_into_a_large_file_is_found_incrementally():
    body = "".join(f"{i},caf\u00e9 \u2603 {i}\r\n" for i in range(30_000)).encode()  # > several chunks
    data = b"id,text\r\n" + body + b"30000,\xe9t\xe9\r\n"
    error = refusal(data)
    assert error.row == 30_002
    assert f"on line 30002 (byte offset {len(data) - 5:,})" in str(error)


def test_refuses_a_utf8_sequence_cut_at_the_end_of_the_file():
    error = refusal("a,b\n1,\u00e9".encode()[:-1])
    assert error.row == 2 and "byte 0xC3 on line 2" in str(error)


def test_refuses_utf16_and_binary_files():
    assert "UTF-16" in str(refusal("a,b\n1,2\n".encode("utf-16")))
    assert "Excel workbook" in str(refusal(b"PK\x03\x04\x14\x00\x06\x00rest of a zip"))
    assert "gzip" in str(refusal(b"\x1f\x8b\x08\x00" + bytes(20)))


def test_nul_bytes_are_read_as_replacement_characters_and_counted():
    data = b'a,b\n1,2\n3,"x\ny\x00z"\n'
    assert check(data).nul_bytes == 1 and check(data).rows == 2
    result = profile(data)
    assert result["nul_bytes"] == 1
    assert result["sample"][1] == ["3", "x\ny\ufffdz"]


def test_refuses_an_unclosed_quote_naming_the_row_where_it_starts():
    error = refusal(b'id,text\n1,fine\n2,"never closed\n3,more\n4,text\n')
    assert error.row == 3
    assert "never closed" in str(error) and "the row starts on line 3" in str(error)


def test_refuses_text_after_a_closing_quote():
    error = refusal(b'id,text\n1,"quoted" trailing\n')
    assert error.row == 2
    assert "after a closing double quote on line 2" in str(error)


def test_refuses_an_empty_column_name():
    error = refusal(b"id,name,,age\n1,a,b,3\n")
    assert (error.row, error.column) == (1, 3)
    assert str(error).startswith("Row 1, column 3: the column has no name")
    trailing = refusal(b"id,name,\n1,a,\n")
    assert trailing.column == 3 and "at the end of the header line" in str(trailing)
    assert refusal(b"id,  ,x\n1,2,3\n").column == 2  # whitespace is no name either


def test_refuses_duplicate_column_names():
    error = refusal(b"id,age,name,age\n1,2,a,3\n")
    assert (error.row, error.column, error.column_name) == (1, 4, "age")
    assert 'the column name "age" is used for columns 2 and 4' in str(error)


def test_refuses_too_many_columns():
    header = ",".join(f"c{i}" for i in range(6)).encode()
    error = refusal(header + b"\n" + b"1," * 5 + b"1\n", max_columns=5)
    assert error.row == 1 and "6 columns, more than the limit of 5" in str(error)
    assert check(header + b"\n" + b"1," * 5 + b"1\n", max_columns=6).rows == 1


def test_refuses_a_row_with_too_many_or_too_few_fields():
    rows = b"".join(b"%d,a,b,c\n" % i for i in range(15))
    error = refusal(b"w,x,y,z\n" + rows + b"15,a,b,c,d\n16,a,b,c\n")
    assert error.row == 17
    assert str(error).startswith("Row 17: the row has 5 fields, but the header has 4 columns.")
    assert "enclosed in double quotes" in str(error)
    few = refusal(b"w,x,y,z\n1,2,3,4\n5,6\n")
    assert few.row == 3 and "the row has 2 fields, but the header has 4 columns" in str(few)


def test_field_count_error_gives_the_physical_line_when_it_differs():
    error = refusal(b'a,b\n1,"two\nlines"\n\n2,3,4\n')
    assert error.row == 3
    assert "The row starts on line 5 of the file." in str(error)


def test_refuses_a_header_without_data_rows():
    error = refusal(b"id,name\r\n\r\n")
    assert "no data rows" in str(error) and error.row is None


# --- check_csv: accepted files ------------------------------------------------------------------------------


def test_accepts_a_plain_file_and_rewinds_it():
    fileobj = io.BytesIO(b"id,name\n1,Ann\n2,Bob\n")
    shape = check_csv(fileobj, max_bytes=MAX)
    assert shape == CsvShape(encoding="utf-8", delimiter=",", header=("id", "name"), rows=2, size_bytes=20)
    assert fileobj.tell() == 0 and not fileobj.closed


def test_utf8_bom_is_accepted_and_not_part_of_the_header():
    shape = check(b"\xef\xbb\xbfid;name\r\n1;Ann\r\n")
    assert (shape.encoding, shape.delimiter, shape.header) == ("utf-8-sig", ";", ("id", "name"))
    assert shape.rows == 1
    result = profile(b"\xef\xbb\xbfid;name\r\n1;Ann\r\n")
    assert result["encoding"] == "utf-8-sig" and result["columns"][0]["name"] == "id"


@pytest.mark.parametrize("delimiter", [";", "\t", "|", ","])
def test_detects_the_delimiter(delimiter):
    rows = [["id", "name", "comment"]] + [[str(i), f"n{i}", "a, b; c | d"] for i in range(20)]
    shape = check(to_csv(rows, delimiter=delimiter))
    assert shape.delimiter == delimiter
    assert shape.header == ("id", "name", "comment") and shape.rows == 20


def test_semicolon_file_with_decimal_commas():
    shape = check(b"name;price;qty\nfoo;1,50;2\nbar;2,75;1\n")
    assert shape.delimiter == ";" and shape.header == ("name", "price", "qty")


def test_single_column_file_defaults_to_comma():
    shape = check(b"name\nAnn\nBob\n")
    assert (shape.delimiter, shape.header, shape.rows) == (",", ("name",), 2)


def test_quoted_fields_with_newlines_commas_and_quotes():
    rows = [["id", "text"], ["1", 'He said "hi",\nthen left.\r\nEnd'], ["2", "a,b,c"], ["3", ""]]
    data = to_csv(rows)
    assert check(data).rows == 3
    result = profile(data)
    assert result["sample"] == rows[1:]


@pytest.mark.parametrize("terminator", [b"\n", b"\r\n", b"\r"])
def test_line_endings(terminator):
    data = terminator.join([b"id,text", b"1,x", b'2,"multi\nline"', b"3,z", b""])
    assert check(data).rows == 3
    assert profile(data)["sample"] == [["1", "x"], ["2", "multi\nline"], ["3", "z"]]


def test_blank_lines_are_skipped():
    shape = check(b"\n\nid,name\n\n1,Ann\n   \n2,Bob\n\n")
    assert shape.header == ("id", "name") and shape.rows == 2


def test_fields_longer_than_csvs_default_limit():
    long_text = "word " * 100_000  # 500 kB, beyond csv's default 128 KiB field limit
    assert check(to_csv([["id", "text"], ["1", long_text]])).rows == 1


def test_works_on_a_minimal_file_object():
    class Upload:  # only what a Django UploadedFile offers for sure: read, seek, tell
        def __init__(self, data: bytes) -> None:
            self._buffer = io.BytesIO(data)

        def read(self, size: int = -1) -> bytes:
            return self._buffer.read(size)

        def seek(self, offset: int, whence: int = 0) -> int:
            return self._buffer.seek(offset, whence)

        def tell(self) -> int:
            return self._buffer.tell()

    upload = Upload(b"a,b\n1,2\n")
    upload.read(3)  # not at 0: check_csv starts from the beginning anyway
    assert check_csv(upload, max_bytes=100).rows == 1
    assert profile_csv(upload)["rows"] == 1


def test_chunk_boundaries_do_not_change_the_rows(monkeypatch):
    rng = random.Random(7)
    pieces = ["a", "\u00e9\u00e9", "x\ny", 'q,"r"', "\u20ac\r\n\u2603", "\x85\u2028\x0c", "", "  "]
    rows = [["id", "name", "note"]] + [[str(i), rng.choice(pieces), rng.choice(pieces)] for i in range(200)]
    for terminator in ("\n", "\r\n"):
        data = to_csv(rows, lineterminator=terminator)
        expected = list(csv.reader(io.StringIO(data.decode(), newline="")))
        for size in (1, 2, 3, 5, 64):
            monkeypatch.setattr(reader_module, "CHUNK_BYTES", size)
            source = reader_module.CsvSource(io.BytesIO(data))
            got = [list(source.header)] + [row for batch in source.batches(max_rows=7) for row in batch]
            assert got == expected, (terminator, size)


def test_line_numbers_survive_chunk_boundaries(monkeypatch):
    data = b'a,b\r\n1,"x\r\ny"\r\n\r\n2,3,4\r\n'
    for size in range(1, 12):
        monkeypatch.setattr(reader_module, "CHUNK_BYTES", size)
        error = refusal(data)
        assert error.row == 3 and "The row starts on line 5 of the file." in str(error), size


# --- profile_csv --------------------------------------------------------------------------------------------

TYPES_CSV = to_csv([
    ["flag", "count", "ratio", "day", "eu_day", "us_day", "blog_day", "long_day", "moment", "code", "note",
     "nothing", "binary", "mixed"],
    ["yes", "12", "1.5", "2004-05-14", "13.05.2004", "05/13/2004", "14,May,2004", "May 14, 2004",
     "2004-05-14T10:00:00", "A1", "The quick brown fox jumps over the lazy dog", "", "0", "1"],
    ["No", "-3", "-2", "2004-12-31", "01.01.2005", "12/31/2004", "1,June,2004", "June 1, 2004",
     "2004-05-15T23:59:59", "B2", "Another sentence that is clearly free text here", "NA", "1", "x"],
    ["TRUE", "+7", "3e2", "NULL", "31.12.2003", "01/01/2005", "9,September,2003", "September 9, 2003",
     "2004-05-14T00:00:00", "A1", "n/a", "  ", "1", "2.5"],
    ["f", "N/A", "nan", "2004-01-01", "", "", "", "", "", "C3", "Short one but still six words long", "None",
     "0", "2004-01-01"],
])


def test_profile_infers_every_type():
    result = profile(TYPES_CSV)
    assert result["rows"] == 4 and result["delimiter"] == "," and result["encoding"] == "utf-8"
    types = {c["name"]: c["type"] for c in result["columns"]}
    assert types == {
        "flag": "boolean", "count": "integer", "ratio": "float", "day": "date", "eu_day": "date",
        "us_day": "date", "blog_day": "date", "long_day": "date", "moment": "datetime", "code": "string",
        "note": "text", "nothing": "empty", "binary": "integer", "mixed": "string",
    }
    assert [c["index"] for c in result["columns"]] == list(range(14))


def test_profile_ranges_formats_and_missing_values():
    result = profile(TYPES_CSV)
    count = column(result, "count")
    assert (count["min"], count["max"], count["missing"], count["distinct"]) == (-3, 12, 1, 3)
    ratio = column(result, "ratio")
    assert (ratio["min"], ratio["max"], ratio["missing"]) == (-2.0, 300.0, 1)
    assert isinstance(ratio["min"], float)
    day = column(result, "day")
    assert (day["date_format"], day["min"], day["max"], day["missing"]) == ("%Y-%m-%d", "2004-01-01",
                                                                           "2004-12-31", 1)
    assert column(result, "eu_day")["date_format"] == "%d.%m.%Y"
    assert column(result, "us_day")["date_format"] == "%m/%d/%Y"
    blog = column(result, "blog_day")
    assert (blog["date_format"], blog["min"], blog["max"]) == ("%d,%B,%Y", "2003-09-09", "2004-06-01")
    assert column(result, "long_day")["date_format"] == "%B %d, %Y"
    moment = column(result, "moment")
    assert (moment["date_format"], moment["min"], moment["max"]) == (
        "%Y-%m-%dT%H:%M:%S", "2004-05-14T00:00:00", "2004-05-15T23:59:59")
    nothing = column(result, "nothing")
    assert (nothing["missing"], nothing["distinct"], nothing["mean_length"]) == (4, 0, 0.0)
    assert column(result, "note")["missing"] == 1
    for name in ("code", "flag", "note", "mixed"):
        assert column(result, name)["min"] is None and column(result, name)["date_format"] is None


def test_profile_top_values_only_for_string_boolean_integer():
    result = profile(TYPES_CSV)
    assert column(result, "code")["top_values"] == [["A1", 2], ["B2", 1], ["C3", 1]]
    assert column(result, "binary")["top_values"] == [["0", 2], ["1", 2]]
    assert len(column(result, "flag")["top_values"]) == 4
    for name in ("ratio", "day", "moment", "note", "nothing"):
        assert column(result, name)["top_values"] == []
    assert column(result, "code")["mean_length"] == 2.0


def test_date_format_is_the_first_that_fits_every_value():
    ambiguous = profile(b"d\n01/02/2004\n03/04/2005\n")
    assert column(ambiguous, "d")["date_format"] == "%d/%m/%Y"
    assert column(ambiguous, "d")["min"] == "2004-02-01"
    us = profile(b"d\n01/02/2004\n02/13/2004\n")
    assert column(us, "d")["date_format"] == "%m/%d/%Y"
    assert column(profile(b"d\n2004-02-30\n"), "d")["type"] == "string"  # no such day
    assert column(profile(b"d\n29.02.2004\n"), "d")["type"] == "date"  # leap year
    assert column(profile(b"d\n29.02.2003\n"), "d")["type"] == "string"
    assert column(profile(b"d\n14 Mai 2004\n"), "d")["type"] == "string"  # English month names only


def test_date_parsers_agree_with_strptime():
    samples = [
        "2004-05-14", "2004-5-4", "2004-13-01", "2004-00-10", "0000-01-01", "14,May,2004", "4,may,2004",
        "14,Mai,2004", "14,Sept,2004", "31,April,2004", "14.05.2004", "1.1.2004", "32.01.2004", "14/05/2004",
        "05/14/2004", "29/02/2000", "29/02/1900", "14 May 2004", "May 14, 2004", "September 9, 2003",
        "2004/05/14", "2004/5/14", "14-05-2004", " 2004-05-14", "2004-05-14x",
    ]
    for fmt, parse in DATE_PARSERS.items():
        for value in samples:
            try:
                expected = datetime.strptime(value, fmt).date()
            except ValueError:
                expected = None
            parsed = parse(value)
            # ours may be stricter than strptime, never more lenient
            assert parsed is None or parsed == expected, (fmt, value)
            if value.strip() == value and expected is not None:
                assert parsed == expected, (fmt, value)
    assert list(DATE_FORMATS)[:2] == ["%Y-%m-%d", "%d,%B,%Y"]


def test_datetime_shapes_give_strptime_formats():
    result = profile(b"a,b,c\n2004-05-14 10:00+01:00,2004-05-14T10:00:00.5Z,2004-05-14T10:00\n"
                     b"2004-05-15 11:30+0200,2004-05-14T10:00:01.25Z,2004-05-14T10:00:00\n")
    a, b, c = result["columns"]
    assert (a["type"], a["date_format"]) == ("datetime", "%Y-%m-%d %H:%M%z")
    assert (b["type"], b["date_format"]) == ("datetime", "%Y-%m-%dT%H:%M:%S.%f%z")
    assert datetime.strptime("2004-05-14T10:00:00.5Z", b["date_format"])
    assert (c["type"], c["date_format"]) == ("datetime", None)  # mixed shapes: no single format
    assert a["min"] == "2004-05-14T10:00:00+01:00"
    mixed = profile(b"t\n2004-05-14T10:00:00Z\n2004-05-14T10:00:00\n")["columns"][0]
    assert mixed["type"] == "datetime" and mixed["min"] is None  # aware and naive do not compare


def test_missing_tokens_and_non_numbers():
    result = profile(b"x,y\nNA,inf\nn/a,1\nNaN,2\nnull,3\nNone,4\n  ,5\nnUlL,6\n")
    x, y = result["columns"]
    assert (x["type"], x["missing"], x["distinct"]) == ("empty", 7, 0)
    assert y["type"] == "string"  # "inf" is not a number
    zero_one = profile(b"z\n0\n1\n1\n")["columns"][0]
    assert (zero_one["type"], zero_one["min"], zero_one["max"]) == ("integer", 0, 1)
    assert profile(b"z\n1_000\n")["columns"][0]["type"] == "string"
    assert profile(b"z\n\xd9\xa1\xd9\xa2\n")["columns"][0]["type"] == "string"  # Arabic-Indic digits


def test_text_versus_string():
    long_values = profile(to_csv([["v"]] + [["x" * 40]] * 3))["columns"][0]
    assert long_values["type"] == "text" and long_values["mean_length"] == 40.0
    short_values = profile(to_csv([["v"]] + [["x" * 39]] * 3))["columns"][0]
    assert short_values["type"] == "string"
    many_words = profile(to_csv([["v"]] + [["a b c d e f"]] * 3))["columns"][0]
    assert many_words["type"] == "text"
    five_words = profile(to_csv([["v"]] + [["a b c d e"]] * 3))["columns"][0]
    assert five_words["type"] == "string"


def test_word_count_of_long_values_decides_when_needed():
    # Mean length < 40 and bounds that leave the decision open: the long value's words must be counted.
    wordy = " ".join(["ab"] * 100)  # 299 characters, 100 words: (9 + 100) / 10 words >= 6
    assert profile(to_csv([["v"]] + [["x"]] * 9 + [[wordy]]))["columns"][0]["type"] == "text"
    one_word = "x" * 299  # (9 + 1) / 10 words < 6
    assert profile(to_csv([["v"]] + [["x"]] * 9 + [[one_word]]))["columns"][0]["type"] == "string"


def test_distinct_cap():
    data = to_csv([["n", "s"]] + [[str(i), f"v{i % 30}"] for i in range(1000)])
    capped = profile(data, max_distinct=100)
    n, s = capped["columns"]
    assert (n["distinct"], n["distinct_capped"]) == (100, True)
    assert (n["type"], n["min"], n["max"]) == ("integer", 0, 999)
    assert (s["distinct"], s["distinct_capped"]) == (30, False)
    assert n["top_values"] == []  # more than 50 distinct values
    assert s["top_values"][0] == ["v0", 34] and len(s["top_values"]) == 5
    exact = profile(data, max_distinct=5000)["columns"][0]
    assert (exact["distinct"], exact["distinct_capped"]) == (1000, False)
    small_cap = profile(data, max_distinct=10)["columns"][1]
    assert (small_cap["distinct"], small_cap["distinct_capped"]) == (10, True)


def test_sample_rows():
    data = to_csv([["a", "b"]] + [[str(i), f" {i} "] for i in range(30)])
    assert profile(data)["sample"] == [[str(i), f" {i} "] for i in range(10)]
    assert profile(data, sample_rows=3)["sample"] == [["0", " 0 "], ["1", " 1 "], ["2", " 2 "]]
    assert profile(data, sample_rows=0)["sample"] == []


def test_progress_is_throttled_and_ends_at_the_total(monkeypatch):
    data = to_csv([["id", "text"]] + [[str(i), "some words here"] for i in range(25_000)])
    calls = []
    profile(data, progress=lambda done, total, message: calls.append((done, total, message)))
    assert calls[-1] == (len(data), len(data), "25,000 rows read")
    assert len(calls) <= 3  # throttled to one call per 0.25 s, not per row

    monkeypatch.setattr(profile_module, "PROGRESS_INTERVAL", 0)
    calls.clear()
    profile(data, progress=lambda done, total, message: calls.append((done, total, message)))
    assert len(calls) == 26  # every batch of 1,000 rows, then the final call
    assert [total for _, total, _ in calls] == [len(data)] * 26
    dones = [done for done, _, _ in calls]
    assert dones == sorted(dones) and all(0 < done < len(data) for done in dones[:-1])
    assert calls[0][2] == "1,000 rows read"


def test_profile_raises_csv_format_error_on_a_bad_row():
    with pytest.raises(CsvFormatError) as caught:
        profile(b"a,b\n1,2\n3,4,5\n")
    assert caught.value.row == 3
    with pytest.raises(CsvFormatError):
        profile(b"a,b\n1,\xff\n")
    with pytest.raises(CsvFormatError):
        profile(b"")


def test_profile_of_a_header_only_file():
    result = profile(b"a,b\n")
    assert result["rows"] == 0 and [c["type"] for c in result["columns"]] == ["empty", "empty"]


# --- real data ----------------------------------------------------------------------------------------------


def test_blog_corpus_sample():
    path = shared_data("kanon/blogs_1k.csv")
    with path.open("rb") as fileobj:
        shape = check_csv(fileobj, max_bytes=MAX)
        assert shape.header == ("id", "gender", "age", "topic", "sign", "date", "text")
        assert (shape.rows, shape.delimiter, shape.encoding) == (1000, ",", "utf-8")
        result = profile_csv(fileobj)
    json.dumps(result, allow_nan=False)
    assert result["rows"] == 1000 and len(result["sample"]) == 10
    assert column(result, "id")["type"] == "integer"
    gender = column(result, "gender")
    assert gender["type"] == "string"
    assert [value for value, _ in gender["top_values"]] == ["male", "female"]
    assert sum(count for _, count in gender["top_values"]) == 1000
    age = column(result, "age")
    assert (age["type"], age["min"], age["max"]) == ("integer", 13, 48)
    date_column = column(result, "date")
    assert (date_column["type"], date_column["date_format"]) == ("date", "%d,%B,%Y")
    assert date_column["min"] < date_column["max"]
    text = column(result, "text")
    assert text["type"] == "text" and text["mean_length"] > 500 and text["top_values"] == []
    assert column(result, "topic")["type"] == "string" and column(result, "sign")["distinct"] == 12


def test_rx_anon_paper_example():
    path = kanon_file("rx-anon/paper_example.csv")
    with path.open("rb") as fileobj:
        assert check_csv(fileobj, max_bytes=MAX).rows == 9
        result = profile_csv(fileobj)
    types = {c["name"]: c["type"] for c in result["columns"]}
    assert types == {"id": "integer", "gender": "string", "age": "integer", "topic": "string",
                     "sign": "string", "date": "date", "text": "text"}
    age = column(result, "age")
    assert (age["min"], age["max"], age["distinct"]) == (24, 37, 5)
    assert age["top_values"][0] == ["24", 4]
    date_column = column(result, "date")
    assert (date_column["date_format"], date_column["min"], date_column["max"]) == (
        "%d,%B,%Y", "2004-01-13", "2005-08-18")
    assert column(result, "gender")["top_values"] == [["male", 5], ["female", 4]]
    assert result["sample"][0][:3] == ["1", "male", "36"]


def test_blog_20k_is_accepted_with_its_nul_bytes_counted():
    path = shared_data("kanon/blogs_20k.csv")
    with path.open("rb") as fileobj:
        shape = check_csv(fileobj, max_bytes=100 * 2**20)
    assert (shape.rows, shape.nul_bytes) == (20_000, 4030)


def test_chosen_columns_come_once_each_and_the_missing_ones_are_named():
    # The one check every job kind that reads text columns makes before it is queued (issue 47).
    columns, missing = chosen_columns(["text", "title", "text", "txt"], ("id", "text", "title"), "posts.csv")
    assert columns == ["text", "title", "txt"]
    assert missing == ["posts.csv has no column 'txt'; its columns are: id, text, title"]
    assert chosen_columns([], ["id"], "posts.csv") == ([], [])
