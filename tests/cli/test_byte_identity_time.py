"""One result, three doors (issue 48): the web's remove-time job (in one piece and by parts), ``kakurega
remove-time`` on one and on two processes, and ``kakurega.remove_time_csv`` write the same bytes for the same file
and options, and the same report but for its timing and how the file was cut. Real posts: SynTime tweets
(../shared/data, skipped when absent) with a few edge cells (multi-line, quoted, formula-like, blank)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import ROOT, run_in_process, shared_data

pytestmark = pytest.mark.django_db(transaction=True)

EDGES = [["e1", "2017-06-03", "Last night was wild,\nsee you tonight at the show", "Night owl\nsince 2009"],
         ["e2", "2017-06-03", "=SUM(A1) at 5pm tomorrow", "+1 on Monday"],
         ["e3", "2017-06-03", 'Coffee, bagels and "jazz" on Sunday mornings', "   "],
         ["e4", "2017-06-03", "", "We met in the morning and left on Monday, stayed for 2 hours every day"]]
PARAMS = {"text_columns": ["text", "note"], "time_mode": "both", "keep_time": ["now", "part_of_day"]}
CLI_OPTIONS = ["-c", "text", "-c", "note", "--time-mode", "both", "--keep-time", "now", "--keep-time", "part_of_day"]


@pytest.fixture(scope="module")
def posts() -> bytes:
    """400 tweets (about 80 KB: several parts for two processes), a second text column, the edge cells."""
    lines = shared_data("temporal/syntime_tweets/train.jsonl").read_text(encoding="utf-8").splitlines()[:400]
    tweets = [json.loads(line) for line in lines]
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["id", "dct", "text", "note"])
    for number, tweet in enumerate(tweets):
        writer.writerow([tweet["id"], tweet["dct"], tweet["text"], tweets[-1 - number]["text"] if number % 3 else ""])
        if number % 100 == 50:
            writer.writerow(EDGES[number // 100])
    return out.getvalue().encode("utf-8")


def _web(user, data: bytes) -> tuple[bytes, dict]:
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", data))
    job = run_in_process(owner=user, kind="remove_time", params=PARAMS, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    report = json.loads(job.results.get(name__endswith=".report.json").file.read())
    return job.results.get(name__endswith=".time-removed.csv").file.read(), report


def _cli(folder: Path, processes: int) -> tuple[bytes, dict]:
    output, report = folder / f"out-{processes}.csv", folder / f"report-{processes}.json"
    done = subprocess.run([sys.executable, "-m", "kakurega", "remove-time", "posts.csv", *CLI_OPTIONS, "-o", output,
                           "--report", report, "-p", str(processes)], capture_output=True, text=True, cwd=folder,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr
    return output.read_bytes(), json.loads(report.read_text(encoding="utf-8"))


def _same_work(report: dict) -> dict:
    """The report without what depends on the run: its time and the number of parts the file was cut in."""
    return {key: value for key, value in report.items() if key not in ("seconds", "parts")}


def test_the_web_job_the_command_and_the_api_write_the_same_file(user, settings, tmp_path: Path, posts: bytes):
    import kakurega

    (tmp_path / "posts.csv").write_bytes(posts)
    web, web_report = _web(user, posts)
    assert web != posts and web.startswith(b"id,dct,text,note\r\n")  # times were removed, the header kept
    settings.JOB_CHUNK_BYTES = 16 * 1024
    by_parts, parts_report = _web(user, posts)
    assert parts_report["parts"] > 1
    one, one_report = _cli(tmp_path, 1)
    two, two_report = _cli(tmp_path, 2)
    assert two_report["parts"] > 1  # the two processes shared several parts
    api_report = kakurega.remove_time_csv(tmp_path / "posts.csv", tmp_path / "api.csv", column=["text", "note"],
                                          keep_time=["now", "part_of_day"])
    for name, written in [("web by parts", by_parts), ("kakurega -p 1", one), ("kakurega -p 2", two),
                          ("remove_time_csv", (tmp_path / "api.csv").read_bytes())]:
        assert written == web, f"{name} differs from the web job's file"
    for report in (parts_report, one_report, two_report, api_report):
        assert _same_work(report) == _same_work(web_report)
    assert web_report["columns"][0]["changed"] > 100  # the comparison is of work done, not of copies
