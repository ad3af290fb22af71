"""Charts of a preference experiment's sweeps ({% load preference_charts %}): inline SVG, no JavaScript."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from anonymizer.platform.charts import line_chart
from anonymizer.preferences.web.jobs import METRICS, SWEEP_LABELS, chart_series

register = template.Library()


@register.simple_tag
def preference_charts(rows: list[dict], sweep: str) -> SafeString:
    """False-positive rate, recall and reconstruction rate against the swept value, one line per method."""
    charts = []
    for metric, title in METRICS:
        series = chart_series(rows, sweep, metric)
        if series:
            # line_chart escapes every text it writes, so its SVG is safe to embed.
            charts.append(line_chart(series, title=f"{title} by {SWEEP_LABELS[sweep]}", x_label=SWEEP_LABELS[sweep],
                                     y_label=title.lower(), log_x=sweep == "epsilon"))
    return mark_safe("".join(charts))
