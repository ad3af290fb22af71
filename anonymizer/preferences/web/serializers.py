"""Serializers of the preferences API: an anonymous contribution of one-bit LDP reports."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import serializers

from anonymizer.platform.api_input import StrictUUIDField
from anonymizer.preferences.ldp import one_bit_bound
from anonymizer.preferences.serving import is_report_value
from anonymizer.preferences.web import selectors


class ReportSerializer(serializers.Serializer):
    round = serializers.IntegerField(min_value=0, max_value=1_000_000)  # and 0 … R − 1: ContributionSerializer
    index = serializers.IntegerField(min_value=0, max_value=2**31 - 1,  # and below the model's coordinates
                                     help_text="The sampled gradient coordinate (item × (rank + 1)).")
    value = serializers.FloatField(help_text="+B or −B, B = (e^ε + 1) / (e^ε − 1) for this report's ε.")
    epsilon = serializers.FloatField(min_value=1e-6, max_value=1e6, help_text="The ε this report spends.")

    def validate(self, data: dict) -> dict:
        if not is_report_value(data["value"], data["epsilon"]):
            raise serializers.ValidationError({"value": [
                gettext("A one-bit report at ε = %(epsilon)s is ±%(bound)s, not %(value)s.") % {
                    "epsilon": f"{data['epsilon']:g}", "bound": f"{one_bit_bound(data['epsilon']):.12g}",
                    "value": f"{data['value']:g}"}]})
        return data


class ContributionSerializer(serializers.Serializer):
    model = StrictUUIDField(help_text="The id of the model version the gradient was computed against.")
    reports = ReportSerializer(many=True, allow_empty=False, max_length=settings.PREFERENCE_MAX_ROUNDS,
                               help_text="One report per round, rounds 0 … R−1, all with the same ε.")

    def to_internal_value(self, data):
        # The rounds limit before each report is validated, so a million reports cost nothing.
        reports = data.get("reports") if hasattr(data, "get") else None
        if isinstance(reports, list) and len(reports) > settings.PREFERENCE_MAX_ROUNDS:
            raise serializers.ValidationError({"reports": [self._too_many(len(reports))]})
        return super().to_internal_value(data)

    @staticmethod
    def _too_many(count: int) -> str:
        return gettext("At most %(max)s reports (rounds) per contribution; got %(count)s.") % {
            "max": settings.PREFERENCE_MAX_ROUNDS, "count": count}

    def validate_reports(self, reports: list[dict]) -> list[dict]:
        if len(reports) > settings.PREFERENCE_MAX_ROUNDS:
            raise serializers.ValidationError(self._too_many(len(reports)))
        if sorted(r["round"] for r in reports) != list(range(len(reports))):
            raise serializers.ValidationError(gettext("The rounds must be 0, 1, …, R − 1, each once."))
        if len({r["epsilon"] for r in reports}) != 1:
            raise serializers.ValidationError(gettext("Every report of a contribution spends the same ε (ε / rounds)."))
        total = sum(r["epsilon"] for r in reports)
        if total > settings.PREFERENCE_MAX_EPSILON * (1 + 1e-9):
            raise serializers.ValidationError(gettext("The reports spend ε = %(total)s in all; at most %(max)s is "
                                                      "accepted.") % {
                "total": f"{total:g}", "max": f"{settings.PREFERENCE_MAX_EPSILON:g}"})
        return reports

    def validate(self, data: dict) -> dict:
        record = selectors.preference_model_version_for(self.context["user"], data["model"])
        if record is None:
            raise serializers.ValidationError({"model": [
                gettext("No preference model %(model)s is available to you.") % {"model": data["model"]}]})
        coordinates = selectors.load_preference_model(record).n_coordinates
        # Keyed by the report's position, as DRF reports a list child's own errors.
        message = gettext("The model has %(coordinates)s coordinates: the index must be 0 … %(last)s.") % {
            "coordinates": coordinates, "last": coordinates - 1}
        errors = {str(i): {"index": [message]}
                  for i, r in enumerate(data["reports"]) if r["index"] >= coordinates}
        if errors:
            raise serializers.ValidationError({"reports": errors})
        data["record"] = record
        return data
