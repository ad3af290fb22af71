"""Re-reading what was released: which recognized strings still stand in the written file, and where they may.

A recognized string (a term's key, of any person) may stand in a released text only where the text's class
shares it: as a term every person of the class has, inside a generalized value every person holds ("a city in
Nebraska" holds "Nebraska"), or inside the class's relational value written for a redundant term. Anything
else is a leak: a name tagged in one post and left in another, the thing string-level recoding prevents.

Checked on the output file itself, word by word, for the strings that are names (at least one word that is
not a common English word: "Kurt", "Omaha", "Acme Inc"); strings of common words only ("today", "last
week") are not counted, since the same words stand in every text whether or not anybody was tagged.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

# Words as a reader sees them: "doesn't", "dj-ing" and "Sunday-afternoon" are one word each (a name glued
# into a longer word is not the name standing), a possessive "'s" is split off ("Omaha's" holds "Omaha").
_WORD = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
_POSSESSIVE = re.compile(r"^(.+?)['’]s$")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _words(text: str) -> list[str]:
    words = _WORD.findall(_fold(text))
    if "'" not in text and "’" not in text:
        return words
    out = []
    for word in words:
        possessive = _POSSESSIVE.match(word) if "'" in word or "’" in word else None
        out.extend((possessive.group(1), "'s") if possessive else (word,))
    return out


def surviving_strings(output: Path, text_columns: Sequence[str], recognized: dict[str, str],
                      allowed_per_row: Callable[[int], Sequence[str]], is_common_word: Callable[[str], bool],
                      *, encoding: str = "utf-8") -> dict:
    """Count recognized names standing in ``output``'s text columns where their row's class does not share them.
    ``recognized``: key -> entity type; ``allowed_per_row(row)``: the texts the row's class may show (its shared
    terms, generalized values and relational values; one list object per class, as it is split into words once
    per object). Returns {"names": Counter by type, "rows_with_names": n,
    "examples": [(row, type, string), ...] (up to 20)}."""
    names: dict[tuple[str, ...], str] = {}
    labels = set(recognized.values())
    lengths: dict[str, set[int]] = {}
    for key, label in recognized.items():
        words = tuple(_words(key))
        if (not words or not key[0].isalnum() or sum(c.isalnum() for c in key) < 2 or (key.isdigit() and len(key) <= 2)
                or key.upper() in labels):  # "FAC" in the output is the type written in place of a term
            continue
        ordinary = all(len(w) == 1 or is_common_word(w) for w in re.findall(r"\w[\w'’]*", key))
        if not ordinary:
            names[words] = label
            lengths.setdefault(words[0], set()).add(len(words))
    lengths_of = {word: sorted(ls, reverse=True) for word, ls in lengths.items()}  # longest first
    found_names, rows_with, examples = Counter(), 0, []
    seen: dict[int, tuple[set, dict]] = {}
    with output.open(encoding=encoding, newline="") as handle:
        reader = csv.DictReader(handle)
        for row, record in enumerate(reader):
            texts = allowed_per_row(row)
            if id(texts) not in seen:  # one list per class: its words are split once
                allowed = {tuple(_words(text)) for text in texts}
                starting: dict[str, list[tuple[str, ...]]] = {}
                for span in allowed:
                    if span:
                        starting.setdefault(span[0], []).append(span)
                seen[id(texts)] = (allowed, starting)
            allowed, allowed_spans = seen[id(texts)]
            leaked = False
            for column in text_columns:
                words = _words(record[column])
                covered = _covered(words, allowed_spans)
                after = 0  # words up to here belong to a string already counted
                for i in [i for i, word in enumerate(words) if word in lengths_of]:
                    if i < after:
                        continue
                    for length in lengths_of[words[i]]:
                        if i + length > len(words):
                            continue
                        gram = tuple(words[i:i + length])
                        label = names.get(gram)
                        # A name identifies by its uncommon words: "this Thursday" with "Thursday" shared by
                        # the class (kept there) shows nothing the class does not share.
                        if label is None or gram in allowed or all(
                                covered[j] for j in range(i, i + length)
                                if words[j][0].isalnum() and not is_common_word(words[j])):
                            continue
                        found_names[label] += 1
                        leaked = True
                        if len(examples) < 20:
                            examples.append((row, label, " ".join(gram)))
                        after = i + length
                        break
            rows_with += leaked
    return {"names": found_names, "rows_with_names": rows_with, "examples": examples}


def _covered(words: list[str], by_first: dict[str, list[tuple[str, ...]]]) -> list[bool]:
    """Which words lie inside an occurrence of one of the allowed texts (indexed by their first word)."""
    covered = [False] * len(words)
    if not by_first:
        return covered
    for i in [i for i, word in enumerate(words) if word in by_first]:
        for span in by_first[words[i]]:
            if tuple(words[i:i + len(span)]) == span:
                for j in range(i, i + len(span)):
                    covered[j] = True
    return covered
