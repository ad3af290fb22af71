"""Known temporal patterns: the shapes of the removable subtrees that carry time expressions, learned from posts.

A pattern abstracts a subtree into its dependency labels and coarse tags, with the time leaves marked and the
preposition's word left open, e.g. ``prep:ANY(pobj:TIME)`` for "at 9AM", "on Monday", "in July" and
``npadvmod:TIME`` for "this morning" — the paper's (PP (IN/ANY) (NP (NN/TIME))). A few patterns cover
most time phrases (the paper: the top 10 cover ~88%), so an anonymizer that prunes only known patterns stays
precise, and the coverage curve shows how many are needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

__all__ = ["PatternExtractor", "coverage_curve", "subtree_pattern"]

LEAF_DEPS = frozenset({"det", "predet", "amod", "nummod", "compound", "quantmod", "poss", "advmod", "punct", "case"})


def subtree_pattern(doc: Any, root_index: int, tokens: set[int], marked: list[bool]) -> str:
    """The abstract shape of the subtree of ``root_index`` restricted to ``tokens``."""

    def label(token: Any) -> str:
        if marked[token.i]:
            kind = "TIME"
        elif token.pos_ == "ADP" or token.dep_ in ("prep", "agent", "dative"):
            kind = "ANY"
        else:
            kind = token.pos_
        return f"{token.dep_}:{kind}"

    def walk(token: Any) -> str:
        # A time word's own modifiers ("the", "rainy", "every", "few", numbers) are part of the time leaf:
        # "at 9AM", "in the morning" and "on a rainy afternoon" share one pattern, as in the paper.
        children = [walk(child) for child in token.children if child.i in tokens
                    and not (marked[token.i] and (marked[child.i] or child.dep_ in LEAF_DEPS))]
        return label(token) + (f"({' '.join(children)})" if children else "")

    return walk(doc[root_index])


class PatternExtractor:
    """Counts the patterns of the removable time subtrees of parsed posts. ``fit(docs)`` then ``known(top=N)``
    or ``known(min_count=c)``; :class:`~anonymizer.temporal.anonymize.TemporalAnonymizer` takes the result."""

    def __init__(self, anonymizer: Any) -> None:
        self.anonymizer = anonymizer  # its tagger and its choice of the removable unit define the subtrees
        self.counts_: Counter[str] = Counter()
        self.expressions_ = 0  # time expressions seen (removable or not)

    def fit(self, docs: Iterable[Any]) -> PatternExtractor:
        self.counts_ = Counter()
        self.expressions_ = 0
        for doc in docs:
            for pattern in self.anonymizer.patterns_in(doc):
                self.expressions_ += 1
                if pattern is not None:
                    self.counts_[pattern] += 1
        return self

    def known(self, *, top: int | None = None, min_count: int = 1) -> dict[str, int]:
        ranked = [(p, c) for p, c in self.counts_.most_common() if c >= min_count]
        return dict(ranked[:top] if top is not None else ranked)


def coverage_curve(counts: dict[str, int] | Counter, expressions: int) -> list[float]:
    """Share of all time expressions covered by the top-N patterns, for N = 1, 2, ..."""
    covered, curve = 0, []
    for count in sorted(counts.values(), reverse=True):
        covered += count
        curve.append(covered / expressions if expressions else 0.0)
    return curve
