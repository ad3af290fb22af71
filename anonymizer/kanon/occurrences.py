"""String-level recoding: a recognized string is recoded wherever it stands, not only where NER tagged it.

NER tags occurrences, not strings: in a post where "Kurt" occurs seven times spaCy tags six, and "Lucas loves
Kurt" would be released. :class:`OccurrenceSpreader` learns every recognized string (a term's normalised key,
``Term.key()``) with the type it was given most often, then finds each of them as a whole word in every text
of the same person (``scope="person"``) or of the whole dataset (``scope="dataset"``, the default), and adds
the occurrences NER missed as terms of that type. Downstream (the person view, the partitioner, the recoding)
they are terms like any other.

Matching is word by word on a simple tokenization (runs of word characters, single other characters), with
only whitespace between the words of a multi-word string; case and width do not matter (NFKC + casefold, as
``Term.key``), except for strings that are also common English words ("Will", "May", "Bill", "Today"): those
are matched only as written when recognized and not at the start of a sentence, so that "will" stays a verb.
Strings with no letter or digit, and numbers of one or two digits, are not spread: they identify nobody.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from anonymizer.kanon.recognize import Term

__all__ = ["SCOPES", "OccurrenceSpreader", "is_common_word"]

SCOPES = ("dataset", "person", "off")
_TOKEN = re.compile(r"\w+|[^\w\s]")
#: A word more frequent than this in pyspellchecker's English list is a common word.
COMMON_WORD_FREQUENCY = 3_000
_SENTENCE_END = frozenset(".!?\n")
_JOINERS = frozenset("'’-‐")
# "I", "I'm", "I'll": a capital there says nothing about a name.
_ALWAYS_CAPITAL = re.compile(r"I(?:['’](?:m|ll|ve|d|s))?(?!\w)")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _tokens(text: str) -> list[tuple[int, int, str]]:
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters change length in lower case (İ): fold token by token
        return [(m.start(), m.end(), _fold(m.group())) for m in _TOKEN.finditer(text)]
    return [(m.start(), m.end(), w if w.isascii() else _fold(w)) for m in _TOKEN.finditer(lowered)
            for w in (m.group(),)]


def _word_frequency(word: str) -> int:
    from anonymizer.temporal.normalize import word_frequency

    return word_frequency(word)


def is_common_word(word: str) -> bool:
    """Whether a word (lower case) is an ordinary English one, by pyspellchecker's frequency list."""
    return _word_frequency(word) > COMMON_WORD_FREQUENCY


@dataclass(frozen=True)
class _Pattern:
    key: str
    label: str
    surfaces: frozenset[str] | None  # exact spellings allowed (common words), None: any case
    everywhere: bool  # may be spread to other persons' texts


class OccurrenceSpreader:
    """Learn recognized strings (``fit``), then add their unrecognized occurrences to each text (``transform``).

    ``scope``: "dataset" (every text), "person" (the texts of the person who has the string) or "off".
    ``is_common_word(word)`` says whether a word is an ordinary English word (default: pyspellchecker's
    frequency list). A string made of common words only ("Will", "God", "last night", "I'm") is matched only
    as it was written when recognized and never at a sentence start; when it was only ever recognized in lower
    case ("dentist", "last night") it is a tagging slip more often than a name, so it is spread to the texts of
    its own person only.
    """

    def __init__(self, scope: str = "dataset", *, is_common_word: Callable[[str], bool] | None = None,
                 word_frequency: Callable[[str], int] | None = None) -> None:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
        self.scope = scope
        self.is_common_word = is_common_word
        self.word_frequency = word_frequency

    def fit(self, texts: Sequence[str], row_terms: Sequence[Sequence[Term]],
            row_person: Sequence[object] | None = None) -> OccurrenceSpreader:
        """``row_terms[i]``: the terms of ``texts[i]``; ``row_person[i]``: its person (None: each text its own)."""
        common = self.is_common_word or is_common_word
        labels: dict[str, Counter] = defaultdict(Counter)
        surfaces: dict[str, set[str]] = defaultdict(set)
        owners: dict[str, set] = defaultdict(set)
        named: set[str] = set()  # written with a capital inside a sentence at least once
        for i, (text, terms) in enumerate(zip(texts, row_terms, strict=True)):
            person = i if row_person is None else row_person[i]
            for term in terms:
                key = term.key()
                labels[key][term.label] += 1
                surfaces[key].add(term.text)
                owners[key].add(person)
                if (term.text[:1].isupper() and not _starts_sentence(text, term.start)
                        and not _ALWAYS_CAPITAL.match(term.text)):
                    named.add(key)
        self.patterns_: dict[tuple[str, ...], _Pattern] = {}
        frequency = self.word_frequency or _word_frequency
        anchors: dict[object, dict[str, dict]] = defaultdict(lambda: defaultdict(dict))
        for key, counts in labels.items():
            # Tokenized as the texts are (then folded), not the folded key: NFKC turns "½" into "1⁄2".
            words = tuple(token for _, _, token in _tokens(min(surfaces[key])))
            if not words[0][0].isalnum() or sum(c.isalnum() for c in key) < 2 or (key.isdigit() and len(key) <= 2):
                continue
            label = min(counts, key=lambda name: (-counts[name], name))  # most often given; ties: by name
            # Words as written, not tokens, so that "you'll" and "doesn't" are looked up whole.
            ordinary = all(len(w) == 1 or common(w) for w in re.findall(r"\w[\w'’]*", key))
            written = frozenset(surfaces[key])
            everywhere = self.scope == "dataset" and (not ordinary or key in named)
            if ordinary and everywhere:  # "US" is a country, "us" a pronoun: only the capitalised spellings
                written = frozenset(w for w in written if not w.islower())
            pattern = _Pattern(key, label, written if ordinary else None, everywhere)
            self.patterns_[words] = pattern
            # Looked up by its rarest word ("iraq" in "the war in iraq"), so that a text is searched at its rare
            # words only; a string spread to its own persons' texts only is indexed under each of them.
            offset = min(range(len(words)), key=lambda i: (not words[i][0].isalnum(), len(words[i]) == 1,
                                                           frequency(words[i]), i))
            for owner in (None,) if everywhere else owners[key]:
                anchors[owner][words[offset]].setdefault((offset, len(words)), {})[words] = pattern
        # Per anchor word: the (offset, length) shapes of its strings, longest first, each a dict by words.
        self.anchors_ = {owner: {word: sorted(shapes.items(), key=lambda item: -item[0][1])
                                 for word, shapes in index.items()} for owner, index in anchors.items()}
        return self

    def transform_one(self, text: str, terms: Sequence[Term], person: object = None) -> list[Term]:
        """``terms`` plus the occurrences of learned strings in ``text`` that overlap none of them, by start."""
        if self.scope == "off" or not self.patterns_:
            return list(terms)
        everyone = self.anchors_.get(None, {})
        own = self.anchors_.get(person, {})
        lowered = text.lower()
        if len(lowered) == len(text) and lowered.isascii():  # the common case: words straight from C
            words = _TOKEN.findall(lowered)
        else:
            words = [token for _, _, token in _tokens(text)]
        candidates = [j for j, word in enumerate(words) if word in everyone or word in own]
        if not candidates:
            return list(terms)
        offsets = [m.span() for m in _TOKEN.finditer(lowered if len(lowered) == len(text) else text)]
        if len(offsets) != len(words):  # folding changed the tokenization: take both from the original text
            tokens = _tokens(text)
            words, offsets = [t for _, _, t in tokens], [(s, e) for s, e, _ in tokens]
            candidates = [j for j, word in enumerate(words) if word in everyone or word in own]
        n = len(words)
        spans = sorted((t.start, t.end) for t in terms)
        starts, ends = [s for s, _ in spans], [e for _, e in spans]
        found: list[tuple[int, int, _Pattern]] = []
        for j in candidates:
            word = words[j]
            best = None
            for index in (everyone, own):
                for (offset, length), patterns in index.get(word, ()):
                    i = j - offset
                    if (best is not None and length <= best[1] - best[0]) or i < 0 or i + length > n:
                        continue
                    pattern = patterns.get(tuple(words[i:i + length])) if length > 1 else patterns.get((word,))
                    if pattern is None or not _joined(text, offsets, i, length):
                        continue
                    start, end = offsets[i][0], offsets[i + length - 1][1]
                    if not self._whole_word(text, start, end) or _overlaps(ends, starts, start, end):
                        continue
                    if pattern.surfaces is not None and (text[start:end] not in pattern.surfaces
                                                         or _starts_sentence(text, start)):
                        continue
                    best = (i, i + length, pattern)
            if best is not None:
                found.append(best)
        if not found:
            return list(terms)
        added: list[Term] = []
        covered = 0
        for i, stop, pattern in sorted(found, key=lambda f: (f[0], f[0] - f[1])):  # leftmost, then longest
            if i < covered:
                continue
            start, end = offsets[i][0], offsets[stop - 1][1]
            added.append(Term(start, end, pattern.label, text[start:end]))
            covered = stop
        return sorted([*terms, *added], key=lambda t: t.start)

    def transform(self, texts: Iterable[str], row_terms: Sequence[Sequence[Term]],
                  row_person: Sequence[object] | None = None) -> list[list[Term]]:
        return [self.transform_one(text, terms, i if row_person is None else row_person[i])
                for i, (text, terms) in enumerate(zip(texts, row_terms, strict=True))]

    @staticmethod
    def _whole_word(text: str, start: int, end: int) -> bool:
        """Not inside a longer word: no word character glued to either end, nor a word glued on by an
        apostrophe or hyphen ("it's" holds no "s", "Jean-Paul" no "Paul", "dj-ing" no "dj"); a possessive "'s"
        and a dash before a name ("--Norman") do not glue."""
        if start and (_is_word_char(text[start - 1]) or (
                text[start - 1] in _JOINERS and start > 1 and _is_word_char(text[start - 2]))):
            return False
        if end < len(text):
            after = text[end]
            if _is_word_char(after):
                return False
            if after in _JOINERS and _is_word_char(text[end + 1:end + 2] or " "):
                possessive = after in "'’" and text[end + 1] in "sS" and not _is_word_char(text[end + 2:end + 3] or " ")
                return possessive
        return True


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _joined(text: str, offsets: list[tuple[int, int]], i: int, length: int) -> bool:
    """Only whitespace between the words of a string."""
    return all(not text[offsets[j - 1][1]:offsets[j][0]].strip() for j in range(i + 1, i + length))


def _overlaps(ends: list[int], starts: list[int], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of the sorted, non-overlapping spans (starts[i], ends[i])."""
    i = bisect.bisect_right(ends, start)  # the first span ending after start
    return i < len(starts) and starts[i] < end


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'“(")
    return not before or before[-1] in _SENTENCE_END
