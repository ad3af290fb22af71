"""Browser-facing pages through Django's test client: accounts, the upload check, ownership (404), CSRF."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from anonymizer.models import Job, Upload
from anonymizer.platform.jobs import runner
from tests.helpers import csv_upload

pytestmark = pytest.mark.django_db


def stored_files() -> list[Path]:
    return [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]


def test_signup_logs_in_and_logout_needs_post(client, django_user_model):
    response = client.post(reverse("signup"), {"username": "hana", "password1": "a long enough passphrase 7",
                                               "password2": "a long enough passphrase 7"})
    assert response.status_code == 302 and response.url == reverse("job-list")
    assert client.get(reverse("job-list")).status_code == 200
    assert client.get(reverse("logout")).status_code == 405
    client.post(reverse("logout"))
    assert client.get(reverse("job-list")).status_code == 302  # back to the log-in page


def test_signup_refuses_a_weak_password(client, django_user_model):
    response = client.post(reverse("signup"), {"username": "hana", "password1": "123", "password2": "123"})
    assert response.status_code == 200
    assert "too short" in response.content.decode()
    assert not django_user_model.objects.exists()


def test_pages_need_a_login(client):
    for name in ["job-list", "profile-new", "upload-list", "api-token"]:
        response = client.get(reverse(name))
        assert response.status_code == 302 and response.url.startswith(reverse("login")), name


def test_profile_form_stores_upload_and_queues_job(alice_client, user):
    response = alice_client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 3})
    job = Job.objects.get()
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.id])
    assert (job.owner, job.kind, job.params, job.status) == (user, "profile_csv", {"sample_rows": 3}, "queued")
    upload = job.inputs.get()
    assert upload.original_name == "posts.csv" and upload.metadata["rows"] == 4
    assert upload.metadata["header"][-1] == "text"
    page = alice_client.get(response.url).content.decode()
    assert 'id="job-progress"' in page and "queued" in page


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"a,b\n1,2\n3,4,5\n", "Row 3"),
        (b"a,a\n1,2\n", "column names must be unique"),
        ("a,b\n1,caf\xe9\n".encode("latin-1"), "UTF-8"),
        (b"", "empty"),
    ],
)
def test_a_bad_csv_is_refused_with_its_location_and_nothing_is_kept(alice_client, content, expected):
    response = alice_client.post(
        reverse("profile-new"), {"file": SimpleUploadedFile("bad.csv", content), "sample_rows": 10}
    )
    assert response.status_code == 200
    assert expected in response.content.decode()
    assert not Upload.objects.exists() and not Job.objects.exists()
    assert stored_files() == []


def test_an_oversized_upload_is_refused_while_streaming(alice_client, settings):
    settings.UPLOAD_MAX_BYTES = 1024
    big = SimpleUploadedFile("big.csv", b"a,b\n" + b"1,2\n" * 2000)
    response = alice_client.post(reverse("profile-new"), {"file": big, "sample_rows": 10})
    assert response.status_code == 200
    assert "larger than the upload limit" in response.content.decode()
    assert not Upload.objects.exists() and stored_files() == []


def test_profile_an_earlier_upload_again(alice_client, user):
    alice_client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1})
    upload = Upload.objects.get()
    alice_client.post(reverse("profile-new"), {"upload": str(upload.id), "sample_rows": 2})
    assert Job.objects.count() == 2 and Upload.objects.count() == 1


@pytest.fixture
def alice_job(alice_client, user):
    alice_client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1})
    job = Job.objects.get()
    runner.run_job(job.id)
    return Job.objects.get(id=job.id)


def test_owner_sees_and_downloads_results(alice_client, alice_job):
    page = alice_client.get(reverse("job-detail", args=[alice_job.id])).content.decode()
    assert "succeeded" in page and "posts.profile.json" in page and 'id="profile-columns"' in page
    result = alice_job.results.get(name="posts.columns.csv")
    response = alice_client.get(reverse("job-result-download", args=[alice_job.id, result.id]))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="posts.columns.csv"')
    assert b"".join(response.streaming_content).startswith(b"index,name,type")


def test_another_user_gets_404_everywhere(alice_job, other_user):
    mallory = Client()
    mallory.force_login(other_user)
    result = alice_job.results.first()
    upload = alice_job.inputs.get()
    for method, name, args in [
        ("get", "job-detail", [alice_job.id]),
        ("get", "job-result-download", [alice_job.id, result.id]),
        ("post", "job-cancel", [alice_job.id]),
        ("post", "job-retry", [alice_job.id]),
        ("post", "job-delete", [alice_job.id]),
        ("get", "upload-download", [upload.id]),
        ("post", "upload-delete", [upload.id]),
    ]:
        response = getattr(mallory, method)(reverse(name, args=args))
        assert response.status_code == 404, name
    assert "posts.csv" not in mallory.get(reverse("job-list")).content.decode()
    assert "posts.csv" not in mallory.get(reverse("upload-list")).content.decode()
    assert Job.objects.filter(id=alice_job.id, status="succeeded").exists()


def test_forms_are_csrf_protected(user, alice_job):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(reverse("job-delete", args=[alice_job.id])).status_code == 403
    assert strict.post(reverse("profile-new"), {"file": csv_upload()}).status_code == 403
    assert Job.objects.filter(id=alice_job.id).exists()


def test_upload_in_use_cannot_be_deleted_until_its_job_ended(alice_client, user):
    alice_client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1})
    upload, job = Upload.objects.get(), Job.objects.get()
    page = alice_client.get(reverse("upload-delete", args=[upload.id])).content.decode()
    assert "A queued or running job still uses this file" in page and 'id="confirm-button"' not in page
    alice_client.post(reverse("upload-delete", args=[upload.id]), {"confirm": "yes"})
    assert Upload.objects.filter(id=upload.id).exists()  # the queued job still needs it
    alice_client.post(reverse("job-cancel", args=[job.id]), {"confirm": "yes"})
    alice_client.post(reverse("upload-delete", args=[upload.id]), {"confirm": "yes"})
    assert not Upload.objects.exists() and not Job.objects.exists()  # the job that read it went with it


def test_api_token_page_shows_and_rotates_the_token(alice_client, user):
    first = alice_client.get(reverse("api-token")).context["token"].key
    asked = alice_client.post(reverse("api-token"))  # without confirm=yes: asks, changes nothing
    assert "Replace your API token?" in asked.content.decode()
    assert alice_client.get(reverse("api-token")).context["token"].key == first
    alice_client.post(reverse("api-token"), {"confirm": "yes"})
    second = alice_client.get(reverse("api-token")).context["token"].key
    assert first != second and len(second) == 40
