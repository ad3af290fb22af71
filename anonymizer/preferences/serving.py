"""A preference model as the web serves it, and the reference of what a person's browser computes with it.

The server keeps only the item side of an LDP-trained model: each item's factors v_j (``rank`` numbers) and
bias c_j, and the rating threshold. A person's own profile never leaves their device:

``fit_profile``   their factors u and user bias b from the cells they rated, by ridge least squares, as the
                  trainer's users fit theirs on their devices (``mf.fit_user_profiles``), i.e.
                  (X'X / m + lambda I) w = X'(r - c) / m with X_j = (v_j, 1) over their m rated items.
``scores``        s_j = u . v_j + b + c_j for every item; publish when s_j >= the threshold.
``confidence``    min(1, |s_j - threshold| / 0.5): how far the score is from the threshold (not a probability).
``gradient``      what they contribute: G[j] = -(r_j - s_j) (u, 1) on a rated item j, 0 elsewhere, divided by
                  ``clip`` and clipped to [-1, 1], flattened row-major items x (rank factors + item bias): the
                  same coordinates as ``ldp.LDPMatrixFactorization`` reports.
``contribution_reports``  ``rounds`` one-bit reports through ``ldp.client_report`` with epsilon / rounds each
                  (sequential composition: epsilon in all), drawing from one uniform stream.

``static/js/ldp.js`` implements the same functions; the tests compare the two on fixed streams.
``aggregate_reports`` is the server's side: the unbiased estimate of the contributors' mean clipped gradient
from the stored reports, through the trainer's noise gate, and one gradient step on the item profiles.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from anonymizer.preferences.items import DAY_GROUPS, ItemSpace
from anonymizer.preferences.ldp import (
    LDPMatrixFactorization,
    Uniform,
    apply_noise_gate,
    client_report,
    one_bit_bound,
)
from anonymizer.preferences.ratings import Ratings
from anonymizer.texts import gettext_noop

FORMAT = 1
# The notices and the texts a model's training record holds are English where stored; the web shell shows them
# through the catalog (gettext_noop marks them for it).
PROXY_NOTICE = gettext_noop(
    "The default model's training labels are a PROXY, not anyone's stated preferences: no public data set pairs "
    "check-ins with people's own publish/hide choices, so each Foursquare user's cells were labelled by a fixed "
    "rule (hide where most of their check-ins are at home, work, health, religious or intimate places, or at a "
    "venue they visit routinely; publish elsewhere). Recommendations follow that rule's patterns, not real "
    "people's wishes."
)
UPLOAD_NOTICE = gettext_noop("This model was trained on uploaded preferences (user, time, place, publish/hide), not on "
                             "proxy labels.")
BOUNDED_MECHANISM = gettext_noop("bounded: each round every user reports one sampled coordinate of their clipped "
                                 "V-gradient through Duchi et al.'s one-bit mechanism (epsilon / rounds per report)")
LDP_ACCOUNTING = gettext_noop("basic sequential composition over each user's reports (pure epsilon-LDP)")


@dataclass(frozen=True)
class PreferenceModelSpec:
    """How the default model is trained from the check-ins shipped in data/ (see data/preferences/)."""

    name: str = "foursquare-nyc"
    title: str = gettext_noop("Foursquare NYC, 193 users (proxy labels)")
    data: str = "preferences/foursquare_nyc/checkins.csv.gz"  # relative to DATA_DIR (settings.DATA_DIR)
    slot_hours: int = 4
    split_week: bool = True
    place: str = "root"
    rank: int = 3
    epsilon: float = 1.0
    rounds: int | None = None  # None: the trainer's choice for the epsilon (ldp.auto_rounds)
    seed: int = 0
    # Part of the fingerprint: bump it when training or the choice of the served model changes, so bootstrap
    # retrains an existing instance's default (2: served by selection.select_served_model, issue 17).
    revision: int = 2

    def fingerprint(self, data_dir: Path) -> str:
        """Changes when the spec or the data file changes: the bootstrap retrains only then."""
        digest = hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode())
        digest.update((data_dir / self.data).read_bytes())
        return digest.hexdigest()

    def trainer(self) -> LDPMatrixFactorization:
        return LDPMatrixFactorization(rank=self.rank, epsilon=self.epsilon, rounds=self.rounds, seed=self.seed)


DEFAULT_PREFERENCE_MODEL = PreferenceModelSpec()


def item_space_dict(items: ItemSpace) -> dict:
    """What a client needs to draw the week grid: rows (time slots, by day group) and columns (places)."""
    if items.place == "grid":
        raise ValueError("a preference model needs named places (root, category or given), not a grid")
    hours = [f"{s * items.slot_hours}–{(s + 1) * items.slot_hours}h" for s in range(items.n_slots)]
    rows = [f"{DAY_GROUPS[g]} {h}" if items.split_week else h for g in range(items.n_day_groups) for h in hours]
    return {"slot_hours": items.slot_hours, "split_week": items.split_week, "place": items.place,
            "rows": rows, "columns": list(items.place_names_), "n_items": items.n_items}


@dataclass
class PreferenceArtifact:
    """The served part of a trained model (item side only) and what its training did."""

    name: str
    item_space: dict
    factors: np.ndarray  # n_items x rank
    biases: np.ndarray  # n_items
    threshold: float
    regularization: float
    clip: float
    training: dict = field(default_factory=dict)

    @property
    def rank(self) -> int:
        return int(self.factors.shape[1])

    @property
    def n_items(self) -> int:
        return int(self.factors.shape[0])

    @property
    def n_coordinates(self) -> int:
        """Coordinates of a contributor's gradient: items x (rank factors + item bias)."""
        return self.n_items * (self.rank + 1)

    def labels(self) -> list[str]:
        rows, columns = self.item_space["rows"], self.item_space["columns"]
        return [f"{rows[i // len(columns)]} · {columns[i % len(columns)]}" for i in range(self.n_items)]

    def to_dict(self) -> dict:
        return {"format": FORMAT, "name": self.name, "item_space": self.item_space,
                "factors": self.factors.tolist(), "biases": self.biases.tolist(), "threshold": self.threshold,
                "regularization": self.regularization, "clip": self.clip, "training": self.training}

    @classmethod
    def from_dict(cls, data: Mapping) -> PreferenceArtifact:
        if data.get("format") != FORMAT:
            raise ValueError(f"unknown preference model format {data.get('format')!r}")
        factors = np.asarray(data["factors"], np.float64).reshape(len(data["biases"]), -1)
        return cls(name=data["name"], item_space=dict(data["item_space"]), factors=factors,
                   biases=np.asarray(data["biases"], np.float64), threshold=float(data["threshold"]),
                   regularization=float(data["regularization"]), clip=float(data["clip"]),
                   training=dict(data.get("training", {})))

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "model.json").write_text(json.dumps(self.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> PreferenceArtifact:
        return cls.from_dict(json.loads((directory / "model.json").read_text(encoding="utf-8")))

    def with_items(self, factors: np.ndarray, biases: np.ndarray, training: dict) -> PreferenceArtifact:
        return PreferenceArtifact(self.name, self.item_space, factors, biases, self.threshold, self.regularization,
                                  self.clip, training)


def train_artifact(name: str, ratings: Ratings, items: ItemSpace, trainer: LDPMatrixFactorization, *,
                   source: str) -> PreferenceArtifact:
    """Fit the bounded LDP trainer (every user's on-device perturbation simulated) and keep the item side."""
    if ratings.n_items != items.n_items:
        raise ValueError("the ratings and the item space disagree on the number of items")
    trainer.fit(ratings)
    rank = trainer.rank
    spent = trainer.accountant_.spent()
    # Reports per user (one per pass over the users), which a page contribution copies; with user partitioning
    # (groups_ > 0) a pass has a bias round and groups_ factor rounds, each user in exactly one of them.
    rounds = int(trainer.accountant_.reports().max())
    groups = int(getattr(trainer, "groups_", 0))
    mechanism = BOUNDED_MECHANISM
    if groups:
        mechanism = (f"bounded, partitioned: each pass splits the users at random into a bias group and {groups} "
                     "factor groups, each reporting once, one sampled coordinate of its columns of the clipped "
                     "V-gradient through Duchi et al.'s one-bit mechanism (epsilon / rounds per report)")
    training = {
        "source": source, "method": "ldp-mf", "users": int(ratings.n_users), "ratings": len(ratings),
        "users_with_ratings": int(np.sum(ratings.per_user() > 0)), "publish_share": float(ratings.value.mean())
        if len(ratings) else None, "rank": rank, "rounds": rounds, "epsilon_per_user": trainer.epsilon,
        "epsilon_per_report": trainer.epsilon_round, "reports_per_user": rounds, "groups": groups,
        "server_rounds": rounds * (1 + groups) if groups else rounds,
        "epsilon_spent_max": float(spent.max()), "epsilon_spent_mean": float(spent.mean()),
        "mechanism": mechanism,
        "accounting": LDP_ACCOUNTING,
        "settings": {name: getattr(trainer, name, None) for name in (
            "learning_rate", "regularization", "clip", "projection", "noise_gate", "seed", "groups", "bias_share",
            "factor_clip", "factor_learning_rate")},
    }
    return PreferenceArtifact(name=name, item_space=item_space_dict(items),
                              factors=trainer.item_factors_[:, :rank].copy(),
                              biases=trainer.item_factors_[:, rank + 1].copy(), threshold=float(trainer.threshold_),
                              regularization=trainer.regularization, clip=trainer.clip, training=training)


# -- the client's side (what static/js/ldp.js does in the browser) -------------------------------------------
def _rated(model: PreferenceArtifact, ratings: Mapping[int, float]) -> tuple[np.ndarray, np.ndarray]:
    items = np.fromiter((int(j) for j in ratings), np.int64, len(ratings))
    values = np.fromiter((float(ratings[j]) for j in ratings), np.float64, len(ratings))
    if len(items) and (items.min() < 0 or items.max() >= model.n_items):
        raise ValueError("a rated item is outside the model's item space")
    return items, values


def fit_profile(model: PreferenceArtifact, ratings: Mapping[int, float]) -> np.ndarray:
    """(u_1 .. u_rank, b): the ridge fit of the module docstring; zeros without ratings."""
    items, values = _rated(model, ratings)
    width = model.rank + 1
    if not len(items):
        return np.zeros(width)
    design = np.hstack([model.factors[items], np.ones((len(items), 1))])
    lhs = design.T @ design / len(items) + model.regularization * np.eye(width)
    rhs = design.T @ (values - model.biases[items]) / len(items)
    return np.linalg.solve(lhs, rhs)


def scores(model: PreferenceArtifact, profile: np.ndarray) -> np.ndarray:
    return model.factors @ profile[:-1] + profile[-1] + model.biases


def confidence(model: PreferenceArtifact, score: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, np.abs(np.asarray(score) - model.threshold) / 0.5)


def gradient(model: PreferenceArtifact, profile: np.ndarray, ratings: Mapping[int, float]) -> np.ndarray:
    """The flattened, clipped gradient of the module docstring (length ``n_coordinates``)."""
    items, values = _rated(model, ratings)
    out = np.zeros((model.n_items, model.rank + 1))
    error = values - scores(model, profile)[items]
    out[items] = -error[:, None] * np.r_[profile[:-1], 1.0][None, :]
    return np.clip(out / model.clip, -1.0, 1.0).ravel()


def secure_uniform() -> float:
    """A uniform in [0, 1) of 53 fresh bits from the operating system's CSPRNG: the Python mirror of ldp.js's
    ``secureUniform``, which the page draws every report's randomness from. No draw shares state with another,
    so no report tells anything about the next (``Mulberry32`` is for the fixed-stream comparisons only)."""
    return secrets.randbits(53) / 9007199254740992.0


def contribution_reports(values: Sequence[float], epsilon: float, rounds: int, uniform: Uniform) -> list[dict]:
    """``rounds`` reports of epsilon / rounds each: {round, index, value, epsilon}."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    per_report = epsilon / rounds
    reports = []
    for r in range(rounds):
        index, value = client_report(values, per_report, uniform)
        reports.append({"round": r, "index": index, "value": value, "epsilon": per_report})
    return reports


def is_report_value(value: float, epsilon: float, rel: float = 1e-9) -> bool:
    """Whether ``value`` is +B or -B of the one-bit mechanism at ``epsilon`` (up to float rounding)."""
    bound = one_bit_bound(epsilon)
    return math.isclose(abs(value), bound, rel_tol=rel) and value != 0


# -- the server's side ----------------------------------------------------------------------------------------
def aggregate_reports(model: PreferenceArtifact, contributions: Sequence[Sequence[tuple[int, float, float]]], *,
                      learning_rate: float = 1.0, noise_gate: bool = True) -> PreferenceArtifact:
    """One step on the item profiles from stored contributions, each a list of (index, value, epsilon) reports.

    A report (k, y) of a contribution with R reports estimates that contributor's clipped gradient without bias
    as n_coordinates x y on coordinate k (k uniform, E[y] = x_k); averaging over the R reports and over the C
    contributions estimates the mean gradient. One report's variance on a coordinate is about n B^2, so the
    estimate's is n clip^2 sum_c (B_c^2 / R_c) / C^2; as in the trainer, an estimate that noise of that variance
    explains is dropped (the noise gate, post-processing)."""
    n = model.n_coordinates
    estimate = np.zeros(n)
    noise = 0.0
    used = [c for c in contributions if len(c)]
    if not used:
        raise ValueError("there are no reports to aggregate")
    for reports in used:
        index = np.asarray([r[0] for r in reports], np.int64)
        value = np.asarray([r[1] for r in reports], np.float64)
        if index.min() < 0 or index.max() >= n:
            raise ValueError("a report's index lies outside the model's coordinates")
        estimate += np.bincount(index, weights=value, minlength=n) * n / (len(reports) * len(used))
        noise += float(np.mean([one_bit_bound(r[2]) ** 2 for r in reports])) / len(reports)
    estimate *= model.clip
    noise_variance = n * model.clip**2 * noise / len(used) ** 2
    grid = estimate.reshape(model.n_items, model.rank + 1)
    if noise_gate:
        grid = apply_noise_gate(grid, noise_variance)
    items = np.hstack([model.factors, model.biases[:, None]])
    items -= learning_rate * (grid + model.regularization * items)
    return model.with_items(items[:, :-1].copy(), items[:, -1].copy(), {
        **model.training, "aggregated": {"contributions": len(used), "reports": sum(len(c) for c in used),
                                         "learning_rate": learning_rate,
                                         "signal_kept": float(np.linalg.norm(grid) / np.linalg.norm(estimate))
                                         if np.any(estimate) else 0.0}})
