"""The preference capability's jobs: train a preference model from an uploaded preference file, and the
preference experiment as a job and a command: the paper's sweeps (time-slot length, epsilon, share of hidden
ratings) with k-fold cross-validation over users, false-positive rate, recall and
reconstruction rate per method; a CSV and a JSON of the rows, line charts on the job page.

Two kinds: ``preference_experiment`` runs on the Foursquare check-ins shipped in data/ with the PROXY labels,
``preference_experiment_upload`` on an uploaded preference file (user, time or slot, place, label 0/1, optional
weekday) instead. Both call ``run_experiment``, as does ``manage.py run_preference_experiment``."""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.registry import Distinguishing, JobKind, UploadAction, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.preferences.aggregate import read_aggregate
from anonymizer.preferences.experiment import METHODS, MethodSettings, SweepConfig, run_sweeps
from anonymizer.preferences.items import SLOT_HOURS, ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule, preferences_to_ratings
from anonymizer.preferences.ldp import LDPMatrixFactorization
from anonymizer.preferences.ratings import Ratings
from anonymizer.preferences.selection import select_served_model
from anonymizer.preferences.serving import PROXY_NOTICE
from anonymizer.preferences.web.services import (
    DEFAULT_PREFERENCE_MODEL,
    read_uploaded_preferences,
    register_preference_model,
    upload_items,
)
from anonymizer.tabular import export
from anonymizer.texts import gettext_noop

KIND = "preference_experiment"
UPLOAD_KIND = "preference_experiment_upload"
TRAIN_KIND = "train_preference_model"
SWEEPS = ("slot_hours", "epsilon", "hidden_share")
METRICS = (("fpr", gettext_lazy("False-positive rate")), ("recall", gettext_lazy("Recall")),
           ("reconstruction", gettext_lazy("Reconstruction rate")))
SWEEP_LABELS = {"slot_hours": gettext_lazy("hours per time slot"), "epsilon": gettext_lazy("ε per user"),
                "hidden_share": gettext_lazy("share of ratings hidden")}
# Stored in the report in English; the summary page shows it through the catalog.
UPLOAD_NOTICE = gettext_noop("Labels: the uploaded preferences (user, time, place, publish/hide) as given, not proxy "
                             "labels.")
Progress = Callable[[int, int, str], None]


class PreferenceExperimentParams(serializers.Serializer):
    sweeps = serializers.MultipleChoiceField(choices=SWEEPS, default=SWEEPS,
                                             help_text="Which parameters to sweep, one at a time.")
    slot_hours = serializers.ListField(child=serializers.ChoiceField(choices=list(SLOT_HOURS)), min_length=1,
                                       max_length=len(SLOT_HOURS), default=list(SLOT_HOURS))
    epsilons = serializers.ListField(child=serializers.FloatField(min_value=0.01, max_value=100), min_length=1,
                                     max_length=12, default=[0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
    hidden_shares = serializers.ListField(child=serializers.FloatField(min_value=0.05, max_value=0.95),
                                          min_length=1, max_length=12,
                                          default=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    fixed_slot_hours = serializers.ChoiceField(choices=list(SLOT_HOURS), default=6,
                                               help_text="The slot length while another parameter is swept.")
    fixed_epsilon = serializers.FloatField(min_value=0.01, max_value=100, default=1.0)
    fixed_hidden_share = serializers.FloatField(min_value=0.05, max_value=0.95, default=0.1)
    place = serializers.ChoiceField(choices=["root", "category"], default="root",
                                    help_text="Check-ins: top-level (10) or fine (491) Foursquare categories. "
                                              "Uploads always use their own place names.")
    split_week = serializers.BooleanField(default=False, help_text="Separate Mon–Fri from Sat–Sun.")
    methods = serializers.MultipleChoiceField(choices=METHODS, default=("item-mean", "user-mean", "mf", "ldp-mf"))
    folds = serializers.IntegerField(min_value=2, max_value=20, default=10)
    repeats = serializers.IntegerField(min_value=1, max_value=10, default=1)
    rank = serializers.IntegerField(min_value=1, max_value=10, default=3)
    ldp_rounds = serializers.IntegerField(min_value=1, max_value=100, required=False, allow_null=True, default=None,
                                          help_text="Reports per user; empty: about one per 2 epsilon.")
    population = serializers.IntegerField(min_value=10, max_value=100_000, required=False, allow_null=True,
                                          default=None, help_text="Simulate this many users, drawn with "
                                                                  "replacement from the training users.")
    seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        # Sets (multiple choices) in a fixed order, so the stored parameters are JSON and runs are reproducible.
        value["sweeps"] = [s for s in SWEEPS if s in value["sweeps"]]
        value["methods"] = [m for m in METHODS if m in value["methods"]]
        return value


class UploadedExperimentParams(PreferenceExperimentParams):
    place = serializers.ChoiceField(choices=["given"], default="given",
                                    help_text="Uploads use their own place names, as written.")


def sweep_config(params: dict, *, uploaded: bool) -> SweepConfig:
    return SweepConfig(
        slot_hours=tuple(int(h) for h in params["slot_hours"]), epsilons=tuple(params["epsilons"]),
        hidden_shares=tuple(params["hidden_shares"]), fixed_slot_hours=int(params["fixed_slot_hours"]),
        fixed_epsilon=params["fixed_epsilon"], fixed_hidden_share=params["fixed_hidden_share"],
        place="given" if uploaded else params["place"], split_week=params["split_week"],
        methods=tuple(params["methods"]), settings=MethodSettings(rank=params["rank"], ldp_rounds=params["ldp_rounds"]),
        folds=params["folds"], repeats=params["repeats"], seed=params["seed"], population=params.get("population"))


class UploadedLabels:
    """run_sweeps' label rule for uploaded preferences: the labels as given (hide wins within an item)."""

    def ratings(self, data, items: ItemSpace) -> Ratings:
        return preferences_to_ratings(data, items)


def _clean(value):
    """NaN (a metric with an empty denominator) as None: JSON has no NaN."""
    return None if isinstance(value, float) and math.isnan(value) else value


def run_experiment(data, params: dict, *, uploaded: bool, progress: Progress | None = None) -> list[dict]:
    """The sweep rows (see ``experiment.run_sweeps``) for check-ins with proxy labels, or for an upload."""
    rule = UploadedLabels() if uploaded else ProxyLabelRule()
    try:
        rows = run_sweeps(data, sweep_config(params, uploaded=uploaded), rule=rule, sweeps=params["sweeps"],
                          progress=progress)
    except ValueError as exc:  # e.g. a weekday/weekend split of a file without weekdays
        raise UserFacingError(str(exc)) from exc
    return [{key: _clean(value) for key, value in row.items()} for row in rows]


def rows_csv(rows: list[dict]) -> bytes:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = export.DictWriter(out, fieldnames=columns, lineterminator="\n",
                               neutralize=settings.CSV_NEUTRALIZE_FORMULAS)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def chart_series(rows: list[dict], sweep: str, metric: str) -> dict[str, list[tuple[float, float]]]:
    """One line per method: (swept value, metric), points without a value left out."""
    series: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        if row["sweep"] == sweep and row.get(metric) is not None:
            series.setdefault(row["method"], []).append((float(row["value"]), float(row[metric])))
    return series


def shipped_checkins(data_dir: Path | None = None):
    return read_aggregate(Path(settings.DATA_DIR if data_dir is None else data_dir) / DEFAULT_PREFERENCE_MODEL.data)


def _report(rows: list[dict], params: dict, *, source: str, name: str, seconds: float) -> dict:
    return {"source": source, "input": name, "notice": PROXY_NOTICE if source == "proxy" else UPLOAD_NOTICE,
            "params": params, "sweeps": [s for s in SWEEPS if any(r["sweep"] == s for r in rows)],
            "rows": rows, "seconds": round(seconds, 1)}


def _run(job: Job, run: JobRun, data, *, source: str, name: str, stem: str) -> dict:
    started = time.perf_counter()
    rows = run_experiment(data, job.params, uploaded=source == "upload", progress=run.progress)
    report = _report(rows, job.params, source=source, name=name, seconds=time.perf_counter() - started)
    run.add_result(f"{stem}.preference-experiment.csv", rows_csv(rows), "text/csv")
    run.add_result(f"{stem}.preference-experiment.json", json.dumps(report, indent=1, ensure_ascii=False).encode(),
                   "application/json")
    return report


def run_preference_experiment(job: Job, run: JobRun) -> dict:
    run.progress(0, 1, gettext("reading the check-ins"))
    return _run(job, run, shipped_checkins(), source="proxy", name=DEFAULT_PREFERENCE_MODEL.data,
                stem="foursquare-nyc-proxy")


def run_preference_experiment_upload(job: Job, run: JobRun) -> dict:
    upload = job.inputs.get()
    run.progress(0, 1, gettext("reading the preferences"))
    return _run(job, run, read_uploaded_preferences(upload), source="upload", name=upload.original_name,
                stem=upload.stem("preferences"))


def _prepare_upload(params: dict, inputs: list) -> dict:
    """Refuse a bad preference file (row and column) before queueing, as the training job does."""
    prepare_uploaded_preferences({"slot_hours": params["fixed_slot_hours"], "split_week": params["split_week"]},
                                 inputs)
    return params


register(JobKind(name=KIND, label="Preference experiment (Foursquare check-ins, proxy labels)",
                 run=run_preference_experiment, params_serializer=PreferenceExperimentParams, inputs=0,
                 summary_template="jobs/summary/preference_experiment.html"))
register(JobKind(name=UPLOAD_KIND, label="Preference experiment on uploaded preferences",
                 run=run_preference_experiment_upload, params_serializer=UploadedExperimentParams, inputs=1,
                 summary_template="jobs/summary/preference_experiment.html", prepare=_prepare_upload,
                 upload_actions=(UploadAction(gettext_lazy("preferences"), "preference-jobs", position=50,
                                              upload_in_query=True),)))


# -- a user's own model from uploaded preferences ------------------------------------------------------------------
class UploadedPreferencesParams(serializers.Serializer):
    slot_hours = serializers.ChoiceField(choices=list(SLOT_HOURS), default=4,
                                         help_text="Hours per time slot (rows of the week grid).")
    split_week = serializers.BooleanField(default=False,
                                          help_text="Separate Mon–Fri from Sat–Sun (needs a weekday column).")


class TrainPreferenceModelParams(UploadedPreferencesParams):
    name = serializers.SlugField(max_length=64, help_text="A short name for the model, e.g. my-lab-2024.")
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    rank = serializers.IntegerField(min_value=1, max_value=10, default=3)
    epsilon = serializers.FloatField(min_value=0.01, max_value=100, default=1.0,
                                     help_text="Total epsilon each user's simulated reports spend.")
    rounds = serializers.IntegerField(min_value=1, max_value=100, required=False, allow_null=True, default=None,
                                      help_text="Reports per user, epsilon / rounds each; empty: about one per "
                                                "2 epsilon (splitting a small budget only adds noise).")
    seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)


def prepare_uploaded_preferences(params: dict, inputs: list[Upload]) -> dict:
    """Refuse, before the job is queued, a preference file with a bad row (row and column named) or a
    weekday/weekend split without weekdays."""
    try:
        data = read_uploaded_preferences(inputs[0])
        upload_items(data, params["slot_hours"], params["split_week"])
    except UserFacingError as exc:
        raise serializers.ValidationError({"input": [str(exc)]}) from exc
    return params


def run_train_preference_model(job: Job, run: JobRun) -> dict:
    upload = job.inputs.get()
    params = job.params
    run.progress(0, 3, gettext("reading the preferences"))
    data = read_uploaded_preferences(upload)
    items, ratings = upload_items(data, params["slot_hours"], params["split_week"])
    if ratings.n_users < 2:
        raise UserFacingError(gettext("A preference model needs the ratings of at least two users."))
    run.progress(1, 3, gettext("training on %(users)s users' simulated LDP reports") % {"users": ratings.n_users})
    trainer = LDPMatrixFactorization(rank=params["rank"], epsilon=params["epsilon"], rounds=params["rounds"],
                                     seed=params["seed"])
    run.progress(2, 3, gettext("choosing the served model on held-out users"))
    artifact, scores = select_served_model(params["name"], ratings, items, trainer, source="upload",
                                          folds=min(5, ratings.n_users), seed=params["seed"])
    metadata = {"labels": "uploaded", "input": upload.original_name, "scores": scores}
    record = register_preference_model(artifact, title=params.get("title") or params["name"], owner=job.owner,
                                       job=job, metadata=metadata)
    return {"model": str(record.id), "name": record.name, "version": record.version,
            "item_space": record.item_space, "training": record.training, "scores": metadata["scores"]}


register(JobKind(name=TRAIN_KIND, label="Train a location-privacy-preference model", run=run_train_preference_model,
                 params_serializer=TrainPreferenceModelParams, inputs=1, prepare=prepare_uploaded_preferences,
                 summary_template="jobs/summary/train_preference_model.html",
                 distinguishing=(Distinguishing("name", "name={}", "{}"), Distinguishing("epsilon", "ε={}", "eps{}"))))
