"""Uploads, jobs and their result files: the records the shared platform works on. Every row that holds user
data has an owner, and reads go through selectors that filter by owner, so another user's object is simply not
found (404)."""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.db import models
from django.utils.text import get_valid_filename

#: A stored file's own name, in UTF-8 bytes: file systems allow 255 bytes (300 × "名" are 900), and the
#: directories above it take some of FileField's 500 characters.
MAX_STORED_NAME_BYTES = 120
#: The name an upload was sent with, kept for display and download (the column's length).
MAX_ORIGINAL_NAME_CHARS = 255
#: The start of result names built from an upload's name ("<stem>_k5_mondrian_lambda0.5.anonymized.csv" fits
#: JobResult.name).
MAX_STEM_CHARS = 100
_MAX_EXTENSION_BYTES = 16


def _cut(text: str, max_chars: int | None, max_bytes: int | None) -> str:
    if max_chars is not None:
        text = text[:max(max_chars, 0)]
    if max_bytes is not None:
        text = text.encode("utf-8")[:max(max_bytes, 0)].decode("utf-8", "ignore")  # never half a character
    return text


def bounded_name(name: str, *, max_chars: int | None = None, max_bytes: int | None = None) -> str:
    """``name`` cut to at most ``max_chars`` characters and ``max_bytes`` UTF-8 bytes, keeping its extension
    (".csv") when it has a short one."""
    stem, dot, extension = name.rpartition(".")
    suffix = dot + extension
    if not stem or len(suffix.encode("utf-8")) > _MAX_EXTENSION_BYTES:
        stem, suffix = name, ""
    stem = _cut(stem, None if max_chars is None else max_chars - len(suffix),
                None if max_bytes is None else max_bytes - len(suffix.encode("utf-8")))
    return stem + suffix if stem else _cut(name, max_chars, max_bytes)


def stored_file_name(filename: str, default: str = "file") -> str:
    """The name a file is stored under: the base name of ``filename`` with only letters, digits, "-", "_" and
    "." (get_valid_filename), at most MAX_STORED_NAME_BYTES bytes, keeping its extension; ``default`` when
    nothing of it is usable. The name it was sent with is kept elsewhere (Upload.original_name)."""
    try:
        name = get_valid_filename(PurePath(filename).name)
    except SuspiciousFileOperation:  # nothing left, or "." / ".."
        name = default
    return bounded_name(name, max_bytes=MAX_STORED_NAME_BYTES) or default


def upload_directory(instance: Upload) -> str:
    """The directory of one upload's file: nothing else is ever stored in it."""
    return f"uploads/{instance.owner_id}/{instance.id}"


def upload_path(instance: Upload, filename: str) -> str:
    return f"{upload_directory(instance)}/{stored_file_name(filename, 'upload.csv')}"


def result_directory(job: Job) -> str:
    """The directory of one job's result files: nothing else is ever stored in it."""
    return f"results/{job.owner_id}/{job.id}"


def result_path(instance: JobResult, filename: str) -> str:
    return f"{result_directory(instance.job)}/{stored_file_name(filename, 'result')}"


class Upload(models.Model):
    """A file a user uploaded, kept as sent until its owner deletes it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="uploads")
    file = models.FileField(upload_to=upload_path, max_length=500)
    original_name = models.CharField(max_length=MAX_ORIGINAL_NAME_CHARS)  # as sent (bounded), for display
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    # What the upload check found (for CSV: encoding, delimiter, header, rows).
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.original_name

    def stem(self, default: str = "dataset") -> str:
        """The original name without its extension, short enough to name results after ("<stem>.report.json")."""
        return bounded_name(self.original_name.rsplit(".", 1)[0].strip(), max_chars=MAX_STEM_CHARS) or default


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


class JobChunk(models.Model):
    """One part of a job fanned out over the workers (a byte range of its input file): any worker's task may
    claim it, its heartbeat tells whether whoever claimed it is alive, and a claim only moves forward through
    conditional UPDATEs, like the job's own status. Its id is also the Celery task id of its message, so
    cancelling the job revokes the messages still queued."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        STOPPED = "stopped"  # its job ended (cancelled, failed) while it ran

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.BigIntegerField()  # byte offsets into the job's input file, [start, end)
    end = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # What the part produced for the job's own task to gather (None when its work lands elsewhere, e.g. a cache).
    output = models.BinaryField(null=True, blank=True)
    # Which of its job's passes the part belongs to, for a kind that fans out more than one (kanon: recognition,
    # then string-level recoding); "" for a kind with one.
    step = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "step", "index"], name="unique_chunk_index_per_step")]
        indexes = [models.Index(fields=["job", "status"])]

    def __str__(self) -> str:
        return f"chunk {self.index} of job {self.job_id} ({self.status})"


class FanOutInput(models.Model):
    """What every part of one fanned-out pass of a job reads, stored once rather than once per part (kanon: the
    strings string-level recoding learned from the whole dataset). It lives while the pass runs: deleted when
    its parts are done or the job ended, and with its job."""

    # A new id each time a pass is run: a process keeps what it made of the input by this id.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="fan_out_inputs")
    step = models.CharField(max_length=40, blank=True, default="")
    content = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "step"], name="unique_fan_out_input_per_step")]

    def __str__(self) -> str:
        return f"input of step {self.step!r} of job {self.job_id}"
