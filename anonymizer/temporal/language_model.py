"""An offline word trigram language model of English posts, for the naturalness check of
:mod:`anonymizer.temporal.evaluate`.

Interpolated Kneser-Ney (absolute discounting, continuation counts for the lower orders) over lower-cased
tokens; URLs, @mentions, #hashtags and numbers are classes of their own ("<url>", "<user>", "<hashtag>",
"<num>"), words seen fewer than ``min_count`` times are "<unk>", runs of punctuation become one token ("!!!" ->
"!"). Each post is one sequence between "<s>" and "</s>". Used scikit-learn style: configure in ``__init__``,
:meth:`NGramLanguageModel.fit` on texts, then :meth:`NGramLanguageModel.token_logprobs` /
:meth:`NGramLanguageModel.score`. No state outside the instance; pure Python (about 5 s on 45k posts).
"""

from __future__ import annotations

import csv
import gzip
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

__all__ = ["NGramLanguageModel", "read_posts", "tokenize", "tokenize_with_spans"]

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
_TOKEN = re.compile(
    r"https?://\S+|www\.\S+|@\w+|#\w+"
    r"|\d+(?:[.,:/-]\d+)*(?:st|nd|rd|th|am|pm|s|k)?"
    r"|(?:[^\W\d_]|['’])+(?:[-.](?:[^\W\d_])+)*"
    r"|([^\w\s])\1*",
    re.IGNORECASE,
)


def _classify(piece: str) -> str:
    if piece.startswith(("http://", "https://", "www.")):
        return "<url>"
    if piece.startswith("@"):
        return "<user>"
    if piece.startswith("#"):
        return "<hashtag>"
    if piece[0].isdigit():
        return "<num>"
    if not piece[0].isalnum() and piece[0] not in "'’":
        return piece[0]  # "!!!" -> "!"
    return piece.lower().replace("’", "'")


def tokenize(text: str) -> list[str]:
    """The tokens the model reads: lower-case words, classes for links, mentions, hashtags and numbers."""
    return [_classify(m.group(0)) for m in _TOKEN.finditer(text)]


def tokenize_with_spans(text: str) -> list[tuple[str, int, int]]:
    """:func:`tokenize`, each token with its (start, end) in ``text``."""
    return [(_classify(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def read_posts(path: Path | str, *, lang: str = "en", column: str = "text") -> list[str]:
    """The texts of a (gzipped) CSV of posts whose ``lang`` column is ``lang`` (all rows without that column)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        return [row[column] for row in csv.DictReader(handle) if row.get("lang", lang) == lang and row[column]]


class NGramLanguageModel:
    """A word trigram model with interpolated Kneser-Ney smoothing (see the module docstring)."""

    def __init__(self, *, order: int = 3, min_count: int = 2, discount: float = 0.75) -> None:
        if order not in (2, 3):
            raise ValueError("order must be 2 or 3")
        if not 0 < discount < 1:
            raise ValueError("discount must lie in (0, 1)")
        self.order = order
        self.min_count = min_count
        self.discount = discount

    # -- fitting -------------------------------------------------------------------------------------------
    def fit(self, texts: Iterable[str]) -> NGramLanguageModel:
        sequences = [tokenize(text) for text in texts]
        unigrams = Counter(token for sequence in sequences for token in sequence)
        self.vocabulary_ = frozenset(t for t, n in unigrams.items() if n >= self.min_count) | {EOS, UNK}
        trigrams: Counter[tuple[str, str, str]] = Counter()
        bigrams: Counter[tuple[str, str]] = Counter()
        for sequence in sequences:
            padded = [BOS, BOS, *(t if t in self.vocabulary_ else UNK for t in sequence), EOS]
            bigrams.update(itertools.pairwise(padded[1:]))
            trigrams.update(zip(padded, padded[1:], padded[2:], strict=False))
        # Highest order: raw counts. Lower orders: continuation counts (how many words precede).
        self._tri = trigrams
        self._tri_context: Counter[tuple[str, str]] = Counter()
        self._tri_types: Counter[tuple[str, str]] = Counter()
        for (u, v, _), n in trigrams.items():
            self._tri_context[(u, v)] += n
            self._tri_types[(u, v)] += 1
        if self.order == 3:
            continuation: Counter[tuple[str, str]] = Counter()
            for (_, v, w) in trigrams:
                continuation[(v, w)] += 1
            self._bi = continuation
        else:
            self._bi = bigrams
        self._bi_context: Counter[str] = Counter()
        self._bi_types: Counter[str] = Counter()
        for (v, _), n in self._bi.items():
            self._bi_context[v] += n
            self._bi_types[v] += 1
        uni_continuation: defaultdict[str, int] = defaultdict(int)
        for (_, w) in self._bi:
            uni_continuation[w] += 1
        total = sum(uni_continuation.values())
        size = len(self.vocabulary_)
        # Interpolated with a uniform distribution so that no token has probability 0.
        self._uni = {w: (uni_continuation.get(w, 0) + 1) / (total + size) for w in self.vocabulary_}
        self.n_posts_ = len(sequences)
        self.n_tokens_ = sum(map(len, sequences))
        return self

    # -- scoring -------------------------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "vocabulary_"):
            raise RuntimeError("NGramLanguageModel is not fitted: call fit(texts) first")

    def _bigram(self, v: str, w: str) -> float:
        lower = self._uni[w]
        context = self._bi_context.get(v, 0)
        if not context:
            return lower
        d = self.discount
        return (max(self._bi.get((v, w), 0) - d, 0) + d * self._bi_types[v] * lower) / context

    def probability(self, u: str, v: str, w: str) -> float:
        """P(w | u v) for in-vocabulary tokens (map others to "<unk>" first)."""
        lower = self._bigram(v, w)
        if self.order == 2:
            return lower
        context = self._tri_context.get((u, v), 0)
        if not context:
            return lower
        d = self.discount
        return (max(self._tri.get((u, v, w), 0) - d, 0) + d * self._tri_types[(u, v)] * lower) / context

    def token_logprobs(self, tokens: list[str], *, final: bool = True) -> list[float]:
        """Natural-log probability of every token of ``tokens`` (model tokens, see :func:`tokenize`) given the
        ones before it, and of the end of the post after them when ``final``."""
        self._check_fitted()
        mapped = [t if t in self.vocabulary_ else UNK for t in tokens] + ([EOS] if final else [])
        padded = [BOS, BOS, *mapped]
        return [math.log(self.probability(padded[i - 2], padded[i - 1], padded[i])) for i in range(2, len(padded))]

    def unigram_logprob(self, token: str) -> float:
        """log P(token) of the lowest order (continuation) distribution."""
        self._check_fitted()
        return math.log(self._uni[token if token in self.vocabulary_ else UNK])

    def score(self, texts: Iterable[str]) -> list[float]:
        """Mean log probability per token (end of post included) of every text: higher is more fluent."""
        scores = []
        for text in texts:
            logprobs = self.token_logprobs(tokenize(text))
            scores.append(sum(logprobs) / len(logprobs))
        return scores

    def perplexity(self, texts: Iterable[str]) -> float:
        total = count = 0.0
        for text in texts:
            logprobs = self.token_logprobs(tokenize(text))
            total, count = total + sum(logprobs), count + len(logprobs)
        return math.exp(-total / count)
