"""spaCy's tokenizer at a cost linear in the text's length, whatever the text (plain Python and spaCy, no Django).

spaCy strips the prefixes and suffixes of a space-free run one at a time, matching what is left of the run again
each time: a run of 2,000 punctuation marks takes over a second, and every spaCy pipeline starts with it (the
location tokenizer, time tagging's NER). A run longer than a whole post (LONGEST_RUN characters, the length of a
tweet) is tokenized here in pieces of that length, each as spaCy would; the text of the Doc is the text given,
offsets included. Shorter runs, which are all the runs of real posts, are tokenized as before.

``pipeline.tokenizer = BoundedTokenizer(pipeline.tokenizer)`` puts it in front of a whole pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import pairwise

LONGEST_RUN = 280  # a run this long costs spaCy under 0.1 s, whatever its characters
_LONG_RUN_RE = re.compile(rf"\S{{{LONGEST_RUN + 1},}}")
_SPACES_RE = re.compile(r"\s*")


def long_run_pieces(text: str) -> list[str] | None:
    """The pieces a text is tokenized in (their concatenation is ``text``), or None when it has no long run.

    Each piece of a long run keeps the whitespace that follows it, as spaCy gives that whitespace to the run's
    last token; the text around long runs is split only where a run begins (after whitespace)."""
    runs = [match.span() for match in _LONG_RUN_RE.finditer(text)]
    if not runs:
        return None
    cuts = [0]
    for start, end in runs:
        cuts.append(start)
        cuts.extend(range(start + LONGEST_RUN, end, LONGEST_RUN))
        cuts.append(_SPACES_RE.match(text, end).end())
    cuts.append(len(text))
    bounds = sorted(set(cuts))
    return [text[a:b] for a, b in pairwise(bounds)]


class BoundedTokenizer:
    """A spaCy tokenizer (``tokenizer``) whose cost stays linear in the text's length: see the module."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocab = tokenizer.vocab

    def __call__(self, text: str):
        pieces = long_run_pieces(text)
        if pieces is None:
            return self.tokenizer(text)
        from spacy.tokens import Doc

        return Doc.from_docs([self.tokenizer(piece) for piece in pieces], ensure_whitespace=False)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator:
        for text in texts:
            yield self(text)
