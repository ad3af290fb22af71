"""Reads of crowdsourcing campaigns: a staff user's own campaigns, a campaign by its link, a participant by the
secret in their session, and a campaign's report and exports. Nobody else sees a campaign or its answers."""

from __future__ import annotations

from collections import Counter

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, QuerySet, Sum
from django.utils.translation import gettext

from anonymizer.crowd import quality
from anonymizer.crowd.stats import (
    JudgmentRecord,
    Label,
    aggregate,
    aggregates_to_rows,
    gold_accuracy,
    krippendorff_alpha,
)
from anonymizer.models import Campaign, CampaignPost, Judgment, Participant
from anonymizer.platform.charts import snippet
from anonymizer.platform.grid import haversine_km


def campaigns_of(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """A staff user's own campaigns; nobody else sees a campaign or its answers."""
    if not (user.is_authenticated and user.is_staff):
        return Campaign.objects.none()
    return Campaign.objects.filter(owner_id=user.pk)


DECIDED = (Label.INFERABLE, Label.NOT_INFERABLE)
#: How much of a post's text the exports and the strike-words report show to recognise it by.
SNIPPET_CHARS = 80


def stops_early(campaign: Campaign) -> bool:
    """Whether the campaign stops asking about a post once its answers decide it (sequential stopping)."""
    return campaign.stop_when_decided and campaign.task == Campaign.Task.INFERABLE


def decided_enough(campaign: Campaign, answered: int, label: str) -> bool:
    """Whether sequential stopping takes a post out of the queue: decided, with the minimum of answers. The one
    statement of the rule in Python; ``still_asked`` says the same in the query."""
    return stops_early(campaign) and label in DECIDED and answered >= campaign.min_judgments_per_post


def still_asked(campaign: Campaign) -> QuerySet[CampaignPost]:
    """The campaign's regular posts that still want answers: fewer valid ones than wanted and, with sequential
    stopping, not yet decided by enough answers (reservations not counted)."""
    posts = CampaignPost.objects.filter(campaign=campaign, kind=CampaignPost.Kind.REGULAR,
                                        answered__lt=campaign.judgments_per_post)
    if stops_early(campaign):
        posts = posts.exclude(answered__gte=campaign.min_judgments_per_post, label__in=DECIDED)
    return posts


def answers_needed(campaign: Campaign) -> int:
    """Valid answers the campaign still wants: each post still asked up to the wanted number (reservations not
    counted; with sequential stopping a post may stop sooner)."""
    totals = still_asked(campaign).aggregate(posts=Count("id"), answered=Sum("answered"))
    return totals["posts"] * campaign.judgments_per_post - (totals["answered"] or 0)


def check_items(campaign: Campaign) -> quality.CheckItems:
    """The check items the campaign holds: gold posts, attention checks asking Yes and asking No."""
    counts = campaign.posts.exclude(kind=CampaignPost.Kind.REGULAR).aggregate(
        gold=Count("id", filter=Q(kind=CampaignPost.Kind.GOLD)),
        attention_yes=Count("id", filter=Q(kind=CampaignPost.Kind.ATTENTION, gold_answer=True)),
        attention_no=Count("id", filter=Q(kind=CampaignPost.Kind.ATTENTION, gold_answer=False)))
    return quality.CheckItems(**counts)


def check_plan(campaign: Campaign) -> quality.CheckPlan:
    """What every participant of the campaign meets before a completion code."""
    return quality.plan_checks(check_items(campaign), min_gold=campaign.min_gold_answers,
                               min_accuracy=campaign.min_gold_accuracy, checks_within=campaign.checks_within)


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


def participant_gold(campaign: Campaign) -> dict[str, tuple[int, int]]:
    """Each participant's gold posts answered correctly and answered, by participant id."""
    gold_rows = Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.GOLD).values_list(
        "participant_id", "post_id", "post__gold_answer", "answer")
    return gold_accuracy([JudgmentRecord(str(p), str(post), bool(given)) for p, post, _, given in gold_rows],
                         {str(post): bool(expected) for _, post, expected, _ in gold_rows})


def campaign_report(campaign: Campaign) -> dict:
    """Progress, agreement, per-post aggregates and participants of a campaign."""
    regular = list(campaign.posts.filter(kind=CampaignPost.Kind.REGULAR).values("id", "external_id", "answered",
                                                                                 "text", "label"))
    # Valid answers (flagged participants' left out, so their posts count as wanting answers again); with
    # sequential stopping a post decided by enough answers wants no more.
    most = campaign.judgments_per_post
    stopped = {post["id"] for post in regular if decided_enough(campaign, post["answered"], post["label"])}
    done = sum(min(post["answered"], most) for post in regular)
    wanted = sum(min(post["answered"], most) if post["id"] in stopped else most for post in regular)
    records = judgment_records(campaign)
    participants = list(
        campaign.participants.annotate(answers=Count("judgments")).values(
            "id", "answers", "flagged_reason", "consented_at", "completed_at", "code_shown_at",
            "rejoined_after_flag"))
    gold = participant_gold(campaign)
    for participant in participants:
        participant["gold_correct"], participant["gold_answered"] = gold.get(str(participant["id"]), (0, 0))
    aggregates = aggregate(records, [str(post["id"]) for post in regular], cutoff=campaign.cutoff)
    clicks = list(Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                          clicked_latitude__isnull=False, participant__flagged_reason="")
                  .values_list("clicked_latitude", "clicked_longitude", "post__latitude", "post__longitude"))
    # Every click counts as a map answer; the distance only where the post's true point is known.
    placed = [click for click in clicks if click[2] is not None and click[3] is not None]
    click_errors = haversine_km(*np.array(placed).T) if placed else np.array([])
    labels = Counter(a.label for a in aggregates)
    return {
        "posts": len(regular),
        "judgments_wanted": wanted,
        "judgments_done": done,
        "progress": done / wanted if wanted else 0.0,
        "stopped_early": len(stopped),
        "judgments_saved": most * len(stopped) - sum(min(p["answered"], most) for p in regular if p["id"] in stopped),
        "labels": {label: labels.get(label, 0) for label in (Label.INFERABLE, Label.NOT_INFERABLE, Label.UNDECIDED,
                                                             Label.NO_ANSWERS)},
        "participants": participants,
        "flagged": sum(1 for p in participants if p["flagged_reason"]),
        "rejoined_after_flag": sum(1 for p in participants if p["rejoined_after_flag"]),
        "alpha": krippendorff_alpha(records),
        # How accurately people place posts on the map: distance from their click to the true point.
        "map_answers": len(clicks),
        "map_answers_placed": len(placed),
        "map_median_error_km": float(np.median(click_errors)) if placed else None,
        "aggregates": aggregates,
        "external_ids": {str(post["id"]): post["external_id"] for post in regular},
        "texts": {str(post["id"]): post["text"] for post in regular},
    }


def yes_rate_rows(report: dict, aggregates: list) -> list[tuple[str, float | None, float | None, float | None, int]]:
    """The posts of ``aggregates`` as the yes-rate chart's rows: (text, yes-rate, interval low, high, answers)."""
    rows = []
    for a in aggregates:
        text = report["texts"].get(str(a.post)) or ""
        ident = report["external_ids"].get(str(a.post)) or f"#{a.post}"
        label = f"{ident}: {text}" if text else ident
        low, high = (a.interval.low, a.interval.high) if a.interval else (None, None)
        rows.append((label, a.yes_rate, low, high, a.judgments))
    return rows


def judgment_rows(campaign: Campaign) -> list[dict]:
    """Every answer of a campaign, pseudonymous, for export."""
    return [
        {"participant": str(row["participant_id"]), "post": row["post_id"], "external_id": row["post__external_id"],
         "text_snippet": snippet(row["post__text"], SNIPPET_CHARS), "kind": row["post__kind"], "answer": row["answer"],
         "clicked_latitude": row["clicked_latitude"], "clicked_longitude": row["clicked_longitude"],
         "deleted_tokens": row["deleted_tokens"],
         "text_after": row["text_after"], "seconds": row["seconds"],
         "flagged": bool(row["participant__flagged_reason"]), "created_at": row["created_at"].isoformat()}
        for row in Judgment.objects.filter(post__campaign=campaign).order_by("id").values(
            "participant_id", "post_id", "post__external_id", "post__text", "post__kind", "answer", "clicked_latitude",
            "clicked_longitude", "deleted_tokens", "text_after", "seconds", "participant__flagged_reason",
            "created_at")
    ]


def participant_rows(campaign: Campaign) -> list[dict]:
    """Every participant of a campaign, pseudonymous, for export: their progress, flag, completion code (to check
    the codes people hand in) and whether they joined afresh after a flagged session. ``address`` and ``browser``
    are the first characters of the keyed hashes, to see which participants share one (never the address)."""
    regular = Count("judgments", filter=Q(judgments__post__kind=CampaignPost.Kind.REGULAR))
    rows = campaign.participants.annotate(answers=Count("judgments"), regular_answers=regular).order_by(
        "created_at", "id")
    gold = participant_gold(campaign)
    return [
        {"participant": str(p.id), "joined_at": p.created_at.isoformat(),
         "consented_at": p.consented_at.isoformat() if p.consented_at else None, "answers": p.answers,
         "regular_answers": p.regular_answers, "gold_correct": gold.get(str(p.id), (0, 0))[0],
         "gold_answered": gold.get(str(p.id), (0, 0))[1], "flagged_reason": p.flagged_reason,
         "rejoined_after_flag": p.rejoined_after_flag,
         "completed_at": p.completed_at.isoformat() if p.completed_at else None,
         "completion_code": p.completion_code,
         "code_shown_at": p.code_shown_at.isoformat() if p.code_shown_at else None,
         "address": p.address_hash[:8], "browser": p.browser_hash[:8]}
        for p in rows
    ]


def aggregate_rows(campaign: Campaign) -> list[dict]:
    report = campaign_report(campaign)
    rows = aggregates_to_rows(report["aggregates"])
    for row in rows:
        row["external_id"] = report["external_ids"].get(str(row["post"]), "")
        row["text_snippet"] = snippet(report["texts"].get(str(row["post"]), ""), SNIPPET_CHARS)
    return rows


def calibration_sample(campaign: Campaign) -> dict:
    """The hand de-identifications a calibration may use: those of posts de-identified by at least
    CROWD_CALIBRATION_MIN_PARTICIPANTS participants who were not flagged; ``enough`` when at least
    CROWD_CALIBRATION_MIN_POSTS such posts exist."""
    need_posts, need_people = settings.CROWD_CALIBRATION_MIN_POSTS, settings.CROWD_CALIBRATION_MIN_PARTICIPANTS
    rows = list(Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                        participant__flagged_reason="", deleted_tokens__isnull=False)
                .values_list("post_id", "text_after"))
    by_post: dict[int, list[str]] = {}
    for post, text in rows:
        by_post.setdefault(post, []).append(text)
    kept = {post: texts for post, texts in by_post.items() if len(texts) >= need_people}
    people = Judgment.objects.filter(post_id__in=list(kept), participant__flagged_reason="")
    return {"texts": [text for texts in kept.values() for text in texts], "posts": len(kept),
            "participants": people.values("participant_id").distinct().count(),
            "need_posts": need_posts, "need_participants": need_people, "enough": len(kept) >= need_posts}


def campaign_actions(campaign: Campaign, report: dict) -> list[dict]:
    """The jobs the campaign's page offers, each with whether it can run now and, when not, why."""
    decided = [a.human_inferable for a in report["aggregates"] if a.human_inferable is not None]
    no_model = "" if campaign.location_model_id else gettext("The campaign has no location model (its tokenizer "
                                                             "and grid).")
    actions = []
    if campaign.task == Campaign.Task.INFERABLE:
        both = len(set(decided)) == 2
        actions.append({"action": "train_human_model", "label": gettext("Train the human-inferability classifier…"),
                        "reason": no_model or ("" if both and len(decided) >= 10 else gettext(
                            "It needs at least 10 decided posts of both labels; %(decided)s decided so far "
                            "(%(inferable)s human-inferable).") % {"decided": len(decided),
                                                                   "inferable": sum(decided)})})
        actions.append({"action": "machine_human_table", "label": gettext("Machine × human table"),
                        "reason": no_model or ("" if decided else gettext("No post is decided yet."))})
    else:
        sample = calibration_sample(campaign)
        actions.append({"action": "calibrate_threshold", "label": gettext("Calibrate the threshold…"),
                        "reason": no_model or ("" if sample["enough"] else gettext(
                            "It needs at least %(need)s posts each de-identified by %(participants)s participants "
                            "who were not flagged; %(posts)s so far.") % {
                                "need": sample["need_posts"], "participants": sample["need_participants"],
                                "posts": sample["posts"]})})
    return actions
