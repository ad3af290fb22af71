"""Writes for crowdsourcing campaigns: create a campaign, admit participants, serve posts from the queue,
record and undo answers, flag participants by their gold answers.

The queue serves each participant the regular post with the fewest valid answers (counting live reservations
of others), undecided posts first, in the participant's own random order; it serves every participant the check
items of the campaign's plan (``anonymizer.crowd.quality``: its gold posts up to the number gold accuracy is
judged on and every attention check, asking Yes and asking No), the first of each kind within their first
``checks_within`` items, and mixes in more at the campaign's gold share. A
post is never served twice to one participant (a database constraint on Assignment), and a regular post never
gets more than the wanted number of valid answers: the post row is locked while its load is re-counted. With
sequential stopping a post leaves the queue once its Wilson interval clears the cut-off (after at least
``min_judgments_per_post`` answers). A flagged participant's answers stop counting and their posts go back to
the queue; a completion code needs ``min_answers_for_code`` answered regular posts and every check of the plan
met, with the flag decided at that moment (so a careless participant is flagged before a code), and is shown
once, to its participant's session.

A campaign link is public, so one client address may hold only a bounded share of the campaign's open
reservations (``AddressLimits``; the join page also limits joins per address), and a browser that starts a fresh
session gives back what its earlier one reserved; a fresh session from a flagged participant's browser (or
address) is marked for the staff.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, IntegerField, Min, Q, QuerySet, Value, When
from django.utils import formats, timezone
from django.utils.translation import gettext, gettext_lazy

from anonymizer.crowd import quality
from anonymizer.crowd.limits import AddressLimits
from anonymizer.crowd.stats import decide
from anonymizer.crowd.web.selectors import DECIDED, answers_needed, check_plan, decided_enough, still_asked
from anonymizer.models import Assignment, Campaign, CampaignPost, Judgment, Participant, TrainedLocationModel
from anonymizer.platform import locks
from anonymizer.platform.errors import UserFacingError

logger = logging.getLogger(__name__)
Kind = CampaignPost.Kind
#: Posts one campaign may hold (uploaded, sent to the API or sampled), besides its attention checks.
MAX_CAMPAIGN_POSTS = 10_000
MAX_ATTENTION_CHECKS = 20
#: Attention checks a new campaign gets unless told (half ask Yes, half No): with the Campaign table's gold
#: defaults they meet the goals of bench/bench_crowd_quality.py (issue 43).
DEFAULT_ATTENTION_CHECKS = 8
FULL_CAMPAIGN = gettext_lazy("This campaign has all the answers it needs, so it takes nobody new and gives no "
                              "completion code. Thank you for your interest.")


class CampaignSettingsError(UserFacingError):
    """A new campaign's settings under which its checks cannot hold; ``field`` is the setting at fault."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class QueueWait(UserFacingError):
    """Every post left for this participant is reserved by others right now; ask again shortly."""

    def __init__(self, seconds: int) -> None:
        super().__init__(gettext("The remaining posts are being answered by others; try again in %(seconds)s "
                                 "seconds.") % {"seconds": seconds})
        self.seconds = seconds


class AddressWait(QueueWait):
    """The participant's client address already holds its share of the campaign's open reservations (others
    from the same network are answering, or one address floods the link); ask again shortly."""

    #: Longest wait asked for: the address's reservations usually end in an answer well before they expire.
    MOST_SECONDS = 15

    def __init__(self, seconds: int) -> None:
        seconds = min(seconds, self.MOST_SECONDS)
        UserFacingError.__init__(self, gettext("Many people on your network are answering this campaign right "
                                               "now; try again in %(seconds)s seconds.") % {"seconds": seconds})
        self.seconds = seconds


def said(sentence: quality.Said) -> str:
    """A core's sentence in the active language: the catalog's translation with its values, or, where the catalog
    has none (English), the core's English text, whose nouns are singular or plural as their numbers want."""
    translated = gettext(sentence.template)
    return str(sentence) if translated == sentence.template else translated % dict(sentence.params)


def address_limits() -> AddressLimits:
    return AddressLimits(settings.CROWD_ADDRESS_RESERVATIONS, settings.CROWD_ADDRESS_SHARE)


def _digest(campaign: Campaign, what: str, value: str) -> str:
    """A keyed hash of a participant's address or browser token, per campaign: equal values match within one
    campaign, but the value cannot be found from it (an IPv4 address has only 2^32 values, so a plain hash could
    be reversed) nor matched across campaigns. Blank for an unknown value."""
    if not value:
        return ""
    message = f"{what}\0{campaign.id}\0{value}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class PostSpec:
    """A post to put in a campaign."""

    text: str
    kind: str = Kind.REGULAR
    gold_answer: bool | None = None
    external_id: str = ""
    latitude: float | None = None
    longitude: float | None = None


def create_campaign(*, owner: AbstractBaseUser, name: str, instructions: str, consent_text: str,
                    posts: Sequence[PostSpec], task: str = Campaign.Task.INFERABLE,
                    location_model: TrainedLocationModel | None = None, **options) -> Campaign:
    """A new open campaign with its posts. Only staff users run campaigns."""
    if not owner.is_staff:
        raise PermissionError("Only staff users can create campaigns.")
    if not posts:
        raise UserFacingError(gettext("A campaign needs at least one post."))
    if len(posts) > MAX_CAMPAIGN_POSTS + MAX_ATTENTION_CHECKS:
        raise UserFacingError(gettext("A campaign holds at most %(most)s posts (and %(checks)s attention checks); "
                                      "got %(got)s.") % {"most": f"{MAX_CAMPAIGN_POSTS:,}",
                                                         "checks": MAX_ATTENTION_CHECKS, "got": f"{len(posts):,}"})
    cap = options.get("per_participant_cap", _default("per_participant_cap"))
    # Unless given, a code needs the default number of answers or, under a smaller cap, the cap.
    options.setdefault("min_answers_for_code", min(Campaign._meta.get_field("min_answers_for_code").default, cap))
    needed = options["min_answers_for_code"]
    if needed > cap:
        raise UserFacingError(gettext("A completion code needs %(needed)s answered posts, more than the %(cap)s items "
                                      "one participant may answer: lower the minimum or raise the cap.") % {
                                          "needed": needed, "cap": cap})
    if task == Campaign.Task.DEIDENTIFY and location_model is None:
        raise UserFacingError(gettext("A de-identification campaign needs a location model: its tokenizer splits "
                                      "the words."))
    text_limit = CampaignPost._meta.get_field("text").max_length
    id_limit = CampaignPost._meta.get_field("external_id").max_length
    for number, post in enumerate(posts, start=1):
        if not post.text.strip():
            raise UserFacingError(gettext("Post %(number)s has no text.") % {"number": number})
        if len(post.text) > text_limit:
            raise UserFacingError(gettext("Post %(number)s is %(length)s characters long; at most %(most)s.") % {
                "number": number, "length": f"{len(post.text):,}", "most": f"{text_limit:,}"})
        if len(post.external_id) > id_limit:
            raise UserFacingError(gettext("The id of post %(number)s is %(length)s characters long; at most "
                                          "%(most)s.") % {"number": number, "length": f"{len(post.external_id):,}",
                                                          "most": id_limit})
        if post.kind != Kind.REGULAR and post.gold_answer is None:
            raise UserFacingError(gettext("Post %(number)s is a %(kind)s post but has no known answer.") % {
                "number": number, "kind": post.kind})
    refused = [problem for problem in quality.campaign_problems(
        check_items_of(posts), min_gold=options.get("min_gold_answers", _default("min_gold_answers")),
        per_participant_cap=cap, min_answers_for_code=needed) if problem.refused]
    if refused:
        raise CampaignSettingsError(said(refused[0].message), refused[0].field)
    with transaction.atomic():
        campaign = Campaign.objects.create(owner=owner, name=name, instructions=instructions,
                                           consent_text=consent_text, task=task, location_model=location_model,
                                           join_token=secrets.token_urlsafe(16), **options)
        CampaignPost.objects.bulk_create([
            CampaignPost(campaign=campaign, kind=post.kind, text=post.text.strip(), external_id=post.external_id,
                         gold_answer=post.gold_answer, latitude=post.latitude, longitude=post.longitude)
            for post in posts
        ])
    return campaign


def _default(field: str):
    return Campaign._meta.get_field(field).default


def check_items_of(posts: Sequence[PostSpec]) -> quality.CheckItems:
    """The check items among a new campaign's posts."""
    return quality.CheckItems(
        gold=sum(1 for post in posts if post.kind == Kind.GOLD),
        attention_yes=sum(1 for post in posts if post.kind == Kind.ATTENTION and post.gold_answer),
        attention_no=sum(1 for post in posts if post.kind == Kind.ATTENTION and post.gold_answer is False))


def campaign_warnings(campaign: Campaign) -> list[str]:
    """What is weak about a campaign's checks (no gold posts, no attention checks, one kind only), to say when it
    is made."""
    from anonymizer.crowd.web.selectors import check_items

    return [said(problem.message) for problem in quality.campaign_problems(
        check_items(campaign), min_gold=campaign.min_gold_answers, per_participant_cap=campaign.per_participant_cap,
        min_answers_for_code=campaign.min_answers_for_code) if not problem.refused]


def close_campaign(campaign: Campaign) -> bool:
    """Stop admitting participants and taking answers; what was answered stays. Returns whether it was open."""
    return bool(Campaign.objects.filter(id=campaign.id, status=Campaign.Status.OPEN).update(
        status=Campaign.Status.CLOSED))


def reopen_campaign(campaign: Campaign) -> bool:
    """Undo closing: the link admits participants again and they carry on where they were. Returns whether it
    was closed."""
    return bool(Campaign.objects.filter(id=campaign.id, status=Campaign.Status.CLOSED).update(
        status=Campaign.Status.OPEN))


# -- participants ---------------------------------------------------------------------------------------------
def join(campaign: Campaign, *, address: str = "", browser: str = "", now: datetime | None = None) -> Participant:
    """A new pseudonymous participant; the caller keeps ``participant.secret`` in the browser session.

    ``address`` is the client address and ``browser`` the long-lived token of the browser joining (both kept
    only as keyed hashes): what an earlier session of the same browser reserved goes back to the queue (that
    session was left: its cookie is gone), and a fresh session after a flagged one from the same browser, or
    else the same address, is marked ``rejoined_after_flag`` for the staff."""
    if campaign.status != Campaign.Status.OPEN:
        raise UserFacingError(gettext("This campaign is closed."))
    if not still_asked(campaign).exists():
        raise UserFacingError(str(FULL_CAMPAIGN))
    now = now or timezone.now()
    address_hash, browser_hash = _digest(campaign, "address", address), _digest(campaign, "browser", browser)
    earlier = Participant.objects.filter(campaign=campaign)
    same_browser = earlier.filter(browser_hash=browser_hash) if browser_hash else earlier.none()
    same_address = earlier.filter(address_hash=address_hash) if address_hash else earlier.none()
    rejoined = ""
    if same_browser.exclude(flagged_reason="").exists():
        rejoined = Participant.Rejoined.BROWSER
    elif same_address.exclude(flagged_reason="").exists():
        rejoined = Participant.Rejoined.ADDRESS
    with transaction.atomic():
        _release(Assignment.objects.filter(participant__in=same_browser), now)
        return Participant.objects.create(campaign=campaign, secret=secrets.token_urlsafe(24),
                                          seed=secrets.randbits(62), address_hash=address_hash,
                                          browser_hash=browser_hash, rejoined_after_flag=rejoined)


def rejoin(participant: Participant, now: datetime | None = None) -> None:
    """The participant's session joined again (Start pressed once more): what it reserved goes back to the
    queue, and its next post is drawn afresh."""
    _release(participant.assignments.all(), now or timezone.now())


def _release(assignments: QuerySet[Assignment], now: datetime) -> None:
    """End the open reservations among ``assignments``: their posts are free for others (answering one late is
    refused once someone else took its slot)."""
    assignments.filter(answered_at__isnull=True, expires_at__gt=now).update(expires_at=now)


def consent(participant: Participant) -> None:
    if participant.consented_at is None:
        Participant.objects.filter(id=participant.id, consented_at__isnull=True).update(consented_at=timezone.now())
        participant.refresh_from_db(fields=["consented_at"])


def regular_answers(participant: Participant) -> int:
    return participant.judgments.filter(post__kind=Kind.REGULAR).count()


def checks_met(participant: Participant) -> dict[str, int]:
    """The check items the participant has answered, by kind (``quality.CHECK_KINDS``)."""
    met = dict.fromkeys(quality.CHECK_KINDS, 0)
    for kind, expected in participant.judgments.exclude(post__kind=Kind.REGULAR).values_list("post__kind",
                                                                                             "post__gold_answer"):
        met[_check_kind(kind, expected)] += 1
    return met


def _check_kind(kind: str, expected: bool | None) -> str:
    if kind == Kind.GOLD:
        return quality.GOLD
    return quality.ATTENTION_YES if expected else quality.ATTENTION_NO


def _complete(participant: Participant, now: datetime | None = None) -> None:
    """Nothing more for this participant: a completion code, if they did the work it asks for (a minimum of
    answered regular posts), met every check of the campaign's plan and are not flagged; otherwise none
    (``done_message`` says why). The flag is decided here, from every check answered, before any code."""
    if participant.completed_at is not None:
        return
    campaign = participant.campaign
    with transaction.atomic():
        _lock_participant(participant)
        reason, changed = refresh_flag(participant)
    if changed:
        _requeue(participant, now or timezone.now())
    if not quality.code_allowed(check_plan(campaign), flagged=bool(reason),
                                regular_answers=regular_answers(participant),
                                min_answers_for_code=campaign.min_answers_for_code, met=checks_met(participant)):
        return
    Participant.objects.filter(id=participant.id, completed_at__isnull=True).update(
        completed_at=timezone.now(), completion_code=secrets.token_hex(5).upper())
    participant.refresh_from_db(fields=["completed_at", "completion_code"])


def reveal_code(participant: Participant, now: datetime | None = None) -> str:
    """The participant's completion code the first time it is shown (when is recorded); "" every time after,
    and without a code: a session cannot hand its code out again (a reload, a copied session cookie)."""
    if not participant.completion_code:
        return ""
    first = Participant.objects.filter(id=participant.id, code_shown_at__isnull=True).update(
        code_shown_at=now or timezone.now())
    participant.refresh_from_db(fields=["code_shown_at"])
    return participant.completion_code if first else ""


def done_message(participant: Participant) -> str:
    """What a participant with nothing more to judge is told when no code is shown: why they have none, or
    that theirs was shown already."""
    if participant.completion_code:
        if participant.code_shown_at:
            return gettext("You have finished. Your completion code was shown on %(when)s and is shown only "
                           "once.") % {"when": formats.date_format(timezone.localtime(participant.code_shown_at),
                                                                   "DATETIME_FORMAT")}
        return gettext("You have finished. Your completion code was shown and is shown only once.")
    if participant.flagged_reason:
        return gettext("Your session has ended: some of the check items were not answered as they asked, so this "
                       "session gives no completion code.")
    needed, done = participant.campaign.min_answers_for_code, regular_answers(participant)
    if done >= needed:  # the checks could not all be served (a campaign whose cap leaves them no room)
        return gettext("There is nothing left for you to judge, but not every check item of this campaign could be "
                       "shown to you, so there is no code for this session.")
    return gettext("There is nothing left for you to judge: the campaign has the answers it needs. A completion "
                   "code needs at least %(needed)s answered posts; you answered %(done)s, so there is no code for "
                   "this session.") % {"needed": needed, "done": done}


def next_assignment(participant: Participant, now: datetime | None = None) -> Assignment | None:
    """The post this participant should judge now, reserved for them; None when they are done. Raises
    QueueWait when posts remain but all their slots are reserved by others (reservations expire)."""
    campaign = participant.campaign
    if campaign.status != Campaign.Status.OPEN:
        raise UserFacingError(gettext("This campaign is closed."))
    if participant.consented_at is None:
        raise UserFacingError(gettext("Please give your consent first."))
    now = now or timezone.now()
    for _attempt in range(5):
        try:
            with transaction.atomic():
                assignment = _reserve(participant, campaign, now)
        except IntegrityError:  # the same participant's concurrent request reserved first: take that one
            continue
        if assignment is None:
            _complete(participant)
        return assignment
    raise UserFacingError(gettext("The queue is busy; please try again."))


def _reserve(participant: Participant, campaign: Campaign, now: datetime) -> Assignment | None:
    # One request of a participant at a time (two tabs, a double click): the second waits here and then
    # finds the first one's reservation instead of reserving a second post.
    _lock_participant(participant)
    participant.refresh_from_db(fields=["flagged_reason", "completed_at"])  # another request may have set them
    if participant.flagged_reason:  # their answers no longer count: their session has ended
        return None
    pending = (participant.assignments.filter(answered_at__isnull=True, expires_at__gt=now)
               .select_related("post").first())
    if pending is not None:  # a reload or a second tab gets the same post back
        return pending
    answered = participant.judgments.count()
    if participant.completed_at is not None or answered >= campaign.per_participant_cap:
        return None
    if participant.address_hash:
        _check_address_share(participant, campaign, now)
    # The participant's own random order: reproducible from their seed and how far they are.
    rng = random.Random(participant.seed * 1_000_003 + answered)
    seen = participant.assignments.values("post_id")
    posts = CampaignPost.objects.filter(campaign=campaign).exclude(id__in=seen)
    # Check items only while there is work for them to vouch for (never a session of checks alone), or when a code
    # is at stake: a participant who answered enough posts meets every check before a code.
    work_left = still_asked(campaign).exclude(id__in=seen).exists()
    at_stake = not work_left and regular_answers(participant) >= campaign.min_answers_for_code
    for due in _checks_due(participant, campaign, answered, finishing=at_stake) if work_left or at_stake else ():
        checks = list(_check_posts(posts, due).values_list("id", flat=True).order_by("id"))
        if checks:  # a campaign without gold posts (or attention checks) cannot serve that kind
            return _assign(participant, campaign, rng.choice(checks), now, check_load=False)
    if work_left and rng.random() < campaign.gold_share:
        gold = list(posts.exclude(kind=Kind.REGULAR).values_list("id", flat=True).order_by("id"))
        if gold:
            return _assign(participant, campaign, rng.choice(gold), now, check_load=False)
    # Undecided posts first (with sequential stopping, a decided post waits only for its minimum of answers),
    # then the fewest answers.
    candidates = list(
        still_asked(campaign).exclude(id__in=seen)
        .annotate(load=F("answered") + Count("assignments", filter=Q(assignments__answered_at__isnull=True,
                                                                        assignments__expires_at__gt=now)),
                  settled=Case(When(label__in=DECIDED, then=Value(1)), default=Value(0),
                               output_field=IntegerField()))
        .filter(load__lt=campaign.judgments_per_post)
        .order_by("settled", "load", "id")
        .values_list("id", "settled", "load")
    )
    while candidates:
        first = candidates[0][1:]
        group = [post_id for post_id, *rank in candidates if tuple(rank) == first]
        chosen = rng.choice(group)
        assignment = _assign(participant, campaign, chosen, now, check_load=True)
        if assignment is not None:
            return assignment
        candidates = [row for row in candidates if row[0] != chosen]
    held = (still_asked(campaign).exclude(id__in=seen)
            .aggregate(soonest=Min("assignments__expires_at", filter=Q(assignments__answered_at__isnull=True,
                                                                         assignments__expires_at__gt=now)))["soonest"])
    if held is not None:  # slots held by others' reservations may come free
        raise QueueWait(max(1, int((held - now).total_seconds()) + 1))
    return None


def _check_address_share(participant: Participant, campaign: Campaign, now: datetime) -> None:
    """Raise AddressWait when the participant's client address already holds its share of the campaign's open
    reservations. Counted under a lock per campaign and address, so concurrent requests from one address (in
    any web process) cannot all pass the same count."""
    locks.hold_until_commit(f"crowd-address:{campaign.id}:{participant.address_hash}")
    # One statement: the address's other participants answer meanwhile without this lock, so a second query
    # could find none of the reservations the count saw.
    held = Assignment.objects.filter(
        participant__campaign=campaign, participant__address_hash=participant.address_hash,
        answered_at__isnull=True, expires_at__gt=now).aggregate(count=Count("id"), soonest=Min("expires_at"))
    if held["count"] >= address_limits().cap(answers_needed(campaign)):
        raise AddressWait(max(1, int((held["soonest"] - now).total_seconds()) + 1))


def _checks_due(participant: Participant, campaign: Campaign, answered: int, finishing: bool = False) -> list[str]:
    """The kinds of check item (``quality.CHECK_KINDS``) due now: each required check item has a place drawn from
    the participant's seed (``quality.schedule``), the first of each kind within their first ``checks_within``
    items, and is due there and at every item after it until met; every missing one is due when only as many
    items are left before the cap, or when the session is ``finishing`` with a code at stake."""
    plan = check_plan(campaign)
    places = quality.schedule(plan, participant.seed, campaign.min_answers_for_code)
    return quality.due_checks(plan, places, answered=answered, met=checks_met(participant),
                              items_left=campaign.per_participant_cap - answered, finishing=finishing)


def _check_posts(posts: QuerySet[CampaignPost], kind: str) -> QuerySet[CampaignPost]:
    """The posts among ``posts`` that are check items of ``kind``."""
    if kind == quality.GOLD:
        return posts.filter(kind=Kind.GOLD)
    return posts.filter(kind=Kind.ATTENTION, gold_answer=kind == quality.ATTENTION_YES)


def _lock_participant(participant: Participant) -> None:
    Participant.objects.select_for_update().filter(id=participant.id).first()


def _load(post: CampaignPost, now: datetime, excluding: int | None = None) -> int:
    """Valid answers of a (locked) post plus the live reservations of others; with sequential stopping a post
    decided by enough answers is full."""
    campaign = post.campaign
    if decided_enough(campaign, post.answered, post.label):
        return campaign.judgments_per_post
    live = Assignment.objects.filter(post_id=post.id, answered_at__isnull=True, expires_at__gt=now)
    if excluding is not None:
        live = live.exclude(id=excluding)
    return post.answered + live.count()


def _recount(post_ids: Sequence[int], campaign: Campaign) -> None:
    """Recount the valid answers, yes answers and label of posts from their Judgment rows, locking each post
    (in id order, so two recounts never deadlock) while it is counted."""
    for post_id in sorted(set(post_ids)):
        CampaignPost.objects.select_for_update().filter(id=post_id).first()
        valid = Judgment.objects.filter(post_id=post_id, participant__flagged_reason="")
        answered = valid.count()
        yes = valid.filter(answer=True).count()
        # Only yes/no answers decide a label; a strike-words post has none (and so never sorts as settled).
        label = decide(yes, answered, campaign.cutoff) if campaign.task == Campaign.Task.INFERABLE else ""
        CampaignPost.objects.filter(id=post_id).update(answered=answered, yes=yes, label=label)


def _requeue(participant: Participant, now: datetime) -> None:
    """After a participant's flag changed: recount the posts they answered (a flagged participant's answers
    stop counting, so their posts want answers again) and release what they had reserved. Its own
    transaction, holding no other lock, after the answer that changed the flag."""
    with transaction.atomic():
        if participant.flagged_reason:
            _release(participant.assignments.all(), now)
        posts = participant.judgments.filter(post__kind=Kind.REGULAR).values_list("post_id", flat=True)
        _recount(list(posts), participant.campaign)


def _assign(participant: Participant, campaign: Campaign, post_id: int, now: datetime,
            check_load: bool) -> Assignment | None:
    # Lock the post while its load is counted, so two participants cannot both take its last slot. The lock is
    # taken in a savepoint and a full post's is dropped with it: a reservation that walks several full posts
    # holds none of them, so two reservations walking posts in different orders cannot deadlock (PostgreSQL).
    try:
        with transaction.atomic():
            post = CampaignPost.objects.select_for_update().select_related("campaign").get(id=post_id)
            if check_load and _load(post, now) >= campaign.judgments_per_post:
                raise _PostFull
            assignment = Assignment.objects.create(participant=participant, post=post, served_at=now,
                                                   expires_at=now + timedelta(seconds=campaign.reservation_seconds))
    except _PostFull:
        return None
    assignment.post = post
    return assignment


class _PostFull(Exception):
    """Every slot of the post is answered or reserved (rolls back the savepoint that locked it)."""


def answer(participant: Participant, post_id: int, *, answer: bool | None = None, latitude: float | None = None,
           longitude: float | None = None, deleted_tokens: Sequence[int] | None = None, text_after: str = "",
           now: datetime | None = None) -> Judgment:
    """Record the participant's answer to a post that was served to them."""
    now = now or timezone.now()
    campaign = participant.campaign
    if campaign.status != Campaign.Status.OPEN:
        raise UserFacingError(gettext("This campaign is closed."))
    with transaction.atomic():
        # Locks in one order everywhere, participant then post, as _reserve takes them: an answer and a
        # reservation of the same participant (two tabs) then queue instead of deadlocking.
        _lock_participant(participant)
        participant.refresh_from_db(fields=["flagged_reason"])
        if participant.flagged_reason:
            raise UserFacingError(gettext("Your session has ended; this answer was not stored."))
        assignment = (Assignment.objects.select_for_update().select_related("post")
                      .filter(participant=participant, post_id=post_id).first())
        if assignment is None:
            raise UserFacingError(gettext("This post was not served to you."))
        if assignment.answered_at is not None:
            raise UserFacingError(gettext("You have already answered this post."))
        post = CampaignPost.objects.select_for_update().select_related("campaign").get(id=post_id)
        if assignment.expires_at <= now and post.kind == Kind.REGULAR and (
                _load(post, now, excluding=assignment.id) >= campaign.judgments_per_post):
            raise UserFacingError(gettext("This post took too long and has been given to someone else; here is "
                                          "the next one."))
        _check_payload(campaign, answer, latitude, longitude, deleted_tokens)
        judgment = Judgment.objects.create(
            participant=participant, post=post, answer=answer, clicked_latitude=latitude,
            clicked_longitude=longitude, deleted_tokens=list(deleted_tokens) if deleted_tokens is not None else None,
            text_after=text_after, seconds=(now - assignment.served_at).total_seconds())
        Assignment.objects.filter(id=assignment.id).update(answered_at=now)
        _recount([post.id], campaign)
        flag_changed = post.kind != Kind.REGULAR and refresh_flag(participant)[1]
    if flag_changed:
        _requeue(participant, now)
    if participant.judgments.count() >= campaign.per_participant_cap:
        _complete(participant)
    return judgment


def _check_payload(campaign: Campaign, answer: bool | None, latitude: float | None, longitude: float | None,
                   deleted_tokens: Sequence[int] | None) -> None:
    if campaign.task == Campaign.Task.INFERABLE:
        if answer is None:
            raise UserFacingError(gettext("Answer yes or no."))
    elif deleted_tokens is None:
        raise UserFacingError(gettext("Strike the words to delete (none is a valid answer), then submit."))
    if (latitude is None) != (longitude is None):
        raise UserFacingError(gettext("A map answer needs both latitude and longitude."))
    if latitude is not None and not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise UserFacingError(gettext("The map answer is not a valid point."))


def undo(participant: Participant, now: datetime | None = None) -> Assignment:
    """Take back the participant's last answer; its post is served to them again."""
    now = now or timezone.now()
    if participant.completed_at is not None:
        raise UserFacingError(gettext("You have finished; answers can no longer be changed."))
    with transaction.atomic():
        _lock_participant(participant)
        participant.refresh_from_db(fields=["flagged_reason"])
        if participant.flagged_reason:  # else undoing a failed check would wipe the flag it earned
            raise UserFacingError(gettext("Your session has ended; answers can no longer be changed."))
        judgment = participant.judgments.select_for_update().order_by("-created_at", "-id").first()
        if judgment is None:
            raise UserFacingError(gettext("There is no answer to undo."))
        post = CampaignPost.objects.select_for_update().get(id=judgment.post_id)
        judgment.delete()
        _recount([post.id], participant.campaign)
        Assignment.objects.filter(participant=participant, post=post).update(
            answered_at=None, served_at=now,
            expires_at=now + timedelta(seconds=participant.campaign.reservation_seconds))
        flag_changed = post.kind != Kind.REGULAR and refresh_flag(participant)[1]
    if flag_changed:
        _requeue(participant, now)
    return Assignment.objects.select_related("post").get(participant=participant, post=post)


def refresh_flag(participant: Participant) -> tuple[str, bool]:
    """Flag (or clear) a participant from their gold and attention answers; returns the reason ("" when not
    flagged) and whether the flag changed (then their posts must be recounted: ``_requeue``)."""
    rows = list(participant.judgments.exclude(post__kind=Kind.REGULAR).values_list("post__kind", "post__gold_answer",
                                                                                   "answer"))
    gold = [bool(given) == bool(expected) for kind, expected, given in rows if kind == Kind.GOLD]
    failed = sum(1 for kind, expected, given in rows if kind == Kind.ATTENTION and bool(given) != bool(expected))
    reason = quality.verdict(check_plan(participant.campaign), gold_correct=sum(gold), gold_answered=len(gold),
                             attention_failed=failed)[:300]
    changed = bool(reason) != bool(participant.flagged_reason)
    Participant.objects.filter(id=participant.id).update(flagged_reason=reason)
    participant.flagged_reason = reason
    return reason, changed


# -- where campaign posts come from -----------------------------------------------------------------------------
_TRUE, _FALSE = {"yes", "y", "true", "t", "1"}, {"no", "n", "false", "f", "0"}
#: Attention checks, by language: (asks Yes, asks No).
ATTENTION_TEXTS = {
    "en": ("This is an attention check: please answer Yes to this item.",
           "This is an attention check: please answer No to this item."),
    "ja": ("これは確認のための項目です。「はい」と答えてください。",
           "これは確認のための項目です。「いいえ」と答えてください。"),
}


def posts_from_csv(fileobj, *, text_column: str = "text", max_posts: int = MAX_CAMPAIGN_POSTS) -> list[PostSpec]:
    """Posts from a CSV: a text column, and optionally id, kind (regular / gold / attention), gold (yes / no),
    lat and lon. A bad value, or more than ``max_posts`` rows, raises CsvFormatError with its row and column."""
    from anonymizer.tabular import CsvFormatError
    from anonymizer.tabular.reader import CsvSource

    source = CsvSource(fileobj)
    header = {name.strip().lower(): i for i, name in enumerate(source.header)}
    if text_column.lower() not in header:
        raise CsvFormatError(gettext('the file has no column "%(column)s"; its columns are: %(columns)s.') % {
            "column": text_column, "columns": ", ".join(source.header)}, row=1)
    at = {name: header.get(name) for name in ("id", "kind", "gold", "lat", "lon")}
    posts, row = [], 1
    for batch in source.batches():
        for record in batch:
            row += 1
            if row - 1 > max_posts:
                raise CsvFormatError(gettext("the file has more than %(most)s posts, the most a campaign holds.")
                                     % {"most": f"{max_posts:,}"}, row=row)

            def cell(name: str, record: list[str] = record) -> str:
                return record[at[name]].strip() if at[name] is not None else ""

            kind = cell("kind").lower() or Kind.REGULAR
            if kind not in Kind.values:
                raise CsvFormatError(gettext('kind "%(kind)s" is not one of regular, gold, attention.') % {
                    "kind": kind}, row=row, column=at["kind"] + 1, column_name="kind")
            gold_text = cell("gold").lower()
            if gold_text and gold_text not in _TRUE | _FALSE:
                raise CsvFormatError(gettext('gold "%(gold)s" is not yes or no.') % {"gold": gold_text}, row=row,
                                     column=at["gold"] + 1, column_name="gold")
            gold = None if not gold_text else gold_text in _TRUE
            if gold is not None and kind == Kind.REGULAR:
                kind = Kind.GOLD  # a known answer makes it a gold post
            coordinates = []
            for name, limit in (("lat", 90), ("lon", 180)):
                try:
                    value = float(cell(name)) if cell(name) else None
                except ValueError:
                    value = float("nan")
                if value is not None and not -limit <= value <= limit:  # NaN fails both
                    raise CsvFormatError(gettext('%(column)s "%(value)s" is not a number from -%(limit)s to '
                                                 '%(limit)s.') % {"column": name, "value": cell(name)[:40],
                                                                   "limit": limit},
                                         row=row, column=at[name] + 1, column_name=name)
                coordinates.append(value)
            posts.append(PostSpec(record[header[text_column.lower()]], kind, gold, cell("id"), *coordinates))
    return posts


def posts_from_corpus(record: TrainedLocationModel, count: int, seed: int = 0) -> list[PostSpec]:
    """A random sample of a default model's held-out posts (those it was not trained on), with coordinates."""
    import numpy as np

    from anonymizer.location.corpus import load_corpus
    from anonymizer.location.defaults import DEFAULT_MODELS
    from anonymizer.location.evaluate import split_train_test

    spec = next((s for s in DEFAULT_MODELS if s.name == record.name and record.owner_id is None), None)
    if spec is None:
        raise UserFacingError(gettext("Posts can be sampled only from a built-in model's corpus; upload a CSV "
                                      "instead."))
    from django.conf import settings as django_settings

    posts, _ = load_corpus(django_settings.DATA_DIR / spec.corpus, columns=spec.columns, grid=spec.grid,
                           where={k: set(v) for k, v in spec.where.items()} or None)
    _, held_out, _ = split_train_test(len(posts), users=[p.user for p in posts])
    chosen = np.random.default_rng(seed).choice(held_out, size=min(count, len(held_out)), replace=False)
    return [PostSpec(posts[i].text, external_id=posts[i].id or f"row-{posts[i].row}", latitude=posts[i].lat,
                     longitude=posts[i].lon) for i in sorted(chosen.tolist())]


def attention_checks(language: str, count: int) -> list[PostSpec]:
    """``count`` attention checks, asking Yes and No in turn (so a participant who always answers the same fails
    one as soon as there are two)."""
    texts = ATTENTION_TEXTS.get(language, ATTENTION_TEXTS["en"])
    return [PostSpec(texts[i % 2], Kind.ATTENTION, i % 2 == 0, f"attention-{i + 1}") for i in range(count)]
