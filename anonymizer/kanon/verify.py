"""Re-reading what was released: which recognized strings still stand in the written file, and where they may.

A recognized string (a term's key, of any person) may stand in a released text only where the text's class
shares it: as a term every person of the class has, inside a generalized value every person holds ("a city in
Nebraska" holds "Nebraska"), or inside the class's relational value written for a redundant term. Anything
else is a leak: a name tagged in one post and left in another, the thing string-level recoding prevents. What
is counted is of those recognized: a name the recognizer never tagged anywhere is not looked for, so a count of
0 is never "no name left" (the report says how much the recognizer finds, ``recognize.measured``, and which
words a reviewer should read first, ``review``).

Checked on the output file itself, word by word, for the strings that are names (at least one word that is
not a common English word: "Kurt", "Omaha", "Acme Inc"); strings of common words only ("today", "last
week") are not counted, since the same words stand in every text whether or not anybody was tagged.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from anonymizer.kanon.occurrences import is_ordinary

# Words as a reader sees them: "doesn't", "dj-ing" and "Sunday-afternoon" are one word each (a name glued
# into a longer word is not the name standing), a possessive "'s" is split off ("Omaha's" holds "Omaha").
_WORD = re.compile(r"\w+(?:-\w+|['’](?![sS](?!\w))\w+)*|['’][sS](?!\w)|[^\w\s]")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _words(text: str) -> list[str]:
    """The words of a text, each folded on its own: folding the whole text first would make words that are not
    there ("ï¿½All" would hold "2all", as NFKC turns "½" into "1⁄2")."""
    if text.isascii():
        return _WORD.findall(text.lower())
    words = [_fold(word) for word in _WORD.findall(text)]
    return [word if word != "’s" else "'s" for word in words] if "’" in text else words


#: Classes whose shown words are kept while re-reading a file.
SHOWN_CACHE = 4096


def surviving_strings(output: Path, text_columns: Sequence[str], recognized: dict[str, str],
                      allowed_per_row: Callable[[int], Sequence[str]], is_common_word: Callable[[str], bool],
                      *, encoding: str = "utf-8") -> dict:
    """Count recognized names standing in ``output``'s text columns where their row's class does not share them.
    ``recognized``: key -> entity type; ``allowed_per_row(row)``: the texts the row's class may show (its shared
    terms, generalized values and relational values; one list object per class, as it is split into words once
    per object). Returns {"names": Counter by type, "rows_with_names": n,
    "examples": [(row, type, string), ...] (up to 20)}."""
    names, shapes_of = _name_shapes(recognized, is_common_word)
    found_names, rows_with, examples = Counter(), 0, []
    # What the last classes may show, split into words: a bounded cache, since a million persons make half a
    # million classes and rows come in file order, not class by class. Each entry keeps its list, so that an id
    # is never taken for another list's.
    # id -> [the list, its word tuples, the words in them, their lengths]
    seen: OrderedDict[int, list] = OrderedDict()
    with output.open(encoding=encoding, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        columns = [header.index(name) for name in text_columns]
        for row, record in enumerate(reader):
            texts = None
            leaked = False
            for column in columns:
                words = _words(record[column])
                leaks = []
                for j in [j for j, word in enumerate(words) if word in shapes_of]:
                    for offset, length in shapes_of[words[j]]:
                        i = j - offset
                        if i < 0 or i + length > len(words):
                            continue
                        gram = tuple(words[i:i + length])
                        label = names.get(gram)
                        if label is None:
                            continue
                        if texts is None:  # what the class may show, only for rows where a name stands
                            texts = allowed_per_row(row)
                            entry = _shown_entry(seen, texts)
                            allowed = entry[1]
                        if gram in allowed:
                            continue
                        # A name identifies by its uncommon words: "this Thursday" with "Thursday" shared by
                        # the class (kept there) shows nothing the class does not share.
                        if all(words[w] in entry[2] and _inside_shown(words, w, allowed, entry[3])
                               for w in range(i, i + length)
                               if words[w][0].isalnum() and not is_common_word(words[w])):
                            continue
                        leaks.append((i, i + length, label, gram))
                if leaks:  # the words can split what the class shows differently from the text around it
                    leaks = _outside(leaks, _fold(record[column]), texts, is_common_word)
                after = 0  # words up to here belong to a string already counted
                for i, stop, label, gram in sorted(leaks, key=lambda leak: (leak[0], leak[0] - leak[1])):
                    if i < after:
                        continue
                    found_names[label] += 1
                    leaked = True
                    if len(examples) < 20:
                        examples.append((row, label, " ".join(gram)))
                    after = stop
            rows_with += leaked
    return {"names": found_names, "rows_with_names": rows_with, "examples": examples}


def _name_shapes(recognized: dict[str, str], is_common_word: Callable[[str], bool]
                 ) -> tuple[dict[tuple[str, ...], str], dict[str, list[tuple[int, int]]]]:
    """The recognized names looked for, by their words (-> entity type), and where each is looked for: by its
    first uncommon word, the (offset of that word, number of words) of the names standing there, longest first."""
    names: dict[tuple[str, ...], str] = {}
    labels = set(recognized.values())
    shapes: dict[str, set[tuple[int, int]]] = {}
    for key, label in recognized.items():
        words = tuple(_words(key))
        if (not words or not key[0].isalnum() or sum(c.isalnum() for c in key) < 2 or (key.isdigit() and len(key) <= 2)
                or key.upper() in labels):  # "FAC" in the output is the type written in place of a term
            continue
        if not is_ordinary(key, is_common_word):
            names[words] = label
            # Looked for at its first uncommon word, so that a text is searched at its rare words only.
            offset = min(range(len(words)), key=lambda i, words=words: (
                not words[i][0].isalnum(), len(words[i]) == 1 or is_common_word(words[i]), i))
            shapes.setdefault(words[offset], set()).add((offset, len(words)))
    shapes_of = {word: sorted(found, key=lambda shape: -shape[1]) for word, found in shapes.items()}
    return names, shapes_of


def _shown_entry(seen: OrderedDict[int, list], texts: Sequence[str]) -> list:
    """What a class may show split into words once per list: [the list, its word tuples, the words in them,
    their lengths], kept in ``seen`` (by id, the least recently used leaving past SHOWN_CACHE entries)."""
    entry = seen.get(id(texts))
    if entry is None or entry[0] is not texts:
        shown = {_shown_span(text) for text in texts}
        entry = seen[id(texts)] = [texts, shown, set().union(*shown), sorted({len(span) for span in shown if span})]
        if len(seen) > SHOWN_CACHE:
            seen.popitem(last=False)
    else:
        seen.move_to_end(id(texts))
    return entry


@lru_cache(maxsize=1 << 16)  # the same values are shown by many classes ("PERSON", "20-29", "a city in Ohio")
def _shown_span(text: str) -> tuple[str, ...]:
    return tuple(_words(text))


def _outside(leaks: list, folded: str, allowed: Sequence[str], is_common_word: Callable[[str], bool]) -> list:
    """The leaks with an uncommon word that stands somewhere in the (folded) text outside every occurrence of
    what the class may show. Word by word a shown value can look cut: "the United States" followed by
    mojibake ("Statesâ€") or a shared "Nobel Prize" in "Nobel Prize-winning" (a hyphenated word is one word).
    An occurrence is inside when what of it lies outside the shown values holds no ASCII letter or digit
    ("Statesâ€" is, "Nebraskan" next to "a city in Nebraska" is not)."""
    shown = [place for text in {_fold(t) for t in allowed if t} for place in _places(text, folded)]
    if not shown:
        return leaks

    def inside(start: int, end: int) -> bool:
        covered = [any(low <= i < high for low, high in shown) for i in range(start, end)]
        return any(covered) and not any(c.isascii() and c.isalnum()
                                        for c, within in zip(folded[start:end], covered, strict=True) if not within)

    def stands_outside(word: str) -> bool:  # a word the folded text does not show as such counts as outside
        places = _places(word, folded)
        return not places or any(not inside(start, end) for start, end in places)

    return [leak for leak in leaks if any(stands_outside(word) for word in leak[3]
                                          if word[0].isalnum() and not is_common_word(word))]


def _places(needle: str, text: str) -> list[tuple[int, int]]:
    """Where ``needle`` (not empty) stands in ``text``, left to right, not overlapping (``re.finditer`` of the
    escaped string, without compiling a pattern per string)."""
    places, start = [], text.find(needle)
    while start >= 0:
        places.append((start, start + len(needle)))
        start = text.find(needle, start + len(needle))
    return places


def _inside_shown(words: list[str], at: int, shown: set[tuple[str, ...]], lengths: list[int]) -> bool:
    """Whether word ``at`` lies inside an occurrence of one of the ``shown`` word tuples (``lengths``: theirs).
    Looked for around that word only: a class that shares every term of a long post shows hundreds of values,
    too many to index for every row that names something."""
    for length in lengths:
        for start in range(max(0, at - length + 1), min(at, len(words) - length) + 1):
            if tuple(words[start:start + length]) in shown:
                return True
    return False
