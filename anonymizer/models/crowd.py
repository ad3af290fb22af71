"""Crowdsourcing: campaigns, their posts, pseudonymous participants, served posts and answers."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from anonymizer.models.location import TrainedLocationModel
from anonymizer.models.validators import GreaterThanValidator, LessThanValidator


def _between(low, high) -> list:
    return [MinValueValidator(low), MaxValueValidator(high)]


#: Longest instructions or consent text of a campaign, and longest post (a blog post, not a book).
MAX_CAMPAIGN_TEXT = 20_000
MAX_POST_TEXT = 20_000


class Campaign(models.Model):
    """A crowdsourcing campaign: posts to judge, the task, and how many judgments each post needs.

    Every number has its range here, on its field: the new-campaign form and the API take theirs from it (a row
    saved before the ranges existed was brought within them by migration 0005)."""

    class Task(models.TextChoices):
        INFERABLE = "inferable", _("Can you tell where this was posted? (yes / no)")
        DEIDENTIFY = "deidentify", _("Strike the fewest words until the location is ambiguous")

    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns")
    name = models.CharField(max_length=200)
    instructions = models.TextField(max_length=MAX_CAMPAIGN_TEXT)
    consent_text = models.TextField(max_length=MAX_CAMPAIGN_TEXT)
    task = models.CharField(max_length=16, choices=Task.choices, default=Task.INFERABLE)
    # The participants' pages (consent, instructions, task, checks, done) are in this language whatever their
    # browser says: the owner wrote the campaign's texts in it.
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="en")
    ask_location = models.BooleanField(default=False, help_text="Also ask participants to click the area on a map.")
    # The model whose tokenizer splits posts into words to strike, and whose grid the map shows.
    location_model = models.ForeignKey(TrainedLocationModel, on_delete=models.PROTECT, null=True, blank=True,
                                       related_name="+")
    judgments_per_post = models.PositiveIntegerField(default=100, validators=_between(1, 1000))
    cutoff = models.FloatField(default=0.10, validators=[GreaterThanValidator(0.0), LessThanValidator(1.0)],
                               help_text="Share of yes answers from which a post is human-inferable.")
    gold_share = models.FloatField(default=0.10, validators=[MinValueValidator(0.0), LessThanValidator(1.0)],
                                   help_text="Share of a participant's items that are gold posts.")
    # 6 gold answers judged at 50% with 8 attention checks (issue 43, bench/bench_crowd_quality.py): a random
    # clicker gets a code in 0.1-0.3% of sessions, a careful participant (90% gold right) is flagged in 0.1-0.3%.
    # The former 3 at 70% flagged 27% of careful participants and let 8% of random ones through.
    min_gold_accuracy = models.FloatField(default=0.50, validators=_between(0.0, 1.0))
    min_gold_answers = models.PositiveIntegerField(default=6, validators=_between(0, 1000))
    per_participant_cap = models.PositiveIntegerField(default=50, validators=_between(1, 10_000))
    # Quality control and sequential stopping (issue 20).
    min_answers_for_code = models.PositiveIntegerField(
        default=5, validators=_between(1, 10_000),
        help_text="Regular posts a participant must answer before they get a completion code.")
    checks_within = models.PositiveIntegerField(
        default=5, validators=_between(2, 1000),
        help_text="Every participant meets the first check item of each kind within their first this many items.")
    stop_when_decided = models.BooleanField(
        default=True, help_text="Stop asking about a post once its interval clears the cut-off (sequential stopping).")
    # 20: in bench/bench_crowd_sequential.py's simulation it keeps the labels' error at the fixed-100 campaign's
    # (6.0% vs 5.9%) while saving 44% of the judgments; with no floor the error grows to 8.0%.
    min_judgments_per_post = models.PositiveIntegerField(
        default=20, validators=_between(1, 1000),
        help_text="Answers a post collects before it may stop early, however clear its interval.")
    reservation_seconds = models.PositiveIntegerField(default=300, validators=_between(10, 86_400))
    # The secret part of the link participants join by; knowing it is what admits them.
    join_token = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class CampaignPost(models.Model):
    """One post of a campaign: a regular item, a gold item with a known answer, or an attention check."""

    class Kind(models.TextChoices):
        REGULAR = "regular"
        GOLD = "gold"
        ATTENTION = "attention"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="posts")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REGULAR)
    text = models.TextField(max_length=MAX_POST_TEXT)
    external_id = models.CharField(max_length=200, blank=True)
    gold_answer = models.BooleanField(null=True, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    # Valid answers so far (flagged participants' left out) and how many of them said yes, and the label they
    # decide: recounted from the Judgment rows under the post's lock whenever they change (the queue reads them).
    answered = models.PositiveIntegerField(default=0)
    yes = models.PositiveIntegerField(default=0)
    label = models.CharField(max_length=24, default="no answers")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "kind", "answered"])]

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.id}"


class Participant(models.Model):
    """A pseudonymous participant of one campaign (no account); the secret key lives in their session.

    The client address and the browser they joined from are kept only as keyed hashes, per campaign: enough to
    cap what one address holds and to see a flagged browser join afresh, never the address itself."""

    class Rejoined(models.TextChoices):
        BROWSER = "browser", "from the same browser as a flagged session"
        ADDRESS = "address", "from the same address as a flagged session"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="participants")
    secret = models.CharField(max_length=64, unique=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=32, blank=True)
    # The code is shown once, to this participant's session; when is on record for the staff checking codes.
    code_shown_at = models.DateTimeField(null=True, blank=True)
    # Seed of this participant's own random order of posts.
    seed = models.BigIntegerField()
    flagged_reason = models.CharField(max_length=300, blank=True)
    # Blank for participants who joined before these were kept (and for those made outside a request).
    address_hash = models.CharField(max_length=32, blank=True)
    browser_hash = models.CharField(max_length=32, blank=True)
    rejoined_after_flag = models.CharField(max_length=8, choices=Rejoined.choices, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["campaign", "address_hash"]),
                   models.Index(fields=["campaign", "browser_hash"])]

    def __str__(self) -> str:
        return str(self.id)


class Assignment(models.Model):
    """A post served to a participant: reserved until ``expires_at``, answered when a Judgment exists.

    The unique constraint is what guarantees, even under concurrent requests, that a participant never gets
    the same post twice."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="assignments")
    post = models.ForeignKey(CampaignPost, on_delete=models.CASCADE, related_name="assignments")
    served_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["participant", "post"], name="one_assignment_per_post")]
        indexes = [models.Index(fields=["post", "answered_at", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.participant_id} -> {self.post_id}"


class Judgment(models.Model):
    """A participant's answer about one post."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="judgments")
    post = models.ForeignKey(CampaignPost, on_delete=models.CASCADE, related_name="judgments")
    answer = models.BooleanField(null=True, blank=True, help_text="Inferable task: can you tell where?")
    clicked_latitude = models.FloatField(null=True, blank=True)
    clicked_longitude = models.FloatField(null=True, blank=True)
    # De-identification task: the struck token indices and the text left.
    deleted_tokens = models.JSONField(null=True, blank=True)
    text_after = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="Time from serving to answer.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["participant", "post"], name="one_judgment_per_post")]

    def __str__(self) -> str:
        return f"{self.participant_id} on {self.post_id}: {self.answer}"
