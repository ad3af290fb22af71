"""A token of a post (a deletion unit) and the feature form of a piece of text: what the tokenizer makes and the
unit rules (units.py) merge, in a module of its own so that neither imports the other for it (no Django here)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

TOKEN_KINDS = ("word", "place", "venue", "hashtag", "mention", "url")


@dataclass(frozen=True, slots=True)
class Token:
    """One deletion unit (a morpheme, or a place mention / hashtag / mention / URL): text == original[start:end];
    norm is the feature form."""

    text: str
    start: int
    end: int
    norm: str
    deletable: bool
    kind: str = "word"


def norm_of(text: str, lowercase: bool) -> str:
    """The feature form of a piece of text: NFKC (non-ASCII), lower-cased when asked, without inner spaces."""
    norm = text if text.isascii() else unicodedata.normalize("NFKC", text)
    if lowercase:
        norm = norm.lower()
    # NFKC turns spacing accents into space + combining mark (U+00B4 -> " \u0301", U+309B too), common in kaomoji.
    if not norm.isascii() and any(c.isspace() for c in norm):
        norm = "".join(norm.split())
    return norm or text
