"""The ways string-level recoding found learned strings before and beside the Aho-Corasick automaton, kept as
baselines for bench/bench_recode_speed.py and for the equivalence test (tests/kanon/core/test_occurrences_matcher.py):

- ``python_pass``: ``OccurrenceSpreader.transform_one`` as it was until the automaton replaced it: the text's words
  intersected with the anchor words, then every word of a text that holds one looked up in Python;
- ``RegexSpreader``: the strongest single-regex alternative, one RE2 alternation of every key and one of every
  spelling matched as written (RE2 compiles them into automata too; Python's ``re`` tries the alternatives one by
  one), each searched again one character after each match's start so that overlapping strings are found. It
  finds the longest string starting at each place only, so where a longer one is refused (it crosses a term) a
  shorter one at the same start is missed: it is a speed baseline, not a replacement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import re2

from anonymizer.kanon.occurrences import (
    _TOKEN,
    OccurrenceSpreader,
    _automaton,
    _crosses,
    _only_spaces_between,
    _Pattern,
    _starts_sentence,
    _tokens,
    _within,
)
from anonymizer.recognize import Term

__all__ = ["RegexSpreader", "python_pass"]


class RegexSpreader(OccurrenceSpreader):
    """An ``OccurrenceSpreader`` whose strings spread everywhere are found by one RE2 alternation."""

    @classmethod
    def of(cls, spreader: OccurrenceSpreader) -> RegexSpreader:
        return cls.from_state(spreader.state())  # type: ignore[return-value]

    def _index(self, learned, owned):
        super()._index(learned, owned)
        keys = sorted({p.words for p in learned if p.everywhere and not p.exact}, key=lambda w: (-len(w), w))
        spellings = sorted({s for p in learned if p.everywhere and p.exact for s in p.surfaces or ()
                            if len(_TOKEN.findall(s)) == len(p.words)}, key=lambda s: (-len(s), s))
        alternation = "|".join(r"\n".join(map(re.escape, words)) for words in keys)
        self.regex_ = _compiled(rf"\n(?:{alternation})\n", keys)
        self.written_regex_ = _compiled("|".join(map(re.escape, spellings)), spellings)
        self.own_automaton_ = _automaton({key: key for key in self.own_keys_.values()})
        return self

    def _matches(self, joined: str) -> list[tuple[int, tuple]]:
        # what the key is worth (its string), from the automaton used as a dict
        return [(end - 1, self.automaton_.get(joined[start:end])) for start, end in _overlapping(self.regex_, joined)]

    def _written_matches(self, text: str) -> list[tuple[int, tuple]]:
        return [(end - 1, self.written_automaton_.get(text[start:end]))
                for start, end in _overlapping(self.written_regex_, text)]

    def _own_matches(self, joined: str, hits: list) -> list[tuple[int, str]]:
        # The persons' own strings are not in the alternation: found by an automaton of their own, as the
        # spreader found them before they joined its automaton.
        return [(last - len(key) + 1, key) for last, key in self.own_automaton_.iter(joined)] \
            if self.own_automaton_ is not None else []


def _compiled(pattern: str, alternatives: list):
    if not alternatives:
        return None
    options = re2.Options()
    options.longest_match = True
    options.max_mem = 4 << 30
    return re2.compile(pattern, options)


def _overlapping(regex, text: str) -> list[tuple[int, int]]:
    """The longest match starting at each place where one starts (searched again one character after each)."""
    found: list[tuple[int, int]] = []
    match = regex.search(text) if regex is not None else None
    while match is not None:
        found.append(match.span())
        match = regex.search(text, match.start() + 1)
    return found


def python_pass(self: OccurrenceSpreader, text: str, terms: Sequence[Term], person: object = None) -> list[Term]:
    """``OccurrenceSpreader.transform_one`` as it was before the automaton (commit 12f0e98): every word of the text
    looked up in Python."""
    if self.scope == "off" or not self.patterns_:
        return list(terms)
    own = self.owned_.get(person)
    lowered = text.lower()
    if len(lowered) == len(text) and lowered.isascii():  # the common case: words straight from C
        raw = _TOKEN.findall(text)
        words = _TOKEN.findall(lowered)
        offsets = None
    else:
        tokens = _tokens(text)
        words, offsets = [t for _, _, t in tokens], [(s, e) for s, e, _ in tokens]
        raw = [text[s:e] for s, e in offsets]
    # The anchors the text holds, by set intersection, before looking at any word on its own.
    folded = self.anchor_words_.intersection(words)
    written = self.exact_anchor_words_.intersection(raw)
    if own is not None:
        folded, written = set(folded), set(written)
        in_text = (set(words), set(raw))
        for pattern in own:
            for anchor in pattern.anchors:
                if anchor in in_text[pattern.exact]:
                    (written if pattern.exact else folded).add(anchor)
    if not folded and not written:
        return list(terms)
    candidates = [j for j, (word, as_written) in enumerate(zip(words, raw, strict=True))
                  if word in folded or as_written in written]
    if offsets is None:
        offsets = [m.span() for m in _TOKEN.finditer(text)]
    n = len(words)
    spans = sorted((t.start, t.end) for t in terms)
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    tagged = set(spans)
    found: list[tuple[int, int, _Pattern]] = []  # every match, not only each anchor's longest: "Hard Rock"
                                                 # may take "Rock" from "Rock Cafe", and "Cafe" is still one

    def occurs(i: int, length: int, pattern: _Pattern) -> None:
        """Adds the pattern's match at words i..i + length when it stands there as a string of its own."""
        start, end = offsets[i][0], offsets[i + length - 1][1]
        if (start, end) in tagged or not _only_spaces_between(text, offsets, i, length):
            return  # exactly a term NER tagged keeps NER's type there (``_crosses`` would say so too)
        if not self._whole_word(text, start, end) or _crosses(ends, starts, start, end):
            return
        if pattern.surfaces is not None and (text[start:end] not in pattern.surfaces
                                             or _starts_sentence(text, start)):
            return
        found.append((i, i + length, pattern))

    anchors, exact_anchors = self.anchors_, self.exact_anchors_
    for j in candidates:
        word = words[j]
        for shapes in (anchors.get(word), exact_anchors.get(raw[j])):
            if shapes is None:
                continue
            for (offset, length), patterns in shapes:
                i = j - offset
                if i < 0 or i + length > n:
                    continue
                pattern = patterns.get(tuple(words[i:i + length])) if length > 1 else patterns.get((word,))
                if pattern is not None:
                    occurs(i, length, pattern)
    if own is not None:  # the person's own strings, at the places their anchors stand
        places: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
        for j in candidates:
            places[0].setdefault(words[j], []).append(j)
            places[1].setdefault(raw[j], []).append(j)
        for pattern in own:
            length = len(pattern.words)
            for anchor in pattern.anchors:
                for j in places[pattern.exact].get(anchor, ()):
                    i = j - pattern.offset
                    if 0 <= i and i + length <= n and tuple(words[i:i + length]) == pattern.words:
                        occurs(i, length, pattern)
    if not found:
        return list(terms)
    chosen: list[list] = []  # [first word, end word, pattern]
    for i, stop, pattern in sorted(found, key=lambda f: (f[0], f[0] - f[1])):  # leftmost, then longest
        if chosen and i < chosen[-1][1]:
            # Overlapping strings ("around JULY" and "JULY 30") become one term, under the leftmost one's
            # type: recoding only one of them would release the rest of the other ("30").
            chosen[-1][1] = max(chosen[-1][1], stop)
            continue
        chosen.append([i, stop, pattern])
    added = [Term(offsets[i][0], offsets[stop - 1][1], pattern.label, text[offsets[i][0]:offsets[stop - 1][1]])
             for i, stop, pattern in chosen]
    # A string recognized whole elsewhere takes in the shorter terms NER tagged inside it here ("august" of
    # "august 4th", "Thursday" of "Thursday 3"): otherwise the rest of it would be released next to them.
    inside = [(t.start, t.end) for t in added]
    kept = [t for t in terms if not _within(inside, t.start, t.end)]
    return sorted([*kept, *added], key=lambda t: t.start)

