"""Writes of the k-anonymization workflow: the runs a configure form asks for, started as jobs together (each
validated first, then all created in one transaction, or none)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from anonymizer.kanon.web.selectors import KIND
from anonymizer.models import Job, Upload
from anonymizer.platform.jobs import services as job_services


def start_runs(*, owner: AbstractBaseUser, upload: Upload, runs: Sequence[dict]) -> list[Job]:
    """One k-anonymization job per run's parameters (``{"config": ...}``) on the upload."""
    return job_services.start_jobs(owner=owner, kind=KIND, runs=runs, inputs=[upload])
