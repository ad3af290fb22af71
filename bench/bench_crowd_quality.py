"""Does a careless participant get a completion code? Does a careful one get flagged? (issue 43, finding 2)

Usage: .venv/bin/python bench/bench_crowd_quality.py [--sessions 1000] [--attention N] [--min-gold N]
                                                     [--min-accuracy X] [--before]

Simulates sessions of one participant each, item by item, with the campaign's DEFAULT settings (the Campaign
table's defaults and the new-campaign form's default number of attention checks) and the pure core that the
queue and the code gate use (anonymizer.crowd.quality): check items served where ``schedule`` / ``due_checks``
put them, more mixed in at the gold share, the flag decided after every check answer (``verdict``), the code
issued only through ``code_allowed`` at the participant's cap. The campaign always has posts left to judge, so
each session runs to the cap unless flagged; its gold posts' answers are half Yes, half No.

Participants: careless ones who answer Yes to everything, No to everything, or at random (a fair coin); a
careful one who answers gold posts right 90% of the time and answers attention checks as they ask (an
ASSUMPTION: they read the item). Goals: careless sessions get no code in >= 99%, careful ones are not flagged in
>= 99%. Printed per campaign size: the fewest gold posts the defaults accept, and 20.

``--before`` simulates the rules before issue 43 for comparison: every attention check asked Yes, one gold post
and one attention check within the first items, gold accuracy judged after 3 gold answers at 70%, and a code at
the cap for anyone not flagged by then. Seeded; a few seconds.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.crowd import quality  # noqa: E402
from anonymizer.crowd.stats import flag_participants  # noqa: E402

SEED = 43
DEFAULTS_FROM = "anonymizer/models/crowd.py (Campaign) and anonymizer/crowd/web/forms.py (attention_checks)"


def campaign_defaults() -> dict:
    """The defaults a new campaign gets, read from the code (Django set up without a database)."""
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from anonymizer.crowd.web.forms import CampaignForm
    from anonymizer.models import Campaign

    field = Campaign._meta.get_field
    return {name: field(name).default for name in ("min_gold_accuracy", "min_gold_answers", "per_participant_cap",
                                                    "min_answers_for_code", "checks_within", "gold_share")} | {
        "attention_checks": CampaignForm.base_fields["attention_checks"].initial}


Answer = Callable[[random.Random, str, bool], bool]  # (rng, kind of item, its expected answer) -> the answer
PARTICIPANTS: dict[str, tuple[Answer, bool]] = {  # name -> (how they answer, careless)
    "always Yes": (lambda rng, kind, expected: True, True),
    "always No": (lambda rng, kind, expected: False, True),
    "random": (lambda rng, kind, expected: rng.random() < 0.5, True),
    "careful (90% gold)": (lambda rng, kind, expected: expected if kind != quality.GOLD or rng.random() < 0.9
                           else not expected, False),
}


def session(settings: dict, gold_posts: int, answer: Answer, rng: random.Random) -> tuple[bool, bool]:
    """One participant's session under the current rules: (got a code, flagged)."""
    half = settings["attention_checks"] // 2
    items = quality.CheckItems(gold=gold_posts, attention_yes=settings["attention_checks"] - half, attention_no=half)
    plan = quality.plan_checks(items, min_gold=settings["min_gold_answers"],
                               min_accuracy=settings["min_gold_accuracy"], checks_within=settings["checks_within"])
    places = quality.schedule(plan, rng.getrandbits(62), settings["min_answers_for_code"])
    # The unseen check items of each kind, by their expected answer.
    unseen = {quality.GOLD: [i % 2 == 0 for i in range(gold_posts)],
              quality.ATTENTION_YES: [True] * items.attention_yes, quality.ATTENTION_NO: [False] * items.attention_no}
    met = dict.fromkeys(quality.CHECK_KINDS, 0)
    gold_correct = failed = regular = answered = 0
    cap = settings["per_participant_cap"]
    while answered < cap:
        due = quality.due_checks(plan, places, answered=answered, met=met, items_left=cap - answered)
        kind = next((k for k in due if unseen[k]), None)
        if kind is None and rng.random() < settings["gold_share"]:
            pool = [k for k in quality.CHECK_KINDS for _ in unseen[k]]
            kind = rng.choice(pool) if pool else None
        answered += 1
        if kind is None:
            regular += 1
            continue
        expected = unseen[kind].pop(rng.randrange(len(unseen[kind])))
        given = answer(rng, kind, expected)
        met[kind] += 1
        if kind == quality.GOLD:
            gold_correct += given == expected
        else:
            failed += given != expected
        if quality.verdict(plan, gold_correct=gold_correct, gold_answered=met[quality.GOLD], attention_failed=failed):
            return False, True  # the session ends: no code
    return quality.code_allowed(plan, flagged=False, regular_answers=regular,
                                min_answers_for_code=settings["min_answers_for_code"], met=met), False


BEFORE = {"attention_checks": 2, "min_gold_answers": 3, "min_gold_accuracy": 0.70, "per_participant_cap": 50,
          "min_answers_for_code": 5, "checks_within": 5, "gold_share": 0.10}


def session_before(settings: dict, gold_posts: int, answer: Answer, rng: random.Random) -> tuple[bool, bool]:
    """The rules before issue 43: attention checks all asked Yes; one gold post and one attention check due from a
    random place within the first items until one is answered; gold judged after 3 answers; a code at the cap
    for anyone not flagged."""
    places = dict(zip((quality.GOLD, "attention"), rng.sample(range(settings["checks_within"]), 2), strict=True))
    unseen = {quality.GOLD: [i % 2 == 0 for i in range(gold_posts)], "attention": [True] * settings["attention_checks"]}
    met = {quality.GOLD: 0, "attention": 0}
    gold_correct = failed = regular = answered = 0
    cap = settings["per_participant_cap"]
    while answered < cap:
        kind = next((k for k, place in places.items() if not met[k] and answered >= place and unseen[k]), None)
        if kind is None and rng.random() < settings["gold_share"]:
            pool = [k for k in unseen for _ in unseen[k]]
            kind = rng.choice(pool) if pool else None
        answered += 1
        if kind is None:
            regular += 1
            continue
        expected = unseen[kind].pop(rng.randrange(len(unseen[kind])))
        given = answer(rng, quality.GOLD if kind == quality.GOLD else quality.ATTENTION_YES, expected)
        met[kind] += 1
        if kind == quality.GOLD:
            gold_correct += given == expected
        else:
            failed += given != expected
        accuracy = {"p": (gold_correct, met[quality.GOLD])} if met[quality.GOLD] else {}
        if flag_participants(accuracy, min_accuracy=settings["min_gold_accuracy"],
                             min_gold=settings["min_gold_answers"], failed_attention=["p"] * failed):
            return False, True
    return regular >= settings["min_answers_for_code"], False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--before", action="store_true", help="the rules and defaults before issue 43")
    parser.add_argument("--attention", type=int, help="attention checks (default: the form's)")
    parser.add_argument("--min-gold", type=int, help="gold answers judged (default: the campaign's)")
    parser.add_argument("--min-accuracy", type=float, help="minimum gold accuracy (default: the campaign's)")
    args = parser.parse_args()
    settings = dict(BEFORE) if args.before else campaign_defaults()
    for name, value in (("attention_checks", args.attention), ("min_gold_answers", args.min_gold),
                        ("min_gold_accuracy", args.min_accuracy)):
        if value is not None:
            settings[name] = value
    simulate = session_before if args.before else session
    print(("BEFORE issue 43: " if args.before else "Defaults: ") + ", ".join(f"{k} {v}" for k, v in settings.items()))
    met_goals = True
    for gold_posts in sorted({max(settings["min_gold_answers"], 1), 20}):
        print(f"\nA campaign with {gold_posts} gold posts, {args.sessions:,} sessions per participant kind:")
        print(f"  {'participant':<20} {'got a code':>10} {'flagged':>8}   goal")
        for name, (answer, careless) in PARTICIPANTS.items():
            rng = random.Random(f"{SEED}-{gold_posts}-{name}")
            outcomes = [simulate(settings, gold_posts, answer, rng) for _ in range(args.sessions)]
            coded = sum(code for code, _ in outcomes) / args.sessions
            flagged = sum(flag for _, flag in outcomes) / args.sessions
            ok = coded <= 0.01 if careless else flagged <= 0.01
            met_goals &= ok
            goal = "no code in >= 99%" if careless else "not flagged in >= 99%"
            print(f"  {name:<20} {coded:>10.1%} {flagged:>8.1%}   {goal}: {'met' if ok else 'NOT met'}")
    print(f"\nGoals {'met' if met_goals else 'NOT met'}.")
    if not (met_goals or args.before or args.attention or args.min_gold or args.min_accuracy is not None):
        sys.exit(1)  # the defaults no longer meet the goals: `make bench` stops here


if __name__ == "__main__":
    main()
