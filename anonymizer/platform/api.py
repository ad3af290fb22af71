"""REST API v1 of the platform: your uploads, your jobs and the kinds of job. Validate, call a service,
serialize; objects of other users answer 404."""

from __future__ import annotations

import uuid

from axes.handlers.proxy import AxesProxyHandler
from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from anonymizer.models import Job
from anonymizer.platform import selectors
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.api_input import BoundedJSONParser, refuse_wrong_json_types
from anonymizer.platform.downloads import file_download
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.i18n import user_message
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.jobs.registry import get_job_kind, job_kinds
from anonymizer.platform.serializers import (
    JobCreateSerializer,
    JobKindSerializer,
    JobListSerializer,
    JobSerializer,
    ProgressSerializer,
    TokenRequestSerializer,
    UploadSerializer,
)
from anonymizer.platform.throttles import lockout_response
from anonymizer.platform.upload_limits import refused_upload_message
from anonymizer.tabular import CsvFormatError

# The answers besides success that every operation below can give (for the API schema, which clients and the
# hostile-input suite check responses against).
_INVALID = OpenApiResponse(description="Invalid input: the field at fault and why")
_NOT_SIGNED_IN = OpenApiResponse(description="Not signed in, or the token is invalid")
_NO_SUCH_PAGE = OpenApiResponse(description="No such page of the list")
_NO_SUCH_UPLOAD = OpenApiResponse(description="No upload of yours has this id")
_NO_SUCH_JOB = OpenApiResponse(description="No job of yours has this id (or it has no such result)")
_NOT_A_FORM = OpenApiResponse(description="The body is not multipart (Content-Type)")
_NOT_JSON = OpenApiResponse(description="The body is not JSON (Content-Type)")
_NOT_JSON_OR_FORM = OpenApiResponse(description="The body is not JSON, a form or multipart (Content-Type)")


@extend_schema_view(
    list=extend_schema(responses={200: UploadSerializer(many=True), 403: _NOT_SIGNED_IN, 404: _NO_SUCH_PAGE}),
    retrieve=extend_schema(responses={200: UploadSerializer, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_UPLOAD}),
)
class UploadViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                    viewsets.GenericViewSet):
    """Your uploaded files. A CSV is checked before it is stored: a bad file answers 400 with row and column."""

    serializer_class = UploadSerializer
    parser_classes = [MultiPartParser]  # a file: a form without one could only be refused

    def get_queryset(self):
        return selectors.uploads_of(self.request.user)

    @extend_schema(responses={201: UploadSerializer, 400: _INVALID, 403: _NOT_SIGNED_IN, 415: _NOT_A_FORM})
    def create(self, request: Request) -> Response:
        refused = refused_upload_message(request._request)
        if refused:
            raise ValidationError({refused[0]: [refused[1]]})
        uploaded = request.FILES.get("file")
        if uploaded is None:
            raise ValidationError({"file": [gettext("Send the CSV file in the multipart field 'file'.")]})
        try:
            upload = upload_services.create_csv_upload(owner=request.user, uploaded=uploaded)
        except CsvFormatError as exc:
            # A plain response rather than ValidationError, which would turn row and column into strings.
            # The message in the request's language; row, column and column_name as they are.
            return Response({"file": [{**exc.as_dict(), "message": user_message(exc)}]},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(upload).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_UPLOAD,
                              409: OpenApiResponse(description="A queued or running job uses it")})
    def destroy(self, request: Request, pk=None) -> Response:
        try:
            upload_services.delete_upload(self.get_object())
        except UserFacingError as exc:
            return Response({"detail": str(exc), "code": "upload_in_use"}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.BINARY, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_UPLOAD})
    @action(detail=True, methods=["get"], url_path="download", url_name="download")
    def download(self, request: Request, pk=None) -> FileResponse:
        upload = self.get_object()
        return file_download(upload.file, upload.original_name, "text/csv")


# -- where a job stands, for the pages' polls ----------------------------------------------------------------
# The most jobs one status request asks about (a page lists at most 200).
MAX_STATUS_IDS = 200


class StandingSerializer(serializers.Serializer):
    """Where a job stands now (selectors.job_standing): counts of every user's jobs, never anything of theirs."""

    text = serializers.CharField(help_text="One sentence: the queue place, the time run, or when it ended.")
    brief = serializers.CharField(help_text="A short line for a list's row (empty once the job ended).")
    queue_position = serializers.IntegerField(allow_null=True, help_text="While queued: 1 for the next job taken.")
    jobs_ahead = serializers.IntegerField(allow_null=True, help_text="While queued: queued jobs ahead of it.")
    jobs_running = serializers.IntegerField(allow_null=True, help_text="While queued: jobs running now.")
    waited_seconds = serializers.IntegerField(allow_null=True, help_text="While queued: since it was queued.")
    elapsed_seconds = serializers.IntegerField(allow_null=True,
                                               help_text="Running: so far; ended: how long it ran.")
    estimate_seconds = serializers.IntegerField(
        allow_null=True, help_text="Running: the seconds left at the rate so far; null until progress is past a "
                                   "few percent and a few seconds have passed.")
    estimate_text = serializers.CharField(help_text='"about 3 min left", or empty without an estimate.')


class _StandingMixin(serializers.Serializer):
    standing = serializers.SerializerMethodField()

    @extend_schema_field(StandingSerializer)
    def get_standing(self, job: Job) -> dict:
        return selectors.job_standing(job, running=self.context.get("running")).as_dict()


class JobPollSerializer(_StandingMixin, JobSerializer):
    """A job as its page polls it: the job and where it stands."""

    class Meta(JobSerializer.Meta):
        fields = [*JobSerializer.Meta.fields, "standing"]
        read_only_fields = fields


class JobStatusSerializer(_StandingMixin, serializers.ModelSerializer):
    """A listed job's status, progress and standing."""

    progress = ProgressSerializer(source="*", read_only=True)

    class Meta:
        model = Job
        fields = ["id", "status", "progress", "standing"]
        read_only_fields = fields


class JobStatusListSerializer(serializers.Serializer):
    jobs = JobStatusSerializer(many=True)


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                 viewsets.GenericViewSet):
    """Your background jobs: create one of a registered kind, follow its progress, download its results."""

    def get_queryset(self):
        return selectors.jobs_of(self.request.user)

    # Reads are when a lost worker's jobs are noticed, so no one ever sees them "running" forever.
    @extend_schema(responses={200: JobListSerializer(many=True), 403: _NOT_SIGNED_IN, 404: _NO_SUCH_PAGE})
    def list(self, request: Request, *args, **kwargs) -> Response:
        runner.fail_stale_jobs()
        return super().list(request, *args, **kwargs)

    @extend_schema(responses={200: JobPollSerializer, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_JOB})
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        runner.fail_stale_jobs()
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        parameters=[OpenApiParameter("ids", str, description=(
            f"Comma-separated ids of your jobs (at most {MAX_STATUS_IDS}, else 400); ids that are not yours, or not "
            "ids, give nothing."))],
        responses={200: JobStatusListSerializer, 400: _INVALID, 403: _NOT_SIGNED_IN})
    @action(detail=False, methods=["get"], url_path="status", url_name="status")
    def statuses(self, request: Request) -> Response:
        """What a page of jobs polls while some are queued or running: each asked-for job's status, progress and
        standing (queue place, time run, estimate). Only your jobs answer."""
        parts = [part for part in request.query_params.get("ids", "").split(",") if part.strip()]
        if len(parts) > MAX_STATUS_IDS:
            raise ValidationError({"ids": [f"At most {MAX_STATUS_IDS} ids in one request; got {len(parts):,}."]})
        runner.fail_stale_jobs()
        ids = []
        for part in parts:
            try:
                ids.append(uuid.UUID(part.strip()))
            except ValueError:
                continue
        jobs = list(Job.objects.filter(owner_id=request.user.pk, id__in=ids).order_by("-created_at"))
        running = selectors.running_count() if any(job.status == Job.Status.QUEUED for job in jobs) else None
        context = {"request": request, "running": running}
        return Response({"jobs": JobStatusSerializer(jobs, many=True, context=context).data})

    def get_serializer_class(self):
        if self.action == "list":
            return JobListSerializer
        if self.action == "retrieve":
            return JobPollSerializer
        if self.action == "create":
            return JobCreateSerializer
        return JobSerializer

    @extend_schema(request=JobCreateSerializer, responses={
        201: JobSerializer, 400: _INVALID, 403: _NOT_SIGNED_IN, 415: _NOT_JSON,
        503: OpenApiResponse(description="The task broker did not answer: the job was created as failed, with the "
                                         "reason, and can be run again (detail, job)")})
    def create(self, request: Request) -> Response:
        serializer = JobCreateSerializer(data=request.data, context={"uploads": selectors.uploads_of(request.user)})
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        try:
            refuse_wrong_json_types(get_job_kind(serializer.validated_data["kind"]).params_serializer(),
                                    serializer.validated_data["params"])
            job = job_services.start_job(owner=request.user, **serializer.validated_data)
        except ValidationError as exc:
            raise ValidationError({"params": exc.detail}) from exc
        job = selectors.jobs_of(request.user).get(id=job.id)
        data = JobSerializer(job, context={"request": request}).data
        if job.status == Job.Status.FAILED:  # publishing failed: say so, rather than 201 for a job that never runs
            return Response({"detail": job.error, "job": data}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_JOB,
                              409: OpenApiResponse(description="The job is queued or running")})
    def destroy(self, request: Request, pk=None) -> Response:
        try:
            job_services.delete_job(self.get_object())
        except UserFacingError as exc:
            return Response({"detail": str(exc), "code": "job_active"}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: JobSerializer, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_JOB,
                                            409: OpenApiResponse(description="Job already ended")})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk=None) -> Response:
        job = self.get_object()
        if not job_services.cancel_job(job):
            return Response({"detail": gettext("The job has already ended (%(status)s).") % {"status": job.status},
                             "code": "job_ended"}, status=status.HTTP_409_CONFLICT)
        job.refresh_from_db()
        return Response(JobSerializer(job, context={"request": request}).data)

    @extend_schema(request=None, responses={200: JobSerializer, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_JOB,
                                            409: OpenApiResponse(description="Job not ended")})
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk=None) -> Response:
        job = self.get_object()
        try:
            requeued = job_services.retry_job(job)
        except UserFacingError as exc:
            return Response({"detail": str(exc), "code": "input_deleted"}, status=status.HTTP_409_CONFLICT)
        if not requeued:
            return Response({"detail": gettext("Only a failed or cancelled job can run again; this one is "
                                               "%(status)s.") % {"status": job.status}, "code": "job_not_ended"},
                            status=status.HTTP_409_CONFLICT)
        job.refresh_from_db()
        return Response(JobSerializer(job, context={"request": request}).data)

    # A result is served with its own content type (JSON, CSV, ...).
    @extend_schema(responses={(200, "*/*"): OpenApiTypes.BINARY, 403: _NOT_SIGNED_IN, 404: _NO_SUCH_JOB})
    @action(detail=True, methods=["get"], url_path=r"results/(?P<result_id>\d+)/download",
            url_name="result-download")
    def result_download(self, request: Request, pk=None, result_id=None) -> FileResponse:
        result = get_object_or_404(self.get_object().results, id=result_id)
        return file_download(result.file, result.name, result.content_type)


class JobKindListView(APIView):
    """The kinds of job this server runs, with their parameters."""

    @extend_schema(responses={200: JobKindSerializer(many=True), 403: _NOT_SIGNED_IN})
    def get(self, request: Request) -> Response:
        return Response(JobKindSerializer(job_kinds(), many=True).data)


class ObtainTokenView(ObtainAuthToken):
    """Exchange a username and password for your API token. Wrong passwords lock the username out from your
    address as the sign-in form does (django-axes), and attempts per address are rate-limited (AUTH_RATE)."""

    parser_classes = [BoundedJSONParser, FormParser, MultiPartParser]
    serializer_class = TokenRequestSerializer

    @extend_schema(auth=[{}], responses={
        200: AuthTokenSerializer,
        400: OpenApiResponse(description="Wrong username or password, or a field missing"),
        415: _NOT_JSON_OR_FORM,
        429: OpenApiResponse(description="Too many attempts from your address (AUTH_RATE), or this username locked "
                                         "from it after wrong passwords; retry after the Retry-After header")})
    def post(self, request: Request, *args, **kwargs) -> Response:
        refuse_wrong_json_types(self.get_serializer(data=request.data))
        data = request.data if hasattr(request.data, "get") else {}  # a JSON list or scalar: the serializer says 400
        if data.get("username") is not None:
            try:
                self.get_serializer().fields["username"].run_validation(data.get("username"))
            except ValidationError as exc:
                # Refused before django-axes looks the username up and records it: PostgreSQL holds no NUL in a
                # text, nor axes more than 255 characters of a username (both were 500s there).
                raise ValidationError({"username": exc.detail}) from None
        credentials = {"username": str(data.get("username", ""))}
        if AxesProxyHandler.is_locked(request._request, credentials):
            return lockout_response(request._request)
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            # This failure may be the one that reached the limit: say so now, not at the next attempt.
            if AxesProxyHandler.is_locked(request._request, credentials):
                return lockout_response(request._request)
            raise

