"""Reads. Every user-data query starts from the owner, so other users' objects do not exist for a caller."""

from __future__ import annotations

import json
import uuid
from functools import lru_cache
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet

from anonymizer.crowd.stats import JudgmentRecord, aggregate, aggregates_to_rows, gold_accuracy, krippendorff_alpha
from anonymizer.location.grid import haversine_km
from anonymizer.location.human import HumanModel
from anonymizer.location.model import LocationModel
from anonymizer.location.tokenize import detect_language
from anonymizer.models import (
    Campaign,
    CampaignPost,
    HumanInferabilityModel,
    Job,
    Judgment,
    Participant,
    PreferenceModel,
    TrainedLocationModel,
    Upload,
)
from anonymizer.preferences.serving import PreferenceArtifact


def jobs_of(user: AbstractBaseUser) -> QuerySet[Job]:
    return Job.objects.filter(owner_id=user.pk).prefetch_related("inputs", "results")


def temporal_pattern_jobs_of(user: AbstractBaseUser) -> list[Job]:
    """A user's succeeded "learn temporal patterns" jobs, newest first (none for a visitor)."""
    if not user.is_authenticated:
        return []
    return list(Job.objects.filter(owner_id=user.pk, kind="temporal_patterns", status=Job.Status.SUCCEEDED)
                .order_by("-finished_at")[:20])


def temporal_patterns(user: AbstractBaseUser | None, job_id: uuid.UUID | str, *, top: int = 10) -> dict[str, int]:
    """The ``top`` most frequent known temporal patterns (pattern -> count) that a user's "learn temporal
    patterns" job found. Raises LookupError when the user has no such succeeded job."""
    job = jobs_of(user).filter(id=job_id, kind="temporal_patterns").first() if user is not None else None
    if job is None:
        raise LookupError(f"You have no 'learn temporal patterns' job {job_id}.")
    if job.status != Job.Status.SUCCEEDED:
        raise LookupError(f"The 'learn temporal patterns' job {job_id} is {job.status}, not succeeded.")
    return {entry["pattern"]: entry["count"] for entry in job.result["patterns"][:top]}


def uploads_of(user: AbstractBaseUser) -> QuerySet[Upload]:
    return Upload.objects.filter(owner_id=user.pk)


def _defaults_and_own(model_class, user: AbstractBaseUser | None) -> QuerySet:
    """Active models of a kind a user may use: the built-in defaults and their own."""
    mine = Q(owner_id=user.pk) if user is not None and user.is_authenticated else Q(pk__in=[])
    return model_class.objects.filter(Q(owner__isnull=True) | mine, active=True)


def _named(models: QuerySet, ref: str):
    """The model ``ref`` names (an id, else a name) among ``models`` (ordered a user's own first); None when
    there is none."""
    try:
        return models.filter(id=uuid.UUID(str(ref))).first()
    except ValueError:
        return models.filter(name=ref).first()


def location_models_for(user: AbstractBaseUser | None) -> QuerySet[TrainedLocationModel]:
    """Active location models a user may use: the built-in defaults and their own."""
    return _defaults_and_own(TrainedLocationModel, user)


def resolve_location_model(user: AbstractBaseUser | None, ref: str | None, text: str = "") -> TrainedLocationModel:
    """The model a request names (id or name; a user's own model before a default of the same name), or
    without a name the default model for the text's language. Raises LookupError naming the choices."""
    models = location_models_for(user).order_by(F("owner_id").desc(nulls_last=True), "name")
    if ref:
        found = _named(models, ref)
        if found is None:
            names = ", ".join(sorted({m.name for m in models})) or "none"
            raise LookupError(f"No model {ref!r} is available to you; available: {names}.")
        return found
    found = models.filter(language=detect_language(text)).first() or models.first()
    if found is None:
        raise LookupError("No location model is available yet; run `manage.py bootstrap` to train the defaults.")
    return found


def load_location_model(record: TrainedLocationModel) -> LocationModel:
    """The model of a record, loaded once per process (a new version has a new path, hence a new entry)."""
    return _load_model(str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=8)
def _load_model(directory: str) -> LocationModel:
    return LocationModel.load(Path(directory))


def warm_location_models() -> int:
    """Load every default model and its tokenizer into this process; returns how many."""
    records = list(location_models_for(None))
    for record in records:
        model = load_location_model(record)
        model.tokenize("warm up")
    return len(records)


# -- crowdsourcing ---------------------------------------------------------------------------------------------
def campaigns_of(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """A staff user's own campaigns; nobody else sees a campaign or its answers."""
    if not (user.is_authenticated and user.is_staff):
        return Campaign.objects.none()
    return Campaign.objects.filter(owner_id=user.pk)


def open_campaign(join_token: str) -> Campaign | None:
    return Campaign.objects.filter(join_token=join_token).select_related("location_model").first()


def participant_in(campaign: Campaign, secret: str | None) -> Participant | None:
    if not secret:
        return None
    return Participant.objects.filter(campaign=campaign, secret=secret).select_related("campaign").first()


def judgment_records(campaign: Campaign) -> list[JudgmentRecord]:
    """The yes/no answers to the campaign's regular posts, with their participant's flag."""
    rows = Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                   answer__isnull=False).values_list("participant_id", "post_id", "answer",
                                                                     "participant__flagged_reason")
    return [JudgmentRecord(str(participant), str(post), bool(given), bool(flag))
            for participant, post, given, flag in rows]


def campaign_report(campaign: Campaign) -> dict:
    """Progress, agreement, per-post aggregates and participants of a campaign."""
    regular = list(campaign.posts.filter(kind=CampaignPost.Kind.REGULAR).values("id", "external_id", "answered"))
    wanted = campaign.judgments_per_post * len(regular)
    done = sum(min(post["answered"], campaign.judgments_per_post) for post in regular)
    records = judgment_records(campaign)
    participants = list(
        campaign.participants.annotate(answers=Count("judgments")).values(
            "id", "answers", "flagged_reason", "consented_at", "completed_at"))
    gold_rows = Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.GOLD).values_list(
        "participant_id", "post_id", "post__gold_answer", "answer")
    gold = gold_accuracy([JudgmentRecord(str(p), str(post), bool(given)) for p, post, _, given in gold_rows],
                         {str(post): bool(expected) for _, post, expected, _ in gold_rows})
    for participant in participants:
        participant["gold_correct"], participant["gold_answered"] = gold.get(str(participant["id"]), (0, 0))
    aggregates = aggregate(records, [str(post["id"]) for post in regular], cutoff=campaign.cutoff)
    clicks = list(Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                          clicked_latitude__isnull=False, post__latitude__isnull=False,
                                          participant__flagged_reason="")
                  .values_list("clicked_latitude", "clicked_longitude", "post__latitude", "post__longitude"))
    click_errors = haversine_km(*np.array(clicks).T) if clicks else np.array([])
    return {
        "posts": len(regular),
        "judgments_wanted": wanted,
        "judgments_done": done,
        "progress": done / wanted if wanted else 0.0,
        "participants": participants,
        "flagged": sum(1 for p in participants if p["flagged_reason"]),
        "alpha": krippendorff_alpha(records),
        # How accurately people place posts on the map: distance from their click to the true point.
        "map_answers": len(clicks),
        "map_median_error_km": float(np.median(click_errors)) if clicks else None,
        "aggregates": aggregates,
        "external_ids": {str(post["id"]): post["external_id"] for post in regular},
    }


def judgment_rows(campaign: Campaign) -> list[dict]:
    """Every answer of a campaign, pseudonymous, for export."""
    return [
        {"participant": str(row["participant_id"]), "post": row["post_id"], "external_id": row["post__external_id"],
         "kind": row["post__kind"], "answer": row["answer"], "clicked_latitude": row["clicked_latitude"],
         "clicked_longitude": row["clicked_longitude"], "deleted_tokens": row["deleted_tokens"],
         "text_after": row["text_after"], "seconds": row["seconds"],
         "flagged": bool(row["participant__flagged_reason"]), "created_at": row["created_at"].isoformat()}
        for row in Judgment.objects.filter(post__campaign=campaign).order_by("id").values(
            "participant_id", "post_id", "post__external_id", "post__kind", "answer", "clicked_latitude",
            "clicked_longitude", "deleted_tokens", "text_after", "seconds", "participant__flagged_reason",
            "created_at")
    ]


def aggregate_rows(campaign: Campaign) -> list[dict]:
    report = campaign_report(campaign)
    rows = aggregates_to_rows(report["aggregates"])
    for row in rows:
        row["external_id"] = report["external_ids"].get(str(row["post"]), "")
    return rows


def human_model_for(location_record: TrainedLocationModel) -> HumanInferabilityModel | None:
    """The active human-inferability model trained beside a location model, if any (staff train them for
    everyone, like the default location models)."""
    return HumanInferabilityModel.objects.filter(location_model=location_record, active=True).first()


def load_human_model(record: HumanInferabilityModel) -> HumanModel:
    return _load_human(str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=8)
def _load_human(directory: str) -> HumanModel:
    return HumanModel.load(Path(directory))


# -- location-privacy preferences (issue 8) ------------------------------------------------------------------------
def preference_models_for(user: AbstractBaseUser | None) -> QuerySet[PreferenceModel]:
    """Active preference models a user may use: the built-in default and their own."""
    return _defaults_and_own(PreferenceModel, user)


def resolve_preference_model(user: AbstractBaseUser | None, ref: str | None = None) -> PreferenceModel:
    """The model a request names (id or name; a user's own before a default of the same name), else the
    default. Raises LookupError; another user's model is not found, like one that does not exist."""
    models = preference_models_for(user).order_by(F("owner_id").desc(nulls_last=True), "name")
    if ref:
        found = _named(models, ref)
        if found is None:
            raise LookupError(f"No preference model {ref!r} is available to you.")
        return found
    found = models.filter(owner__isnull=True).first() or models.first()
    if found is None:
        raise LookupError("No preference model is available yet; run `manage.py bootstrap` to train the default.")
    return found


def preference_model_version_for(user: AbstractBaseUser | None, model_id) -> PreferenceModel | None:
    """Any version (active or not) of a preference model the user may use, by id: contributions computed
    against a version that a newer one replaced since the page loaded are still accepted."""
    mine = Q(owner_id=user.pk) if user is not None and user.is_authenticated else Q(pk__in=[])
    return PreferenceModel.objects.filter(Q(owner__isnull=True) | mine, id=model_id).first()


def load_preference_model(record: PreferenceModel) -> PreferenceArtifact:
    """The item side of a record, loaded once per process (a new version has a new path)."""
    return _load_preference(str(Path(settings.MODEL_DIR) / record.path))


@lru_cache(maxsize=8)
def _load_preference(directory: str) -> PreferenceArtifact:
    return PreferenceArtifact.from_dict(json.loads((Path(directory) / "model.json").read_text(encoding="utf-8")))
