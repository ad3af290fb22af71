"""Issue 44, items 4 and 5 in the web application: the numbered pseudonyms are an option of the configure form
(on by default) and of the API's configuration; a job's page states the recognizer's measured figures, says
"of the names the recognizer found" and lists the words left for review, whose whole list is a result file;
pseudonyms are numbered alike when the job is recognized in parts."""

from __future__ import annotations

import csv
import html as html_module
import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.models import CachedSpread, CachedTerms, Job
from anonymizer.platform.uploads import create_csv_upload
from anonymizer.recognize.measured import MEASURED
from tests.helpers import kanon_file, run_in_process
from tests.kanon.web.test_fan_out import blog_sample

pytestmark = pytest.mark.django_db(transaction=True)

COLUMNS = ["id", "gender", "age", "topic", "sign", "date", "text"]


@pytest.fixture
def paper_upload(user):
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "paper_example.csv", kanon_file("rx-anon/paper_example.csv").read_bytes()))


def blog_yaml(parameters: str) -> str:
    return f"parameters: {{{parameters}}}\n" + kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(
        encoding="utf-8")


def result_files(job: Job) -> dict[str, bytes]:
    files = {}
    for result in job.results.all():
        with result.file.open("rb") as handle:
            files[result.name] = handle.read()
    return files


def page_text(html: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</(?:dd|div|table)>', html, re.S)
    assert found, element_id
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


def configure_form(**extra) -> dict:
    form = {"k": "2", "lambdas": "0.5", "strategy": "mondrian", "entity_types": ["PERSON", "GPE", "DATE"],
            "generalize_terms": "on", "recode_everywhere": "on", **extra}
    for i, (role, kind) in enumerate([("direct_identifier", "nominal"), ("quasi_identifier", "nominal"),
                                      ("quasi_identifier", "numerical"), ("quasi_identifier", "nominal"),
                                      ("quasi_identifier", "nominal"), ("quasi_identifier", "date"),
                                      ("text", "text")]):
        form[f"role-{i}"], form[f"type-{i}"] = role, kind
    form["format-5"] = "%d,%B,%Y"
    return form


def test_the_configure_form_offers_numbered_pseudonyms_on_by_default(alice_client, user, paper_upload):
    page = alice_client.get(reverse("kanon-configure", args=[paper_upload.id])).content.decode()
    box = re.search(r'<input type="checkbox" id="kanon-numbered-pseudonyms"[^>]*>', page).group()
    assert 'name="numbered_pseudonyms"' in box and "checked" in box
    assert "PERSON_1, PERSON_2, PERSON_3" in page
    url = reverse("kanon-configure", args=[paper_upload.id])
    assert alice_client.post(url, configure_form(numbered_pseudonyms="on")).status_code == 302
    assert alice_client.post(url, configure_form()).status_code == 302  # an unticked box is not sent
    jobs = Job.objects.filter(owner=user, kind="kanon").order_by("created_at")
    assert [job.params["config"]["numbered_pseudonyms"] for job in jobs] == [True, False]


def test_the_job_page_states_the_measured_figures_of_those_recognized_and_the_words_left_for_review(
        api, alice_client, user, paper_upload):
    response = api.post(reverse("api-job-list"), {"kind": "kanon", "params": {
        "config_yaml": blog_yaml("k: 2, numbered_pseudonyms: true")}, "inputs": [str(paper_upload.id)]},
        format="json")
    assert response.status_code == 201, response.content
    assert response.json()["params"]["config"]["numbered_pseudonyms"] is True
    job = run_in_process_started(response.json()["id"])
    report = job.result
    files = result_files(job)
    run_name = "paper_example.k2.lambda0.5"
    assert set(files) == {f"{run_name}.anonymized.csv", f"{run_name}.report.json",
                          f"{run_name}.left_for_review.csv"}
    assert json.loads(files[f"{run_name}.report.json"])["left_for_review"] == report["left_for_review"]
    released = list(csv.DictReader(io.StringIO(files[f"{run_name}.anonymized.csv"].decode())))
    assert "PERSON_1" in released[0]["text"] and "Pedro" not in released[0]["text"]
    review_rows = list(csv.reader(io.StringIO(files[f"{run_name}.left_for_review.csv"].decode())))
    assert review_rows[0] == ["row", "column", "left_for_review"]
    assert len(review_rows) - 1 == report["left_for_review"]["texts"] > 0
    assert [{"row": int(row), "column": column, "tokens": tokens.split(" ")} for row, column, tokens in
            review_rows[1:]][:len(report["left_for_review"]["first"])] == report["left_for_review"]["first"]

    html = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    surviving = page_text(html, "kanon-surviving")
    assert surviving.startswith("Of the names the recognizer found, none stands where its class does not share it")
    assert "not a count of the names left" in surviving
    assert "no recognized name stands" not in html  # the old wording, without "of those recognized"
    recognizer = page_text(html, "kanon-recognizer")
    assert f"{MEASURED.mention_recall:.1%} of the {MEASURED.mentions} entity mentions" in recognizer
    assert f"seed {MEASURED.seed}" in recognizer and MEASURED.measured_on in recognizer
    assert "TAB direct-identifier recall" in recognizer
    terms = page_text(html, "kanon-released-terms")
    assert f"{report['released_terms']['pseudonym']} replaced by a numbered pseudonym (" in terms
    assert f"PERSON_1 … PERSON_{report['numbered_pseudonyms']['PERSON']}" in terms
    review = page_text(html, "kanon-left-for-review")
    counts = report["left_for_review"]
    assert f"in {counts['texts']} text" in review and "Read these first" in review
    assert f"{run_name}.left_for_review.csv" in review
    table = page_text(html, "kanon-left-for-review-rows")
    first = counts["first"][0]
    assert f"{first['row']} text {', '.join(first['tokens'])}" in table


def run_in_process_started(job_id) -> Job:
    from anonymizer.platform.jobs import runner

    runner.run_job(job_id)
    job = Job.objects.get(id=job_id)
    assert job.status == Job.Status.SUCCEEDED, job.error
    return job


def test_a_job_recognized_in_parts_numbers_its_pseudonyms_as_one_in_one_process(user, settings):
    """The file is written by the job's own process after the parts are merged: the same pseudonyms."""
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("blogs.csv", blog_sample(60)))
    params = {"config_yaml": blog_yaml("k: 2, numbered_pseudonyms: true")}
    settings.JOB_CHUNK_BYTES = 1 << 30
    whole = run_in_process(owner=user, kind="kanon", params=params, inputs=[upload])
    CachedTerms.objects.all().delete()  # the run in parts recognizes and recodes, it does not read them back
    CachedSpread.objects.all().delete()
    settings.JOB_CHUNK_BYTES = 8 * 1024
    parts = run_in_process(owner=user, kind="kanon", params=params, inputs=[upload])
    assert whole.status == parts.status == Job.Status.SUCCEEDED, (whole.error, parts.error)
    assert parts.result["recognition"]["parts"] >= 3 and whole.result["recognition"]["parts"] == 0
    assert parts.result["recognition"]["recognized"] == 0 and not parts.result["spread_cached"]
    released = {job.id: next(content for name, content in result_files(job).items()
                             if name.endswith(".anonymized.csv")) for job in (whole, parts)}
    assert released[whole.id] == released[parts.id] and b"PERSON_2" in released[whole.id]
    assert whole.result["numbered_pseudonyms"] == parts.result["numbered_pseudonyms"]
