"""The crowdsourcing API: the participant's queue (next post, answer, undo) and, for staff, the campaigns.

The participant's queue is a plain Django view, not DRF: participants have no account, only the secret in their
session, and Django's CSRF middleware protects every POST of theirs (DRF checks CSRF for signed-in users only).
Its errors are JSON {"error": ...} with 400, 403 (not joined) or 405; GET next answers 409 with "wait" when every
post left is reserved by others, and 429 with "wait" (and Retry-After) when the participant's address holds its
share of the campaign's open reservations. POST answer answers 200 once the answer is stored, with "stored" (what
was stored) and the next post, or "wait" when none is free yet: never an error for a stored answer. A completion
code is in the first answer that says "done" and in none after it."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response

from anonymizer.crowd.web import selectors
from anonymizer.crowd.web import services as crowd
from anonymizer.crowd.web.exports import export_response
from anonymizer.crowd.web.serializers import CampaignSerializer
from anonymizer.crowd.web.views import campaign_or_404, in_campaign_language, participant_of
from anonymizer.location.model import LocationModel
from anonymizer.location.release import remove_spans
from anonymizer.models import Assignment, Campaign, Participant, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.api_input import loads_bounded, refuse_wrong_json_types
from anonymizer.platform.errors import UserFacingError

LANGUAGE_CODES = [code for code, _ in settings.LANGUAGES]


def _progress(participant: Participant) -> dict:
    return {"answered": participant.judgments.count(), "cap": participant.campaign.per_participant_cap}


def _payload(participant: Participant, assignment: Assignment | None, error: str = "") -> dict:
    """What the participant's page needs: their next post (never its kind or anyone's answers) and progress."""
    campaign = participant.campaign
    out = {"progress": _progress(participant), "error": error}
    if assignment is None:
        participant.refresh_from_db(fields=["completed_at", "completion_code", "flagged_reason"])
        code = crowd.reveal_code(participant)  # once: every later "done" tells when it was shown instead
        message = "" if code else crowd.done_message(participant)
        # A session ended by the checks is said to have ended, not thanked as if it had completed.
        return {**out, "done": True, "completion_code": code, "message": message,
                "heading": gettext("Your session has ended") if participant.flagged_reason else gettext("Thank you!")}
    post = {"id": assignment.post_id, "text": assignment.post.text}
    if campaign.task == Campaign.Task.DEIDENTIFY:
        model = artifacts.load(campaign.location_model, LocationModel.load)
        post["tokens"] = [{"text": t.text, "start": t.start, "end": t.end, "deletable": t.deletable}
                          for t in model.tokenize(assignment.post.text)]
    return {**out, "done": False, "post": post, "expires_at": assignment.expires_at.isoformat()}


@require_http_methods(["GET", "POST"])
@in_campaign_language
def participant_api(request: HttpRequest, token: str, action: str) -> JsonResponse:
    """The participant's queue: GET next, POST answer, POST undo (JSON)."""
    campaign = campaign_or_404(token)
    participant = participant_of(request, campaign)
    if participant is None:
        return JsonResponse({"error": gettext("Join the campaign first.")}, status=403)
    try:
        if action == "next" and request.method == "GET":
            return JsonResponse(_payload(participant, crowd.next_assignment(participant)))
        if action == "answer" and request.method == "POST":
            stored = _answer(participant, campaign, _json(request))
            try:
                following = _payload(participant, crowd.next_assignment(participant))
            except crowd.QueueWait as wait:  # the answer is stored all the same: 200, and when to ask again
                following = {"wait": wait.seconds, "error": str(wait), "done": False,
                             "progress": _progress(participant)}
            except UserFacingError as exc:
                following = {"error": str(exc), "done": False, "progress": _progress(participant)}
            return JsonResponse({"stored": stored, **following})
        if action == "undo" and request.method == "POST":
            return JsonResponse(_payload(participant, crowd.undo(participant)))
    except crowd.QueueWait as wait:
        response = JsonResponse({"wait": wait.seconds, "error": str(wait), "done": False},
                                status=429 if isinstance(wait, crowd.AddressWait) else 409)
        response["Retry-After"] = str(wait.seconds)
        return response
    except UserFacingError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return JsonResponse({"error": gettext("Unknown action %(action)s for %(method)s.") % {
        "action": repr(action), "method": request.method}}, status=405)


def _json(request: HttpRequest) -> dict:
    try:
        body = loads_bounded(request.body or b"{}")
    except ValueError as exc:  # not JSON, or nested too deep to read safely
        raise UserFacingError(gettext("The request body is not JSON.")) from exc
    if not isinstance(body, dict):
        raise UserFacingError(gettext("The request body must be a JSON object."))
    return body


def _answer(participant: Participant, campaign: Campaign, body: dict) -> dict:
    """Store the participant's answer; returns what was stored (their own answer only)."""
    try:
        post_id = int(body.get("post"))
    except (TypeError, ValueError):
        raise UserFacingError(gettext("post: expected the id of the post you were served.")) from None
    given, deleted, text_after = body.get("answer"), None, ""
    if given is not None and not isinstance(given, bool):
        raise UserFacingError(gettext("answer: expected true or false."))
    if campaign.task == Campaign.Task.DEIDENTIFY:
        assignment = participant.assignments.select_related("post").filter(post_id=post_id).first()
        if assignment is None:
            raise UserFacingError(gettext("This post was not served to you."))
        tokens = artifacts.load(campaign.location_model, LocationModel.load).tokenize(assignment.post.text)
        deleted = body.get("deleted")
        if not isinstance(deleted, list) or not all(isinstance(i, int) and 0 <= i < len(tokens) for i in deleted):
            raise UserFacingError(gettext("deleted: expected the indices of the words you struck."))
        if any(not tokens[i].deletable for i in deleted):
            raise UserFacingError(gettext("deleted: punctuation and symbols cannot be struck."))
        deleted = sorted(set(deleted))
        text_after = remove_spans(assignment.post.text, [tokens[i] for i in deleted])
    coordinates = [body.get("latitude"), body.get("longitude")]
    if any(c is not None and (isinstance(c, bool) or not isinstance(c, int | float)) for c in coordinates):
        raise UserFacingError(gettext("latitude/longitude: expected numbers."))
    judgment = crowd.answer(participant, post_id, answer=given, latitude=coordinates[0], longitude=coordinates[1],
                            deleted_tokens=deleted, text_after=text_after)
    return {"post": post_id, "answer": judgment.answer, "deleted": judgment.deleted_tokens,
            "latitude": judgment.clicked_latitude, "longitude": judgment.clicked_longitude}


# The answers besides success (for the API schema, which clients and the hostile-input suite check against).
_NOT_STAFF = OpenApiResponse(description="Not signed in, the token is invalid, or not a staff user")
_NO_SUCH_CAMPAIGN = OpenApiResponse(description="No campaign of yours has this id (or no such export)")


@extend_schema_view(
    list=extend_schema(responses={200: CampaignSerializer(many=True), 403: _NOT_STAFF,
                                  404: OpenApiResponse(description="No such page of the list")}),
    retrieve=extend_schema(responses={200: CampaignSerializer, 403: _NOT_STAFF, 404: _NO_SUCH_CAMPAIGN}),
)
class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your crowdsourcing campaigns (staff users only): create one, follow it, export its answers."""

    serializer_class = CampaignSerializer
    permission_classes = [IsAdminUser]

    def get_queryset(self):
        return selectors.campaigns_of(self.request.user).select_related("location_model")

    @extend_schema(responses={201: CampaignSerializer, 403: _NOT_STAFF,
                              400: OpenApiResponse(description="Invalid input: the field at fault and why"),
                              415: OpenApiResponse(description="The body is not JSON (Content-Type)")})
    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        refuse_wrong_json_types(serializer)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        model_ref = data.pop("location_model", None)
        record = None
        if model_ref:
            try:
                record = artifacts.resolve(TrainedLocationModel, request.user, model_ref, what="model")
            except LookupError as exc:
                raise ValidationError({"location_model": [str(exc)]}) from exc
        posts = [crowd.PostSpec(p["text"], p["kind"], p["gold"], p["id"], p["lat"], p["lon"])
                 for p in data.pop("posts", [])]
        sample, attention = data.pop("sample", None), data.pop("attention_checks")
        try:
            if sample:
                if record is None:
                    raise UserFacingError(gettext("Sampling posts needs a location model."))
                posts += crowd.posts_from_corpus(record, sample)
            # The participants' pages and checks are in the campaign's language; unless given, the model's (a
            # Japanese model's posts are Japanese), else English.
            data.setdefault("language", record.language if record and record.language in LANGUAGE_CODES else "en")
            posts += crowd.attention_checks(data["language"], attention)
            campaign = crowd.create_campaign(owner=request.user, posts=posts, location_model=record, **data)
        except crowd.CampaignSettingsError as exc:  # the checks could not hold: said at the setting at fault
            raise ValidationError({exc.field: [str(exc)]}) from exc
        except UserFacingError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        return Response(self.get_serializer(campaign).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiResponse(description="Progress, agreement and participants"),
                              403: _NOT_STAFF, 404: _NO_SUCH_CAMPAIGN})
    @action(detail=True, methods=["get"])
    def report(self, request: Request, pk=None) -> Response:
        report = selectors.campaign_report(self.get_object())
        return Response({key: report[key] for key in ("posts", "judgments_wanted", "judgments_done", "progress",
                                                      "flagged", "alpha")}
                        | {"participants": len(report["participants"])})

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, (200, "application/x-ndjson"): OpenApiTypes.STR,
                              403: _NOT_STAFF, 404: _NO_SUCH_CAMPAIGN})
    @action(detail=True, methods=["get"],
            url_path=r"export/(?P<what>judgments|aggregates|participants)\.(?P<fmt>csv|jsonl)",
            url_name="export")
    def export(self, request: Request, pk=None, what: str = "", fmt: str = "") -> HttpResponse:
        return export_response(self.get_object(), what, fmt)
