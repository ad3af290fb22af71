"""Sequential stopping for the "Can you tell where this post was written?" crowd task, and its simulation.

The paper (section 6) asked a fixed 100 participants per post and labelled a post human-inferable when at least
10% said yes. The queue instead stops serving a post once ``stats.decide`` has decided it (the whole Wilson
interval of its yes-rate lies on one side of the cut-off) and it has ``min_judgments`` valid answers, or once it
reached ``max_judgments``. ``simulate`` measures what that saves and what it costs in errors, against the fixed
campaign on the same answers.

Pure numpy/scipy, no Django: the queue asks ``StoppingRule.stops`` after every valid answer.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri

from anonymizer.crowd.stats import Label, decide

__all__ = [
    "CODE_LABELS",
    "INFERABLE",
    "NOT_INFERABLE",
    "NO_ANSWERS",
    "UNDECIDED",
    "SimulationResult",
    "StoppingRule",
    "label_table",
    "simulate",
    "wilson_table",
]

# Integer codes of the labels in the vectorized tables (strings would make the simulation's arrays slow).
INFERABLE = 1
NOT_INFERABLE = 0
UNDECIDED = -1
NO_ANSWERS = -2
CODE_LABELS: dict[int, str] = {
    INFERABLE: Label.INFERABLE,
    NOT_INFERABLE: Label.NOT_INFERABLE,
    UNDECIDED: Label.UNDECIDED,
    NO_ANSWERS: Label.NO_ANSWERS,
}


def _is_int(value: object) -> bool:
    # bool is an int subclass, but True judgments is a caller's bug, not a count.
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def _check_cutoff(cutoff: float) -> None:
    # The same range stats.aggregate accepts.
    if not 0 <= cutoff <= 1:
        raise ValueError(f"cutoff must lie within [0, 1], got {cutoff}")


def wilson_table(max_n: int, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson bounds (low, high) for every ``yes`` of every ``n <= max_n``, as two (max_n + 1, max_n + 1) arrays
    indexed ``[n, yes]``; NaN where there is no interval (n == 0 or yes > n).

    The closed form, written as scipy's ``binomtest(...).proportion_ci(method="wilson")`` computes it (Newcombe
    1998, same operations in the same order, low = 0 at yes == 0 and high = 1 at yes == n) and clamped to [0, 1]
    as ``stats.wilson_interval`` does, so the bounds are bit-equal and the labels cannot differ at the cut-off.
    """
    if not _is_int(max_n) or max_n < 0:
        raise ValueError(f"max_n must be a non-negative integer, got {max_n!r}")
    _check_confidence(confidence)
    z = ndtri(0.5 + 0.5 * confidence)
    n, k = np.meshgrid(np.arange(max_n + 1), np.arange(max_n + 1), indexing="ij")
    valid = (n > 0) & (k <= n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 2 * (n + z**2)
        center = (2 * n * p + z**2) / denom
        delta = z / denom * np.sqrt(4 * n * p * (1 - p) + z**2)
        low = np.where(k == 0, 0.0, center - delta)
        high = np.where(k == n, 1.0, center + delta)
    low = np.where(valid, np.clip(low, 0.0, 1.0), np.nan)
    high = np.where(valid, np.clip(high, 0.0, 1.0), np.nan)
    return low, high


def label_table(max_n: int, cutoff: float, confidence: float = 0.95) -> np.ndarray:
    """``stats.decide`` for every ``yes <= n <= max_n`` as an int8 (max_n + 1, max_n + 1) array of label codes
    indexed ``[n, yes]`` (``CODE_LABELS`` maps them back); NO_ANSWERS at n == 0 and where yes > n."""
    _check_cutoff(cutoff)
    low, high = wilson_table(max_n, confidence)
    codes = np.full(low.shape, NO_ANSWERS, dtype=np.int8)
    valid = ~np.isnan(low)
    codes[valid] = UNDECIDED
    # The same comparisons as decide, in the same order: low >= cutoff wins over high < cutoff.
    codes[valid & (high < cutoff)] = NOT_INFERABLE
    codes[valid & (low >= cutoff)] = INFERABLE
    return codes


@dataclass(frozen=True)
class StoppingRule:
    """When the queue stops serving a post: once ``stats.decide`` has decided it and it has at least
    ``min_judgments`` valid answers, or once it has ``max_judgments`` (the campaign's judgments per post).

    ``min_judgments`` guards against deciding on a lucky start: the rule is checked after every answer, and each
    look is another chance for an interval to land wholly on the wrong side of the cut-off.
    """

    cutoff: float
    min_judgments: int
    max_judgments: int
    confidence: float = 0.95

    def __post_init__(self) -> None:
        _check_cutoff(self.cutoff)
        _check_confidence(self.confidence)
        if not _is_int(self.min_judgments) or self.min_judgments < 1:
            raise ValueError(f"min_judgments must be a positive integer, got {self.min_judgments!r}")
        if not _is_int(self.max_judgments) or self.max_judgments < self.min_judgments:
            raise ValueError(f"max_judgments must be an integer >= min_judgments ({self.min_judgments}), "
                             f"got {self.max_judgments!r}")

    def label(self, yes: int, n: int) -> str:
        """The post's ``stats.Label`` after ``yes`` of ``n`` valid answers."""
        return decide(yes, n, self.cutoff, self.confidence)

    def stops(self, yes: int, n: int) -> bool:
        """True when a post with ``yes`` of ``n`` valid answers should no longer be served."""
        if not _is_int(yes) or not _is_int(n) or not 0 <= yes <= n:
            raise ValueError(f"need integers 0 <= yes <= n, got yes={yes!r}, n={n!r}")
        if n >= self.max_judgments:
            return True
        return n >= self.min_judgments and self.label(yes, n) in (Label.INFERABLE, Label.NOT_INFERABLE)

    def stop_table(self) -> np.ndarray:
        """``stops`` for every ``yes <= n <= max_judgments`` as a bool array indexed ``[n, yes]`` (False where
        yes > n)."""
        codes = label_table(self.max_judgments, self.cutoff, self.confidence)
        n = np.arange(self.max_judgments + 1)[:, None]
        decided = (codes == INFERABLE) | (codes == NOT_INFERABLE)
        valid = codes != NO_ANSWERS
        return valid & ((n >= self.max_judgments) | ((n >= self.min_judgments) & decided))


@dataclass(frozen=True, eq=False)  # eq=False: numpy arrays have no single truth value to compare by
class SimulationResult:
    """Per simulated post: the sequential campaign's judgments and label and the fixed campaign's point label,
    with the summaries the comparison needs. Shares over no posts are NaN."""

    rule: StoppingRule
    fixed: int  # judgments per post of the fixed campaign
    true_rates: np.ndarray  # float, per post
    judgments: np.ndarray  # int, valid answers the sequential campaign used per post
    yes: np.ndarray  # int, yes answers among them
    codes: np.ndarray  # int8 label code (INFERABLE, NOT_INFERABLE, UNDECIDED) where the post stopped
    fixed_inferable: np.ndarray  # bool, the paper's point rule: yes-rate of the first `fixed` answers >= cutoff
    truth: np.ndarray = field(init=False)  # bool, true_rate >= cutoff

    def __post_init__(self) -> None:
        object.__setattr__(self, "truth", self.true_rates >= self.rule.cutoff)

    def select(self, mask: np.ndarray) -> SimulationResult:
        """The same result restricted to the posts where ``mask`` (bool, per post) is True."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != self.judgments.shape:
            raise ValueError(f"mask must have one entry per post ({self.posts}), got shape {mask.shape}")
        return SimulationResult(rule=self.rule, fixed=self.fixed, true_rates=self.true_rates[mask],
                                judgments=self.judgments[mask], yes=self.yes[mask], codes=self.codes[mask],
                                fixed_inferable=self.fixed_inferable[mask])

    @property
    def posts(self) -> int:
        return int(self.judgments.size)

    @property
    def labels(self) -> list[str]:
        """The sequential labels as ``stats.Label`` strings."""
        return [CODE_LABELS[int(code)] for code in self.codes]

    @property
    def decided(self) -> np.ndarray:
        return (self.codes == INFERABLE) | (self.codes == NOT_INFERABLE)

    @property
    def sequential_judgments(self) -> int:
        return int(self.judgments.sum())

    @property
    def fixed_judgments(self) -> int:
        return self.posts * self.fixed

    @property
    def judgments_per_post(self) -> float:
        return self.sequential_judgments / self.posts if self.posts else float("nan")

    @property
    def saved_share(self) -> float:
        """Share of the fixed campaign's judgments the sequential one did not spend (negative if it spent more)."""
        return 1 - self.sequential_judgments / self.fixed_judgments if self.posts else float("nan")

    @property
    def undecided_share(self) -> float:
        """Share of posts still undecided when they reached max_judgments."""
        return _share(~self.decided)

    @property
    def sequential_error(self) -> float:
        """Among decided posts, the share whose sequential label disagrees with the truth."""
        decided = self.decided
        return _share((self.codes == INFERABLE)[decided] != self.truth[decided])

    @property
    def fixed_error(self) -> float:
        """Among all posts, the share whose fixed-campaign point label disagrees with the truth."""
        return _share(self.fixed_inferable != self.truth)

    @property
    def fallback_error(self) -> float:
        """Among all posts, the share labelled against the truth when a post undecided at max_judgments falls back
        to the point rule on its answers (with max_judgments == fixed, the fixed campaign's label): the sequential
        campaign's error on the same footing as ``fixed_error``."""
        fallback = np.where(self.decided, self.codes == INFERABLE,
                            self.yes / np.maximum(self.judgments, 1) >= self.rule.cutoff)
        return _share(fallback != self.truth)

    @property
    def disagreement(self) -> float:
        """Among decided posts, the share whose sequential label differs from the fixed campaign's point label."""
        decided = self.decided
        return _share((self.codes == INFERABLE)[decided] != self.fixed_inferable[decided])


def _share(mask: np.ndarray) -> float:
    return float(mask.mean()) if mask.size else float("nan")


def simulate(true_rates: Sequence[float] | np.ndarray, rule: StoppingRule, *, fixed: int = 100, seed: int = 0,
             repeats: int = 1) -> SimulationResult:
    """Simulate ``repeats`` posts per true yes-rate: answers are Bernoulli(true_rate) draws, served one at a time
    until ``rule`` stops; the fixed campaign sees the first ``fixed`` answers of the same stream, so the two differ
    only by their rules, never by luck of the draw.

    Posts come out in ``np.repeat(true_rates, repeats)`` order. Memory is about 6 bytes x posts x
    max(fixed, max_judgments).
    """
    rates = np.asarray(true_rates, dtype=float)
    if rates.ndim != 1 or rates.size == 0:
        raise ValueError(f"true_rates must be a non-empty 1-d sequence, got shape {rates.shape}")
    if np.isnan(rates).any() or (rates < 0).any() or (rates > 1).any():
        raise ValueError("true_rates must lie within [0, 1]")
    if not isinstance(rule, StoppingRule):
        raise ValueError(f"rule must be a StoppingRule, got {type(rule).__name__}")
    if not _is_int(fixed) or fixed < 1:
        raise ValueError(f"fixed must be a positive integer, got {fixed!r}")
    if not _is_int(repeats) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    if not _is_int(seed):
        raise ValueError(f"seed must be an integer, got {seed!r}")

    rng = np.random.default_rng(seed)
    rates = np.repeat(rates, repeats)
    length = max(fixed, rule.max_judgments)
    # One answer stream per post; cumulative yes counts after 1, 2, ... answers (column i = after i + 1).
    answers = rng.random((rates.size, length)) < rates[:, None]
    yes_after = np.cumsum(answers, axis=1, dtype=np.int32)
    del answers

    top = rule.max_judgments
    stop = rule.stop_table()
    counts = np.arange(1, top + 1)
    # stops[post, i]: the rule stops after i + 1 answers. Column top - 1 is always True (n == max), so argmax
    # finds the first stop of every post.
    stops = stop[counts[None, :], yes_after[:, :top]]
    first = stops.argmax(axis=1)
    rows = np.arange(rates.size)
    judgments = first + 1
    yes = yes_after[rows, first]
    codes = label_table(top, rule.cutoff, rule.confidence)[judgments, yes]
    # k / n in float64 is correctly rounded, as stats.aggregate's point rule: 10 of 100 equals the literal 0.10.
    fixed_inferable = yes_after[:, fixed - 1] / fixed >= rule.cutoff
    return SimulationResult(rule=rule, fixed=fixed, true_rates=rates, judgments=judgments, yes=yes, codes=codes,
                            fixed_inferable=fixed_inferable)
