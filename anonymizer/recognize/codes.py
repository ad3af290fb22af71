"""CODE: numbers that identify, whatever the statistical NER calls them (issue 44).

spaCy calls "no. 36110/97" CARDINAL or DATE, so a configuration without CARDINAL (rx-anon's blog one) left
every application number of the TAB judgments readable. They are direct identifiers: the recognizer finds them
in every configuration (``entities.ALWAYS_TYPES``). Only the number is the term ("no." stays): TAB and a reader
both take "application no. CODE" as anonymized.

What is a CODE (``code_spans``):

* after a cue, a token with a digit: ``no.`` / ``nos.`` / ``nr.`` / ``number`` (``application no. 12345/03``,
  ``registration no. D-4840``, ``case no. 1996/302``), or a naming noun (case, file, account, licence/license,
  passport, reference/ref, id, application, registration, serial, docket, policy, membership, customer, order,
  invoice, ticket, plot) followed by ``:`` / ``#`` or directly by a code that has a separator or a letter or at
  least 5 digits (``passport X1234567``, ``ref: 88-123``). After a bare ``no.`` at least 3 characters
  (``no. 1`` is a rank: "the no. 1 song", "Protocol No. 1"), after a bare ``number`` at least 4 ("number 10").
  After a plural cue (``nos.``, ``numbers``, ``applications``, ``plots``) the list goes on: ``nos. 1/02 and
  3/04``, ``nos. 260, 268, 45, 119/5 and 425``;
* without a cue, shapes that are nothing else: an application / file number ``NNNN/YY`` or ``NNNN/YYYY`` (4+
  digits before the slash and no year: "120/80" is a blood pressure, "24/7" and "3/4" are not ids, "2003/04" is
  a fiscal year), other runs of digit groups joined by ``/`` with 6 digits or more, one group of 4 or more, that
  are no date (``12/05/2004`` stays a date), and a plain run of 6 or more digits that is no amount ("$1000000",
  "250000 euros", a round 1000000), no decimal, no colour ("#666666") and not one group of a longer run.

Not CODE: years, prices, dates, scores, phone numbers (the PHONE rule keeps a phone-shaped run: the cue-less
shapes here exclude ``-`` and space separators, and PHONE wins a tie), versions ("1.2.3").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_DIGIT_TOKEN = r"[A-Za-z]{0,4}[-]?\d[\dA-Za-z]*(?:[/.:-][\dA-Za-z]+)*"
# A code token: letters and digits with inner / . : - ; at least one digit. Not glued to a word or a "+".
_TOKEN = rf"(?<![\w+/.-])(?:{_DIGIT_TOKEN})(?![\w/-])(?![.,:]\d)"

_NUMBER_CUE = r"(?:nos?\.|Nos?\.|NOS?\.|nr\.?|Nr\.?|NR\.?|numbers?|Numbers?|NUMBERS?|#)"
_NOUNS = ("applications?|cases?|files?|accounts?|acct\\.?|licen[cs]es?|passports?|references?|ref\\.?|ids?|"
          "registrations?|serial|docket|polic(?:y|ies)|membership|customer|orders?|invoices?|tickets?|plots?|"
          "complaints?|claims?|permits?")
_NOUN_CUE = rf"(?i:\b(?:{_NOUNS}))"
_PLURAL = re.compile(r"(?i)(?:nos\.|numbers|applications|cases|files|accounts|plots|licen[cs]es|passports|"
                     r"references|registrations|policies|orders|invoices|tickets|complaints|claims|permits)")
#: "Protocol No. 1", "Law no. 2559", "Series A no. 268-A": a numbered instrument or publication, not a person's.
_NOT_BEFORE_NUMBER = re.compile(r"(?i)(?:protocol|article|rule|section|paragraph|chapter|annex|pages?|p\.|pp\.|law|"
                                r"decree|act|regulation|directive|resolution|recommendation|vol\.|volume|"
                                r"series(?: [a-z])?)\s*$")
_CUED = re.compile(
    rf"(?:(?P<noun>{_NOUN_CUE})\s*(?P<noun_sep>[:#]\s*)?(?:(?P<after_noun>{_NUMBER_CUE})\s*[:#]?\s*)?"
    rf"|(?<![\w.])(?P<number>{_NUMBER_CUE})\s*[:#]?\s*)"
    rf"(?P<code>{_TOKEN})"
)
_LIST_NEXT = re.compile(rf"(?P<sep>,\s*|\s+and\s+|\s*&\s*|,\s+and\s+)(?P<code>{_TOKEN})")

_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_SLASHED = re.compile(r"(?<![\w+/.,-])\d+(?:/\d+)+(?![\w/-])(?![.,]\d)")
# not one group of a run of digit groups ("030 1234567" is PHONE's, "1 234 567" a number)
_DIGIT_RUN = re.compile(r"(?<![\w+/.,#-])(?<!\d[ \u00a0])\d{6,}(?![\w/-])(?![.,]\d)(?![ \u00a0]\d)")
_CURRENCY_BEFORE = re.compile(r"(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|TRY|RUB|PLN|SEK|NOK|DKK|JPY|Rs\.?))\s*$")
_AMOUNT_AFTER = re.compile(r"\s*(?:[$€£¥₹]|(?i:dollars?|euros?|pounds?|francs?|lira|liras|roubles?|rubles?|"
                           r"zlotys?|kroner|kronor|krona|yen|rupees?|usd|eur|gbp|chf|try|rub|pln|sek|nok|dkk|"
                           r"people|persons|inhabitants|km|kilometres|kilometers|miles|metres|meters|tonnes|tons|"
                           r"words|copies|views|hits|visitors)\b)")


def _digits(token: str) -> int:
    return sum(c.isdigit() for c in token)


def _is_date(groups: list[str]) -> bool:
    if len(groups) == 3:
        a, b, c = groups
        if len(a) == 4 and len(b) <= 2 and len(c) <= 2:
            return 1 <= int(b) <= 12 and 1 <= int(c) <= 31
        if len(a) <= 2 and len(b) <= 2 and len(c) in (2, 4):
            x, y = int(a), int(b)
            return 1 <= x <= 31 and 1 <= y <= 31 and (x <= 12 or y <= 12)
    if len(groups) == 2:    # "05/2004", "12/05": month/year, day/month
        a, b = groups
        return (len(a) <= 2 and 1 <= int(a) <= 12 and (len(b) == 4 or len(b) <= 2)) or \
            (len(a) <= 2 and len(b) <= 2)
    return False


def _is_compact_date(digits: str) -> bool:
    """20040512: a date written without separators."""
    return len(digits) == 8 and bool(_YEAR.fullmatch(digits[:4])) and 1 <= int(digits[4:6]) <= 12 and \
        1 <= int(digits[6:]) <= 31


def _is_amount(text: str, start: int, end: int) -> bool:
    digits = text[start:end]
    return bool(_CURRENCY_BEFORE.search(text, max(0, start - 6), start)) or bool(
        _AMOUNT_AFTER.match(text, end)) or (len(digits) >= 6 and digits.rstrip("0") != digits and
                                            len(digits) - len(digits.rstrip("0")) >= 3)


def _cued_code_ok(match: re.Match[str], text: str) -> bool:
    code = match.group("code")
    if _YEAR.fullmatch(code) or not any(c.isdigit() for c in code):
        return False
    groups = re.findall(r"\d+", code)
    if "/" in code and all(g.isdigit() for g in code.split("/")) and _is_date(code.split("/")) and \
            not match.group("number") and not match.group("after_noun"):
        return False
    if match.group("number") or match.group("after_noun"):
        cue = match.group("number") or match.group("after_noun")
        if match.group("number") and _NOT_BEFORE_NUMBER.search(text, max(0, match.start() - 20), match.start()):
            return False
        if cue == "#" and not match.group("noun"):
            return False
        minimum = 4 if cue.lower().startswith("number") and not match.group("noun") else 3
        return len(code) >= minimum or bool(match.group("noun"))
    if match.group("noun_sep"):     # "ID: 4455", "ref# 123": the colon or hash says a code follows
        return len(code) >= 3
    # a naming noun alone ("case 1996/302", "passport X1234567"): the code must look like one
    # plain digits need 5: "id 5000 times" is chat for "I'd", "case 1234" rare
    strong = bool(re.search(r"[/.:-]", code)) or (any(c.isalpha() for c in code) and _digits(code) >= 3) or \
        sum(len(g) for g in groups) >= 5
    return strong and not _is_amount(text, match.start("code"), match.end("code"))


def _cued_spans(text: str) -> Iterator[tuple[int, int]]:
    for match in _CUED.finditer(text):
        if not _cued_code_ok(match, text):
            continue
        yield match.span("code")
        cue = match.group("after_noun") or match.group("number") or ""
        if not (_PLURAL.fullmatch(cue) or (match.group("noun") and _PLURAL.fullmatch(match.group("noun")))):
            continue
        position = match.end("code")
        while (following := _LIST_NEXT.match(text, position)) is not None:
            code = following.group("code")
            if _YEAR.fullmatch(code) and "/" not in code:
                break
            yield following.span("code")
            position = following.end("code")
            if "and" in following.group("sep") or "&" in following.group("sep"):
                break


def _shape_spans(text: str) -> Iterator[tuple[int, int]]:
    for match in _SLASHED.finditer(text):
        groups = match.group().split("/")
        if _is_date(groups):
            continue
        if len(groups) == 2:
            first, second = groups
            if _YEAR.fullmatch(first):      # "fiscal 2003/04", "in 1979/80": a span of years
                continue
            if len(first) >= 4 and (len(second) == 2 or (len(second) == 4 and _YEAR.fullmatch(second))):
                yield match.span()
        elif sum(len(g) for g in groups) >= 6 and max(len(g) for g in groups) >= 4:   # not "303/808/909"
            yield match.span()
    for match in _DIGIT_RUN.finditer(text):
        if _is_compact_date(match.group()) or _is_amount(text, *match.span()):
            continue
        yield match.span()


def code_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each identifying number in ``text``; spans may repeat or overlap (the recognizer keeps
    the longest of overlapping precise spans)."""
    if not any(c.isdigit() for c in text):
        return
    yield from _cued_spans(text)
    yield from _shape_spans(text)


#: The patterns whose sources go into the recognizer's fingerprint.
CODE_PATTERNS = (_CUED, _LIST_NEXT, _SLASHED, _DIGIT_RUN)
