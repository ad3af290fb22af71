"""A user's own entity types (CustomEntity) compiled for the recognizer.

Every pattern is a regex written as for Python's ``re``, matched case-insensitively by RE2, in time linear in
the text (``anonymizer.recognize.patterns``: a user's pattern never backtracks); every term is a literal matched
case-insensitively as a whole word (not inside a longer word; CJK terms need no word boundary, since CJK text
has no spaces), with any run of whitespace where the term has whitespace. The terms' regex is built here from
escaped literals, so it stays on ``re`` (RE2 has no lookbehind for the whole-word check).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from anonymizer.recognize.patterns import PatternError, compile_pattern

from .rules import CJK, NOT_AFTER_WORD, NOT_BEFORE_WORD


def _is_cjk(char: str) -> bool:
    return re.match(rf"[{CJK}]", char) is not None


def _term_regex(terms: Iterable[str]) -> str | None:
    """One regex for literal terms: a trie of their characters (fast for long lists), case-insensitive
    whole words, whitespace inside a term matching any run of whitespace."""
    trie: dict[Any, Any] = {}
    for term in terms:
        words = term.split()
        if not words:
            continue
        node = trie
        for w, word in enumerate(words):
            if w:
                node = node.setdefault(" ", {})
            for char in word.lower():
                node = node.setdefault(char, {})
        node[""] = True                   # end of a term

    def word_edge(char: str) -> bool:
        return (char.isalnum() or char == "_") and not _is_cjk(char)

    def build(node: dict[Any, Any]) -> str:
        alternatives = []
        for key, child in sorted(((k, v) for k, v in node.items() if k != ""), key=lambda kv: kv[0]):
            piece = r"\s+" if key == " " else re.escape(key)
            alternatives.append(piece + build(child))
        if "" in node:      # shorter alternative last: the regex prefers the longest term
            alternatives.append("")
        if len(alternatives) == 1:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")"

    if not trie:
        return None
    starts = []
    for key, child in sorted(trie.items(), key=lambda kv: kv[0]):
        lead = NOT_AFTER_WORD if word_edge(key) else ""
        starts.append(lead + re.escape(key) + build(child))
    # The whole-word check once after the trie, not at each of its ends (20,000 copies of the CJK class made
    # the pattern 1.2 MB and its compilation 80 s): a term ending in a word character must not be followed by
    # one; the engine backtracks into the trie for a shorter term when it is.
    return "(?:" + "|".join(starts) + ")" + _END_OF_TERM


#: After a literal term: either its last character is a (non-CJK) word character not followed by another,
#: or its last character is not one.
_END_OF_TERM = rf"(?:(?<=[^\W{CJK}]){NOT_BEFORE_WORD}|(?<![^\W{CJK}]))"


@dataclass(frozen=True)
class _CompiledCustom:
    label: str
    patterns: tuple[str, ...]
    terms: tuple[str, ...]
    regexes: tuple[Any, ...]  # RE2 regexes of the patterns, then re's of the terms: each has finditer

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        for regex in self.regexes:
            for match in regex.finditer(text):
                start, end = match.span()
                if end > start and text[start:end].strip():
                    yield start, end


def _as_strings(value: Any, what: str, label: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = (value,)
    items = tuple(value)
    if not all(isinstance(v, str) for v in items):
        raise TypeError(f"custom entity {label!r}: {what} must be strings")
    return items


def compile_custom(entity: Any) -> _CompiledCustom:
    label = getattr(entity, "label", None)
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"custom entity needs a non-empty label, got {label!r}")
    patterns = _as_strings(getattr(entity, "patterns", ()), "patterns", label)
    terms = _as_strings(getattr(entity, "terms", ()), "terms", label)
    regexes = []
    for pattern in patterns:
        try:
            regexes.append(compile_pattern(pattern))
        except PatternError as exc:
            raise ValueError(f"custom entity {label!r}: invalid regex {pattern!r}: {exc}") from exc
    term_pattern = _term_regex(terms)
    if term_pattern is not None:
        regexes.append(re.compile(term_pattern, re.IGNORECASE))
    return _CompiledCustom(label, patterns, terms, tuple(regexes))
