"""The "profile a CSV" page: upload a file (or choose one uploaded before) and start its profile job."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from anonymizer.platform import selectors
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.jobs import services as job_services
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.web.forms import ProfileCsvForm
from anonymizer.tabular.web.jobs import KIND


@login_required
@require_http_methods(["GET", "POST"])
def profile_new(request: HttpRequest) -> HttpResponse:
    uploads = selectors.uploads_of(request.user)
    form = ProfileCsvForm(request=request, uploads=uploads)
    if request.method == "POST" and form.is_valid():
        try:
            # A refused file raises before anything is stored.
            upload = form.cleaned_data["upload"] or upload_services.create_csv_upload(
                owner=request.user, uploaded=form.cleaned_data["file"]
            )
        except CsvFormatError as exc:
            form.add_error("file", str(exc))
        else:
            job = job_services.start_job(owner=request.user, kind=KIND, params={
                "sample_rows": form.cleaned_data["sample_rows"]}, inputs=[upload])
            return redirect("job-detail", job_id=job.id)
    return render(request, "jobs/profile_new.html", {"form": form, "uploads": uploads})
