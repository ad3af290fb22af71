"""Reads. Every user-data query starts from the owner, so other users' objects do not exist for a caller."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from anonymizer.models import Job, Upload


def jobs_of(user: AbstractBaseUser) -> QuerySet[Job]:
    return Job.objects.filter(owner_id=user.pk).prefetch_related("inputs", "results")


def uploads_of(user: AbstractBaseUser) -> QuerySet[Upload]:
    return Upload.objects.filter(owner_id=user.pk)
