"""The owner's review of a de-identified file, row by row: what a person decided for a post the job left for
review (a review list, a place, a failed threshold). The job's own result file never changes; the reviewed file is
the result with these decisions applied, built when it is downloaded."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from anonymizer.models.jobs import Job


class ReviewedRow(models.Model):
    """One post (a row's cell of one text column) of a job's result as its owner reviewed it: accepted as
    released, spans deleted from the released text (or the whole post), or edited freely. ``text`` is what the
    reviewed file carries in the cell."""

    class Action(models.TextChoices):
        ACCEPTED = "accepted"
        DELETED = "deleted"
        EDITED = "edited"

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="reviewed_rows")
    row = models.PositiveIntegerField(help_text="The row in the result file, the header being row 1.")
    column = models.CharField(max_length=1000)
    action = models.CharField(max_length=16, choices=Action.choices)
    text = models.TextField(blank=True)
    # DELETED: the [start, end) character spans of the released text that went, in order ([[0, len]] for the
    # whole post); empty for the other actions.
    deleted_spans = models.JSONField(default=list, blank=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                    related_name="+")
    reviewed_at = models.DateTimeField()

    class Meta:
        ordering = ["job", "row", "column"]
        constraints = [models.UniqueConstraint(fields=["job", "row", "column"], name="unique_review_per_cell")]

    def __str__(self) -> str:
        return f"row {self.row} {self.column} of job {self.job_id}: {self.action}"
