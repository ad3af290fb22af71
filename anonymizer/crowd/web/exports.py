"""Campaign exports as CSV or JSON Lines: the raw (pseudonymous) answers, the per-post aggregates, or the
participants (with their completion codes and flags)."""

from __future__ import annotations

import io
import json

from django.conf import settings
from django.http import Http404, HttpResponse

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


def export_response(campaign: Campaign, what: str, fmt: str) -> HttpResponse:
    if what not in EXPORTS or fmt not in FORMATS:
        raise Http404("Exports are judgments, aggregates or participants, as csv or jsonl.")
    response = HttpResponse(export_rows(EXPORTS[what](campaign), fmt), content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.id}-{what}.{fmt}"'
    return response
