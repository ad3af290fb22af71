"""The "profile a CSV" job: rows, columns, inferred type per column, missing values, distinct counts and a
sample. Its summary prefills the k-anonymization configuration."""

from __future__ import annotations

import io
import json

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from anonymizer.models import Job
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.i18n import user_message
from anonymizer.platform.jobs.registry import JobKind, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import CsvFormatError, export, profile_csv
from anonymizer.tabular.profile import PROFILE_JOB

KIND = PROFILE_JOB
COLUMN_FIELDS = ["index", "name", "type", "missing", "distinct", "distinct_capped", "min", "max", "mean_length",
                 "date_format"]


class ProfileCsvParams(serializers.Serializer):
    sample_rows = serializers.IntegerField(min_value=0, max_value=100, default=10,
                                           help_text="How many data rows to keep as a sample.")


def columns_csv(profile: dict) -> bytes:
    """One row per column, for reading the profile in a spreadsheet."""
    out = io.StringIO()
    writer = export.DictWriter(out, fieldnames=COLUMN_FIELDS, extrasaction="ignore", lineterminator="\n",
                               neutralize=settings.CSV_NEUTRALIZE_FORMULAS)
    writer.writeheader()
    writer.writerows(profile["columns"])
    return out.getvalue().encode("utf-8")


def run_profile_csv(job: Job, run: JobRun) -> dict:
    upload = job.inputs.get()
    try:
        with upload.file.open("rb") as fileobj:
            profile = profile_csv(fileobj, sample_rows=job.params.get("sample_rows", 10), progress=run.progress)
    except CsvFormatError as exc:  # worded in the owner's language (the runner runs the job in it)
        raise UserFacingError(gettext("%(file)s: %(problem)s") % {"file": upload.original_name,
                                                                  "problem": user_message(exc)}) from exc
    except FileNotFoundError as exc:
        raise UserFacingError(gettext("The uploaded file %(file)s is missing from storage.") % {
            "file": upload.original_name}) from exc
    stem = upload.stem("upload")
    run.add_result(f"{stem}.profile.json", json.dumps(profile, ensure_ascii=False, indent=1).encode("utf-8"),
                   "application/json")
    run.add_result(f"{stem}.columns.csv", columns_csv(profile), "text/csv")
    return profile


register(JobKind(name=KIND, label=gettext_lazy("Profile a CSV file"), run=run_profile_csv,
                 params_serializer=ProfileCsvParams, inputs=1, summary_template="jobs/summary/profile_csv.html"))
