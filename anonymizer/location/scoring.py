"""Scoring a released text: the scorers it must be under and their scores on it, tokenized as a reader of exactly
that text gets it. The release building (release.py) is handed one and calls it, never the model (no Django here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from anonymizer.location.deidentify import Deidentifier, LinearScorer
from anonymizer.location.tokens import Token


class Scoring:
    """A model's tokenizer and every scorer a released post must be under (the classifier, the gazetteer's
    places, the crowd's human-inferability model), with their thresholds and the search over them."""

    def __init__(self, tokenize: Callable[[str], list[Token]], scorers: Sequence[LinearScorer]) -> None:
        self.tokenize = tokenize
        self.scorers = list(scorers)
        self.thresholds = {s.name: s.threshold for s in self.scorers}
        self.deidentifier = Deidentifier(self.scorers)

    def scores(self, text: str) -> tuple[list[Token], dict[str, float]]:
        """A text's tokens and every scorer's score on it."""
        tokens = self.tokenize(text)
        return tokens, self.deidentifier.scores([t.norm for t in tokens])

    def under(self, scores: Mapping[str, float]) -> bool:
        """Whether scores are under every threshold."""
        return all(scores[name] < self.thresholds[name] for name in self.thresholds)
