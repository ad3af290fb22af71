from __future__ import annotations

from django.db.models.fields.files import FieldFile
from django.http import FileResponse, Http404


def file_download(field_file: FieldFile, name: str, content_type: str) -> FileResponse:
    """Stream a stored file as an attachment; a file gone from storage is a 404, not a crash."""
    try:
        handle = field_file.open("rb")
    except FileNotFoundError as exc:
        raise Http404("The file is no longer in storage.") from exc
    return FileResponse(handle, as_attachment=True, filename=name, content_type=content_type)
