"""Recoding each equivalence class back into the dataset's own form.

Relational quasi-identifiers are generalised over all values of the class's persons: a number to its range
(or the smallest node of its hierarchy covering the range), a date to the day, month, year or range of years
that covers the class, a nominal value to the set of values, an ordinal one to the range of its order. In the
texts, a redundant term gets the class's generalised value of its attribute in place of the value it states;
every other sensitive term becomes the most specific node of its hierarchy (``hierarchies``) that every person
of the class holds — the class's least common ancestor: the term itself when all have it ("UK"), a broader
value when all have one under it ("a city in Nebraska"), its entity type when they share nothing. With
``numbered_pseudonyms`` a person, organisation or place written as its type becomes a numbered pseudonym
instead ("PERSON_2"), one per distinct string in the whole released file (``PseudonymTable``).
"""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass
from datetime import date

import numpy as np
import scipy.sparse as sp

from anonymizer.kanon.hierarchies import TermHierarchies, TermNode
from anonymizer.kanon.review import ReviewScanner
from anonymizer.kanon.table import Table
from anonymizer.kanon.view import MISSING_LABEL, PersonView, format_number, redundant_match
from anonymizer.recognize.entities import ALWAYS_TYPES


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
class ClassRecoding:
    """What a class releases: each quasi-identifier's value and, per entity type, the hierarchy nodes of terms
    that every person of the class holds (a node is held by a person when one of their terms has it on its
    path). Without generalization the nodes are the terms themselves (rx-anon: a term is kept when shared)."""

    persons: np.ndarray
    relational: dict[str, Generalization]
    shared: dict[str, frozenset[tuple[str, str]]]  # entity types the class shares nothing of are left out

    def released(self, label: str, path: tuple[TermNode, ...]) -> TermNode:
        """The most specific node of a term's path that the whole class shares; the type when none is."""
        shared = self.shared.get(label, frozenset())
        for node in path[:-1]:
            if node.key in shared:
                return node
        return path[-1]


def shared_nodes(view: PersonView, classes: list[np.ndarray], person_class: np.ndarray,
                 hierarchies: TermHierarchies) -> list[dict[str, frozenset[tuple[str, str]]]]:
    """Per class, per entity type, the nodes (on the paths of their terms, the root left out) that every person
    of the class holds; types the class shares nothing of are left out. Counted with sparse matrices (persons x
    keys, keys x nodes, classes x persons), not a set per person: a million persons in half a million classes."""
    shared: list[dict[str, frozenset]] = [{} for _ in classes]
    sizes = np.array([len(members) for members in classes], dtype=np.int64)
    in_class = sp.csr_matrix((np.ones(view.size, dtype=np.int32), (person_class, np.arange(view.size))),
                             shape=(len(classes), view.size))
    for label, sets in view.terms.items():
        spelling = view.spellings.get(label, {})
        node_number: dict[tuple[str, str], int] = {}
        rows, columns = [], []
        for k, key in enumerate(sets.keys):
            for node in hierarchies.path(label, key, spelling[key])[:-1]:
                rows.append(k)
                columns.append(node_number.setdefault(node.key, len(node_number)))
        key_nodes = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, columns)),
                                  shape=(len(sets.keys), len(node_number)))
        held = sets.matrix() @ key_nodes  # persons x nodes: how many of the person's keys have the node
        held.data[:] = 1
        counts = (in_class @ held).tocoo()  # classes x nodes: how many persons of the class hold the node
        everyone = counts.data == sizes[counts.row]
        if not everyone.any():
            continue
        nodes = list(node_number)
        found: dict[int, list] = {}
        for index, node in zip(counts.row[everyone].tolist(), counts.col[everyone].tolist(), strict=True):
            found.setdefault(index, []).append(nodes[node])
        for index, keys in found.items():
            shared[index][label] = frozenset(keys)
    return shared


def recode_classes(view: PersonView, classes: list[np.ndarray], config, hierarchies: TermHierarchies | None = None
                   ) -> tuple[list[ClassRecoding], np.ndarray]:
    """The recoding of every class, and the class index of every person."""
    if hierarchies is None:
        hierarchies = TermHierarchies(enabled=False)
    person_class = np.empty(view.size, dtype=np.int64)
    for index, members in enumerate(classes):
        person_class[members] = index
    shared = shared_nodes(view, classes, person_class, hierarchies)
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    same: dict[Generalization, Generalization] = {}  # one object per distinct value: classes repeat them
    out = []
    for index, members in enumerate(classes):
        relational = {}
        for attribute in qis:
            value = generalize(view.values[attribute.name].of_persons(members), attribute)
            relational[attribute.name] = same.setdefault(value, value)
        out.append(ClassRecoding(members, relational, shared[index]))
    return out, person_class


#: The entity types whose terms get a numbered pseudonym where their class writes the bare type: those that name
#: one person, organisation or place (a date or an amount written as "DATE" merges nothing a reader follows).
PSEUDONYM_TYPES = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC"})


class PseudonymTable:
    """The numbered pseudonyms of one released file: the first distinct string of a type (by ``Term.key``) to
    be written as its type becomes ``PERSON_1``, the next ``PERSON_2``, and so on, each type counted on its own;
    the same string is the same pseudonym wherever it is written in the file. Numbers are handed out in the
    order the file is written, row by row, column by column and term by term, by this one table: the file is
    written by one process in row order (``pipeline._write``, after the fanned-out passes are merged), so a
    re-run, or a run recognized in parts on many workers, numbers alike. Not a counter per part."""

    def __init__(self) -> None:
        self._pseudonyms: dict[tuple[str, str], str] = {}
        self._counts: Counter = Counter()

    def pseudonym(self, label: str, key: str) -> str:
        found = self._pseudonyms.get((label, key))
        if found is None:
            self._counts[label] += 1
            found = self._pseudonyms[(label, key)] = f"{label}_{self._counts[label]}"
        return found

    def counts(self) -> dict[str, int]:
        """The distinct strings given a pseudonym, per type."""
        return dict(sorted(self._counts.items()))


class TextRecoder:
    """Writes a post with each sensitive term recoded: with the class's relational value when it states one,
    else as the most specific node of its hierarchy the class shares (the term itself when shared, its type
    when nothing is, or its numbered pseudonym: ``PseudonymTable``). Configured once per file (``spellings``:
    the view's first spelling per type and key, so that paths match the view's), then called per text, in the
    order of the file."""

    def __init__(self, config, table: Table, hierarchies: TermHierarchies | None = None,
                 spellings: dict | None = None) -> None:
        self.table = table
        self.hierarchies = hierarchies if hierarchies is not None else TermHierarchies(enabled=False)
        self.spellings = spellings or {}
        self.wanted = set(config.entity_types) | {c.label for c in config.custom_entities} | set(ALWAYS_TYPES)
        self.qis = [a for a in config.quasi_identifiers if a.type != "text"]
        self.mapped = {label for a in self.qis for label in a.entities}  # only these can state a relational value
        self.pseudonyms = PseudonymTable() if config.numbered_pseudonyms else None
        self.reviewer = ReviewScanner(self.wanted)

    def _written(self, term, path: tuple[TermNode, ...], node: TermNode) -> tuple[str, str]:
        """How a term whose class releases ``node`` of its path is written, and which count it adds to."""
        if node is path[-1]:
            if self.pseudonyms is not None and term.label in PSEUDONYM_TYPES:
                return self.pseudonyms.pseudonym(term.label, path[0].key[1]), "pseudonym"
            return node.text, "type"
        if node.level == path[0].level:
            return term.text, "kept"
        return node.text, "generalized"

    def recode(self, text: str, terms, row: int, recoding: ClassRecoding, counts: Counter | None = None,
               review: list[str] | None = None) -> str:
        """``counts`` gets one "kept", "generalized", "type" or "pseudonym" per term written; ``review``, when
        given, the tokens of what was not recoded that are left for review (``review.ReviewScanner``)."""
        pieces, position = [], 0
        written: list[tuple[int, int]] = []  # where the recoded terms stand in the released text
        length = 0  # of the released text so far
        for term in sorted(terms, key=lambda t: t.start):
            if term.label not in self.wanted or term.start < position:
                continue
            pieces.append(text[position: term.start])
            length += term.start - position
            redundant = redundant_match(term, row, self.qis, self.table) if term.label in self.mapped else None
            if redundant is not None:
                attribute, (start, end) = redundant
                value = recoding.relational[attribute.name].text
                pieces.append(term.text[:start] + value + term.text[end:])
                written.append((length, length + len(pieces[-1])))
                length += len(pieces[-1])
            else:
                key = term.key()
                spelling = self.spellings.get(term.label, {}).get(key, term.text)
                path = self.hierarchies.path(term.label, key, spelling)
                shown, how = self._written(term, path, recoding.released(term.label, path))
                pieces.append(shown)
                written.append((length, length + len(shown)))
                length += len(shown)
                if counts is not None:
                    counts[how] += 1
            position = term.end
        pieces.append(text[position:])
        released = "".join(pieces)
        if review is not None:
            review.extend(self.reviewer.tokens(released, written))
        return released
