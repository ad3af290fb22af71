"""An account's own page: what it owns, changing its password, replacing its API token, deleting it with everything
it owns. Validate, call a service, render; the deletion asks for the password and says first what goes.

Every form that asks for the account's password checks it as signing in does (django.contrib.auth.authenticate),
so django-axes counts a wrong one toward the lockout of that username from that address, and AUTH_RATE bounds
the attempts per address (anonymizer.platform.throttles)."""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.contrib.auth import authenticate, logout, update_session_auth_hash
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods
from rest_framework.authtoken.models import Token

from anonymizer.models import (
    Campaign,
    HumanInferabilityModel,
    Job,
    JobResult,
    PreferenceModel,
    TrainedLocationModel,
    Upload,
)
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
        kinds = [
            (self.uploads, ngettext("%(n)s uploaded file", "%(n)s uploaded files", self.uploads)),
            (self.jobs, ngettext("%(n)s job", "%(n)s jobs", self.jobs)),
            (self.result_files, ngettext("%(n)s result file", "%(n)s result files", self.result_files)),
            (self.campaigns, ngettext("%(n)s crowdsourcing campaign (with its posts, participants and answers)",
                                      "%(n)s crowdsourcing campaigns (with their posts, participants and answers)",
                                      self.campaigns)),
            (self.location_models, ngettext("%(n)s location model", "%(n)s location models", self.location_models)),
            (self.human_models, ngettext("%(n)s human-inferability model", "%(n)s human-inferability models",
                                         self.human_models)),
            (self.preference_models, ngettext("%(n)s preference model", "%(n)s preference models",
                                              self.preference_models)),
        ]
        return [text % {"n": f"{count:,}"} for count, text in kinds if count]


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
            raise UserFacingError(gettext("A job of yours is still queued or running: cancel it (or wait for it to "
                                          "end) before deleting your account."))
        user.delete()


def replace_api_token(user: AbstractBaseUser) -> None:
    """Delete the account's API token: every script using it gets 401 from now on. A new one is made when its
    owner asks for one (the token page, or the token endpoint with the password)."""
    Token.objects.filter(user=user).delete()


def change_password(request: HttpRequest, user: AbstractBaseUser, new_password: str) -> None:
    """Set a new password. The API token goes with the old password (whoever learned one may hold the other), and
    every other session of the account ends: Django signs sessions with the password's hash, so theirs no longer
    match at their next request; this request's session is signed again and stays."""
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        replace_api_token(user)
    update_session_auth_hash(request, user)


def is_password_of(request: HttpRequest, user: AbstractBaseUser, password: str) -> bool:
    """Whether ``password`` is the account's, checked as signing in is, so django-axes counts a wrong one (and
    refuses any once the account is locked out from this address: AxesMiddleware answers 429)."""
    return authenticate(request, username=user.get_username(), password=password) is not None


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Django's, with the old password checked by :func:`is_password_of`."""

    def __init__(self, user: AbstractBaseUser, *args, request: HttpRequest, **kwargs) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data["old_password"]
        if not is_password_of(self.request, self.user, old_password):
            raise forms.ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's page, changing the password through :func:`change_password`."""

    form_class = PasswordChangeForm

    def get_form_kwargs(self) -> dict:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        change_password(self.request, form.user, form.cleaned_data["new_password1"])
        return HttpResponseRedirect(self.get_success_url())


class DeleteAccountForm(forms.Form):
    password = forms.CharField(label=gettext_lazy("Password"),
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                               help_text=gettext_lazy("Your password, to confirm that it is you."))

    def __init__(self, *args, request: HttpRequest, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not is_password_of(self.request, self.request.user, password):
            raise forms.ValidationError(gettext("That is not your password; nothing was deleted."))
        return password


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/account.html", {"holdings": holdings_of(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    holdings = holdings_of(request.user)
    form = DeleteAccountForm(request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():
        username = request.user.get_username()
        try:
            delete_account(request.user)
        except UserFacingError as exc:
            form.add_error(None, str(exc))
        else:
            logout(request)
            messages.success(request, gettext("The account %(name)s and everything it owned were deleted.")
                             % {"name": username})
            return redirect("home")
    return render(request, "registration/account_delete.html", {"holdings": holdings, "form": form},
                  status=400 if form.errors else 200)
