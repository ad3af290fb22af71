"""Reads of crowdsourcing campaigns: a staff user's own campaigns, a campaign by its link, a participant by the
secret in their session, and a campaign's report and exports. Nobody else sees a campaign or its answers."""

from __future__ import annotations

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from anonymizer.crowd.stats import JudgmentRecord, aggregate, aggregates_to_rows, gold_accuracy, krippendorff_alpha
from anonymizer.location.grid import haversine_km
from anonymizer.models import Campaign, CampaignPost, Judgment, Participant


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


def campaign_counts(campaign: Campaign) -> dict[str, int]:
    """How many took part and answered, and how many are in a post right now (what closing stops)."""
    return {"participants": campaign.participants.count(),
            "unfinished": campaign.participants.filter(completed_at__isnull=True, consented_at__isnull=False).count(),
            "answers": Judgment.objects.filter(post__campaign=campaign).count()}


def judgment_records(campaign: Campaign) -> list[JudgmentRecord]:
    """The yes/no answers to the campaign's regular posts, with their participant's flag."""
    rows = Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                   answer__isnull=False).values_list("participant_id", "post_id", "answer",
                                                                     "participant__flagged_reason")
    return [JudgmentRecord(str(participant), str(post), bool(given), bool(flag))
            for participant, post, given, flag in rows]


def campaign_report(campaign: Campaign) -> dict:
    """Progress, agreement, per-post aggregates and participants of a campaign."""
    regular = list(campaign.posts.filter(kind=CampaignPost.Kind.REGULAR).values("id", "external_id", "answered",
                                                                                 "text"))
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
        "texts": {str(post["id"]): post["text"] for post in regular},
    }


def yes_rate_rows(report: dict, aggregates: list) -> list[tuple[str, float | None, float | None, float | None, int]]:
    """The posts of ``aggregates`` as the yes-rate chart's rows: (text, yes-rate, interval low, high, answers)."""
    rows = []
    for a in aggregates:
        label = report["texts"].get(str(a.post)) or report["external_ids"].get(str(a.post)) or str(a.post)
        low, high = (a.interval.low, a.interval.high) if a.interval else (None, None)
        rows.append((label, a.yes_rate, low, high, a.judgments))
    return rows


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
