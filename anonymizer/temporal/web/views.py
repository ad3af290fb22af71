"""Pages of the temporal workflow: remove time expressions (and optionally the location) from an upload's posts,
and learn the temporal patterns of its posts first. Both start their job with the one job-start helper, which
validates and prepares the parameters; a refused value comes back next to its field."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from anonymizer.models import TrainedLocationModel, Upload
from anonymizer.platform import artifacts, selectors
from anonymizer.platform.jobs.pages import refusals_by_label, start_job_from_page
from anonymizer.temporal.removal import DEFAULTS, LANGUAGE, PATTERNS_JOB
from anonymizer.temporal.tagging import KIND_LABELS
from anonymizer.temporal.web.jobs import KIND as REMOVE_TIME_KIND

# The form's fields as the page labels them, for the list of refusals above the form.
_LABELS = {"text_columns": gettext_lazy("Text column(s)"), "time_mode": gettext_lazy("How"),
           "keep_time": pgettext_lazy("time kinds to keep", "Keep"),
           "remove_how_long": pgettext_lazy("time kinds to keep", "Keep"),
           "time_patterns": gettext_lazy("Known patterns"),
           "time_patterns_top": gettext_lazy("Use the top"), "location_model": gettext_lazy("Location too"),
           "non_field_errors": gettext_lazy("The form")}


def _default_column(header: list[str]) -> str:
    return "text" if "text" in header else (header[0] if header else "")


def _page(request: HttpRequest, upload: Upload, *, form: dict | None = None, errors: dict | None = None,
          patterns_form: dict | None = None, patterns_errors: dict | None = None) -> HttpResponse:
    header = list(upload.metadata.get("header", []))
    form = form or {"text_columns": [_default_column(header)], "time_mode": DEFAULTS.time_mode,
                    "keep_time": list(DEFAULTS.keep_time), "remove_how_long": DEFAULTS.remove_how_long,
                    "time_patterns": "", "time_patterns_top": str(DEFAULTS.time_patterns_top), "location_model": ""}
    patterns_form = patterns_form or {"text_column": _default_column(header)}
    errors = errors or {}
    refusals = refusals_by_label(errors, _LABELS)
    return render(request, "temporal/remove_time.html", {
        "upload": upload, "header": header, "form": form, "errors": errors, "refusals": refusals,
        "patterns_form": patterns_form, "patterns_errors": patterns_errors or {},
        "time_kinds": [(kind, gettext(label)) for kind, label in KIND_LABELS.items()],
        "pattern_jobs": selectors.succeeded_jobs_of(request.user, PATTERNS_JOB),
        "location_models": artifacts.usable_by(TrainedLocationModel, request.user).filter(language=LANGUAGE)
        .order_by("owner_id", "name"),
    })


@login_required
@require_http_methods(["GET", "POST"])
def remove_time(request: HttpRequest, upload_id) -> HttpResponse:
    """Choose the text columns and how time expressions go."""
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    if request.method == "GET":
        return _page(request, upload)
    form = {"text_columns": request.POST.getlist("text_columns"), "time_mode": request.POST.get("time_mode", ""),
            "keep_time": request.POST.getlist("keep_time"),
            "remove_how_long": bool(request.POST.get("remove_how_long")),
            "time_patterns": request.POST.get("time_patterns", ""),
            "time_patterns_top": request.POST.get("time_patterns_top", "").strip() or str(DEFAULTS.time_patterns_top),
            "location_model": request.POST.get("location_model", "")}
    params = {**form, "time_patterns": form["time_patterns"] or None, "location_model": form["location_model"] or None}
    return start_job_from_page(
        request, kind=REMOVE_TIME_KIND, params=params, inputs=[upload],
        submitted=gettext("Removing time expressions from %(name)s: job submitted.") % {"name": upload.original_name},
        refused=lambda errors: _page(request, upload, form=form, errors=errors))


@login_required
@require_POST
def learn_patterns(request: HttpRequest, upload_id) -> HttpResponse:
    """Start a "learn temporal patterns" job on one text column of the upload."""
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    patterns_form = {"text_column": request.POST.get("text_column", "")}
    return start_job_from_page(
        request, kind=PATTERNS_JOB, params=patterns_form, inputs=[upload],
        submitted=gettext("Learning the temporal patterns of %(name)s: job submitted.") % {
            "name": upload.original_name},
        refused=lambda errors: _page(request, upload, patterns_form=patterns_form, patterns_errors=errors))
