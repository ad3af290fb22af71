"""Recoding each equivalence class back into the dataset's own form.

Relational quasi-identifiers are generalised over all values of the class's persons: a number to its range
(or the smallest node of its hierarchy covering the range), a date to the day, month, year or range of years
that covers the class, a nominal value to the set of values, an ordinal one to the range of its order. In the
texts, a sensitive term that every person of the class has (same type, same normalised text) stays as
written; a redundant term gets the class's generalised value of its attribute in place of the value it
states; every other sensitive term is replaced by its entity type.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date

import numpy as np

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
    """What a class releases: each quasi-identifier's value and, per entity type, the terms it keeps."""

    persons: np.ndarray
    relational: dict[str, Generalization]
    kept_terms: dict[str, frozenset[str]]


def recode_classes(view: PersonView, classes: list[np.ndarray], config) -> tuple[list[ClassRecoding], np.ndarray]:
    """The recoding of every class, and the class index of every person."""
    person_class = np.empty(view.size, dtype=np.int64)
    out = []
    for index, members in enumerate(classes):
        person_class[members] = index
        relational = {}
        for attribute in config.quasi_identifiers:
            if attribute.type == "text":
                continue
            per_person = view.values[attribute.name]
            relational[attribute.name] = generalize([v for p in members.tolist() for v in per_person[p]], attribute)
        kept = {}
        for label, per_person in view.terms.items():
            sets = [per_person[p] for p in members.tolist()]
            kept[label] = frozenset.intersection(*sets) if sets else frozenset()
        out.append(ClassRecoding(members, relational, kept))
    return out, person_class


def recode_text(text: str, terms, row: int, recoding: ClassRecoding, config, table: Table) -> str:
    """A post with its sensitive terms kept, recoded with the class's relational value, or replaced by type."""
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
        elif term.key() in recoding.kept_terms.get(term.label, ()):
            pieces.append(term.text)
        else:
            pieces.append(term.label)
        position = term.end
    pieces.append(text[position:])
    return "".join(pieces)
