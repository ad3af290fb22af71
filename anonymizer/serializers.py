from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from rest_framework import serializers

from anonymizer.jobkinds import get_job_kind, job_kinds
from anonymizer.models import Campaign, Job, JobResult, Upload
from anonymizer.services.temporal import TimeRemovalOptions


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
    params = serializers.JSONField(required=False, default=dict, help_text="Parameters of the kind; see /job-kinds/.")
    inputs = serializers.ListField(child=serializers.UUIDField(), required=False, default=list,
                                   help_text="Ids of your uploads the job reads.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [kind.name for kind in job_kinds()]

    def validate(self, data: dict) -> dict:
        kind = get_job_kind(data["kind"])
        try:
            data["params"] = kind.validate_params(data["params"])
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({"params": exc.detail}) from exc
        owned = {upload.id: upload for upload in self.context["uploads"].filter(id__in=data["inputs"])}
        missing = [str(upload_id) for upload_id in data["inputs"] if upload_id not in owned]
        if missing:
            raise serializers.ValidationError({"inputs": [f"No upload of yours has the id {', '.join(missing)}."]})
        if len(data["inputs"]) != kind.inputs:
            raise serializers.ValidationError(
                {"inputs": [f"A {kind.name} job takes {kind.inputs} input file(s), got {len(data['inputs'])}."]}
            )
        data["inputs"] = [owned[upload_id] for upload_id in data["inputs"]]
        if kind.prepare is not None:
            try:
                data["params"] = kind.prepare(data["params"], data["inputs"])
            except serializers.ValidationError as exc:
                raise serializers.ValidationError({"params": exc.detail}) from exc
        return data


class JobKindSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    inputs = serializers.IntegerField()
    params = serializers.SerializerMethodField()

    def get_params(self, kind) -> dict:
        return {
            name: {"type": type(field).__name__.removesuffix("Field").lower(), "required": field.required,
                   "default": _shown_default(field.default), "help": str(field.help_text or "")}
            for name, field in kind.params_serializer().fields.items()
        }


def _shown_default(default):
    """A field's default as JSON shows it: DRF calls a callable default (``default=list``) for each request."""
    if default is serializers.empty:
        return None
    return default() if callable(default) else default


# -- inspect -------------------------------------------------------------------------------------------------
class InspectOptionsSerializer(TimeRemovalOptions):
    remove_time = serializers.BooleanField(
        default=False, help_text="Remove time expressions too (English posts), before the location: the time_* "
                                 "options say how. The response's time field lists what went.")
    model = serializers.CharField(required=False, allow_blank=True, default="",
                                  help_text="Model id or name; empty: the default model for the text's language.")
    mode = serializers.ChoiceField(choices=["auto", "fixed"], default="auto",
                                   help_text="auto: delete the fewest morphemes that get under the threshold; "
                                             "fixed: delete exactly m.")
    m = serializers.IntegerField(required=False, min_value=1, help_text="Morphemes to delete in fixed mode.")
    keep = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list,
                                 max_length=50, help_text="Words that must not be deleted.")

    def validate(self, data: dict) -> dict:
        if data["mode"] == "fixed":
            if "m" not in data:
                raise serializers.ValidationError({"m": ["m is required when mode is fixed."]})
            if data["m"] > settings.INSPECT_MAX_M:
                raise serializers.ValidationError({"m": [f"m is at most {settings.INSPECT_MAX_M}."]})
        else:
            data.pop("m", None)
        return data


def _check_length(text: str, where: str = "The text") -> str:
    if len(text) > settings.INSPECT_MAX_CHARS:
        raise serializers.ValidationError(
            f"{where} is {len(text):,} characters long; the limit is {settings.INSPECT_MAX_CHARS:,}.")
    return text


class InspectRequestSerializer(InspectOptionsSerializer):
    text = serializers.CharField(help_text="The post to inspect.")

    def validate_text(self, text: str) -> str:
        return _check_length(text)


class InspectBatchRequestSerializer(InspectOptionsSerializer):
    texts = serializers.ListField(child=serializers.CharField(), min_length=1, help_text="The posts to inspect.")

    def validate_texts(self, texts: list[str]) -> list[str]:
        if len(texts) > settings.INSPECT_MAX_BATCH:
            raise serializers.ValidationError(
                f"{len(texts):,} posts in one request; the limit is {settings.INSPECT_MAX_BATCH:,}.")
        for i, text in enumerate(texts):
            _check_length(text, f"Post {i}")
        return texts


# Response shapes, for the OpenAPI schema (the views return plain dicts of this shape).
class _ThresholdSerializer(serializers.Serializer):
    value = serializers.FloatField()
    kind = serializers.ChoiceField(choices=["paper", "relative", "calibrated"])
    explanation = serializers.CharField()


class _GridSerializer(serializers.Serializer):
    south = serializers.FloatField()
    west = serializers.FloatField()
    north = serializers.FloatField()
    east = serializers.FloatField()
    rows = serializers.IntegerField()
    cols = serializers.IntegerField()


class InspectModelSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    title = serializers.CharField()
    version = serializers.CharField()
    language = serializers.CharField()
    grid = _GridSerializer()
    threshold = _ThresholdSerializer()


class _CellSerializer(serializers.Serializer):
    cell = serializers.IntegerField()
    label = serializers.CharField()
    probability = serializers.FloatField()


class _DistributionSerializer(serializers.Serializer):
    top_cell = serializers.IntegerField()
    top_label = serializers.CharField()
    top_probability = serializers.FloatField()
    under_threshold = serializers.BooleanField()
    top = _CellSerializer(many=True)
    entropy_bits = serializers.FloatField()
    cells_for_90_percent = serializers.IntegerField()
    probabilities = serializers.ListField(child=serializers.FloatField(),
                                          help_text="One probability per grid cell, cell id = row * cols + col.")


class _TokenSerializer(serializers.Serializer):
    text = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    deletable = serializers.BooleanField()
    deleted = serializers.BooleanField()
    kept = serializers.BooleanField()


class _SpanSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    text = serializers.CharField()


class _DecisionSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["auto", "fixed"])
    m = serializers.IntegerField()
    under_threshold = serializers.BooleanField()
    optimal = serializers.BooleanField()
    minimal = serializers.BooleanField()
    candidates = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    scores_before = serializers.DictField(child=serializers.FloatField())
    scores_after = serializers.DictField(child=serializers.FloatField())


class _HumanSerializer(serializers.Serializer):
    threshold = serializers.FloatField()
    probability_before = serializers.FloatField()
    probability_after = serializers.FloatField()


class _ClassSerializer(serializers.Serializer):
    machine_inferable = serializers.BooleanField()
    human_inferable = serializers.BooleanField()


class _ClassesSerializer(serializers.Serializer):
    before = _ClassSerializer()
    after = _ClassSerializer()


class _GeneralizedSpanSerializer(_SpanSerializer):
    replacement = serializers.CharField()


class _TimeRemovalSerializer(serializers.Serializer):
    text_after = serializers.CharField(allow_blank=True, help_text="The post without its time expressions only.")
    removed = _SpanSerializer(many=True)
    generalized = _GeneralizedSpanSerializer(many=True)


class InspectResultSerializer(serializers.Serializer):
    text = serializers.CharField()
    tokens = _TokenSerializer(many=True)
    deleted = _SpanSerializer(many=True)
    text_after = serializers.CharField(allow_blank=True)
    before = _DistributionSerializer()
    after = _DistributionSerializer()
    decision = _DecisionSerializer()
    human = _HumanSerializer(required=False, help_text="When a human-inferability model exists for this model.")
    classes = _ClassesSerializer(required=False, help_text="The paper's machine x human classes, before and after.")
    time = _TimeRemovalSerializer(required=False, help_text="With remove_time: the time expressions removed first. "
                                                            "All spans are in the original text.")


class InspectResponseSerializer(InspectResultSerializer):
    model = InspectModelSerializer()


class _BatchItemSerializer(serializers.Serializer):
    result = InspectResultSerializer(required=False)
    error = serializers.CharField(required=False)


class InspectBatchResponseSerializer(serializers.Serializer):
    model = InspectModelSerializer()
    results = _BatchItemSerializer(many=True)


# -- crowdsourcing ----------------------------------------------------------------------------------------------
class CampaignPostInputSerializer(serializers.Serializer):
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=["regular", "gold", "attention"], default="regular")
    gold = serializers.BooleanField(required=False, allow_null=True, default=None)
    id = serializers.CharField(required=False, allow_blank=True, default="")
    lat = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-90, max_value=90)
    lon = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-180, max_value=180)


class CampaignSerializer(serializers.ModelSerializer):
    posts = CampaignPostInputSerializer(many=True, write_only=True, required=False)
    sample = serializers.IntegerField(write_only=True, required=False, min_value=1, max_value=10_000,
                                      help_text="Instead of posts: sample this many held-out posts of the location "
                                                "model's corpus (built-in models).")
    attention_checks = serializers.IntegerField(write_only=True, default=2, min_value=0, max_value=20)
    location_model = serializers.CharField(required=False, allow_null=True, default=None,
                                           help_text="Location model id or name.")
    join_url = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = ["id", "name", "instructions", "consent_text", "task", "ask_location", "location_model",
                  "judgments_per_post", "cutoff", "gold_share", "min_gold_accuracy", "min_gold_answers",
                  "per_participant_cap", "reservation_seconds", "status", "created_at", "join_url", "posts", "sample",
                  "attention_checks"]
        read_only_fields = ["id", "status", "created_at", "join_url"]

    def get_join_url(self, campaign: Campaign) -> str:
        return self.context["request"].build_absolute_uri(reverse("crowd-join", args=[campaign.join_token]))

    def to_representation(self, campaign: Campaign) -> dict:
        data = super().to_representation(campaign)
        data["location_model"] = campaign.location_model.name if campaign.location_model else None
        return data

    def validate(self, data: dict) -> dict:
        if not data.get("posts") and not data.get("sample"):
            raise serializers.ValidationError({"posts": ["Give the posts, or a sample size to draw from the model's "
                                                         "corpus."]})
        return data
