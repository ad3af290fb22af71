"""A preference model's stored English texts (notices, training record, the served-model rule, the week grid's
labels) as the page's language shows them: through the catalog where it has them, as stored otherwise (a user's
own place names, a text no catalog entry matches). What the API keeps machine-readable (item_space, ids,
method names) is never changed here."""

from __future__ import annotations

import re

from django.utils.translation import gettext, pgettext, pgettext_lazy

from anonymizer.preferences.selection import RULE

# The shipped check-ins' top-level Foursquare categories (the default model's columns).
FOURSQUARE_CATEGORIES = {
    "Arts & Entertainment": pgettext_lazy("Foursquare category", "Arts & Entertainment"),
    "College & University": pgettext_lazy("Foursquare category", "College & University"),
    "Event": pgettext_lazy("Foursquare category", "Event"),
    "Food": pgettext_lazy("Foursquare category", "Food"),
    "Nightlife Spot": pgettext_lazy("Foursquare category", "Nightlife Spot"),
    "Outdoors & Recreation": pgettext_lazy("Foursquare category", "Outdoors & Recreation"),
    "Professional & Other Places": pgettext_lazy("Foursquare category", "Professional & Other Places"),
    "Residence": pgettext_lazy("Foursquare category", "Residence"),
    "Shop & Service": pgettext_lazy("Foursquare category", "Shop & Service"),
    "Travel & Transport": pgettext_lazy("Foursquare category", "Travel & Transport"),
}
_ROW = re.compile(r"^(?:(?P<days>Mon–Fri|Sat–Sun) )?(?P<start>\d+)–(?P<end>\d+)h$")


def stored_text(text):
    """A text a model or report stored in English, through the catalog (unchanged when it has no entry)."""
    return gettext(text) if isinstance(text, str) and text else text


def row_label(label: str) -> str:
    """A time-slot row ("Mon–Fri 18–24h", "18–24h") in the active language."""
    match = _ROW.match(label)
    if match is None:
        return label
    hours = gettext("%(start)s–%(end)sh") % {"start": match["start"], "end": match["end"]}
    if match["days"] is None:
        return hours
    days = pgettext("days of the week", "Mon–Fri") if match["days"] == "Mon–Fri" else pgettext(
        "days of the week", "Sat–Sun")
    return gettext("%(days)s %(hours)s") % {"days": days, "hours": hours}


def column_label(label: str) -> str:
    """A place column: a shipped Foursquare category in the active language, anything else as written."""
    return str(FOURSQUARE_CATEGORIES[label]) if label in FOURSQUARE_CATEGORIES else label


def grid_labels(item_space: dict) -> dict:
    """The week grid's row and column labels in the active language, in item_space's order."""
    return {"rows": [row_label(row) for row in item_space["rows"]],
            "columns": [column_label(column) for column in item_space["columns"]]}


def item_labels(item_space: dict) -> list[str]:
    """Every item's label ("Mon–Fri 18–24h · Food"), item id order, in the active language."""
    shown = grid_labels(item_space)
    return [f"{row} · {column}" for row in shown["rows"] for column in shown["columns"]]


def training_record(training: dict) -> dict:
    """A model's training record with its two sentences (mechanism, accounting) in the active language."""
    return {**training, **{key: stored_text(training[key]) for key in ("mechanism", "accounting") if key in training}}


def scores_record(scores: dict | None) -> dict | None:
    """The held-out scores with the served-model rule in the active language (when it is the standard rule)."""
    if not scores or "rule" not in scores:
        return scores
    target = scores.get("fpr_target")
    if target is not None and scores["rule"] == RULE.format(target=target):
        return {**scores, "rule": gettext(RULE).format(target=target)}
    return scores
