"""Serializers of the platform's API: uploads, jobs, job kinds and the token request."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.urls import reverse
from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer

from anonymizer.models import Job, JobResult, Upload
from anonymizer.platform.api_input import StrictUUIDField
from anonymizer.platform.jobs.registry import get_job_kind, job_kinds


class UploadSerializer(serializers.ModelSerializer):
    file = serializers.FileField(write_only=True, help_text="A UTF-8 CSV file with a header row.")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Upload
        fields = ["id", "file", "original_name", "size_bytes", "sha256", "metadata", "created_at", "download_url"]
        read_only_fields = ["id", "original_name", "size_bytes", "sha256", "metadata", "created_at"]

    def get_download_url(self, upload: Upload) -> str:
        return self.context["request"].build_absolute_uri(reverse("api-upload-download", args=[upload.id]))


class UploadRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Upload
        fields = ["id", "original_name"]


class JobResultSerializer(serializers.ModelSerializer):
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = JobResult
        fields = ["id", "name", "content_type", "size_bytes", "download_url"]

    def get_download_url(self, result: JobResult) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api-job-result-download", args=[result.job_id, result.id])
        )


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(source="progress_done")
    total = serializers.IntegerField(source="progress_total")
    fraction = serializers.FloatField(source="progress_fraction")
    message = serializers.CharField(source="progress_message")


class JobSerializer(serializers.ModelSerializer):
    progress = ProgressSerializer(source="*", read_only=True)
    inputs = UploadRefSerializer(many=True, read_only=True)
    results = JobResultSerializer(many=True, read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="api-job-detail")

    class Meta:
        model = Job
        fields = ["id", "url", "kind", "params", "status", "progress", "error", "inputs", "results", "result",
                  "attempts", "created_at", "started_at", "finished_at"]
        read_only_fields = fields


class JobListSerializer(JobSerializer):
    class Meta(JobSerializer.Meta):
        fields = [name for name in JobSerializer.Meta.fields if name != "result"]  # summaries can be large
        read_only_fields = fields


class JobCreateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[])
    params = serializers.DictField(required=False, default=dict, help_text="Parameters of the kind; see /job-kinds/.")
    inputs = serializers.ListField(child=StrictUUIDField(), required=False, default=list,
                                   help_text="Ids of your uploads the job reads.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [kind.name for kind in job_kinds()]

    def validate(self, data: dict) -> dict:
        """The kind and the inputs; the parameters are the job-start helper's to validate."""
        kind = get_job_kind(data["kind"])
        owned = {upload.id: upload for upload in self.context["uploads"].filter(id__in=data["inputs"])}
        missing = [str(upload_id) for upload_id in data["inputs"] if upload_id not in owned]
        if missing:
            raise serializers.ValidationError({"inputs": [
                gettext("No upload of yours has the id %(ids)s.") % {"ids": ", ".join(missing)}]})
        if len(data["inputs"]) != kind.inputs:
            raise serializers.ValidationError(
                {"inputs": [gettext("A %(kind)s job takes %(n)s input file(s), got %(got)s.")
                            % {"kind": kind.name, "n": kind.inputs, "got": len(data["inputs"])}]}
            )
        data["inputs"] = [owned[upload_id] for upload_id in data["inputs"]]
        return data


class JobKindSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    inputs = serializers.IntegerField()
    params = serializers.SerializerMethodField()

    def get_params(self, kind) -> dict:
        return {
            name: {"type": type(field).__name__.removesuffix("Field").removeprefix("Strict").lower(),
                   "required": field.required, "default": _shown_default(field.default),
                   "help": str(field.help_text or "")}
            for name, field in kind.params_serializer().fields.items()
        }


def _shown_default(default):
    """A field's default as JSON shows it: DRF calls a callable default (``default=list``) for each request."""
    if default is serializers.empty:
        return None
    return default() if callable(default) else default


class TokenRequestSerializer(AuthTokenSerializer):
    """A username and password for a token; the username no longer than a username can be (a longer one is no
    account's, and django-axes keeps at most 255 characters of the usernames it records)."""

    username = serializers.CharField(label="Username", write_only=True,
                                     max_length=AbstractUser._meta.get_field("username").max_length)
