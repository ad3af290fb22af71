"""The location classifier: a binary bag of morpheme unigrams and bigrams, multinomial logistic regression.

As in the paper, each post is a set of features (present or not, not counted) and the model is one linear
function per class followed by a softmax. Training minimises scikit-learn's multinomial log-loss with an L2
penalty (the same objective as ``LogisticRegression(C=C)``) with L-BFGS, in float32 arithmetic: about a third
faster than scikit-learn's lbfgs here at the same held-out accuracy, and it reports every iteration, so a
training job shows progress and can be cancelled between iterations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from pathlib import Path

import numpy as np
import scipy.optimize
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

BIGRAM_SEPARATOR = " "  # token norms never contain whitespace, so "a b" cannot collide with a unigram

Progress = Callable[[int, int, str], None]


# Norms of units (see units.py) carry their parts: "地:渋谷|駅", "#north_little_rock", "Des_Moines".
JA_UNIT_PREFIX, JA_PART_SEPARATOR, UNIT_JOINER = "地:", "|", "_"


def unit_parts(norm: str) -> list[str]:
    """The words inside a unit, features of their own beside the unit's: "地:渋谷|駅" also has 渋谷 and 駅,
    "Des_Moines" des and moines, "#north_little_rock" north, little and rock. So a unit never seen whole still
    carries what its words taught the models, and deleting the unit deletes them all. A plain word has none."""
    if norm.startswith(JA_UNIT_PREFIX):
        return [part for part in norm[len(JA_UNIT_PREFIX):].split(JA_PART_SEPARATOR) if part]
    if norm[:1] == "#" and len(norm) > 1:
        return [part for part in norm[1:].split(UNIT_JOINER) if part]
    if norm[:1].isupper():
        return [word.lower() for word in norm.split(UNIT_JOINER) if word]
    return []


def ngrams(norms: Sequence[str]) -> list[str]:
    """The features of a token sequence: its unigrams, the parts of its units, and the bigrams of adjacent
    tokens."""
    return [*norms, *(part for norm in norms for part in unit_parts(norm)),
            *(a + BIGRAM_SEPARATOR + b for a, b in pairwise(norms))]


def bigram(a: str, b: str) -> str:
    return a + BIGRAM_SEPARATOR + b


class LocationClassifier:
    """Predicts the grid cell of a post from its token norms (scikit-learn's fit / predict_proba habits).

    After ``fit``: ``classes_`` (cell ids, one per non-empty cell of the training data), ``vocabulary_``
    (feature -> row), ``weights_`` (n_features x n_classes, float32, one row per feature so that the
    de-identifier can gather rows cheaply) and ``intercept_``.
    """

    def __init__(self, *, C: float = 1.0, min_df: int = 2, max_iter: int = 500, tol: float = 1e-4) -> None:
        self.C, self.min_df, self.max_iter, self.tol = C, min_df, max_iter, tol

    # -- features ---------------------------------------------------------------------------------------
    def transform(self, docs: Iterable[Sequence[str]]) -> sp.csr_matrix:
        """Binary feature matrix of token-norm sequences (sorted indices; unknown features ignored)."""
        vocabulary, indices, indptr = self.vocabulary_, [], [0]
        for doc in docs:
            # Built directly rather than through CountVectorizer, whose per-call set-up costs a millisecond.
            ids = sorted({i for i in map(vocabulary.get, ngrams(doc)) if i is not None})
            indices.extend(ids)
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float32)
        return sp.csr_matrix((data, np.array(indices, dtype=np.int64), np.array(indptr, dtype=np.int64)),
                             shape=(len(indptr) - 1, len(vocabulary)))

    # -- training ---------------------------------------------------------------------------------------
    def fit(self, docs: Sequence[Sequence[str]], cells: Sequence[int], progress: Progress | None = None
            ) -> LocationClassifier:
        vectorizer = CountVectorizer(analyzer=ngrams, binary=True, min_df=self.min_df, dtype=np.float32)
        X = vectorizer.fit_transform(docs).tocsr()
        self.vocabulary_ = {feature: int(i) for feature, i in vectorizer.vocabulary_.items()}
        self.classes_, y = np.unique(np.asarray(cells), return_inverse=True)
        self.weights_, self.intercept_, self.n_iter_ = _fit_multinomial(X, y, len(self.classes_), self.C,
                                                                         self.max_iter, self.tol, progress)
        return self

    # -- inference --------------------------------------------------------------------------------------
    def decision_function(self, docs: Iterable[Sequence[str]]) -> np.ndarray:
        """Class scores in float64: the intercept plus the sum of the weight rows of each post's features."""
        return self.intercept_ + weight_row_sums(self.transform(docs), self.weights_)

    def predict_proba(self, docs: Iterable[Sequence[str]]) -> np.ndarray:
        return softmax(self.decision_function(docs))

    def predict(self, docs: Iterable[Sequence[str]]) -> np.ndarray:
        return self.classes_[self.decision_function(docs).argmax(axis=1)]

    @property
    def feature_names_(self) -> np.ndarray:
        names = np.empty(len(self.vocabulary_), dtype=object)
        for feature, i in self.vocabulary_.items():
            names[i] = feature
        return names

    # -- persistence --------------------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        np.savez(path, weights=self.weights_, intercept=self.intercept_, classes=self.classes_,
                 features=self.feature_names_.astype(str),
                 params=np.array([self.C, self.min_df, self.max_iter, self.tol], dtype=np.float64))

    @classmethod
    def load(cls, path: Path) -> LocationClassifier:
        with np.load(path, allow_pickle=False) as data:
            C, min_df, max_iter, tol = data["params"].tolist()
            model = cls(C=C, min_df=int(min_df), max_iter=int(max_iter), tol=tol)
            model.weights_ = data["weights"]
            model.intercept_ = data["intercept"]
            model.classes_ = data["classes"]
            model.vocabulary_ = {feature: i for i, feature in enumerate(data["features"].tolist())}
        model.n_iter_ = None
        return model


def weight_row_sums(X: sp.csr_matrix, weights: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """For a binary X, X @ weights summed in float64 (float32 products would blur near-ties between posts)."""
    X.sort_indices()
    out = np.zeros((X.shape[0], weights.shape[1]), dtype=np.float64)
    for lo in range(0, X.shape[0], chunk):  # bounded memory: one chunk's gathered rows at a time
        part = X[lo: lo + chunk]
        nonempty = np.flatnonzero(np.diff(part.indptr))
        if len(nonempty):
            gathered = weights[part.indices].astype(np.float64)
            out[lo + nonempty] = np.add.reduceat(gathered, part.indptr[nonempty], axis=0)
    return out


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def _fit_multinomial(X: sp.csr_matrix, y: np.ndarray, n_classes: int, C: float, max_iter: int, tol: float,
                     progress: Progress | None) -> tuple[np.ndarray, np.ndarray, int]:
    """Minimise mean log-loss + ||W||^2 / (2 C N) (LogisticRegression's objective divided by C N)."""
    n, n_features = X.shape
    XT = X.T.tocsr()  # X^T @ residuals is the gradient; CSR makes that product fast
    rows = np.arange(n)
    alpha = 1.0 / (C * n)
    size = n_features * n_classes

    def loss_and_grad(w: np.ndarray) -> tuple[float, np.ndarray]:
        W = w[:size].reshape(n_features, n_classes).astype(np.float32)
        z = X @ W
        z += w[size:].astype(np.float32)
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        total = z.sum(axis=1)
        loss = float(np.log(total).sum(dtype=np.float64) - np.log(z[rows, y]).sum(dtype=np.float64)) / n
        loss += 0.5 * alpha * float(np.dot(w[:size], w[:size]))
        z /= total[:, None]
        z[rows, y] -= 1.0
        z /= n
        grad_w = XT @ z
        grad_w += alpha * W
        return loss, np.concatenate([grad_w.ravel(), z.sum(axis=0)]).astype(np.float64)

    iterations = 0

    def callback(_w: np.ndarray) -> None:
        nonlocal iterations
        iterations += 1
        if progress is not None:
            progress(iterations, max_iter, f"training: iteration {iterations}")

    result = scipy.optimize.minimize(loss_and_grad, np.zeros(size + n_classes), jac=True, method="L-BFGS-B",
                                     callback=callback, options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-10,
                                              # with millions of weights the solver's own bookkeeping
                                              # dominates; 5 corrections cost a quarter less time than 10
                                              # here at equal held-out accuracy
                                              "maxcor": 5})
    weights = result.x[:size].reshape(n_features, n_classes).astype(np.float32)
    return np.ascontiguousarray(weights), result.x[size:].astype(np.float64), iterations
