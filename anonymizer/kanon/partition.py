"""Partitioning the person-centric view into equivalence classes of at least k persons.

Mondrian (LeFevre et al. 2006) as modified by rx-anon: a partition of at least 2k persons is cut in two on
the candidate attribute with the highest priority whose cut leaves >= k persons (and, with l-diversity, >= l
sensitive values) on each side. Candidates are the relational quasi-identifiers and one text attribute per
entity type (each person's most frequent term of that type). Priority, with the span of the attribute in the
partition normalised by its span in the whole dataset:
    relational: (span + 2 * bias + lambda) / 2        textual: (span + 1 - lambda) / 2
as rx-anon computes it; lambda = 0 considers text attributes only and lambda = 1 relational ones only.
With term hierarchies (``hierarchies``) a text attribute's terms are sorted along their hierarchy (country,
state, city) before being cut in halves, so a class gets neighbours that share an ancestor. Its span stays
rx-anon's (distinct terms): the information a part's terms would lose as one class (their least common
ancestor's level) stays near 1 until parts are small, so as a span it made text cuts win over relational ones —
on blogs_20k, k = 2, λ = 0.5: NCP_A 0.134 / NCP_X 0.956, against 0.060 / 0.973 with rx-anon's span.
Numbers and dates are cut at the median (values equal to the median
stay together), categories into the first and second half of their sorted distinct values.

GDF (rx-anon's greedy baseline) cuts on sensitive terms instead: it picks the term carried by the largest
share of the persons with a term of its type (at least k of them), and separates those persons from the
others, recursively, while both sides keep >= k persons.

Both are deterministic: ties are broken by the configured attribute order and by sorted values.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from anonymizer.kanon.view import PersonView


@dataclass
class Partitioning:
    classes: list[np.ndarray]  # person indices of each equivalence class
    splits: Counter = field(default_factory=Counter)  # attribute (or "text:TYPE") -> cuts made on it


@dataclass(frozen=True)
class Candidate:
    name: str  # attribute name, or "text:LABEL"
    kind: str  # "number" or "category"
    relational: bool
    bias: float = 0.0


def candidates(view: PersonView, config) -> list[Candidate]:
    out = []
    for attribute in config.quasi_identifiers:
        if attribute.type == "text":
            continue
        kind = "number" if attribute.name in view.numbers else "category"
        out.append(Candidate(attribute.name, kind, True, attribute.bias))
    out += [Candidate(name, "category", False) for name in view.codes if name.startswith("text:")]
    return out


class _Spans:
    def __init__(self, view: PersonView) -> None:
        self.view = view

    def span(self, candidate: Candidate, part: np.ndarray) -> float:
        if candidate.kind == "number":
            values = self.view.numbers[candidate.name][part]
            values = values[~np.isnan(values)]
            return float(values.max() - values.min()) if len(values) else 0.0
        return float(len(np.unique(self.view.codes[candidate.name][part])))


def _cut(view: PersonView, candidate: Candidate, part: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    if candidate.kind == "number":
        values = view.numbers[candidate.name][part]
        values = np.where(np.isnan(values), np.inf, values)  # persons without a value go to the upper side
        finite = values[np.isfinite(values)]
        if not len(finite):
            return None
        median = float(np.median(finite))
        left = values < median
        if left.sum() < k:  # many persons at the median: keep them on the lower side instead
            left = values <= median
    else:
        codes = view.codes[candidate.name][part]
        distinct = np.unique(codes)
        if len(distinct) < 2:
            return None
        left = np.isin(codes, distinct[: len(distinct) // 2])
    return part[left], part[~left]


def _diverse(view: PersonView, part: np.ndarray, l_diversity) -> bool:
    if l_diversity is None:
        return True
    column, needed = l_diversity
    seen: set = set()
    for person in part.tolist():
        seen |= view.sensitive[column][person]
        if len(seen) >= needed:
            return True
    return False


#: Parts smaller than this are cut in plain Python on their rows: numpy's cost per call (a few microseconds for
#: np.unique, np.median, fancy indexing) outweighs its speed below a few hundred persons, and a million persons
#: in classes of two make a million such parts. Both ways choose the same cuts (tests/kanon/core).
SMALL_PART = 256


def mondrian(view: PersonView, config) -> Partitioning:
    k, weight = config.k, config.relational_weight
    pool = [c for c in candidates(view, config)
            if not (weight == 0 and c.relational) and not (weight == 1 and not c.relational)]
    spans = _Spans(view)
    everyone = np.arange(view.size)
    scale = {c.name: spans.span(c, everyone) for c in pool}
    pool = [c for c in pool if scale[c.name] > 0]
    # Every candidate's value per person, side by side, for the small parts (codes are exact as floats).
    table = np.column_stack([view.numbers[c.name] if c.kind == "number" else view.codes[c.name].astype(float)
                             for c in pool]) if pool else np.empty((view.size, 0))
    bonuses = [2 * c.bias + weight if c.relational else 1 - weight for c in pool]
    scales = [scale[c.name] for c in pool]
    numeric = [c.kind == "number" for c in pool]
    result = Partitioning([])
    queue = deque([everyone])
    while queue:
        part = queue.popleft()
        if len(part) < 2 * k:
            result.classes.append(part)
            continue
        if len(part) < SMALL_PART:
            cut = _cut_small(part, table[part].tolist(), pool, numeric, scales, bonuses, k, view, config.l_diversity)
            if cut is None:
                result.classes.append(part)
            else:
                name, left, right = cut
                result.splits[name] += 1
                queue.extend((left, right))
            continue
        priority = []
        for order, candidate in enumerate(pool):
            span = spans.span(candidate, part) / scale[candidate.name]
            if span == 0:
                continue
            bonus = 2 * candidate.bias + weight if candidate.relational else 1 - weight
            priority.append((-(span + bonus) / 2, order, candidate))
        for _, _, candidate in sorted(priority, key=lambda item: (item[0], item[1])):
            cut = _cut(view, candidate, part, k)
            if cut is None:
                continue
            left, right = cut
            if len(left) >= k and len(right) >= k and _diverse(view, left, config.l_diversity) and _diverse(
                    view, right, config.l_diversity):
                result.splits[candidate.name] += 1
                queue.extend((left, right))
                break
        else:
            result.classes.append(part)
    return result


def _cut_small(part: np.ndarray, rows: list[list[float]], pool: list[Candidate], numeric: list[bool],
               scales: list[float], bonuses: list[float], k: int, view: PersonView, l_diversity
               ) -> tuple[str, np.ndarray, np.ndarray] | None:
    """Mondrian's step on a small part, in Python on its rows (``table[part]``): the same priorities and cuts
    as ``_Spans.span`` and ``_cut``. (attribute, left, right), or None when no cut is allowed."""
    columns = list(zip(*rows, strict=True))
    priority = []
    for order, column in enumerate(columns):
        if numeric[order]:
            present = [v for v in column if v == v]  # NaN: missing
            span = (max(present) - min(present)) if present else 0.0
        else:
            span = float(len(set(column)))
        span /= scales[order]
        if span == 0:
            continue
        priority.append((-(span + bonuses[order]) / 2, order))
    for _, order in sorted(priority):
        column = columns[order]
        if numeric[order]:
            values = [v if v == v else math.inf for v in column]  # persons without a value go to the upper side
            finite = sorted(v for v in values if v != math.inf)
            if not finite:
                continue
            middle = len(finite) // 2
            median = finite[middle] if len(finite) % 2 else (finite[middle - 1] + finite[middle]) / 2
            left = [v < median for v in values]
            if sum(left) < k:  # many persons at the median: keep them on the lower side instead
                left = [v <= median for v in values]
        else:
            distinct = sorted(set(column))
            if len(distinct) < 2:
                continue
            lower = set(distinct[: len(distinct) // 2])
            left = [v in lower for v in column]
        inside = np.array(left, dtype=bool)
        low, high = part[inside], part[~inside]
        if len(low) >= k and len(high) >= k and _diverse(view, low, l_diversity) and _diverse(view, high, l_diversity):
            return pool[order].name, low, high
    return None


def gdf(view: PersonView, config) -> Partitioning:
    k = config.k
    # One column per (entity type, term), types and terms sorted: which persons hold it. Counting a partition's
    # holders of every term is then one sparse sum over the partition's rows.
    labels = sorted(view.terms)
    matrices = [view.terms[label].matrix() for label in labels]
    columns = [(label, key) for label in labels for key in view.terms[label].keys]
    holds = sp.hstack(matrices, format="csr", dtype=np.int32) if matrices else sp.csr_matrix((view.size, 0),
                                                                                             dtype=np.int32)
    label_index = np.repeat(np.arange(len(labels), dtype=np.int64), [m.shape[1] for m in matrices])
    has_type = np.column_stack([view.terms[label].counts() > 0 for label in labels]).astype(np.int64) if labels \
        else np.zeros((view.size, 0), dtype=np.int64)
    result = Partitioning([])
    stack = [(np.arange(view.size), np.zeros(len(columns), dtype=bool))]
    while stack:
        part, used = stack.pop()
        chosen = None
        if len(part) >= 2 * k and len(columns):
            counts = np.asarray(holds[part].sum(axis=0)).ravel()
            with_type = has_type[part].sum(axis=0)[label_index]
            share = np.where((counts >= k) & ~used, counts / np.maximum(with_type, 1), 0.0)
            if share.max() > 0:
                chosen = int(np.argmax(share))  # the first (sorted) term on ties
        if chosen is None:
            result.classes.append(part)
            continue
        inside = np.asarray(holds[part][:, chosen].todense()).ravel() > 0
        left, right = part[inside], part[~inside]
        if len(left) < k or len(right) < k or not _diverse(view, left, config.l_diversity) or not _diverse(
                view, right, config.l_diversity):
            result.classes.append(part)
            continue
        result.splits[f"text:{columns[chosen][0]}"] += 1
        used = used.copy()
        used[chosen] = True
        stack.extend(((right, used), (left, used)))
    result.classes.sort(key=lambda c: int(c.min()))
    return result


class TooFewPersons(ValueError):
    """The dataset cannot be k-anonymous at all: it has fewer than k persons."""


def partition(view: PersonView, config) -> Partitioning:
    if view.size < config.k:
        raise TooFewPersons(f"The dataset has {view.size} persons, fewer than k = {config.k}: no class of k persons "
                         "can be formed.")
    return gdf(view, config) if config.strategy == "gdf" else mondrian(view, config)
