"""Charts of a preference experiment's sweeps ({% load preference_charts %}): inline SVG, no JavaScript."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from anonymizer.platform.charts import line_chart
from anonymizer.preferences.web import display
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
            swept = str(SWEEP_LABELS[sweep])
            # Translators: a chart's title, e.g. "Recall by ε per user".
            chart_title = gettext("%(metric)s by %(swept)s") % {"metric": title, "swept": swept}
            charts.append(line_chart(series, title=chart_title,
                                     x_label=swept, y_label=str(title).lower(), log_x=sweep == "epsilon"))
    return mark_safe("".join(charts))


@register.filter
def stored_text(text):
    """A text a model or report stored in English (a notice, a training record's mechanism or accounting), in
    the page's language where the catalog has it."""
    return display.stored_text(text)


@register.filter
def served_rule(scores: dict | None) -> str:
    """The held-out scores' served-model rule in the page's language (as stored when it is not the standard
    one)."""
    return (display.scores_record(scores) or {}).get("rule", "")
