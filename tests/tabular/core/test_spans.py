"""anonymizer.tabular.spans: a CSV cut into byte ranges of whole records reads, part by part, exactly as the
whole file reads with CsvSource (quoted line breaks, doubled quotes, CRLF, blank lines, NUL, non-ASCII)."""

from __future__ import annotations

import io
import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from anonymizer.tabular.reader import CsvFormatError, CsvSource
from anonymizer.tabular.spans import record_spans, records_in_span
from tests.helpers import csv_bytes, kanon_file


def whole(data: bytes) -> list[list[str]]:
    source = CsvSource(io.BytesIO(data))
    return [record for batch in source.batches() for record in batch]


def accepted(data: bytes) -> list[list[str]]:
    """The records of a generated file the reader accepts; the example is discarded when the reader refuses it."""
    try:
        return whole(data)
    except CsvFormatError:
        assume(False)
        raise


def by_parts(data: bytes, target: int) -> tuple[list[tuple[int, int]], list[list[str]]]:
    handle = io.BytesIO(data)
    source = CsvSource(handle)
    spans = record_spans(handle, target, source.delimiter)
    records = [record for start, end in spans for record in records_in_span(
        handle, start, end, delimiter=source.delimiter, width=len(source.header))]
    return spans, records


TRICKY = (b'\n\nid,text,n\r\n'              # blank lines before the header, CRLF
          b'1,"line one\nline two",3\r\n'  # a quoted line break
          b'2,"she said ""hi""\n, then left",4\n'  # doubled quotes and a break inside one value
          b'\n'                            # a blank line between records
          b'3,\xe6\x9d\xb1\xe4\xba\xac "quoted" later,5\n'  # non-ASCII; quotes inside an unquoted value (even)
          b'4,nul\x00here,6\n'
          b'5,"ends, with a break\n",7')   # no line feed after the last record


@pytest.mark.parametrize("target", [1, 5, 17, 40, 10_000])
def test_parts_read_as_the_whole_file_reads(target):
    spans, records = by_parts(TRICKY, target)
    assert records == whole(TRICKY)
    assert [record[0] for record in records] == ["1", "2", "3", "4", "5"]
    assert records[3][1] == "nul\ufffdhere"
    # The parts tile the data after the header, in order, and each ends where a record ends.
    assert spans[0][0] == TRICKY.index(b"1,")
    assert spans[-1][1] == len(TRICKY)
    assert all(end == next_start for (_, end), (next_start, _) in itertools.pairwise(spans))
    if target == 1:
        assert len(spans) == 6  # one per record, the blank line going with the record before it


def test_carriage_returns_end_records_and_a_header_alone_has_no_part():
    data = b"id,text\r1,a\r2,b\r"
    assert by_parts(data, 1) == ([(8, 12), (12, 16)], [["1", "a"], ["2", "b"]])
    assert record_spans(io.BytesIO(b"id,text\n"), 1) == []
    assert record_spans(io.BytesIO(b"id,text\n1,a"), 1) == [(8, 11)]


def test_a_quote_inside_an_unquoted_value_is_a_character_not_the_start_of_a_quoted_one():
    data = b'id,text\n1,He is 6\'2" tall\n2,"and, quoted"\n3,say ""x\n'
    spans, records = by_parts(data, 1)
    assert records == whole(data) == [["1", 'He is 6\'2" tall'], ["2", "and, quoted"], ["3", 'say ""x']]
    assert len(spans) == 3


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(st.sampled_from(["a", " ", ",", '"', '""', "\n", "\r\n", "\r", "東", "\x00", ";"]),
                       max_size=60),
       target=st.integers(min_value=1, max_value=40), semicolons=st.booleans())
def test_any_text_the_reader_accepts_reads_the_same_by_parts(tokens, target, semicolons):
    # Raw text, not the writer's: quotes anywhere, records of any shape. What the reader refuses is not cut.
    data = ((";" if semicolons else ",").join(["id", "text", "n"]) + "\n" + "".join(tokens)).encode("utf-8")
    expected = accepted(data)  # first: a file the reader refuses is never cut
    assert by_parts(data, target)[1] == expected


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.lists(st.text(alphabet=st.sampled_from('ab ,"\n\r東\x00'), max_size=12), min_size=3,
                              max_size=3), min_size=1, max_size=25),
       target=st.integers(min_value=1, max_value=200))
def test_any_file_the_csv_writer_makes_reads_the_same_by_parts(rows, target):
    # Records the writer makes, quoted as needed; the few it writes wrongly (a lone carriage return is not
    # quoted with lineterminator="\n") are refused by the reader and by the job before any cut.
    rows = [row for row in rows if any(value.strip() for value in row)]
    data = csv_bytes([["id", "text", "n"], *rows])
    expected = accepted(data)  # first: a file the reader refuses is never cut
    assert by_parts(data, target)[1] == expected


def test_the_blog_sample_reads_the_same_by_parts():
    path = kanon_file("blogs_1k.csv")
    if not path.exists():
        pytest.skip(f"{path} is not here (../shared/data)")
    data = path.read_bytes()
    spans, records = by_parts(data, 64 * 1024)
    assert len(spans) == pytest.approx(len(data) / (64 * 1024), abs=2)
    assert records == whole(data)
