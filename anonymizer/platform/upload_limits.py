"""Upload size limit enforced while the request body streams in, so an oversized file never fills the disk."""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest
from django.utils.translation import gettext


class UploadSizeLimitHandler(FileUploadHandler):
    """First in FILE_UPLOAD_HANDLERS: counts each file's bytes and skips the file past UPLOAD_MAX_BYTES.

    The skipped file is absent from request.FILES; refused_uploads() tells the view which and why (pages report
    it next to the file field through anonymizer.platform.forms).
    """

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > settings.UPLOAD_MAX_BYTES:
            refused = getattr(self.request, "_refused_uploads", None)
            if refused is None:
                refused = self.request._refused_uploads = []
            refused.append((self.field_name, self.file_name))
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handlers build the file


def _message(file_name: str) -> str:
    limit_mb = settings.UPLOAD_MAX_BYTES / (1024 * 1024)
    return gettext("The file %(name)s is larger than the upload limit of %(limit)s MB.") % {
        "name": file_name, "limit": f"{limit_mb:g}"}


def refused_uploads(request: HttpRequest) -> list[tuple[str, str]]:
    """(field name, message) of every file the size limit made the upload handler drop from this request."""
    request.FILES  # noqa: B018 - parse the body first: the handler records the refusal while parsing
    return [(field_name, _message(file_name)) for field_name, file_name in getattr(request, "_refused_uploads", ())]


def refused_upload_message(request: HttpRequest) -> tuple[str, str] | None:
    """(field name, message) when the size limit made the upload handler drop a file from this request (the
    first one, when several were dropped)."""
    refused = refused_uploads(request)
    return refused[0] if refused else None
