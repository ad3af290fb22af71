"""The human-inferability classifier: can people tell where a post was written? (no Django here)

As in the paper (section 6): posts labelled by the crowd (inferable when >= 10% of participants said yes),
a binary bag of morpheme unigrams and bigrams, logistic regression, accuracy on a held-out tenth. It is the
location classifier with two classes, so the two share features and tokenizer; for the de-identifier its two
weight columns fold into one sigmoid (softmax over two classes is the sigmoid of their difference).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from anonymizer.location.classifier import LocationClassifier
from anonymizer.location.deidentify import LinearScorer
from anonymizer.location.evaluate import split_train_test
from anonymizer.location.tokenize import TokenizerSettings, get_tokenizer

THRESHOLD = 0.5  # the classifier's own decision boundary: a post is human-inferable above it


@dataclass
class HumanModel:
    tokenizer_settings: TokenizerSettings
    classifier: LocationClassifier  # classes_ == [0, 1]; 1 = human-inferable
    metadata: dict

    def probability(self, texts: Sequence[str]) -> np.ndarray:
        tokenizer = get_tokenizer(self.tokenizer_settings)
        docs = [[t.norm for t in tokens] for tokens in tokenizer.tokenize_many(texts)]
        return self.classifier.predict_proba(docs)[:, 1]

    def scorer(self) -> LinearScorer:
        weights = self.classifier.weights_.astype(np.float64)
        difference = (weights[:, 1] - weights[:, 0]).astype(np.float32)[:, None]
        intercept = np.array([self.classifier.intercept_[1] - self.classifier.intercept_[0]])
        return LinearScorer("human", self.classifier.vocabulary_, difference, intercept, THRESHOLD, link="sigmoid")

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.classifier.save(directory / "classifier.npz")
        (directory / "human.json").write_text(json.dumps({"tokenizer": self.tokenizer_settings.to_dict(),
                                                          "metadata": self.metadata}, indent=1))

    @classmethod
    def load(cls, directory: Path) -> HumanModel:
        document = json.loads((directory / "human.json").read_text())
        return cls(TokenizerSettings.from_dict(document["tokenizer"]),
                   LocationClassifier.load(directory / "classifier.npz"), document["metadata"])


def train_human_model(texts: Sequence[str], labels: Sequence[bool], tokenizer_settings: TokenizerSettings, *,
                      test_size: float = 0.1, seed: int = 0, C: float = 1.0, min_df: int = 1) -> HumanModel:
    """Train on crowd labels; report held-out accuracy and the majority baseline (the paper: 900 / 100)."""
    if len(texts) != len(labels):
        raise ValueError("one label per post")
    y = np.asarray(labels, dtype=np.int64)
    if len(set(y.tolist())) < 2:
        raise ValueError("the labels are all the same; a classifier needs both inferable and non-inferable posts")
    tokenizer = get_tokenizer(tokenizer_settings)
    docs = [[t.norm for t in tokens] for tokens in tokenizer.tokenize_many(texts)]
    train, test, _ = split_train_test(len(docs), test_size=test_size, seed=seed)
    if len(set(y[train].tolist())) < 2:
        raise ValueError("the training part has only one label; label more posts")
    classifier = LocationClassifier(C=C, min_df=min_df).fit([docs[i] for i in train], y[train])
    majority = int(np.bincount(y[train]).argmax())
    scores = None
    if len(test):
        predicted = classifier.predict([docs[i] for i in test])
        scores = {"posts": len(test), "accuracy": float((predicted == y[test]).mean()),
                  "majority_baseline": float((y[test] == majority).mean())}
    metadata = {"posts": len(docs), "train_posts": len(train), "inferable_share": float(y.mean()), "scores": scores,
                "vocabulary_size": len(classifier.vocabulary_), "threshold": THRESHOLD}
    return HumanModel(tokenizer_settings, classifier, metadata)
