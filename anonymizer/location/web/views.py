"""The inspect page (the home page): paste a post, see where it gives its author away, before and after. It is
static HTML plus JavaScript calling the inspect API."""

from __future__ import annotations

import json
from dataclasses import fields

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header, url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods

from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS, InspectOptions
from anonymizer.location.web import api, review_selectors, selectors, services
from anonymizer.location.web.jobs import DEIDENTIFY_KIND
from anonymizer.models import HumanInferabilityModel, Upload
from anonymizer.platform import artifacts
from anonymizer.platform.confirm import Confirmation, confirmation_page, confirmed
from anonymizer.platform.jobs.pages import refusals_by_label, start_job_from_page
from anonymizer.platform.selectors import succeeded_jobs_of, uploads_of
from anonymizer.temporal.removal import DEFAULT_KEEP_TIME, PATTERNS_JOB
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
        # The form's defaults as the server has them (anonymizer.location.options), never restated in the script.
        "defaults": {option.name: getattr(DEFAULT_OPTIONS, option.name) for option in fields(InspectOptions)
                     if option.name != "time"},
    }
    time_kinds = [(kind, gettext(label)) for kind, label in KIND_LABELS.items()]
    return render(request, "inspect.html", {"models": models, "config": config, "time_kinds": time_kinds,
                                            "default_keep_time": DEFAULT_KEEP_TIME,
                                            "pattern_jobs": succeeded_jobs_of(request.user, PATTERNS_JOB)})


@login_required
@require_http_methods(["GET", "POST"])
def use_model_version(request: HttpRequest, version_id) -> HttpResponse:
    """Switch to a saved version of one's own model (a calibrated threshold, a human-inferability classifier):
    a confirmation page first, and only the owner's own models; a built-in default changes by operator command."""
    record = services.own_version(request.user, version_id)
    if record is None:
        raise Http404(gettext("No such model version of yours."))
    back = request.GET.get("back") or request.POST.get("back") or reverse("home")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("home")
    if not confirmed(request):
        line = (gettext("This version becomes the human-inferability classifier beside “%(model)s”: the inspect page "
                        "and your jobs use it from now on.") % {"model": record.location_model.name}
                if isinstance(record, HumanInferabilityModel) else
                gettext("This version becomes your model “%(model)s” (%(title)s): the inspect page and your jobs use "
                        "it from now on.") % {"model": record.name, "title": gettext(record.title)})
        return confirmation_page(request, Confirmation(
            title=gettext("Use this version?"), action_url=request.path, confirm_label=gettext("Use this version"),
            cancel_url=back, danger=False, hidden={"back": back},
            lines=[line, gettext("Built-in models and other users' models do not change.")],
            undo=gettext("The version in use now is kept, unused, not deleted.")))
    services.use_version(record)
    messages.success(request, gettext("The version is now in use."))
    return redirect(back)


# -- de-identify every post of an upload -------------------------------------------------------------------------
# The form's fields as the page labels them, for the list of refusals above the form.
_DEIDENTIFY_LABELS = {"text_columns": gettext_lazy("Text column(s)"), "model": gettext_lazy("Location model"),
                      "replacement": gettext_lazy("A deleted place becomes"), "places": gettext_lazy("Place names"),
                      "remove_time": gettext_lazy("Time"), "time_mode": gettext_lazy("Time"),
                      "non_field_errors": gettext_lazy("The form")}

def _deidentify_page(request: HttpRequest, upload: Upload, *, form: dict | None = None,
                     errors: dict | None = None) -> HttpResponse:
    header = list(upload.metadata.get("header", []))
    models = artifacts.own_first(selectors.location_models_for(request.user))
    form = form or {"text_columns": ["text" if "text" in header else (header[0] if header else "")],
                    "model": str(models.first().id) if models.exists() else "", "remove_time": False,
                    "time_mode": "both", "replacement": DEFAULT_OPTIONS.replacement, "places": DEFAULT_OPTIONS.places}
    errors = errors or {}
    refusals = refusals_by_label(errors, _DEIDENTIFY_LABELS)
    return render(request, "location/deidentify_posts.html", {
        "upload": upload, "header": header, "form": form, "errors": errors, "refusals": refusals, "models": models,
        "replacements": REPLACEMENTS, "place_policies": PLACE_POLICIES,
    })


@login_required
@require_http_methods(["GET", "POST"])
def deidentify_posts(request: HttpRequest, upload_id) -> HttpResponse:
    """Choose the text columns, the model and the options, and start the job (validated before it is queued)."""
    upload = get_object_or_404(uploads_of(request.user), id=upload_id)
    if request.method == "GET":
        return _deidentify_page(request, upload)
    form = {"text_columns": request.POST.getlist("text_columns"), "model": request.POST.get("model", ""),
            "remove_time": bool(request.POST.get("remove_time")), "time_mode": request.POST.get("time_mode", "both"),
            "replacement": request.POST.get("replacement", DEFAULT_OPTIONS.replacement),
            "places": request.POST.get("places", DEFAULT_OPTIONS.places)}
    return start_job_from_page(
        request, kind=DEIDENTIFY_KIND, params=form, inputs=[upload],
        submitted=gettext("De-identifying the posts of %(name)s: job submitted.") % {"name": upload.original_name},
        refused=lambda errors: _deidentify_page(request, upload, form=form, errors=errors))


# -- review a de-identified file ----------------------------------------------------------------------------------
def _review_job(request: HttpRequest, job_id):
    job = review_selectors.review_job(request.user, job_id)
    if job is None:  # another user's job, another kind, not succeeded: none of it exists for this user
        raise Http404(gettext("No succeeded de-identify-posts job of yours has this id."))
    return job


@login_required
@require_GET
@ensure_csrf_cookie  # the page posts to the review API with the session's CSRF token
def review_file(request: HttpRequest, job_id) -> HttpResponse:
    """The posts the job left for review, a page of rows at a time, each with the spans to check highlighted;
    keyboard first (static/js/review-file.js)."""
    job = _review_job(request, job_id)
    try:
        start = max(int(request.GET.get("from", 2)), 2)
    except ValueError:
        start = 2
    listing = review_selectors.rows_to_review(job, start=start)
    rows = [{"key": item.key, "row": item.row, "column": item.column, "verdict": item.verdict,
             "released": item.released, "names": item.names,
             "flags": [{"start": f.start, "end": f.end, "kind": f.kind} for f in item.flags],
             "review": api.review_payload(None, item.review) if item.review else None} for item in listing.rows]
    config = {"apiUrl": reverse("api-location-review", args=[job.id]), "rows": rows}
    return render(request, "location/review_file.html", {
        "job": job, "listing": listing, "rows": rows, "config": config, "start": start,
        "multi_column": len(review_selectors.text_columns(job)) > 1,
        "result": review_selectors.result_of(job), "reviewed": job.reviewed_rows.count(),
    })


@login_required
@require_GET
def review_download(request: HttpRequest, job_id) -> StreamingHttpResponse:
    """The reviewed file: the job's result with the reviews applied, streamed row by row."""
    job = _review_job(request, job_id)
    response = StreamingHttpResponse(review_selectors.reviewed_csv(job), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, review_selectors.reviewed_file_name(job))
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def review_report(request: HttpRequest, job_id) -> HttpResponse:
    """What the owner changed and how (JSON, no post text)."""
    job = _review_job(request, job_id)
    report = review_selectors.review_report(job)
    response = HttpResponse(json.dumps(report, indent=1, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(
        True, review_selectors.reviewed_file_name(job, "review.json"))
    response["Cache-Control"] = "no-store"
    return response
