"""Recoding each equivalence class back into the dataset's own form.

Relational quasi-identifiers are generalised over all values of the class's persons: a number to its range
(or the smallest node of its hierarchy covering the range), a date to the day, month, year or range of years
that covers the class, a nominal value to the set of values, an ordinal one to the range of its order. In the
texts, a redundant term gets the class's generalised value of its attribute in place of the value it states;
every other sensitive term becomes the most specific node of its hierarchy (``hierarchies``) that every person
of the class holds — the class's least common ancestor: the term itself when all have it ("UK"), a broader
value when all have one under it ("a city in Nebraska"), its entity type when they share nothing.
"""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass
from datetime import date

import numpy as np

from anonymizer.kanon.hierarchies import TermHierarchies, TermNode
from anonymizer.kanon.table import Table
from anonymizer.kanon.view import MISSING_LABEL, PersonView, format_number, redundant_match


@dataclass(frozen=True)
class Generalization:
    """One attribute's value for a whole class, with what the NCP needs to know about it."""

    text: str  # as written in the output
    low: object = None  # numbers and dates: the covered interval (inclusive)
    high: object = None
    members: frozenset = frozenset()  # categories: the covered values
    period: str = "value"  # dates: "day", "month", "year" or "years"; numbers: "value", "range" or "node"


def _numbers(values: list[float], attribute) -> Generalization:
    low, high = min(values), max(values)
    if low == high:
        return Generalization(format_number(low), low, high, period="value")
    if attribute.hierarchy is not None:
        node = attribute.hierarchy.smallest_covering(low, high)
        return Generalization(f"[{node.low}-{node.high}]", node.low, node.high, period="node")
    return Generalization(f"[{format_number(low)}-{format_number(high)}]", low, high, period="range")


def _dates(values: list[date]) -> Generalization:
    low, high = min(values), max(values)
    if low == high:
        return Generalization(low.isoformat(), low, high, period="day")
    if (low.year, low.month) == (high.year, high.month):
        return Generalization(f"{low.year}-{low.month:02d}", date(low.year, low.month, 1),
                              _month_end(low.year, low.month), period="month")
    if low.year == high.year:
        return Generalization(str(low.year), date(low.year, 1, 1), date(low.year, 12, 31), period="year")
    return Generalization(f"[{low.year}-{high.year}]", date(low.year, 1, 1), date(high.year, 12, 31), period="years")


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _categories(values: list[str], attribute) -> Generalization:
    distinct = sorted(set(values))
    if len(distinct) == 1:
        return Generalization(distinct[0], members=frozenset(distinct))
    if attribute.type == "ordinal" and attribute.order:
        order = list(attribute.order)
        low, high = min(order.index(v) for v in distinct), max(order.index(v) for v in distinct)
        covered = order[low: high + 1]
        return Generalization(f"[{covered[0]}-{covered[-1]}]", members=frozenset(covered))
    return Generalization("(" + ",".join(distinct) + ")", members=frozenset(distinct))


def generalize(values: list, attribute) -> Generalization:
    """The class value of an attribute from all its persons' values (missing ones shown as "missing")."""
    present = [v for v in values if v is not None]
    missing = len(present) < len(values)
    if not present:
        return Generalization(MISSING_LABEL, members=frozenset({None}))
    if attribute.type == "numerical":
        result = _numbers(present, attribute)
    elif attribute.type == "date":
        result = _dates(present)
    else:
        result = _categories([str(v) for v in present], attribute)
    if missing:
        return Generalization(f"{result.text} or {MISSING_LABEL}", result.low, result.high,
                              result.members | {None}, result.period)
    return result


@dataclass
class ClassRecoding:
    """What a class releases: each quasi-identifier's value and, per entity type, the hierarchy nodes of terms
    that every person of the class holds (a node is held by a person when one of their terms has it on its
    path). Without generalization the nodes are the terms themselves (rx-anon: a term is kept when shared)."""

    persons: np.ndarray
    relational: dict[str, Generalization]
    shared: dict[str, frozenset[tuple[str, str]]]

    def released(self, label: str, path: tuple[TermNode, ...]) -> TermNode:
        """The most specific node of a term's path that the whole class shares; the type when none is."""
        shared = self.shared.get(label, frozenset())
        for node in path[:-1]:
            if node.key in shared:
                return node
        return path[-1]


def person_nodes(view: PersonView, hierarchies: TermHierarchies) -> dict[str, list[frozenset]]:
    """Per entity type and person: every node on the paths of their terms (the root left out)."""
    out = {}
    for label, per_person in view.terms.items():
        spelling = view.spellings.get(label, {})
        nodes_of = {key: frozenset(node.key for node in hierarchies.path(label, key, text)[:-1])
                    for key, text in spelling.items()}
        empty: frozenset = frozenset()
        out[label] = [empty.union(*(nodes_of[key] for key in keys)) if keys else empty for keys in per_person]
    return out


def recode_classes(view: PersonView, classes: list[np.ndarray], config, hierarchies: TermHierarchies | None = None
                   ) -> tuple[list[ClassRecoding], np.ndarray]:
    """The recoding of every class, and the class index of every person."""
    if hierarchies is None:
        hierarchies = TermHierarchies(enabled=False)
    held = person_nodes(view, hierarchies)
    person_class = np.empty(view.size, dtype=np.int64)
    out = []
    for index, members in enumerate(classes):
        person_class[members] = index
        people = members.tolist()
        relational = {}
        for attribute in config.quasi_identifiers:
            if attribute.type == "text":
                continue
            per_person = view.values[attribute.name]
            relational[attribute.name] = generalize([v for p in people for v in per_person[p]], attribute)
        shared = {}
        for label, per_person in held.items():
            sets = [per_person[p] for p in people]
            if not all(sets):  # a person without a term of the type: the class shares none (most types, most classes)
                shared[label] = frozenset()
                continue
            sets.sort(key=len)  # smallest first: the intersection is quick
            shared[label] = frozenset.intersection(*sets)
        out.append(ClassRecoding(members, relational, shared))
    return out, person_class


def recode_text(text: str, terms, row: int, recoding: ClassRecoding, config, table: Table,
                hierarchies: TermHierarchies | None = None, spellings: dict | None = None,
                counts: Counter | None = None) -> str:
    """A post with each sensitive term recoded: with the class's relational value when it states one, else as
    the most specific node of its hierarchy the class shares (the term itself when shared, its type when
    nothing is). ``spellings``: the view's first spelling per type and key (so paths match the view's);
    ``counts`` gets one "kept", "generalized" or "type" per term written."""
    if hierarchies is None:
        hierarchies = TermHierarchies(enabled=False)
    wanted = set(config.entity_types) | {c.label for c in config.custom_entities}
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    pieces, position = [], 0
    for term in sorted(terms, key=lambda t: t.start):
        if term.label not in wanted or term.start < position:
            continue
        pieces.append(text[position: term.start])
        redundant = redundant_match(term, row, qis, table)
        if redundant is not None:
            attribute, (start, end) = redundant
            value = recoding.relational[attribute.name].text
            pieces.append(term.text[:start] + value + term.text[end:])
        else:
            key = term.key()
            spelling = (spellings or {}).get(term.label, {}).get(key, term.text)
            path = hierarchies.path(term.label, key, spelling)
            node = recoding.released(term.label, path)
            kept = node.level == path[0].level and node is not path[-1]
            pieces.append(term.text if kept else node.text)
            if counts is not None:
                counts["kept" if kept else "type" if node is path[-1] else "generalized"] += 1
        position = term.end
    pieces.append(text[position:])
    return "".join(pieces)
