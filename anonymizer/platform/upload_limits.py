"""Upload size limit enforced while the request body streams in, so an oversized file never fills the disk."""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest


class UploadSizeLimitHandler(FileUploadHandler):
    """First in FILE_UPLOAD_HANDLERS: counts each file's bytes and skips the file past UPLOAD_MAX_BYTES.

    The skipped file is absent from request.FILES; refused_upload_message() tells the view why.
    """

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > settings.UPLOAD_MAX_BYTES:
            self.request._refused_upload = (self.field_name, self.file_name)
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handlers build the file


def refused_upload_message(request: HttpRequest) -> tuple[str, str] | None:
    """(field name, message) when the size limit made the upload handler drop a file from this request."""
    request.FILES  # noqa: B018 - parse the body first: the handler records the refusal while parsing
    refused = getattr(request, "_refused_upload", None)
    if refused is None:
        return None
    field_name, file_name = refused
    limit_mb = settings.UPLOAD_MAX_BYTES / (1024 * 1024)
    return field_name, f"The file {file_name} is larger than the upload limit of {limit_mb:g} MB."
