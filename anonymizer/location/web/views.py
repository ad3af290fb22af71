"""The inspect page (the home page): paste a post, see where it gives its author away, before and after. It is
static HTML plus JavaScript calling the inspect API."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from anonymizer.location.web import selectors
from anonymizer.platform.selectors import succeeded_jobs_of
from anonymizer.temporal.removal import PATTERNS_JOB
from anonymizer.temporal.tagging import KIND_LABELS


@require_GET
@ensure_csrf_cookie  # the page posts to the API with the session's CSRF token
def home(request: HttpRequest) -> HttpResponse:
    models = list(selectors.location_models_for(request.user).order_by("owner_id", "name"))
    config = {
        "inspectUrl": reverse("api-inspect"),
        "reportUrl": reverse("api-inspect-report"),
        "tileUrl": settings.MAP_TILE_URL,
        "tileAttribution": settings.MAP_TILE_ATTRIBUTION,
        "maxChars": settings.INSPECT_MAX_CHARS,
        "maxM": settings.INSPECT_MAX_M,
    }
    return render(request, "inspect.html", {"models": models, "config": config, "time_kinds": KIND_LABELS.items(),
                                            "pattern_jobs": succeeded_jobs_of(request.user, PATTERNS_JOB)})
