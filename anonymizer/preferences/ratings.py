"""The sparse user x item rating set: one entry per (user, item) a user rated, value 1 (publish) or 0 (hide)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Ratings:
    """Observed ratings in coordinate form, sorted by (user, item), each pair at most once.

    ``n_users`` x ``n_items`` is the full matrix; users or items without a rating simply have no entry.
    """

    user: np.ndarray  # int64
    item: np.ndarray  # int64
    value: np.ndarray  # float64, 0.0 or 1.0
    n_users: int
    n_items: int

    def __post_init__(self) -> None:
        user, item = np.asarray(self.user, np.int64), np.asarray(self.item, np.int64)
        value = np.asarray(self.value, np.float64)
        if not user.shape == item.shape == value.shape or user.ndim != 1:
            raise ValueError("user, item and value must be 1-d arrays of one length")
        if len(user) and (user.min() < 0 or user.max() >= self.n_users or item.min() < 0
                          or item.max() >= self.n_items):
            raise ValueError("a user or item index lies outside the matrix")
        key = user * self.n_items + item
        order = np.argsort(key, kind="stable")
        if len(key) > 1 and np.any(np.diff(key[order]) == 0):
            raise ValueError("a (user, item) pair is rated twice")
        object.__setattr__(self, "user", user[order])
        object.__setattr__(self, "item", item[order])
        object.__setattr__(self, "value", value[order])

    def __len__(self) -> int:
        return len(self.user)

    @property
    def key(self) -> np.ndarray:
        """user * n_items + item, sorted ascending (for np.searchsorted look-ups)."""
        return self.user * self.n_items + self.item

    @classmethod
    def from_dense(cls, matrix: np.ndarray) -> Ratings:
        """From a users x items array with NaN where a user gave no rating."""
        matrix = np.asarray(matrix, np.float64)
        user, item = np.nonzero(~np.isnan(matrix))
        return cls(user, item, matrix[user, item], *matrix.shape)

    def to_dense(self) -> np.ndarray:
        """A users x items array, NaN where unrated."""
        out = np.full((self.n_users, self.n_items), np.nan)
        out[self.user, self.item] = self.value
        return out

    def select(self, mask: np.ndarray) -> Ratings:
        """The entries where ``mask`` holds, in the same matrix shape."""
        return Ratings(self.user[mask], self.item[mask], self.value[mask], self.n_users, self.n_items)

    def per_user(self) -> np.ndarray:
        """Number of ratings of each user."""
        return np.bincount(self.user, minlength=self.n_users)

    def per_item(self) -> np.ndarray:
        """Number of ratings of each item."""
        return np.bincount(self.item, minlength=self.n_items)

    def resample_users(self, n_users: int, rng: np.random.Generator) -> Ratings:
        """``n_users`` users drawn with replacement from these users, each a copy of a drawn user's ratings."""
        drawn = rng.integers(0, self.n_users, size=n_users)
        counts = self.per_user()
        starts = np.concatenate([[0], np.cumsum(counts)])
        lengths = counts[drawn]
        new_user = np.repeat(np.arange(n_users), lengths)
        offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        source = np.repeat(starts[drawn], lengths) + offsets
        return Ratings(new_user, self.item[source], self.value[source], n_users, self.n_items)
