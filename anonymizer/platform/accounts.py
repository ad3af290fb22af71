"""An account's own page: what it owns, changing its password, deleting it with everything it owns. Validate, call
a service, render; the deletion asks for the password and says first what goes."""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from anonymizer.models import (
    Campaign,
    HumanInferabilityModel,
    Job,
    JobResult,
    PreferenceModel,
    TrainedLocationModel,
    Upload,
)
from anonymizer.platform.confirm import plural
from anonymizer.platform.errors import UserFacingError


@dataclass(frozen=True)
class Holdings:
    """What an account owns, counted: all of it goes with the account."""

    uploads: int
    jobs: int
    result_files: int
    active_jobs: int
    campaigns: int
    location_models: int
    human_models: int
    preference_models: int

    def lines(self) -> list[str]:
        """One line per kind the account has any of ("3 uploaded files"), for the confirmation page."""
        kinds = [(self.uploads, "uploaded file", None), (self.jobs, "job", None),
                 (self.result_files, "result file", None),
                 (self.campaigns, "crowdsourcing campaign (with its posts, participants and answers)",
                  "crowdsourcing campaigns (with their posts, participants and answers)"),
                 (self.location_models, "location model", None),
                 (self.human_models, "human-inferability model", None),
                 (self.preference_models, "preference model", None)]
        return [plural(count, noun, nouns) for count, noun, nouns in kinds if count]


def holdings_of(user: AbstractBaseUser) -> Holdings:
    jobs = Job.objects.filter(owner_id=user.pk)
    return Holdings(
        uploads=Upload.objects.filter(owner_id=user.pk).count(), jobs=jobs.count(),
        result_files=JobResult.objects.filter(job__owner_id=user.pk).count(),
        active_jobs=jobs.filter(status__in=Job.ACTIVE_STATUSES).count(),
        campaigns=Campaign.objects.filter(owner_id=user.pk).count(),
        location_models=TrainedLocationModel.objects.filter(owner_id=user.pk).count(),
        human_models=HumanInferabilityModel.objects.filter(owner_id=user.pk).count(),
        preference_models=PreferenceModel.objects.filter(owner_id=user.pk).count(),
    )


def delete_account(user: AbstractBaseUser) -> None:
    """Delete the account and, in cascade, everything it owns; stored files and model directories follow their
    rows once the deletion commits (anonymizer.platform.signals). Refused while one of its jobs is queued or
    running: a worker would go on writing for an account that no longer exists."""
    with transaction.atomic():
        if Job.objects.select_for_update().filter(owner_id=user.pk, status__in=Job.ACTIVE_STATUSES).exists():
            raise UserFacingError("A job of yours is still queued or running: cancel it (or wait for it to end) "
                                  "before deleting your account.")
        user.delete()


class DeleteAccountForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                               help_text="Your password, to confirm that it is you.")

    def __init__(self, *args, user: AbstractBaseUser, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password; nothing was deleted.")
        return password


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/account.html", {"holdings": holdings_of(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    holdings = holdings_of(request.user)
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        username = request.user.get_username()
        try:
            delete_account(request.user)
        except UserFacingError as exc:
            form.add_error(None, str(exc))
        else:
            logout(request)
            messages.success(request, f"The account {username} and everything it owned were deleted.")
            return redirect("home")
    return render(request, "registration/account_delete.html", {"holdings": holdings, "form": form},
                  status=400 if form.errors else 200)
