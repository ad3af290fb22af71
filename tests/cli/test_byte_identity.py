"""One result, three doors (issue 48): the same input and options through the web job (in one piece and by
parts), the ``kakurega`` command (one process and two) and the Python API give byte-identical files."""

from __future__ import annotations

import csv
import gzip
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from anonymizer.temporal.language import not_english_reason
from tests.cli.conftest import ROOT, run_kakurega
from tests.helpers import run_in_process

pytestmark = pytest.mark.django_db(transaction=True)

US = ROOT / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz"


def us_tweets(count: int, start: int) -> bytes:
    """``count`` English tweets of the US corpus from row ``start`` (time removal takes them), as a CSV file."""
    with gzip.open(US, "rt", encoding="utf-8", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    rows = [row for row in rows[start:start + 3 * count] if row[3] == "en" and not_english_reason(row[8]) is None]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows[:count]])
    return out.getvalue().encode("utf-8")


# (command-line options, the same as the web job's and the API's parameters)
CASES = {
    "defaults": ([], {}, {}),
    "time, mask, kept words, needed places": (
        ["--remove-time", "--replacement", "mask", "--places", "needed", "--keep", "Iowa", "--time-mode", "prune",
         "--keep-time", "part_of_day", "--remove-how-long"],
        {"remove_time": True, "replacement": "mask", "places": "needed", "keep": ["Iowa"], "time_mode": "prune",
         "keep_time": ["part_of_day"], "remove_how_long": True},
        {"remove_time": True, "replacement": "mask", "places": "needed", "keep_words": ["Iowa"]}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_deidentify_the_web_job_the_command_and_the_api_give_the_same_file(case, user, location_models,
                                                                           kakurega_cache, settings, tmp_path):
    from anonymizer.temporal.removal import TimeRemovalOptions
    from kakurega import deidentify_csv

    arguments, params, api = CASES[case]
    content = us_tweets(90, start=12000)
    source = tmp_path / "posts.csv"
    source.write_bytes(content)
    params = {"text_columns": ["text"], "model": "us-midwest-en", **params}
    files = {}
    for label, chunk in (("web, one piece", 1 << 30), ("web, by parts", 4096)):
        settings.JOB_CHUNK_BYTES = chunk
        upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", content))
        job = run_in_process(owner=user, kind="deidentify_posts", params=params, inputs=[upload])
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert (job.result["parts"] > 1) == (label == "web, by parts")
        files[label] = job.results.get(name__endswith=".deidentified.csv").file.read()
    for processes in ("1", "2"):
        output = tmp_path / f"cli-{processes}.csv"
        shown = run_kakurega("deidentify", str(source), "-o", str(output), "--model", "us-midwest-en",
                             "--processes", processes, *arguments)
        assert shown.returncode == 0, shown.stderr
        files[f"command, {processes} process(es)"] = output.read_bytes()
    time = TimeRemovalOptions(time_mode="prune", keep_time=("part_of_day",), remove_how_long=True)
    deidentify_csv(source, tmp_path / "api.csv", model="us-midwest-en", chunk_bytes=2048,
                   **({**api, "time": time} if api.get("remove_time") else api))
    files["deidentify_csv, by parts"] = (tmp_path / "api.csv").read_bytes()
    reference = files["web, one piece"]
    rows = list(csv.reader(io.StringIO(reference.decode("utf-8"), newline="")))
    assert len(rows) == 91 and rows[0][-2:] == ["text_location_verdict", "text_location_review"]
    assert {label: data == reference for label, data in files.items()} == dict.fromkeys(files, True)
