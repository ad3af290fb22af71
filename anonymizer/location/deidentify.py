"""The fewest-morphemes de-identifier (the paper's Section 7), exact and fast.

The paper: for m = 1, 2, ... consider every way to delete m morphemes, keep the one whose top-cell probability
is lowest, and stop at the first m where that is under the threshold. Here the objective also covers several
models at once (the location classifier and, optionally, the human-inferability classifier): a candidate's
*ratio* is the largest of score / threshold over the models, and a post is de-identified when it is below 1.
With the location model alone, ranking by ratio is ranking by top-cell probability: the paper's algorithm.

Tie rule, shared with the plain exhaustive oracle in the tests: among candidates whose ratio is within
``TIE_TOLERANCE`` of the lowest, the one whose sorted deleted positions come first lexicographically (the order
of ``itertools.combinations``) wins.

Why it is fast: the models are linear in binary uni+bigram features, so deleting positions changes the class
scores by a few weight rows — the unigrams of the deleted tokens and the bigrams touching them go out, and one
bigram per run of deleted tokens comes in, joining the tokens on either side of the gap. Candidates of size m
are built from those of size m - 1 by adding a later position, one precomputed update per candidate: a new
run, or the extension of the last run (which swaps that run's gap bigram). Features that occur more than once
in the post, or that a gap can create although they are already present, are not additive (the bag is
binary); their occurrence counts are carried along with the scores and their weights applied at the end, so
every score is exact (float64), without re-vectorizing any text.

Beyond ``max_candidates`` per level a beam search takes over; for posts of more than ``beam_above`` deletable
units, and from the start for more than ``rank_above``, a bounded ranking does instead (units of one norm
ranked together by what deleting them does, the fewest of the best-ranked found by bisection). Their answers
say they are not proven optimal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, combinations, pairwise

import numpy as np

from anonymizer.location.classifier import bigram, unit_parts
from anonymizer.platform.deadline import Deadline, check
from anonymizer.texts import gettext, ngettext

TIE_TOLERANCE = 1e-9
_CHUNK = 8192  # children scored at a time
# float32 ranking error is about 1e-6 relative; candidates this close to the best are scored exactly.
_SHORTLIST_MARGIN = 1e-4
# The work budget of one search: how many search-state numbers (candidates x the post's state width) its
# exhaustive levels may compute; past it the search goes on as a beam or ranking (bounded, labelled not
# exhaustive). A deterministic bound, so the same post gets the same answer on any machine and under any load;
# 25 M is about 0.4 s on one core of the 2-core reference machine (docs/abuse.md), the largest exhaustive level
# a post of 75 deletable units needs for m = 3 (67,525 candidates x ~360).
DEFAULT_MAX_WORK = 25_000_000
_MAX_STORED_STATES = 120_000  # a level kept in memory to build the next one (rows of scores + counts)
# A level whose previous level was not built (fixed m skips the small ones) is scored in one shot from its
# combinations when it has up to this many candidates; otherwise it is built from the previous level, one
# update per candidate instead of m.
_DIRECT_LIMIT = 4096
# A shortlist longer than this is first ranked by float64 search states (rounding below _ROUNDING), and only
# the candidates that can still tie are scored from their feature sets.
_REFINE_ABOVE = 8
_ROUNDING = 1e-10


class TooFewDeletable(ValueError):
    """Exactly m deletions were asked of a post with fewer deletable tokens: the m asked for is at fault."""


@dataclass(frozen=True)
class LinearScorer:
    """A linear model over uni+bigram features with a probability link and its threshold.

    ``link="softmax_max"``: the score is the top class probability of a softmax (the location classifier);
    ``link="sigmoid"``: one column, the score is the positive-class probability (the human-inferability model).
    ``weights`` has one row per feature (n_features x n_columns).
    """

    name: str
    vocabulary: Mapping[str, int]
    weights: np.ndarray
    intercept: np.ndarray
    threshold: float
    link: str = "softmax_max"

    def __post_init__(self) -> None:
        if self.link not in ("softmax_max", "sigmoid"):
            raise ValueError(f"link must be softmax_max or sigmoid, got {self.link!r}")
        if self.link == "sigmoid" and self.weights.shape[1] != 1:
            raise ValueError("a sigmoid scorer has exactly one weight column")
        if not 0 < self.threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")

    @property
    def width(self) -> int:
        return self.weights.shape[1]

    def row(self, feature: str) -> np.ndarray | None:
        index = self.vocabulary.get(feature)
        return None if index is None else self.weights[index]


def link_scores(z: np.ndarray, link: str) -> np.ndarray:
    """Scores of the rows of z (n x width) under a link: top softmax probability, or the sigmoid."""
    if link == "sigmoid":
        return 1.0 / (1.0 + np.exp(-z[:, 0]))
    shifted = z - z.max(axis=1, keepdims=True)
    np.exp(shifted, out=shifted)
    return 1.0 / shifted.sum(axis=1)


@dataclass(frozen=True)
class Deletion:
    """The best way found to delete exactly m tokens."""

    positions: tuple[int, ...]
    ratio: float
    scores: dict[str, float]
    exhaustive: bool  # every way to delete m allowed tokens was scored: this is the optimum (tie rule applied)
    candidates: int


@dataclass(frozen=True)
class Deidentification:
    """What the de-identifier decided for one post."""

    deleted: tuple[int, ...]  # token indices, sorted
    scores_before: dict[str, float]
    scores_after: dict[str, float]
    thresholds: dict[str, float]
    under_threshold: bool
    optimal: bool  # the deleted set is the exact best among all sets of its size
    minimal: bool  # no smaller number of deletions gets under the thresholds (proven by exhaustive search)
    candidates: int  # candidates scored in all
    reason: str = ""  # why the result is not under the thresholds, when it is not
    searched: list[dict] = field(default_factory=list)  # per m: best ratio, exhaustive, candidates


def _gap_pairs(n: int, allowed: np.ndarray, max_run: int) -> list[tuple[int, int]]:
    """Gap bigrams (i, j): the tokens on either side once every token strictly between them is deleted; only
    runs of allowed tokens, at most max_run long, can open a gap."""
    run = [0] * (n + 1)  # run[i]: allowed positions in a row starting at i
    allowed_set = set(allowed.tolist())
    for i in range(n - 1, -1, -1):
        run[i] = run[i + 1] + 1 if i in allowed_set else 0
    return [(i, j) for i in range(n - 2) for j in range(i + 2, min(n - 1, i + 1 + min(run[i + 1], max_run)) + 1)]


def _feature_table(features: Sequence[str], scorers: Sequence[LinearScorer], offsets: np.ndarray,
                   width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One local id per distinct feature string (each occurrence's id), whether any model knows it, and the
    rows of the models' weights side by side (distinct features x width)."""
    local: dict[str, int] = {}
    occurrence = np.array([local.setdefault(f, len(local)) for f in features], dtype=np.int64)
    distinct = list(local)
    known = np.zeros(len(distinct), dtype=bool)
    table = np.zeros((len(distinct), width))
    for k, scorer in enumerate(scorers):
        index = np.array([scorer.vocabulary.get(f, -1) for f in distinct], dtype=np.int64)
        hit = index >= 0
        known |= hit
        table[hit, offsets[k]: offsets[k + 1]] = scorer.weights[index[hit]]
    return occurrence, known, table


class _Post:
    """One post prepared for the search: its features' weight rows and the per-step update vectors.

    A search state is a vector of ``dim`` numbers: the change of every model's scores caused by the additive
    features, followed by the occurrence counts of the non-additive ("shared") features.
    """

    def __init__(self, norms: Sequence[str], allowed: Sequence[int], scorers: Sequence[LinearScorer],
                 max_run: int) -> None:
        self.norms, self.n, self.scorers = list(norms), len(norms), list(scorers)
        self.allowed = np.array(sorted(set(allowed)), dtype=np.int64)
        self.offsets = np.cumsum([0, *(scorer.width for scorer in scorers)])
        self.width = width = int(self.offsets[-1])
        self.thresholds = np.array([scorer.threshold for scorer in scorers])
        self.intercept = np.concatenate([np.asarray(s.intercept, dtype=np.float64) for s in scorers])
        n, norms = self.n, self.norms

        gaps = _gap_pairs(n, self.allowed, max_run)
        # A unit's parts (unit_parts) are features that go with it, like its unigram.
        parts = self._parts = [unit_parts(norm) for norm in norms]
        self._rows: list[dict[str, int]] = [{} for _ in scorers]
        owner = np.repeat(np.arange(n), [len(p) for p in parts]).astype(np.int64)
        features = [*norms, *(bigram(a, b) for a, b in pairwise(norms)), *(bigram(norms[i], norms[j]) for i, j in gaps),
                    *(part for unit in parts for part in unit)]
        occurrence, known, table = _feature_table(features, scorers, self.offsets, width)
        none = len(table)  # an extra row of zeros stands for "no feature" and for unknown features
        occurrence = np.where(known[occurrence], occurrence, none)
        n_gaps = len(gaps)
        unigram, adjacent = occurrence[:n], occurrence[n: 2 * n - 1]
        gap_ids, part_ids = occurrence[2 * n - 1: 2 * n - 1 + n_gaps], occurrence[2 * n - 1 + n_gaps:]

        present = np.concatenate([unigram, adjacent, part_ids])
        count = np.bincount(present, minlength=none + 1)[:none]
        gap_count = np.bincount(gap_ids, minlength=none + 1)[:none]
        shared = (count >= 2) | ((count >= 1) & (gap_count >= 1)) | (gap_count >= 2)
        self.shared_ids = np.flatnonzero(shared)
        self.shared_rows = table[self.shared_ids]
        self.shared_count = count[self.shared_ids].astype(np.float64)
        self.shared_present = (self.shared_count > 0).astype(np.float64)
        self.z_full = self.intercept + table[count > 0].sum(axis=0)
        self.dim = width + len(self.shared_ids)

        # update[f]: the state change when one occurrence of feature f appears (row `none` is all zeros). Built in
        # float64 (for refining a shortlist, see refined_ratios); the search itself runs on float32 copies.
        update = np.zeros((none + 1, self.dim), dtype=np.float64)
        additive = np.flatnonzero(~shared)
        update[additive, :width] = table[additive]
        update[self.shared_ids, width + np.arange(len(self.shared_ids))] = 1.0
        self._update64 = update
        self._unigram = unigram
        self._right = np.append(adjacent, none)  # slot (i, i+1); none after the last token
        self._left = np.concatenate([[none], adjacent])  # slot (i-1, i); none before the first token
        # The gap (i, j) at [i, j - i]: a band, since a gap spans at most max_run + 1 positions (a full n x n
        # table would cost O(n^2) memory and time for a 2,000-token post). Edges (i = -1, j = n) have no gap.
        self._none = none
        self._gap_band = np.full((n + 1, max(max_run, 0) + 2), none, dtype=np.int64)
        if gaps:
            pairs = np.array(gaps)
            self._gap_band[pairs[:, 0], pairs[:, 1] - pairs[:, 0]] = gap_ids
        positions = np.arange(n)
        after = np.minimum(positions + 1, n)
        # Adding j as a run of its own: its unigram and both bigrams go, the gap bigram (j-1, j+1) comes.
        self._single_gap = np.concatenate([[none], self._gap(positions[1:] - 1, after[1:])])
        unit = update[self._unigram].copy()
        if len(part_ids):
            np.add.at(unit, owner, update[part_ids])
        self._new_run64 = update[self._single_gap] - unit - update[self._left] - update[self._right]
        # The part of extension() that depends on j alone.
        self._extend_j64 = update[self._left] - update[self._single_gap]
        # The empty deletion: the post's own scores, and the shared features' occurrence counts.
        self._root64 = np.concatenate([self.z_full, self.shared_count])
        self._update, self.new_run = update.astype(np.float32), self._new_run64.astype(np.float32)
        self._extend_j, self.root = self._extend_j64.astype(np.float32), self._root64.astype(np.float32)
        # A model none of whose features occur in the post (the gazetteer scorer on a post naming no place)
        # scores every candidate the same: ranked once, not per candidate.
        self.varies = [bool(update[:, lo:hi].any() or self.shared_rows[:, lo:hi].any())
                       for lo, hi in pairwise(self.offsets.tolist())]
        self.constant_ratio = self._constant_ratio()

    def _constant_ratio(self) -> float:
        """The highest score-to-threshold ratio among the models that score every candidate the same."""
        root_z = self.root[None, :self.width]
        return max((float(link_scores(root_z[:, lo:hi].copy(), scorer.link)[0]) / scorer.threshold
                    for (lo, hi), scorer, varies in zip(pairwise(self.offsets.tolist()), self.scorers,
                                                        self.varies, strict=True) if not varies),
                   default=0.0)

    def extension(self, starts: np.ndarray, js: np.ndarray, precise: bool = False) -> np.ndarray:
        """Correction to ``new_run[js]`` when j extends a run that starts at ``starts`` and ends at j - 1:
        the left bigram was already gone, and the run's gap bigram moves from (start-1, j) to (start-1, j+1)."""
        before = starts - 1  # -1 for a run at the start of the post: the edge row, no gap bigram
        after = np.minimum(js + 1, self.n)
        extend_j, update = (self._extend_j64, self._update64) if precise else (self._extend_j, self._update)
        return extend_j[js] + update[self._gap(before, after)] - update[self._gap(before, js)]

    def _gap(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Feature ids of the gap bigrams (i[k], j[k]): ``none`` where no gap can open (an edge, a run too long)."""
        span = j - i
        inside = (i >= 0) & (span >= 0) & (span < self._gap_band.shape[1])
        out = np.full(len(i), self._none, dtype=np.int64)
        out[inside] = self._gap_band[i[inside], span[inside]]
        return out

    def direct_level(self, m: int) -> _Level:
        """Every way to delete m allowed tokens, scored from the empty deletion in m steps."""
        count = math.comb(len(self.allowed), m)
        picks = np.fromiter(chain.from_iterable(combinations(range(len(self.allowed)), m)), dtype=np.int64,
                            count=count * m)
        positions = self.allowed[picks.reshape(count, m)]
        states, start = self.states_of(positions)
        return _Level(states, positions[:, -1], start, positions)

    def states_of(self, positions: np.ndarray, precise: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Search states of deletion sets (rows of sorted positions, one size), each built from the empty
        deletion in m steps, and the start of each set's last run (float64 when ``precise``). Exact for runs up
        to ``max_run`` long; a longer run misses its gap bigram (the beam ranks with these and re-scores its
        picks exactly)."""
        root, new_run = (self._root64, self._new_run64) if precise else (self.root, self.new_run)
        states = root + new_run[positions[:, 0]]
        start = positions[:, 0].copy()
        for k in range(1, positions.shape[1]):
            js = positions[:, k]
            states += new_run[js]
            extends = js == positions[:, k - 1] + 1
            rows = np.flatnonzero(extends)
            if len(rows):
                states[rows] += self.extension(start[rows], js[rows], precise)
            start = np.where(extends, start, js)
        return states, start

    def refined_ratios(self, positions: np.ndarray) -> np.ndarray:
        """Ratios of deletion sets of one size from float64 search states: the exact ratios but for rounding
        (about 1e-13), for sets whose runs are at most ``max_run`` long (every set of an exhaustive level)."""
        states, _ = self.states_of(positions, precise=True)
        z = states[:, : self.width]
        if len(self.shared_ids):
            z = z + ((states[:, self.width:] > 0.5) - self.shared_present) @ self.shared_rows
        return self.ratios_of_scores(z)[0]

    def approximate_ratios(self, states: np.ndarray) -> np.ndarray:
        """Float32 ratios (largest score / threshold over the models) of search states, for ranking."""
        z = states[:, : self.width]
        if len(self.shared_ids):
            change = (states[:, self.width:] > 0.5).astype(np.float32) - self.shared_present.astype(np.float32)
            touched = np.flatnonzero(change.any(axis=1))
            if len(touched):  # few candidates change a shared feature's presence: correct only those
                z = z.copy()
                z[touched] += change[touched] @ self.shared_rows.astype(np.float32)
        ratio = None
        for k, scorer in enumerate(self.scorers):
            if not self.varies[k]:
                continue
            score = link_scores(z[:, self.offsets[k]: self.offsets[k + 1]], scorer.link) / np.float32(scorer.threshold)
            ratio = score if ratio is None else np.maximum(ratio, score)
        if ratio is None:
            return np.full(len(states), self.constant_ratio, dtype=np.float32)
        return np.maximum(ratio, np.float32(self.constant_ratio)) if self.constant_ratio else ratio

    def exact(self, deleted: Sequence[int]) -> tuple[float, np.ndarray]:
        """Exact ratio and scores of one deletion set, in float64 from its feature set (shortlist and beam)."""
        gone = set(deleted)
        kept = [i for i in range(self.n) if i not in gone]
        norms, parts = self.norms, self._parts
        features = {norms[i] for i in kept}
        for i in kept:
            features.update(parts[i])
        features.update(bigram(norms[a], norms[b]) for a, b in pairwise(kept))
        z = self.intercept.copy()
        for k, scorer in enumerate(self.scorers):
            # Looked up once per post and feature: the gazetteer scorer's vocabulary is not a plain dict.
            cache = self._rows[k]
            rows = []
            for feature in features:
                row = cache.get(feature, -2)
                if row == -2:
                    row = cache[feature] = scorer.vocabulary.get(feature, -1)
                if row >= 0:
                    rows.append(row)
            if rows:
                rows.sort()
                z[self.offsets[k]: self.offsets[k + 1]] += scorer.weights[rows].sum(axis=0, dtype=np.float64)
        ratio, scores = self.ratios_of_scores(z[None, :])
        return float(ratio[0]), scores[0]

    def ratios_of_scores(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(self.scorers) == 1:
            scores = link_scores(z, self.scorers[0].link)[:, None]
        else:
            scores = np.column_stack([link_scores(z[:, self.offsets[k]: self.offsets[k + 1]], s.link)
                                      for k, s in enumerate(self.scorers)])
        return (scores / self.thresholds).max(axis=1), scores


@dataclass(frozen=True)
class _Level:
    """The candidates of one size: search states, last deleted position, start of the last run, positions."""

    states: np.ndarray
    last: np.ndarray
    start: np.ndarray
    positions: np.ndarray

    @staticmethod
    def concat(levels: list[_Level]) -> _Level:
        return _Level(*(np.concatenate([getattr(level, name) for level in levels])
                        for name in ("states", "last", "start", "positions")))


class _Best:
    """The best candidate of a level under the tie rule, fed block by block.

    Blocks are ranked with float32 ratios. Candidates within ``_SHORTLIST_MARGIN`` of the lowest ratio so far
    are put aside; once the level is done, only those within the margin of the level's lowest ratio are scored
    exactly (float64, from their feature sets), and the tie rule is applied to exact ratios. (Scoring them as
    they come would also score everything near each block's own best, thousands of posts' worth on a long post.)
    """

    def __init__(self) -> None:
        self.approx_floor = math.inf
        self.pending: list[tuple[float, tuple[int, ...]]] = []  # (approximate ratio, positions)
        self.exact: Callable[[Sequence[int]], tuple[float, np.ndarray]] | None = None
        self.count = 0
        self.seen: set[bytes] = set()

    def _cut(self) -> float:
        return self.approx_floor * (1 + _SHORTLIST_MARGIN)

    def offer(self, approx: np.ndarray, positions: Callable[[int], Sequence[int]],
              exact: Callable[[Sequence[int]], tuple[float, np.ndarray]], states: np.ndarray | None = None) -> None:
        """``approx``: float32 ratios of a block of candidates; ``positions(k)``: candidate k's deleted
        positions; ``exact(positions)``: its exact ratio and scores. Only near-best candidates are kept.
        With ``states``, a candidate whose search state equals one offered before (the same features left: a
        post that repeats itself) is not kept again: candidates come in lexicographic order, so the earlier
        one wins the tie anyway."""
        self.count += len(approx)
        self.exact = exact
        low = float(approx.min())
        if low > self._cut():
            return
        if low < self.approx_floor:
            self.approx_floor = low
            if len(self.pending) > 4096:  # a lower floor leaves most of what was put aside behind
                cut = self._cut()
                self.pending = [p for p in self.pending if p[0] <= cut]
        for k in np.flatnonzero(approx <= self._cut()):
            if states is not None:
                key = states[k].tobytes()
                if key in self.seen:
                    continue
                self.seen.add(key)
            self.pending.append((float(approx[k]), tuple(int(p) for p in positions(int(k)))))

    def deletion(self, scorers: Sequence[LinearScorer], exhaustive: bool,
                 refine: Callable[[np.ndarray], np.ndarray] | None = None) -> Deletion:
        """The tie rule's pick among the candidates put aside, on exact ratios. ``refine`` (exhaustive levels:
        every candidate's runs within the post's max_run) gives float64 ratios of many candidates at once, off
        the exact ones by rounding only (< ``_ROUNDING``). With it a long shortlist (thousands of candidates
        that tie on one model's score, as when the post's places are gone and the gazetteer scorer's prior
        decides) needs exact scores only for the few candidates whose place in the tie rule rounding could
        change."""
        cut = self._cut()
        shortlist = [candidate for approx, candidate in self.pending if approx <= cut]
        exact_of: dict[tuple[int, ...], tuple[float, np.ndarray]] = {}

        def exact(candidate: tuple[int, ...]) -> tuple[float, np.ndarray]:
            if candidate not in exact_of:
                exact_of[candidate] = self.exact(candidate)
            return exact_of[candidate]

        if refine is not None and len(shortlist) > _REFINE_ABOVE:
            refined = refine(np.array(shortlist, dtype=np.int64))
            low = float(refined.min())
            # The exact lowest ratio is among the candidates within twice the rounding of the refined lowest;
            # those that tie exactly (one model's score the same for all) need one exact score per value.
            near = np.flatnonzero(refined <= low + 2 * _ROUNDING)
            _, first = np.unique(refined[near], return_index=True)
            floor = min(exact(shortlist[int(k)])[0] for k in near[first[:64]])
            tied = [c for c, r in zip(shortlist, refined.tolist(), strict=True)
                    if r <= floor + TIE_TOLERANCE - _ROUNDING
                    or (r <= floor + TIE_TOLERANCE + _ROUNDING and exact(c)[0] <= floor + TIE_TOLERANCE)]
        else:
            floor = min(exact(c)[0] for c in shortlist)
            tied = [c for c in shortlist if exact(c)[0] <= floor + TIE_TOLERANCE]
        positions = min(tied)
        ratio, scores = exact(positions)
        return Deletion(positions, ratio, {s.name: float(scores[k]) for k, s in enumerate(scorers)},
                        exhaustive, self.count)


class Deidentifier:
    """Finds the fewest deletions that bring every model under its threshold (scikit-learn-style, configured
    here, applied per post by ``deidentify``)."""

    def __init__(self, scorers: Sequence[LinearScorer], *, max_candidates: int = 2_000_000,
                 max_work: int = DEFAULT_MAX_WORK, beam_width: int = 64, beam_above: int = 40,
                 rank_above: int = 120) -> None:
        if not scorers:
            raise ValueError("at least one scorer is needed")
        if len({s.name for s in scorers}) != len(scorers):
            raise ValueError("scorer names must be unique")
        self.scorers = list(scorers)
        self.max_candidates, self.beam_width, self.beam_above = max_candidates, beam_width, beam_above
        self.max_work = max_work  # search-state numbers computed by the exhaustive levels of one search, in all
        self.rank_above = rank_above  # so many deletable units: the bounded ranking from the start

    def scores(self, norms: Sequence[str]) -> dict[str, float]:
        post = _Post(norms, [], self.scorers, max_run=0)
        _, scores = post.ratios_of_scores(post.z_full[None, :])
        return {s.name: float(scores[0, k]) for k, s in enumerate(self.scorers)}

    def distributions(self, norms: Sequence[str]) -> dict[str, np.ndarray]:
        """Each softmax scorer's probabilities over its columns for a post (its score is their maximum)."""
        post = _Post(norms, [], self.scorers, max_run=0)
        out = {}
        for k, scorer in enumerate(self.scorers):
            if scorer.link == "softmax_max":
                z = np.asarray(post.z_full[post.offsets[k]: post.offsets[k + 1]], dtype=np.float64)
                p = np.exp(z - z.max())
                out[scorer.name] = p / p.sum()
        return out

    def deidentify(self, norms: Sequence[str], deletable: Sequence[bool] | None = None, *, m: int | None = None,
                   keep: Sequence[int] = (), deadline: Deadline | None = None) -> Deidentification:
        """Automatic mode (``m=None``): the fewest deletions under the thresholds. Fixed mode: the best
        deletion of exactly ``m`` tokens. ``deletable`` marks tokens that may be deleted (default all);
        ``keep`` lists token indices the user forbids deleting. Past ``deadline`` the search stops between two
        of its steps with DeadlineExceeded (the work budget bounds it first; this is the backstop)."""
        n = len(norms)
        deletable = [True] * n if deletable is None else list(deletable)
        forbidden = set(keep)
        allowed = [i for i in range(n) if deletable[i] and i not in forbidden]
        if m is not None and not 0 <= m <= len(allowed):
            raise TooFewDeletable(gettext("The post has %(n)d deletable units (words or whole place names), so "
                                          "exactly %(m)d cannot be deleted.") % {"n": len(allowed), "m": m})
        last = len(allowed) if m is None else m
        post = _Post(norms, allowed, self.scorers, max_run=self._longest_exhaustive(len(allowed), last))
        ratio0, scores0 = post.ratios_of_scores(post.z_full[None, :])
        before = self._named(scores0[0])
        thresholds = {s.name: s.threshold for s in self.scorers}
        searched: list[dict] = []
        if m == 0 or (m is None and ratio0[0] < 1):
            return Deidentification((), before, before, thresholds, bool(ratio0[0] < 1), True, True, 1,
                                    searched=searched)
        if not allowed:  # everything is kept or cannot be deleted: nothing to search
            names = ", ".join(f"{name} {score:.3f} (threshold {thresholds[name]:.3f})"
                              for name, score in before.items())
            return Deidentification((), before, before, thresholds, False, True, True, 1,
                                    f"No unit may be deleted (all are kept or are symbols), and the post scores: "
                                    f"{names}.", searched)
        best: Deletion | None = None
        total = 0
        for deletion in self._search(post, last, evaluate_all=m is None, deadline=deadline):
            total += deletion.candidates
            searched.append({"m": len(deletion.positions), "ratio": deletion.ratio,
                             "exhaustive": deletion.exhaustive, "candidates": deletion.candidates})
            best = deletion
            if m is None and deletion.ratio < 1:
                break
        assert best is not None
        under = best.ratio < 1
        # Automatic mode stops at the first size that works, so every smaller size was searched and failed.
        minimal = (m is None and under and len(searched) == len(best.positions)
                   and all(step["exhaustive"] for step in searched[:-1]))
        reason = ""
        if not under:
            names = gettext(", ").join(gettext("%(name)s %(score)s (threshold %(threshold)s)") % {
                "name": name, "score": f"{score:.3f}", "threshold": f"{thresholds[name]:.3f}"}
                for name, score in best.scores.items())
            values = {"m": len(best.positions), "n": len(allowed), "names": names}
            reason = (ngettext("Deleting %(m)d of the %(n)d deletable token leaves: %(names)s.",
                               "Deleting %(m)d of the %(n)d deletable tokens leaves: %(names)s.", len(allowed))
                      if m is not None else
                      ngettext("Even deleting all %(n)d deletable token leaves: %(names)s. The rest of the post and "
                               "the model's prior keep it above the threshold.",
                               "Even deleting all %(n)d deletable tokens leaves: %(names)s. The rest of the post "
                               "and the model's prior keep it above the threshold.", len(allowed))) % values
        return Deidentification(best.positions, before, best.scores, thresholds, under, best.exhaustive, minimal,
                                total + 1, reason, searched)

    def best_deletion(self, norms: Sequence[str], m: int, allowed: Sequence[int] | None = None) -> Deletion:
        """The best way to delete exactly m of the allowed tokens (all tokens by default)."""
        allowed = list(range(len(norms))) if allowed is None else list(allowed)
        post = _Post(norms, allowed, self.scorers, max_run=self._longest_exhaustive(len(allowed), m))
        *_, last = self._search(post, m, evaluate_all=False)
        return last

    # -- search -------------------------------------------------------------------------------------------
    def _longest_exhaustive(self, allowed: int, last: int) -> int:
        """The largest size searched exhaustively: gap bigrams are only needed for runs up to that long."""
        m = 1
        while m < last and math.comb(allowed, m + 1) <= self.max_candidates:
            m += 1
        return m

    def _named(self, scores: np.ndarray) -> dict[str, float]:
        return {s.name: float(scores[k]) for k, s in enumerate(self.scorers)}

    def _search(self, post: _Post, last_m: int, *, evaluate_all: bool, deadline: Deadline | None = None):
        """Yield the best Deletion of each size up to last_m (only the last one unless evaluate_all)."""
        a = len(post.allowed)
        # The level before m = 1: one empty deletion; last = -2 so that no position "extends" its run.
        parents = _Level(post.root[None, :], np.array([-2]), np.array([0]), np.zeros((1, 0), dtype=np.int64))
        if a > self.rank_above and (evaluate_all or math.comb(a, last_m) > self.max_candidates):
            yield from self._ranked(post, 1, last_m, evaluate_all)
            return
        work_left = self.max_work
        for m in range(1, last_m + 1):
            check(deadline)
            count = math.comb(a, m)
            evaluate = evaluate_all or m == last_m
            keep = m < last_m
            if (count > self.max_candidates or count * post.dim > work_left
                    or (keep and count > _MAX_STORED_STATES)):
                if m > 1 and parents.positions.shape[1] != m - 1:  # the previous level was skipped
                    parents = post.direct_level(m - 1)
                yield from self._beam(post, m, last_m, parents if m > 1 else None, evaluate_all, deadline)
                return
            if not evaluate and math.comb(a, m + 1) <= _DIRECT_LIMIT:
                continue  # the next level is small enough to score directly: this one is not needed
            work_left -= count * post.dim
            if count <= _DIRECT_LIMIT and parents.positions.shape[1] != m - 1:
                parents = post.direct_level(m)
                best = _Best()
                if evaluate:
                    best.offer(post.approximate_ratios(parents.states), parents.positions.__getitem__, post.exact,
                               parents.states)
            else:
                if parents.positions.shape[1] != m - 1:  # the previous level was skipped: build it
                    parents = post.direct_level(m - 1)
                best, parents = self._level(post, parents, evaluate, keep)
            if evaluate:
                deletion = best.deletion(self.scorers, exhaustive=True, refine=post.refined_ratios)
                yield deletion
                if evaluate_all and deletion.ratio < 1:
                    return

    @staticmethod
    def _level(post: _Post, parents: _Level, evaluate: bool, keep: bool) -> tuple[_Best, _Level | None]:
        """All children of a level (each parent plus one allowed position after its last), in blocks."""
        allowed = post.allowed
        first = np.searchsorted(allowed, parents.last, side="right")  # first allowed position after `last`
        counts = len(allowed) - first
        ends = np.cumsum(counts)
        best, kept = _Best(), []
        lo = 0
        while lo < len(counts):
            # Parents [lo, hi) have about _CHUNK children in all.
            hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + _CHUNK, side="right")))
            block = counts[lo:hi]
            parent = np.repeat(np.arange(lo, hi), block)
            within = np.arange(len(parent)) - np.repeat(np.cumsum(block) - block, block)
            js = allowed[np.repeat(first[lo:hi], block) + within]
            states = parents.states[parent] + post.new_run[js]
            extends = np.flatnonzero(js == parents.last[parent] + 1)
            if len(extends):
                states[extends] += post.extension(parents.start[parent[extends]], js[extends])
            if evaluate and len(js):
                best.offer(post.approximate_ratios(states),
                           lambda k, parent=parent, js=js: (*parents.positions[parent[k]], js[k]), post.exact,
                           states)
            if keep:
                starts = js.copy()
                starts[extends] = parents.start[parent[extends]]
                kept.append(_Level(states, js, starts, np.column_stack([parents.positions[parent], js])))
            lo = hi
        return best, (_Level.concat(kept) if keep else None)

    def _ranked(self, post: _Post, first_m: int, last_m: int, evaluate_all: bool):
        """For posts with more than ``beam_above`` deletable units: rank the units by what deleting each alone
        does, and delete the k best-ranked, with k found by bisection (exact scores). Bounded time (a few
        dozen exact scorings), not optimal, and labelled so."""
        # Units of the same norm go together: with a binary bag, deleting one of thirty "Des Moines" does nothing.
        groups: dict[str, list[int]] = {}
        for position in post.allowed.tolist():
            groups.setdefault(post.norms[position], []).append(position)
        # Each group's ratio when it alone is deleted, from float64 search states, groups of one size at a time:
        # one exact scoring per group would re-read the whole post per group (quadratic in its length).
        # Rounded so that groups with the same effect tie, and the tie goes to the earlier one.
        alone: dict[int, float] = {}
        by_size: dict[int, list[list[int]]] = {}
        for group in groups.values():
            by_size.setdefault(len(group), []).append(group)
        for same_size in by_size.values():
            ratios = np.round(post.refined_ratios(np.array(same_size, dtype=np.int64)), 9)
            alone.update(zip((group[0] for group in same_size), ratios.tolist(), strict=True))
        ranked = sorted(groups.values(), key=lambda group: (alone[group[0]], group[0]))
        order = [position for group in ranked for position in group]

        def deletion(k: int) -> Deletion:
            positions = tuple(sorted(order[:k]))
            ratio, scores = post.exact(positions)
            return Deletion(positions, ratio, {s.name: float(scores[i]) for i, s in enumerate(self.scorers)},
                            False, 1)

        if not evaluate_all:
            yield deletion(last_m)
            return
        low, high = max(first_m, 1) - 1, last_m  # deleting `high` gets under or nothing does
        found = deletion(high)
        if found.ratio >= 1:
            yield found
            return
        while high - low > 1:
            middle = (low + high) // 2
            trial = deletion(middle)
            if trial.ratio < 1:
                high, found = middle, trial
            else:
                low = middle
        yield found

    def _beam(self, post: _Post, first_m: int, last_m: int, parents, evaluate_all: bool,
              deadline: Deadline | None = None):
        """Beam search from level first_m on: keep the beam_width best sets, extend each by one position."""
        if len(post.allowed) > self.beam_above:
            yield from self._ranked(post, first_m, last_m, evaluate_all)
            return
        if parents is not None:
            ratios = post.approximate_ratios(parents.states)
            order = np.lexsort((np.arange(len(ratios)), ratios))[: self.beam_width]
            beam = [tuple(int(p) for p in parents.positions[k]) for k in order]
        else:
            beam = [()]
            first_m = 1
        for m in range(first_m, last_m + 1):
            check(deadline)
            candidates = sorted({tuple(sorted((*kept, j))) for kept in beam for j in post.allowed.tolist()
                                 if j not in kept})
            if not candidates:
                return
            # Every child is ranked from incremental states (vectorized); only the most promising are scored
            # exactly from their feature sets, and the beam is chosen among those by exact ratio.
            positions = np.array(candidates, dtype=np.int64)
            approx = np.concatenate([post.approximate_ratios(post.states_of(positions[lo: lo + _CHUNK])[0])
                                     for lo in range(0, len(positions), _CHUNK)])
            picked = [candidates[k] for k in np.lexsort((np.arange(len(approx)), approx))[: 2 * self.beam_width]]
            ratios = np.array([post.exact(c)[0] for c in picked])
            best = _Best()
            best.offer(ratios, picked.__getitem__, post.exact)
            best.count = len(candidates)
            beam = [picked[k] for k in np.lexsort((np.arange(len(ratios)), ratios))[: self.beam_width]]
            deletion = best.deletion(self.scorers, exhaustive=False)
            if evaluate_all or m == last_m:
                yield deletion
                if evaluate_all and deletion.ratio < 1:
                    return
