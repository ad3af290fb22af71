"""A PERSON span grows over the name tokens next to it, so that a name is masked whole (issue 44).

spaCy's small model cuts names it has not seen: "Mr January Jagiełło" gives PERSON "Jagiełło" (January is a
month), "Mr Mehmet Acar Serdar Çakmak" gives "Acar Serdar", "Mr Oğuz Atakan Köseoğlu" gives "Oğuz Atakan". The
token left readable identifies as much as the masked one. A neighbouring token joins the span when it is
separated from it by one space only, is capitalised and

* is not an ordinary English word: rarer than ``RARE_FREQUENCY`` in the shared frequency list ("Mehmet",
  "Serdar"), or written with letters outside ASCII and rarer than ``FOREIGN_FREQUENCY`` ("Köseoğlu", "Laïfa");
* or stands between an honorific (Mr, Mrs, Ms, Miss, Dr, Prof, with or without the dot) and the span, where any
  capitalised token is part of the name ("Mr January Jagiełło"); the honorific itself stays (TAB and a reader
  both read "Mr PERSON" as anonymized).

It never joins over a line break or punctuation, and an ordinary capitalised word ("Yesterday Ali", "the Court",
"Judge") stays: its frequency says so, whether it starts a sentence or not. A token covered by a statistical
span of another type that is exactly that token ("January" DATE) is taken into the person; precise spans
(rules, custom entities) are never touched. Two PERSON spans one space apart become one when both are
capitalised there ("Mehmet Acar" + "Serdar Çakmak"; "taylor artie and i" are two people).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection
from functools import lru_cache

from anonymizer.recognize.frequency import word_frequency

#: Bump when what this module does changes (it is part of the recognizer's fingerprint).
EXTEND_VERSION = "2"
RARE_FREQUENCY = 100
FOREIGN_FREQUENCY = 1_000
#: Capitalised tokens the honorific rule must not take: they start a clause, not a name.
_HONORIFICS = ("Mr", "Mrs", "Ms", "Miss", "Mme", "Dr", "Prof", "Mx")
_NOT_NAMES = frozenset("the a an and or of in on at to for by with from as but not this that".split()) | {
    h.lower() for h in _HONORIFICS}
_HONORIFIC = re.compile(rf"(?:^|(?<=[\s(“\"']))(?:{'|'.join(_HONORIFICS)})\.?$")
_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"     # letters, inner ' or - ("O'Brien", "Al-Hassan"); no digits
_TOKEN_LEFT = re.compile(rf"(?<![\w'’-])({_WORD}) $")
_TOKEN_RIGHT = re.compile(rf" ({_WORD})(?![\w'’-])")
_PARTS = re.compile(r"['’-]")
#: An ordinary word: a part of a token this frequent is no name ("Ex-President"); an honorific's neighbour too
#: ("Mrs. Vice President John Edwards").
COMMON_FREQUENCY = 10_000
_MONTHS = frozenset("january february march april may june july august september october november december".split())


@lru_cache(maxsize=100_000)
def _frequency(word: str) -> int:
    return word_frequency(word.lower())


def _capitalised(token: str) -> bool:
    """Title case in each part ("Jagiełło", "Jean-Pierre", "O'Brien"; not "CDs", "SearchBot", "YuE")."""
    parts = [part for part in _PARTS.split(token) if part]
    return bool(parts) and token[:1].isupper() and all(
        part[1:].islower() or (len(part) == 1 and part.isalpha()) for part in parts) and \
        token.lower() not in _NOT_NAMES


_REPEATED = re.compile(r"(?i)(\w{1,3})\1+")     # "Haha", "Hehe", "Lala": laughter and babble, not names


def _name_like(token: str) -> bool:
    if len(token) < 2 or not _capitalised(token) or _REPEATED.fullmatch(token):   # "D" of ":D" is no initial
        return False
    if any(_frequency(part) >= COMMON_FREQUENCY for part in _PARTS.split(token) if len(part) > 2):
        return False
    frequency = _frequency(token)
    return frequency < RARE_FREQUENCY or (not token.isascii() and frequency < FOREIGN_FREQUENCY)


def _name_after_honorific(token: str) -> bool:
    """After an honorific any capitalised token that is not an ordinary word (or is a month: "Mr January")."""
    return _capitalised(token) and (token.lower() in _MONTHS or _frequency(token) < COMMON_FREQUENCY)


def _after_honorific(text: str, start: int) -> bool:
    """Whether only capitalised tokens stand between an honorific and ``start`` (at most three)."""
    position = start
    for _ in range(4):
        before = text[max(0, position - 40):position]
        if _HONORIFIC.search(before.rstrip(" ")) and before.endswith(" "):
            return True
        match = _TOKEN_LEFT.search(before)
        if match is None or not _name_after_honorific(match.group(1)):
            return False
        position -= len(match.group(0))
    return False


def grow_person_spans(text: str, spans: list[tuple[int, int, str]],
                      statistical: Collection[str]) -> list[tuple[int, int, str]]:
    """``spans`` (sorted, non-overlapping (start, end, label)) with every PERSON span grown over its adjacent name
    tokens. Spans whose label is in ``statistical`` (the NER types) may be absorbed when they are exactly a token
    taken; the others block the growth."""
    if not any(label == "PERSON" for _, _, label in spans):
        return spans
    occupied = {start: (start, end, label) for start, end, label in spans}
    starts = [start for start, _, _ in spans]
    removed: set[tuple[int, int, str]] = set()
    grown: dict[tuple[int, int, str], tuple[int, int]] = {}

    def covered(start: int, end: int) -> bool:
        # the spans are sorted and non-overlapping, so their ends are sorted too: only the spans just before
        # ``end`` can reach into the token (a scan of every span per token was quadratic in long texts)
        i = bisect_left(starts, end) - 1
        while i >= 0 and spans[i][1] > start:
            if spans[i] not in removed:
                return True
            i -= 1
        return False

    def free_or_absorbable(start: int, end: int) -> tuple[bool, tuple[int, int, str] | None]:
        span = occupied.get(start)
        if span is None:    # free unless a span starting elsewhere covers part of the token
            return not covered(start, end), None
        if span[1] == end and span[2] in statistical and span[2] != "PERSON":
            return True, span
        return False, None

    for span in spans:
        start, end, label = span
        if label != "PERSON" or span in removed:
            continue
        while True:     # leftwards
            match = _TOKEN_LEFT.search(text, max(0, start - 60), start)
            if match is None or match.end() != start:
                break
            token_start, token_end = match.span(1)
            ok, absorbed = free_or_absorbable(token_start, token_end)
            if not ok or not (_name_like(match.group(1)) or
                              (_name_after_honorific(match.group(1)) and _after_honorific(text, token_start))):
                break
            if absorbed is not None:
                removed.add(absorbed)
            start = token_start
        while text[end - 1].isalpha():     # rightwards, unless the span ends with punctuation ("come.")
            match = _TOKEN_RIGHT.match(text, end)
            if match is None:
                break
            token_start, token_end = match.span(1)
            neighbour = occupied.get(token_start)
            if neighbour is not None and neighbour[2] == "PERSON" and neighbour not in removed and \
                    _capitalised(match.group(1)) and _capitalised(text[start:end].rsplit(None, 1)[-1]):
                # two capitalised halves of one name; "taylor artie and i" are two people
                removed.add(neighbour)          # "Mehmet Acar" + "Serdar Çakmak": one person
                end = neighbour[1]
                continue
            ok, absorbed = free_or_absorbable(token_start, token_end)
            if not ok or not _name_like(match.group(1)):
                break
            if absorbed is not None:
                removed.add(absorbed)
            end = token_end
        if (start, end) != (span[0], span[1]):
            grown[span] = (start, end)
    if not grown and not removed:
        return spans
    result = []
    for span in spans:
        if span in removed:
            continue
        start, end = grown.get(span, (span[0], span[1]))
        result.append((start, end, span[2]))
    return sorted(result)
