"""The plain exhaustive de-identifier the fast one must equal: every way to delete m tokens is re-vectorized
and scored in one batch with the models' own predict_proba, and the documented tie rule is applied."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

from anonymizer.location.deidentify import TIE_TOLERANCE

# A scorer for the oracle: token-norm sequences -> one score per sequence, and its threshold.
OracleModel = tuple[Callable[[list[list[str]]], np.ndarray], float]


def oracle_best(norms: Sequence[str], allowed: Sequence[int], m: int, models: Sequence[OracleModel],
                batch: int = 20_000) -> tuple[tuple[int, ...], float]:
    candidates = list(combinations(sorted(allowed), m))
    ratios = []
    for lo in range(0, len(candidates), batch):
        docs = [[t for i, t in enumerate(norms) if i not in set(c)] for c in candidates[lo: lo + batch]]
        ratios.append(np.max([score(docs) / threshold for score, threshold in models], axis=0))
    ratio = np.concatenate(ratios)
    floor = ratio.min()
    tied = [c for c, r in zip(candidates, ratio, strict=True) if r <= floor + TIE_TOLERANCE]
    best = min(tied)
    return best, float(ratio[candidates.index(best)])


def top_probability(classifier) -> Callable[[list[list[str]]], np.ndarray]:
    return lambda docs: classifier.predict_proba(docs).max(axis=1)


def linear_top(scorer) -> Callable[[list[list[str]]], np.ndarray]:
    """The top softmax probability of a LinearScorer (the gazetteer scorer), from each doc's uni+bigram set."""
    from anonymizer.location.classifier import ngrams

    rows: dict[str, int | None] = {}

    def score(docs: list[list[str]]) -> np.ndarray:
        out = np.empty(len(docs))
        for k, doc in enumerate(docs):
            found = []
            for feature in set(ngrams(doc)):
                if feature not in rows:
                    rows[feature] = scorer.vocabulary.get(feature)
                if rows[feature] is not None:
                    found.append(rows[feature])
            z = np.asarray(scorer.intercept, dtype=np.float64).copy()
            if found:
                z = z + scorer.weights[sorted(found)].sum(axis=0)
            z = np.exp(z - z.max())
            out[k] = (z / z.sum()).max()
        return out

    return score
