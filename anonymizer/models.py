"""Kakurega's records. Every row that holds user data has an owner, and reads go through selectors that
filter by owner, so another user's object is simply not found (404)."""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.conf import settings
from django.db import models
from django.utils.text import get_valid_filename


def _upload_path(instance: Upload, filename: str) -> str:
    return f"uploads/{instance.owner_id}/{instance.id}/{get_valid_filename(PurePath(filename).name)}"


def _result_path(instance: JobResult, filename: str) -> str:
    return f"results/{instance.job.owner_id}/{instance.job_id}/{get_valid_filename(PurePath(filename).name)}"


class Upload(models.Model):
    """A file a user uploaded, kept as sent until its owner deletes it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="uploads")
    file = models.FileField(upload_to=_upload_path, max_length=500)
    original_name = models.CharField(max_length=255)
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    # What the upload check found (for CSV: encoding, delimiter, header, rows).
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.original_name


class Job(models.Model):
    """One piece of background work of any kind, from queueing to its result files."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    inputs = models.ManyToManyField(Upload, related_name="jobs", blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.BigIntegerField(default=0)
    progress_total = models.BigIntegerField(default=0)
    progress_message = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # A small JSON summary shown on the job page (the files are in JobResult).
    result = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written by the worker while the job runs; a silent heartbeat means the worker was lost.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "heartbeat_at"]), models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    @property
    def kind_label(self) -> str:
        from anonymizer.jobkinds import get_job_kind

        try:
            return get_job_kind(self.kind).label
        except LookupError:  # a kind removed from the code base; its old jobs still show
            return self.kind

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES

    @property
    def progress_fraction(self) -> float:
        if self.status == self.Status.SUCCEEDED:
            return 1.0
        if self.progress_total <= 0:
            return 0.0
        return min(1.0, self.progress_done / self.progress_total)


class JobResult(models.Model):
    """A file a job produced, downloadable by the job's owner."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="results")
    name = models.CharField(max_length=255)
    file = models.FileField(upload_to=_result_path, max_length=500)
    content_type = models.CharField(max_length=100)
    size_bytes = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["job", "name"], name="unique_result_name_per_job")]

    def __str__(self) -> str:
        return self.name


class TrainedLocationModel(models.Model):
    """A location model saved on disk (MODEL_DIR/path): the built-in defaults (no owner, visible to all) or a
    user's own, trained by a job. Versions of one name stay on disk; one of them is active."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="location_models")
    name = models.SlugField(max_length=64)
    title = models.CharField(max_length=200)
    version = models.CharField(max_length=64)
    language = models.CharField(max_length=8)
    path = models.CharField(max_length=500, help_text="Directory under MODEL_DIR")
    active = models.BooleanField(default=True)
    threshold = models.FloatField()
    threshold_kind = models.CharField(max_length=16)
    # The artifact's metadata: grid, scores on held-out posts, corpus fingerprint, training settings.
    metadata = models.JSONField(default=dict)
    job = models.ForeignKey(Job, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name", "version"], name="unique_location_model_version"),
            models.UniqueConstraint(fields=["name", "version"], condition=models.Q(owner__isnull=True),
                                    name="unique_default_location_model_version"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


class Campaign(models.Model):
    """A crowdsourcing campaign: posts to judge, the task, and how many judgments each post needs."""

    class Task(models.TextChoices):
        INFERABLE = "inferable", "Can you tell where this was posted? (yes / no)"
        DEIDENTIFY = "deidentify", "Strike the fewest words until the location is ambiguous"

    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns")
    name = models.CharField(max_length=200)
    instructions = models.TextField()
    consent_text = models.TextField()
    task = models.CharField(max_length=16, choices=Task.choices, default=Task.INFERABLE)
    ask_location = models.BooleanField(default=False, help_text="Also ask participants to click the area on a map.")
    # The model whose tokenizer splits posts into words to strike, and whose grid the map shows.
    location_model = models.ForeignKey(TrainedLocationModel, on_delete=models.PROTECT, null=True, blank=True,
                                       related_name="+")
    judgments_per_post = models.PositiveIntegerField(default=100)
    cutoff = models.FloatField(default=0.10, help_text="Share of yes answers from which a post is human-inferable.")
    gold_share = models.FloatField(default=0.10, help_text="Share of a participant's items that are gold posts.")
    min_gold_accuracy = models.FloatField(default=0.70)
    min_gold_answers = models.PositiveIntegerField(default=3)
    per_participant_cap = models.PositiveIntegerField(default=50)
    reservation_seconds = models.PositiveIntegerField(default=300)
    # The secret part of the link participants join by; knowing it is what admits them.
    join_token = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class CampaignPost(models.Model):
    """One post of a campaign: a regular item, a gold item with a known answer, or an attention check."""

    class Kind(models.TextChoices):
        REGULAR = "regular"
        GOLD = "gold"
        ATTENTION = "attention"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="posts")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REGULAR)
    text = models.TextField()
    external_id = models.CharField(max_length=200, blank=True)
    gold_answer = models.BooleanField(null=True, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    # Answers so far, kept in step with Judgment rows inside the same transaction (the queue reads it).
    answered = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "kind", "answered"])]

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.id}"


class Participant(models.Model):
    """A pseudonymous participant of one campaign (no account); the secret key lives in their session."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="participants")
    secret = models.CharField(max_length=64, unique=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=32, blank=True)
    # Seed of this participant's own random order of posts.
    seed = models.BigIntegerField()
    flagged_reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return str(self.id)


class Assignment(models.Model):
    """A post served to a participant: reserved until ``expires_at``, answered when a Judgment exists.

    The unique constraint is what guarantees, even under concurrent requests, that a participant never gets
    the same post twice."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="assignments")
    post = models.ForeignKey(CampaignPost, on_delete=models.CASCADE, related_name="assignments")
    served_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["participant", "post"], name="one_assignment_per_post")]
        indexes = [models.Index(fields=["post", "answered_at", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.participant_id} -> {self.post_id}"


class Judgment(models.Model):
    """A participant's answer about one post."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="judgments")
    post = models.ForeignKey(CampaignPost, on_delete=models.CASCADE, related_name="judgments")
    answer = models.BooleanField(null=True, blank=True, help_text="Inferable task: can you tell where?")
    clicked_latitude = models.FloatField(null=True, blank=True)
    clicked_longitude = models.FloatField(null=True, blank=True)
    # De-identification task: the struck token indices and the text left.
    deleted_tokens = models.JSONField(null=True, blank=True)
    text_after = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="Time from serving to answer.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["participant", "post"], name="one_judgment_per_post")]

    def __str__(self) -> str:
        return f"{self.participant_id} on {self.post_id}: {self.answer}"


class HumanInferabilityModel(models.Model):
    """A classifier of whether people can tell where a post was written, trained on a campaign's labels; used
    beside the location model it shares a tokenizer with."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(Campaign, on_delete=models.SET_NULL, null=True, related_name="human_models")
    location_model = models.ForeignKey(TrainedLocationModel, on_delete=models.CASCADE, related_name="human_models")
    path = models.CharField(max_length=500, help_text="Directory under MODEL_DIR")
    active = models.BooleanField(default=True)
    metadata = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"human-inferability model {self.id}"


class PreferenceModel(models.Model):
    """A location-privacy-preference model (issue 8) saved on disk (MODEL_DIR/path): the item side of a matrix
    factorization trained from LDP reports. The built-in default (no owner) is visible to all, a user's own
    (trained from an upload by a job) to its owner. Versions of one name stay; one of them is active."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="preference_models")
    name = models.SlugField(max_length=64)
    title = models.CharField(max_length=200)
    version = models.CharField(max_length=64)
    path = models.CharField(max_length=500, help_text="Directory under MODEL_DIR")
    active = models.BooleanField(default=True)
    # Slot length, weekday/weekend split, place kind, the grid's row and column labels.
    item_space = models.JSONField(default=dict)
    # Users, ratings, rounds, epsilon per user and what the accountant counted, the mechanism, the source.
    training = models.JSONField(default=dict)
    # Held-out scores, the data's fingerprint, aggregation history.
    metadata = models.JSONField(default=dict)
    job = models.ForeignKey(Job, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name", "version"], name="unique_preference_model_version"),
            models.UniqueConstraint(fields=["name", "version"], condition=models.Q(owner__isnull=True),
                                    name="unique_default_preference_model_version"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


class PreferenceContribution(models.Model):
    """One anonymous contribution from the preferences page: the one-bit LDP reports of a person's gradient
    against one model version. Nothing identifies the person: no account, no address, no ratings."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    model = models.ForeignKey(PreferenceModel, on_delete=models.CASCADE, related_name="contributions")
    rounds = models.PositiveIntegerField()
    epsilon = models.FloatField(help_text="The total epsilon the contributor spent (sum over the reports).")
    # The model version these reports were aggregated into, once they were.
    aggregated_into = models.ForeignKey(PreferenceModel, on_delete=models.SET_NULL, null=True, blank=True,
                                        related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"contribution {self.id} to {self.model_id}"


class PreferenceReport(models.Model):
    """One report: in round ``round``, coordinate ``index`` of the gradient, the value +-B for ``epsilon``."""

    contribution = models.ForeignKey(PreferenceContribution, on_delete=models.CASCADE, related_name="reports")
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField()
    value = models.FloatField()
    epsilon = models.FloatField()

    class Meta:
        ordering = ["contribution", "round"]
        constraints = [models.UniqueConstraint(fields=["contribution", "round"], name="one_report_per_round")]

    def __str__(self) -> str:
        return f"{self.contribution_id} round {self.round}"
