"""CSV formula injection (issue 15, finding 7): a cell a spreadsheet would run as a formula (``=HYPERLINK(...)``,
``+cmd``, ``@SUM(A1)``, ``-2+3``) reaches no CSV the app writes for users to download as it was; it is written
with a ``'`` in front (OWASP's advice), while a plain number such as ``-5`` stays as it is. Each export path is
run for real (the job, or the export the page and the API answer with) and the file it stored is read back;
with ``CSV_NEUTRALIZE_FORMULAS = False`` every cell passes unchanged. An upload's own download stays the file as
sent."""

from __future__ import annotations

import csv
import gzip
import io
import re
from dataclasses import replace

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from anonymizer.preferences.aggregate import parse_aggregate, read_aggregate, write_aggregate
from anonymizer.preferences.web.jobs import rows_csv
from anonymizer.tabular import export
from tests.helpers import answer_all, csv_bytes, run_in_process

HYPERLINK = '=HYPERLINK("http://evil","x")'
FORMULAS = [HYPERLINK, "+cmd", "@SUM(A1)", "-2+3"]
PLAIN = "-5"
CELLS = [*FORMULAS, PLAIN]
NEUTRALIZED = ["'" + cell for cell in FORMULAS] + [PLAIN]


def quoted(cell: str) -> str:
    return "'" + cell


def runs_as_formula(cell: str) -> bool:
    """The test's own reading of OWASP's rule, to check whole files independently of the helper."""
    return (cell[:1] in set("=+-@\t\r\uff1d\uff0b\uff0d\uff20")
            and re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", cell, re.ASCII) is None)


def assert_safe(rows: list[list[str]]) -> None:
    unsafe = [cell for row in rows for cell in row if runs_as_formula(cell)]
    assert not unsafe, unsafe


def check_safe(rows: list[list[str]]) -> None:
    """assert_safe, unless the setting turns neutralization off."""
    if settings.CSV_NEUTRALIZE_FORMULAS:
        assert_safe(rows)


def read_rows(content: bytes, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"), newline=""), delimiter=delimiter))


def download(client, job: Job, name: str) -> bytes:
    """The stored result file, as the job page's download link serves it."""
    result = job.results.get(name=name)
    response = client.get(reverse("job-result-download", args=[job.id, result.id]))
    assert response.status_code == 200
    return b"".join(response.streaming_content)


@pytest.fixture
def neutralize_off(settings):
    settings.CSV_NEUTRALIZE_FORMULAS = False


# -- the helper ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [*FORMULAS, "=1+1", "=", "+", "-", "@", "\t=1", "\r=1", "\uff1dSUM(A1)",
                                  "\uff0bcmd", "\uff0d1", "\uff20SUM(A1)", "-cmd|' /C calc'!A0", "+81-3-1234-5678",
                                  "--5", "-5-", "- 5", "-5 ", "-1e", "-inf", "-\uff15", "+.", "-0x10", "-1,5"])
def test_a_cell_a_spreadsheet_would_run_gets_a_quote_in_front(cell):
    assert export.is_formula(cell)
    assert export.neutralize_cell(cell) == quoted(cell)


@pytest.mark.parametrize("cell", [PLAIN, "+3.2", "-1e-3", "-1E+10", "+0", "-.5", "-5.", "12", "1e5", "", "text",
                                  "'=already", " =1", "a=b", "[-5-3]", "(-2,+3)", "2004-05-14", "\n=1", "x@y.org"])
def test_plain_numbers_and_ordinary_text_are_left_unchanged(cell):
    assert not export.is_formula(cell)
    assert export.neutralize_cell(cell) == cell


@pytest.mark.parametrize("value", [-5, -3.2, 0, None, True, ["=x"], {"=x": 1}])
def test_values_that_are_not_strings_are_left_to_the_csv_writer(value):
    assert export.neutralize_cell(value) is value


def test_the_number_check_is_linear_on_a_long_cell():
    import time

    started = time.perf_counter()
    assert export.is_formula("-" + "1" * 200_000 + "x")
    assert time.perf_counter() - started < 0.5


def test_the_writer_neutralizes_every_cell_header_included():
    out = io.StringIO()
    writer = export.writer(out, lineterminator="\n")
    writer.writerow(["@name", "value"])
    writer.writerows([[cell, cell] for cell in CELLS])
    writer.writerow([-5, None, 3.5])
    rows = read_rows(out.getvalue().encode())
    assert rows[0] == ["'@name", "value"]
    assert [row[0] for row in rows[1:-1]] == [row[1] for row in rows[1:-1]] == NEUTRALIZED
    assert rows[-1] == ["-5", "", "3.5"]


def test_the_dict_writer_neutralizes_values_and_header_and_keeps_the_keys():
    out = io.StringIO()
    writer = export.DictWriter(out, fieldnames=["=cmd", "b"], extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerow({"=cmd": HYPERLINK, "b": -5, "ignored": "=x"})
    writer.writerows([{"=cmd": cell, "b": cell} for cell in CELLS])
    rows = read_rows(out.getvalue().encode())
    assert rows[0] == ["'=cmd", "b"] and rows[1] == [quoted(HYPERLINK), "-5"]
    assert [row[0] for row in rows[2:]] == [row[1] for row in rows[2:]] == NEUTRALIZED


def test_with_neutralize_off_the_writers_write_every_cell_as_it_is():
    out = io.StringIO()
    export.writer(out, lineterminator="\n", neutralize=False).writerows([["@h"], *[[cell] for cell in CELLS]])
    dict_out = io.StringIO()
    writer = export.DictWriter(dict_out, fieldnames=["@h"], lineterminator="\n", neutralize=False)
    writer.writeheader()
    writer.writerows([{"@h": cell} for cell in CELLS])
    assert read_rows(out.getvalue().encode()) == read_rows(dict_out.getvalue().encode()) == [["@h"],
                                                                                                *[[c] for c in CELLS]]


def test_the_setting_is_on_by_default():
    assert settings.CSV_NEUTRALIZE_FORMULAS is True


# -- k-anonymization ------------------------------------------------------------------------------------------------

KANON_YAML = """
parameters: {k: 2}
attributes:
  id: {anonymization_type: direct_identifier}
  group: {type: nominal, anonymization_type: quasi_identifier}
  score: {type: numerical, anonymization_type: quasi_identifier}
  note: {type: nominal, anonymization_type: insensitive_attribute}
"""
KANON_ROWS = [["id", "group", "score", "note"],
              *[[str(i), group, PLAIN, note]
                for i, (group, note) in enumerate(zip(["@team", "@team", "+x", "+x", "+x"], CELLS, strict=True),
                                                  start=1)]]


def run_kanon(user) -> list[list[str]]:
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("hostile.csv", csv_bytes(KANON_ROWS)))
    job = run_in_process(owner=user, kind="kanon", params={"config_yaml": KANON_YAML}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    client = Client()
    client.force_login(user)
    return read_rows(download(client, job, "hostile.k2.lambda0.5.anonymized.csv"))


@pytest.mark.django_db(transaction=True)
def test_the_k_anonymized_csv_has_no_formula_and_keeps_negative_numbers(user):
    rows = run_kanon(user)
    assert rows[0] == ["group", "score", "note"]
    assert [row[2] for row in rows[1:]] == NEUTRALIZED  # the insensitive column, row order kept
    assert {row[1] for row in rows[1:]} == {PLAIN}  # a class of -5 only releases -5, a number still
    assert {row[0] for row in rows[1:]} <= {"'@team", "'+x", "(+x,@team)"}  # recoded QI values too
    assert_safe(rows)


@pytest.mark.django_db(transaction=True)
def test_the_k_anonymized_csv_passes_cells_unchanged_when_turned_off(user, neutralize_off):
    rows = run_kanon(user)
    assert [row[2] for row in rows[1:]] == CELLS
    assert {row[0] for row in rows[1:]} <= {"@team", "+x", "(+x,@team)"}


# -- time removal -----------------------------------------------------------------------------------------------

TEMPORAL_ROWS = [["id", "@handle", "text", "bio"],
                 *[[str(i), cell, f"Dinner with friends at 9PM, note {i}", cell] for i, cell in enumerate(CELLS)]]


def run_remove_time(user, delimiter: str = ",") -> list[list[str]]:
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "posts.csv", csv_bytes(TEMPORAL_ROWS, delimiter=delimiter)))
    job = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    client = Client()
    client.force_login(user)
    return read_rows(download(client, job, "posts.mode-both.time-removed.csv"), delimiter=delimiter)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_the_time_removed_csv_has_no_formula_and_keeps_negative_numbers(user, delimiter):
    rows = run_remove_time(user, delimiter)
    assert rows[0] == ["id", "'@handle", "text", "bio"]
    assert [row[1] for row in rows[1:]] == [row[3] for row in rows[1:]] == NEUTRALIZED
    assert all("9PM" not in row[2] for row in rows[1:])  # the job still did its work
    assert_safe(rows)


@pytest.mark.django_db(transaction=True)
def test_the_time_removed_csv_passes_cells_unchanged_when_turned_off(user, neutralize_off):
    rows = run_remove_time(user)
    assert rows[0] == TEMPORAL_ROWS[0]
    assert [row[1] for row in rows[1:]] == [row[3] for row in rows[1:]] == CELLS


# -- the upload itself ------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_an_uploads_own_download_stays_the_file_as_sent(user, alice_client):
    sent = csv_bytes(TEMPORAL_ROWS)
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv", sent))
    response = alice_client.get(reverse("upload-download", args=[upload.id]))
    assert response.status_code == 200 and b"".join(response.streaming_content) == sent


# -- profiling --------------------------------------------------------------------------------------------------

PROFILE_ROWS = [[HYPERLINK, "@SUM(A1)", "n"], *[[cell, "x", str(-5 - i)] for i, cell in enumerate(CELLS)]]


def run_profile(user) -> list[dict]:
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("hostile.csv", csv_bytes(PROFILE_ROWS)))
    job = run_in_process(owner=user, kind="profile_csv", params={}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    client = Client()
    client.force_login(user)
    content = download(client, job, "hostile.columns.csv")
    check_safe(read_rows(content))
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


@pytest.mark.django_db
def test_the_profile_columns_csv_has_no_formula(user):
    columns = run_profile(user)
    assert [c["name"] for c in columns] == [quoted(HYPERLINK), "'@SUM(A1)", "n"]
    assert (columns[2]["min"], columns[2]["max"]) == ("-9", "-5")  # negative numbers as they are


@pytest.mark.django_db
def test_the_profile_columns_csv_passes_names_unchanged_when_turned_off(user, neutralize_off):
    assert [c["name"] for c in run_profile(user)] == [HYPERLINK, "@SUM(A1)", "n"]


# -- crowd campaign exports (page and API) and the machine x human table ---------------------------------------



def campaign_exports(staff) -> dict[str, list[dict]]:
    posts = [crowd.PostSpec(f"post number {i}", external_id=cell) for i, cell in enumerate(CELLS)]
    campaign = crowd.create_campaign(owner=staff, name="hostile", instructions="Judge.", consent_text="OK.",
                                     posts=posts, judgments_per_post=2)
    answer_all(campaign, 2, lambda text: text.endswith(("0", "2")))
    page, api = Client(), APIClient()
    page.force_login(staff)
    api.force_authenticate(staff)
    exports = {}
    for what in ("judgments", "aggregates"):
        response = page.get(reverse("campaign-export", args=[campaign.id, what, "csv"]))
        via_api = api.get(reverse("api-campaign-export", args=[campaign.id, what, "csv"]))
        assert response.status_code == via_api.status_code == 200 and response.content == via_api.content
        check_safe(read_rows(response.content))
        exports[what] = list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))
    return exports


@pytest.mark.django_db
def test_campaign_csv_exports_have_no_formula_and_keep_negative_numbers(staff):
    exports = campaign_exports(staff)
    assert sorted(r["external_id"] for r in exports["aggregates"]) == sorted(NEUTRALIZED)
    assert sorted(r["external_id"] for r in exports["judgments"]) == sorted(NEUTRALIZED * 2)


@pytest.mark.django_db
def test_campaign_csv_exports_pass_cells_unchanged_when_turned_off(staff, neutralize_off):
    exports = campaign_exports(staff)
    assert sorted(r["external_id"] for r in exports["aggregates"]) == sorted(CELLS)
    assert sorted(r["external_id"] for r in exports["judgments"]) == sorted(CELLS * 2)


@pytest.mark.django_db
def test_campaign_jsonl_exports_are_not_csv_and_keep_the_cells(staff):
    campaign = crowd.create_campaign(owner=staff, name="hostile", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("post", external_id=HYPERLINK)], judgments_per_post=1)
    page = Client()
    page.force_login(staff)
    assert HYPERLINK.replace('"', '\\"') in page.get(
        reverse("campaign-export", args=[campaign.id, "aggregates", "jsonl"])).content.decode()


def machine_human_table(staff, location_models) -> list[dict]:
    tokyo = location_models["tokyo-ja"]
    posts = [replace(post, external_id=cell) for post, cell in zip(crowd.posts_from_corpus(tokyo, len(CELLS)),
                                                                     CELLS, strict=True)]
    # Cut-off 0.5 and 5 answers each: every post decided (the table holds decided posts only).
    campaign = crowd.create_campaign(owner=staff, name="table", instructions="x", consent_text="x", posts=posts,
                                     judgments_per_post=5, cutoff=0.5, location_model=tokyo)
    answer_all(campaign, 5, lambda text: "駅" in text)
    job = run_in_process(owner=staff, kind="machine_human_table", params={"campaign": str(campaign.id)}, inputs=[])
    assert job.status == Job.Status.SUCCEEDED, job.error
    client = Client()
    client.force_login(staff)
    content = download(client, job, "machine_x_human.csv")
    check_safe(read_rows(content))
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


@pytest.mark.django_db(transaction=True)
def test_the_machine_x_human_table_has_no_formula(staff, location_models):
    rows = machine_human_table(staff, location_models)
    assert [r["external_id"] for r in rows] == NEUTRALIZED  # by post id, the order they were created in


@pytest.mark.django_db(transaction=True)
def test_the_machine_x_human_table_passes_cells_unchanged_when_turned_off(staff, location_models, neutralize_off):
    assert [r["external_id"] for r in machine_human_table(staff, location_models)] == CELLS


# -- location-privacy preferences ------------------------------------------------------------------------------

EXPERIMENT_ROWS = [{"sweep": cell, "value": -5, "method": "item-mean", "fpr": -0.25, "note": cell}
                   for cell in CELLS]


@pytest.mark.django_db
def test_the_experiment_csv_has_no_formula_and_keeps_numbers():
    rows = list(csv.DictReader(io.StringIO(rows_csv(EXPERIMENT_ROWS).decode("utf-8"))))
    assert [r["sweep"] for r in rows] == [r["note"] for r in rows] == NEUTRALIZED
    assert {(r["value"], r["fpr"]) for r in rows} == {("-5", "-0.25")}


@pytest.mark.django_db
def test_the_experiment_csv_passes_cells_unchanged_when_turned_off(neutralize_off):
    rows = list(csv.DictReader(io.StringIO(rows_csv(EXPERIMENT_ROWS).decode("utf-8"))))
    assert [r["sweep"] for r in rows] == CELLS


AGGREGATE_LINES = ["user,weekday,hour,category,root,venue,checkins",
                   *[f'u000,0,{hour},"{cell.replace(chr(34), chr(34) * 2)}",@root,v1,1'
                     for hour, cell in enumerate(CELLS)]]


def written_aggregate(tmp_path, **kwargs) -> tuple[list[list[str]], object]:
    path = tmp_path / "checkins.csv.gz"
    write_aggregate(parse_aggregate(AGGREGATE_LINES), path, **kwargs)
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle)), read_aggregate(path)


def test_the_checkins_aggregate_has_no_formula(tmp_path):
    rows, checkins = written_aggregate(tmp_path)
    assert sorted(row[3] for row in rows[1:]) == sorted(NEUTRALIZED) and {row[4] for row in rows[1:]} == {"'@root"}
    assert_safe(rows)
    assert len(checkins) == len(CELLS)  # still a file the product reads


def test_the_checkins_aggregate_passes_cells_unchanged_when_turned_off(tmp_path):
    rows, _ = written_aggregate(tmp_path, neutralize_formulas=False)
    assert sorted(row[3] for row in rows[1:]) == sorted(CELLS) and {row[4] for row in rows[1:]} == {"@root"}
