"""Statistics for the "Can you tell where this post was written?" crowd task.

As in the paper (section 6): many participants answer yes/no per post, and a post is human-inferable when the
share of yes answers reaches a cutoff (10%). Gold posts and attention checks measure participant quality;
judgments of flagged participants are left out of aggregates but never deleted.

Pure Python + numpy/scipy/krippendorff; the Django layer converts its rows into ``JudgmentRecord``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import krippendorff
import numpy as np
from scipy.stats import binomtest

__all__ = [
    "CrossTable",
    "Interval",
    "JudgmentRecord",
    "Label",
    "PostAggregate",
    "aggregate",
    "aggregates_to_rows",
    "cross_table",
    "decide",
    "flag_participants",
    "gold_accuracy",
    "krippendorff_alpha",
    "nominal_alpha",
    "wilson_interval",
]


@dataclass(frozen=True)
class JudgmentRecord:
    """One answer, as the Django layer hands it over."""

    participant: str  # pseudonymous participant id
    post: str  # post id
    answer: bool  # True = "yes, I can tell where"
    flagged: bool = False  # the participant is excluded from aggregates


@dataclass(frozen=True)
class Interval:
    """A closed confidence interval for a proportion, within [0, 1]."""

    low: float
    high: float


def wilson_interval(yes: int, n: int, confidence: float = 0.95) -> Interval | None:
    """Wilson score interval (no continuity correction) for ``yes`` successes out of ``n``; None when n == 0."""
    if n < 0 or not 0 <= yes <= n:
        raise ValueError(f"need 0 <= yes <= n, got yes={yes}, n={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    if n == 0:
        return None
    ci = binomtest(yes, n).proportion_ci(confidence_level=confidence, method="wilson")
    # Clamp: the bounds are proportions, and rounding must not push them a hair outside [0, 1].
    return Interval(low=min(max(float(ci.low), 0.0), 1.0), high=min(max(float(ci.high), 0.0), 1.0))


def nominal_alpha(ratings: Mapping[str, Mapping[str, Hashable]]) -> float | None:
    """Krippendorff's alpha for nominal data given as unit -> {rater: value} (a missing rater is missing data).

    Units with fewer than two values cannot be paired and do not count. Returns None when alpha is undefined:
    no unit has two values, or the paired values show no variation (expected disagreement is zero).
    """
    pairable = {unit: by_rater for unit, by_rater in ratings.items() if len(by_rater) >= 2}
    raters = sorted({rater for by_rater in pairable.values() for rater in by_rater})
    # The library wants numbers (or strings) in one array; nominal alpha only needs category identity, so
    # arbitrary hashable values are coded as small integers.
    codes: dict[Hashable, int] = {}
    data = np.full((len(raters), len(pairable)), np.nan)
    row = {rater: i for i, rater in enumerate(raters)}
    for col, by_rater in enumerate(pairable.values()):
        for rater, value in by_rater.items():
            data[row[rater], col] = codes.setdefault(value, len(codes))
    if data.size == 0:
        return None
    try:
        # With a float matrix and no value_domain, krippendorff 0.9 raises ValueError only for degenerate
        # data: "There has to be more than one value in the domain." (all values equal / no values) and
        # "There has to be at least one unit with values assigned by at least two coders." (a single rater).
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except ValueError:
        return None
    # 0/0 if a future library version stops raising for zero expected disagreement.
    return None if math.isnan(value) else value


def krippendorff_alpha(records: Iterable[JudgmentRecord], *, include_flagged: bool = False) -> float | None:
    """Nominal Krippendorff's alpha over posts x participants (yes/no answers), flagged participants left out
    unless ``include_flagged``.

    None when no post has at least two judgments, or when all paired answers agree on one value (the library's
    ValueErrors for such data are caught, see ``nominal_alpha``). A participant judging a post twice is a
    ValueError: the database allows one judgment per participant and post.
    """
    ratings: dict[str, dict[str, bool]] = {}
    for record in records:
        if record.flagged and not include_flagged:
            continue
        by_participant = ratings.setdefault(record.post, {})
        if record.participant in by_participant:
            raise ValueError(f"participant {record.participant!r} judged post {record.post!r} more than once")
        by_participant[record.participant] = record.answer
    return nominal_alpha(ratings)


def gold_accuracy(records: Iterable[JudgmentRecord], gold: Mapping[str, bool]) -> dict[str, tuple[int, int]]:
    """participant -> (correct, answered) over gold posts only; participants without gold answers are absent.

    Flagged participants are counted too: this is the measure flags are decided on.
    """
    tally: dict[str, tuple[int, int]] = {}
    for record in records:
        if record.post not in gold:
            continue
        correct, answered = tally.get(record.participant, (0, 0))
        tally[record.participant] = (correct + (record.answer == gold[record.post]), answered + 1)
    return tally


def _percent(share: float) -> str:
    return f"{round(share * 100, 1):g}%"


def flag_participants(accuracy: Mapping[str, tuple[int, int]], *, min_accuracy: float, min_gold: int,
                      failed_attention: Iterable[str] = ()) -> dict[str, str]:
    """participant -> reason for each participant to flag: gold accuracy below ``min_accuracy`` (only judged
    once they answered at least ``min_gold`` gold posts) or a failed attention check (``failed_attention``
    lists one participant id per failed check). Reasons of both kinds are joined with "; ".
    """
    if not 0 <= min_accuracy <= 1:
        raise ValueError(f"min_accuracy must lie within [0, 1], got {min_accuracy}")
    if min_gold < 0:
        raise ValueError(f"min_gold must not be negative, got {min_gold}")
    reasons: dict[str, list[str]] = {}
    for participant, failures in Counter(failed_attention).items():
        checks = "an attention check" if failures == 1 else f"{failures} attention checks"
        reasons.setdefault(participant, []).append(f"failed {checks}")
    for participant, (correct, answered) in accuracy.items():
        if not 0 <= correct <= answered:
            raise ValueError(f"participant {participant!r}: need 0 <= correct <= answered, got {correct}/{answered}")
        if answered == 0 or answered < min_gold:
            continue
        share = correct / answered
        # Integer division is correctly rounded, so a share exactly at a decimal bar (7 of 10 vs 0.7) passes.
        if share < min_accuracy:
            reasons.setdefault(participant, []).append(
                f"gold accuracy {correct} of {answered} ({_percent(share)}) is below {_percent(min_accuracy)}")
    return {participant: "; ".join(parts) for participant, parts in reasons.items()}


class Label:
    """What the answers so far decide about a post."""

    INFERABLE = "human-inferable"
    NOT_INFERABLE = "not human-inferable"
    UNDECIDED = "undecided"
    NO_ANSWERS = "no answers"


def decide(yes: int, n: int, cutoff: float, confidence: float = 0.95) -> str:
    """The post's ``Label``: human-inferable when the whole Wilson interval of its yes-rate lies at or above the
    cut-off, not human-inferable when it lies wholly below, undecided when it straddles the cut-off.

    The paper's rule (yes-rate >= cut-off) labels 1 yes of 2 answers as surely as 50 of 100; this one says when
    the answers cannot tell yet, which is also when the queue should keep asking (sequential stopping)."""
    interval = wilson_interval(yes, n, confidence)
    if interval is None:
        return Label.NO_ANSWERS
    if interval.low >= cutoff:
        return Label.INFERABLE
    if interval.high < cutoff:
        return Label.NOT_INFERABLE
    return Label.UNDECIDED


@dataclass(frozen=True)
class PostAggregate:
    """The crowd's verdict on one post."""

    post: str
    judgments: int  # judgments counted (flagged ones excluded unless asked for)
    yes: int
    yes_rate: float | None
    interval: Interval | None  # Wilson interval of the yes rate
    label: str  # a ``Label``: decided by the interval against the cut-off
    at_or_above_cutoff: bool | None  # the paper's point rule, yes_rate >= cutoff; None without judgments
    excluded: int  # judgments of flagged participants left out

    @property
    def human_inferable(self) -> bool | None:
        """True or False once decided; None while undecided or unanswered (never a guess)."""
        return {Label.INFERABLE: True, Label.NOT_INFERABLE: False}.get(self.label)

    @property
    def decided(self) -> bool:
        return self.label in (Label.INFERABLE, Label.NOT_INFERABLE)

    def as_dict(self) -> dict:
        """A flat dict for CSV/JSON export."""
        return {
            "post": self.post,
            "judgments": self.judgments,
            "yes": self.yes,
            "yes_rate": self.yes_rate,
            "interval_low": self.interval.low if self.interval else None,
            "interval_high": self.interval.high if self.interval else None,
            "label": self.label,
            "human_inferable": self.human_inferable,
            "at_or_above_cutoff": self.at_or_above_cutoff,
            "excluded": self.excluded,
        }


def aggregate(records: Iterable[JudgmentRecord], posts: Iterable[str], *, cutoff: float = 0.10,
              confidence: float = 0.95, include_flagged: bool = False) -> list[PostAggregate]:
    """One aggregate per post id in ``posts``, in that order (a repeated id appears once, at its first place),
    posts without judgments included with None values. Records about other posts are ignored.
    """
    if not 0 <= cutoff <= 1:
        raise ValueError(f"cutoff must lie within [0, 1], got {cutoff}")
    order = list(dict.fromkeys(posts))
    counted = dict.fromkeys(order, 0)
    yes = dict.fromkeys(order, 0)
    excluded = dict.fromkeys(order, 0)
    seen: set[tuple[str, str]] = set()
    for record in records:
        if record.post not in counted:
            continue
        key = (record.participant, record.post)
        if key in seen:
            raise ValueError(f"participant {record.participant!r} judged post {record.post!r} more than once")
        seen.add(key)
        if record.flagged and not include_flagged:
            excluded[record.post] += 1
            continue
        counted[record.post] += 1
        yes[record.post] += record.answer
    result = []
    for post in order:
        n, k = counted[post], yes[post]
        rate = k / n if n else None
        result.append(PostAggregate(
            post=post,
            judgments=n,
            yes=k,
            yes_rate=rate,
            interval=wilson_interval(k, n, confidence),
            label=decide(k, n, cutoff, confidence),
            # Correctly rounded k / n makes 10 of 100 compare equal to the literal 0.10.
            at_or_above_cutoff=None if rate is None else rate >= cutoff,
            excluded=excluded[post],
        ))
    return result


def aggregates_to_rows(aggregates: Iterable[PostAggregate]) -> list[dict]:
    """Flat dicts (``PostAggregate.as_dict``) for CSV/JSON export."""
    return [item.as_dict() for item in aggregates]


_CLASSES: tuple[tuple[bool, bool], ...] = ((True, True), (True, False), (False, True), (False, False))


@dataclass(frozen=True)
class CrossTable:
    """The paper's Table 2: machine-inferable x human-inferable, keyed (machine, human); all four classes present."""

    counts: dict[tuple[bool, bool], int] = field(default_factory=dict)
    posts: dict[tuple[bool, bool], list[str]] = field(default_factory=dict)

    def as_rows(self) -> list[dict]:
        """[{"machine", "human", "posts"}] in the fixed order TT, TF, FT, FF."""
        return [{"machine": machine, "human": human, "posts": self.counts.get((machine, human), 0)}
                for machine, human in _CLASSES]


def cross_table(machine: Mapping[str, bool | None], human: Mapping[str, bool | None]) -> CrossTable:
    """Cross machine- and human-inferability of the posts present in both mappings (in ``machine``'s order).

    A None value (``PostAggregate.human_inferable`` of a post undecided or nobody judged) counts as absent, not as
    False.
    """
    members: dict[tuple[bool, bool], list[str]] = {cls: [] for cls in _CLASSES}
    for post, machine_inferable in machine.items():
        human_inferable = human.get(post)
        if machine_inferable is not None and human_inferable is not None:
            members[(bool(machine_inferable), bool(human_inferable))].append(post)
    return CrossTable(counts={cls: len(ids) for cls, ids in members.items()}, posts=members)
