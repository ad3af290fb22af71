"""Statistics for the "strike the fewest words" crowd task (de-identification by hand).

Each answer is the set of token indices a participant struck in a post. Per post: how many valid answers, how many
of them struck each token, and the consensus (tokens struck by at least half of the valid answers). Agreement is
Krippendorff's alpha (nominal) over token-level decisions: a unit is (post, token index), a rater a participant, a
value struck or not. Answers of flagged participants are counted apart and left out, never deleted.

Pure Python; the Django layer (``anonymizer.crowd.web.strike_report``) converts its rows into ``StrikeRecord``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from anonymizer.crowd.stats import nominal_alpha

__all__ = ["PostStrikes", "StrikeRecord", "StrikeSummary", "strike_alpha", "summarize_strikes"]


@dataclass(frozen=True)
class StrikeRecord:
    """One answer of the strike task, as the Django layer hands it over."""

    participant: str  # pseudonymous participant id
    post: str  # post id
    struck: tuple[int, ...]  # indices of the struck tokens
    tokens: int  # how many tokens the post has (the tokenizer's count)
    flagged: bool = False  # the participant is excluded from aggregates


@dataclass(frozen=True)
class PostStrikes:
    """What the valid answers say about one post."""

    post: str
    tokens: int
    answers: int  # valid answers (flagged participants left out)
    excluded: int  # answers of flagged participants left out
    counts: tuple[int, ...]  # per token index: how many valid answers struck it
    consensus: tuple[int, ...]  # token indices struck by at least half of the valid answers, ascending

    def share(self, index: int) -> float | None:
        """The share of valid answers that struck token ``index``; None without answers."""
        return self.counts[index] / self.answers if self.answers else None


@dataclass(frozen=True)
class StrikeSummary:
    posts: list[PostStrikes]  # in the order asked for (see ``summarize_strikes``)
    alpha: float | None  # None when undefined (too few answers, or no variation at all)
    units: int  # (post, token) units rated by at least two valid answers: what alpha rests on


def _check(records: Iterable[StrikeRecord], posts: Mapping[str, int] | None,
           fixed: Mapping[str, Collection[int]]) -> list[StrikeRecord]:
    """The records, after every consistency check (so that no count below can be silently wrong)."""
    checked: list[StrikeRecord] = []
    seen: set[tuple[str, str]] = set()
    sizes: dict[str, int] = dict(posts or {})
    for size in sizes.values():
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError(f"a post's number of tokens must be a non-negative integer, got {size!r}")
    for record in records:
        if isinstance(record.tokens, bool) or not isinstance(record.tokens, int) or record.tokens < 0:
            raise ValueError(f"post {record.post!r}: number of tokens must be a non-negative integer, "
                             f"got {record.tokens!r}")
        # One tokenizer splits every post: two answers (or the caller's list) disagreeing on a post's length mean
        # the indices refer to different tokens.
        if sizes.setdefault(record.post, record.tokens) != record.tokens:
            raise ValueError(f"post {record.post!r} has {sizes[record.post]} tokens, but an answer says "
                             f"{record.tokens}")
        key = (record.participant, record.post)
        if key in seen:
            raise ValueError(f"participant {record.participant!r} answered post {record.post!r} more than once")
        seen.add(key)
        if len(set(record.struck)) != len(record.struck):
            raise ValueError(f"participant {record.participant!r} struck a token of post {record.post!r} twice")
        not_strikeable = fixed.get(record.post, ())
        for index in record.struck:
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < record.tokens:
                raise ValueError(f"post {record.post!r}: token index {index!r} is outside 0..{record.tokens - 1}")
            if index in not_strikeable:
                raise ValueError(f"post {record.post!r}: token {index} cannot be struck")
        checked.append(record)
    for post, indices in fixed.items():
        if post in sizes and any(not 0 <= i < sizes[post] for i in indices):
            raise ValueError(f"post {post!r}: a fixed token index is outside 0..{sizes[post] - 1}")
    return checked


def _ratings(records: Iterable[StrikeRecord], fixed: Mapping[str, Collection[int]]) -> dict[str, dict[str, bool]]:
    """unit -> {participant: struck?} over the valid answers, for ``nominal_alpha``."""
    ratings: dict[str, dict[str, bool]] = {}
    for record in records:
        if record.flagged:
            continue
        struck, not_strikeable = set(record.struck), fixed.get(record.post, ())
        for index in range(record.tokens):
            # Punctuation nobody can strike is no decision: counting it as agreement would inflate alpha.
            if index in not_strikeable:
                continue
            # The token index goes last, so the key splits back unambiguously whatever the post id holds.
            ratings.setdefault(f"{record.post}\t{index}", {})[record.participant] = index in struck
    return ratings


def strike_alpha(records: Iterable[StrikeRecord], *, fixed: Mapping[str, Collection[int]] | None = None
                 ) -> float | None:
    """Krippendorff's alpha (nominal) over (post, token) units x participants, value struck or not; flagged
    participants left out. Tokens in ``fixed[post]`` (e.g. punctuation, which cannot be struck) are no units.

    None when no unit has two answers or every paired decision is the same (see ``nominal_alpha``).
    """
    fixed = fixed or {}
    return nominal_alpha(_ratings(_check(records, None, fixed), fixed))


def summarize_strikes(records: Iterable[StrikeRecord], posts: Mapping[str, int] | None = None, *,
                      fixed: Mapping[str, Collection[int]] | None = None) -> StrikeSummary:
    """Per-post strike counts, consensus and the overall alpha.

    ``posts`` maps post id -> number of tokens: one ``PostStrikes`` per post, in that order, posts without answers
    included; records about other posts are ignored (as ``stats.aggregate`` does). Without ``posts``, the posts
    answered, in order of first answer. ``fixed`` maps post id -> token indices that cannot be struck.

    ValueError on inconsistent input: a token index outside the post, a token struck twice or a fixed one struck,
    a participant answering a post twice, or two token counts for one post.
    """
    fixed = fixed or {}
    records = _check(records, posts, fixed)
    if posts is not None:
        records = [record for record in records if record.post in posts]
        sizes = dict(posts)
    else:
        sizes = {}
        for record in records:
            sizes.setdefault(record.post, record.tokens)
    counts = {post: [0] * size for post, size in sizes.items()}
    answers = dict.fromkeys(sizes, 0)
    excluded = dict.fromkeys(sizes, 0)
    for record in records:
        if record.flagged:
            excluded[record.post] += 1
            continue
        answers[record.post] += 1
        for index in record.struck:
            counts[record.post][index] += 1
    result = []
    for post, size in sizes.items():
        n = answers[post]
        # At least half, in integers: 2 of 4 is consensus, 1 of 3 is not; nothing is consensus without answers.
        consensus = tuple(i for i, k in enumerate(counts[post]) if n and 2 * k >= n)
        result.append(PostStrikes(post=post, tokens=size, answers=n, excluded=excluded[post],
                                  counts=tuple(counts[post]), consensus=consensus))
    ratings = _ratings(records, fixed)
    return StrikeSummary(posts=result, alpha=nominal_alpha(ratings),
                         units=sum(1 for by_rater in ratings.values() if len(by_rater) >= 2))
