"""The form of the "profile a CSV" page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_lazy

from anonymizer.models import Upload
from anonymizer.platform.forms import UploadForm


class ProfileCsvForm(UploadForm):
    """Profile either a new CSV file or one uploaded before (a file over the upload limit is an error of its
    field: UploadForm)."""

    file = forms.FileField(required=False, label=gettext_lazy("CSV file"),
                           help_text=gettext_lazy("UTF-8, with a header row; comma, semicolon, tab or | separated."))
    upload = forms.ModelChoiceField(queryset=Upload.objects.none(), required=False,
                                    label=gettext_lazy("or a file uploaded before"))
    sample_rows = forms.IntegerField(min_value=0, max_value=100, initial=10, label=gettext_lazy("Sample rows to keep"))

    def __init__(self, *args, uploads=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if uploads is not None:
            self.fields["upload"].queryset = uploads

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.errors and bool(cleaned.get("file")) == bool(cleaned.get("upload")):
            raise forms.ValidationError(gettext("Choose a CSV file to upload, or one uploaded before (not both)."))
        return cleaned
