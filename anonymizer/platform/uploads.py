"""Writes for uploads: check a file before anything is stored, keep it as sent, delete it on request."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile

from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.tabular import check_csv


def _sha256(uploaded: UploadedFile) -> str:
    digest = hashlib.sha256()
    uploaded.seek(0)
    for chunk in uploaded.chunks():
        digest.update(chunk)
    uploaded.seek(0)
    return digest.hexdigest()


def create_csv_upload(*, owner: AbstractBaseUser, uploaded: UploadedFile) -> Upload:
    """Check that the file is a well-formed UTF-8 CSV within the size limit, then store it.

    Raises anonymizer.tabular.CsvFormatError (with row and column) for a bad file; nothing is stored then.
    """
    shape = check_csv(uploaded, max_bytes=settings.UPLOAD_MAX_BYTES)
    upload = Upload(
        owner=owner,
        original_name=(uploaded.name or "upload.csv")[:255],
        size_bytes=shape.size_bytes,
        sha256=_sha256(uploaded),
        metadata={"format": "csv", "encoding": shape.encoding, "delimiter": shape.delimiter,
                  "header": list(shape.header), "rows": shape.rows},
    )
    uploaded.seek(0)
    upload.file.save(upload.original_name, uploaded, save=False)
    try:
        upload.save()
    except Exception:
        upload.file.delete(save=False)
        raise
    return upload


def delete_upload(upload: Upload) -> None:
    """Delete an upload and its file, unless a queued or running job still reads it."""
    if upload.jobs.filter(status__in=Job.ACTIVE_STATUSES).exists():
        raise UserFacingError("A queued or running job still uses this file; cancel the job or wait for it to end.")
    upload.delete()  # the file goes with its row (anonymizer.platform.signals)
