"""The campaign dashboard's picture of each participant's gold accuracy against the campaign's minimum: one row
per participant, a dot at their share of gold posts answered right on a 0-100% axis, the minimum as a dashed line.
Server-drawn SVG in the 360-unit viewBox of ``anonymizer.platform.charts`` (readable on a phone), colour-blind
safe (Okabe-Ito colours and three marker shapes, so the states differ without colour too)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from django.utils.translation import gettext, gettext_lazy

from anonymizer.platform.charts import NARROW, marker, open_chart, share_scale  # as the other dot charts

#: A participant's state, as its class, colour, marker and legend text.
STATES = {
    "flagged": ("#D55E00", "square", gettext_lazy("flagged (below the minimum, or a failed attention check)")),
    "passing": ("#0072B2", "circle", gettext_lazy("at or above the minimum")),
    "not-judged": ("#6B6B6B", "diamond", gettext_lazy("not judged yet: too few gold answers")),
}


@dataclass(frozen=True)
class GoldRow:
    """One participant: a short label, gold posts right and answered, and whether they are flagged."""

    label: str
    correct: int
    answered: int
    flagged: bool


def state_of(row: GoldRow, judged_after: int) -> str:
    if row.flagged:
        return "flagged"
    return "passing" if row.answered and row.answered >= judged_after else "not-judged"


def gold_accuracy_chart(rows: Sequence[GoldRow], *, min_accuracy: float, judged_after: int,
                        title: str | None = None, width: int = NARROW) -> str:
    """The SVG (empty without rows); every text escaped, so it is safe to embed."""
    if not rows:
        return ""
    left, right, top, row_height = 10, 14, 78, 28
    height = top + row_height * len(rows) + 34

    def px(share: float) -> float:
        return left + max(0.0, min(1.0, share)) * (width - left - right)

    parts = open_chart(width, height, title or gettext("Gold accuracy per participant"), "gold-chart")
    legend = {state: (colour, shape, str(text)) for state, (colour, shape, text) in STATES.items()}
    parts += share_scale(px, legend=legend, left=left, width=width, height=height, top=top,
                         caption=gettext("share of gold posts answered right"), line_class="minimum",
                         line_at=min_accuracy,
                         line_title=gettext("minimum %(share)s") % {"share": f"{min_accuracy:.0%}"},
                         line_label=gettext("minimum %(percent)s%% after %(gold)s gold") % {
                             "percent": f"{min_accuracy * 100:g}", "gold": judged_after})
    for i, row in enumerate(rows):
        y = top + row_height * i
        state = state_of(row, judged_after)
        colour, shape, _ = STATES[state]
        said = (gettext("%(correct)s of %(answered)s gold right") % {"correct": row.correct, "answered": row.answered}
                if row.answered else gettext("no gold answered yet"))
        label = (gettext("%(participant)s: %(said)s — flagged") if row.flagged else gettext("%(participant)s: %(said)s")
                 ) % {"participant": row.label, "said": said}
        parts.append(f'<g class="participant {state}">')
        parts.append(f'<text class="row-label" x="{left}" y="{y + 8}" font-size="12" stroke="#fff" '
                     f'stroke-width="3" paint-order="stroke">{escape(label)}</text>')
        if row.answered:
            parts.append(marker(shape, px(row.correct / row.answered), y + 17, colour,
                                 f"{label} ({row.correct / row.answered:.0%})"))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)

