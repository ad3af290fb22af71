"""Every destructive or global action asks first: a GET, or a POST without confirm=yes, shows what goes and
changes nothing; only the confirmed POST acts. Deleting an upload takes the jobs that read it and their files.
The API keeps HTTP's semantics (a DELETE is explicit)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, Job, JobResult, Upload
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import answer_all, browser_page, csv_upload, sign_in, token_client

pytestmark = pytest.mark.django_db


def stored_files() -> set[Path]:
    return {path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()}


def page(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


@pytest.fixture
def profiled(user, django_capture_on_commit_callbacks):
    """posts.csv with two finished profile jobs (2 result files each)."""
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    jobs = []
    for rows in (1, 2):
        job = job_services.create_job(owner=user, kind="profile_csv", params={"sample_rows": rows}, inputs=[upload])
        runner.run_job(job.id)
        jobs.append(Job.objects.get(id=job.id))
    assert all(job.status == Job.Status.SUCCEEDED for job in jobs)
    return upload, jobs


def test_deleting_an_upload_lists_its_jobs_and_files_and_only_a_confirmed_post_deletes(
        alice_client, profiled, django_capture_on_commit_callbacks):
    upload, jobs = profiled
    before = stored_files()
    url = reverse("upload-delete", args=[upload.id])
    shown = page(alice_client.get(url))
    assert "Deleting posts.csv also deletes its 2 jobs and their 4 result files" in shown
    for job in jobs:
        assert reverse("job-detail", args=[job.id]) in shown
    assert shown.count("posts.profile.json") >= 2 and shown.count("posts.columns.csv") >= 2
    assert 'name="confirm" value="yes"' in shown and f'action="{url}"' in shown

    # A POST without the confirm field (the old one-click form, a script, a forged page) asks again.
    for data in ({}, {"confirm": "no"}, {"confirm": ""}):
        assert "Deleting posts.csv also deletes" in page(alice_client.post(url, data))
    assert Upload.objects.filter(id=upload.id).exists() and Job.objects.count() == 2
    assert JobResult.objects.count() == 4 and stored_files() == before

    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(url, {"confirm": "yes"})
    assert response.status_code == 302 and response.url == reverse("upload-list")
    assert not Upload.objects.exists() and not Job.objects.exists() and not JobResult.objects.exists()
    assert stored_files() == set()  # the file and the 4 results left the disk
    assert "posts.csv was deleted, with 2 jobs" in page(alice_client.get(response.url))


def test_an_upload_no_job_read_says_only_the_file_goes(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=csv_upload(name="lonely.csv"))
    assert "No job has read lonely.csv; only the file goes." in page(
        alice_client.get(reverse("upload-delete", args=[upload.id])))


def test_deleting_a_job_asks_first_and_lists_its_files(alice_client, profiled):
    _, (job, other) = profiled
    url = reverse("job-delete", args=[job.id])
    shown = page(alice_client.get(url))
    assert "also deletes its 2 result files: posts.columns.csv and posts.profile.json" in shown
    page(alice_client.post(url))
    assert Job.objects.filter(id=job.id).exists() and job.results.count() == 2
    alice_client.post(url, {"confirm": "yes"})
    assert not Job.objects.filter(id=job.id).exists() and Job.objects.filter(id=other.id).exists()


def test_cancelling_a_job_asks_first(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    job = job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[upload])
    url = reverse("job-cancel", args=[job.id])
    assert "It has not started yet." in page(alice_client.post(url))
    assert Job.objects.get(id=job.id).status == Job.Status.QUEUED
    alice_client.post(url, {"confirm": "yes"})
    assert Job.objects.get(id=job.id).status == Job.Status.CANCELLED


def test_the_api_delete_is_explicit_and_takes_the_jobs_too(user, profiled):
    upload, jobs = profiled
    api = token_client(user)
    assert api.delete(reverse("api-job-detail", args=[jobs[0].id])).status_code == 204
    assert api.delete(reverse("api-upload-detail", args=[upload.id])).status_code == 204
    assert not Upload.objects.exists() and not Job.objects.exists()


def test_other_users_get_404_on_every_confirmation_page(profiled, other_user):
    upload, (job, _) = profiled
    mallory = Client()
    mallory.force_login(other_user)
    for name, args in [("upload-delete", [upload.id]), ("job-delete", [job.id]), ("job-cancel", [job.id])]:
        assert mallory.get(reverse(name, args=args)).status_code == 404
        assert mallory.post(reverse(name, args=args), {"confirm": "yes"}).status_code == 404
    assert Upload.objects.filter(id=upload.id).exists() and Job.objects.filter(id=job.id).exists()


# -- campaigns -------------------------------------------------------------------------------------------------
@pytest.fixture
def campaign(staff) -> Campaign:
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(3)]
    return crowd.create_campaign(owner=staff, name="Kyoto posts", instructions="Judge.", consent_text="OK.",
                                 posts=posts, judgments_per_post=2)


@pytest.fixture
def staff_client(staff) -> Client:
    client = Client()
    client.force_login(staff)
    return client


def test_closing_a_campaign_asks_first_and_can_be_undone(staff_client, campaign):
    url = reverse("campaign-action", args=[campaign.id, "close"])
    shown = page(staff_client.get(url))
    assert "Close “Kyoto posts”?" in shown and "You can reopen it" in shown
    page(staff_client.post(url))
    assert Campaign.objects.get(id=campaign.id).status == Campaign.Status.OPEN
    staff_client.post(url, {"confirm": "yes"})
    assert Campaign.objects.get(id=campaign.id).status == Campaign.Status.CLOSED
    Client().post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    assert campaign.participants.count() == 0  # the link admits nobody
    detail = page(staff_client.get(reverse("campaign-detail", args=[campaign.id])))
    assert "Reopen the campaign" in detail
    staff_client.post(reverse("campaign-action", args=[campaign.id, "reopen"]))
    assert Campaign.objects.get(id=campaign.id).status == Campaign.Status.OPEN
    joined = Client()
    joined.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    assert campaign.participants.count() == 1  # the link admits again


def test_campaign_jobs_that_cannot_run_are_refused_with_the_reason(staff_client, campaign):
    # No location model: neither job can run; even a confirmed POST starts nothing and says why.
    response = staff_client.post(reverse("campaign-action", args=[campaign.id, "train_human_model"]),
                                 {"confirm": "yes"}, follow=True)
    assert "The campaign has no location model" in page(response)
    response = staff_client.get(reverse("campaign-action", args=[campaign.id, "calibrate_threshold"]), follow=True)
    assert "It does not apply to this task" in page(response)
    assert not Job.objects.exists()


def test_training_the_human_classifier_asks_first(staff_client, staff, location_models):
    # Cut-off 0.5, 5 answers each: every post decided, both labels present, so the job can run.
    posts = [crowd.PostSpec(f"post {i}", external_id=f"r{i}") for i in range(12)]
    campaign = crowd.create_campaign(owner=staff, name="Kyoto posts", instructions="Judge.", consent_text="OK.",
                                     posts=posts, judgments_per_post=5, cutoff=0.5,
                                     location_model=location_models["tokyo-ja"])
    answer_all(campaign, 5, lambda text: int(text.split()[1]) % 2 == 0)
    url = reverse("campaign-action", args=[campaign.id, "train_human_model"])
    shown = page(staff_client.get(url))
    assert "saved unused: nothing anybody uses changes" in shown
    page(staff_client.post(url))  # without confirm=yes: the same page again
    assert not Job.objects.exists()
    response = staff_client.post(url, {"confirm": "yes"})
    assert response.status_code == 302 and Job.objects.filter(kind="train_human_model").count() == 1


# -- in a browser --------------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_in_a_browser_delete_shows_what_goes_then_deletes(live_server, user):
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    job = job_services.create_job(owner=user, kind="profile_csv", params={"sample_rows": 1}, inputs=[upload])
    runner.run_job(job.id)
    # Before the browser: Playwright's event loop then stops Django's database calls until it ends.
    seen: dict[str, str] = {}
    for browser in browser_page():
        browser.set_viewport_size({"width": 1280, "height": 900})
        browser.set_default_timeout(20_000)
        sign_in(browser, live_server, "alice", "correct horse battery staple")
        browser.goto(live_server.url + reverse("upload-list"))
        browser.click("[data-upload-delete='posts.csv']")
        browser.wait_for_selector("#confirmation")
        seen["confirmation"] = browser.text_content("#confirmation")
        browser.click("#confirm-button")
        browser.wait_for_url("**/uploads/")
        seen["after"] = browser.text_content("main") or browser.content()
    assert "Deleting posts.csv also deletes its 1 job and its 2 result files" in seen["confirmation"]
    assert "Profile a CSV file: posts.csv" in seen["confirmation"]
    assert "posts.profile.json" in seen["confirmation"] and "posts.columns.csv" in seen["confirmation"]
    assert "posts.csv was deleted, with 1 job" in seen["after"] and "No uploads" in seen["after"]
    assert not Upload.objects.exists() and not Job.objects.exists()
