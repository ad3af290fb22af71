"""One error shape for the REST API: every answer of 400 and above under /api/ is JSON ``{"detail": ...}``, and
those answered here carry a stable machine-readable ``code`` too (``request_too_large``, ``not_found``, ...): the
``code`` is the same in every language, the ``detail`` is in the request's (Accept-Language, else English).

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
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# gunicorn's longest request line (gunicorn.conf.py's limit_request_line, the most it allows): a query string
# past it is refused alike behind any server. 200 job ids (jobs/status/?ids=) take about 7,800.
MAX_QUERY_STRING_CHARS = 8190

# (code, detail) of the errors Django answers and this middleware words; the codes never change.
_DETAILS = {
    400: ("malformed_request", gettext_lazy("The request could not be read (malformed or too many fields).")),
    403: ("forbidden", gettext_lazy("Forbidden.")),
    404: ("not_found", gettext_lazy("No such API endpoint.")),
    500: ("server_error", gettext_lazy("Internal server error; it was logged.")),
}


def json_error(detail: str, status: int, code: str = "error") -> JsonResponse:
    return JsonResponse({"detail": str(detail), "code": code}, status=status)


def body_too_large(size: int | None = None) -> JsonResponse:
    limit = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,}"
    if size is None:
        detail = gettext("The request body is larger than the limit; the limit is %(limit)s bytes (files go to the "
                         "uploads endpoint as multipart).") % {"limit": limit}
    else:
        detail = gettext("The request body is %(size)s bytes; the limit is %(limit)s bytes (files go to the uploads "
                         "endpoint as multipart).") % {"size": f"{size:,}", "limit": limit}
    return json_error(detail, 413, "request_too_large")


def _code_of(status: int, phrase: str) -> str:
    """A status without a wording of its own: its HTTP phrase as a code ("method_not_allowed")."""
    return "_".join(phrase.lower().replace("-", " ").split()) or "error"


def _language(request: HttpRequest) -> str:
    """The request's language: LocaleMiddleware's choice once it ran, else the browser's (this middleware runs
    before it)."""
    return getattr(request, "LANGUAGE_CODE", None) or translation.get_language_from_request(request)


def exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """DRF's handler, and a ``{"detail": ...}`` answer gets the ``code`` of its error ("not_found",
    "not_authenticated", "throttled", ...) beside the detail in the request's language (DRF's own texts come
    from its catalogs). Field errors (400) keep DRF's shape: field names as keys."""
    response = drf_exception_handler(exc, context)
    # A ValidationError's keys are fields (a field may be called "detail" or "code"): left as they are.
    if response is not None and isinstance(response.data, dict) and not isinstance(exc, ValidationError):
        detail = response.data.get("detail")
        if isinstance(detail, ErrorDetail) and "code" not in response.data:
            response.data["code"] = detail.code
    return response


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
            with translation.override(_language(request)):
                return json_error(gettext("The query string is %(length)s characters long; the limit is %(limit)s.")
                                  % {"length": f"{len(query):,}", "limit": f"{MAX_QUERY_STRING_CHARS:,}"},
                                  414, "query_too_long")
        # Django refuses such a body only when something reads it, and answers with an HTML page. A multipart
        # body's files do not count (the upload limits are the uploads endpoint's).
        size = _content_length(request)
        if size is not None and size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE and not _is_multipart(request):
            with translation.override(_language(request)):
                return body_too_large(size)
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").startswith("application/json"):
            with translation.override(_language(request)):
                return self._as_json(response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """The request errors a view meets while reading the body (multipart fields past the limits)."""
        if not request.path_info.startswith(API_PREFIX):
            return None
        with translation.override(_language(request)):
            if isinstance(exception, RequestDataTooBig):
                return body_too_large()
            if isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
                return json_error(gettext("Too many fields in the request (at most %(limit)s).")
                                  % {"limit": f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,}"}, 400, "too_many_fields")
            if isinstance(exception, SuspiciousOperation):
                logger.warning("Refused a suspicious API request: %s", type(exception).__name__)
                code, detail = _DETAILS[400]
                return json_error(detail, 400, code)
        return None

    @staticmethod
    def _as_json(response: HttpResponse) -> JsonResponse:
        status = response.status_code
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        # A status without a wording here keeps HTTP's English phrase as its detail (e.g. "Method Not Allowed.").
        code, detail = _DETAILS.get(status, (_code_of(status, phrase), f"{phrase}."))
        converted = json_error(detail, status, code)
        for header in ("Retry-After", "Allow", "WWW-Authenticate"):
            if header in response:
                converted[header] = response[header]
        return converted


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None
