"""The platform's pages: sign-up and API token, your jobs and your uploads, and the health check. Validate, call
a service, render; objects of other users answer 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from anonymizer.platform import selectors
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.downloads import file_download
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.forms import SignUpForm
from anonymizer.platform.health import check_health
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.jobs.registry import get_job_kind


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
    runner.fail_stale_jobs()
    return render(request, "jobs/list.html", {"jobs": selectors.jobs_of(request.user)[:200]})


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    runner.fail_stale_jobs()
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
    """The status code and ok for everyone (load balancers, `make run`); which part failed, how long each took
    and the workers' host names only for staff."""
    report = check_health()
    body = report if request.user.is_staff else {"ok": report["ok"]}
    return JsonResponse(body, status=200 if report["ok"] else 503)
