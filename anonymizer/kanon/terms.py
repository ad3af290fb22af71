"""A dataset's sensitive terms kept as arrays: what every row's texts hold, between recognition and writing.

A million blog posts hold about 20 million terms. As Python objects (a ``Term``, its string, the lists and
tuples around them) that is about 150 bytes a term, 3 GB; here it is 13 bytes a term (start, end, a label
number, a number of the term's spelling, each spelling stored once) plus the distinct spellings. ``Term``
objects are made again when a row is asked for, so the pipeline reads rows as it did from lists.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from anonymizer.recognize import Term

__all__ = ["RowTerms"]


class RowTerms(Sequence):
    """Per row, the terms of each of its ``width`` text columns: ``row_terms[row]`` is a tuple of ``width``
    term lists, in column order. Texts are appended in row order, columns within a row (``append``)."""

    def __init__(self, width: int) -> None:
        if width < 0:
            raise ValueError("width must be >= 0")
        self.width = width
        self.labels: list[str] = []  # label number -> label
        self.spellings: list[str] = []  # spelling number -> the term's text
        self._label_number: dict[str, int] = {}
        self._spelling_number: dict[str, int] = {}
        self._starts = array("i")
        self._ends = array("i")
        self._label_of = array("H")
        self._spelling_of = array("i")
        self._bounds = array("q", [0])  # text i's terms are [bounds[i], bounds[i + 1])
        self._rows = 0  # rows of a width-0 store (no text column)

    @classmethod
    def of(cls, rows: Iterable[Sequence[Sequence[Term]]], width: int) -> RowTerms:
        """A store holding ``rows`` (each a sequence of ``width`` term lists)."""
        store = cls(width)
        for row in rows:
            if len(row) != width:
                raise ValueError(f"a row has {len(row)} term lists, expected {width}")
            for terms in row:
                store.append(terms)
            if not width:
                store._rows += 1
        return store

    def append(self, terms: Iterable[Term]) -> None:
        """The terms of the next text."""
        for term in terms:
            label = self._label_number.get(term.label)
            if label is None:
                label = self._label_number[term.label] = len(self.labels)
                self.labels.append(term.label)
            spelling = self._spelling_number.get(term.text)
            if spelling is None:
                spelling = self._spelling_number[term.text] = len(self.spellings)
                self.spellings.append(term.text)
            self._starts.append(term.start)
            self._ends.append(term.end)
            self._label_of.append(label)
            self._spelling_of.append(spelling)
        self._bounds.append(len(self._starts))

    def empty_like(self) -> RowTerms:
        """A store of the same width that numbers labels and spellings as this one does (so that ``copy_text``
        can take this store's texts as they are), holding no text yet."""
        store = RowTerms(self.width)
        store.labels, store.spellings = list(self.labels), list(self.spellings)
        store._label_number, store._spelling_number = dict(self._label_number), dict(self._spelling_number)
        return store

    def copy_text(self, other: RowTerms, index: int) -> None:
        """Append text ``index`` of ``other``, a store this one was made from by ``empty_like`` (no ``Term``)."""
        low, high = other._bounds[index], other._bounds[index + 1]
        if high > low:
            self._starts.extend(other._starts[low:high])
            self._ends.extend(other._ends[low:high])
            self._label_of.extend(other._label_of[low:high])
            self._spelling_of.extend(other._spelling_of[low:high])
        self._bounds.append(len(self._starts))

    def only(self, labels: set[str]) -> RowTerms:
        """The store with only the terms of ``labels`` (itself when it holds no other)."""
        keep = np.isin(np.frombuffer(self._label_of, dtype=np.uint16),
                       [n for n, label in enumerate(self.labels) if label in labels])
        if keep.all():
            return self
        store = self.empty_like()
        for name, typecode in (("_starts", "i"), ("_ends", "i"), ("_label_of", "H"), ("_spelling_of", "i")):
            kept = np.frombuffer(getattr(self, name), dtype=np.dtype(typecode))[keep]
            setattr(store, name, array(typecode, kept.tobytes()))
        kept_before = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])  # kept terms before each term
        store._bounds = array("q", kept_before[np.frombuffer(self._bounds, dtype=np.int64)].tobytes())
        store._rows = self._rows
        return store

    @property
    def texts(self) -> int:
        return len(self._bounds) - 1

    def text(self, index: int) -> list[Term]:
        """The terms of text ``index`` (row ``index // width``, column ``index % width``)."""
        low, high = self._bounds[index], self._bounds[index + 1]
        labels, spellings = self.labels, self.spellings
        return [Term(start, end, labels[label], spellings[spelling]) for start, end, label, spelling in zip(
            self._starts[low:high], self._ends[low:high], self._label_of[low:high], self._spelling_of[low:high],
            strict=True)]

    def spans(self, index: int) -> list[tuple[int, int]]:
        """The (start, end) of the terms of text ``index``, in the order of ``text(index)`` (no ``Term`` made)."""
        low, high = self._bounds[index], self._bounds[index + 1]
        return list(zip(self._starts[low:high], self._ends[low:high], strict=True))

    def term(self, index: int) -> Term:
        """Term number ``index`` of the whole store."""
        return Term(self._starts[index], self._ends[index], self.labels[self._label_of[index]],
                    self.spellings[self._spelling_of[index]])

    def iter_texts(self) -> Iterator[list[Term]]:
        for index in range(self.texts):
            yield self.text(index)

    def __len__(self) -> int:
        return self.texts // self.width if self.width else self._rows

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError("row out of range")
        return tuple(self.text(row * self.width + column) for column in range(self.width))

    def __iter__(self) -> Iterator[tuple[list[Term], ...]]:
        for row in range(len(self)):
            yield self[row]

    def arrays(self) -> dict[str, np.ndarray]:
        """The store as numpy arrays (views, no copy): every term's ``start`` and ``end``, its ``label`` and
        ``spelling`` numbers and ``text``, the index of the text it belongs to."""
        counts = np.diff(np.frombuffer(self._bounds, dtype=np.int64))
        return {"start": np.frombuffer(self._starts, dtype=np.int32), "end": np.frombuffer(self._ends, dtype=np.int32),
                "label": np.frombuffer(self._label_of, dtype=np.uint16),
                "spelling": np.frombuffer(self._spelling_of, dtype=np.int32),
                "text": np.repeat(np.arange(self.texts, dtype=np.int64), counts)}

    def label_counts(self) -> Counter:
        """How many terms of each label the store holds."""
        counts = np.bincount(np.frombuffer(self._label_of, dtype=np.uint16), minlength=len(self.labels))
        return Counter({label: int(count) for label, count in zip(self.labels, counts.tolist(), strict=True)
                        if count})

    def spelling_label_counts(self) -> dict[tuple[str, str], int]:
        """How many terms of each (spelling, label) the store holds, in order of first appearance."""
        if not self._starts:
            return {}
        pairs = np.frombuffer(self._spelling_of, dtype=np.int32).astype(np.int64) * max(len(self.labels), 1) + \
            np.frombuffer(self._label_of, dtype=np.uint16)
        unique, first, counts = np.unique(pairs, return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        width = max(len(self.labels), 1)
        return {(self.spellings[pair // width], self.labels[pair % width]): count
                for pair, count in zip(unique[order].tolist(), counts[order].tolist(), strict=True)}

    def added_over(self, before: RowTerms) -> Counter:
        """Per label, the terms of this store whose span its text did not have in ``before`` (the same texts'
        terms before string-level recoding): the occurrences it added, and terms that took in shorter ones."""
        if before.texts != self.texts:
            raise ValueError("the stores hold different numbers of texts")
        added: Counter = Counter()
        for index in range(self.texts):
            low, high = self._bounds[index], self._bounds[index + 1]
            old_low, old_high = before._bounds[index], before._bounds[index + 1]
            if (high - low == old_high - old_low and self._starts[low:high] == before._starts[old_low:old_high]
                    and self._ends[low:high] == before._ends[old_low:old_high]):
                continue  # the same spans: nothing added (the quick test that holds for most texts)
            spans = set(zip(before._starts[old_low:old_high], before._ends[old_low:old_high], strict=True))
            for start, end, label in zip(self._starts[low:high], self._ends[low:high], self._label_of[low:high],
                                         strict=True):
                if (start, end) not in spans:
                    added[self.labels[label]] += 1
        return added

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowTerms | list | tuple):
            return len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
