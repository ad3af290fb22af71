"""The paper's evaluation: k-fold cross-validation over users, part of each test user's ratings hidden.

Per repeat, the users are shuffled and cut into ``folds`` folds. For each fold, each of its users with at least
two ratings hides ``clip(round(hidden_share * n), 1, n - 1)`` of their n ratings, chosen at random (so at
least one rating is hidden and one stays known); every method trains on all other users' ratings plus the test
users' known ones and predicts the hidden ones. A confusion matrix is summed over all folds and repeats, with
1 (publish) as the positive class:
    false-positive rate = FP / (FP + TN)   publishing where the user wanted to hide: the costly error
    recall              = TP / (TP + FN)   the publishable ratings predicted publishable
    reconstruction rate = (TP + TN) / all  accuracy on the hidden ratings
Methods: "item-mean" and "user-mean" baselines (non-private), "mf" (non-private matrix factorization),
"ldp-mf" (the bounded LDP mechanism, total epsilon per user = the chosen epsilon) and, optionally,
"ldp-laplace" (the paper's per-item, per-round noise, whose epsilon multiplies; see ``ldp``).
Rows are plain dicts, ready for csv.DictWriter; the LDP rows carry the largest epsilon a user spent. In the
epsilon sweep the bounded mechanism gets the swept epsilon as each user's total, the per-entry one as its
per-entry epsilon (the paper's reading), so its rows show what that reading costs a user in total.
With ``population`` the LDP methods train on a simulated population resampled from each fold's training users
(``with_population``): the bounded mechanism needs tens of thousands of users before any round carries more
signal than noise; on the 193 real users it falls back to each user's own mean (the noise gate in ``ldp``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from anonymizer.preferences.checkins import CheckIns
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule
from anonymizer.preferences.ldp import LaplaceMF, LDPMatrixFactorization
from anonymizer.preferences.mf import ItemMean, MatrixFactorization, UserMean
from anonymizer.preferences.ratings import Ratings

Progress = Callable[[int, int, str], None]
Model = ItemMean | UserMean | MatrixFactorization | LDPMatrixFactorization | LaplaceMF
METHODS = ("item-mean", "user-mean", "mf", "ldp-mf", "ldp-laplace")


def hide_ratings(ratings: Ratings, test_users: np.ndarray, hidden_share: float,
                 rng: np.random.Generator) -> np.ndarray:
    """A mask over ``ratings``: the entries the test users hide (see the module docstring)."""
    counts = ratings.per_user()
    is_test = np.zeros(ratings.n_users, bool)
    is_test[test_users] = True
    n_hide = np.clip(np.rint(hidden_share * counts), 1, counts - 1).astype(np.int64)
    n_hide[~is_test | (counts < 2)] = 0
    # Rank each entry within its user by a random key; hide the n_hide lowest ranks.
    order = np.lexsort((rng.random(len(ratings)), ratings.user))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(len(ratings), np.int64)
    rank[order] = np.arange(len(ratings)) - starts[ratings.user[order]]
    return rank < n_hide[ratings.user]


def confusion(truth: np.ndarray, predicted: np.ndarray) -> dict[str, int]:
    truth, predicted = truth.astype(bool), predicted.astype(bool)
    return {"tp": int(np.sum(truth & predicted)), "fp": int(np.sum(~truth & predicted)),
            "tn": int(np.sum(~truth & ~predicted)), "fn": int(np.sum(truth & ~predicted))}


def metrics(counts: Mapping[str, int]) -> dict[str, float]:
    """False-positive rate, recall and reconstruction rate of a confusion matrix (NaN when undefined)."""
    tp, fp, tn, fn = (counts[k] for k in ("tp", "fp", "tn", "fn"))
    ratio = lambda a, b: a / b if b else float("nan")  # noqa: E731
    return {"fpr": ratio(fp, fp + tn), "recall": ratio(tp, tp + fn),
            "reconstruction": ratio(tp + tn, tp + fp + tn + fn)}


@dataclass
class MethodSettings:
    """Hyper-parameters of the methods one experiment compares."""

    rank: int = 3
    regularization: float = 0.05
    mf_learning_rate: float = 0.5
    mf_epochs: int = 200
    epsilon: float = 1.0
    ldp_rounds: int | None = None
    ldp_learning_rate: float = 1.0
    ldp_projection: int | None = None
    laplace_epsilon_entry: float = 0.01
    laplace_rounds: int = 5
    threshold: float | str = 0.5

    def build(self, method: str, seed: int) -> Model:
        if method == "item-mean":
            return ItemMean(threshold=0.5 if self.threshold == "mean" else self.threshold)
        if method == "user-mean":
            return UserMean(threshold=0.5 if self.threshold == "mean" else self.threshold)
        if method == "mf":
            return MatrixFactorization(rank=self.rank, learning_rate=self.mf_learning_rate,
                                       regularization=self.regularization, epochs=self.mf_epochs,
                                       threshold=self.threshold, seed=seed)
        if method == "ldp-mf":
            return LDPMatrixFactorization(rank=self.rank, epsilon=self.epsilon, rounds=self.ldp_rounds,
                                          learning_rate=self.ldp_learning_rate, regularization=self.regularization,
                                          projection=self.ldp_projection,
                                          threshold=self.threshold, seed=seed)
        if method == "ldp-laplace":
            return LaplaceMF(rank=self.rank, epsilon_entry=self.laplace_epsilon_entry, rounds=self.laplace_rounds,
                             regularization=self.regularization,
                             threshold=self.threshold, seed=seed)
        raise ValueError(f"unknown method {method!r}; one of {METHODS}")


def with_population(train: Ratings, test_users: np.ndarray, population: int,
                    rng: np.random.Generator) -> tuple[Ratings, np.ndarray]:
    """A simulated population: ``population`` users drawn with replacement from the non-test users (copies of
    their ratings), followed by the test users with their known ratings. Returns the ratings and each original
    user's new index (-1 for non-test users, who appear only through their copies)."""
    is_test = np.zeros(train.n_users, bool)
    is_test[test_users] = True
    others = np.flatnonzero(~is_test)
    rest = train.select(~is_test[train.user])
    drawn = Ratings(np.searchsorted(others, rest.user), rest.item, rest.value, len(others),
                    train.n_items).resample_users(population, rng)
    new_index = np.full(train.n_users, -1)
    new_index[test_users] = population + np.arange(len(test_users))
    known = train.select(is_test[train.user])
    return Ratings(np.r_[drawn.user, new_index[known.user]], np.r_[drawn.item, known.item],
                   np.r_[drawn.value, known.value], population + len(test_users), train.n_items), new_index


def cross_validate(ratings: Ratings, methods: Sequence[str], settings: MethodSettings | None = None, *,
                   folds: int = 10, hidden_share: float = 0.1, repeats: int = 1, seed: int = 0,
                   population: int | None = None, progress: Progress | None = None) -> list[dict]:
    """One row per method: the confusion matrix summed over folds and repeats, the three metrics, the mean
    training time, and for LDP methods the largest and mean epsilon a user spent.

    ``population``: the LDP methods train on a simulated population of that many users resampled from the
    fold's training users (``with_population``) plus the test users - what the mechanism would see in an app
    with that many users like these. The non-private methods always train on the real users."""
    settings = settings or MethodSettings()
    rng = np.random.default_rng(seed)
    totals = {m: {"tp": 0, "fp": 0, "tn": 0, "fn": 0} for m in methods}
    seconds = dict.fromkeys(methods, 0.0)
    spent: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    folds = min(folds, ratings.n_users)
    steps, done = repeats * folds * len(methods), 0
    for repeat in range(repeats):
        for fold, test_users in enumerate(np.array_split(rng.permutation(ratings.n_users), folds)):
            hidden = hide_ratings(ratings, test_users, hidden_share, rng)
            train, test = ratings.select(~hidden), ratings.select(hidden)
            simulated = None
            if population and any(m.startswith("ldp") for m in methods):
                simulated = with_population(train, test_users, population, rng)
            for method in methods:
                model = settings.build(method, seed=int(rng.integers(2**31)))
                fit_on, test_user = train, test.user
                if simulated is not None and method.startswith("ldp"):
                    fit_on, test_user = simulated[0], simulated[1][test.user]
                started = time.perf_counter()
                model.fit(fit_on)
                seconds[method] += time.perf_counter() - started
                for key, value in confusion(test.value, model.predict(test_user, test.item)).items():
                    totals[method][key] += value
                accountant = getattr(model, "accountant_", None)
                if accountant is not None:
                    spent[method].append(accountant.spent())
                done += 1
                if progress:
                    progress(done, steps, f"repeat {repeat + 1}/{repeats}, fold {fold + 1}/{folds}: {method}")
    rows = []
    for method in methods:
        row = {"method": method, **totals[method], **metrics(totals[method]),
               "fit_seconds": seconds[method] / (repeats * folds)}
        if spent[method]:
            every = np.concatenate(spent[method])
            row["epsilon_user_max"] = float(every.max())
            row["epsilon_user_mean"] = float(every.mean())
        rows.append(row)
    return rows


@dataclass
class SweepConfig:
    """The paper's three sweeps (Figures 3-5) and what stays fixed in each."""

    slot_hours: Sequence[int] = (2, 3, 4, 6, 8, 12)
    epsilons: Sequence[float] = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
    hidden_shares: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    fixed_slot_hours: int = 6
    fixed_epsilon: float = 1.0
    fixed_hidden_share: float = 0.1
    place: str = "root"
    split_week: bool = False
    methods: Sequence[str] = ("item-mean", "user-mean", "mf", "ldp-mf")
    settings: MethodSettings = field(default_factory=MethodSettings)
    folds: int = 10
    repeats: int = 1
    seed: int = 0
    population: int | None = None


class RatingRule(Protocol):
    """What turns check-ins into ratings for an item space: the proxy rule, or an upload's own preferences."""

    def ratings(self, checkins: CheckIns, items: ItemSpace) -> Ratings: ...


def run_sweeps(checkins: CheckIns, config: SweepConfig | None = None, rule: RatingRule | None = None,
               sweeps: Iterable[str] = ("slot_hours", "epsilon", "hidden_share"),
               progress: Progress | None = None) -> list[dict]:
    """Rows for each sweep point and method: sweep name, the swept value, the fixed values, the metrics."""
    config = config or SweepConfig()
    rule = rule or ProxyLabelRule()
    points = []
    for sweep in sweeps:
        values = {"slot_hours": config.slot_hours, "epsilon": config.epsilons,
                  "hidden_share": config.hidden_shares}[sweep]
        for value in values:
            point = {"slot_hours": config.fixed_slot_hours, "epsilon": config.fixed_epsilon,
                     "hidden_share": config.fixed_hidden_share, sweep: value}
            points.append((sweep, point, config.methods))
    rows, cache = [], {}
    for index, (sweep, point, methods) in enumerate(points):
        if point["slot_hours"] not in cache:
            items = ItemSpace(slot_hours=point["slot_hours"], split_week=config.split_week,
                              place=config.place).fit(checkins)
            cache[point["slot_hours"]] = (items, rule.ratings(checkins, items))
        items, ratings = cache[point["slot_hours"]]
        settings = replace(config.settings, epsilon=point["epsilon"])
        if sweep == "epsilon":  # the paper's reading of epsilon for the per-entry mechanism: per entry
            settings = replace(settings, laplace_epsilon_entry=point["epsilon"])

        def step(done: int, total: int, message: str, index: int = index, sweep: str = sweep) -> None:
            if progress:
                progress(index * total + done, len(points) * total, f"{sweep} point {index + 1}: {message}")

        for row in cross_validate(ratings, methods, settings, folds=config.folds,
                                  hidden_share=point["hidden_share"], repeats=config.repeats, seed=config.seed,
                                  population=config.population, progress=step):
            rows.append({"sweep": sweep, "value": point[sweep], **point, "n_items": items.n_items,
                         "n_users": ratings.n_users, "n_ratings": len(ratings),
                         "ldp_population": config.population or ratings.n_users, **row})
    return rows
