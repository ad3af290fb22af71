"""Serializers of the staff campaigns API."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext
from rest_framework import serializers

from anonymizer.crowd.web.services import (
    DEFAULT_ATTENTION_CHECKS,
    MAX_ATTENTION_CHECKS,
    MAX_CAMPAIGN_POSTS,
    campaign_warnings,
)
from anonymizer.models import Campaign, CampaignPost


class CampaignPostInputSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=CampaignPost._meta.get_field("text").max_length)
    kind = serializers.ChoiceField(choices=["regular", "gold", "attention"], default="regular")
    gold = serializers.BooleanField(required=False, allow_null=True, default=None)
    id = serializers.CharField(required=False, allow_blank=True, default="",
                               max_length=CampaignPost._meta.get_field("external_id").max_length)
    lat = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-90, max_value=90)
    lon = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-180, max_value=180)


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign; every number in the range the Campaign table declares on its field (ModelSerializer takes the
    fields' validators), every text within its column's length."""

    posts = CampaignPostInputSerializer(many=True, write_only=True, required=False, max_length=MAX_CAMPAIGN_POSTS)
    sample = serializers.IntegerField(write_only=True, required=False, min_value=1, max_value=MAX_CAMPAIGN_POSTS,
                                      help_text="Instead of posts: sample this many held-out posts of the location "
                                                "model's corpus (built-in models).")
    attention_checks = serializers.IntegerField(
        write_only=True, default=DEFAULT_ATTENTION_CHECKS, min_value=0, max_value=MAX_ATTENTION_CHECKS,
        help_text="Attention checks, half asking Yes and half No (0, or at least 2); every participant meets them "
                  "all before a completion code.")
    warnings = serializers.SerializerMethodField(
        help_text="What is weak about the campaign's checks (no gold posts, no attention checks, one kind only).")
    location_model = serializers.CharField(required=False, allow_null=True, default=None, max_length=200,
                                           help_text="Location model id or name.")
    join_url = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = ["id", "name", "instructions", "consent_text", "task", "language", "ask_location", "location_model",
                  "judgments_per_post", "cutoff", "gold_share", "min_gold_accuracy", "min_gold_answers",
                  "per_participant_cap", "min_answers_for_code", "checks_within", "stop_when_decided",
                  "min_judgments_per_post", "reservation_seconds", "status", "created_at", "join_url", "posts",
                  "sample", "attention_checks", "warnings"]
        read_only_fields = ["id", "status", "created_at", "join_url", "warnings"]

    def get_join_url(self, campaign: Campaign) -> str:
        return self.context["request"].build_absolute_uri(reverse("crowd-join", args=[campaign.join_token]))

    def get_warnings(self, campaign: Campaign) -> list[str]:
        return campaign_warnings(campaign)

    def validate_attention_checks(self, count: int) -> int:
        if count == 1:
            raise serializers.ValidationError(gettext("One attention check can ask only Yes or only No: give 0, or at "
                                                      "least 2 (half ask Yes, half No)."))
        return count

    def to_representation(self, campaign: Campaign) -> dict:
        data = super().to_representation(campaign)
        data["location_model"] = campaign.location_model.name if campaign.location_model else None
        return data

    def validate(self, data: dict) -> dict:
        cap = data.get("per_participant_cap", Campaign._meta.get_field("per_participant_cap").default)
        needed = data.get("min_answers_for_code", 0)  # unless given: the default, or the cap when smaller
        if needed > cap:
            raise serializers.ValidationError({"min_answers_for_code": [
                gettext("A completion code cannot need more answers (%(needed)s) than one participant may give "
                        "(per_participant_cap %(cap)s).") % {"needed": needed, "cap": cap}]})
        if not data.get("posts") and not data.get("sample"):
            raise serializers.ValidationError({"posts": [gettext("Give the posts, or a sample size to draw from the "
                                                                 "model's corpus.")]})
        return data
