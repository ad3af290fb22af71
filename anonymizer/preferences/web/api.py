"""REST API of the location-privacy preferences: the served model, and the anonymous LDP reports the
preferences page sends. Validate, call a service, serialize; another user's model answers 404."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from anonymizer.models import PreferenceModel
from anonymizer.platform.api_input import refuse_wrong_json_types
from anonymizer.platform.throttles import AddressRateThrottle
from anonymizer.preferences.ldp import one_bit_bound
from anonymizer.preferences.serving import PROXY_NOTICE, UPLOAD_NOTICE, PreferenceArtifact
from anonymizer.preferences.web import display, selectors
from anonymizer.preferences.web import services as preference_services
from anonymizer.preferences.web.serializers import ContributionSerializer


class ContributionThrottle(AddressRateThrottle):
    """PREFERENCE_REPORT_RATE contributions per client address, signed in or not: a contribution is never tied to
    an account, not even in the rate limiter's cache (which holds an address's request times for one window)."""

    scope = "preference-reports"

    def rate_for(self, request) -> str:
        return settings.PREFERENCE_REPORT_RATE


def model_payload(request: Request, record: PreferenceModel, model: PreferenceArtifact) -> dict:
    """Everything the page needs to recommend and to contribute, and nothing about any person."""
    columns = len(model.item_space["columns"])
    # The human texts in the request's language (a built-in model's title, the notice, the training record's
    # sentences, the labels); item_space, ids and method names stay as stored.
    labels = display.item_labels(model.item_space)
    return {
        "id": str(record.id), "name": record.name, "version": record.version, "mine": record.owner_id is not None,
        "title": record.title if record.owner_id is not None else display.stored_text(record.title),
        "item_space": model.item_space, "display": display.grid_labels(model.item_space),
        "items": [{"id": j, "row": j // columns, "column": j % columns, "label": label}
                  for j, label in enumerate(labels)],
        "rank": model.rank, "factors": model.factors.tolist(), "biases": model.biases.tolist(),
        "threshold": model.threshold, "regularization": model.regularization, "clip": model.clip,
        "coordinates": model.n_coordinates,
        "training": display.training_record(record.training),
        "scores": display.scores_record(record.metadata.get("scores")),
        # What the item side is (anonymizer.preferences.selection): "ldp-mf", "user-mean" or "item-mean+offset".
        "method": record.training.get("method", "ldp-mf"),
        "labels": record.metadata.get("labels", "proxy"),
        "notice": display.stored_text(PROXY_NOTICE if record.metadata.get("labels", "proxy") == "proxy"
                                      else UPLOAD_NOTICE),
        "contribute": {"url": reverse("api-preference-reports"), "max_epsilon": settings.PREFERENCE_MAX_EPSILON,
                       "max_rounds": settings.PREFERENCE_MAX_ROUNDS,
                       # The cap a person's own ledger keeps (the page's does); the server cannot.
                       "ledger_epsilon": settings.PREFERENCE_LEDGER_EPSILON,
                       "ledger_days": settings.PREFERENCE_LEDGER_DAYS},
    }


# What the two views answer, for the API schema (clients and the hostile-input suite check responses against it).
_ITEMS = inline_serializer("PreferenceItem", {"id": serializers.IntegerField(), "row": serializers.IntegerField(),
                                              "column": serializers.IntegerField(), "label": serializers.CharField()},
                           many=True)
_CONTRIBUTE = inline_serializer("PreferenceContribute", {
    "url": serializers.CharField(), "max_epsilon": serializers.FloatField(), "max_rounds": serializers.IntegerField(),
    "ledger_epsilon": serializers.FloatField(help_text="What one person may spend on this model per ledger_days, "
                                                      "kept by their own client (the server cannot tell people "
                                                      "apart)."),
    "ledger_days": serializers.IntegerField()})
_MODEL = inline_serializer("PreferenceModelPayload", {
    "id": serializers.UUIDField(), "name": serializers.CharField(), "title": serializers.CharField(),
    "version": serializers.CharField(), "mine": serializers.BooleanField(),
    "item_space": serializers.DictField(help_text="The time slots and places the items are made of."),
    "display": serializers.DictField(help_text="The week grid's row and column labels in the request's language "
                                               "(item_space's order)."),
    "items": _ITEMS, "rank": serializers.IntegerField(),
    "factors": serializers.ListField(child=serializers.ListField(child=serializers.FloatField())),
    "biases": serializers.ListField(child=serializers.FloatField()), "threshold": serializers.FloatField(),
    "regularization": serializers.FloatField(), "clip": serializers.FloatField(),
    "coordinates": serializers.IntegerField(), "training": serializers.DictField(),
    "method": serializers.CharField(help_text="What the served item side is: ldp-mf, user-mean or item-mean+offset "
                                              "(chosen on held-out users; scores.rule says how)."),
    "scores": serializers.DictField(allow_null=True), "labels": serializers.CharField(),
    "notice": serializers.CharField(), "contribute": _CONTRIBUTE})
_STORED = inline_serializer("PreferenceContributionStored", {
    "contribution": serializers.UUIDField(), "reports": serializers.IntegerField(),
    "epsilon": serializers.FloatField()})
_RATE_LIMITED = OpenApiResponse(description="Rate limit reached; retry after the Retry-After header")


class PreferenceModelView(APIView):
    """The active preference model (the built-in default, or one of yours by ``?model=`` id or name): item ids
    with their labels (time slot × place), the item factors and biases, the rating threshold, the epsilon each
    training user spent, and a plain notice of how its labels were made."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[OpenApiParameter("model", str, description="Model id or name; empty: the default.")],
                   responses={200: OpenApiResponse(_MODEL, description="The model"),
                              404: OpenApiResponse(description="No such model available to you")})
    def get(self, request: Request) -> Response:
        try:
            record = selectors.resolve_preference_model(request.user, request.query_params.get("model") or None)
        except LookupError as exc:
            raise Http404(str(exc)) from exc
        return Response(model_payload(request, record, selectors.load_preference_model(record)))


_EXAMPLE = OpenApiExample("Two rounds at ε = 1 in all", request_only=True, value={
    "model": "00000000-0000-0000-0000-000000000000",
    # Exactly ±B(ε): a rounded value is refused (is_report_value).
    "reports": [{"round": 0, "index": 17, "value": one_bit_bound(0.5), "epsilon": 0.5},
                {"round": 1, "index": 203, "value": -one_bit_bound(0.5), "epsilon": 0.5}]})


class PreferenceReportsView(APIView):
    """An anonymous contribution: the one-bit LDP reports of a person's gradient (computed and perturbed in
    their browser). Only {round, index, value, epsilon} per report is accepted and stored; nothing identifies
    the sender."""

    permission_classes = [AllowAny]
    throttle_classes = [ContributionThrottle]

    @extend_schema(request=ContributionSerializer, examples=[_EXAMPLE],
                   responses={201: OpenApiResponse(_STORED, description="Stored: the contribution id, reports and ε "
                                                                         "spent"),
                              400: OpenApiResponse(description="Invalid: the field at fault and why"),
                              415: OpenApiResponse(description="The body is not JSON (Content-Type)"),
                              429: _RATE_LIMITED})
    def post(self, request: Request) -> Response:
        serializer = ContributionSerializer(data=request.data, context={"user": request.user})
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        contribution = preference_services.create_contribution(data["record"], data["reports"])
        return Response({"contribution": str(contribution.id), "reports": contribution.rounds,
                         "epsilon": contribution.epsilon}, status=status.HTTP_201_CREATED)
