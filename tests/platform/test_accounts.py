"""An account's page, its password change and its deletion with everything it owns (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from anonymizer.models import Job, Upload
from anonymizer.platform.jobs import runner
from tests.helpers import csv_upload

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def stored_files() -> list[Path]:
    return [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]


def profile_job(client: Client) -> Job:
    """One upload profiled to the end by the real job code (in process), so a result file exists on disk."""
    client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1})
    job = Job.objects.latest("created_at")
    runner.run_job(job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.results.count() >= 1
    return job


def test_the_account_page_says_what_the_account_owns(alice_client, user):
    profile_job(alice_client)
    page = alice_client.get(reverse("account")).content.decode()
    assert "1 uploaded file" in page and "1 job" in page and "result file" in page
    assert reverse("password_change") in page and reverse("account-delete") in page
    assert alice_client.get(reverse("account")).status_code == 200
    assert Client().get(reverse("account")).status_code == 302  # to the log-in page


def test_password_change_needs_the_old_password(alice_client, user):
    refused = alice_client.post(reverse("password_change"), {
        "old_password": "wrong", "new_password1": "a new long passphrase 9",
        "new_password2": "a new long passphrase 9"})
    assert refused.status_code == 200 and "incorrectly" in refused.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    done = alice_client.post(reverse("password_change"), {
        "old_password": PASSWORD, "new_password1": "a new long passphrase 9",
        "new_password2": "a new long passphrase 9"})
    assert done.status_code == 302 and done.url == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password("a new long passphrase 9")


def test_deleting_the_account_lists_what_goes_asks_the_password_and_removes_all_of_it(
        alice_client, user, other_user, django_capture_on_commit_callbacks):
    job = profile_job(alice_client)
    mallory = Client()
    mallory.force_login(other_user)
    mallory.post(reverse("profile-new"), {"file": csv_upload(name="mallory.csv"), "sample_rows": 1})
    files_before = stored_files()
    assert len(files_before) >= 3  # alice's upload and result, mallory's upload

    confirm = alice_client.get(reverse("account-delete")).content.decode()
    assert "1 uploaded file" in confirm and "1 job" in confirm and "cannot be undone" in confirm

    wrong = alice_client.post(reverse("account-delete"), {"password": "not it"})
    assert wrong.status_code == 400 and "nothing was deleted" in wrong.content.decode()
    assert get_user_model().objects.filter(id=user.id).exists() and Job.objects.filter(id=job.id).exists()

    with django_capture_on_commit_callbacks(execute=True):  # the files go once the deletion commits
        gone = alice_client.post(reverse("account-delete"), {"password": PASSWORD})
    assert gone.status_code == 302
    assert not get_user_model().objects.filter(id=user.id).exists()
    assert not Job.objects.filter(owner_id=user.id).exists() and not Upload.objects.filter(owner_id=user.id).exists()
    # Alice's files left the disk; mallory's upload stayed.
    left = stored_files()
    assert len(left) == 1 and Upload.objects.get().owner == other_user
    assert alice_client.get(reverse("job-list")).status_code == 302  # logged out


def test_an_account_with_a_queued_job_is_not_deleted(alice_client, user):
    alice_client.post(reverse("profile-new"), {"file": csv_upload(), "sample_rows": 1})
    assert Job.objects.get().status == Job.Status.QUEUED
    confirm = alice_client.get(reverse("account-delete")).content.decode()
    assert "still queued or" in confirm
    refused = alice_client.post(reverse("account-delete"), {"password": PASSWORD})
    assert refused.status_code == 400 and "cancel it" in refused.content.decode()
    assert get_user_model().objects.filter(id=user.id).exists() and Job.objects.exists() and Upload.objects.exists()


@pytest.mark.parametrize("path", ["/no-such-page/", "/jobs/00000000-0000-0000-0000-000000000000/"])
def test_a_missing_page_is_the_friendly_404(alice_client, path):
    response = alice_client.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert "Nothing here" in page and "belongs to another account" in page and 'class="site-header"' in page
