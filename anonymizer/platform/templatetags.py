"""Template tags of the platform's pages ({% load jobs %})."""

from __future__ import annotations

from django import template

from anonymizer.platform.jobs.registry import kind_label

register = template.Library()


@register.filter
def job_kind_label(kind: str) -> str:
    """What a job's kind is called on pages."""
    return kind_label(kind)
