"""The k-anonymization job in the web application: configure from the profile or from rx-anon's YAML, run,
download the CSV and the report, compare runs; bad configurations and bad cells are refused by name, and the
upload is kept."""

from __future__ import annotations

import csv
import html as html_module
import io
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.models import Job, JobResult, Upload
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, kanon_file, run_in_process, wait_for, write_large_csv

pytestmark = pytest.mark.django_db(transaction=True)

QIS = ["gender", "age", "topic", "sign", "date"]


@pytest.fixture
def paper_upload(user) -> Upload:
    source = kanon_file("rx-anon/paper_example.csv")
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile("paper_example.csv", source.read_bytes()))


def rx_anon_yaml(parameters: str = "") -> str:
    """rx-anon's blog configuration as shipped (it takes k and lambda on the command line: default k = 10),
    with a ``parameters:`` block in front when given."""
    text = kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    return f"parameters: {{{parameters}}}\n{text}" if parameters else text


def run_queued(owner, kind: str = "kanon") -> list[Job]:
    jobs = list(Job.objects.filter(owner=owner, kind=kind, status=Job.Status.QUEUED).order_by("created_at"))
    for job in jobs:
        runner.run_job(job.id)
        job.refresh_from_db()
    return jobs


def released_rows(content: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


def assert_k_anonymous(original: list[dict], released: list[dict], k: int) -> None:
    groups: dict[tuple, set] = defaultdict(set)
    for before, after in zip(original, released, strict=True):
        groups[tuple(after[name] for name in QIS)].add(before["id"])
    assert min(len(persons) for persons in groups.values()) >= k


def test_rx_anon_yaml_job_through_the_api_gives_a_k_anonymous_csv_and_a_report(api, user, paper_upload):
    response = api.post(reverse("api-job-list"), {"kind": "kanon", "params": {"config_yaml": rx_anon_yaml("k: 2")},
                                                  "inputs": [str(paper_upload.id)]}, format="json")
    assert response.status_code == 201, response.content
    job = response.json()
    # Stored in Kakurega's schema, so the job page shows what ran; rx-anon's options are translated.
    assert job["params"]["config"]["k"] == 2 and job["params"]["config"]["strategy"] == "mondrian"
    runner.run_job(job["id"])
    detail = api.get(job["url"]).json()
    assert detail["status"] == "succeeded", detail["error"]
    assert detail["progress"]["fraction"] == 1.0
    results = {r["name"]: r for r in detail["results"]}
    run_name = "paper_example.k2.lambda0.5"  # k, strategy and λ: the runs of one upload differ
    assert set(results) == {f"{run_name}.anonymized.csv", f"{run_name}.report.json",
                            f"{run_name}.left_for_review.csv"}
    content = b"".join(api.get(results[f"{run_name}.anonymized.csv"]["download_url"]).streaming_content)
    released = released_rows(content)
    original = released_rows(kanon_file("rx-anon/paper_example.csv").read_bytes())
    assert list(released[0]) == ["gender", "age", "topic", "sign", "date", "text"]  # id removed, order kept
    assert "Pedro" in original[0]["text"] and "Pedro" not in released[0]["text"]  # a name only he has
    assert len(released) == len(original) == 9
    assert_k_anonymous(original, released, 2)
    report = json.loads(b"".join(api.get(results[f"{run_name}.report.json"]["download_url"]).streaming_content))
    assert report["k_reached"] and report["persons"] == 6 and report["smallest_class"] >= 2
    assert set(report["ncp_relational"]) == set(QIS)
    assert report["warnings"] and "en_core_web_trf" in report["warnings"][0]  # rx-anon's model is not shipped
    assert paper_upload.file.storage.exists(paper_upload.file.name)  # the original is kept
    assert not (Path(settings.JOB_SCRATCH_DIR) / job["id"]).exists()  # the job's temporary files are gone


@pytest.mark.parametrize(
    ("yaml_change", "field", "words"),
    [
        (("  text:", "  texte:"), "attributes.texte", "no such column"),
        (("k: 2", "k: 0"), "parameters.k", "expected an integer >= 2"),
        (("relational_weight: 0.5", "relational_weight: 3"), "parameters.relational_weight", "between 0 and 1"),
    ],
)
def test_an_invalid_configuration_answers_400_naming_the_field_and_queues_nothing(api, paper_upload, yaml_change,
                                                                                   field, words):
    text = rx_anon_yaml("k: 2, relational_weight: 0.5")
    assert yaml_change[0] in text
    response = api.post(reverse("api-job-list"), {"kind": "kanon", "params": {
        "config_yaml": text.replace(yaml_change[0], yaml_change[1], 1)}, "inputs": [str(paper_upload.id)]},
        format="json")
    assert response.status_code == 400
    errors = " ".join(response.json()["params"]["config"])
    assert field in errors and words in errors
    assert not Job.objects.filter(kind="kanon").exists()
    assert Upload.objects.filter(id=paper_upload.id).exists()


def test_bad_cells_fail_the_job_with_row_and_column_and_keep_the_upload(user):
    rows = [["id", "gender", "age", "topic", "sign", "date", "text"],
            ["1", "male", "36", "Education", "Aries", "14,May,2004", "Hello from Mexico."],
            ["2", "female", "25", "Science", "Leo", "2004-05-20", "Hello from Canada."]]
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("dates.csv", csv_bytes(rows)))
    job = run_in_process(owner=user, kind="kanon", params={"config_yaml": rx_anon_yaml("k: 2")}, inputs=[upload])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith('dates.csv: Row 3, column 6 ("date"): "2004-05-20" does not match the date format')
    assert not JobResult.objects.filter(job=job).exists()
    upload.refresh_from_db()
    assert upload.file.storage.exists(upload.file.name)


def test_configure_page_is_prefilled_from_the_profile_and_starts_one_run_per_k_and_lambda(alice_client, user,
                                                                                          paper_upload):
    run_in_process(owner=user, kind="profile_csv", params={}, inputs=[paper_upload])
    page = alice_client.get(reverse("kanon-configure", args=[paper_upload.id]))
    assert page.status_code == 200
    html = page.content.decode()
    # The profile says: id repeats (an identifier), age is a number, date parses as "%d,%B,%Y", text is text.
    assert '<option value="direct_identifier" translate="no" selected>' in html and \
        '<option value="text" translate="no" selected>' in html
    assert 'value="%d,%B,%Y"' in html
    form = {"k": "2, 3", "lambdas": "0, 1", "strategy": "mondrian", "entity_types": ["PERSON", "GPE", "DATE"]}
    for i, (role, kind) in enumerate([("direct_identifier", "nominal"), ("quasi_identifier", "nominal"),
                                      ("quasi_identifier", "numerical"), ("quasi_identifier", "nominal"),
                                      ("quasi_identifier", "nominal"), ("quasi_identifier", "date"),
                                      ("text", "text")]):
        form[f"role-{i}"], form[f"type-{i}"] = role, kind
    form["format-5"] = "%d,%B,%Y"
    response = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]), form)
    assert response.status_code == 302 and response["Location"] == reverse("kanon-compare", args=[paper_upload.id])
    jobs = run_queued(user)
    assert sorted((j.params["config"]["k"], j.params["config"]["relational_weight"]) for j in jobs) == [
        (2, 0.0), (2, 1.0), (3, 0.0), (3, 1.0)]
    assert all(j.status == Job.Status.SUCCEEDED and j.result["k_reached"] for j in jobs), [j.error for j in jobs]
    assert [sorted(j.params["config"]["entity_types"]) for j in jobs] == [["DATE", "GPE", "PERSON"]] * 4
    compare = alice_client.get(reverse("kanon-compare", args=[paper_upload.id])).content.decode()
    # One picture, NCP_A against NCP_X, every run a point labelled by k and λ (runs that lost alike share one).
    labels = re.findall(r'data-label="([^"]+)"', compare)
    assert compare.count("<svg") == 1 and "NCP_A (relational columns)" in compare
    assert sorted((label.split(",")[0], lam) for label in labels for lam in label.split("λ=")[1].split("/")) == [
        ("k=2", "0"), ("k=2", "1"), ("k=3", "0"), ("k=3", "1")]
    report_page = alice_client.get(reverse("job-detail", args=[jobs[0].id])).content.decode()
    assert "k = 2 reached" in report_page and "NCP_A" in report_page


def test_configure_refuses_a_config_naming_a_missing_column_and_keeps_the_form(alice_client, user, paper_upload):
    yaml_text = rx_anon_yaml().replace("  sign:", "  zodiac:", 1)
    response = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]),
                                 {"k": "2", "lambdas": "0.5", "yaml": yaml_text})
    assert response.status_code == 200
    html = response.content.decode()
    assert "The configuration was not accepted" in html and "zodiac" in html
    assert "zodiac" in html.split('id="kanon-yaml"')[1]  # the YAML is still in the text area
    assert not Job.objects.filter(kind="kanon").exists()


def test_an_uploaded_rx_anon_yaml_file_is_accepted(alice_client, user, paper_upload):
    response = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]), {
        "k": "2", "lambdas": "0.5",
        "yaml_file": SimpleUploadedFile("e_blog_authorship_corpus.yaml", rx_anon_yaml().encode())})
    assert response.status_code == 302
    (job,) = run_queued(user)
    assert job.status == Job.Status.SUCCEEDED and job.result["k_reached"]


def test_another_users_dataset_and_runs_answer_404(client, other_user, paper_upload):
    client.force_login(other_user)
    assert client.get(reverse("kanon-configure", args=[paper_upload.id])).status_code == 404
    assert client.get(reverse("kanon-compare", args=[paper_upload.id])).status_code == 404
    response = client.post(reverse("kanon-configure", args=[paper_upload.id]), {"yaml": rx_anon_yaml()})
    assert response.status_code == 404 and not Job.objects.exists()


SYNTHETIC_CONFIG = """
parameters: {k: 2}
attributes:
  id: {anonymization_type: direct_identifier}
  gender: {type: nominal, anonymization_type: quasi_identifier}
  age: {type: numerical, anonymization_type: quasi_identifier}
  topic: {type: nominal, anonymization_type: quasi_identifier}
  date: {type: date, anonymization_type: quasi_identifier, format: "%d,%B,%Y"}
  text: {type: text, anonymization_type: text}
"""


def test_a_real_worker_reports_the_recognition_stage_and_cancelling_stops_it(user, start_worker, tmp_path,
                                                                           paper_upload):
    start_worker()
    big = write_large_csv(tmp_path / "big.csv", rows=40_000)  # NER over 40,000 posts takes about a minute
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("big.csv", big.read_bytes()))
    job = job_services.create_job(owner=user, kind="kanon", params={"config_yaml": SYNTHETIC_CONFIG}, inputs=[upload])
    seen = wait_for(lambda: (j := Job.objects.get(id=job.id)).progress_message.startswith(
        "recognizing sensitive terms") and j, 90, 0.1)
    assert seen.status == Job.Status.RUNNING and 0.1 <= seen.progress_fraction < 0.7
    assert job_services.cancel_job(seen)
    # The worker gives the job up at its next progress report and takes the next one.
    following = job_services.create_job(owner=user, kind="kanon", params={"config_yaml": rx_anon_yaml("k: 2")},
                                        inputs=[paper_upload])
    done = wait_for(lambda: (j := Job.objects.get(id=following.id)).status not in Job.ACTIVE_STATUSES and j, 90, 0.2)
    assert done.status == Job.Status.SUCCEEDED, done.error
    cancelled = Job.objects.get(id=job.id)
    assert cancelled.status == Job.Status.CANCELLED and cancelled.result is None
    assert not JobResult.objects.filter(job=cancelled).exists()
    assert Upload.objects.filter(id=upload.id).exists()


def form_as_prefilled(html: str) -> dict:
    """The configure form's fields with the values the page shows, as a browser would submit them untouched."""
    form: dict = {}
    for name, options in re.findall(r'<select (?:id="[^"]*" )?name="([^"]+)"[^>]*>(.*?)</select>', html, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]* selected', options) or re.search(r'value="([^"]*)"', options)
        form[name] = chosen.group(1)
    for name, value in re.findall(r'<input (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"', html):
        form[name] = html_module.unescape(value)
    form["entity_types"] = re.findall(r'name="entity_types" value="([^"]+)" checked', html)
    return form


def test_the_prefilled_form_submitted_untouched_is_accepted(alice_client, user, paper_upload):
    run_in_process(owner=user, kind="profile_csv", params={}, inputs=[paper_upload])
    html = alice_client.get(reverse("kanon-configure", args=[paper_upload.id])).content.decode()
    form = form_as_prefilled(html)
    assert form["role-0"] == "direct_identifier" and form["format-5"] == "%d,%B,%Y" and form["k"] == "2, 5, 10"
    form["k"] = "2"
    response = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]), form)
    assert response.status_code == 302, re.findall(r"<li>(.*?)</li>", response.content.decode())
    assert len(run_queued(user)) == 3  # k = 2 for each prefilled lambda: 0, 0.5, 1


def test_k_above_the_number_of_persons_fails_the_job_saying_so(user, paper_upload):
    # rx-anon's file as shipped means k = 10; the paper's example has 6 persons.
    job = run_in_process(owner=user, kind="kanon", params={"config_yaml": rx_anon_yaml()}, inputs=[paper_upload])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("The dataset has 6 persons, fewer than k = 10")
    assert not JobResult.objects.filter(job=job).exists()
