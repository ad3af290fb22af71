"""Campaign exports as CSV or JSON Lines: the raw (pseudonymous) answers, the per-post aggregates, or the
participants (with their completion codes and flags)."""

from __future__ import annotations

import io
import json

from django.conf import settings
from django.http import Http404, HttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from anonymizer.crowd.web import selectors
from anonymizer.models import Campaign
from anonymizer.tabular import export

EXPORTS = {"judgments": selectors.judgment_rows, "aggregates": selectors.aggregate_rows,
           "participants": selectors.participant_rows}
FORMATS = {"csv": "text/csv", "jsonl": "application/x-ndjson"}


def export_rows(rows: list[dict], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    out = io.StringIO()
    if rows:
        writer = export.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n",
                                   neutralize=settings.CSV_NEUTRALIZE_FORMULAS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in row.items()})
    return out.getvalue()


def export_filename(campaign: Campaign, what: str, fmt: str) -> str:
    """The file an export downloads as: the campaign's name (as a slug, any script kept), the day of the export
    and what it holds, e.g. ``where-was-it-2025-03-01-judgments.csv``; "campaign" for a name with no letters."""
    name = slugify(campaign.name, allow_unicode=True)[:80].strip("-_") or "campaign"
    return f"{name}-{timezone.localdate():%Y-%m-%d}-{what}.{fmt}"


def export_response(campaign: Campaign, what: str, fmt: str) -> HttpResponse:
    if what not in EXPORTS or fmt not in FORMATS:
        raise Http404("Exports are judgments, aggregates or participants, as csv or jsonl.")
    response = HttpResponse(export_rows(EXPORTS[what](campaign), fmt), content_type=FORMATS[fmt])
    response["Content-Disposition"] = content_disposition_header(True, export_filename(campaign, what, fmt))
    return response
