"""Serializers of the preferences API: an anonymous contribution of one-bit LDP reports."""

from __future__ import annotations

from django.conf import settings
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
                f"A one-bit report at ε = {data['epsilon']:g} is ±{one_bit_bound(data['epsilon']):.12g}, "
                f"not {data['value']:g}."]})
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
        return f"At most {settings.PREFERENCE_MAX_ROUNDS} reports (rounds) per contribution; got {count}."

    def validate_reports(self, reports: list[dict]) -> list[dict]:
        if len(reports) > settings.PREFERENCE_MAX_ROUNDS:
            raise serializers.ValidationError(self._too_many(len(reports)))
        if sorted(r["round"] for r in reports) != list(range(len(reports))):
            raise serializers.ValidationError("The rounds must be 0, 1, …, R − 1, each once.")
        if len({r["epsilon"] for r in reports}) != 1:
            raise serializers.ValidationError("Every report of a contribution spends the same ε (ε / rounds).")
        total = sum(r["epsilon"] for r in reports)
        if total > settings.PREFERENCE_MAX_EPSILON * (1 + 1e-9):
            raise serializers.ValidationError(f"The reports spend ε = {total:g} in all; at most "
                                              f"{settings.PREFERENCE_MAX_EPSILON:g} is accepted.")
        return reports

    def validate(self, data: dict) -> dict:
        record = selectors.preference_model_version_for(self.context["user"], data["model"])
        if record is None:
            raise serializers.ValidationError({"model": [f"No preference model {data['model']} is available to you."]})
        coordinates = selectors.load_preference_model(record).n_coordinates
        # Keyed by the report's position, as DRF reports a list child's own errors.
        errors = {str(i): {"index": [f"The model has {coordinates} coordinates: the index must be 0 … "
                                     f"{coordinates - 1}."]}
                  for i, r in enumerate(data["reports"]) if r["index"] >= coordinates}
        if errors:
            raise serializers.ValidationError({"reports": errors})
        data["record"] = record
        return data
