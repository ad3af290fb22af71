"""Uploads, jobs and their result files: the records the shared platform works on. Every row that holds user
data has an owner, and reads go through selectors that filter by owner, so another user's object is simply not
found (404)."""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.conf import settings
from django.db import models
from django.utils.text import get_valid_filename


def upload_path(instance: Upload, filename: str) -> str:
    return f"uploads/{instance.owner_id}/{instance.id}/{get_valid_filename(PurePath(filename).name)}"


def result_path(instance: JobResult, filename: str) -> str:
    return f"results/{instance.job.owner_id}/{instance.job_id}/{get_valid_filename(PurePath(filename).name)}"


class Upload(models.Model):
    """A file a user uploaded, kept as sent until its owner deletes it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="uploads")
    file = models.FileField(upload_to=upload_path, max_length=500)
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
    file = models.FileField(upload_to=result_path, max_length=500)
    content_type = models.CharField(max_length=100)
    size_bytes = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["job", "name"], name="unique_result_name_per_job")]

    def __str__(self) -> str:
        return self.name
