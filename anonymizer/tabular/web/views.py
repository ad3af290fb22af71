"""The "profile a CSV" page: upload a file (or choose one uploaded before) and start its profile job."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from anonymizer.platform.i18n import user_message
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.web import selectors, services
from anonymizer.tabular.web.forms import ProfileCsvForm


@login_required
@require_http_methods(["GET", "POST"])
def profile_new(request: HttpRequest) -> HttpResponse:
    uploads = selectors.uploads_to_profile(request.user)
    form = ProfileCsvForm(request=request, uploads=uploads)
    if request.method == "POST" and form.is_valid():
        try:
            job = services.start_profile(owner=request.user, upload=form.cleaned_data["upload"],
                                         uploaded=form.cleaned_data["file"],
                                         sample_rows=form.cleaned_data["sample_rows"])
        except CsvFormatError as exc:  # a refused file raises before anything is stored
            form.add_error("file", user_message(exc))
        else:
            return redirect("job-detail", job_id=job.id)
    return render(request, "jobs/profile_new.html", {"form": form, "uploads": uploads})
