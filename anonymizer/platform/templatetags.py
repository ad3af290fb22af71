"""Template tags of the platform's pages ({% load jobs %})."""

from __future__ import annotations

from typing import Any

from django import template

from anonymizer.models import Job
from anonymizer.platform import selectors
from anonymizer.platform.jobs.describe import flatten
from anonymizer.platform.jobs.registry import kind_label

register = template.Library()


@register.filter
def job_kind_label(kind: str) -> str:
    """What a job's kind is called on pages."""
    return kind_label(kind)


@register.filter
def job_title(job: Job) -> str:
    """What a job is called on pages: kind, input and the parameters that tell it from other runs
    ("k-anonymize paper_example.csv — k=2, λ=0.5")."""
    return selectors.title_of(job)


@register.filter
def as_rows(value: Any) -> list[tuple[str, str]]:
    """A value as (label, text) rows: nested mappings flattened, None as "—", never a raw dict."""
    return flatten(value)
