"""Which model the page serves, and where it says "publish": chosen on held-out users (issue 17).

Publishing a cell the person wanted hidden is the costly error, so every method is judged at a false-positive
target (``fpr_target``, 0.2: at most one in five cells people wanted hidden comes out "publish"). A method
publishes a cell when its score reaches its threshold, chosen on held-out ratings as the lowest one that keeps
the false-positive rate within the target; below it the recommendation is "hide", which is also what a model
that cannot tell a cell apart says.

Evaluation (``select_served_model``): the users are cut into ``folds`` folds; each fold's users hide
``hidden_share`` of their ratings (``experiment.hide_ratings``); every method trains on the other users and the
fold's known ratings, and the hidden ratings are scored the way the browser scores them (the person's profile
refit to the served item side, ``mf.fit_user_profiles`` = ``serving.fit_profile``). The figures are
CROSS-FITTED: fold f's ratings are judged at the threshold chosen on the other folds' held-out scores, so no
figure is measured on the ratings its threshold was tuned on. The served threshold is then chosen on all folds'
held-out scores.

Candidates, the models the page may serve, all scored in the person's browser from their own ratings:
    "ldp-mf"            the LDP-trained item side (each training user's ε spent through the one-bit mechanism);
    "user-mean"         no item side (factors and item biases 0): the score is the person's own mean rating; it
                        uses no one else's ratings;
    "item-mean+offset"  each cell's mean rating over the training users, computed IN THE CLEAR (no LDP), plus
                        the person's own offset from those means (their profile's bias). Fit to serve only
                        where the training ratings need no protection from whoever loads the model: the
                        built-in model's are public check-ins with proxy labels, an uploaded model is served to
                        its owner only. ``candidates`` leaves it out otherwise; the served model's training says
                        which it is, and claims no ε for its training users.
References, measured side by side and never served: "item-mean" (the experiment's baseline: the cell's mean alone)
and "mf" (non-private matrix factorization). RULE: serve the candidate with the highest cross-fitted recall at
the target; a tie goes to the one listed first.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np

from anonymizer.preferences.experiment import confusion, hide_ratings, metrics
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.ldp import LDPMatrixFactorization
from anonymizer.preferences.mf import ItemMean, MatrixFactorization, fit_user_profiles, scores_of
from anonymizer.preferences.ratings import Ratings
from anonymizer.preferences.serving import PreferenceArtifact, item_space_dict, train_artifact
from anonymizer.texts import gettext_noop

FPR_TARGET = 0.2
CANDIDATES = ("ldp-mf", "user-mean", "item-mean+offset")
REFERENCES = ("item-mean", "mf")
RULE = gettext_noop(
    "Served: of the LDP model, the person's own mean and the cells' means plus the person's offset, the one with the "
    "highest recall at a false-positive rate of at most {target:g} on held-out users, each at its own threshold "
    "(chosen on other users than those it is judged on); below the threshold the page says hide. The plain item mean "
    "and non-private MF are measured for comparison only.")
# What a baseline's training record says (English where stored; the web shell shows them through the catalog).
USER_MEAN_MECHANISM = gettext_noop("none: the item side is empty; each person's score is their own mean rating, "
                                   "computed in their browser")
USER_MEAN_ACCOUNTING = gettext_noop("no training user's rating is used (ε = 0)")
ITEM_MEAN_MECHANISM = gettext_noop("none: each cell's mean rating over the training users, in the clear (no LDP)")
ITEM_MEAN_ACCOUNTING = gettext_noop("not differentially private: the training ratings are used as they are")
Builder = Callable[[Ratings], PreferenceArtifact]


def threshold_for_fpr(scores: np.ndarray, truth: np.ndarray, fpr_target: float) -> float:
    """The lowest threshold t such that publishing where score >= t publishes at most ``fpr_target`` of the
    cells rated hide (truth 0): just above the (k + 1)-th highest hide score, k = floor(target x hides)."""
    hides = np.sort(np.asarray(scores, np.float64)[np.asarray(truth) == 0])[::-1]
    if not len(hides):
        return float(np.min(scores)) if len(scores) else 0.5
    k = int(np.floor(fpr_target * len(hides) + 1e-9))
    if k >= len(hides):
        return float(np.min(scores))
    return float(np.nextafter(hides[k], np.inf))


def served_scores(artifact: PreferenceArtifact, known: Ratings, user: np.ndarray, item: np.ndarray) -> np.ndarray:
    """Scores of (user, item) pairs as the browser computes them: each user's profile is the ridge fit to their
    ``known`` ratings against the artifact's item side (``serving.fit_profile``, vectorized over users)."""
    rank = artifact.rank
    items = np.hstack([artifact.factors, np.ones((artifact.n_items, 1)), artifact.biases[:, None]])
    users = fit_user_profiles(known, items, rank, artifact.regularization)
    return scores_of(users, items, user, item)


def user_mean_artifact(name: str, ratings: Ratings, items: ItemSpace | dict, rank: int, regularization: float,
                       source: str) -> PreferenceArtifact:
    """The item side that uses no one's ratings: zero factors and biases, so the score is the person's own
    (ridge-shrunk) mean rating."""
    space = items if isinstance(items, dict) else item_space_dict(items)
    return PreferenceArtifact(
        name=name, item_space=space, factors=np.zeros((ratings.n_items, rank)), biases=np.zeros(ratings.n_items),
        threshold=0.5, regularization=regularization, clip=1.0,
        training={"source": source, "method": "user-mean", "users": 0, "ratings": 0, "rank": rank,
                  "rounds": 1, "epsilon_per_user": 0.0, "epsilon_per_report": None, "reports_per_user": 0,
                  "mechanism": USER_MEAN_MECHANISM, "accounting": USER_MEAN_ACCOUNTING})


def item_mean_artifact(name: str, ratings: Ratings, items: ItemSpace | dict, rank: int, regularization: float,
                       source: str) -> PreferenceArtifact:
    """The item side of the item-mean baseline, computed IN THE CLEAR from the training ratings: zero factors,
    each cell's bias its mean rating (the overall mean where nobody rated it); the person's refit adds their own
    offset from it."""
    artifact = user_mean_artifact(name, ratings, items, rank, regularization, source)
    artifact.biases = ItemMean().fit(ratings).item_means_.astype(np.float64)
    artifact.training.update({
        "method": "item-mean+offset", "users": int(ratings.n_users), "ratings": len(ratings), "epsilon_per_user": None,
        "mechanism": ITEM_MEAN_MECHANISM, "accounting": ITEM_MEAN_ACCOUNTING})
    return artifact


def candidate_builders(name: str, items: ItemSpace, trainer: LDPMatrixFactorization, source: str
                       ) -> dict[str, Builder]:
    """How each candidate's artifact is made from a set of ratings (a fresh copy of the trainer each time)."""
    return {
        "ldp-mf": lambda r: train_artifact(name, r, items, copy.deepcopy(trainer), source=source),
        "user-mean": lambda r: user_mean_artifact(name, r, items, trainer.rank, trainer.regularization, source),
        "item-mean+offset": lambda r: item_mean_artifact(name, r, items, trainer.rank, trainer.regularization,
                                                         source),
    }


def _reference_scores(method: str, trainer: LDPMatrixFactorization, train: Ratings, test: Ratings,
                      seed: int) -> np.ndarray:
    if method == "item-mean":
        return ItemMean().fit(train).decision_function(test.user, test.item)
    model = MatrixFactorization(rank=trainer.rank, regularization=trainer.regularization, seed=seed).fit(train)
    return model.decision_function(test.user, test.item)


def _finite(values: dict[str, float]) -> dict[str, float | None]:
    """NaN (a rate with nothing to count) as None: the figures are stored as JSON."""
    return {k: None if v != v else v for k, v in values.items()}


def select_served_model(name: str, ratings: Ratings, items: ItemSpace, trainer: LDPMatrixFactorization, *,
                        source: str, folds: int = 5, hidden_share: float = 0.1, fpr_target: float = FPR_TARGET,
                        seed: int = 0, candidates: Sequence[str] = CANDIDATES) -> tuple[PreferenceArtifact, dict]:
    """The served artifact (the chosen candidate trained on all ratings, its threshold set for the target) and
    the figures: for every candidate and reference, cross-fitted false-positive rate, recall and
    reconstruction at the target, the same at the fixed threshold 0.5, and the threshold served."""
    builders = candidate_builders(name, items, trainer, source)
    methods = [*candidates, *REFERENCES]
    rng = np.random.default_rng(seed)
    folds = max(2, min(folds, ratings.n_users))
    held: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {m: [] for m in methods}
    for fold, test_users in enumerate(np.array_split(rng.permutation(ratings.n_users), folds)):
        hidden = hide_ratings(ratings, test_users, hidden_share, rng)
        train, test = ratings.select(~hidden), ratings.select(hidden)
        for method in methods:
            if method in builders:
                scores = served_scores(builders[method](train), train, test.user, test.item)
            else:
                scores = _reference_scores(method, trainer, train, test, seed + fold)
            held[method].append((scores, test.value))
    figures = {}
    for method in methods:
        at_target = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
        at_half = dict(at_target)
        for f, (scores, truth) in enumerate(held[method]):
            others = [held[method][g] for g in range(folds) if g != f]
            t = threshold_for_fpr(np.concatenate([s for s, _ in others]), np.concatenate([v for _, v in others]),
                                  fpr_target)
            for totals, threshold in ((at_target, t), (at_half, 0.5)):
                for key, value in confusion(truth, scores >= threshold).items():
                    totals[key] += value
        every_score = np.concatenate([s for s, _ in held[method]])
        every_truth = np.concatenate([v for _, v in held[method]])
        figures[method] = {**_finite(metrics(at_target)),
                           "threshold": threshold_for_fpr(every_score, every_truth, fpr_target),
                           "at_threshold_0_5": _finite(metrics(at_half)), "candidate": method in candidates,
                           "private": method in ("ldp-mf", "user-mean")}
    best = max(candidates, key=lambda m: (-1.0 if figures[m]["recall"] is None else figures[m]["recall"],
                                          -candidates.index(m)))
    artifact = builders[best](ratings)
    artifact = PreferenceArtifact(artifact.name, artifact.item_space, artifact.factors, artifact.biases,
                                  figures[best]["threshold"], artifact.regularization, artifact.clip,
                                  {**artifact.training, "method": best})
    report = {"folds": folds, "hidden_share": hidden_share, "fpr_target": fpr_target, "served": best,
              "rule": RULE.format(target=fpr_target), "methods": figures,
              "evaluation": "cross-fitted: each fold judged at the threshold chosen on the other folds"}
    return artifact, report
