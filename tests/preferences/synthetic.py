"""Small synthetic data for the preference tests: planted low-rank 0/1 matrices and hand-made check-ins."""

from __future__ import annotations

import numpy as np

from anonymizer.preferences.checkins import CheckIns
from anonymizer.preferences.ratings import Ratings


def planted_ratings(n_users: int, n_items: int, rank: int = 2, density: float = 0.5, seed: int = 0,
                    noise: float = 0.0, item_bias: float = 0.5) -> tuple[Ratings, np.ndarray]:
    """0/1 ratings from the sign of a rank-``rank`` matrix plus item biases N(0, item_bias^2), each entry
    observed with probability ``density`` (every user keeps at least two); returns the observed ratings and the
    full 0/1 matrix. With ``noise``, that share of the observed entries is flipped."""
    rng = np.random.default_rng(seed)
    users = rng.normal(size=(n_users, rank))
    items = rng.normal(size=(n_items, rank))
    truth = (users @ items.T + rng.normal(0, item_bias, n_items) > 0).astype(float)
    observed = rng.random((n_users, n_items)) < density
    observed[np.arange(n_users), rng.integers(0, n_items, n_users)] = True
    observed[np.arange(n_users), (rng.integers(1, n_items, n_users) + np.argmax(observed, axis=1)) % n_items] = True
    user, item = np.nonzero(observed)
    value = truth[user, item].copy()
    flip = rng.random(len(value)) < noise
    value[flip] = 1 - value[flip]
    return Ratings(user, item, value, n_users, n_items), truth


def checkins(rows: list[tuple], category_names: tuple[str, ...], root_names: tuple[str, ...],
             n_users: int | None = None) -> CheckIns:
    """Check-ins from (user, weekday, minute, category, root, lat, lon, venue) tuples of codes."""
    columns = list(zip(*rows, strict=True))
    user = np.asarray(columns[0], np.int32)
    n_users = n_users or int(user.max()) + 1
    return CheckIns(user=user, weekday=np.asarray(columns[1], np.int8), minute=np.asarray(columns[2], np.int16),
                    category=np.asarray(columns[3], np.int32), root=np.asarray(columns[4], np.int32),
                    lat=np.asarray(columns[5], float), lon=np.asarray(columns[6], float),
                    venue=np.asarray(columns[7], np.int32), week=np.full(len(rows), -1, np.int32),
                    user_names=tuple(f"u{i}" for i in range(n_users)), category_names=category_names,
                    root_names=root_names)
