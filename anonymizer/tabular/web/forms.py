"""The form of the "profile a CSV" page."""

from __future__ import annotations

from django import forms

from anonymizer.models import Upload


class ProfileCsvForm(forms.Form):
    """Profile either a new CSV file or one uploaded before."""

    file = forms.FileField(required=False, label="CSV file",
                           help_text="UTF-8, with a header row; comma, semicolon, tab or | separated.")
    upload = forms.ModelChoiceField(queryset=Upload.objects.none(), required=False, label="or a file uploaded before")
    sample_rows = forms.IntegerField(min_value=0, max_value=100, initial=10, label="Sample rows to keep")

    def __init__(self, *args, uploads=None, refused_upload: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.refused_upload = refused_upload  # why the upload handler dropped the file, if it did
        if uploads is not None:
            self.fields["upload"].queryset = uploads

    def clean_file(self):
        if self.refused_upload:
            raise forms.ValidationError(self.refused_upload)
        return self.cleaned_data["file"]

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.errors and bool(cleaned.get("file")) == bool(cleaned.get("upload")):
            raise forms.ValidationError("Choose a CSV file to upload, or one uploaded before (not both).")
        return cleaned
