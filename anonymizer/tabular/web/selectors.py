"""Reads of the "profile a CSV" page."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from anonymizer.models import Upload
from anonymizer.platform import selectors as platform_selectors


def uploads_to_profile(user: AbstractBaseUser) -> QuerySet[Upload]:
    """The files the page offers to profile again: the user's own uploads, as the uploads page lists them."""
    return platform_selectors.uploads_of(user)
