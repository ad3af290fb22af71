"""Users' own regular expressions (the patterns of custom entities), matched with RE2 in time linear in the text.

Python's ``re`` backtracks: a pattern such as ``(a+)+$`` takes time exponential in the text it is tried on (a
cell of 40 "a" and a "!" held a worker for good). RE2 never backtracks, so every pattern a configuration may
hold runs in time linear in the text; what RE2 cannot run in linear time (backreferences, lookahead and
lookbehind, atomic groups, possessive quantifiers, conditionals) it refuses, and :func:`compile_pattern` says
so with what to write instead, for the configuration's validation to report by field before a job is queued.

Patterns are written as for Python's ``re`` and matched case-insensitively, as rx-anon matched its custom
patterns. Where the two engines spell the same thing differently the pattern is translated: ``\\d``, ``\\w``
and ``\\s`` (and ``\\D``, ``\\W``, ``\\S`` outside a character class) keep Python's Unicode meaning (RE2's are
ASCII only), ``\\Z`` is RE2's ``\\z``, ``{,n}`` is ``{0,n}``, and ``\\uXXXX``, ``\\UXXXXXXXX`` and
``\\N{NAME}`` are code points. Two differences remain: ``\\b`` and ``\\B`` are ASCII word boundaries, and
``\\W`` / ``\\S`` inside a character class are RE2's ASCII ones.

The app's own fixed patterns (the rules, the term lists it builds from escaped literals) stay on ``re``.
"""

from __future__ import annotations

import re
import reprlib
import unicodedata
from typing import Any

import re2

__all__ = ["MAX_PATTERN_CHARS", "PATTERN_ENGINE", "PatternError", "compile_pattern", "to_re2"]

#: Part of the recognizer's fingerprint: cached recognitions made by another engine are not reused.
PATTERN_ENGINE = "re2-1"
#: Longest pattern accepted; a custom entity needing more is better written as a list of terms.
MAX_PATTERN_CHARS = 1000
#: Memory RE2 may use for one compiled pattern (its default); a pattern needing more is refused.
MAX_PATTERN_MEMORY = 8 << 20

# Python's Unicode classes, in RE2 syntax (the inside of a character class).
_WORD = r"\p{L}\p{N}_"
_DIGIT = r"\p{Nd}"
_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_CLASS_INSIDE = {"w": _WORD, "d": _DIGIT, "s": _SPACE}
_OPEN_QUANTIFIER = re.compile(r"\{,(\d+)\}")
_HEX = re.compile(r"[0-9A-Fa-f]+")


_SHORT = reprlib.Repr()  # a value that is no pattern, shown briefly however deeply it nests
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 80, 80


class PatternError(ValueError):
    """A pattern RE2 cannot run; the message says why and what to write instead."""


def _code_point(value: int) -> str:
    return rf"\x{{{value:x}}}"


def to_re2(pattern: str) -> str:
    """``pattern`` (Python ``re`` syntax) in RE2 syntax with the same meaning where RE2 can express it; what RE2
    cannot run is left as written, for RE2 to refuse."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            escape = pattern[i + 1]
            i += 2
            if escape in _CLASS_INSIDE:
                inside = _CLASS_INSIDE[escape]
                out.append(inside if in_class else f"[{inside}]")
            elif escape in "WDS" and not in_class:
                out.append(f"[^{_CLASS_INSIDE[escape.lower()]}]")
            elif escape == "D" and in_class:
                out.append(r"\P{Nd}")
            elif escape == "Z" and not in_class:
                out.append(r"\z")
            elif escape in "uU":
                width = 4 if escape == "u" else 8
                digits = pattern[i:i + width]
                if len(digits) == width and _HEX.fullmatch(digits):
                    out.append(_code_point(int(digits, 16)))
                    i += width
                else:
                    out.append("\\" + escape)
            elif escape == "N" and pattern.startswith("{", i) and "}" in pattern[i:]:
                end = pattern.index("}", i)
                try:
                    out.append(_code_point(ord(unicodedata.lookup(pattern[i + 1:end]))))
                    i = end + 1
                except KeyError:
                    out.append(r"\N")
            else:
                out.append("\\" + escape)
            continue
        if in_class:
            if char == "]":
                in_class = False
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            out.append(char)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):  # a ] first in a class is the character itself
                out.append("]")
                i += 1
            continue
        if char == "{":
            found = _OPEN_QUANTIFIER.match(pattern, i)
            if found:
                out.append(f"{{0,{found[1]}}}")
                i = found.end()
                continue
        out.append(char)
        i += 1
    return "".join(out)


# What RE2 said, recognised, and what to write instead.
_UNSUPPORTED = (
    (re.compile(r"invalid escape sequence: \\[1-9]"),
     "uses a backreference (\\1 … \\9), which no linear-time engine can run",
     "match the repeated text itself, e.g. (ab)(ab) instead of (ab)\\1, or list the alternatives"),
    (re.compile(r"invalid perl operator: \(\?P(?:=|>)?$"),
     "uses a named backreference ((?P=name)), which no linear-time engine can run",
     "match the repeated text itself, or list the alternatives"),
    (re.compile(r"invalid perl operator: \(\?(?:=|!)"),
     "uses a lookahead ((?=…) or (?!…)), which the linear-time engine does not support",
     "match the following text as part of the pattern, or end the pattern with \\b for a word boundary"),
    (re.compile(r"invalid perl operator: \(\?<(?:=|!)"),
     "uses a lookbehind ((?<=…) or (?<!…)), which the linear-time engine does not support",
     "match the preceding text as part of the pattern, or start the pattern with \\b for a word boundary"),
    (re.compile(r"invalid perl operator: \(\?>"),
     "uses an atomic group ((?>…)), which the linear-time engine does not support",
     "write a plain group (?:…): without backtracking it is not needed"),
    (re.compile(r"bad repetition operator: [*+?}]\+"),
     "uses a possessive quantifier (*+, ++, ?+), which the linear-time engine does not support",
     "write the plain quantifier (*, +, ?): without backtracking it is not needed"),
    (re.compile(r"invalid perl operator: \(\?\("),
     "uses a conditional ((?(1)…|…)), which the linear-time engine does not support",
     "write the alternatives out with |"),
    (re.compile(r"invalid perl operator: \(\?#"),
     "has a comment ((?#…)), which the linear-time engine does not support",
     "remove the comment"),
    (re.compile(r"invalid perl operator: \(\?[a-zA-Z-]*[^imsU\-:)]"),
     "uses an inline flag the linear-time engine does not support (only i, m and s are)",
     "remove the flag: patterns are matched case-insensitively already; (?x) whitespace must be removed"),
    (re.compile(r"invalid repetition size"),
     "repeats more than 1,000 times (counting nested repetitions)",
     "use a smaller count, or + / * instead of {n,m}"),
    (re.compile(r"pattern too large"),
     "is too large for the linear-time engine",
     "use smaller repetition counts, fewer alternatives, or a list of terms instead"),
    (re.compile(r"invalid escape sequence: \\[AGz]|invalid escape sequence"),
     "uses an escape the linear-time engine does not know",
     "escape only punctuation; \\A, \\z (\\Z), \\b, \\d, \\w, \\s and \\p{…} are supported"),
)


def _explain(message: str) -> str:
    for recognised, why, instead in _UNSUPPORTED:
        if recognised.search(message):
            return f"{why} ({message}); {instead}"
    return f"is not a valid regular expression ({message})"


def _options() -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False  # rx-anon matched its custom patterns ignoring case
    options.log_errors = False  # a refused pattern is the user's mistake, reported to them, not to stderr
    options.max_mem = MAX_PATTERN_MEMORY
    return options


def compile_pattern(pattern: Any) -> Any:
    """A compiled RE2 regex for a user's ``pattern`` (Python ``re`` syntax, matched case-insensitively); its
    ``finditer`` / ``search`` / ``fullmatch`` work as ``re``'s with ``str`` offsets. Raises PatternError with
    what is wrong and what to write instead."""
    if not isinstance(pattern, str):
        huge = isinstance(pattern, int) and pattern.bit_length() > 128  # its repr would be refused
        shown = type(pattern).__name__ if huge else _SHORT.repr(pattern)
        raise PatternError(f"{shown} is not a regular expression string")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern is {len(pattern):,} characters long, more than the limit of "
                           f"{MAX_PATTERN_CHARS:,}; list literal words as terms instead")
    try:
        return re2.compile(to_re2(pattern), _options())
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "invalid"
        detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise PatternError(f"{pattern!r} {_explain(detail)}") from None
