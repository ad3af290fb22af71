"""Writes of the "profile a CSV" page: store a new file (or take one uploaded before) and start its profile job."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile

from anonymizer.models import Job, Upload
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.jobs import services as job_services
from anonymizer.tabular.web.jobs import KIND


def start_profile(*, owner: AbstractBaseUser, upload: Upload | None, uploaded: UploadedFile | None,
                  sample_rows: int) -> Job:
    """Profile ``upload``, or the new file ``uploaded`` once it is stored: a refused file raises
    anonymizer.tabular.CsvFormatError before anything is stored."""
    upload = upload or upload_services.create_csv_upload(owner=owner, uploaded=uploaded)
    return job_services.start_job(owner=owner, kind=KIND, params={"sample_rows": sample_rows}, inputs=[upload])
