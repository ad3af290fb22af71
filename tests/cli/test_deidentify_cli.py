"""``kakurega deidentify`` (a subprocess, real tweets) and ``kakurega.deidentify_csv`` / ``deidentify_frame``: every
post released with its verdict and review cells and counted in the report, the default model chosen by the posts'
language, and bad input refused with exit code 2, a message naming the file, row and column and what was
expected, and no output file left behind."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from anonymizer.location.posts_file import REVIEW_SEPARATOR, VERDICTS
from anonymizer.tabular.export import neutralize_cell
from anonymizer.temporal.language import not_english_reason
from tests.cli.conftest import ROOT, run_kakurega

US = ROOT / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz"
JAPAN = ROOT / "data" / "geo" / "japan_311" / "tweets.csv"
ADDED = ["text_location_verdict", "text_location_review"]


def read_rows(path: Path) -> list[list[str]]:
    opened = gzip.open(path, "rt", encoding="utf-8", newline="") if path.suffix == ".gz" else path.open(
        encoding="utf-8", newline="")
    with opened as handle:
        return list(csv.reader(handle))


def write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def us_rows(count: int, *, english: bool = False, start: int = 8000) -> list[list[str]]:
    """The header and ``count`` tweets of the US corpus from ``start`` on (only those time removal takes)."""
    header, *rows = read_rows(US)
    if english:
        rows = [row for row in rows[start:] if row[3] == "en" and not_english_reason(row[8]) is None]
    else:
        rows = rows[start:]
    return [header, *rows[:count]]


def written(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def left_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.fixture
def folder(kakurega_cache, tmp_path) -> Path:
    """A folder of the test's files alone (the default models' cache is beside it)."""
    (tmp_path / "files").mkdir()
    return tmp_path / "files"


def test_a_file_of_us_tweets_on_two_processes(folder):
    tmp_path = folder
    source = write(tmp_path / "tweets.csv", us_rows(150))
    shown = run_kakurega("deidentify", str(source), "-o", str(tmp_path / "out.csv"), "--report",
                         str(tmp_path / "report.json"), "--processes", "2")
    assert shown.returncode == 0, shown.stderr
    original, rows = read_rows(source), written(tmp_path / "out.csv")
    assert rows[0] == [*original[0], *ADDED] and len(rows) == len(original) == 151
    text = original[0].index("text")
    for before, after in zip(original[1:], rows[1:], strict=True):
        assert after[:text] + after[text + 1:len(before)] == before[:text] + before[text + 1:]  # copied as they are
        assert after[-2] in VERDICTS or (after[-2] == "" and not before[text].strip())
        assert all(name in after[text] for name in after[-1].split(REVIEW_SEPARATOR) if name)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    (counts,) = report["columns"]
    assert report["model"]["name"] == "us-midwest-en"  # the posts are English: the US model, unnamed
    assert report["rows"] == 150 and counts["posts"] + counts["empty"] == 150
    assert {verdict: sum(row[-2] == verdict for row in rows[1:]) for verdict in VERDICTS} == {
        verdict: counts[verdict] for verdict in VERDICTS}
    # Changed: released otherwise than the cell as the file writes it (a formula-like "@user ..." gets a "'").
    assert counts["changed"] == sum(a[text] != neutralize_cell(b[text])
                                    for a, b in zip(rows[1:], original[1:], strict=True)) > 10
    assert "out.csv: 150 rows; text: 150 posts" in shown.stderr
    assert left_in(tmp_path) == ["out.csv", "report.json", "tweets.csv"]


def test_japanese_posts_get_the_tokyo_model(folder):
    tmp_path = folder
    header, *rows = read_rows(JAPAN)
    source = write(tmp_path / "jp.csv", [header, *rows[2000:2120]])
    shown = run_kakurega("deidentify", str(source), "-o", str(tmp_path / "out.csv"), "--report",
                         str(tmp_path / "report.json"), "--replacement", "mask")
    assert shown.returncode == 0, shown.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["model"]["name"] == "tokyo-ja" and report["options"]["replacement"] == "mask"
    assert report["released_verdicts"]["text"]["pass"] == report["columns"][0]["pass"]
    changed = sum(a[1] != b[1] for a, b in zip(written(tmp_path / "out.csv")[1:], rows[2000:2120], strict=True))
    assert changed == report["columns"][0]["changed"] > 0


def bad(tmp_path: Path, *args: str) -> str:
    """Run the command expecting bad input: exit 2, nothing written; returns the message."""
    before = left_in(tmp_path)
    shown = run_kakurega("deidentify", *args, "-o", str(tmp_path / "out.csv"))
    assert shown.returncode == 2, (shown.returncode, shown.stderr)
    assert left_in(tmp_path) == before  # no output, no temporary file
    last = shown.stderr.strip().splitlines()[-1]  # after the progress lines, if any
    assert last.startswith("kakurega: error: ")
    return last


def test_bad_files_and_columns_are_named(folder):
    tmp_path = folder
    rows = us_rows(30)
    source = write(tmp_path / "posts.csv", rows)
    assert "posts.csv has no column 'body'; its columns are: id, created, user" in bad(
        tmp_path, str(source), "--column", "body")
    taken = write(tmp_path / "taken.csv", [[*rows[0], "text_location_review"], *([*row, ""] for row in rows[1:])])
    assert "taken.csv already has a column 'text_location_review'" in bad(tmp_path, str(taken))
    broken = tmp_path / "broken.csv"
    broken.write_text(source.read_text(encoding="utf-8") + "1,2,3\n", encoding="utf-8")
    message = bad(tmp_path, str(broken), "--processes", "2")
    assert "broken.csv: Row 32: the row has 3 fields, but the header has 9 columns" in message
    assert "no such file" in bad(tmp_path, str(tmp_path / "missing.csv")).lower()
    assert "model 'atlantis'" in bad(tmp_path, str(source), "--model", "atlantis")


def test_time_removal_takes_english_posts_and_an_english_model(folder):
    tmp_path = folder
    rows = us_rows(40, english=True)
    rows[7][8] = "Férias de 3 meses amo EUA por isso kkk"
    source = write(tmp_path / "posts.csv", rows)
    message = bad(tmp_path, str(source), "--remove-time", "--processes", "2")
    assert "posts.csv: 1 post(s) are not English (rows 8; row 8, column 'text'" in message
    assert "English posts only" in bad(tmp_path, str(source), "--remove-time", "--model", "tokyo-ja")


def test_the_python_api_on_a_file_and_a_frame(kakurega_cache, tmp_path):
    from kakurega import deidentify_csv, deidentify_frame

    source = write(tmp_path / "posts.csv", us_rows(40, english=True))
    report = deidentify_csv(source, tmp_path / "out.csv", column="text", model="us-midwest-en")
    assert report["rows"] == 40 and report["model"]["name"] == "us-midwest-en"
    rows = written(tmp_path / "out.csv")
    frame = pd.read_csv(source, dtype=str, keep_default_na=False)
    released = deidentify_frame(frame, "text", model="us-midwest-en")
    assert list(released.columns) == [*frame.columns, *ADDED]
    assert list(released["text"]) == [row[8].removeprefix("'") for row in rows[1:]]  # the file's, formulas aside
    assert list(released["text_location_verdict"]) == [row[9] for row in rows[1:]]
    assert [REVIEW_SEPARATOR.join(names) for names in released["text_location_review"]] == [row[10]
                                                                                           for row in rows[1:]]
    assert list(frame["text"]) == [row[8] for row in us_rows(40, english=True)[1:]]  # the input is left as it was
