"""Writes for uploads: check a file before anything is stored, keep it as sent, delete it (and the jobs that read
it) on request."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext

from anonymizer.models import Job, Upload
from anonymizer.models.jobs import MAX_ORIGINAL_NAME_CHARS, bounded_name, upload_directory
from anonymizer.platform import disk
from anonymizer.platform.errors import UserFacingError
from anonymizer.tabular import check_csv

logger = logging.getLogger(__name__)


def _sha256(uploaded: UploadedFile) -> str:
    digest = hashlib.sha256()
    uploaded.seek(0)
    for chunk in uploaded.chunks():
        digest.update(chunk)
    uploaded.seek(0)
    return digest.hexdigest()


def original_name(uploaded: UploadedFile, default: str = "upload.csv") -> str:
    """The name the file was sent with, for display and download: at most the column's length, its extension
    kept. (It is stored under a name of its own: anonymizer.models.jobs.stored_file_name.)"""
    name = (uploaded.name or "").strip()
    return bounded_name(name, max_chars=MAX_ORIGINAL_NAME_CHARS) or default


def create_csv_upload(*, owner: AbstractBaseUser, uploaded: UploadedFile) -> Upload:
    """Check that the file is a well-formed UTF-8 CSV within the size limit, then store it.

    Raises anonymizer.tabular.CsvFormatError (with row and column) for a bad file; nothing is stored then, and
    whatever goes wrong while it is stored, neither its file nor its directory is left behind.
    """
    shape = check_csv(uploaded, max_bytes=settings.UPLOAD_MAX_BYTES)
    upload = Upload(
        owner=owner,
        original_name=original_name(uploaded),
        size_bytes=shape.size_bytes,
        sha256=_sha256(uploaded),
        metadata={"format": "csv", "encoding": shape.encoding, "delimiter": shape.delimiter,
                  "header": list(shape.header), "rows": shape.rows},
    )
    uploaded.seek(0)
    try:
        upload.file.save(upload.original_name, uploaded, save=False)
        upload.save()
    except BaseException:
        _discard_files(upload)
        raise
    return upload


def _discard_files(upload: Upload) -> None:
    """Remove what storing ``upload`` left: its own directory (uploads/<owner>/<id>/) with its file, and the
    owner's directory when that leaves it empty."""
    try:
        if upload.file:
            disk.remove_stored(upload.file.storage, upload.file.name)
        disk.remove_stored(upload.file.storage, upload_directory(upload))
    except Exception:  # the original error matters more; this one is logged
        logger.exception("Could not delete the files of the refused upload %s", upload.id)


def delete_upload(upload: Upload) -> int:
    """Delete an upload and its file, with every job that read it and their result files (they hold what was
    derived from the file's data), unless a queued or running job still reads it. Returns how many jobs went.
    Pages confirm first (anonymizer.platform.selectors.upload_deletion says what goes)."""
    with transaction.atomic():
        jobs = Job.objects.filter(inputs=upload)
        if jobs.filter(status__in=Job.ACTIVE_STATUSES).exists():
            raise UserFacingError(
                gettext("A queued or running job still uses this file; cancel the job or wait for it to end."))
        deleted = Job.objects.filter(id__in=list(jobs.values_list("id", flat=True))).delete()[1].get(
            Job._meta.label, 0)
        upload.delete()  # files go with their rows, once this commits (anonymizer.platform.signals)
    return deleted
