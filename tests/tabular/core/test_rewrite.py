"""anonymizer.tabular.rewrite's local runner: the file it writes is the same whatever the processes and the size
of the parts (and the one a single writer gives), each process builds its rewrite once, a bad row is named by
its row in the file, and nothing is left at the output's name when anything fails."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from anonymizer.tabular.reader import CsvFormatError
from anonymizer.tabular.rewrite import MissingColumn, column_indices, gather, rewrite_file

HEADER = ["id", "text", "note"]
ROWS = [[str(n), f"post {n}: \"quoted\", with a comma\nand a line break" if n % 7 == 0 else f"=post {n}", "x"]
        for n in range(300)]


@dataclass(frozen=True)
class Upper:
    """A picklable MakeRewrite: the text column upper-cased, a pid column added, counts and a sample as state."""

    column: str = "text"

    def __call__(self):
        def rewrite(header, records, writer, progress) -> dict:
            (index,) = column_indices(header, [self.column], "posts.csv")
            counts = {"name": self.column, "rows": 0}
            sample = []
            for row in records:
                counts["rows"] += 1
                if len(sample) < 3:
                    sample.append({"row": counts["rows"] - 1, "text": row[index]})
                row[index] = row[index].upper()
                writer.writerow([*row, os.getpid()])
            return {"counts": [counts], "sample": sample, "refused": []}

        return rewrite


def csv_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def expected(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*HEADER, "pid"])
    writer.writerows([row[0], row[1].upper(), row[2], "PID"] for row in rows)
    return out.getvalue().encode()


def written(path: Path) -> tuple[bytes, set[str]]:
    """The file with its pid column read out (which processes wrote it) and set to PID."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    pids = {row[3] for row in rows[1:]}
    out = io.StringIO()
    csv.writer(out).writerows([rows[0], *([*row[:3], "PID"] for row in rows[1:])])
    return out.getvalue().encode(), pids


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "posts.csv"
    path.write_bytes(csv_bytes([HEADER, *ROWS]))
    return path


@pytest.mark.parametrize(("processes", "chunk_bytes"), [(1, None), (1, 1), (2, 500), (2, None), (3, 4096)])
def test_the_file_is_the_same_whatever_the_processes_and_parts(source, tmp_path, processes, chunk_bytes):
    output = tmp_path / "out.csv"
    seen = []
    parts = rewrite_file(source, output, Upper(), header=lambda header: [*header, "pid"], processes=processes,
                         chunk_bytes=chunk_bytes, neutralize=False,
                         progress=lambda done, total, message: seen.append((done, total)))
    content, pids = written(output)
    assert content == expected(ROWS)
    counts, sample, _ = gather(parts)
    assert counts == [{"name": "text", "rows": 300}] and sum(part.rows for part in parts) == 300
    assert sample[:3] == [{"row": 2, "text": ROWS[0][1]}, {"row": 3, "text": "=post 1"}, {"row": 4, "text": "=post 2"}]
    assert seen[-1] == (len(parts), len(parts))
    if processes == 1 or len(parts) == 1:  # one part (the whole file under the default size) is rewritten here
        assert pids == {str(os.getpid())}
    else:  # the parts went to other processes, not this one
        assert str(os.getpid()) not in pids and 1 <= len(pids) <= processes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "posts.csv"]  # no temporary file left


def test_formulas_are_neutralized_as_the_web_job_does(source, tmp_path):
    output = tmp_path / "out.csv"
    rewrite_file(source, output, Upper(), header=lambda header: [*header, "pid"], chunk_bytes=1000)
    rows = list(csv.reader(io.StringIO(output.read_text(encoding="utf-8"), newline="")))
    assert rows[2][1] == "'=POST 1" and rows[1][1].startswith("POST 0")


def test_a_bad_row_is_named_in_the_file_and_nothing_is_left(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(csv_bytes([HEADER, *ROWS[:250]]) + b"250,too,many,fields\n" + csv_bytes(ROWS[251:]))
    output = tmp_path / "out.csv"
    for processes in (1, 2):
        with pytest.raises(CsvFormatError) as error:
            rewrite_file(path, output, Upper(), processes=processes, chunk_bytes=2000)
        # Row 252: the header is row 1, and three of the rows before hold a line break in a quoted value.
        assert error.value.row == 252 and "the row has 4 fields, but the header has 3 columns" in str(error.value)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_a_missing_column_or_a_refused_check_leaves_nothing(source, tmp_path):
    output = tmp_path / "out.csv"
    output.write_text("an older file")
    with pytest.raises(MissingColumn, match=r"posts\.csv has no column 'body'; its columns are: id, text, note"):
        rewrite_file(source, output, Upper("body"), processes=2, chunk_bytes=2000)

    def refuse(parts, path):
        assert path.exists() and path != output
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        rewrite_file(source, output, Upper(), check=refuse)
    assert output.read_text() == "an older file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "posts.csv"]


def test_a_header_alone_gives_the_state_of_no_rows(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"id,text,note\n")
    output = tmp_path / "out.csv"
    parts = rewrite_file(path, output, Upper(), header=lambda header: [*header, "pid"], processes=2)
    assert output.read_bytes() == b"id,text,note,pid\r\n"
    assert [(p.rows_before, p.rows, p.state["counts"]) for p in parts] == [(0, 0, [{"name": "text", "rows": 0}])]
