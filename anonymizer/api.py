"""REST API v1: validate, call a service, serialize. Objects of other users answer 404."""

from __future__ import annotations

from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from anonymizer import selectors
from anonymizer.crowd_export import export_response
from anonymizer.downloads import file_download
from anonymizer.jobkinds import UserFacingError, job_kinds
from anonymizer.location.inspect import inspect_text, model_description
from anonymizer.location.model import LocationModel
from anonymizer.models import TrainedLocationModel
from anonymizer.serializers import (
    CampaignSerializer,
    InspectBatchRequestSerializer,
    InspectBatchResponseSerializer,
    InspectModelSerializer,
    InspectRequestSerializer,
    InspectResponseSerializer,
    JobCreateSerializer,
    JobKindSerializer,
    JobListSerializer,
    JobSerializer,
    UploadSerializer,
)
from anonymizer.services import crowd as crowd_services
from anonymizer.services import jobs as job_services
from anonymizer.services import temporal as temporal_services
from anonymizer.services import uploads as upload_services
from anonymizer.tabular import CsvFormatError
from anonymizer.throttles import InspectThrottle
from anonymizer.upload_limits import refused_upload_message


class UploadViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                    viewsets.GenericViewSet):
    """Your uploaded files. A CSV is checked before it is stored: a bad file answers 400 with row and column."""

    serializer_class = UploadSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.uploads_of(self.request.user)

    def create(self, request: Request) -> Response:
        refused = refused_upload_message(request._request)
        if refused:
            raise ValidationError({refused[0]: [refused[1]]})
        uploaded = request.FILES.get("file")
        if uploaded is None:
            raise ValidationError({"file": ["Send the CSV file in the multipart field 'file'."]})
        try:
            upload = upload_services.create_csv_upload(owner=request.user, uploaded=uploaded)
        except CsvFormatError as exc:
            # A plain response rather than ValidationError, which would turn row and column into strings.
            return Response({"file": [exc.as_dict()]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(upload).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None, 409: OpenApiResponse(description="A queued or running job uses it")})
    def destroy(self, request: Request, pk=None) -> Response:
        try:
            upload_services.delete_upload(self.get_object())
        except UserFacingError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], url_path="download", url_name="download")
    def download(self, request: Request, pk=None) -> FileResponse:
        upload = self.get_object()
        return file_download(upload.file, upload.original_name, "text/csv")


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                 viewsets.GenericViewSet):
    """Your background jobs: create one of a registered kind, follow its progress, download its results."""

    def get_queryset(self):
        return selectors.jobs_of(self.request.user)

    # Reads are when a lost worker's jobs are noticed, so no one ever sees them "running" forever.
    def list(self, request: Request, *args, **kwargs) -> Response:
        job_services.fail_stale_jobs()
        return super().list(request, *args, **kwargs)

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        job_services.fail_stale_jobs()
        return super().retrieve(request, *args, **kwargs)

    def get_serializer_class(self):
        if self.action == "list":
            return JobListSerializer
        if self.action == "create":
            return JobCreateSerializer
        return JobSerializer

    @extend_schema(request=JobCreateSerializer, responses={201: JobSerializer})
    def create(self, request: Request) -> Response:
        serializer = JobCreateSerializer(data=request.data, context={"uploads": selectors.uploads_of(request.user)})
        serializer.is_valid(raise_exception=True)
        job = job_services.create_job(owner=request.user, **serializer.validated_data)
        job = selectors.jobs_of(request.user).get(id=job.id)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None, 409: OpenApiResponse(description="The job is queued or running")})
    def destroy(self, request: Request, pk=None) -> Response:
        try:
            job_services.delete_job(self.get_object())
        except UserFacingError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: JobSerializer, 409: OpenApiResponse(description="Job already ended")})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk=None) -> Response:
        job = self.get_object()
        if not job_services.cancel_job(job):
            return Response({"detail": f"The job has already ended ({job.status})."}, status=status.HTTP_409_CONFLICT)
        job.refresh_from_db()
        return Response(JobSerializer(job, context={"request": request}).data)

    @extend_schema(request=None, responses={200: JobSerializer, 409: OpenApiResponse(description="Job not ended")})
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk=None) -> Response:
        job = self.get_object()
        try:
            requeued = job_services.retry_job(job)
        except UserFacingError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        if not requeued:
            return Response({"detail": f"Only a failed or cancelled job can run again; this one is {job.status}."},
                            status=status.HTTP_409_CONFLICT)
        job.refresh_from_db()
        return Response(JobSerializer(job, context={"request": request}).data)

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], url_path=r"results/(?P<result_id>\d+)/download",
            url_name="result-download")
    def result_download(self, request: Request, pk=None, result_id=None) -> FileResponse:
        result = get_object_or_404(self.get_object().results, id=result_id)
        return file_download(result.file, result.name, result.content_type)


class JobKindListView(APIView):
    """The kinds of job this server runs, with their parameters."""

    @extend_schema(responses=JobKindSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(JobKindSerializer(job_kinds(), many=True).data)


# -- location models and inspect --------------------------------------------------------------------------------
def _model_payload(record: TrainedLocationModel, model: LocationModel) -> dict:
    return {"id": str(record.id), "title": record.title, "version": record.version, **model_description(model)}


def _resolve(request: Request, ref: str, text: str) -> tuple[TrainedLocationModel, LocationModel, list]:
    """The location model a request names, and the human-inferability scorer trained beside it, if any."""
    try:
        record = selectors.resolve_location_model(request.user, ref, text)
    except LookupError as exc:
        raise ValidationError({"model": [str(exc)]}) from exc
    human = selectors.human_model_for(record)
    extra = [selectors.load_human_model(human).scorer()] if human is not None else []
    return record, selectors.load_location_model(record), extra


_INSPECT_EXAMPLES = [
    OpenApiExample("Automatic (Japanese)", request_only=True,
                   value={"text": "今日は浅草の雷門の前で待ち合わせ！", "model": "tokyo-ja", "mode": "auto"}),
    OpenApiExample("Delete exactly 2 morphemes, keep a word (English)", request_only=True,
                   value={"text": "Grabbing lunch downtown in Little Rock before the game", "model": "us-midwest-en",
                          "mode": "fixed", "m": 2, "keep": ["lunch"]}),
]
def _remove_time(request: Request, record: TrainedLocationModel, data: dict, texts: list[str]) -> list | None:
    """The time removal of each text when the request asks for it (before the location: one pass)."""
    if not data["remove_time"]:
        return None
    if record.language != temporal_services.LANGUAGE:
        raise ValidationError({"remove_time": [
            f"Time expressions are found in English posts only; the model {record.name!r} is for "
            f"{record.language!r} posts."]})
    try:
        anonymizer = temporal_services.time_anonymizer(request.user, data)
    except LookupError as exc:
        raise ValidationError({"time_patterns": [str(exc)]}) from exc
    return anonymizer.transform(texts)


def _inspect(model: LocationModel, text: str, data: dict, extra: list, time_result) -> dict:
    result = inspect_text(model, text, m=data.get("m"), keep_words=data["keep"], extra_scorers=extra,
                          edit=time_result)
    if time_result is not None:
        result["time"] = temporal_services.describe_time_removal(time_result)
    return result


_ERRORS = {400: OpenApiResponse(description="Invalid input: the field at fault and why"),
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
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        record, model, extra = _resolve(request, data["model"], data["text"])
        times = _remove_time(request, record, data, [data["text"]])
        try:
            result = _inspect(model, data["text"], data, extra, times[0] if times else None)
        except ValueError as exc:  # more deletions asked than the post has deletable morphemes
            raise ValidationError({"m": [str(exc)]}) from exc
        return Response({**result, "model": _model_payload(record, model)})


class InspectBatchView(APIView):
    """The same for up to INSPECT_MAX_BATCH posts with one model; a post that cannot be processed gets an
    error entry instead of a result."""

    permission_classes = [AllowAny]
    throttle_classes = [InspectThrottle]

    @extend_schema(request=InspectBatchRequestSerializer, responses={200: InspectBatchResponseSerializer, **_ERRORS})
    def post(self, request: Request) -> Response:
        serializer = InspectBatchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        record, model, extra = _resolve(request, data["model"], data["texts"][0])
        times = _remove_time(request, record, data, data["texts"]) or [None] * len(data["texts"])
        results = []
        for text, time_result in zip(data["texts"], times, strict=True):
            try:
                results.append({"result": _inspect(model, text, data, extra, time_result)})
            except ValueError as exc:
                results.append({"error": str(exc)})
        return Response({"model": _model_payload(record, model), "results": results})


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


# -- crowdsourcing (staff) --------------------------------------------------------------------------------------
class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your crowdsourcing campaigns (staff users only): create one, follow it, export its answers."""

    serializer_class = CampaignSerializer
    permission_classes = [IsAdminUser]

    def get_queryset(self):
        return selectors.campaigns_of(self.request.user).select_related("location_model")

    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        model_ref = data.pop("location_model", None)
        record = None
        if model_ref:
            try:
                record = selectors.resolve_location_model(request.user, model_ref)
            except LookupError as exc:
                raise ValidationError({"location_model": [str(exc)]}) from exc
        posts = [crowd_services.PostSpec(p["text"], p["kind"], p["gold"], p["id"], p["lat"], p["lon"])
                 for p in data.pop("posts", [])]
        sample, attention = data.pop("sample", None), data.pop("attention_checks")
        try:
            if sample:
                if record is None:
                    raise UserFacingError("Sampling posts needs a location model.")
                posts += crowd_services.posts_from_corpus(record, sample)
            posts += crowd_services.attention_checks(record.language if record else "en", attention)
            campaign = crowd_services.create_campaign(owner=request.user, posts=posts, location_model=record, **data)
        except UserFacingError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        return Response(self.get_serializer(campaign).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiResponse(description="Progress, agreement and participants")})
    @action(detail=True, methods=["get"])
    def report(self, request: Request, pk=None) -> Response:
        report = selectors.campaign_report(self.get_object())
        return Response({key: report[key] for key in ("posts", "judgments_wanted", "judgments_done", "progress",
                                                      "flagged", "alpha")}
                        | {"participants": len(report["participants"])})

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, (200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], url_path=r"export/(?P<what>judgments|aggregates)\.(?P<fmt>csv|jsonl)",
            url_name="export")
    def export(self, request: Request, pk=None, what: str = "", fmt: str = "") -> HttpResponse:
        return export_response(self.get_object(), what, fmt)
