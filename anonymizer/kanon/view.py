"""The person-centric view D* of rx-anon: one record per person (the direct identifier), with the set of their
values for every relational attribute and, per entity type, the set of non-redundant sensitive terms of all
their texts. A term is redundant when it states a relational value of the same row under an entity type that
the attribute is mapped to (e.g. "36 years old" next to age 36): it is recoded with that attribute instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from anonymizer.kanon.table import Table, as_number
from anonymizer.kanon.terms import RowTerms
from anonymizer.recognize.entities import ALWAYS_TYPES
from anonymizer.recognize.recognizer import term_key

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


class PersonTermSets(Sequence):
    """Per person, the set of their term keys of one entity type, as a sparse matrix (persons x keys, CSR): a
    million persons' sets as Python frozensets took gigabytes. ``sets[person]`` is a frozenset of keys;
    ``keys`` are sorted, and a person's key numbers (``indices[indptr[p]:indptr[p + 1]]``) are sorted too."""

    def __init__(self, keys: list[str], indptr: np.ndarray, indices: np.ndarray) -> None:
        self.keys, self.indptr, self.indices = keys, indptr, indices

    @classmethod
    def of_pairs(cls, persons: int, keys: list[str], held: np.ndarray) -> PersonTermSets:
        """From sorted, distinct (person, key number) pairs (an array of two columns)."""
        indptr = np.searchsorted(held[:, 0], np.arange(persons + 1)) if len(held) else np.zeros(persons + 1,
                                                                                                  dtype=np.int64)
        return cls(keys, indptr.astype(np.int64), held[:, 1].astype(np.int32))

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def __getitem__(self, person):  # type: ignore[override]
        if isinstance(person, slice):
            return [self[p] for p in range(*person.indices(len(self)))]
        keys = self.keys
        return frozenset(keys[i] for i in self.indices[self.indptr[person]:self.indptr[person + 1]].tolist())

    def __iter__(self) -> Iterator[frozenset[str]]:
        for person in range(len(self)):
            yield self[person]

    def counts(self) -> np.ndarray:
        """The number of keys of every person."""
        return np.diff(self.indptr)

    def matrix(self) -> sp.csr_matrix:
        """Persons x keys, 1 where the person holds the key."""
        return sp.csr_matrix((np.ones(len(self.indices), dtype=np.int32), self.indices, self.indptr),
                             shape=(len(self), len(self.keys)))


class PersonValues(Sequence):
    """Per person, the sorted distinct non-missing values of one relational attribute (then None when one is
    missing), computed from the rows when asked: one list per person took half a gigabyte at a million."""

    def __init__(self, values: list, rows_of: tuple[np.ndarray, np.ndarray]) -> None:
        self.values = values  # per row
        self.order, self.bounds = rows_of  # rows sorted by person; person p's are order[bounds[p]:bounds[p + 1]]

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def __getitem__(self, person):  # type: ignore[override]
        if isinstance(person, slice):
            return [self[p] for p in range(*person.indices(len(self)))]
        values = self.values
        found = [values[row] for row in self.order[self.bounds[person]:self.bounds[person + 1]].tolist()]
        return sorted(set(v for v in found if v is not None)) + ([None] if None in found else [])

    def __iter__(self) -> Iterator[list]:
        for person in range(len(self)):
            yield self[person]

    def of_persons(self, persons: np.ndarray) -> list:
        """Every value (with repeats, None for a missing one) of the rows of ``persons``."""
        order, bounds, values = self.order, self.bounds, self.values
        rows = np.concatenate([order[bounds[p]:bounds[p + 1]] for p in persons.tolist()]) if len(persons) else []
        return [values[row] for row in np.asarray(rows, dtype=np.int64).tolist()]


@dataclass
class PersonView:
    persons: list[str]  # in order of first appearance
    row_person: np.ndarray  # person index of every row
    values: dict[str, PersonValues]  # attribute -> per person: sorted distinct non-missing values (+ None if missing)
    numbers: dict[str, np.ndarray]  # numerical / date attributes: per person mean (NaN when all missing)
    codes: dict[str, np.ndarray]  # nominal / ordinal attributes and entity types: per person code of the mode
    labels: dict[str, list]  # code -> value, codes in sort order (nominal: value order; ordinal: configured order)
    terms: dict[str, PersonTermSets]  # entity type -> per person: non-redundant term keys
    sensitive: dict[str, list[frozenset]]  # sensitive attribute -> per person: its values (for l-diversity)
    spellings: dict[str, dict[str, str]] = field(default_factory=dict)  # type -> term key -> first spelling

    @property
    def size(self) -> int:
        return len(self.persons)


def _mode(values: list) -> object:
    counts = Counter(values)
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)  # ties: the smallest, for determinism


def build_view(table: Table, config, row_terms: Iterable[Iterable], hierarchies=None) -> PersonView:
    """Group rows by person. ``row_terms[row]`` are the sensitive terms of all text columns of that row (may be
    a stream); ``hierarchies`` (a ``TermHierarchies``) orders the textual attributes along the terms' hierarchies.

    Built for a million persons: per-person values and term sets are arrays, not a Python object each."""
    index: dict[str, int] = {}
    row_person = np.empty(table.rows, dtype=np.int64)
    for row, person in enumerate(table.persons):
        row_person[row] = index.setdefault(person, len(index))
    n = len(index)
    order = np.argsort(row_person, kind="stable")
    bounds = np.searchsorted(row_person[order], np.arange(n + 1))
    one_row_each = len(order) == n  # the common worst case: then a person's values are their row's
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    values: dict[str, PersonValues] = {}
    numbers: dict[str, np.ndarray] = {}
    codes: dict[str, np.ndarray] = {}
    labels: dict[str, list] = {}
    for attribute in qis:
        column = table.columns[attribute.name].values
        values[attribute.name] = PersonValues(column, (order, bounds))
        if attribute.type in ("numerical", "date"):
            as_numbers = np.array([math.nan if v is None else as_number(v) for v in column], dtype=float)
            if one_row_each:
                numbers[attribute.name] = as_numbers
            else:  # the mean of a person's present values
                present = ~np.isnan(as_numbers)
                total = np.bincount(row_person[present], weights=as_numbers[present], minlength=n)
                count = np.bincount(row_person[present], minlength=n)
                with np.errstate(invalid="ignore", divide="ignore"):
                    numbers[attribute.name] = np.where(count > 0, total / np.maximum(count, 1), math.nan)
        else:
            present_values = {v for v in column if v is not None}
            order_of = list(attribute.order) if attribute.type == "ordinal" and attribute.order else sorted(
                present_values)
            position = {v: i + 1 for i, v in enumerate(order_of)}  # 0 = missing
            labels[attribute.name] = [None, *order_of]
            if one_row_each:
                codes[attribute.name] = np.array([0 if v is None else position[v] for v in column], dtype=np.int64)
            else:
                per_person: list[list] = [[] for _ in range(n)]
                for row, value in enumerate(column):
                    if value is not None:
                        per_person[row_person[row]].append(value)
                codes[attribute.name] = np.array([position[_mode(vs)] if vs else 0 for vs in per_person],
                                                 dtype=np.int64)
    # Sensitive terms per person and entity type, leaving out redundant ones; only persons with terms are kept.
    wanted = set(config.entity_types) | {c.label for c in config.custom_entities} | set(ALWAYS_TYPES)
    found = _terms_of_store(row_terms, row_person, wanted, qis, table) if isinstance(row_terms, RowTerms) else \
        _terms_of_rows(row_terms, row_person, wanted, qis, table)
    terms: dict[str, PersonTermSets] = {}
    spellings: dict[str, dict[str, str]] = {}
    for label, (keys, held, holders, mode, first_spelling) in sorted(found.items()):
        terms[label] = PersonTermSets.of_pairs(n, keys, held)
        spellings[label] = dict(zip(keys, first_spelling, strict=True))
        # Mondrian splits a text attribute on each person's most frequent term of the type (as rx-anon); with
        # hierarchies the terms are ordered along them (country, state, city), so that a cut into the first
        # and second half of the sorted terms keeps neighbours in the hierarchy together.
        distinct = [keys[i] for i in np.unique(mode).tolist()]
        if hierarchies is not None and hierarchies.enabled:
            paths = {t: hierarchies.path(label, t, spellings[label][t]) for t in distinct}
            distinct.sort(key=lambda t: tuple(node.key for node in reversed(paths[t])))
        position = np.zeros(len(keys), dtype=np.int64)
        number = {key: i for i, key in enumerate(keys)}
        for i, key in enumerate(distinct):
            position[number[key]] = i + 1
        labels[f"text:{label}"] = [None, *distinct]
        code = np.zeros(n, dtype=np.int64)
        code[holders] = position[mode]
        codes[f"text:{label}"] = code
    sensitive = {}
    for name in config.sensitive_columns:
        per_person_set: list[set] = [set() for _ in range(n)]
        for row, value in enumerate(table.columns[name].values):
            per_person_set[row_person[row]].add(value)
        sensitive[name] = [frozenset(s) for s in per_person_set]
    return PersonView(list(index), row_person, values, numbers, codes, labels, terms, sensitive, spellings)


# Per entity type, what ``build_view`` needs of the terms: the type's keys (sorted), the (person, key number)
# pairs held (sorted, distinct), the persons with a term of the type (sorted), each one's most frequent key
# number (ties: the smallest key), and each key's first spelling.
_TypeTerms = tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list[str]]


def _terms_of_rows(row_terms: Iterable[Iterable], row_person: np.ndarray, wanted: set, qis: list, table: Table
                   ) -> dict[str, _TypeTerms]:
    """From Term objects, row by row."""
    mapped = {label for a in qis for label in a.entities}
    lists: dict[str, dict[int, list[str]]] = {}
    first: dict[str, dict[str, str]] = {}
    for row, terms in enumerate(row_terms):
        person = int(row_person[row])
        for term in terms:
            if term.label not in wanted or (term.label in mapped and redundant_match(term, row, qis, table)
                                            is not None):
                continue
            key = term.key()
            lists.setdefault(term.label, {}).setdefault(person, []).append(key)
            first.setdefault(term.label, {}).setdefault(key, term.text)
    out = {}
    for label, per_person in lists.items():
        keys = sorted(first[label])
        number = {key: i for i, key in enumerate(keys)}
        holders = np.array(sorted(per_person), dtype=np.int64)
        held = np.array([(p, number[key]) for p in holders.tolist() for key in sorted(set(per_person[p]))],
                        dtype=np.int64).reshape(-1, 2)
        mode = np.array([number[_mode(per_person[p])] for p in holders.tolist()], dtype=np.int64)
        out[label] = (keys, held, holders, mode, [first[label][key] for key in keys])
    return out


def _terms_of_store(store: RowTerms, row_person: np.ndarray, wanted: set, qis: list, table: Table
                    ) -> dict[str, _TypeTerms]:
    """The same from the term arrays, with numpy: a million posts' terms are never made into objects (but for
    the types mapped to a relational attribute, whose terms are checked for stating its value)."""
    arrays = store.arrays()
    label_of, spelling_of = arrays["label"], arrays["spelling"]
    person_of = row_person[arrays["text"] // max(store.width, 1)] if len(label_of) else np.empty(0, np.int64)
    keep = np.array([label in wanted for label in store.labels], dtype=bool)[label_of] if store.labels else \
        np.zeros(0, dtype=bool)
    mapped = {label for a in qis for label in a.entities}
    for number in [i for i, label in enumerate(store.labels) if label in mapped]:
        for index in np.nonzero(keep & (label_of == number))[0].tolist():
            term = store.term(index)
            if redundant_match(term, int(arrays["text"][index]) // store.width, qis, table) is not None:
                keep[index] = False
    key_number: dict[str, int] = {}
    key_of_spelling = np.array([key_number.setdefault(term_key(s), len(key_number)) for s in store.spellings],
                               dtype=np.int64)
    all_keys = list(key_number)
    out = {}
    for number, label in enumerate(store.labels):
        chosen = np.nonzero(keep & (label_of == number))[0]
        if not len(chosen):
            continue
        key_ids = key_of_spelling[spelling_of[chosen]]
        present, first_index = np.unique(key_ids, return_index=True)
        keys_unsorted = [all_keys[i] for i in present.tolist()]
        by_name = sorted(range(len(keys_unsorted)), key=keys_unsorted.__getitem__)
        keys = [keys_unsorted[i] for i in by_name]
        rank_of_present = np.empty(len(present), dtype=np.int64)
        rank_of_present[by_name] = np.arange(len(present))
        rank = rank_of_present[np.searchsorted(present, key_ids)]
        first_spelling = [store.spellings[s] for s in spelling_of[chosen[first_index[by_name]]].tolist()]
        persons = person_of[chosen]
        pairs, counts = np.unique(persons * len(keys) + rank, return_counts=True)
        held = np.column_stack((pairs // len(keys), pairs % len(keys)))
        # Most frequent key per person, the smallest (by name, = by rank) on ties.
        order = np.lexsort((held[:, 1], -counts, held[:, 0]))
        firsts = order[np.r_[True, held[order[1:], 0] != held[order[:-1], 0]]]
        out[label] = (keys, held, held[firsts, 0], held[firsts, 1], first_spelling)
    return out
