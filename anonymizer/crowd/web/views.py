"""Crowdsourcing pages: participants (no account, a campaign link and a session) and the staff dashboard.

A participant is known only by the secret kept in their session; every page answers about that participant
alone, so nobody ever sees another participant's answers. The participant's queue (next, answer, undo) is
``api.participant_api``. Joining is limited per client address (CROWD_JOIN_RATE), and a long-lived browser
cookie tells a fresh session of a browser that joined before from a new browser.
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext, pgettext_lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods
from django.views.i18n import JavaScriptCatalog

from anonymizer.crowd import quality
from anonymizer.crowd.stats import Label
from anonymizer.crowd.web import selectors
from anonymizer.crowd.web import services as crowd
from anonymizer.crowd.web.exports import export_response
from anonymizer.crowd.web.forms import CampaignForm
from anonymizer.crowd.web.gold_chart import GoldRow, gold_accuracy_chart
from anonymizer.crowd.web.jobs import CAMPAIGN_JOBS
from anonymizer.crowd.web.strike_report import geography_config, map_answers, strike_report
from anonymizer.models import Campaign, Participant, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.charts import interval_chart
from anonymizer.platform.confirm import Confirmation, confirmation_page, confirmed
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.selectors import jobs_of
from anonymizer.platform.throttles import AddressRateThrottle, client_address
from anonymizer.tabular import CsvFormatError

#: The cookie that outlives a browser's sessions: a random token, stored only as a keyed hash per campaign.
BROWSER_COOKIE = "kakurega_browser"
BROWSER_COOKIE_DAYS = 365
_BROWSER_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")


class JoinThrottle(AddressRateThrottle):
    """CROWD_JOIN_RATE joins per client address, across campaigns: a script cannot mint participants."""

    scope = "crowd-join"

    def rate_for(self, request) -> str:
        return settings.CROWD_JOIN_RATE


def _session_key(campaign: Campaign) -> str:
    return f"crowd-participant-{campaign.id}"


def campaign_or_404(token: str) -> Campaign:
    campaign = selectors.open_campaign(token)
    if campaign is None:
        raise Http404("No such campaign.")
    return campaign


def participant_of(request: HttpRequest, campaign: Campaign) -> Participant | None:
    return selectors.participant_in(campaign, request.session.get(_session_key(campaign)))


# -- participant pages ------------------------------------------------------------------------------------------
def in_campaign_language(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A participant's page or answer in the campaign's language (Campaign.language, chosen by its owner), whatever
    the browser's Accept-Language, the language cookie or a signed-in user's choice say. The view's ``token`` names
    the campaign; an unknown one is answered in the request's language (its 404 knows no campaign)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, token: str, *args, **kwargs) -> HttpResponse:
        language = Campaign.objects.filter(join_token=token).values_list("language", flat=True).first()
        if language not in dict(settings.LANGUAGES):
            return view(request, token, *args, **kwargs)
        with translation.override(language):
            request.LANGUAGE_CODE = language
            response = view(request, token, *args, **kwargs)
        response.headers["Content-Language"] = language  # LocaleMiddleware keeps it (setdefault)
        return response

    return wrapped


@require_GET
@in_campaign_language
def js_catalog(request: HttpRequest, token: str) -> HttpResponse:
    """The scripts' texts (Django's JavaScript catalog) in the campaign's language, for the participant's pages:
    /i18n/catalog.js answers in the browser's language."""
    return JavaScriptCatalog.as_view()(request)


def _browser_token(request: HttpRequest) -> str:
    """The browser's long-lived token from its cookie, or a new one (then ``_keep_browser_token`` sets it)."""
    token = request.COOKIES.get(BROWSER_COOKIE, "")
    return token if _BROWSER_TOKEN.fullmatch(token) else secrets.token_urlsafe(24)


def _keep_browser_token(request: HttpRequest, response: HttpResponse, token: str) -> HttpResponse:
    if request.COOKIES.get(BROWSER_COOKIE) != token:
        response.set_cookie(BROWSER_COOKIE, token, max_age=BROWSER_COOKIE_DAYS * 86_400, path="/p/",
                            secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax")
    return response


def _too_many_joins(request: HttpRequest, campaign: Campaign, wait: float | None) -> HttpResponse:
    minutes = max(1, round((wait or 60) / 60))
    response = render(request, "crowd/too_many_joins.html", {"wait_minutes": minutes, "campaign": campaign},
                      status=429)
    response["Retry-After"] = str(int(wait or 60) + 1)
    return response


@require_http_methods(["GET", "POST"])
@in_campaign_language
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The campaign's instructions and consent; agreeing makes a pseudonymous participant, or, for a session that
    joined already, gives back what it reserved and starts its next post afresh."""
    campaign = campaign_or_404(token)
    participant = participant_of(request, campaign)
    browser = _browser_token(request)
    if request.method == "POST":
        throttle = JoinThrottle()
        if not throttle.allow_request(request, None):
            return _too_many_joins(request, campaign, throttle.wait())
        if request.POST.get("consent") != "yes":
            messages.error(request, gettext("Please tick the consent box to take part."))
        else:
            try:
                if participant is None:
                    participant = crowd.join(campaign, address=client_address(request), browser=browser)
                else:
                    crowd.rejoin(participant)
            except UserFacingError as exc:
                messages.error(request, str(exc))
            else:
                crowd.consent(participant)
                request.session[_session_key(campaign)] = participant.secret
                return _keep_browser_token(request, redirect("crowd-task", token=token), browser)
    elif participant is not None and participant.consented_at is not None:
        return redirect("crowd-task", token=token)
    # A newcomer to a campaign with every answer it needs is told so, not signed up for a code-less session.
    full = participant is None and not selectors.still_asked(campaign).exists()
    return _keep_browser_token(request, render(request, "crowd/join.html", {
        "campaign": campaign, "full": full, "full_message": crowd.FULL_CAMPAIGN}), browser)


@require_GET
@ensure_csrf_cookie
@in_campaign_language
def task(request: HttpRequest, token: str) -> HttpResponse:
    campaign = campaign_or_404(token)
    participant = participant_of(request, campaign)
    if participant is None or participant.consented_at is None:
        return redirect("crowd-join", token=token)
    grid, geography = None, None
    if campaign.ask_location and campaign.location_model is not None:
        grid = campaign.location_model.metadata["grid"]
        geography = geography_config(grid)
    config = {"api": {action: reverse("crowd-api", args=[token, action]) for action in ("next", "answer", "undo")},
              "task": campaign.task, "askLocation": campaign.ask_location, "grid": grid, "geography": geography,
              "cap": campaign.per_participant_cap}
    return render(request, "crowd/task.html", {"campaign": campaign, "config": config})


# -- staff pages ------------------------------------------------------------------------------------------------
def _staff(request: HttpRequest) -> None:
    if not request.user.is_staff:
        raise PermissionDenied(gettext("Campaigns are run by staff users."))


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    _staff(request)
    return render(request, "crowd/list.html", {"campaigns": selectors.campaigns_of(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    _staff(request)
    form = CampaignForm(request=request, location_models=artifacts.usable_by(TrainedLocationModel, request.user))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            if data["posts_file"]:
                posts = crowd.posts_from_csv(data["posts_file"], text_column=data["text_column"] or "text")
            else:
                posts = crowd.posts_from_corpus(data["location_model"], data["sample_size"])
            # The checks speak the participants' language: the campaign's.
            posts += crowd.attention_checks(data["language"], data["attention_checks"])
            campaign = crowd.create_campaign(owner=request.user, posts=posts, **form.campaign_fields())
        except CsvFormatError as exc:
            form.add_error("posts_file", str(exc))
        except crowd.CampaignSettingsError as exc:  # the checks could not hold: said at the setting at fault
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        except UserFacingError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, gettext("Campaign “%(name)s” is open with %(posts)s posts.") % {
                "name": campaign.name, "posts": campaign.posts.count()})
            for warning in crowd.campaign_warnings(campaign):
                messages.warning(request, warning)
            return redirect("campaign-detail", campaign_id=campaign.id)
    return render(request, "crowd/new.html", {"form": form})


@login_required
@require_GET
def campaign_detail(request: HttpRequest, campaign_id) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user), id=campaign_id)
    report = selectors.campaign_report(campaign)
    join_url = request.build_absolute_uri(reverse("crowd-join", args=[campaign.join_token]))
    jobs = jobs_of(request.user).filter(params__campaign=str(campaign.id))[:10]
    aggregates = report["aggregates"][:200]
    rows = selectors.yes_rate_rows(report, aggregates)
    # interval_chart escapes every text it writes, so its SVG is safe to embed.
    chart = mark_safe(interval_chart(rows, cutoff=campaign.cutoff,
                                     title=gettext("Can people tell where? Yes-rate per post"))
                      ) if aggregates and campaign.task == Campaign.Task.INFERABLE else ""
    texts = [report["texts"].get(str(a.post), "") for a in aggregates]  # each post's text, beside its numbers
    strikes = strike_report(campaign) if campaign.task == Campaign.Task.DEIDENTIFY else None
    answers_map = map_answers(campaign) if campaign.ask_location else None
    ids = [report["external_ids"].get(str(a.post), "") for a in aggregates]
    items, plan = selectors.check_items(campaign), selectors.check_plan(campaign)
    # gold_accuracy_chart escapes every text it writes, so its SVG is safe to embed.
    gold_chart = mark_safe(gold_accuracy_chart(
        [GoldRow(str(p["id"])[:8], p["gold_correct"], p["gold_answered"], bool(p["flagged_reason"]))
         for p in report["participants"][:200]],
        min_accuracy=plan.min_accuracy, judged_after=plan.judged_after)) if plan.gold else ""
    for participant in report["participants"]:
        participant["flag_text"] = flag_text(participant["flagged_reason"])
    return render(request, "crowd/detail.html", {
        "campaign": campaign, "report": report, "join_url": join_url, "aggregates": aggregates, "jobs": jobs,
        "chart": chart, "aggregate_rows": list(zip(aggregates, texts, ids, [label_name(a.label) for a in aggregates],
                                                   strict=True)),
        "label_counts": [(label_name(label), count) for label, count in report["labels"].items()],
        "actions": selectors.campaign_actions(campaign, report), "strikes": strikes, "map_answers": answers_map,
        "checks": [crowd.said(line) for line in quality.describe_checks(plan, items, campaign.min_answers_for_code)],
        "plan": plan,
        "gold_chart": gold_chart})


#: What the answers decide about a post, as the dashboard says it (the values stay the exports' and the API's).
LABEL_NAMES = {Label.INFERABLE: pgettext_lazy("crowd label", "human-inferable"),
               Label.NOT_INFERABLE: pgettext_lazy("crowd label", "not human-inferable"),
               Label.UNDECIDED: pgettext_lazy("crowd label", "undecided"),
               Label.NO_ANSWERS: pgettext_lazy("crowd label", "no answers")}


def label_name(label: str) -> str:
    return str(LABEL_NAMES.get(label, label))


#: A participant's stored flag (anonymizer.crowd.stats.flag_participants, English: it is exported as it is), each of
#: its parts as the dashboard says it.
_FLAG_PARTS = [
    (re.compile(r"failed an attention check"), gettext_noop("failed an attention check")),
    (re.compile(r"failed (?P<count>\d+) attention checks"), gettext_noop("failed %(count)s attention checks")),
    (re.compile(r"gold accuracy (?P<correct>\d+) of (?P<answered>\d+) \((?P<share>[\d.]+%)\) is below "
                r"(?P<minimum>[\d.]+%)"),
     gettext_noop("gold accuracy %(correct)s of %(answered)s (%(share)s) is below %(minimum)s")),
]


def flag_text(reason: str) -> str:
    """A stored flag reason in the page's language (a part it does not know stays as stored)."""
    said = []
    for part in reason.split("; ") if reason else []:
        for pattern, template in _FLAG_PARTS:
            if found := pattern.fullmatch(part):
                said.append(gettext(template) % found.groupdict())
                break
        else:
            said.append(part)
    return pgettext("list separator", "; ").join(said)


# Actions that stop participants or change a model others use: a confirmation page first (a GET, or a POST
# without confirm=yes); the other actions (reopen, the table) are one click.
CONFIRMED_ACTIONS = ("close", "train_human_model", "calibrate_threshold")


def _campaign_confirmation(campaign: Campaign, action: str) -> Confirmation:
    """What the action does, said on its confirmation page."""
    url = reverse("campaign-action", args=[campaign.id, action])
    back = reverse("campaign-detail", args=[campaign.id])
    if action == "close":
        counts = selectors.campaign_counts(campaign)
        return Confirmation(
            title=gettext("Close “%(name)s”?") % {"name": campaign.name}, action_url=url,
            confirm_label=gettext("Close the campaign"), cancel_url=back, back_label=gettext("Go back, change nothing"),
            lines=[ngettext("Its link stops admitting participants at once; the %(count)s participant who joined and "
                            "has not finished can no longer answer.",
                            "Its link stops admitting participants at once; the %(count)s participants who joined "
                            "and have not finished can no longer answer.",
                            counts["unfinished"]) % {"count": f"{counts['unfinished']:,}"},
                   ngettext("Nothing is deleted: the %(count)s answer so far, the exports and the jobs stay.",
                            "Nothing is deleted: the %(count)s answers so far, the exports and the jobs stay.",
                            counts["answers"]) % {"count": f"{counts['answers']:,}"}],
            undo=gettext("You can reopen it from its page; participants then carry on where they were."))
    model = campaign.location_model
    named = f"“{model.name}”" if model is not None else gettext("(none)")
    if action == "train_human_model":
        return Confirmation(
            title=gettext("Train the human-inferability classifier on “%(name)s”?") % {"name": campaign.name},
            action_url=url, confirm_label=gettext("Train the classifier"), cancel_url=back, danger=False,
            back_label=gettext("Go back, change nothing"),
            lines=[gettext("A classifier is trained from this campaign's decided posts (undecided ones have no "
                           "label) beside the location model %(model)s and saved unused: nothing anybody uses "
                           "changes.") % {"model": named},
                   gettext("Its job page then offers to use it, when the location model is yours; beside a built-in "
                           "model only the operator switches (manage.py promote_model_version).")],
            undo=gettext("Nothing to undo: the classifier in use now stays in use."))
    sample = selectors.calibration_sample(campaign)
    return Confirmation(
        title=gettext("Calibrate the threshold of %(model)s from “%(name)s”?") % {"model": named,
                                                                                 "name": campaign.name},
        action_url=url, confirm_label=gettext("Calibrate"), cancel_url=back, danger=False,
        back_label=gettext("Go back, change nothing"),
        lines=[gettext("A new version of the location model is saved, yours and unused, with the threshold "
                       "calibrated from %(texts)s hand de-identifications of %(posts)s posts (each by at least "
                       "%(participants)s participants who were not flagged) and its 95%% interval.") % {
                   "texts": f"{len(sample['texts']):,}", "posts": f"{sample['posts']:,}",
                   "participants": sample["need_participants"]},
               gettext("Nothing anybody uses changes: the job page then offers to use it for you; a built-in default "
                       "changes only by the operator's command (manage.py promote_model_version).")],
        undo=gettext("Nothing to undo: the version in use now stays in use."))


def _offered(campaign: Campaign) -> tuple[str, ...]:
    if campaign.task == Campaign.Task.INFERABLE:
        return ("train_human_model", "machine_human_table")
    return ("calibrate_threshold",)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_action(request: HttpRequest, campaign_id, action: str) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user).select_related("location_model"),
                                 id=campaign_id)
    if action not in ("close", "reopen", *CAMPAIGN_JOBS):
        raise Http404(gettext("Unknown action."))
    if action in CAMPAIGN_JOBS:  # offered only when it can run; a stale page or a hand-made request is told why
        reason = next(a["reason"] for a in selectors.campaign_actions(campaign, selectors.campaign_report(campaign))
                      if a["action"] == action) if action in _offered(campaign) \
            else gettext("It does not apply to this task.")
        if reason:
            messages.error(request, gettext("This cannot run yet: %(reason)s") % {"reason": reason})
            return redirect("campaign-detail", campaign_id=campaign.id)
    if action in CONFIRMED_ACTIONS and not confirmed(request):
        return confirmation_page(request, _campaign_confirmation(campaign, action))
    if request.method != "POST":
        return redirect("campaign-detail", campaign_id=campaign.id)
    if action == "close":
        crowd.close_campaign(campaign)
        messages.success(request, gettext("The campaign is closed; its link no longer admits participants. "
                                          "Reopen it to let them carry on."))
        return redirect("campaign-detail", campaign_id=campaign.id)
    if action == "reopen":
        crowd.reopen_campaign(campaign)
        messages.success(request, gettext("The campaign is open again; its link admits participants."))
        return redirect("campaign-detail", campaign_id=campaign.id)
    job = job_services.start_job(owner=request.user, kind=action, params={"campaign": str(campaign.id)})
    return redirect("job-detail", job_id=job.id)


@login_required
@require_GET
def campaign_export(request: HttpRequest, campaign_id, what: str, fmt: str) -> HttpResponse:
    _staff(request)
    campaign = get_object_or_404(selectors.campaigns_of(request.user), id=campaign_id)
    return export_response(campaign, what, fmt)
