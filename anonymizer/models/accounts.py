"""What an account chooses for itself beyond Django's user: today its interface language."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class UserSettings(models.Model):
    """One row per user who chose something; a user without one gets the defaults."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="kakurega_settings")
    # Blank: no choice saved, the cookie or the browser's Accept-Language decides.
    language = models.CharField(max_length=8, blank=True, choices=settings.LANGUAGES)

    def __str__(self) -> str:
        return f"settings of user {self.user_id}"
