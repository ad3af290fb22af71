"""The person-centric view D* of rx-anon: one record per person (the direct identifier), with the set of their
values for every relational attribute and, per entity type, the set of non-redundant sensitive terms of all
their texts. A term is redundant when it states a relational value of the same row under an entity type that
the attribute is mapped to (e.g. "36 years old" next to age 36): it is recoded with that attribute instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

import numpy as np

from anonymizer.kanon.table import Table, as_number

MISSING_LABEL = "missing"


def format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@lru_cache(maxsize=4096)
def _word(text: str) -> re.Pattern:
    return re.compile(r"(?<!\w)" + re.escape(text) + r"(?!\w)", re.IGNORECASE)


def value_spellings(value: object, attribute) -> list[str]:
    """How a relational value can be written in a text."""
    if value is None:
        return []
    if attribute.type == "numerical":
        return [format_number(value)]
    if attribute.type == "date":
        assert isinstance(value, date)
        return [value.strftime(attribute.date_format), value.isoformat(), str(value.year)]
    return [str(value)]


def redundant_match(term, row: int, attributes: Sequence, table: Table) -> tuple[object, tuple[int, int]] | None:
    """(attribute, span inside the term's text) when the term states this row's value of a mapped attribute."""
    for attribute in attributes:
        if term.label not in attribute.entities:
            continue
        for spelling in value_spellings(table.columns[attribute.name].values[row], attribute):
            found = _word(spelling).search(term.text)
            if found:
                return attribute, found.span()
    return None


@dataclass
class PersonView:
    persons: list[str]  # in order of first appearance
    row_person: np.ndarray  # person index of every row
    values: dict[str, list[list]]  # attribute -> per person: sorted distinct non-missing values (+ None if missing)
    numbers: dict[str, np.ndarray]  # numerical / date attributes: per person mean (NaN when all missing)
    codes: dict[str, np.ndarray]  # nominal / ordinal attributes and entity types: per person code of the mode
    labels: dict[str, list]  # code -> value, codes in sort order (nominal: value order; ordinal: configured order)
    terms: dict[str, list[frozenset[str]]]  # entity type -> per person: non-redundant term keys
    sensitive: dict[str, list[frozenset]]  # sensitive attribute -> per person: its values (for l-diversity)
    spellings: dict[str, dict[str, str]] = field(default_factory=dict)  # type -> term key -> first spelling

    @property
    def size(self) -> int:
        return len(self.persons)


def _mode(values: list) -> object:
    counts = Counter(values)
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)  # ties: the smallest, for determinism


def build_view(table: Table, config, row_terms: Sequence[Sequence], hierarchies=None) -> PersonView:
    """Group rows by person. ``row_terms[row]`` are the sensitive terms of all text columns of that row;
    ``hierarchies`` (a ``TermHierarchies``) orders the textual attributes along the terms' hierarchies."""
    index: dict[str, int] = {}
    row_person = np.empty(table.rows, dtype=np.int64)
    for row, person in enumerate(table.persons):
        row_person[row] = index.setdefault(person, len(index))
    n = len(index)
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    values: dict[str, list[list]] = {}
    numbers: dict[str, np.ndarray] = {}
    codes: dict[str, np.ndarray] = {}
    labels: dict[str, list] = {}
    for attribute in qis:
        per_person: list[list] = [[] for _ in range(n)]
        for row, value in enumerate(table.columns[attribute.name].values):
            per_person[row_person[row]].append(value)
        values[attribute.name] = [sorted(set(v for v in vs if v is not None)) + ([None] if None in vs else [])
                                  for vs in per_person]
        present = [[v for v in vs if v is not None] for vs in per_person]
        if attribute.type in ("numerical", "date"):
            numbers[attribute.name] = np.array([np.mean([as_number(v) for v in vs]) if vs else math.nan
                                                for vs in present])
        else:
            order = list(attribute.order) if attribute.type == "ordinal" and attribute.order else sorted(
                {v for vs in present for v in vs})
            position = {v: i + 1 for i, v in enumerate(order)}  # 0 = missing
            labels[attribute.name] = [None, *order]
            codes[attribute.name] = np.array([position[_mode(vs)] if vs else 0 for vs in present], dtype=np.int64)
    # Sensitive terms per person and entity type, leaving out redundant ones.
    wanted = set(config.entity_types) | {c.label for c in config.custom_entities}
    term_sets: dict[str, list[set]] = {}
    term_lists: dict[str, list[list]] = {}
    spellings: dict[str, dict[str, str]] = {}
    for row, terms in enumerate(row_terms):
        person = row_person[row]
        for term in terms:
            if term.label not in wanted or redundant_match(term, row, qis, table) is not None:
                continue
            if term.label not in term_sets:
                term_sets[term.label] = [set() for _ in range(n)]
                term_lists[term.label] = [[] for _ in range(n)]
            key = term.key()
            term_sets[term.label][person].add(key)
            term_lists[term.label][person].append(key)
            spellings.setdefault(term.label, {}).setdefault(key, term.text)
    terms = {label: [frozenset(s) for s in sets] for label, sets in sorted(term_sets.items())}
    for label, lists in sorted(term_lists.items()):
        # Mondrian splits a text attribute on each person's most frequent term of the type (as rx-anon); with
        # hierarchies the terms are ordered along them (country, state, city), so that a cut into the first
        # and second half of the sorted terms keeps neighbours in the hierarchy together.
        modes = [_mode(ts) if ts else None for ts in lists]
        distinct = sorted({t for t in modes if t is not None})
        if hierarchies is not None and hierarchies.enabled:
            paths = {t: hierarchies.path(label, t, spellings[label][t]) for t in distinct}
            distinct.sort(key=lambda t: tuple(node.key for node in reversed(paths[t])))
        position = {t: i + 1 for i, t in enumerate(distinct)}
        labels[f"text:{label}"] = [None, *distinct]
        codes[f"text:{label}"] = np.array([position[t] if t is not None else 0 for t in modes], dtype=np.int64)
    sensitive = {}
    for name in config.sensitive_columns:
        per_person = [set() for _ in range(n)]
        for row, value in enumerate(table.columns[name].values):
            per_person[row_person[row]].add(value)
        sensitive[name] = [frozenset(s) for s in per_person]
    return PersonView(list(index), row_person, values, numbers, codes, labels, terms, sensitive, spellings)

