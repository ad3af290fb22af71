"""Job pages a person can trust at a glance: runs told apart by title and file name, parameters and results as
tables (never a raw dict), a failed job says so with its error, a queued job its place in the shared queue."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers

from anonymizer.models import Job
from anonymizer.platform.jobs import registry, runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.jobs.describe import flatten, job_title, result_file_name
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_upload, kanon_file

pytestmark = pytest.mark.django_db


class _NoParams(serializers.Serializer):
    pass


def page(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


def text_of(markup: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup))


PAPER_CONFIG = {
    "parameters": {"k": 2, "strategy": "mondrian", "relational_weight": 0.5},
    "attributes": {"id": {"anonymization_type": "direct_identifier"},
                   "gender": {"type": "nominal", "anonymization_type": "quasi_identifier"},
                   "age": {"type": "numerical", "anonymization_type": "quasi_identifier"},
                   "date": {"type": "date", "anonymization_type": "quasi_identifier", "format": "%d,%B,%Y"},
                   "text": {"type": "nominal", "anonymization_type": "insensitive"}},
}


def test_two_lambdas_make_two_titles_and_two_file_names_and_tables_not_dicts(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "paper_example.csv", kanon_file("rx-anon/paper_example.csv").read_bytes()))
    response = alice_client.post(reverse("kanon-configure", args=[upload.id]),
                                 {"k": "2", "lambdas": "0, 0.5", "yaml": yaml.safe_dump(PAPER_CONFIG)})
    assert response.status_code == 302
    jobs = list(Job.objects.filter(kind="kanon").order_by("created_at"))
    for job in jobs:
        runner.run_job(job.id)
    # The confirmation is shown on the runs page once the runs ended: it must not call them queued.
    confirmed = text_of(page(alice_client.get(response.url)))
    assert "2 anonymization runs submitted" in confirmed and "queued" not in confirmed
    jobs = [Job.objects.get(id=job.id) for job in jobs]
    assert [job.status for job in jobs] == ["succeeded", "succeeded"], [job.error for job in jobs]
    names = [sorted(result.name for result in job.results.all()) for job in jobs]
    assert names == [["paper_example.k2.lambda0.anonymized.csv", "paper_example.k2.lambda0.report.json"],
                     ["paper_example.k2.lambda0.5.anonymized.csv", "paper_example.k2.lambda0.5.report.json"]]

    pages = [page(alice_client.get(reverse("job-detail", args=[job.id]))) for job in jobs]
    assert "<h1 id=\"job-title\">k-anonymize paper_example.csv — k=2, λ=0</h1>" in pages[0]
    assert "<h1 id=\"job-title\">k-anonymize paper_example.csv — k=2, λ=0.5</h1>" in pages[1]
    for shown in pages:
        assert "{'" not in shown and "{&#x27;" not in shown and "None" not in text_of(shown)
        params = shown[shown.index('id="job-params"'):]
        params = text_of(params[:params.index("</table>")])
        assert "k 2" in params and "config › l diversity —" in params and "config › strategy mondrian" in params
        # The report comes first; the parameters are folded behind a summary, below it.
        assert shown.index('id="kanon-verdict"') < shown.index('<details class="job-params" id="job-params-details">')
        assert shown.index('id="job-params-details"') < shown.index('id="job-params"')
    runs = page(alice_client.get(reverse("kanon-compare", args=[upload.id])))
    assert "k=2, λ=0<" in runs and "k=2, λ=0.5<" in runs
    # The picture plots NCP_A across and NCP_X up, a point per run (the two lost exactly alike: one point).
    chart = runs[runs.index('<figure class="chart-figure" id="kanon-tradeoff">'):runs.index("</figure>")]
    assert "NCP_A (relational columns)" in chart and "NCP_X (texts)" in chart and ">k<" not in chart
    losses = [(job.result["ncp_relational_total"], job.result["ncp_textual_total"]) for job in jobs]
    labels = re.findall(r'data-label="([^"]+)"', chart)
    assert labels == (["k=2, λ=0/0.5"] if round(losses[0][0], 3) == round(losses[1][0], 3) and round(
        losses[0][1], 3) == round(losses[1][1], 3) else ["k=2, λ=0", "k=2, λ=0.5"])
    listed = page(alice_client.get(reverse("job-list")))
    assert "k-anonymize paper_example.csv — k=2, λ=0.5" in listed


def test_titles_say_gdf_mode_and_model():
    assert job_title("kanon", {"config": {"k": 5, "strategy": "gdf", "relational_weight": 0.5}},
                     ["blogs.csv"]) == "k-anonymize blogs.csv — k=5, GDF"
    assert job_title("remove_time", {"time_mode": "prune", "location_model": "us-midwest-en"}, ["posts.csv"]) == (
        "Remove time from posts.csv — mode=prune, model=us-midwest-en")
    assert job_title("profile_csv", {"sample_rows": 3}, ["posts.csv"]) == "Profile a CSV file: posts.csv"
    assert flatten({"a": None, "b": {"c": [1, 2]}, "d": [{"e": True}]}) == [
        ("a", "—"), ("b › c", "1, 2"), ("d › 1 › e", "yes")]


def test_the_uploads_page_shows_each_kinds_links_in_their_order(alice_client, user, monkeypatch):
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    links = text_of(page(alice_client.get(reverse("upload-list"))))
    assert "k-anonymize · runs · remove time · de-identify posts · preferences · Delete…" in links
    # A new kind brings its own link and its own title parameters; the platform's pages need no change (issue 47).
    kind = JobKind(name="test_new_kind", label="A new kind", run=lambda job, run: None,
                   params_serializer=_NoParams, distinguishing=(Distinguishing("size", "size={}", "size{}"),),
                   upload_actions=(UploadAction("download again", "upload-download", position=35),))
    monkeypatch.setitem(registry._KINDS, kind.name, kind)
    markup = page(alice_client.get(reverse("upload-list")))
    assert "remove time · download again · de-identify posts" in text_of(markup)
    assert f'<a href="{reverse("upload-download", args=[upload.id])}">download again</a>' in markup
    assert job_title(kind.name, {"size": 3}, ["posts.csv"]) == "A new kind: posts.csv — size=3"
    assert result_file_name(kind.name, "posts", {"size": 3}, "out.csv") == "posts.size3.out.csv"


def test_a_failed_job_says_failed_when_and_why_never_started(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    job = job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[upload])
    upload.file.storage.delete(upload.file.name)  # the file is gone from the disk: the run fails
    runner.run_job(job.id)
    job = Job.objects.get(id=job.id)
    assert job.status == Job.Status.FAILED and job.progress_message == "Failed"
    shown = page(alice_client.get(reverse("job-detail", args=[job.id])))
    state = text_of(shown[shown.index('id="job-state"'):shown.index('id="job-outcome"')])
    assert "failed" in state and "Started" not in state and "posts.csv is missing from storage" in state
    assert re.search(r"Failed at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", text_of(shown))
    assert f"Failed {job.finished_at:%Y}" in text_of(shown)  # the facts table: when it failed


def test_a_queued_job_shows_its_place_in_the_shared_queue_and_a_running_one_its_time(alice_client, queue):
    ahead, first, second = queue["ahead"], queue["first"], queue["second"]
    assert "2nd in the queue: 1 job ahead (1 running)" in page(
        alice_client.get(reverse("job-detail", args=[first.id])))
    assert "3rd in the queue: 2 jobs ahead (1 running)" in page(
        alice_client.get(reverse("job-detail", args=[second.id])))
    Job.objects.filter(id=ahead.id).update(status=Job.Status.CANCELLED)
    Job.objects.filter(id=first.id).update(status=Job.Status.RUNNING, heartbeat_at=timezone.now(),
                                           started_at=timezone.now() - timedelta(minutes=3, seconds=5))
    assert "1st in the queue: 0 jobs ahead (2 running)" in page(
        alice_client.get(reverse("job-detail", args=[second.id])))
    assert "Running for 3 min 5 s" in page(alice_client.get(reverse("job-detail", args=[first.id])))


def test_a_job_that_ended_before_its_page_was_shown_is_not_said_to_be_queued(alice_client, user):
    """The form's confirmation is shown once, on the job page, which may be read after the job ended: it says
    the job was submitted, and the page's live status says the rest (never a stale "the job is queued.")."""
    upload = create_csv_upload(owner=user, uploaded=csv_upload([["id", "text"], ["1", "See you at 9AM."]]))
    response = alice_client.post(reverse("temporal-remove-time", args=[upload.id]),
                                 {"text_columns": ["text"], "time_mode": "both"})
    assert response.status_code == 302, response.content.decode()[:2000]
    job = Job.objects.get(kind="remove_time")
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    shown = text_of(page(alice_client.get(response.url)))
    assert "Removing time expressions from posts.csv: job submitted." in shown
    assert "Status: succeeded" in shown and "queued" not in shown


def test_the_runs_page_says_when_lambda_did_not_trade_as_the_form_says(alice_client, user):
    """Two runs of one k where λ = 0 lost more text than λ = 1 (as a 40-row blog sample does): the page names
    the pair with its numbers and says why small data does that; runs that trade as expected get no note."""
    upload = create_csv_upload(owner=user, uploaded=csv_upload(name="small.csv"))

    def finished(lam: float, ncp_a: float, ncp_x: float) -> Job:
        config = {"k": 2, "strategy": "mondrian", "relational_weight": lam, "attributes": []}
        job = Job.objects.create(owner=user, kind="kanon", params={"config": config}, status=Job.Status.SUCCEEDED,
                                 finished_at=timezone.now(), result={
                                     "config": config, "ncp_relational_total": ncp_a, "ncp_textual_total": ncp_x,
                                     "persons": 23, "classes": 9, "smallest_class": 2, "splits": {"age": 4, "date": 4}})
        job.inputs.add(upload)
        return job

    finished(0, 0.505, 0.980)
    last = finished(1, 0.315, 0.975)
    shown = page(alice_client.get(reverse("kanon-compare", args=[upload.id])))
    note = text_of(shown[shown.index('id="kanon-lambda-note"'):shown.index("</p>", shown.index("kanon-lambda-note"))])
    assert "k = 2: λ = 0 lost more text (NCP_X 0.980) than λ = 1 (0.975)" in note
    assert "With 23 persons, these runs made 8 cuts into 9 classes" in note
    assert re.findall(r'data-label="([^"]+)"', shown) == ["k=2, λ=0", "k=2, λ=1"]

    last.result = {**last.result, "ncp_textual_total": 0.990}  # now λ = 1 loses more text: as expected
    last.save()
    assert "kanon-lambda-note" not in page(alice_client.get(reverse("kanon-compare", args=[upload.id])))
