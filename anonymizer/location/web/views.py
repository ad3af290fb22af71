"""The inspect page (the home page): paste a post, see where it gives its author away, before and after. It is
static HTML plus JavaScript calling the inspect API."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods

from anonymizer.location.web import selectors, services
from anonymizer.models import HumanInferabilityModel
from anonymizer.platform.confirm import Confirmation, confirmation_page, confirmed
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


@login_required
@require_http_methods(["GET", "POST"])
def use_model_version(request: HttpRequest, version_id) -> HttpResponse:
    """Switch to a saved version of one's own model (a calibrated threshold, a human-inferability classifier):
    a confirmation page first, and only the owner's own models; a built-in default changes by operator command."""
    record = services.own_version(request.user, version_id)
    if record is None:
        raise Http404("No such model version of yours.")
    back = request.GET.get("back") or request.POST.get("back") or reverse("home")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("home")
    if not confirmed(request):
        what = (f"the human-inferability classifier beside “{record.location_model.name}”"
                if isinstance(record, HumanInferabilityModel) else f"your model “{record.name}” ({record.title})")
        return confirmation_page(request, Confirmation(
            title="Use this version?", action_url=request.path, confirm_label="Use this version", cancel_url=back,
            danger=False, hidden={"back": back},
            lines=[f"This version becomes {what}: the inspect page and your jobs use it from now on.",
                   "Built-in models and other users' models do not change."],
            undo="The version in use now is kept, unused, not deleted."))
    services.use_version(record)
    messages.success(request, "The version is now in use.")
    return redirect(back)
