"""Template tags of the platform's pages ({% load jobs %})."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from anonymizer.models import Job
from anonymizer.platform import selectors
from anonymizer.platform.charts import bar_chart, histogram
from anonymizer.platform.jobs.describe import flatten, status_label
from anonymizer.platform.jobs.registry import kind_label

register = template.Library()


@register.filter
def job_kind_label(kind: str) -> str:
    """What a job's kind is called on pages."""
    return kind_label(kind)


@register.filter
def job_status_label(status: str) -> str:
    """A job's status in the page's language ("queued" / "待機中"); an unknown one as it is."""
    return status_label(status)


@register.filter
def job_title(job: Job) -> str:
    """What a job is called on pages: kind, input and the parameters that tell it from other runs
    ("k-anonymize paper_example.csv — k=2, λ=0.5")."""
    return selectors.title_of(job)


@register.filter
def as_rows(value: Any) -> list[tuple[str, str]]:
    """A value as (label, text) rows: nested mappings flattened, None as "—", never a raw dict."""
    return flatten(value)


# The chart builders escape every text they write, so their SVG is safe to embed.
@register.filter
def size_histogram(counts: dict, title: str) -> SafeString:
    """A histogram of {size: how many} (keys may be the strings a JSON report holds)."""
    return mark_safe(histogram({int(size): int(n) for size, n in (counts or {}).items()}, title=title,
                               x_label="how many of that size", unit="persons"))


@register.filter
def loss_bars(values: dict, title: str) -> SafeString:
    """Information loss per name as bars on the 0-1 scale, in the report's order."""
    return mark_safe(bar_chart([(str(name), float(v)) for name, v in (values or {}).items()], title=title,
                               x_label="NCP: 0 = nothing lost, 1 = everything", max_value=1.0))
