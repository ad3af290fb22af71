"""Pages of the location-privacy preferences. The preferences page: rate cells of a week grid, get
recommendations for the rest, contribute anonymously; it is static HTML plus JavaScript, so the person's ratings
stay in their browser. The jobs page (signed in): upload real preference files, run the experiment, train a
model from an upload."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods

from anonymizer.platform import selectors as platform_selectors
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.forms import upload_refusals
from anonymizer.platform.i18n import user_message
from anonymizer.platform.jobs.pages import Refused, start_job_from_page
from anonymizer.platform.jobs.registry import get_job_kind
from anonymizer.preferences.experiment import METHODS
from anonymizer.preferences.items import SLOT_HOURS
from anonymizer.preferences.web import selectors
from anonymizer.preferences.web import services as preference_services
from anonymizer.preferences.web.jobs import KIND as EXPERIMENT_KIND
from anonymizer.preferences.web.jobs import SWEEP_LABELS, SWEEPS, TRAIN_KIND
from anonymizer.preferences.web.jobs import UPLOAD_KIND as EXPERIMENT_UPLOAD_KIND
from anonymizer.tabular import CsvFormatError


@require_GET
@ensure_csrf_cookie  # a signed-in visitor's contribution posts to the API with the session's CSRF token
def preferences(request: HttpRequest) -> HttpResponse:
    models = list(selectors.preference_models_for(request.user).order_by("owner_id", "name"))
    config = {"modelUrl": reverse("api-preference-model"), "reportsUrl": reverse("api-preference-reports"),
              "maxEpsilon": settings.PREFERENCE_MAX_EPSILON, "maxRounds": settings.PREFERENCE_MAX_ROUNDS,
              "ledgerEpsilon": settings.PREFERENCE_LEDGER_EPSILON, "ledgerDays": settings.PREFERENCE_LEDGER_DAYS}
    return render(request, "preferences/page.html", {"models": models, "config": config})


def _numbers(text: str) -> list[str]:
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


EXPERIMENT_DEFAULTS = {"source": "proxy", "sweeps": list(SWEEPS), "slot_hours": [str(h) for h in SLOT_HOURS],
                       "epsilons": "0.1, 0.5, 1, 2, 5, 10", "hidden_shares": "0.1, 0.3, 0.5, 0.7, 0.9",
                       "methods": ["item-mean", "user-mean", "mf", "ldp-mf"], "folds": "10", "place": "root",
                       "split_week": False}
TRAIN_DEFAULTS = {"upload": "", "name": "", "title": "", "slot_hours": "4", "split_week": False, "epsilon": "1",
                  "rounds": ""}


def _jobs_page(request: HttpRequest, *, experiment: dict | None = None, train: dict | None = None,
               errors: dict | None = None, which: str = "", status: int = 200) -> HttpResponse:
    uploads = platform_selectors.uploads_of(request.user)
    chosen = request.GET.get("upload", "")
    return render(request, "preferences/jobs.html", {
        "uploads": uploads, "experiment": experiment or {**EXPERIMENT_DEFAULTS, "source": chosen or "proxy"},
        "train": train or {**TRAIN_DEFAULTS, "upload": chosen}, "errors": errors or {}, "which": which,
        "sweeps": [(sweep, SWEEP_LABELS[sweep]) for sweep in SWEEPS], "slot_hours": SLOT_HOURS, "methods": METHODS,
        "models": selectors.preference_models_for(request.user).filter(owner_id=request.user.pk),
    }, status=status)


def _start(request: HttpRequest, kind_name: str, data: dict, inputs: list, refused: Refused) -> HttpResponse:
    """Start the job, or show the page again with its field errors."""
    submitted = gettext("%(kind)s: job submitted.") % {"kind": get_job_kind(kind_name).label}
    return start_job_from_page(request, kind=kind_name, params=data, inputs=inputs, submitted=submitted,
                               refused=refused)


@login_required
@require_http_methods(["GET", "POST"])
def preference_jobs(request: HttpRequest) -> HttpResponse:
    """Upload preference files, run the experiment (shipped check-ins or an upload), train a model from one."""
    if request.method == "GET":
        return _jobs_page(request)
    action = request.POST.get("action", "")
    if action == "upload":
        refused = upload_refusals(request)  # a file over the upload limit: an error of its field
        if refused:
            return _jobs_page(request, errors=refused, which="upload", status=400)
        uploaded = request.FILES.get("file")
        try:
            if uploaded is None:
                raise UserFacingError(gettext("Choose a preference CSV file to upload."))
            upload = preference_services.create_preference_upload(owner=request.user, uploaded=uploaded)
        except (UserFacingError, CsvFormatError) as exc:
            return _jobs_page(request, errors={"file": [user_message(exc)]}, which="upload", status=400)
        messages.success(request, gettext("%(name)s: %(rows)s preference rows stored.") % {
            "name": upload.original_name, "rows": upload.metadata.get("rows")})
        return redirect(f"{reverse('preference-jobs')}?upload={upload.id}")
    if action == "experiment":
        form = {"source": request.POST.get("source", "proxy"), "sweeps": request.POST.getlist("sweeps"),
                "slot_hours": request.POST.getlist("slot_hours"), "epsilons": request.POST.get("epsilons", ""),
                "hidden_shares": request.POST.get("hidden_shares", ""), "methods": request.POST.getlist("methods"),
                "folds": request.POST.get("folds", ""), "place": request.POST.get("place", "root"),
                "split_week": bool(request.POST.get("split_week"))}
        data = {**form, "epsilons": _numbers(form["epsilons"]), "hidden_shares": _numbers(form["hidden_shares"]),
                "fixed_slot_hours": form["slot_hours"][0] if len(form["slot_hours"]) == 1 else 6}
        data.pop("source")

        def experiment_refused(errors: dict) -> HttpResponse:
            return _jobs_page(request, experiment=form, errors=errors, which="experiment", status=400)

        if form["source"] == "proxy":
            return _start(request, EXPERIMENT_KIND, data, [], experiment_refused)
        upload = platform_selectors.upload_of(request.user, form["source"])
        if upload is None:
            return experiment_refused({"source": [gettext("Choose the check-ins or one of your uploads.")]})
        data.pop("place")
        return _start(request, EXPERIMENT_UPLOAD_KIND, data, [upload], experiment_refused)
    if action == "train":
        form = {key: request.POST.get(key, "") for key in ("upload", "name", "title", "slot_hours", "epsilon",
                                                           "rounds")}
        form["split_week"] = bool(request.POST.get("split_week"))
        upload = platform_selectors.upload_of(request.user, form["upload"])

        def train_refused(errors: dict) -> HttpResponse:
            return _jobs_page(request, train=form, errors=errors, which="train", status=400)

        if upload is None:
            return train_refused({"upload": [gettext("Choose one of your uploads.")]})
        data = {k: v for k, v in form.items() if k != "upload"}
        data["rounds"] = data["rounds"] or None  # empty: the trainer's choice for the epsilon
        return _start(request, TRAIN_KIND, data, [upload], train_refused)
    return _jobs_page(request, errors={"action": [gettext("Unknown action.")]}, status=400)
