"""Browser pages: validate, call a service, render. Objects of other users answer 404."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from anonymizer import selectors
from anonymizer.downloads import file_download
from anonymizer.forms import ProfileCsvForm, SignUpForm
from anonymizer.health import check_health
from anonymizer.jobkinds import UserFacingError, get_job_kind
from anonymizer.services import jobs as job_services
from anonymizer.services import uploads as upload_services
from anonymizer.services.profiling import KIND as PROFILE_KIND
from anonymizer.tabular import CsvFormatError
from anonymizer.temporal.tagging import KIND_LABELS
from anonymizer.upload_limits import refused_upload_message


@require_GET
@ensure_csrf_cookie  # the page posts to the API with the session's CSRF token
def home(request: HttpRequest) -> HttpResponse:
    """The inspect page: paste a post, see where it gives its author away, before and after."""
    models = list(selectors.location_models_for(request.user).order_by("owner_id", "name"))
    config = {
        "inspectUrl": reverse("api-inspect"),
        "tileUrl": settings.MAP_TILE_URL,
        "tileAttribution": settings.MAP_TILE_ATTRIBUTION,
        "maxChars": settings.INSPECT_MAX_CHARS,
        "maxM": settings.INSPECT_MAX_M,
    }
    return render(request, "inspect.html", {"models": models, "config": config, "time_kinds": KIND_LABELS.items(),
                                            "pattern_jobs": selectors.temporal_pattern_jobs_of(request.user)})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Your account is ready.")
        return redirect("job-list")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token; POST replaces it (the old one stops working)."""
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        messages.success(request, "A new API token was made; the old one no longer works.")
        return redirect("api-token")
    token, _ = Token.objects.get_or_create(user=request.user)
    return render(request, "registration/api_token.html", {"token": token})


@login_required
@require_GET
def job_list(request: HttpRequest) -> HttpResponse:
    job_services.fail_stale_jobs()
    return render(request, "jobs/list.html", {"jobs": selectors.jobs_of(request.user)[:200]})


@login_required
@require_http_methods(["GET", "POST"])
def profile_new(request: HttpRequest) -> HttpResponse:
    uploads = selectors.uploads_of(request.user)
    refused = refused_upload_message(request) if request.method == "POST" else None
    form = ProfileCsvForm(request.POST or None, request.FILES or None, uploads=uploads,
                          refused_upload=refused and refused[1])
    if request.method == "POST" and form.is_valid():
        params = get_job_kind(PROFILE_KIND).validate_params({"sample_rows": form.cleaned_data["sample_rows"]})
        try:
            # A refused file raises before anything is stored.
            upload = form.cleaned_data["upload"] or upload_services.create_csv_upload(
                owner=request.user, uploaded=form.cleaned_data["file"]
            )
        except CsvFormatError as exc:
            form.add_error("file", str(exc))
        else:
            job = job_services.create_job(owner=request.user, kind=PROFILE_KIND, params=params, inputs=[upload])
            return redirect("job-detail", job_id=job.id)
    return render(request, "jobs/profile_new.html", {"form": form, "uploads": uploads})


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    job_services.fail_stale_jobs()
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    return render(request, "jobs/detail.html",
                  {"job": job, "summary_template": get_job_kind(job.kind).summary_template})


@login_required
@require_POST
def job_cancel(request: HttpRequest, job_id) -> HttpResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    if job_services.cancel_job(job):
        messages.success(request, "The job was cancelled.")
    else:
        messages.error(request, "The job had already ended.")
    return redirect("job-detail", job_id=job.id)


@login_required
@require_POST
def job_retry(request: HttpRequest, job_id) -> HttpResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    try:
        if job_services.retry_job(job):
            messages.success(request, "The job is queued again.")
        else:
            messages.error(request, "Only a failed or cancelled job can run again.")
    except UserFacingError as exc:
        messages.error(request, str(exc))
    return redirect("job-detail", job_id=job.id)


@login_required
@require_POST
def job_delete(request: HttpRequest, job_id) -> HttpResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    try:
        job_services.delete_job(job)
    except UserFacingError as exc:
        messages.error(request, str(exc))
        return redirect("job-detail", job_id=job.id)
    messages.success(request, "The job and its results were deleted.")
    return redirect("job-list")


@login_required
@require_GET
def job_result_download(request: HttpRequest, job_id, result_id: int) -> FileResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    result = get_object_or_404(job.results, id=result_id)
    return file_download(result.file, result.name, result.content_type)


@login_required
@require_GET
def upload_list(request: HttpRequest) -> HttpResponse:
    return render(request, "uploads/list.html", {"uploads": selectors.uploads_of(request.user)})


@login_required
@require_GET
def upload_download(request: HttpRequest, upload_id) -> FileResponse:
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    return file_download(upload.file, upload.original_name, "text/csv")


@login_required
@require_POST
def upload_delete(request: HttpRequest, upload_id) -> HttpResponse:
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    try:
        upload_services.delete_upload(upload)
    except UserFacingError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{upload.original_name} was deleted.")
    return redirect("upload-list")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = check_health()
    return JsonResponse(report, status=200 if report["ok"] else 503)
