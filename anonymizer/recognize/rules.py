"""Precise rule-based recognizers of MAIL, URL, PHONE and POSTCODE terms (rx-anon, §4), not tied to one country;
CODE (identifying numbers) is in `codes`.

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
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .codes import CODE_PATTERNS, code_spans

#: Bump when the behaviour of a rule changes in code (pattern sources are fingerprinted automatically).
RULES_VERSION = "3"  # 2: CODE (identifying numbers, codes.py); 3: a naming noun alone needs 5 digits


# CJK characters (Han, kana, Hangul, CJK punctuation, full-width/half-width forms except the full-width
# digits): Japanese / Chinese text has no spaces, so mail addresses and URLs stop at them and custom terms
# need no word boundary next to them.
CJK = (
    "\u1100-\u11ff\u2e80-\u2fff\u3000-\u9fff\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uff0f\uff1a-\uffef\U00020000-\U0003ffff"
)
# Combining marks: not \w for Python, but part of a word in decomposed text ("Jose\u0301").
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_W = rf"(?:[^\W{CJK}]|[{_MARKS}])"          # a word character that is not CJK
NOT_AFTER_WORD = rf"(?<![^\W{CJK}])(?<![{_MARKS}])"    # not preceded by a (non-CJK) word character
NOT_BEFORE_WORD = rf"(?![^\W{CJK}]|[{_MARKS}])"        # not followed by one

_LABEL = rf"{_W}+(?:-+{_W}+)*"                           # a host name label
_TLD = rf"(?:[^\W\d_{CJK}]{{2,63}}|(?i:xn--[a-z0-9-]+))"  # letters only, or punycode

MAIL_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}(?<![.+%'&=~-])"
    rf"{_W}(?:{_W}|[.+%'&=~-])*"
    rf"@{_LABEL}(?:\.{_LABEL})*\.{_TLD}"
    rf"{NOT_BEFORE_WORD}(?!-)"
)

_URL_CHAR = rf"[^\s<>\"`{CJK}]"
URL_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}"
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
    rf"{NOT_AFTER_WORD}(?<![+\d])(?<!\d[.,:/\-])"
    rf"(?P<run>(?>\+?{_PHONE_GROUP}(?:{_PHONE_SEP}{_PHONE_GROUP})*))"
    rf"{NOT_BEFORE_WORD}(?![.,:]\d)"
)
_PHONE_GROUP_RE = re.compile(r"\(\d+\)|\d+")

POSTCODE_UK_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}(?<!-)"
    r"(?:[A-PR-UWYZ](?:[A-HK-Y]\d[ABEHMNPRV-Y\d]?|\d[A-HJKPSTUW\d]?)|GIR) ?\d[ABD-HJLNP-UW-Z]{2}"
    rf"{NOT_BEFORE_WORD}"
)
POSTCODE_CA_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}(?<!-)"
    r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]?\d[ABCEGHJ-NPRSTV-Z]\d"
    rf"{NOT_BEFORE_WORD}"
)
# Letter pairs never used (SA, SD, SS) or that are abbreviations after a number in running text.
_NL_EXCLUDED_LETTERS = (
    "SA SD SS AD BC CE AM PM US UK EU UN MB KB GB TB HP PS PC TV CD DJ HD HZ OK ID KM CM MM KG LB OZ FT MP "
    "ST ND RD TH"
).split()
POSTCODE_NL_PATTERN = re.compile(      # "1012 AB Amsterdam": a town must follow ("Compaq 2568 CL (I believe)")
    rf"{NOT_AFTER_WORD}(?<![-.,])"
    r"(?!(?:19|20)[0-9]{2})"                # "1974 VW Thing", "1999 PT Anderson": years, not Haarlem's 20xx
    rf"[1-9][0-9]{{3}} ?(?!(?:{'|'.join(_NL_EXCLUDED_LETTERS)})\b)[A-Z]{{2}}"
    r"(?=,? +(?:'s-)?[A-Z\u00c0-\u00de][a-z\u00df-\u00ff])"
)
POSTCODE_JP_PATTERN = re.compile(r"〒[ \u3000]?(?P<term>\d{3}[-－‐]?\d{4})(?!\d)")
POSTCODE_ZIP4_PATTERN = re.compile(rf"{NOT_AFTER_WORD}(?<![-.,])[0-9]{{5}}-[0-9]{{4}}(?![\w-])(?![.,]\d)")
_KEYWORD_SEP = r"(?:[ \t]*[:#][ \t]*|[ \t]+)"     # required after a Latin keyword: "CP5700" is a camera
_KEYWORD_END = r"(?![\w-])(?![.,]\d)"
POSTCODE_KEYWORD_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}"
    r"(?:"
    r"(?:(?i:zip(?:[ -]?code)?|post(?:al)?[ -]?code|postleitzahl|code postal|c[oó]digo postal|codice postale)"
    rf"|PLZ){_KEYWORD_SEP}"
    r"|(?:郵便番号|우편번호|邮编|邮政编码)[ \t\u3000]*[:：#]?[ \t\u3000]*"
    r")"
    rf"(?P<term>\d{{5}}-\d{{4}}|\d{{5}}-\d{{3}}|\d{{3}}-\d{{4}}|\d{{4,6}}){_KEYWORD_END}"
)
# The short upper-case keywords are also model names ("Nikon CP 4500"): only with their country's 5 digits.
POSTCODE_KEYWORD5_PATTERN = re.compile(
    rf"{NOT_AFTER_WORD}(?:C\.P\.|CP|CAP|CEP){_KEYWORD_SEP}(?P<term>\d{{5}}(?:-\d{{3}})?){_KEYWORD_END}"
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
    _Rule("CODE", code_spans, CODE_PATTERNS),     # last: a phone-shaped number stays PHONE
)
