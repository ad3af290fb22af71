"""Hashtags read as words, as a reader reads them: "#lilacfestival" is "lilac festival", "#golsu" is "go lsu",
"#picoftheday" is "pic of the day" (not "pico" + "thed", an alternate name of Detroit). No Django here.

A hashtag written in one case cannot be split by its capitals, so its words come from a unigram segmentation
(Viterbi over log-probabilities): an English word scores by its wordfreq frequency (wordfreq is already a
dependency and its English list is loaded once per process, shared with the review list), a gazetteer name
("uapb", "desmoines", "geauxtigers") by a fixed frequency of a rare word, anything else as an unknown piece whose
cost grows with its length. Segmentations are remembered (bounded), and only hashtags that do not resolve whole
are segmented.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

# The longest piece considered as one word, and the longest hashtag body segmented (longer ones are cut there:
# the search stays linear in the body's length).
MAX_WORD = 24
MAX_BODY = 80
# log10 probability of a gazetteer name that is no English word: about a word used once in a million (Zipf 3), so
# "doorcounty" beats "door" + "county" (10^-7.7) and "thed" loses to "the" + "d...".
NAME_LOG10 = -6.0
# An unknown piece costs this much, and one more per character: a digit run or a typo, never preferred to words.
UNKNOWN_LOG10 = -9.0
_MEMO_SIZE = 50_000


@lru_cache(maxsize=1)
def english_frequencies() -> dict[str, float]:
    """wordfreq's English word -> frequency (a share of all words), loaded once per process."""
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en")


class HashtagWords:
    """Splits the lower-case ASCII body of a hashtag into words. ``is_name(piece)`` says whether a piece of three
    characters or more is a name the gazetteer knows."""

    def __init__(self, is_name: Callable[[str], bool]) -> None:
        self._is_name = is_name
        self._memo: dict[str, tuple[str, ...]] = {}

    def words(self, body: str) -> tuple[str, ...]:
        """"lilacfestival" -> ("lilac", "festival"); a body that is not lower-case ASCII letters and digits is
        returned whole (Japanese hashtags are searched by the gazetteer as written)."""
        body = body[:MAX_BODY]
        if not body.isascii() or not body.isalnum() or len(body) <= 3:
            return (body,) if body else ()
        found = self._memo.get(body)
        if found is None:
            found = self._segment(body.lower())
            if len(self._memo) > _MEMO_SIZE:
                self._memo.clear()
            self._memo[body] = found
        return found

    def _segment(self, text: str) -> tuple[str, ...]:
        frequencies = english_frequencies()
        n = len(text)
        best = [0.0] + [-math.inf] * n  # best[j]: log10 probability of the best split of text[:j]
        back = [0] * (n + 1)
        for j in range(1, n + 1):
            for i in range(max(0, j - MAX_WORD), j):
                if best[i] == -math.inf:
                    continue
                piece = text[i:j]
                frequency = frequencies.get(piece, 0.0)
                if frequency > 0:
                    score = math.log10(frequency)
                elif len(piece) >= 3 and not piece.isdigit() and self._is_name(piece):
                    score = NAME_LOG10
                elif piece.isdigit():  # a number is one piece, whatever its length
                    score = UNKNOWN_LOG10
                else:
                    score = UNKNOWN_LOG10 - len(piece)
                if best[i] + score > best[j]:
                    best[j], back[j] = best[i] + score, i
        words: list[str] = []
        j = n
        while j > 0:
            words.append(text[back[j]:j])
            j = back[j]
        return tuple(reversed(words))
