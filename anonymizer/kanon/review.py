"""Words left for review: the tokens of a released text the recognizer did not tag and a reader should look at
first, because a name it missed is likeliest among them.

The re-read of the released file (``verify``) can only check what the recognizer found somewhere. What it
never found stands in the text as written, and a reviewer cannot read a million posts. So every released text
is scanned, outside the recoded terms, for the tokens that look like names:

- a token that starts with a capital letter where a sentence does not start ("with Missy", "at Strummers"),
  except the pronoun "I" and its contractions; or
- a token that is not in the English frequency list or rare in it (``recognize.frequency.word_frequency``
  below ``RARE_BELOW``): "erics", "rgs", "madnessmia21", and lower-case names the list holds as rare words
  ("maya's", "kurt", "yama").

Placeholders and pseudonyms written by the recoding ("PERSON", "GPE_3") are never listed, nor is anything of
a recoded term (a kept name the whole class shares, "a city in Nebraska"). Tokens without a letter are left
out (numbers are the time and numeric recognizers' business). Each text lists a token once, in the order it
first stands. The list is a pointer for a reader, not a verdict: ordinary slang ("lol", "im") is on it too.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from anonymizer.recognize.frequency import word_frequency

# A word as a reader sees it: letters and digits, with inner apostrophes ("didn't", "maya's"); a hyphen splits
# ("dj-ing" is two tokens), so does an underscore only when it is not part of a handle ("madness_mia").
_TOKEN = re.compile(r"[^\W_]\w*(?:['’]\w+)*")
_POSSESSIVE = re.compile(r"['’][sS]$")
# Skipped when looking back for where a sentence ends: spaces, quotes and brackets ("Where?” “There").
_BEFORE_WORD = " \t\"'“”‘’«»()[]{}*_-–—"
# Abbreviations a name follows: "Mr. Wong" starts no sentence.
_TITLES = ("mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "rev", "gen", "capt", "sgt", "lt")
#: A word with fewer occurrences in the frequency list than this is rare. Not only 0 (not in the list): the list
#: holds many names as rare words ("kurt" 460, "maya" 645, "gaia" 50), which a reader misses in lower case. On
#: the dev sample (seed 20261201, 60 posts) the list points at 13 of the 20 PERSON/ORG/GPE/LOC/FAC mentions the
#: recognizer missed with 0 (5.0 words per post to read), 15 with 300 (5.9), 17 with 1,000 (6.8), 18 with
#: 3,000 (9.0 words per post).
RARE_BELOW = 1000
#: Texts of a file whose tokens the report shows.
FIRST_ROWS = 20


# A token that starts with a capital letter, cut as _TOKEN cuts tokens, but the pronoun I ("I", "I'm", "I'll").
# The letter is matched first and what stands before it looked at after: a look-behind first would be tried at
# every character of the text. ASCII capitals are matched as such, other letters tried (a class of every
# upper-case letter is several times slower) and kept when upper case.
_CAPITALISED = re.compile(r"[A-Z\u00C0-\U0010FFFF](?<![\w'’].)(?<!\bI(?=['’](?:m|ll|ve|d)\b|\b))"
                          r"(?:\w|['’](?=\w))*")
# Where a sentence's first token starts after a sentence's end (not a title's full stop, "Mr."), spaces and
# quotes between; the text's first token starts one too. The end is matched before the look-behinds are tried.
_SENTENCE_START = re.compile(r"[.!?…\n\r]" + "".join(rf"(?<!\b(?i:{title})\.)" for title in _TITLES) + "["
                             + re.escape(_BEFORE_WORD) + r"]*(?=\w)")
#: Spellings whose lower case is a common word of the list ("the", "Tom", "I'm"): a text's distinct tokens less these
#: are the few rare ones, so that a post's hundreds of ordinary words cost one set difference. Bounded.
_IN_THE_LIST: set[str] = set()


@lru_cache(maxsize=1 << 18)  # a dataset repeats its words: asked millions of times for some 100,000 words
def _is_rare(token: str) -> bool:
    """Has a letter and is rare in the frequency list (``RARE_BELOW``), a possessive judged by its stem ("mom's"
    as "mom")."""
    lowered = token.lower().replace("’", "'")  # the list spells "i'm" with a straight apostrophe
    if not any(c.isalpha() for c in token) or word_frequency(lowered) >= RARE_BELOW or (
            _POSSESSIVE.search(lowered) and word_frequency(_POSSESSIVE.sub("", lowered)) >= RARE_BELOW):
        if len(_IN_THE_LIST) < 1 << 20:
            _IN_THE_LIST.add(token)
        return False
    return True


def _is_word_character(character: str) -> bool:
    return character.isalnum() or character == "_"


def _places(text: str, token: str):
    """Where ``token`` stands in ``text`` as a whole token (not inside a longer one), left to right."""
    at = text.find(token)
    while at >= 0:
        end = at + len(token)
        if (at == 0 or not (_is_word_character(text[at - 1]) or text[at - 1] in "'’")) and (
                end == len(text) or not (_is_word_character(text[end]) or (
                text[end] in "'’" and end + 1 < len(text) and _is_word_character(text[end + 1])))):
            yield at
        at = text.find(token, at + 1)


def _inside(at: int, written: Sequence[tuple[int, int]], starts: list[int]) -> bool:
    """Whether position ``at`` lies in one of the ``written`` spans (sorted, not overlapping; ``starts``: theirs)."""
    index = bisect.bisect_right(starts, at) - 1
    return index >= 0 and at < written[index][1]


class ReviewScanner:
    """Finds the tokens left for review in released texts. ``placeholders``: the type labels the recoding
    writes (and, with numbered pseudonyms, writes with ``_<n>``), never listed."""

    def __init__(self, placeholders: Iterable[str]) -> None:
        self.placeholders = frozenset(placeholders)

    def is_placeholder(self, token: str) -> bool:
        label, _, number = token.rpartition("_")
        return token in self.placeholders or (number.isdigit() and label in self.placeholders)

    def tokens(self, text: str, written: Sequence[tuple[int, int]] = ()) -> list[str]:
        """The tokens of a released ``text`` left for review, in the order they first stand, each once whatever
        its case ("Heh heh heh" lists "Heh"). ``written``: the spans of ``text`` the recoding wrote (sorted),
        whose words are never listed. Most of the work is done by regular expressions and one set difference,
        once per text: a post holds hundreds of words, a few of which are looked at one by one."""
        starts = [start for start, _ in written]
        listed: list[tuple[int, str]] = []
        for token in set(_TOKEN.findall(text)).difference(_IN_THE_LIST):
            if _is_rare(token) and not self.is_placeholder(token):
                at = next((at for at in _places(text, token) if not _inside(at, written, starts)), None)
                if at is not None:
                    listed.append((at, token))
        sentences = None
        for match in _CAPITALISED.finditer(text):
            token = match.group()
            if not (token[0].isascii() or token[0].isupper()):
                continue
            if token not in _IN_THE_LIST and (_is_rare(token) or self.is_placeholder(token)):
                continue  # a rare one is listed already
            if written and _inside(match.start(), written, starts):
                continue
            if sentences is None:
                sentences = {start.end() for start in _SENTENCE_START.finditer(text)}
                sentences.add(len(text) - len(text.lstrip(_BEFORE_WORD)))
            if match.start() not in sentences:
                listed.append((match.start(), token))
        listed.sort()
        found: dict[str, str] = {}
        for _, token in listed:
            found.setdefault(token.lower(), token)
        return list(found.values())


@dataclass
class ReviewList:
    """The tokens left for review of a whole released file: how many texts and rows hold some, how many tokens
    in all, and the first ``FIRST_ROWS`` texts' lists (the whole list goes to a file, row by row)."""

    texts: int = 0  # texts with at least one token left for review
    rows: int = 0
    tokens: int = 0
    first: list[dict] = field(default_factory=list)
    _last_row: int = -1

    def add(self, row: int, column: str, tokens: list[str]) -> None:
        """``row``: 1 for the file's first data row."""
        if not tokens:
            return
        self.texts += 1
        self.tokens += len(tokens)
        if row != self._last_row:
            self.rows += 1
            self._last_row = row
        if len(self.first) < FIRST_ROWS:
            self.first.append({"row": row, "column": column, "tokens": tokens})

    def report(self) -> dict:
        return {"texts": self.texts, "rows": self.rows, "tokens": self.tokens, "first": self.first}
