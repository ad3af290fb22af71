"""Which tokens of a parsed post express a time: spaCy's DATE/TIME entities plus a lexicon and clock/date shapes.

spaCy's entities alone cover 58% of the gold time tokens of the SynTime tweets (776 of 1,340): they miss
"now", "tonight", "this morning", "every day", "430pm", weekday abbreviations and most SNS spellings. The
lexicon below adds the time words and shapes; modifiers that belong to a time word ("this", "last", "every",
"a few", numbers) are taken in through the parse (det / amod / nummod / quantmod / advmod children).
Works on a spaCy ``Doc`` of the *normalized* text (see :mod:`anonymizer.temporal.normalize`).

Character recall / precision against the gold spans of the 742 training tweets (``bench/bench_temporal.py``):
entities 0.637 / 0.907, lexicon 0.875 / 0.945, both 0.922 / 0.901. dateparser 1.5.0's ``search_dates`` (a
well-kept rule-based recognizer from PyPI, measured by hand, not a dependency) would add 0.019 recall to both
for 0.097 precision, at 443 posts/s on its own — it would halve the throughput — so it is not used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["KINDS", "KIND_LABELS", "TIME_LABELS", "TimeTagger", "is_link", "kind_of"]

TIME_LABELS = frozenset({"DATE", "TIME"})

# Words that are a time by themselves (lower case).
TIME_WORDS = frozenset("""
now today tonight tomorrow yesterday tmr tdy tmrw morning mornings afternoon afternoons evening evenings night nights
noon midnight dawn dusk sunrise sunset weekend weekends weekday weekdays day days week weeks month months year years
hour hours minute minutes second seconds decade decades century fortnight daily nightly
weekly monthly yearly annually hourly currently recently lately soon later earlier tomorrows overnight
christmas xmas halloween easter thanksgiving valentine valentines newyear nye ramadan diwali hanukkah
spring summer autumn fall winter semester season
""".split())
# Weekdays and months: full names always; abbreviations when written with a capital ("Sat", not "sat down").
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset("january february march april june july august september october november december".split())
MONTH_ABBREVIATIONS = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
ABBREVIATIONS = frozenset("mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct "
                          "nov dec".split())
# Shapes: clock times ("9am", "4:30 pm", "430pm", "21:00"), dates ("27.03.15", "14/12", "2014-10-14"), years.
CLOCK = re.compile(r"(?i)^(?:\d{1,2}(?::\d{2})?(?:am|pm|a\.m\.|p\.m\.)|\d{3,4}(?:am|pm)|\d{1,2}:\d{2}(?::\d{2})?)$")
MERIDIEM = re.compile(r"(?i)^(?:am|pm|a\.m\.|p\.m\.|o'clock|oclock)$")
DATE_SHAPE = re.compile(r"^(?:\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}/\d{1,2})$")
# A number glued to a unit: "24hours", "7months", "20mins", "2wks".
GLUED_DURATION = re.compile(r"(?i)^\d+(?:hours?|hrs?|h|mins?|minutes?|days?|weeks?|wks?|months?|years?|yrs?)$")
YEAR = re.compile(r"^(?:19|20)\d{2}s?$|^'\d{2}s?$")
ORDINAL_DAY = re.compile(r"(?i)^(?:[12]?\d|3[01])(?:st|nd|rd|th)$")
# Children of a time word that belong to its phrase: "this morning", "every day", "a few hours", "two weeks".
MODIFIER_DEPS = frozenset({"det", "amod", "nummod", "quantmod", "advmod", "predet", "compound", "npadvmod", "poss"})
MODIFIER_WORDS = frozenset("this last next every each the a an one few couple several some all early late past "
                           "coming following previous entire whole other same that these those".split())


def is_link(token: Any) -> bool:
    """URLs, @mentions and #hashtags: the parser attaches them anywhere; they never describe a time."""
    return bool(token.like_url) or token.text[:1] in "@#"


ORDINAL_TIME_WORDS = frozenset({"second"})
HOLIDAYS = frozenset("christmas xmas halloween easter thanksgiving valentine valentines newyear".split())
_NOT_ALONE = frozenset("past the few several".split())
UNIT_ABBREVIATIONS = frozenset("min mins sec secs hr hrs wk wks yr yrs".split())
_DATE_CONTEXT = frozenset("on this next last every by till until since from before after".split())


DAY_NUMBER = re.compile(r"^(?:0?[1-9]|[12]\d|3[01])$")


def _next_to_month(token: Any) -> bool:
    """A day number right before or after a month name ("26 April", "May 5", "3 - 5 October")."""
    doc = token.doc
    for j in (token.i - 1, token.i + 1):
        # Full month names only: "Jun", "Sat" are also names ("Jia Jun 2)").
        if 0 <= j < len(doc) and (doc[j].lower_ in MONTHS or doc[j].text == "May"):
            return True
    # The first day of a range before a month: "3 - 5 October".
    return token.i + 3 < len(doc) and doc[token.i + 1].text in ("-", "–", "to") and \
        DAY_NUMBER.match(doc[token.i + 2].text) is not None and doc[token.i + 3].lower_ in MONTHS


def _near_date(token: Any) -> bool:
    doc = token.doc
    for j in (token.i - 2, token.i - 1, token.i + 1, token.i + 2):
        if 0 <= j < len(doc):
            other = doc[j]
            if other.like_num or other.lower_ in MONTHS or other.lower_ in WEEKDAYS or ORDINAL_DAY.match(other.text):
                return True
            if other.lower_ in TIME_WORDS and other.lower_ not in ("may",):
                return True
    return token.i > 0 and doc[token.i - 1].lower_ in _DATE_CONTEXT


#: The granularity of a time word, for keeping coarse expressions ("in the morning") while cutting precise ones.
#: The granularities of time words, with what each covers (the option to keep some of them).
KIND_LABELS = {"clock": "clock times (9AM)", "part_of_day": "parts of the day (in the morning)",
               "day": "days and dates (on Monday)", "period": "weeks, months, seasons",
               "duration": "durations (for 2 hours)", "now": "now, soon, later"}
KINDS = tuple(KIND_LABELS)
PART_OF_DAY = frozenset("morning mornings afternoon afternoons evening evenings night nights noon midnight dawn dusk "
                        "sunrise sunset overnight nightly".split())
PRESENT = frozenset("now currently recently lately soon later earlier right".split())
PERIOD = frozenset("week weeks weekend weekends month months year years decade decades century fortnight spring "
                   "summer autumn fall winter semester season weekly monthly yearly annually".split())
DURATION_WORDS = frozenset("hour hours minute minutes second seconds hourly".split())


def kind_of(token: Any) -> str | None:
    """The granularity of a time token (None for the words around it: determiners, numbers, modifiers)."""
    lower, text = token.lower_, token.text
    if CLOCK.match(text) or MERIDIEM.match(text):
        return "clock"
    if lower in PART_OF_DAY:
        return "part_of_day"
    if lower in PRESENT:
        return "now"
    if GLUED_DURATION.match(text) or lower in DURATION_WORDS or lower in UNIT_ABBREVIATIONS:
        return "duration"
    if lower in PERIOD or (YEAR.match(text) is not None):
        return "period" if lower in PERIOD else "day"
    if lower in TIME_WORDS or lower in WEEKDAYS or lower in MONTHS or lower in ABBREVIATIONS or lower == "may" \
            or DATE_SHAPE.match(text) or ORDINAL_DAY.match(text):
        return "day"
    return None


class TimeTagger:
    """Marks the tokens of a parsed Doc that express a time. ``use_entities`` / ``use_lexicon`` switch the two
    sources (to measure what each contributes)."""

    def __init__(self, *, use_entities: bool = True, use_lexicon: bool = True) -> None:
        self.use_entities = use_entities
        self.use_lexicon = use_lexicon

    def _lexical(self, token: Any) -> bool:
        lower = token.lower_
        if lower in ORDINAL_TIME_WORDS:  # "a second account", "the second time": an ordinal, not a duration
            return token.pos_ == "NOUN" and token.i > 0 and token.nbor(-1).like_num
        if lower in HOLIDAYS and token.dep_ == "compound" and token.head.lower_ not in TIME_WORDS:
            return False  # "a Christmas tree" is a thing
        if lower in TIME_WORDS or lower in WEEKDAYS or lower in MONTHS:
            return True
        if lower.endswith(".") and lower[:-1] in MONTH_ABBREVIATIONS:  # "Aug."
            lower = lower[:-1]
        if lower in ABBREVIATIONS or lower == "may":
            # "Sat", "Jun", "May" are also names and words ("Sun Yanzi", "Jia Jun", "May Allah"): only next to a
            # number, another date word or a preposition/determiner of time, and not after a name.
            after_name = token.i > 0 and token.nbor(-1).pos_ == "PROPN" and token.nbor(-1).lower_ not in TIME_WORDS
            month_in = lower in MONTH_ABBREVIATIONS and token.i > 0 and token.nbor(-1).lower_ in ("in", "and", ",")
            return token.text[:1].isupper() and token.tag_ != "MD" and (_near_date(token) or month_in) \
                and not after_name
        if lower in UNIT_ABBREVIATIONS:
            return token.i > 0 and token.nbor(-1).like_num
        text = token.text
        if DAY_NUMBER.match(text) and _next_to_month(token):  # "26 April 2014", "May 5"
            return True
        if token.i > 0 and token.nbor(-1).text in ("#", ":"):  # "#1:18" is a scale, not a time
            return False
        if CLOCK.match(text) or DATE_SHAPE.match(text) or YEAR.match(text) or GLUED_DURATION.match(text):
            return True
        if ORDINAL_DAY.match(text):  # "14th" next to a month
            neighbours = [token.doc[j] for j in (token.i - 1, token.i + 1, token.i + 2) if 0 <= j < len(token.doc)]
            return any(t.lower_ in MONTHS or t.lower_ in ABBREVIATIONS for t in neighbours)
        if MERIDIEM.match(text) and token.i and token.nbor(-1).like_num:
            return True
        return token.like_num and token.i + 1 < len(token.doc) and MERIDIEM.match(token.nbor(1).text) is not None

    def tag(self, doc: Any) -> list[bool]:
        """For each token, whether it is part of a time expression."""
        marked = [False] * len(doc)
        if self.use_entities:
            for ent in doc.ents:
                # A bare number is a time only when it looks like a year ("T 1150", "past three" are not).
                if ent.label_ in TIME_LABELS and not all((t.like_num and not YEAR.match(t.text)) or t.lower_ in
                                                         _NOT_ALONE for t in ent):
                    for i in range(ent.start, ent.end):
                        marked[i] = True
        if self.use_lexicon:
            for token in doc:
                if not marked[token.i] and self._lexical(token):
                    marked[token.i] = True
            # Modifiers of a time word belong to the phrase ("this morning", "every day", "a few hours").
            for token in doc:
                if marked[token.i]:
                    for child in token.children:
                        if child.dep_ in MODIFIER_DEPS and (child.lower_ in MODIFIER_WORDS or child.like_num):
                            marked[child.i] = True
        return marked

    def spans(self, doc: Any) -> list[tuple[int, int]]:
        """Runs of marked tokens as (start, end) token indices."""
        return _runs(self.tag(doc))


def _runs(flags: Iterable[bool]) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i))
            start = None
    return runs
