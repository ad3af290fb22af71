"""Whether a post is English enough for the time anonymizer: its parser, lexicon and neutral phrases are English,
and a Malay or Portuguese post sent through them comes out broken with its dates intact ("Férias de 3 meses" keeps
"3 meses"). So such a post is refused with the reason, not processed.

Two signals, both offline: letters outside the Latin script (kana, Hangul, Cyrillic, Arabic, ...) making up 30% or
more of the post's letters; or, for a post of 4 words or more, fewer than 30% of its words in pyspellchecker's
English list (links, @mentions and #hashtags left out). Measured (``bench/bench_temporal.py``): 113 of the first
20,000 tweets of ../shared/data/geo/us_midwest_2017 (0.6%) are refused, most of them Portuguese, Spanish, Tagalog
or Turkish; none of the 742 SynTime training tweets (Singapore English, Singlish included: "lai next fri lets run!"
has 62%) is.
"""

from __future__ import annotations

import re
import unicodedata

from anonymizer.temporal.normalize import word_frequency

__all__ = ["MIN_ENGLISH_SHARE", "MIN_WORDS", "english_share", "not_english_reason"]

MIN_ENGLISH_SHARE = 0.3
MIN_WORDS = 4
MAX_OTHER_SCRIPT_SHARE = 0.3
_WORD = re.compile(r"https?://\S+|www\.\S+|[@#]\w+|([^\W\d_]+(?:['’][^\W\d_]+)?)")


def english_share(text: str) -> float | None:
    """The share of the post's words that are English words; None for a post of fewer than ``MIN_WORDS`` words."""
    words = [m.group(1) for m in _WORD.finditer(text) if m.group(1)]
    if len(words) < MIN_WORDS:
        return None
    return sum(word_frequency(word.lower()) > 0 for word in words) / len(words)


def _other_script_share(text: str) -> float:
    letters = [c for c in _WORD.sub(lambda m: m.group(1) or " ", text) if c.isalpha()]
    if not letters:
        return 0.0
    return sum(not unicodedata.name(c, "LATIN").startswith("LATIN") for c in letters) / len(letters)


def not_english_reason(text: str) -> str | None:
    """Why the post is not English enough for time removal (None: it is)."""
    other = _other_script_share(text)
    if other >= MAX_OTHER_SCRIPT_SHARE:
        return f"{other:.0%} of its letters are not Latin"
    share = english_share(text)
    if share is not None and share < MIN_ENGLISH_SHARE:
        return f"only {share:.0%} of its words are English (at least {MIN_ENGLISH_SHARE:.0%} expected)"
    return None
