"""What a capability's page does to start a job from its form, said once: the one job-start helper
(``services.start_job``: validate, prepare against the inputs, create in one transaction, publish), then either
the job's page with a message, or the form again with each refusal next to its field."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from rest_framework import serializers

from anonymizer.models import Upload
from anonymizer.platform.errors import field_errors
from anonymizer.platform.jobs import services

#: What a page shows again when the parameters are refused: the errors by field, as ``field_errors`` gives them.
Refused = Callable[[dict[str, list[str]]], HttpResponse]


def start_job_from_page(request: HttpRequest, *, kind: str, params: dict | None, inputs: Sequence[Upload] = (),
                        submitted: str, refused: Refused) -> HttpResponse:
    """Start a ``kind`` job for the signed-in user. Refused parameters: ``refused(errors by field)``, nothing
    queued. Started: the ``submitted`` message (said once, on the job page, which shows the job's live status)
    and a redirect to the job's page."""
    try:
        job = services.start_job(owner=request.user, kind=kind, params=params, inputs=inputs)
    except serializers.ValidationError as exc:
        return refused(field_errors(exc))
    messages.success(request, submitted)
    return redirect("job-detail", job_id=job.id)


def refusals_by_label(errors: Mapping[str, list[str]], labels: Mapping[str, str]) -> dict[str, list[str]]:
    """The errors by field as the page labels its fields (``labels``; a field without one keeps its name), for the
    list of refusals above a form; two fields with one label share its entry."""
    refusals: dict[str, list[str]] = {}
    for field, problems in errors.items():
        refusals.setdefault(labels.get(field, field), []).extend(problems)
    return refusals
