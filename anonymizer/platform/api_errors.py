"""One error shape for the REST API: every answer of 400 and above under /api/ is JSON ``{"detail": ...}``.

DRF answers its own errors so; what it never sees is answered here: a body too large for
DATA_UPLOAD_MAX_MEMORY_SIZE (413), a query string longer than a request line may be (414), too many query or
form fields (400), a URL that matches no endpoint (404) and an unhandled error (500), which Django renders as the
site's HTML pages. gunicorn refuses a request line past its own limit before Django sees it (gunicorn.conf.py
makes that answer JSON too)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# gunicorn's longest request line (gunicorn.conf.py's limit_request_line, the most it allows): a query string
# past it is refused alike behind any server. 200 job ids (jobs/status/?ids=) take about 7,800.
MAX_QUERY_STRING_CHARS = 8190

_DETAILS = {
    400: "The request could not be read (malformed or too many fields).",
    403: "Forbidden.",
    404: "No such API endpoint.",
    500: "Internal server error; it was logged.",
}


def json_error(detail: str, status: int) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


def body_too_large(size: int | None = None) -> JsonResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    said = f"{size:,} bytes" if size is not None else "larger than the limit"
    return json_error(f"The request body is {said}; the limit is {limit:,} bytes (files go to the uploads "
                      "endpoint as multipart).", 413)


def _is_multipart(request: HttpRequest) -> bool:
    return request.META.get("CONTENT_TYPE", "").lower().startswith("multipart/")


class ApiErrorMiddleware:
    """Under /api/: refuses too large bodies (413) and too long query strings (414) before anything reads them,
    and gives every other error that Django, not DRF, answers the API's JSON shape."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        query = request.META.get("QUERY_STRING", "")
        if len(query) > MAX_QUERY_STRING_CHARS:
            return json_error(f"The query string is {len(query):,} characters long; the limit is "
                              f"{MAX_QUERY_STRING_CHARS:,}.", 414)
        # Django refuses such a body only when something reads it, and answers with an HTML page. A multipart
        # body's files do not count (the upload limits are the uploads endpoint's).
        size = _content_length(request)
        if size is not None and size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE and not _is_multipart(request):
            return body_too_large(size)
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").startswith("application/json"):
            return self._as_json(response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """The request errors a view meets while reading the body (multipart fields past the limits)."""
        if not request.path_info.startswith(API_PREFIX):
            return None
        if isinstance(exception, RequestDataTooBig):
            return body_too_large()
        if isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
            return json_error(f"Too many fields in the request (at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,}).",
                              400)
        if isinstance(exception, SuspiciousOperation):
            logger.warning("Refused a suspicious API request: %s", type(exception).__name__)
            return json_error(_DETAILS[400], 400)
        return None

    @staticmethod
    def _as_json(response: HttpResponse) -> JsonResponse:
        status = response.status_code
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        converted = json_error(_DETAILS.get(status, f"{phrase}."), status)
        for header in ("Retry-After", "Allow", "WWW-Authenticate"):
            if header in response:
                converted[header] = response[header]
        return converted


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None
