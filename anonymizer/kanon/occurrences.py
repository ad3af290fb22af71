"""String-level recoding: a recognized string is recoded wherever it stands, not only where NER tagged it.

NER tags occurrences, not strings: in a post where "Kurt" occurs seven times spaCy tags six, and "Lucas loves
Kurt" would be released. :class:`OccurrenceSpreader` learns every recognized string (a term's normalised key,
``Term.key()``) with the type it was given most often, then finds each of them as a whole word in every text
of the same person (``scope="person"``) or of the whole dataset (``scope="dataset"``, the default), and adds
the occurrences NER missed as terms of that type. Downstream (the person view, the partitioner, the recoding)
they are terms like any other.

Matching is word by word on a simple tokenization (runs of word characters, single other characters), with
only whitespace between the words of a multi-word string; every learned string is found in one pass of an
Aho-Corasick automaton (pyahocorasick) over the text's folded words, the strings of common words in a second one
over the text as written; case and width do not matter (NFKC + casefold, as
``Term.key``), except for strings that are also common English words ("Will", "May", "Bill", "Today"): those
are matched only as written when recognized and not at the start of a sentence, so that "will" stays a verb.
Strings with no letter or digit, and numbers of one or two digits, are not spread: they identify nobody.
Where learned strings overlap in a text ("around JULY", "JULY 30") they become one term, and a string found
whole takes in the shorter terms NER tagged inside it ("august" of "august 4th"): no part of a recognized
string is released beside a recoded one.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from itertools import accumulate

import ahocorasick
import numpy as np

from anonymizer.kanon.terms import RowTerms
from anonymizer.recognize import Term
from anonymizer.recognize.recognizer import term_key

__all__ = ["SCOPES", "SPREAD_VERSION", "UNSURE", "OccurrenceSpreader", "is_common_word", "is_ordinary"]

SCOPES = ("dataset", "person", "off")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_TOKEN_AND_SPACE = re.compile(r"(\w+|[^\w\s])")  # splits a text into its words and the spaces between them
# The same on an ASCII text, a quarter faster; but the ASCII classes do not count the separators \x1c-\x1f as spaces.
_ASCII_TOKEN_AND_SPACE = re.compile(r"(\w+|[^\w\s])", re.ASCII)
#: A word more frequent than this in pyspellchecker's English list is a common word.
COMMON_WORD_FREQUENCY = 3_000
#: Changes whenever what the spreader adds to the same input changes (results kept in a cache carry it).
SPREAD_VERSION = f"3; common > {COMMON_WORD_FREQUENCY}; pyspellchecker {metadata.version('pyspellchecker')}"
_SENTENCE_END = frozenset(".!?\n")
_JOINERS = frozenset("'’-‐")
#: In the automaton of ``OccurrenceSpreader``: a key no string spread everywhere has (only some person's own).
_OWN_ONLY = object()
#: ``OccurrenceSpreader.change_one`` where it cannot tell the change from the spans alone.
UNSURE: list = ["unsure"]
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


@lru_cache(maxsize=1 << 17)  # asked for every word of every learned string: a dataset's strings share words
def _word_frequency(word: str) -> int:
    from anonymizer.recognize.frequency import word_frequency

    return word_frequency(word)


# The names of HTML's character entities ("&nbsp;" written out in scraped posts): markup, nobody's name.
_MARKUP_WORDS = frozenset({"nbsp", "amp", "lt", "gt", "quot", "apos"})


@lru_cache(maxsize=1 << 17)  # asked for every word of every recognized string, by the spreader and the re-read
def is_common_word(word: str) -> bool:
    """Whether a word (lower case) is an ordinary English one, by pyspellchecker's frequency list (or the name
    of an HTML entity)."""
    return word in _MARKUP_WORDS or _word_frequency(word) > COMMON_WORD_FREQUENCY


_KEY_WORD = re.compile(r"\w+(?:['’]\w+)*")
_POSSESSIVE_S = re.compile(r"['’]s$")


def is_ordinary(key: str, is_common_word: Callable[[str], bool]) -> bool:
    """Whether a recognized string is made of common words only ("Will", "last night", "the have-more's"), by
    its words as written ("you'll" and "doesn't" whole, a possessive "'s" left out) — else it is a name."""
    return all(len(word) == 1 or is_common_word(_POSSESSIVE_S.sub("", word)) for word in _KEY_WORD.findall(key))


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per learned string
class _Pattern:
    key: str
    label: str
    surfaces: frozenset[str] | None  # exact spellings allowed (common words), None: any case
    everywhere: bool  # may be spread to other persons' texts
    anchors: tuple[str, ...]  # the words it is looked up by: folded, or as written when ``exact``
    exact: bool
    words: tuple[str, ...]  # folded
    offset: int  # of the anchor in words


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

    def fit(self, texts: Iterable[str], row_terms: Iterable[Sequence[Term]],
            row_person: Sequence[object] | None = None, *, size: int | None = None) -> OccurrenceSpreader:
        """``row_terms[i]``: the terms of ``texts[i]``; ``row_person[i]``: its person (None: each text its own).
        ``texts`` and ``row_terms`` may be streams (each read once), then ``size`` gives their number."""
        common = self.is_common_word or is_common_word
        if size is None:
            size = len(texts)  # type: ignore[arg-type]
        labels: dict[str, Counter] = defaultdict(Counter)
        surfaces: dict[str, set[str]] = defaultdict(set)
        # The persons of a string are needed only for strings that may not be spread to everybody (strings of
        # common words, or every string with scope "person"): a million persons' names stay out of these sets.
        owners: dict[str, set] = defaultdict(set)
        ordinary_keys: dict[str, bool] = {}
        named: set[str] = set()  # written with a capital inside a sentence at least once
        # How often each token stands in the data, from a sample of about 1,000 texts: the dictionary's
        # frequency does not know that "nbsp", "urllink" or the "s" of "it's" are everywhere in blogs.
        step = max(1, size // 1000)
        sample: list[str] = []
        i = -1
        for i, (text, terms) in enumerate(zip(texts, row_terms, strict=True)):
            if i % step == 0:
                sample.append(text)
            person = i if row_person is None else row_person[i]
            for term in terms:
                key = term.key()
                labels[key][term.label] += 1
                surfaces[key].add(term.text)
                ordinary = ordinary_keys.get(key)
                if ordinary is None:
                    ordinary = ordinary_keys[key] = is_ordinary(key, common)
                if ordinary or self.scope != "dataset":
                    owners[key].add(person)
                if (term.text[:1].isupper() and not _starts_sentence(text, term.start)
                        and not _ALWAYS_CAPITAL.match(term.text)):
                    named.add(key)
        if i + 1 != size:
            raise ValueError(f"fit was given {i + 1:,} texts, not size = {size:,}")
        return self._learn(labels, surfaces, owners, ordinary_keys, named, sample)

    def fit_store(self, store: RowTerms, texts: Iterable[str], row_person: Sequence[object] | None = None
                  ) -> OccurrenceSpreader:
        """``fit`` on a store of terms (``RowTerms``, its text ``i`` the terms of ``texts[i]``), learning the same
        strings: what the terms say is counted on the store's arrays, once per distinct spelling, and ``texts``
        (a stream, read once) is read only for what the texts alone tell (a capital inside a sentence, the
        sample). A million posts hold about ten million terms: they are counted with numpy, and Python steps
        are taken per distinct spelling, per (person-bound string, text) and per capitalised term only."""
        common = self.is_common_word or is_common_word
        size = store.texts
        arrays = store.arrays()
        spelling, text_of = arrays["spelling"].astype(np.int64), arrays["text"]
        width = max(len(store.labels), 1)
        pairs, first, counts = np.unique(spelling * width + arrays["label"], return_index=True, return_counts=True)
        labels: dict[str, Counter] = defaultdict(Counter)  # keys in the order of their first term, as ``fit``
        surfaces: dict[str, set[str]] = defaultdict(set)
        ordinary_keys: dict[str, bool] = {}
        key_of: dict[int, str] = {}
        order = np.argsort(first, kind="stable")
        for pair, count in zip(pairs[order].tolist(), counts[order].tolist(), strict=True):
            number, label = divmod(pair, width)
            written = store.spellings[number]
            key = key_of.get(number)
            if key is None:
                key = key_of[number] = term_key(written)
            labels[key][store.labels[label]] += count
            surfaces[key].add(written)
            if key not in ordinary_keys:
                ordinary_keys[key] = is_ordinary(key, common)
        owners: dict[str, set] = defaultdict(set)
        numbers = np.fromiter(key_of, dtype=np.int64, count=len(key_of))
        owned = np.zeros(len(store.spellings), dtype=bool)
        owned[numbers] = [ordinary_keys[key_of[n]] or self.scope != "dataset" for n in numbers.tolist()]
        mask = owned[spelling]
        if row_person is None:
            for code in np.unique(spelling[mask] * max(size, 1) + text_of[mask]).tolist():
                number, text = divmod(code, max(size, 1))
                owners[key_of[number]].add(text)
        else:  # per (string, person), not per (string, text): a person writes many texts
            texts_owned = np.unique(text_of[mask])
            person_number: dict[object, int] = {}
            persons = [row_person[text] for text in texts_owned.tolist()]
            codes = np.zeros(max(size, 1), dtype=np.int64)
            codes[texts_owned] = [person_number.setdefault(person, len(person_number)) for person in persons]
            person_of = list(person_number)
            count = max(len(person_of), 1)
            for code in np.unique(spelling[mask] * count + codes[text_of[mask]]).tolist():
                number, person = divmod(code, count)
                owners[key_of[number]].add(person_of[person])
        # Written with a capital (not "I"): does one of them stand inside a sentence? Only the texts tell.
        capital = np.zeros(len(store.spellings), dtype=bool)
        capital[numbers] = [store.spellings[n][:1].isupper() and not _ALWAYS_CAPITAL.match(store.spellings[n])
                            for n in numbers.tolist()]
        candidates = np.flatnonzero(capital[spelling])
        at = np.searchsorted(text_of[candidates], np.arange(size + 1)).tolist()
        candidate_keys = [key_of[n] for n in spelling[candidates].tolist()]
        candidate_starts = arrays["start"][candidates].tolist()
        named: set[str] = set()
        step = max(1, size // 1000)  # the sample ``fit`` takes
        sample: list[str] = []
        i = -1
        for i, text in enumerate(texts):
            if i >= size:
                break
            if i % step == 0:
                sample.append(text)
            for c in range(at[i], at[i + 1]):
                if candidate_keys[c] not in named and not _starts_sentence(text, candidate_starts[c]):
                    named.add(candidate_keys[c])
        if i + 1 != size:
            raise ValueError(f"fit_store was given {i + 1:,} texts for a store of {size:,}")
        return self._learn(labels, surfaces, owners, ordinary_keys, named, sample)

    def _learn(self, labels: dict[str, Counter], surfaces: dict[str, set[str]], owners: dict[str, set],
               ordinary_keys: dict[str, bool], named: set[str], sample: list[str]) -> OccurrenceSpreader:
        """The patterns from what was counted: per key (in the order of first appearance), its labels with their
        counts, its spellings, its persons (for keys not spread everywhere), whether it is made of common
        words, whether it was written capitalised inside a sentence; and a sample of the texts."""
        frequency = self.word_frequency or _word_frequency
        seen_folded = Counter(word for text in sample for word in _TOKEN.findall(text.lower()))
        seen_written = Counter(word for text in sample for word in _TOKEN.findall(text))
        learned: list[_Pattern] = []
        owned: dict[object, list[int]] = {}  # per person, the numbers of the patterns spread to them only
        for key, counts in labels.items():
            # Tokenized as the texts are (then folded), not the folded key: NFKC turns "½" into "1⁄2".
            words = tuple(token for _, _, token in _tokens(min(surfaces[key])))
            if not words[0][0].isalnum() or sum(c.isalnum() for c in key) < 2 or (key.isdigit() and len(key) <= 2):
                continue
            label = min(counts, key=lambda name: (-counts[name], name))  # most often given; ties: by name
            ordinary = ordinary_keys[key]
            written = frozenset(surfaces[key])
            everywhere = self.scope == "dataset" and (not ordinary or key in named)
            if ordinary and everywhere:  # "US" is a country, "us" a pronoun: only the capitalised spellings
                written = frozenset(w for w in written if not w.islower())
            allowed = written if ordinary else None
            # Looked up by its rarest word ("iraq" in "the war in iraq"), so that a text is searched at its rare
            # words only. A string of common words is matched only as written, so it is indexed by its anchor as
            # written ("The", not "the"): a text is then searched at its capitalised "The"s only, not at every
            # "the". A string spread to its own persons' texts only is not indexed: each of its persons keeps it
            # (a million persons' own indexes would take gigabytes).
            spellings = [tokens for tokens in (_TOKEN.findall(w) for w in allowed)
                         if len(tokens) == len(words)] if allowed is not None else []

            def rarity(i: int, words=words, spellings=spellings) -> tuple:
                seen = sum(seen_written[t[i]] for t in spellings) if spellings else seen_folded[words[i]]
                return not words[i][0].isalnum(), seen, len(words[i]) == 1, frequency(words[i]), i

            offset = min(range(len(words)), key=rarity) if len(words) > 1 else 0  # one word: its own anchor
            spelled = sorted({tokens[offset] for tokens in spellings})
            learned.append(_Pattern(key, label, allowed, everywhere, tuple(spelled) or (words[offset],),
                                    bool(spelled), words, offset))
            if not everywhere:
                for person in owners[key]:
                    owned.setdefault(person, []).append(len(learned) - 1)
        return self._index(learned, owned)

    def _index(self, learned: list[_Pattern], owned: dict[object, list[int]]) -> OccurrenceSpreader:
        """The lookups ``transform`` uses, from the learned patterns (in the order they were learned) and, per
        person, the numbers of the patterns spread to that person's texts only."""
        self.learned_ = learned
        self.patterns_ = {pattern.words: pattern for pattern in learned}
        anchors: dict[str, dict] = defaultdict(dict)
        exact: dict[str, dict] = defaultdict(dict)
        for pattern in learned:
            if pattern.everywhere:
                shape = (pattern.offset, len(pattern.words))
                for anchor in pattern.anchors:
                    (exact if pattern.exact else anchors)[anchor].setdefault(shape, {})[pattern.words] = pattern
        # Per anchor word (folded, or as written) of the strings spread everywhere: the (offset, length) shapes of
        # its strings, longest first, each a dict by (folded) words.
        self.anchors_ = _by_shape(anchors)
        self.exact_anchors_ = _by_shape(exact)
        # The same anchors as sets, for the quick first look at a text (set intersections run in C).
        self.anchor_words_ = frozenset(self.anchors_)
        self.exact_anchor_words_ = frozenset(self.exact_anchors_)
        # Per person: the strings spread to their own texts only, and each one's key (looked for with str.find).
        self.owned_ = {person: tuple(learned[n] for n in numbers) for person, numbers in owned.items()}
        self.own_keys_ = {pattern: _joined(pattern.words) for pattern in learned if not pattern.everywhere}
        # The strings spread everywhere, in one Aho-Corasick automaton over their keys (each worth its length in
        # characters and in words, and its string): a text is searched for all of them in one pass in C, not word
        # by word in Python. Strings of common words, matched only as written ("The", "May"), are looked for by
        # their allowed spellings in the text as it is, in another automaton: their keys would match every "the".
        # Each key is worth the one string it finds, or None when strings spread everywhere share their words.
        sharing: dict[tuple[str, ...], list[_Pattern]] = defaultdict(list)
        for pattern in learned:
            if pattern.everywhere:
                sharing[pattern.words].append(pattern)
        keys: dict[str, tuple] = {}
        spellings: dict[str, tuple] = {}
        for words, patterns in sharing.items():
            alone = patterns[0] if len(patterns) == 1 else None
            for pattern in patterns:
                if not pattern.exact:
                    key = _joined(words)
                    keys[key] = (len(key), len(words), alone)
                    continue
                for spelling in pattern.surfaces or ():
                    if len(_TOKEN.findall(spelling)) == len(words):
                        taken = spellings.get(spelling)
                        spellings[spelling] = (len(spelling), alone if taken is None or taken[1] is alone else None)
        # The keys of the strings spread to their own persons only are in the same automaton, each worth also
        # itself (a person's texts are searched for every person's in the same pass, the person's own then taken):
        # (length, number of words, the string spread everywhere or None or _OWN_ONLY, the own key or None).
        own_keys = set(self.own_keys_.values())
        values = {key: (*value, key if key in own_keys else None) for key, value in keys.items()}
        for key in own_keys:
            if key not in values:
                values[key] = (len(key), key.count(_SEPARATOR) - 1, _OWN_ONLY, key)
        self.automaton_ = _automaton(values)
        self.written_automaton_ = _automaton(spellings)
        self.owned_numbers_ = owned
        return self

    def state(self) -> dict:
        """What was learned, as JSON-able data (``from_state`` makes the spreader again): so that the texts of one
        dataset can be transformed in parts, by other processes or machines, with what was learned from all."""
        return {"version": SPREAD_VERSION, "scope": self.scope,
                "patterns": [[p.key, p.label, None if p.surfaces is None else sorted(p.surfaces), p.everywhere,
                              list(p.anchors), p.exact, list(p.words), p.offset] for p in self.learned_],
                "owned": [[person, numbers] for person, numbers in self.owned_numbers_.items()]}

    @classmethod
    def from_state(cls, state: dict) -> OccurrenceSpreader:
        """The fitted spreader ``state()`` described; ValueError when it was written by another version of
        string-level recoding."""
        if not isinstance(state, dict) or state.get("version") != SPREAD_VERSION:
            raise ValueError("the learned strings were written by another version of string-level recoding")
        learned = [_Pattern(key, label, None if surfaces is None else frozenset(surfaces), everywhere,
                            tuple(anchors), exact, tuple(words), offset)
                   for key, label, surfaces, everywhere, anchors, exact, words, offset in state["patterns"]]
        return cls(state["scope"])._index(learned, {person: numbers for person, numbers in state["owned"]})

    def transform_one(self, text: str, terms: Sequence[Term], person: object = None) -> list[Term]:
        """``terms`` plus the occurrences of learned strings in ``text``, by start. An occurrence that crosses a
        term, or is exactly one, is left out; one that holds shorter terms whole replaces them; overlapping
        occurrences become one term."""
        found = self._added(text, [(t.start, t.end) for t in terms], person)
        if found is None:
            return list(terms)
        added = [Term(start, end, label, text[start:end]) for start, end, label in found]
        # A string recognized whole elsewhere takes in the shorter terms NER tagged inside it here ("august" of
        # "august 4th", "Thursday" of "Thursday 3"): otherwise the rest of it would be released next to them.
        inside = [(t.start, t.end) for t in added]
        kept = [t for t in terms if not _within(inside, t.start, t.end)]
        return sorted([*kept, *added], key=lambda t: t.start)

    def change_one(self, text: str, spans: Sequence[tuple[int, int]], person: object = None) -> list | None:
        """What ``recognize.cache.change_of(self.transform_one(text, terms, person), terms)`` gives, from the
        terms' spans (start, end) alone, in the terms' order: None when nothing is added, else [the numbers of the
        terms taken in, the added terms as [start, end, label, text]] (no ``Term`` made, none compared).
        ``UNSURE`` where an added term stands exactly where a term does (never seen: ``transform_one`` leaves such
        a place to NER's term), for which the terms themselves are needed."""
        found = self._added(text, spans, person)
        if found is None:
            return None
        inside = [(start, end) for start, end, _ in found]
        if not set(inside).isdisjoint(spans):
            return UNSURE
        return [[n for n, (start, end) in enumerate(spans) if _within(inside, start, end)],
                [[start, end, label, text[start:end]] for start, end, label in found]]

    def _added(self, text: str, spans: Sequence[tuple[int, int]], person: object) -> list[tuple[int, int, str]] | None:
        """The occurrences of learned strings to add to a text whose terms stand at ``spans``, as (start, end,
        label) by start; None for none."""
        if self.scope == "off" or not self.patterns_:
            return None
        own = self.owned_.get(person)
        words, pieces, bounds = _words_of(text)
        # The text's words joined as the learned strings' keys are: one pass of the automaton finds every learned
        # string spread everywhere, as (its key's last character, (its key's length, its number of words)).
        joined = _joined(words)
        hits = self._matches(joined)
        written = self._written_matches(text)
        own_places = self._own_places(own, joined, hits) if own is not None else []
        if not written and not own_places and all(value[2] is _OWN_ONLY for _, value in hits):
            return None
        if bounds is None:  # word i stands at [bounds[2i], bounds[2i + 1]) of the text
            bounds = list(accumulate(map(len, pieces)))
        found = self._found(text, words, bounds, spans, joined, hits, written, own_places)
        if not found:
            return None
        return _leftmost_longest(found, bounds)

    def _own_places(self, own: Sequence[_Pattern], joined: str, hits: list) -> list[tuple[_Pattern, list[int]]]:
        """The person's own strings: every own key of the dataset found in the same pass, the person's taken, as
        (pattern, where its key ends in ``joined``)."""
        own_places: list[tuple[_Pattern, list[int]]] = []
        at_key: dict[str, list[int]] = {}
        for at, key in self._own_matches(joined, hits):
            at_key.setdefault(key, []).append(at)
        if at_key:
            own_keys = self.own_keys_
            for pattern in own:
                places = at_key.get(own_keys[pattern])
                if places:
                    own_places.append((pattern, places))
        return own_places

    def _found(self, text: str, words: list[str], bounds: list[int], spans: Sequence[tuple[int, int]], joined: str,
               hits: list, written: list, own_places: list[tuple[_Pattern, list[int]]]
               ) -> list[tuple[int, int, _Pattern]]:
        """Every match of a learned string standing in the text as a string of its own, as (first word, end word,
        pattern): not only each anchor's longest ("Hard Rock" may take "Rock" from "Rock Cafe", and "Cafe" is
        still one)."""
        n = len(words)
        spans = sorted(spans)
        starts, ends = [s for s, _ in spans], [e for _, e in spans]
        tagged = set(spans)
        found: list[tuple[int, int, _Pattern]] = []

        def occurs(i: int, length: int, pattern: _Pattern) -> None:
            """Adds the pattern's match at words i..i + length when it stands there as a string of its own."""
            start, end = bounds[2 * i], bounds[2 * (i + length) - 1]
            if (start, end) in tagged or (length > 1 and not _only_spaces_within(text, bounds, i, length)):
                return  # exactly a term NER tagged keeps NER's type there (``_crosses`` would say so too)
            if not self._whole_word(text, start, end) or _crosses(ends, starts, start, end):
                return
            if pattern.surfaces is not None and (text[start:end] not in pattern.surfaces
                                                 or _starts_sentence(text, start)):
                return
            found.append((i, i + length, pattern))

        # The automata say which learned string stands where. Where several strings spread everywhere share their
        # words ("Mr. Smith" and "Mr.Smith"), which of them is taken is the anchors' say, as it was when every word
        # of the text was looked up: their words are looked up so again, in the same order.
        shared: set[int] = set()  # the words of the text inside a match of strings sharing their words
        word_at = _WordAt(joined)
        for last, (size, length, pattern, _) in hits:
            if pattern is _OWN_ONLY:
                continue
            i = word_at(last - size + 1)
            if pattern is None:
                shared.update(range(i, i + length))
            else:
                occurs(i, length, pattern)
        # Spellings found in the text as they are: those that begin and end with a word of it.
        for last, (size, pattern) in written:
            i, j = _word_starting(bounds, last - size + 1), _word_ending(bounds, last + 1)
            if i is None or j is None:
                continue
            if pattern is None:
                shared.update(range(i, j + 1))
            elif tuple(words[i:j + 1]) == pattern.words:
                occurs(i, j + 1 - i, pattern)
        anchors, exact_anchors = self.anchors_, self.exact_anchors_
        for j in sorted(shared):
            word = words[j]
            for shapes in (anchors.get(word), exact_anchors.get(text[bounds[2 * j]:bounds[2 * j + 1]])):
                if shapes is None:
                    continue
                for (offset, length), patterns in shapes:
                    i = j - offset
                    if i < 0 or i + length > n:
                        continue
                    pattern = patterns.get(tuple(words[i:i + length])) if length > 1 else patterns.get((word,))
                    if pattern is not None:
                        occurs(i, length, pattern)
        for pattern, places in own_places:  # in the order the person's strings were learned, then by anchor
            length, firsts = len(pattern.words), [word_at(at) for at in places]
            for anchor in pattern.anchors:
                for i in firsts:
                    j = i + pattern.offset
                    if not pattern.exact or text[bounds[2 * j]:bounds[2 * j + 1]] == anchor:
                        occurs(i, length, pattern)
        return found

    def _matches(self, joined: str) -> list[tuple[int, tuple]]:
        """Every key of a string spread everywhere in any case in ``joined`` (the text's folded words), and every
        key of a string spread to its own persons, overlapping ones too, as (the index of its last character, (its
        length, its number of words, its string spread everywhere or None when such strings share its words or
        _OWN_ONLY when none is, the key when it is some person's own or None))."""
        return list(self.automaton_.iter(joined)) if self.automaton_ is not None else []

    def _own_matches(self, joined: str, hits: list[tuple[int, tuple]]) -> list[tuple[int, str]]:
        """Where a key of a string spread to its own persons stands in ``joined``, as (its start, the key), from
        ``_matches``'s ``hits`` on ``joined``."""
        return [(last - size + 1, key) for last, (size, _, _, key) in hits if key is not None]

    def _written_matches(self, text: str) -> list[tuple[int, tuple[int, _Pattern | None]]]:
        """Every allowed spelling of a string spread everywhere only as written, in ``text`` as it is (overlapping
        ones too, within words too), as (the index of its last character, (its length, its string or None when
        strings share its words))."""
        return list(self.written_automaton_.iter(text)) if self.written_automaton_ is not None else []

    def transform(self, texts: Iterable[str], row_terms: Sequence[Sequence[Term]],
                  row_person: Sequence[object] | None = None) -> list[list[Term]]:
        return [self.transform_one(text, terms, i if row_person is None else row_person[i])
                for i, (text, terms) in enumerate(zip(texts, row_terms, strict=True))]

    @staticmethod
    def _whole_word(text: str, start: int, end: int) -> bool:
        """Not inside a longer word: no word character glued to either end, nor a word glued on by an
        apostrophe or hyphen ("it's" holds no "s", "Jean-Paul" no "Paul", "dj-ing" no "dj"); a possessive "'s"
        and a dash before a name ("--Norman") do not glue."""
        # Only a word character at the string's own edge can be glued: "38%pf" holds "38%", "sarcasm&gt;"
        # holds "sarcasm&", "Ph.D.s" holds "Ph.D.".
        if start and _is_word_char(text[start]) and (_is_word_char(text[start - 1]) or (
                text[start - 1] in _JOINERS and start > 1 and _is_word_char(text[start - 2]))):
            return False
        if end < len(text) and _is_word_char(text[end - 1]):
            after = text[end]
            if _is_word_char(after):
                return False
            if after in _JOINERS and _is_word_char(text[end + 1:end + 2] or " "):
                possessive = after in "'’" and text[end + 1] in "sS" and not _is_word_char(text[end + 2:end + 3] or " ")
                return possessive
        return True


#: Between the words of a key of the automaton and of the text it runs on. A word is never whitespace and no
#: character folds to a newline (NFKC, casefold): a key matches only whole words.
_SEPARATOR = "\n"


def _joined(words: Iterable[str]) -> str:
    """The key of a string of (folded) words, and the text the automaton runs on: the words, each with a separator
    before it, and one at the end."""
    return _SEPARATOR + _SEPARATOR.join(words) + _SEPARATOR


def _automaton(values: dict[str, object]) -> ahocorasick.Automaton | None:
    """An Aho-Corasick automaton finding the keys of ``values`` (each reported with its value); None for none."""
    if not values:
        return None
    automaton = ahocorasick.Automaton()
    for key, value in values.items():
        automaton.add_word(key, value)
    automaton.make_automaton()
    return automaton


def _by_shape(anchors: dict) -> dict:
    return {word: sorted(shapes.items(), key=lambda item: -item[0][1]) for word, shapes in anchors.items()}


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _only_spaces_between(text: str, offsets: list[tuple[int, int]], i: int, length: int) -> bool:
    """Only whitespace between the words of a string."""
    return all(not text[offsets[j - 1][1]:offsets[j][0]].strip() for j in range(i + 1, i + length))


class _WordAt:
    """The number of the word whose separator stands at a place of a text's ``joined`` words (the separators
    before it), counted from the place asked before: the automaton's matches come nearly in order."""

    __slots__ = ("at", "count", "word")

    def __init__(self, joined: str) -> None:
        self.count, self.at, self.word = joined.count, 0, 0

    def __call__(self, at: int) -> int:
        if at >= self.at:
            self.word += self.count(_SEPARATOR, self.at, at)
        else:
            self.word -= self.count(_SEPARATOR, at, self.at)
        self.at = at
        return self.word


def _only_spaces_within(text: str, bounds: list[int], i: int, length: int) -> bool:
    """Only whitespace between the words of a string (words i..i + length at ``bounds`` as ``transform_one``
    has them)."""
    return all(not text[bounds[2 * j - 1]:bounds[2 * j]].strip() for j in range(i + 1, i + length))


def _word_starting(bounds: list[int], at: int) -> int | None:
    """The word that starts at ``at`` (words at ``bounds`` as ``transform_one`` has them), or None."""
    k = bisect.bisect_left(bounds, at)
    if k & 1 and k + 1 < len(bounds) and bounds[k + 1] == at:  # a word ends at ``at``, the next starts there
        k += 1
    return k // 2 if not k & 1 and k < len(bounds) - 1 and bounds[k] == at else None


def _word_ending(bounds: list[int], at: int) -> int | None:
    """The word that ends at ``at`` (words at ``bounds`` as ``transform_one`` has them), or None."""
    k = bisect.bisect_left(bounds, at)
    return k // 2 if k & 1 and k < len(bounds) and bounds[k] == at else None


def _crosses(ends: list[int], starts: list[int], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of the sorted, non-overlapping spans (starts[i], ends[i]) other than by
    holding a shorter one whole (a span NER tagged exactly keeps the type NER gave it there)."""
    i = bisect.bisect_right(ends, start)  # the first span ending after start
    while i < len(starts) and starts[i] < end:
        if starts[i] < start or ends[i] > end or (starts[i], ends[i]) == (start, end):
            return True
        i += 1
    return False


def _within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) lies inside one of the sorted, non-overlapping spans."""
    i = bisect.bisect_right(spans, (start, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


_BEFORE_SENTENCE = frozenset(" \t\"'“(")


def _starts_sentence(text: str, start: int) -> bool:
    """Nothing but spaces, quotes and brackets between ``start`` and the text's start or a sentence's end."""
    while start and text[start - 1] in _BEFORE_SENTENCE:  # not text[:start].rstrip(): no copy of the text
        start -= 1
    return not start or text[start - 1] in _SENTENCE_END


def _words_of(text: str) -> tuple[list[str], list[str] | None, list[int] | None]:
    """A text's words as the learned strings' keys are made (lower case, folded), the pieces ``bounds`` are made
    from (the spaces before each word, the word, ...; the spaces after) and the bounds when they are known
    already: word i stands at [bounds[2i], bounds[2i + 1]) of the text."""
    lowered = text.lower()
    if len(lowered) == len(text) and lowered.isascii():  # the common case: words straight from C
        # ASCII classes where they are the same.
        odd = "\x1c" in lowered or "\x1d" in lowered or "\x1e" in lowered or "\x1f" in lowered
        pieces = (_TOKEN_AND_SPACE if odd else _ASCII_TOKEN_AND_SPACE).split(lowered)
        return pieces[1::2], pieces, None  # bounds made from ``pieces`` once a match is to be looked at
    if len(lowered) == len(text):
        pieces = _TOKEN_AND_SPACE.split(lowered)
        # Folded word by word (the same length in the text as lowered).
        return [w if w.isascii() else _fold(w) for w in pieces[1::2]], pieces, None
    tokens = _tokens(text)  # a few characters change length in lower case (İ)
    bounds = [b for s, e, _ in tokens for b in (s, e)]
    bounds.append(len(text))
    return [t for _, _, t in tokens], None, bounds


def _leftmost_longest(found: list[tuple[int, int, _Pattern]], bounds: list[int]) -> list[tuple[int, int, str]]:
    """The matches kept, leftmost then longest, as (start, end, label) in the text."""
    chosen: list[list] = []  # [first word, end word, pattern]
    for i, stop, pattern in sorted(found, key=lambda f: (f[0], f[0] - f[1])):
        if chosen and i < chosen[-1][1]:
            # Overlapping strings ("around JULY" and "JULY 30") become one term, under the leftmost one's
            # type: recoding only one of them would release the rest of the other ("30").
            chosen[-1][1] = max(chosen[-1][1], stop)
            continue
        chosen.append([i, stop, pattern])
    return [(bounds[2 * i], bounds[2 * stop - 1], pattern.label) for i, stop, pattern in chosen]
