"""Fixtures the platform's page and poll tests share."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import timezone

from anonymizer.models import Job
from anonymizer.platform.help import build_help
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_upload


@pytest.fixture
def queue(user, other_user) -> dict[str, Job]:
    """Mallory has a job running and one queued before both of Alice's."""
    mine = create_csv_upload(owner=user, uploaded=csv_upload(name="alice-posts.csv"))
    theirs = create_csv_upload(owner=other_user, uploaded=csv_upload(name="mallory-secret.csv"))
    running = job_services.create_job(owner=other_user, kind="profile_csv", params={}, inputs=[theirs])
    ahead = job_services.create_job(owner=other_user, kind="profile_csv", params={}, inputs=[theirs])
    first = job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[mine])
    second = job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[mine])
    Job.objects.filter(id=running.id).update(status=Job.Status.RUNNING, started_at=timezone.now(),
                                             heartbeat_at=timezone.now())
    return {"running": running, "ahead": ahead, "first": first, "second": second}


@pytest.fixture(scope="session")
def built_help(tmp_path_factory) -> Path:
    """The manual built once per test process, with the function `manage.py bootstrap` uses."""
    site = tmp_path_factory.mktemp("help") / "site"
    build_help(site)
    return site


@pytest.fixture
def help_site(built_help, settings) -> Path:
    """The built manual, served at /help/."""
    settings.HELP_DIR = built_help
    return built_help
