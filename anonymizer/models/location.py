"""Location models (the classifier over a city grid) and the human-inferability models trained beside them;
the artifacts live on disk under MODEL_DIR."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext

from anonymizer.models.jobs import Job


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

    @property
    def display_name(self) -> str:
        """What every page calls the model: its title, "(yours)" after a model its owner trained (only its owner
        sees it), so that it stands apart from a built-in model of the same title. Pages list only active
        versions, one per name, so the version is not part of it."""
        # A built-in model's title is in the catalog (anonymizer/location/defaults.py); a user's own stays as written.
        title = gettext(self.title) if self.title else self.name
        return gettext("%(title)s (yours)") % {"title": title} if self.owner_id else title


class HumanInferabilityModel(models.Model):
    """A classifier of whether people can tell where a post was written, trained on a campaign's labels; used
    beside the location model it shares a tokenizer with."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("Campaign", on_delete=models.SET_NULL, null=True, related_name="human_models")
    location_model = models.ForeignKey(TrainedLocationModel, on_delete=models.CASCADE, related_name="human_models")
    path = models.CharField(max_length=500, help_text="Directory under MODEL_DIR")
    active = models.BooleanField(default=True)
    metadata = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"human-inferability model {self.id}"
