"""The platform's pages: sign-up and API token, your jobs and your uploads, and the health check. Validate, call
a service, render; objects of other users answer 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from anonymizer.platform import accounts, selectors
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.confirm import Confirmation, confirmation_page, confirmed, listing
from anonymizer.platform.downloads import file_download
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.forms import SignUpForm
from anonymizer.platform.health import check_health
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.jobs.describe import flatten, parameter_summary, status_label
from anonymizer.platform.jobs.registry import get_job_kind, upload_actions


def jobs_count(count: int) -> str:
    """"1 job", "4 jobs" ("4件のジョブ"): a count and its noun, a sentence's part."""
    return ngettext("%(n)s job", "%(n)s jobs", count) % {"n": f"{count:,}"}


def result_files(count: int) -> str:
    """"1 result file", "7 result files"."""
    return ngettext("%(n)s result file", "%(n)s result files", count) % {"n": f"{count:,}"}


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, gettext("Welcome, %(name)s. Your account is ready.") % {"name": user.username})
        return redirect("job-list")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token; a confirmed POST replaces it (the old one stops working), an unconfirmed one
    asks first."""
    if request.method == "POST":
        if not confirmed(request):
            return confirmation_page(request, Confirmation(
                title=gettext("Replace your API token?"), action_url=reverse("api-token"),
                confirm_label=gettext("Replace the token"), cancel_url=reverse("api-token"),
                lines=[gettext("A new token is made and the old one stops working at once: every script or tool "
                               "that uses it gets 401 until you give it the new token.")],
                undo=gettext("This cannot be undone: the old token cannot be restored.")))
        accounts.replace_api_token(request.user)
        messages.success(request, gettext("A new API token was made; the old one no longer works."))
        return redirect("api-token")
    token, _ = Token.objects.get_or_create(user=request.user)
    return render(request, "registration/api_token.html", {"token": token})


@login_required
@require_GET
def job_list(request: HttpRequest) -> HttpResponse:
    runner.fail_stale_jobs()
    # While any listed job is queued or running, the page polls api-job-status (static/js/job-list.js).
    return render(request, "jobs/list.html", {"rows": selectors.standings_of(selectors.jobs_of(request.user)[:200])})


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    runner.fail_stale_jobs()
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    try:
        summary_template = get_job_kind(job.kind).summary_template
    except LookupError:  # a kind removed from the code base: its parameters and result as tables
        summary_template = None
    standing = selectors.job_standing(job)
    return render(request, "jobs/detail.html", {
        "job": job, "title": selectors.title_of(job), "state": standing.text, "standing": standing,
        # Folded under the report, behind a summary of the ones that tell the runs apart.
        "parameters": flatten(job.params), "parameter_summary": parameter_summary(job.kind, job.params),
        # Without a page of its own for the result, the result as a table (never a raw dict).
        "summary_template": summary_template,
        "result_rows": flatten(job.result) if job.result and not summary_template else [],
    })


@login_required
@require_http_methods(["GET", "POST"])
def job_cancel(request: HttpRequest, job_id) -> HttpResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    if not job.is_active:
        messages.error(request, gettext("The job had already ended (%(status)s).") % {
            "status": status_label(job.status)})
        return redirect("job-detail", job_id=job.id)
    if not confirmed(request):
        title = selectors.title_of(job)
        done = (gettext("It is running (%(percent)s done): the work done so far is lost.") % {
                    "percent": f"{job.progress_fraction:.0%}"}
                if job.status == job.Status.RUNNING else gettext("It has not started yet."))
        return confirmation_page(request, Confirmation(
            title=gettext("Cancel “%(title)s”?") % {"title": title}, action_url=reverse("job-cancel", args=[job.id]),
            confirm_label=gettext("Cancel the job"), cancel_url=reverse("job-detail", args=[job.id]),
            back_label=gettext("Go back, let it run"), lines=[done, gettext("It writes no result files.")],
            undo=gettext("You can start it again with the same input and parameters (Run again on its page).")))
    if job_services.cancel_job(job):
        messages.success(request, gettext("The job was cancelled. Run again starts it anew."))
    else:
        messages.error(request, gettext("The job had already ended."))
    return redirect("job-detail", job_id=job.id)


@login_required
@require_POST
def job_retry(request: HttpRequest, job_id) -> HttpResponse:
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    try:
        if job_services.retry_job(job):
            messages.success(request, gettext("The job was submitted again."))
        else:
            messages.error(request, gettext("Only a failed or cancelled job can run again."))
    except UserFacingError as exc:
        messages.error(request, str(exc))
    return redirect("job-detail", job_id=job.id)


@login_required
@require_http_methods(["GET", "POST"])
def job_delete(request: HttpRequest, job_id) -> HttpResponse:
    """GET (or a POST without confirm=yes): what goes; a confirmed POST deletes the job and its result files."""
    job = get_object_or_404(selectors.jobs_of(request.user), id=job_id)
    if not confirmed(request):
        consequences = selectors.job_deletion(job)
        files = consequences.result_count
        title = selectors.title_of(job)
        values = {"files": result_files(files),
                  "names": listing(r.name for loss in consequences.jobs for r in loss.results)}
        return confirmation_page(request, Confirmation(
            title=gettext("Delete “%(title)s”?") % {"title": title}, action_url=reverse("job-delete", args=[job.id]),
            confirm_label=(gettext("Delete the job and %(files)s") % values if files
                           else gettext("Delete the job")),
            cancel_url=reverse("job-detail", args=[job.id]), consequences=consequences,
            lines=[gettext("Deleting this job also deletes its %(files)s: %(names)s. Its input file stays.") % values
                   if files else gettext("Deleting this job also deletes its %(files)s. Its input file stays.")
                   % values],
            undo=gettext("This cannot be undone: the files are removed from the server.")))
    title = selectors.title_of(job)
    try:
        job_services.delete_job(job)
    except UserFacingError as exc:
        messages.error(request, str(exc))
        return redirect("job-detail", job_id=job.id)
    messages.success(request, gettext("“%(title)s” and its results were deleted.") % {"title": title})
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
    # Each job kind brings its own links (JobKind.upload_actions): the platform names no capability.
    return render(request, "uploads/list.html", {"uploads": selectors.uploads_of(request.user),
                                                 "upload_actions": upload_actions()})


@login_required
@require_GET
def upload_download(request: HttpRequest, upload_id) -> FileResponse:
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    return file_download(upload.file, upload.original_name, "text/csv")


@login_required
@require_http_methods(["GET", "POST"])
def upload_delete(request: HttpRequest, upload_id) -> HttpResponse:
    """GET (or a POST without confirm=yes): the file and every job that read it, with their result files; a
    confirmed POST deletes them."""
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    name = upload.original_name
    if not confirmed(request):
        consequences = selectors.upload_deletion(upload)
        jobs, files = len(consequences.jobs), consequences.result_count
        values = {"name": name, "jobs": jobs_count(jobs), "files": result_files(files),
                  "names": listing(r.name for loss in consequences.jobs for r in loss.results)}
        if jobs:
            if files:
                line = ngettext("Deleting %(name)s also deletes its %(jobs)s and its %(files)s: %(names)s.",
                                "Deleting %(name)s also deletes its %(jobs)s and their %(files)s: %(names)s.",
                                jobs) % values
            else:
                line = ngettext("Deleting %(name)s also deletes its %(jobs)s and its %(files)s.",
                                "Deleting %(name)s also deletes its %(jobs)s and their %(files)s.", jobs) % values
            label = gettext("Delete %(name)s, %(jobs)s and %(files)s") % values
        else:
            line = gettext("No job has read %(name)s; only the file goes.") % values
            label = gettext("Delete %(name)s") % values
        return confirmation_page(request, Confirmation(
            title=gettext("Delete %(name)s?") % values, action_url=reverse("upload-delete", args=[upload.id]),
            confirm_label=label, cancel_url=reverse("upload-list"), consequences=consequences, lines=[line],
            undo=gettext("This cannot be undone: the file and the results are removed from the server.")))
    try:
        deleted = upload_services.delete_upload(upload)
    except UserFacingError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, ngettext("%(name)s was deleted, with %(n)s job and their results.",
                                           "%(name)s was deleted, with %(n)s jobs and their results.", deleted)
                         % {"name": name, "n": f"{deleted:,}"} if deleted
                         else gettext("%(name)s was deleted.") % {"name": name})
    return redirect("upload-list")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The status code and ok for everyone (load balancers, `make run`); which part failed, how long each took
    and the workers' host names only for staff."""
    report = check_health()
    body = report if request.user.is_staff else {"ok": report["ok"]}
    return JsonResponse(body, status=200 if report["ok"] else 503)
