"""Matrix factorization of the 0/1 preference matrix, and the item-mean / user-mean baselines.

The model (paper eq. 1, with biases): the score of user i on item j is u_i . v_j where, with ``biases``, u_i
ends in (b_i, 1) and v_j in (1, c_j), so the product carries a user bias b_i and an item bias c_j next to the
``rank`` latent factors. The loss is the squared error on the observed entries plus lambda (|u_i|^2 + |v_j|^2).

Training is full-batch gradient descent, vectorized over all observed entries (scipy.sparse products), with the
gradient of each user averaged over that user's ratings and the gradient of each item over that item's ratings
(a per-row step size, which makes one learning rate fit any number of users). The user bias starts at the
user's own mean rating, the item bias at 0, the factors at N(0, init_scale^2). A rating is predicted 1
(publish) when the score is >= ``threshold``: 0.5, or "mean" for the mean predicted score over the matrix, the
paper's threshold.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from anonymizer.preferences.ratings import Ratings


def user_means(ratings: Ratings, default: float = 0.5) -> np.ndarray:
    """Each user's mean rating (``default`` for users without one)."""
    counts = ratings.per_user()
    sums = np.bincount(ratings.user, weights=ratings.value, minlength=ratings.n_users)
    return np.where(counts > 0, sums / np.maximum(counts, 1), default)


def init_factors(ratings: Ratings, rank: int, biases: bool, init_scale: float,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Initial user and item profiles, n x (rank + 2) with biases, n x rank without."""
    width = rank + 2 if biases else rank
    users = rng.normal(0.0, init_scale, (ratings.n_users, width))
    items = rng.normal(0.0, init_scale, (ratings.n_items, width))
    if biases:
        users[:, rank] = user_means(ratings)
        users[:, rank + 1] = 1.0
        items[:, rank] = 1.0
        items[:, rank + 1] = 0.0
    return users, items


def pin_constants(users: np.ndarray, items: np.ndarray, rank: int, biases: bool) -> None:
    """Reset the constant 1 columns after an update (they are not parameters)."""
    if biases:
        users[:, rank + 1] = 1.0
        items[:, rank] = 1.0


def residual_matrix(ratings: Ratings) -> sp.csr_matrix:
    """A CSR matrix with the sparsity of ``ratings`` whose data is in the ratings' (sorted) order."""
    return sp.csr_matrix((np.zeros(len(ratings)), (ratings.user, ratings.item)),
                         shape=(ratings.n_users, ratings.n_items))


def scores_of(users: np.ndarray, items: np.ndarray, user: np.ndarray, item: np.ndarray) -> np.ndarray:
    """u_user . v_item for each pair (np.take gathers rows faster than fancy indexing)."""
    return np.einsum("ij,ij->i", np.take(users, user, axis=0), np.take(items, item, axis=0))


def fit_user_profiles(ratings: Ratings, items: np.ndarray, rank: int, regularization: float) -> np.ndarray:
    """Every user's best profile for fixed item profiles (with biases), in closed form: user i minimizes
    (1/n_i) sum_j (r_ij - c_j - w . x_j)^2 + lambda |w|^2 over w = (factors, user bias), where x_j = (factors of
    v_j, 1) and c_j the item bias, i.e. (X_i^T X_i / n_i + lambda I) w = X_i^T (r_i - c) / n_i. Needs only the
    user's own ratings and the public V: this is what a user computes on their device. A user without ratings
    gets w = 0. Vectorized: the per-user Gram matrices are one sparse product, the solves one batched call."""
    width = rank + 1
    features = items[:, :width]
    mask = sp.csr_matrix((np.ones(len(ratings)), (ratings.user, ratings.item)),
                         shape=(ratings.n_users, ratings.n_items))
    outer = (features[:, :, None] * features[:, None, :]).reshape(ratings.n_items, width * width)
    per_user = np.maximum(ratings.per_user(), 1)[:, None]
    gram = (mask @ outer / per_user).reshape(ratings.n_users, width, width) + max(regularization, 1e-9) * np.eye(width)
    mask.data = ratings.value - items[ratings.item, rank + 1]
    target = mask @ features / per_user
    users = np.empty((ratings.n_users, rank + 2))
    users[:, :width] = np.linalg.solve(gram, target[:, :, None])[:, :, 0]
    users[:, rank + 1] = 1.0
    return users


def threshold_of(threshold: float | str, users: np.ndarray, items: np.ndarray) -> float:
    if threshold == "mean":
        return float(users.mean(axis=0) @ items.mean(axis=0))
    return float(threshold)


class MatrixFactorization:
    """Non-private matrix factorization trained by full-batch gradient descent (see the module docstring)."""

    def __init__(self, rank: int = 3, learning_rate: float = 0.5, regularization: float = 0.05,
                 epochs: int = 200, biases: bool = True, init_scale: float = 0.1, threshold: float | str = 0.5,
                 seed: int | None = 0) -> None:
        self.rank = rank
        self.learning_rate = learning_rate
        self.regularization = regularization
        self.epochs = epochs
        self.biases = biases
        self.init_scale = init_scale
        self.threshold = threshold
        self.seed = seed

    def fit(self, ratings: Ratings) -> MatrixFactorization:
        rng = np.random.default_rng(self.seed)
        users, items = init_factors(ratings, self.rank, self.biases, self.init_scale, rng)
        residual = residual_matrix(ratings)
        per_user = np.maximum(ratings.per_user(), 1)[:, None]
        per_item = np.maximum(ratings.per_item(), 1)[:, None]
        lr, lam = self.learning_rate, self.regularization
        for _ in range(self.epochs):
            residual.data = ratings.value - scores_of(users, items, ratings.user, ratings.item)
            grad_users = -(residual @ items) / per_user + lam * users
            grad_items = -(residual.T @ users) / per_item + lam * items
            users -= lr * grad_users
            items -= lr * grad_items
            pin_constants(users, items, self.rank, self.biases)
        self.user_factors_, self.item_factors_ = users, items
        self.threshold_ = threshold_of(self.threshold, users, items)
        return self

    def decision_function(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        """Predicted scores (about 0 = hide .. 1 = publish) of (user, item) pairs."""
        return scores_of(self.user_factors_, self.item_factors_, np.asarray(user), np.asarray(item))

    def predict(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        """Predicted 0/1 ratings of (user, item) pairs."""
        return (self.decision_function(user, item) >= self.threshold_).astype(np.int8)


class ItemMean:
    """Predict an item's mean rating over the training ratings (the global mean for an item nobody rated)."""

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def fit(self, ratings: Ratings) -> ItemMean:
        counts = ratings.per_item()
        sums = np.bincount(ratings.item, weights=ratings.value, minlength=ratings.n_items)
        overall = float(ratings.value.mean()) if len(ratings) else 0.5
        self.item_means_ = np.where(counts > 0, sums / np.maximum(counts, 1), overall)
        return self

    def decision_function(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return self.item_means_[np.asarray(item)]

    def predict(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return (self.decision_function(user, item) >= self.threshold).astype(np.int8)


class UserMean:
    """Predict a user's own mean rating over their known ratings (what a user can compute alone)."""

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def fit(self, ratings: Ratings) -> UserMean:
        overall = float(ratings.value.mean()) if len(ratings) else 0.5
        self.user_means_ = user_means(ratings, default=overall)
        return self

    def decision_function(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return self.user_means_[np.asarray(user)]

    def predict(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return (self.decision_function(user, item) >= self.threshold).astype(np.int8)
