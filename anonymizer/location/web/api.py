"""REST API of the location capability: inspect posts (one or a batch) and list the location models you can
use. Validate, call a service, serialize."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from anonymizer.location.deidentify import TooFewDeletable
from anonymizer.location.file_review import Span
from anonymizer.location.web import review_selectors, review_services, selectors, services
from anonymizer.location.web.serializers import (
    InspectBatchRequestSerializer,
    InspectBatchResponseSerializer,
    InspectModelSerializer,
    InspectReportRequestSerializer,
    InspectRequestSerializer,
    InspectResponseSerializer,
    ReviewRequestSerializer,
    ReviewResponseSerializer,
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
        inspection = services.inspect_posts(request.user, [data["text"]], serializer.inspect_options())
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
        report = services.inspection_report(request.user, data["text"], serializer.inspect_options(), data["format"],
                                            include_before=data["include_before"])
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
        inspection = services.inspect_posts(request.user, data["texts"], serializer.inspect_options())
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


class ReviewView(APIView):
    """Review the posts a de-identify-posts job left for review (your own succeeded job): accept the released
    text, delete spans of it or the whole post, edit it, or forget the review. Up to 500 decisions, stored all
    together or none (400 lists the faults by decision). The job's result file stays as it was; the reviewed file
    is built from it when downloaded."""

    @extend_schema(request=ReviewRequestSerializer,
                   responses={200: ReviewResponseSerializer, 400: _ERRORS[400], 415: _ERRORS[415],
                              404: OpenApiResponse(description="No succeeded de-identify-posts job of yours has "
                                                               "this id")})
    def post(self, request: Request, job_id) -> Response:
        job = review_selectors.review_job(request.user, job_id)
        if job is None:
            raise NotFound("No succeeded de-identify-posts job of yours has this id.")
        serializer = ReviewRequestSerializer(data=request.data)
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        asked = [review_services.ReviewRequest(
            row=item["row"], column=item["column"], action=item["action"], text=item["text"],
            spans=tuple(Span(start, end) for start, end in item["spans"]))
            for item in serializer.validated_data["reviews"]]
        stored = review_services.save_reviews(request.user, job, asked)
        return Response({"reviews": [review_payload(item, review) for item, review in zip(asked, stored, strict=True)]})


def review_payload(asked, review) -> dict:
    """A post's stored review as the API and the page read it."""
    if review is None:
        return {"row": asked.row, "column": asked.column, "action": None, "text": None, "deleted_spans": [],
                "reviewed_by": None, "reviewed_at": None}
    return {"row": review.row, "column": review.column, "action": review.action, "text": review.text,
            "deleted_spans": review.deleted_spans,
            "reviewed_by": review.reviewed_by.get_username() if review.reviewed_by else None,
            "reviewed_at": review.reviewed_at.isoformat()}
