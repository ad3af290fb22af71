"""Quality control of a crowd campaign that holds by construction (issue 43).

Every participant must meet the campaign's checks before a completion code, and the code is decided only then:

- **attention checks** tell the participant what to answer; the campaign's come in both kinds (some ask Yes,
  some ask No), so a participant who answers Yes to everything, or No to everything, fails one of them;
- **gold posts** have a known answer; gold accuracy is judged once ``judged_after`` gold posts are answered.

``plan_checks`` says what each participant meets (a ``CheckPlan``); ``schedule`` places those check items in the
participant's own order (the first of each kind within their first ``checks_within`` items, the rest before the
shortest session that earns a code); ``due_checks`` says which kind of check to serve now; ``verdict`` flags;
``code_allowed`` is the gate a completion code passes only with every check met and no flag. ``campaign_problems``
refuses the settings under which the checks cannot hold (fewer gold posts than the accuracy is judged on, a cap
too small for the checks) and warns about the weak ones (no gold posts, no attention checks, one kind only).

Pure Python: the web layer counts the posts and answers, and ``bench/bench_crowd_quality.py`` simulates sessions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from anonymizer.crowd.stats import flag_participants
from anonymizer.texts import gettext_noop

__all__ = ["ATTENTION_NO", "ATTENTION_YES", "CHECK_KINDS", "GOLD", "CheckItems", "CheckPlan", "Problem", "Said",
           "campaign_problems", "code_allowed", "describe_checks", "due_checks", "missing_checks", "plan_checks",
           "schedule", "verdict"]

#: The kinds of check item: a gold post, an attention check that asks Yes, one that asks No.
GOLD, ATTENTION_YES, ATTENTION_NO = "gold", "attention-yes", "attention-no"
CHECK_KINDS = (GOLD, ATTENTION_YES, ATTENTION_NO)


@dataclass(frozen=True)
class CheckItems:
    """The check items a campaign holds."""

    gold: int = 0
    attention_yes: int = 0
    attention_no: int = 0

    @property
    def attention(self) -> int:
        return self.attention_yes + self.attention_no


@dataclass(frozen=True)
class CheckPlan:
    """What every participant meets before a completion code: ``gold`` gold posts (accuracy judged from
    ``judged_after`` of them, below ``min_accuracy`` flags) and every attention check of the campaign, of each
    kind; the first of each kind within their first ``checks_within`` items."""

    gold: int
    attention_yes: int
    attention_no: int
    judged_after: int
    min_accuracy: float
    checks_within: int

    @property
    def required(self) -> int:
        """Check items every participant answers before a code."""
        return self.gold + self.attention_yes + self.attention_no

    def count(self, kind: str) -> int:
        return {GOLD: self.gold, ATTENTION_YES: self.attention_yes, ATTENTION_NO: self.attention_no}[kind]


def plan_checks(items: CheckItems, *, min_gold: int, min_accuracy: float, checks_within: int) -> CheckPlan:
    """The checks every participant of a campaign holding ``items`` meets. Gold accuracy is judged after
    ``min_gold`` gold answers, or after all the campaign's gold posts when it holds fewer (a campaign made before
    that was refused): never a rule that can never fire."""
    if min_gold < 0 or checks_within < 1 or not 0 <= min_accuracy <= 1:
        raise ValueError(f"need min_gold >= 0, checks_within >= 1, 0 <= min_accuracy <= 1; got {min_gold}, "
                         f"{checks_within}, {min_accuracy}")
    gold = min(min_gold, items.gold) if items.gold else 0
    return CheckPlan(gold=gold, attention_yes=items.attention_yes, attention_no=items.attention_no,
                     judged_after=gold, min_accuracy=min_accuracy, checks_within=checks_within)


def schedule(plan: CheckPlan, seed: int, min_answers_for_code: int) -> tuple[tuple[int, str], ...]:
    """The places (0-based item numbers) of the participant's required check items, from their seed: the first
    of each kind within their first ``checks_within`` items, the others among the items before the shortest
    session that earns a code (``min_answers_for_code`` posts plus the checks), so they meet every check before a
    code however early they stop."""
    rng = random.Random(seed)
    kinds = [kind for kind in CHECK_KINDS for _ in range(plan.count(kind))]
    firsts = [kind for kind in CHECK_KINDS if plan.count(kind)]
    rest = list(kinds)
    for kind in firsts:
        rest.remove(kind)
    early = list(range(plan.checks_within))
    places = rng.sample(early, len(firsts)) if len(firsts) <= len(early) else [
        early[i % len(early)] for i in range(len(firsts))]
    span = max(plan.checks_within, min_answers_for_code + plan.required)
    later = list(range(plan.checks_within, span))
    rng.shuffle(rest)
    later_places = sorted(rng.sample(later, len(rest))) if len(rest) <= len(later) else [
        later[i % len(later)] if later else plan.checks_within for i in range(len(rest))]
    return tuple(sorted(zip(places, firsts, strict=True)) + list(zip(later_places, rest, strict=True)))


def missing_checks(plan: CheckPlan, met: Mapping[str, int]) -> dict[str, int]:
    """How many check items of each kind the participant must still answer before a code (kinds with none left
    absent). ``met``: check items answered so far, by kind."""
    return {kind: plan.count(kind) - met.get(kind, 0) for kind in CHECK_KINDS if plan.count(kind) > met.get(kind, 0)}


def due_checks(plan: CheckPlan, places: tuple[tuple[int, str], ...], *, answered: int, met: Mapping[str, int],
               items_left: int, finishing: bool = False) -> list[str]:
    """The kinds of check to serve now, most overdue first: those whose place (``schedule``) has come and not been
    met; every missing one when only that many items are left before the participant's cap (``items_left``), or
    when the session is ``finishing`` (no post left to judge, a code at stake)."""
    missing = missing_checks(plan, met)
    if finishing or items_left <= sum(missing.values()):
        return [kind for kind in CHECK_KINDS if kind in missing]
    due = []
    for kind in CHECK_KINDS:
        placed = sum(1 for place, of in places if of == kind and place <= answered)
        if kind in missing and met.get(kind, 0) < placed:
            due.append((min(p for p, of in places if of == kind), kind))
    return [kind for _, kind in sorted(due)]


def verdict(plan: CheckPlan, *, gold_correct: int, gold_answered: int, attention_failed: int) -> str:
    """Why the participant is flagged ("" when not): a failed attention check, or gold accuracy below the minimum
    once ``judged_after`` gold posts are answered."""
    accuracy = {"p": (gold_correct, gold_answered)} if gold_answered else {}
    return flag_participants(accuracy, min_accuracy=plan.min_accuracy, min_gold=max(1, plan.judged_after),
                             failed_attention=["p"] * attention_failed).get("p", "")


def code_allowed(plan: CheckPlan, *, flagged: bool, regular_answers: int, min_answers_for_code: int,
                 met: Mapping[str, int]) -> bool:
    """Whether a completion code may be issued now: not flagged, enough posts judged, and every check met (so the
    flag was decided on all of them)."""
    return not flagged and regular_answers >= min_answers_for_code and not missing_checks(plan, met)


class Said(str):
    """A sentence for a user, translatable without Django: the English text itself (what the command line, the logs
    and an English page show, each noun singular or plural as its number wants), with ``template``, the catalog's
    text (marked with gettext_noop, named placeholders, its nouns in the plural), and ``params``, its values. The web
    shows it in the page's language with ``anonymizer.crowd.web.services.said``."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, params: Mapping[str, object], english: str) -> Said:
        sentence = super().__new__(cls, english)
        sentence.template, sentence.params = template, dict(params)
        return sentence

    def __reduce__(self):  # copied or pickled whole, not as its English alone
        return (Said, (self.template, self.params, str(self)))


def _said(template: str, english: str | None = None, **params: object) -> Said:
    return Said(template, params, english if english is not None else template % params)


@dataclass(frozen=True)
class Problem:
    """A setting under which the checks do not hold: ``field`` at fault, ``message`` with the numbers (a Said:
    English, and translatable); a ``refused`` one stops the campaign from being made, the others are warnings."""

    field: str
    message: Said
    refused: bool


def campaign_problems(items: CheckItems, *, min_gold: int, per_participant_cap: int,
                      min_answers_for_code: int) -> list[Problem]:
    """What is wrong with a new campaign's checks, refusals first."""
    problems = []
    if 0 < items.gold < min_gold:
        problems.append(Problem("min_gold_answers", _said(
            gettext_noop("The posts include %(gold)s gold posts, but gold accuracy is judged only after %(min_gold)s "
                         "gold answers, so it would never flag anyone: add at least %(more)s more gold posts, or judge "
                         "accuracy after %(gold)s gold answers."),
            f"The posts include {_count(items.gold, 'gold post')}, but gold accuracy is judged "
            f"only after {min_gold} gold answers, so it would never flag anyone: add at least "
            f"{_count(min_gold - items.gold, 'more gold post')}, or judge accuracy after {items.gold} gold answers.",
            gold=items.gold, min_gold=min_gold, more=min_gold - items.gold), True))
    plan = plan_checks(items, min_gold=min_gold, min_accuracy=0.5, checks_within=1)
    if problems:
        plan = plan_checks(CheckItems(0, items.attention_yes, items.attention_no), min_gold=0, min_accuracy=0.5,
                           checks_within=1)
    needed = min_answers_for_code + plan.required
    if needed > per_participant_cap:
        problems.append(Problem("per_participant_cap", _said(
            gettext_noop("A completion code needs %(answers)s answered posts plus %(checks)s check items (%(gold)s "
                         "gold, %(attention)s attention), %(needed)s items, more than the %(cap)s one participant may "
                         "answer: raise the cap to %(needed)s or lower the minimum."),
            f"A completion code needs {min_answers_for_code} answered posts plus "
            f"{_count(plan.required, 'check item')} ({plan.gold} gold, {items.attention} attention), "
            f"{needed} items, more than the {per_participant_cap} one participant may answer: raise the cap to "
            f"{needed} or lower the minimum.",
            answers=min_answers_for_code, checks=plan.required, gold=plan.gold, attention=items.attention,
            needed=needed, cap=per_participant_cap), True))
    if items.gold == 0:
        problems.append(Problem("posts", _said(gettext_noop(
            "The posts include no gold post (a known answer), so participants are judged by attention checks "
            "alone.")), False))
    if items.attention == 0:
        problems.append(Problem("attention_checks", _said(gettext_noop(
            "No attention checks: a participant who answers at random is caught only by the gold posts.")), False))
    elif not items.attention_no:
        problems.append(Problem("attention_checks", _said(gettext_noop(
            "Every attention check asks Yes, so a participant who answers Yes to everything passes them.")), False))
    elif not items.attention_yes:
        problems.append(Problem("attention_checks", _said(gettext_noop(
            "Every attention check asks No, so a participant who answers No to everything passes them.")), False))
    return problems


def describe_checks(plan: CheckPlan, items: CheckItems, min_answers_for_code: int) -> list[Said]:
    """The checks a campaign really has, in sentences for its dashboard."""
    lines = []
    if plan.attention_yes or plan.attention_no:
        lines.append(_said(
            gettext_noop("%(attention)s attention checks (%(yes)s ask Yes, %(no)s ask No), each met by every "
                         "participant; one answered wrongly flags them."),
            f"{_count(items.attention, 'attention check')} ({plan.attention_yes} ask Yes, "
            f"{plan.attention_no} ask No), each met by every participant; one answered wrongly flags them.",
            attention=items.attention, yes=plan.attention_yes, no=plan.attention_no))
        if not plan.attention_no:
            lines.append(_said(gettext_noop(
                "All attention checks ask Yes: answering Yes to everything passes them.")))
        elif not plan.attention_yes:
            lines.append(_said(gettext_noop(
                "All attention checks ask No: answering No to everything passes them.")))
    else:
        lines.append(_said(gettext_noop("No attention checks.")))
    if plan.gold:
        lines.append(_said(
            gettext_noop("%(gold)s gold posts (of the campaign's %(all)s) met by every participant; gold accuracy "
                         "below %(minimum)s once %(judged)s are answered flags them."),
            f"{_count(plan.gold, 'gold post')} (of the campaign's {items.gold}) met by every participant; "
            f"gold accuracy below {plan.min_accuracy:.0%} once {plan.judged_after} "
            f"{'is' if plan.judged_after == 1 else 'are'} answered flags them.",
            gold=plan.gold, all=items.gold, minimum=f"{plan.min_accuracy:.0%}", judged=plan.judged_after))
    else:
        lines.append(_said(gettext_noop("No gold posts: gold accuracy flags nobody.")))
    if plan.required:
        lines.append(_said(
            gettext_noop("The first check of each kind comes within a participant's first %(within)s items; a "
                         "completion code needs %(answers)s answered posts and every check met."),
            f"The first check of each kind comes within a participant's first {plan.checks_within} items; "
            f"a completion code needs {_count(min_answers_for_code, 'answered post')} and every check met.",
            within=plan.checks_within, answers=min_answers_for_code))
    else:
        lines.append(_said(
            gettext_noop("A completion code needs %(answers)s answered posts; nothing checks the answers."),
            f"A completion code needs {_count(min_answers_for_code, 'answered post')}; nothing checks "
            "the answers.", answers=min_answers_for_code))
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
