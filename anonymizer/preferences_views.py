"""The preferences page (issue 8): rate cells of a week grid, get recommendations for the rest, contribute
anonymously. The page is static HTML plus JavaScript: the person's ratings stay in their browser."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from anonymizer import selectors


@require_GET
@ensure_csrf_cookie  # a signed-in visitor's contribution posts to the API with the session's CSRF token
def preferences(request: HttpRequest) -> HttpResponse:
    models = list(selectors.preference_models_for(request.user).order_by("owner_id", "name"))
    config = {"modelUrl": reverse("api-preference-model"), "reportsUrl": reverse("api-preference-reports"),
              "maxEpsilon": settings.PREFERENCE_MAX_EPSILON, "maxRounds": settings.PREFERENCE_MAX_ROUNDS}
    return render(request, "preferences/page.html", {"models": models, "config": config})
