"""A trained location model as one artifact: grid, tokenizer settings, classifier, threshold and metadata.

On disk a model is a directory holding ``model.json`` (everything but the weights) and ``classifier.npz``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

import numpy as np

from anonymizer.location.classifier import LocationClassifier
from anonymizer.location.corpus import Post, corpus_fingerprint
from anonymizer.location.deidentify import Deidentification, LinearScorer
from anonymizer.location.evaluate import evaluate_predictions, split_train_test
from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS
from anonymizer.location.place_scorer import PlaceResolver, place_scorer, smoothed_prior
from anonymizer.location.release import release_post
from anonymizer.location.scoring import Scoring
from anonymizer.location.tokenize import Token, TokenizerSettings, get_tokenizer
from anonymizer.platform.deadline import Deadline
from anonymizer.platform.grid import Grid

# A place unit seen in this many training posts is resolved by where those posts were written.
LEARNED_PLACE_MIN_POSTS = 3
# The gazetteer scorer's threshold is never under this multiple of the prior's busiest cell: a post that names
# no place must pass it, and an area as wide as the prior's own spread is no give-away.
PLACE_THRESHOLD_OVER_PRIOR = 1.25

FORMAT_VERSION = 1
PAPER_THRESHOLD = 0.37
# The paper's majority baseline: always answering the busiest area (Kyoto Station) is right 11.6% of the time.
PAPER_MAJORITY_SHARE = 0.116
# Its threshold is this many times the busiest cell's share; a model of a more spread-out corpus, whose
# probabilities are lower overall, gets the same multiple of its own busiest cell's share.
RELATIVE_FACTOR = PAPER_THRESHOLD / PAPER_MAJORITY_SHARE

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Threshold:
    """The top-cell probability under which a post counts as de-identified, and why it is that value."""

    value: float
    kind: str  # "attacker" (an independent attacker's accuracy), "calibrated" (hand de-identified), "relative", "paper"
    explanation: str

    @classmethod
    def choose(cls, majority_share: float, calibrated: float | None = None, calibrated_posts: int = 0) -> Threshold:
        if calibrated is not None:
            return cls(calibrated, "calibrated",
                       f"Calibrated: the mean top-cell probability of {calibrated_posts} posts that people "
                       "de-identified by hand (the paper's method).")
        relative = RELATIVE_FACTOR * majority_share
        if relative < PAPER_THRESHOLD:
            return cls(relative, "relative",
                       f"Relative: this model's probabilities are low overall (its busiest cell holds "
                       f"{majority_share:.1%} of the training posts), so the threshold is {RELATIVE_FACTOR:.2f} x "
                       f"that share, the ratio of the paper's 0.37 to its 11.6% majority baseline.")
        return cls(PAPER_THRESHOLD, "paper", "The paper's threshold, 0.37, calibrated on hand de-identified posts.")


@dataclass(frozen=True)
class Inference:
    """A post's tokens and its probability for every cell of the grid (0 for cells without training posts)."""

    tokens: list[Token]
    probabilities: np.ndarray  # n_cells

    def top(self, k: int = 5) -> list[tuple[int, float]]:
        order = np.argsort(-self.probabilities, kind="stable")[:k]
        return [(int(cell), float(self.probabilities[cell])) for cell in order]


@dataclass(frozen=True)
class DeidentifiedPost:
    """A post before and after de-identification, with everything a page needs to show both."""

    text: str
    tokens: list[Token]
    decision: Deidentification
    text_after: str
    probabilities_before: np.ndarray  # n_cells
    probabilities_after: np.ndarray
    kept: list[int]  # token indices the user asked to keep
    replacements: dict[int, str] = field(default_factory=dict)  # deleted token index -> what was written instead
    rounds: int = 1  # searches run until the re-tokenized released text scored under every threshold
    keep_missing: tuple[str, ...] = ()  # keep-words or phrases found nowhere in the post

    @property
    def deleted_tokens(self) -> list[Token]:
        return [self.tokens[i] for i in self.decision.deleted]


class LocationModel:
    """Everything needed to infer a post's cell and to de-identify it."""

    def __init__(self, *, name: str, grid: Grid, tokenizer_settings: TokenizerSettings,
                 classifier: LocationClassifier, threshold: Threshold, metadata: dict | None = None,
                 learned_places: Mapping[str, Mapping[int, int]] | None = None) -> None:
        self.name, self.grid, self.tokenizer_settings = name, grid, tokenizer_settings
        self.classifier, self.threshold = classifier, threshold
        self.metadata = dict(metadata or {})
        # Place units of the training posts and the cells they were written in (see place_scorer).
        self.learned_places = {norm: {int(c): int(n) for c, n in cells.items()}
                               for norm, cells in (learned_places or {}).items()}

    @property
    def language(self) -> str:
        return self.tokenizer_settings.language

    def tokenize(self, text: str) -> list[Token]:
        return get_tokenizer(self.tokenizer_settings).tokenize(text)

    def cell_probabilities(self, docs: Sequence[Sequence[str]]) -> np.ndarray:
        """Probabilities over all grid cells (n_docs x n_cells) for token-norm sequences."""
        out = np.zeros((len(docs), self.grid.n_cells))
        out[:, self.classifier.classes_] = self.classifier.predict_proba(docs)
        return out

    def infer(self, text: str) -> Inference:
        tokens = self.tokenize(text)
        return Inference(tokens, self.cell_probabilities([[t.norm for t in tokens]])[0])

    def scorer(self) -> LinearScorer:
        return LinearScorer("location", self.classifier.vocabulary_, self.classifier.weights_,
                            self.classifier.intercept_, self.threshold.value)

    @cached_property
    def place_resolver(self) -> PlaceResolver:
        prior = smoothed_prior(self.grid, self.metadata.get("cell_counts"), self.classifier.classes_)
        return PlaceResolver(self.grid, prior, self.learned_places)

    @property
    def place_threshold(self) -> float:
        """The gazetteer scorer's threshold: the model's, but never so low that a post naming nothing fails."""
        floor = PLACE_THRESHOLD_OVER_PRIOR * float(self.place_resolver.prior.max())
        return min(1.0, max(self.threshold.value, floor))

    @cached_property
    def _place_scorer(self) -> LinearScorer:
        # One per model: its vocabulary remembers every unit it resolved.
        return place_scorer(self.place_resolver, self.place_threshold)

    def scorers(self, extra_scorers: Sequence[LinearScorer] = ()) -> list[LinearScorer]:
        """What a released post must be under: the classifier, the gazetteer scorer (models trained with
        units) and any extra model (the crowd's human-inferability model)."""
        own = [self.scorer()]
        if self.tokenizer_settings.units:
            own.append(self._place_scorer)
        return [*own, *extra_scorers]

    def scores(self, text: str, extra_scorers: Sequence[LinearScorer] = ()) -> tuple[list[Token], dict[str, float]]:
        """A text's tokens and every scorer's score on it, as a reader of exactly this text would get them."""
        return self.scoring(extra_scorers).scores(text)

    def scoring(self, extra_scorers: Sequence[LinearScorer] = ()) -> Scoring:
        """This model's tokenizer and scorers (with any extra ones), as release building is handed them."""
        return Scoring(self.tokenize, self.scorers(extra_scorers))

    def deidentify(self, text: str, *, m: int | None = None, keep_words: Sequence[str] = (),
                   keep_spans: Sequence[tuple[int, int]] = (), extra_scorers: Sequence[LinearScorer] = (),
                   replacement: str = DEFAULT_OPTIONS.replacement, places: str = DEFAULT_OPTIONS.places,
                   deadline: Deadline | None = None) -> DeidentifiedPost:
        """Delete the fewest units (or exactly m) that bring every scorer under its threshold, then check the
        text actually released: re-tokenized and re-scored, and searched again (automatic mode) while it is not
        under every threshold. Units matching ``keep_words`` (case-insensitive), and units that overlap a
        character span of ``keep_spans``, are kept. ``replacement``: "delete" (the paper), "mask" (a deleted
        place reads "[place]") or "generalize" (a deleted place becomes its state or prefecture where that keeps
        every scorer under its threshold, else it is deleted). ``places`` (automatic mode): "all" deletes every
        place name the gazetteer resolves inside the grid, then the fewest other units; "needed" only what the
        thresholds need. Fixed m is the paper's experiment and ignores it. Past ``deadline`` it stops between two
        steps with DeadlineExceeded."""
        if replacement not in REPLACEMENTS:
            raise ValueError(f"replacement must be one of {REPLACEMENTS}, not {replacement!r}")
        if places not in PLACE_POLICIES:
            raise ValueError(f"places must be one of {PLACE_POLICIES}, not {places!r}")
        released = release_post(text, self.scoring(extra_scorers), self.place_resolver, self.language, m=m,
                                keep_words=keep_words, keep_spans=keep_spans, replacement=replacement,
                                places=places, deadline=deadline)
        probabilities = self.cell_probabilities([[t.norm for t in released.tokens],
                                                 [t.norm for t in released.released_tokens]])
        return DeidentifiedPost(text, released.tokens, released.decision, released.text_after, probabilities[0],
                                probabilities[1], released.kept, released.replacements, released.rounds,
                                released.keep_missing)

    def with_threshold(self, threshold: Threshold) -> LocationModel:
        return LocationModel(name=self.name, grid=self.grid, tokenizer_settings=self.tokenizer_settings,
                             classifier=self.classifier, threshold=threshold, metadata=self.metadata,
                             learned_places=self.learned_places)

    def record_fields(self) -> dict:
        """What a catalogue of models keeps about this one beside its files: its name, language and threshold,
        and a summary (the metadata with the grid, the tokenizer and the threshold explained)."""
        threshold = {"value": self.threshold.value, "kind": self.threshold.kind,
                     "explanation": self.threshold.explanation}
        return {"name": self.name, "language": self.language, "threshold": self.threshold.value,
                "threshold_kind": self.threshold.kind,
                "metadata": {**self.metadata, "grid": self.grid.to_dict(),
                             "tokenizer": self.tokenizer_settings.to_dict(), "threshold": threshold}}

    # -- persistence ------------------------------------------------------------------------------------
    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.classifier.save(directory / "classifier.npz")
        (directory / "places.json").write_text(json.dumps(self.learned_places, ensure_ascii=False))
        document = {"format": FORMAT_VERSION, "name": self.name, "grid": self.grid.to_dict(),
                    "tokenizer": self.tokenizer_settings.to_dict(), "threshold": asdict(self.threshold),
                    "metadata": self.metadata}
        # Written last and atomically: a directory with model.json is a complete model.
        partial = directory / "model.json.partial"
        partial.write_text(json.dumps(document, ensure_ascii=False, indent=1))
        partial.replace(directory / "model.json")

    @classmethod
    def load(cls, directory: Path) -> LocationModel:
        document = json.loads((directory / "model.json").read_text())
        if document.get("format") != FORMAT_VERSION:
            raise ValueError(f"{directory} holds a model of format {document.get('format')}, expected "
                             f"{FORMAT_VERSION}; train it again.")
        return cls(name=document["name"], grid=Grid.from_dict(document["grid"]),
                   tokenizer_settings=TokenizerSettings.from_dict(document["tokenizer"]),
                   classifier=LocationClassifier.load(directory / "classifier.npz"),
                   threshold=Threshold(**document["threshold"]), metadata=document["metadata"],
                   learned_places=json.loads(places.read_text()) if (places := directory / "places.json").exists()
                   else None)


def calibrated_threshold(model: LocationModel, hand_deidentified: Sequence[str]) -> Threshold:
    """The paper's calibration: the mean top-cell probability of posts that people de-identified by hand."""
    return hand_calibration(model, hand_deidentified)[0]


def hand_calibration(model: LocationModel, hand_deidentified: Sequence[str], *, resamples: int = 2000,
                     seed: int = 0) -> tuple[Threshold, tuple[float, float]]:
    """The calibrated threshold (``calibrated_threshold``) and a 95% percentile-bootstrap interval of it over the
    posts (resampled ``resamples`` times): how much it owes to which posts people happened to de-identify."""
    if not hand_deidentified:
        raise ValueError("calibration needs at least one hand de-identified post")
    tokenizer = get_tokenizer(model.tokenizer_settings)
    docs = [[t.norm for t in tokenizer.tokenize(text)] for text in hand_deidentified]
    top = model.classifier.predict_proba(docs).max(axis=1)
    means = np.random.default_rng(seed).choice(top, size=(resamples, len(top))).mean(axis=1)
    interval = (float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975)))
    return Threshold.choose(0.0, calibrated=float(top.mean()), calibrated_posts=len(docs)), interval


def train_location_model(posts: Sequence[Post], *, name: str, grid: Grid, tokenizer_settings: TokenizerSettings,
                         C: float = 1.0, min_df: int = 2, max_iter: int = 500, test_size: float = 0.4,
                         seed: int = 0, progress: Progress | None = None) -> LocationModel:
    """Tokenize, split (60/40, user-disjoint when users are known), fit, evaluate on the held-out part.

    Progress is reported on one 0..100 scale: tokenizing to 15, training to 90, evaluating to 100.
    """
    if not posts:
        raise ValueError("no posts to train on")
    report = progress or (lambda done, total, message: None)
    started = time.perf_counter()
    cells = np.array([grid.cell_of(p.lat, p.lon) if p.cell is None else p.cell for p in posts], dtype=object)
    if any(cell is None for cell in cells):
        raise ValueError("every post must lie inside the grid (read the corpus with this grid)")
    cells = cells.astype(np.int64)
    tokenizer = get_tokenizer(tokenizer_settings)
    docs: list[list[str]] = []
    place_units: list[set[str]] = []
    for i, tokens in enumerate(tokenizer.tokenize_many(p.text for p in posts)):
        docs.append([t.norm for t in tokens])
        place_units.append({t.norm for t in tokens if t.kind != "word"})
        if i % 2000 == 0:
            report(int(15 * i / len(posts)), 100, f"tokenizing: {i:,} of {len(posts):,} posts")
    train, test, user_disjoint = split_train_test(len(posts), users=[p.user for p in posts], test_size=test_size,
                                                  seed=seed)
    if len(np.unique(cells[train])) < 2:
        raise ValueError("the training posts fall in fewer than two cells; a classifier needs at least two")
    tokenized = time.perf_counter()

    def fit_progress(iteration: int, max_iterations: int, message: str) -> None:
        report(15 + int(75 * iteration / max_iterations), 100, message)

    classifier = LocationClassifier(C=C, min_df=min_df, max_iter=max_iter).fit(
        [docs[i] for i in train], cells[train], progress=fit_progress)
    fitted = time.perf_counter()
    report(90, 100, "evaluating on held-out posts")
    values, counts = np.unique(cells[train], return_counts=True)
    majority_cell, majority_share = int(values[counts.argmax()]), float(counts.max() / len(train))
    learned = learned_places([place_units[i] for i in train], cells[train])
    scores = None
    if len(test):
        probabilities = classifier.predict_proba([docs[i] for i in test])
        scores = evaluate_predictions(probabilities, classifier.classes_, cells[test],
                                      np.array([posts[i].lat for i in test]), np.array([posts[i].lon for i in test]),
                                      grid, majority_cell)
    metadata = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "corpus_fingerprint": corpus_fingerprint(posts),
        "posts": len(posts),
        "train_posts": len(train),
        "test_posts": len(test),
        "split": {"test_size": test_size, "seed": seed, "user_disjoint": user_disjoint},
        "classes": len(classifier.classes_),
        "vocabulary_size": len(classifier.vocabulary_),
        "training": {"C": C, "min_df": min_df, "max_iter": max_iter, "iterations": classifier.n_iter_},
        "majority_cell": majority_cell,
        "majority_share": majority_share,
        "cell_counts": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        "learned_places": len(learned),
        "scores": scores,
        "seconds": {"tokenize": round(tokenized - started, 2), "fit": round(fitted - tokenized, 2),
                    "total": round(time.perf_counter() - started, 2)},
    }
    report(100, 100, "trained")
    return LocationModel(name=name, grid=grid, tokenizer_settings=tokenizer_settings, classifier=classifier,
                         threshold=Threshold.choose(majority_share), metadata=metadata, learned_places=learned)


def learned_places(units: Sequence[set[str]], cells: np.ndarray) -> dict[str, dict[int, int]]:
    """What the corpus teaches about its place units (and hashtags, mentions, URLs): the cells of the posts
    that used each one seen in at least LEARNED_PLACE_MIN_POSTS posts."""
    by_unit: dict[str, Counter] = {}
    for post_units, cell in zip(units, cells, strict=True):
        # Sorted: a set's order changes with each process's string hashing, and places.json keeps this order
        # (the same corpus must give the same file, whichever process trained it).
        for unit in sorted(post_units):
            by_unit.setdefault(unit, Counter())[int(cell)] += 1
    return {unit: dict(counter) for unit, counter in by_unit.items()
            if sum(counter.values()) >= LEARNED_PLACE_MIN_POSTS}


