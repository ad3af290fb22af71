"""Charts of the temporal pages ({% load temporal_charts %}): inline SVG, no JavaScript, no CDN."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from anonymizer.platform.charts import line_chart

register = template.Library()


@register.simple_tag
def coverage_chart(coverage: list[float], title: str) -> SafeString:
    """Share of the time expressions covered by the top-N patterns, N = 1, 2, ..."""
    points = [(n, share) for n, share in enumerate(coverage, start=1)]
    # line_chart escapes every text it writes, so its SVG is safe to embed.
    return mark_safe(line_chart({gettext("covered"): points}, title=title, x_label=gettext("top N patterns"),
                                y_label=gettext("share of time expressions"), log_x=False)) if points else mark_safe("")
