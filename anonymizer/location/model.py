"""A trained location model as one artifact: grid, tokenizer settings, classifier, threshold and metadata.

On disk a model is a directory holding ``model.json`` (everything but the weights) and ``classifier.npz``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from anonymizer.location.classifier import LocationClassifier
from anonymizer.location.corpus import Post, corpus_fingerprint
from anonymizer.location.deidentify import Deidentification, Deidentifier, LinearScorer
from anonymizer.location.evaluate import evaluate_predictions, split_train_test
from anonymizer.location.grid import Grid
from anonymizer.location.tokenize import Token, TokenizerSettings, get_tokenizer

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
    kind: str  # "calibrated", "relative" or "paper"
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

    @property
    def deleted_tokens(self) -> list[Token]:
        return [self.tokens[i] for i in self.decision.deleted]


def remove_spans(text: str, tokens: Sequence[Token]) -> str:
    """The text without the tokens' characters; a space left doubled by a removed word, or left at the start of
    a line by a removed first word, is dropped."""
    out, position = "", 0
    for token in [*sorted(tokens, key=lambda t: t.start), None]:
        piece = text[position: len(text) if token is None else token.start]
        if (out.endswith((" ", "\n")) or (out == "" and position > 0)) and piece.startswith(" "):
            piece = piece[1:]
        out += piece
        if token is not None:
            position = token.end
    return out.strip()


class LocationModel:
    """Everything needed to infer a post's cell and to de-identify it."""

    def __init__(self, *, name: str, grid: Grid, tokenizer_settings: TokenizerSettings,
                 classifier: LocationClassifier, threshold: Threshold, metadata: dict | None = None) -> None:
        self.name, self.grid, self.tokenizer_settings = name, grid, tokenizer_settings
        self.classifier, self.threshold = classifier, threshold
        self.metadata = dict(metadata or {})

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

    def deidentify(self, text: str, *, m: int | None = None, keep_words: Sequence[str] = (),
                   keep_spans: Sequence[tuple[int, int]] = (),
                   extra_scorers: Sequence[LinearScorer] = ()) -> DeidentifiedPost:
        """Delete the fewest tokens (or exactly m) that bring the top-cell probability (and every extra
        model's score) under its threshold. Tokens matching ``keep_words`` (case-insensitive), and tokens that
        overlap a character span of ``keep_spans``, are kept."""
        tokens = self.tokenize(text)
        norms = [t.norm for t in tokens]
        keep_set = {word.casefold() for word in keep_words if word.strip()}
        keep = [i for i, t in enumerate(tokens) if t.text.casefold() in keep_set or t.norm.casefold() in keep_set
                or any(t.start < end and start < t.end for start, end in keep_spans)]
        deidentifier = Deidentifier([self.scorer(), *extra_scorers])
        decision = deidentifier.deidentify(norms, [t.deletable for t in tokens], m=m, keep=keep)
        gone = set(decision.deleted)
        after = [t.norm for i, t in enumerate(tokens) if i not in gone]
        probabilities = self.cell_probabilities([norms, after])
        return DeidentifiedPost(text, tokens, decision, remove_spans(text, [tokens[i] for i in decision.deleted]),
                                probabilities[0], probabilities[1], keep)

    def with_threshold(self, threshold: Threshold) -> LocationModel:
        return LocationModel(name=self.name, grid=self.grid, tokenizer_settings=self.tokenizer_settings,
                             classifier=self.classifier, threshold=threshold, metadata=self.metadata)

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
                   threshold=Threshold(**document["threshold"]), metadata=document["metadata"])


def calibrated_threshold(model: LocationModel, hand_deidentified: Sequence[str]) -> Threshold:
    """The paper's calibration: the mean top-cell probability of posts that people de-identified by hand."""
    if not hand_deidentified:
        raise ValueError("calibration needs at least one hand de-identified post")
    tokenizer = get_tokenizer(model.tokenizer_settings)
    docs = [[t.norm for t in tokenizer.tokenize(text)] for text in hand_deidentified]
    value = float(model.classifier.predict_proba(docs).max(axis=1).mean())
    return Threshold.choose(0.0, calibrated=value, calibrated_posts=len(docs))


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
    for i, tokens in enumerate(tokenizer.tokenize_many(p.text for p in posts)):
        docs.append([t.norm for t in tokens])
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
        "scores": scores,
        "seconds": {"tokenize": round(tokenized - started, 2), "fit": round(fitted - tokenized, 2),
                    "total": round(time.perf_counter() - started, 2)},
    }
    report(100, 100, "trained")
    return LocationModel(name=name, grid=grid, tokenizer_settings=tokenizer_settings, classifier=classifier,
                         threshold=Threshold.choose(majority_share), metadata=metadata)


