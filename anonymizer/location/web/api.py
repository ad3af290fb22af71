"""REST API of the location capability: inspect posts (one or a batch) and list the location models you can
use. Validate, call a service, serialize."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from anonymizer.location.deidentify import TooFewDeletable
from anonymizer.location.web import selectors, services
from anonymizer.location.web.serializers import (
    InspectBatchRequestSerializer,
    InspectBatchResponseSerializer,
    InspectModelSerializer,
    InspectReportRequestSerializer,
    InspectRequestSerializer,
    InspectResponseSerializer,
)
from anonymizer.platform.api_input import refuse_wrong_json_types
from anonymizer.platform.throttles import InspectThrottle

_INSPECT_EXAMPLES = [
    OpenApiExample("Automatic (Japanese)", request_only=True,
                   value={"text": "今日は浅草の雷門の前で待ち合わせ！", "model": "tokyo-ja", "mode": "auto"}),
    OpenApiExample("Delete exactly 2 morphemes, keep a word (English)", request_only=True,
                   value={"text": "Grabbing lunch downtown in Little Rock before the game", "model": "us-midwest-en",
                          "mode": "fixed", "m": 2, "keep": ["lunch"]}),
]
_ERRORS = {400: OpenApiResponse(description="Invalid input: the field at fault and why"),
           415: OpenApiResponse(description="The body is not JSON (Content-Type)"),
           429: OpenApiResponse(description="Rate limit reached; retry after the Retry-After header")}


class InspectView(APIView):
    """Where a post gives its author away: per-cell probabilities before and after de-identification, the
    deleted morphemes (character spans of the original text) and the de-identified text."""

    permission_classes = [AllowAny]
    throttle_classes = [InspectThrottle]

    @extend_schema(request=InspectRequestSerializer, responses={200: InspectResponseSerializer, **_ERRORS},
                   examples=_INSPECT_EXAMPLES)
    def post(self, request: Request) -> Response:
        serializer = InspectRequestSerializer(data=request.data)
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        inspection = services.inspect_posts(request.user, [data["text"]], data)
        result = inspection.results[0]
        if isinstance(result, TooFewDeletable):  # more deletions asked than the post has deletable units
            raise ValidationError({"m": [str(result)]})
        return Response({**result, "model": inspection.model_payload()})


class InspectReportView(APIView):
    """The inspect result of one post as a file to share: a standalone HTML map report (two synced maps, made
    with Folium, every script and style inlined, no external URL: it works offline) or an SVG figure. Same body
    as inspect plus `format`; computed again, nothing stored. It holds the de-identified text, never the
    original post."""

    permission_classes = [AllowAny]
    throttle_classes = [InspectThrottle]

    @extend_schema(request=InspectReportRequestSerializer,
                   responses={(200, "text/html"): OpenApiTypes.STR, (200, "image/svg+xml"): OpenApiTypes.STR,
                              **_ERRORS})
    def post(self, request: Request) -> HttpResponse:
        serializer = InspectReportRequestSerializer(data=request.data)
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        report = services.inspection_report(request.user, data, data["format"])
        response = HttpResponse(report.content, content_type=report.content_type)
        response["Content-Disposition"] = f'attachment; filename="{report.filename}"'
        response["Cache-Control"] = "no-store"
        return response


class InspectBatchView(APIView):
    """The same for up to INSPECT_MAX_BATCH posts with one model; a post that cannot be processed gets an
    error entry instead of a result."""

    permission_classes = [AllowAny]
    throttle_classes = [InspectThrottle]

    @extend_schema(request=InspectBatchRequestSerializer, responses={200: InspectBatchResponseSerializer, **_ERRORS})
    def post(self, request: Request) -> Response:
        serializer = InspectBatchRequestSerializer(data=request.data)
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        inspection = services.inspect_posts(request.user, data["texts"], data)
        results = [{"error": str(result)} if isinstance(result, TooFewDeletable) else {"result": result}
                   for result in inspection.results]
        return Response({"model": inspection.model_payload(), "results": results})


class LocationModelListView(APIView):
    """The location models you can use: the built-in defaults and your own, with their held-out scores."""

    permission_classes = [AllowAny]

    @extend_schema(responses=InspectModelSerializer(many=True))
    def get(self, request: Request) -> Response:
        out = []
        for record in selectors.location_models_for(request.user):
            meta = record.metadata
            out.append({"id": str(record.id), "name": record.name, "title": record.title, "version": record.version,
                        "language": record.language, "grid": meta["grid"], "threshold": meta["threshold"],
                        "scores": meta.get("scores"), "mine": record.owner_id is not None})
        return Response(out)
