"""Crowdsourcing pages: participants (no account, a campaign link and a session) and the staff dashboard.

A participant is known only by the secret kept in their session; every endpoint answers about that
participant alone, so nobody ever sees another participant's answers.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from anonymizer import selectors
from anonymizer.crowd_export import export_response
from anonymizer.forms import CampaignForm
from anonymizer.jobkinds import UserFacingError
from anonymizer.location.model import remove_spans
from anonymizer.models import Assignment, Campaign, Participant
from anonymizer.services import crowd
from anonymizer.services import jobs as job_services
from anonymizer.tabular import CsvFormatError


def _session_key(campaign: Campaign) -> str:
    return f"crowd-participant-{campaign.id}"


def _campaign_or_404(token: str) -> Campaign:
    campaign = selectors.open_campaign(token)
    if campaign is None:
        raise Http404("No such campaign.")
    return campaign


def _participant(request: HttpRequest, campaign: Campaign) -> Participant | None:
    return selectors.participant_in(campaign, request.session.get(_session_key(campaign)))


# -- participant pages ------------------------------------------------------------------------------------------
@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The campaign's instructions and consent; agreeing makes a pseudonymous participant."""
    campaign = _campaign_or_404(token)
    participant = _participant(request, campaign)
    if request.method == "POST":
        if request.POST.get("consent") != "yes":
            messages.error(request, "Please tick the consent box to take part.")
        else:
            try:
                participant = participant or crowd.join(campaign)
            except UserFacingError as exc:
                messages.error(request, str(exc))
            else:
                crowd.consent(participant)
                request.session[_session_key(campaign)] = participant.secret
                return redirect("crowd-task", token=token)
    elif participant is not None and participant.consented_at is not None:
        return redirect("crowd-task", token=token)
    return render(request, "crowd/join.html", {"campaign": campaign})


@require_GET
@ensure_csrf_cookie
def task(request: HttpRequest, token: str) -> HttpResponse:
    campaign = _campaign_or_404(token)
    participant = _participant(request, campaign)
    if participant is None or participant.consented_at is None:
        return redirect("crowd-join", token=token)
    grid = None
    if campaign.ask_location and campaign.location_model is not None:
        grid = campaign.location_model.metadata["grid"]
    config = {"api": {action: reverse("crowd-api", args=[token, action]) for action in ("next", "answer", "undo")},
              "task": campaign.task, "askLocation": campaign.ask_location, "grid": grid,
              "cap": campaign.per_participant_cap}
    return render(request, "crowd/task.html", {"campaign": campaign, "config": config})


def _payload(participant: Participant, assignment: Assignment | None, error: str = "") -> dict:
    """What the participant's page needs: their next post (never its kind or anyone's answers) and progress."""
    campaign = participant.campaign
    answered = participant.judgments.count()
    out = {"progress": {"answered": answered, "cap": campaign.per_participant_cap}, "error": error}
    if assignment is None:
        participant.refresh_from_db(fields=["completed_at", "completion_code"])
        return {**out, "done": True, "completion_code": participant.completion_code}
    post = {"id": assignment.post_id, "text": assignment.post.text}
    if campaign.task == Campaign.Task.DEIDENTIFY:
        model = selectors.load_location_model(campaign.location_model)
        post["tokens"] = [{"text": t.text, "start": t.start, "end": t.end, "deletable": t.deletable}
                          for t in model.tokenize(assignment.post.text)]
    return {**out, "done": False, "post": post, "expires_at": assignment.expires_at.isoformat()}


@require_http_methods(["GET", "POST"])
def api(request: HttpRequest, token: str, action: str) -> JsonResponse:
    """The participant's queue: GET next, POST answer, POST undo (JSON)."""
    campaign = _campaign_or_404(token)
    participant = _participant(request, campaign)
    if participant is None:
        return JsonResponse({"error": "Join the campaign first."}, status=403)
    try:
        if action == "next" and request.method == "GET":
            return JsonResponse(_payload(participant, crowd.next_assignment(participant)))
        if action == "answer" and request.method == "POST":
            body = _json(request)
            _answer(participant, campaign, body)
            return JsonResponse(_payload(participant, crowd.next_assignment(participant)))
        if action == "undo" and request.method == "POST":
            return JsonResponse(_payload(participant, crowd.undo(participant)))
    except crowd.QueueWait as wait:
        return JsonResponse({"wait": wait.seconds, "error": str(wait), "done": False}, status=409)
    except UserFacingError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return JsonResponse({"error": f"Unknown action {action!r} for {request.method}."}, status=405)


def _json(request: HttpRequest) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError as exc:
        raise UserFacingError("The request body is not JSON.") from exc
    if not isinstance(body, dict):
        raise UserFacingError("The request body must be a JSON object.")
    return body


def _answer(participant: Participant, campaign: Campaign, body: dict) -> None:
    try:
        post_id = int(body.get("post"))
    except (TypeError, ValueError):
        raise UserFacingError("post: expected the id of the post you were served.") from None
    given, deleted, text_after = body.get("answer"), None, ""
    if given is not None and not isinstance(given, bool):
        raise UserFacingError("answer: expected true or false.")
    if campaign.task == Campaign.Task.DEIDENTIFY:
        assignment = participant.assignments.select_related("post").filter(post_id=post_id).first()
        if assignment is None:
            raise UserFacingError("This post was not served to you.")
        tokens = selectors.load_location_model(campaign.location_model).tokenize(assignment.post.text)
        deleted = body.get("deleted")
        if not isinstance(deleted, list) or not all(isinstance(i, int) and 0 <= i < len(tokens) for i in deleted):
            raise UserFacingError("deleted: expected the indices of the words you struck.")
        if any(not tokens[i].deletable for i in deleted):
            raise UserFacingError("deleted: punctuation and symbols cannot be struck.")
        deleted = sorted(set(deleted))
        text_after = remove_spans(assignment.post.text, [tokens[i] for i in deleted])
    coordinates = [body.get("latitude"), body.get("longitude")]
    if any(c is not None and (isinstance(c, bool) or not isinstance(c, int | float)) for c in coordinates):
        raise UserFacingError("latitude/longitude: expected numbers.")
    crowd.answer(participant, post_id, answer=given, latitude=coordinates[0], longitude=coordinates[1],
                 deleted_tokens=deleted, text_after=text_after)


# -- staff pages ------------------------------------------------------------------------------------------------
def _staff(request: HttpRequest) -> None:
    if not request.user.is_staff:
        raise PermissionDenied("Campaigns are run by staff users.")


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    _staff(request)
    return render(request, "crowd/list.html", {"campaigns": selectors.campaigns_of(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    _staff(request)
    form = CampaignForm(request.POST or None, request.FILES or None,
                        location_models=selectors.location_models_for(request.user))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            if data["posts_file"]:
                posts = crowd.posts_from_csv(data["posts_file"], text_column=data["text_column"] or "text")
            else:
                posts = crowd.posts_from_corpus(data["location_model"], data["sample_size"])
            model = data["location_model"]
            posts += crowd.attention_checks(model.language if model else "en", data["attention_checks"])
            campaign = crowd.create_campaign(owner=request.user, posts=posts, **form.campaign_fields())
        except CsvFormatError as exc:
            form.add_error("posts_file", str(exc))
        except UserFacingError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Campaign “{campaign.name}” is open with {campaign.posts.count()} posts.")
            return redirect("campaign-detail", campaign_id=campaign.id)
    return render(request, "crowd/new.html", {"form": form})


@login_required
@require_GET
def campaign_detail(request: HttpRequest, campaign_id) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user), id=campaign_id)
    report = selectors.campaign_report(campaign)
    join_url = request.build_absolute_uri(reverse("crowd-join", args=[campaign.join_token]))
    jobs = selectors.jobs_of(request.user).filter(params__campaign=str(campaign.id))[:10]
    return render(request, "crowd/detail.html", {"campaign": campaign, "report": report, "join_url": join_url,
                                                 "aggregates": report["aggregates"][:200], "jobs": jobs})


@login_required
@require_POST
def campaign_action(request: HttpRequest, campaign_id, action: str) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user), id=campaign_id)
    if action == "close":
        crowd.close_campaign(campaign)
        messages.success(request, "The campaign is closed; its link no longer admits participants.")
        return redirect("campaign-detail", campaign_id=campaign.id)
    if action in ("train_human_model", "calibrate_threshold", "machine_human_table"):
        job = job_services.create_job(owner=request.user, kind=action, params={"campaign": str(campaign.id)})
        return redirect("job-detail", job_id=job.id)
    raise Http404("Unknown action.")


@login_required
@require_GET
def campaign_export(request: HttpRequest, campaign_id, what: str, fmt: str) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user), id=campaign_id)
    return export_response(campaign, what, fmt)
