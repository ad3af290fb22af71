"""Location-privacy-preference models and the anonymous LDP contributions sent to them."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from anonymizer.models.jobs import Job


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
    against one model version. Nothing identifies the person: no account, no address, no ratings, and only the
    day it arrived (UTC), so its time cannot be matched to another record of the same request."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    model = models.ForeignKey(PreferenceModel, on_delete=models.CASCADE, related_name="contributions")
    rounds = models.PositiveIntegerField()
    epsilon = models.FloatField(help_text="The total epsilon the contributor spent (sum over the reports).")
    # The model version these reports were aggregated into, once they were.
    aggregated_into = models.ForeignKey(PreferenceModel, on_delete=models.SET_NULL, null=True, blank=True,
                                        related_name="+")
    received_on = models.DateField(help_text="The day (UTC) it arrived; never a finer time.")

    class Meta:
        # The id is random (uuid4): within a day this order says nothing about when each one arrived.
        ordering = ["received_on", "id"]

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
