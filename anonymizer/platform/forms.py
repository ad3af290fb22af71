"""Forms of the platform's pages, and what every page with a file field shares: a file the upload size limit
dropped while the request streamed in (anonymizer.platform.upload_limits) is reported as an error of its field,
never silently treated as "no file"."""

from __future__ import annotations

from collections.abc import Mapping

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest

from anonymizer.platform.upload_limits import refused_uploads


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)


def upload_refusals(request: HttpRequest) -> dict[str, list[str]]:
    """The files of this request the upload size limit dropped, as field errors ``{field: [message]}`` (empty
    for a request that sent none, or no body): what a page without a Django form reports next to its field."""
    if request.method != "POST":
        return {}
    errors: dict[str, list[str]] = {}
    for field, message in refused_uploads(request):
        errors.setdefault(field, []).append(message)
    return errors


class UploadForm(forms.Form):
    """The base of every form with a file field. Built with ``request=``, it takes the request's data and
    files (on POST) and reports a file the upload size limit dropped as an error of that file's field, in place
    of "this field is required" and before the form's own ``clean`` (which then sees an invalid form)."""

    def __init__(self, *args, request: HttpRequest | None = None,
                 refused: Mapping[str, list[str]] | None = None, **kwargs) -> None:
        if request is not None and not args and request.method == "POST":
            args = (request.POST, request.FILES)
        super().__init__(*args, **kwargs)
        self.refused = dict(refused if refused is not None else upload_refusals(request) if request else {})

    def _clean_fields(self) -> None:
        super()._clean_fields()
        for name, messages in self.refused.items():
            field = name if name in self.fields else None
            if field is not None:
                self._errors.pop(field, None)  # "required", or what the field said of no file, would hide why
            for message in messages:
                self.add_error(field, message)
