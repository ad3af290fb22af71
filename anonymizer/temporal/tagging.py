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
from functools import cache
from typing import Any

from anonymizer.recognize.time_words import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    ORDINAL_MODIFIERS,
    PARTS_AFTER_A_DAY,
    PERSON_MONTHS,
    SPEECH_VERBS,
    TIME_WORDS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from anonymizer.temporal.normalize import EMOJI_ONLY

__all__ = ["DEFAULT_KEEP_KINDS", "EVALUATIVE_WORDS", "KINDS", "KIND_LABELS", "MAKE_FORMS", "MONTHS", "TIME_LABELS",
           "TimeTagger", "hashtag_word", "holiday_phrases", "is_link", "kind_of", "runs"]

TIME_LABELS = frozenset({"DATE", "TIME"})

# Words that are a time by themselves (lower case).
ABBREVIATIONS = frozenset("mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct "
                          "nov dec".split())
# Shapes: clock times ("9am", "4:30 pm", "430pm", "21:00"), dates ("27.03.15", "14/12", "2014-10-14"), years.
CLOCK = re.compile(r"(?i)^(?:\d{1,2}(?:[:.]\d{2})?\+?(?:am|pm|a\.m\.|p\.m\.|ish)|\d{3,4}(?:am|pm)"
                   r"|\d{1,2}(?::\d{2})?(?:am|pm)?[-–~]\d{1,2}(?::\d{2})?(?:am|pm)"  # a range "11am-2pm"
                   r"|(?:[01]\d|2[0-3])[0-5]\d(?:hrs?|h)|\d{1,2}:\d{2}(?::\d{2})?[+Z]?)$")  # "17:22:17Z": UTC
# A 24-hour clock time without a colon ("at 1435", "till 2359"), only after a word that introduces a time.
MILITARY = re.compile(r"^(?:[01]\d|2[0-3])[0-5]\d$")
_CLOCK_CONTEXT = frozenset("at till until til by from before after around abt about @ ~ to - since".split())
# A number "ish" ("5ish") and the quarters of a year ("Q3").
QUARTER = re.compile(r"^Q[1-4]$")
# "a.m." / "p.m." without its number ("in the a.m!", "Monday p.m."), and "am"/"pm" after "in the".
_AM_PM = r"am|pm|a\.m\.?|p\.m\.?"
AM_PM = re.compile(rf"(?i)^(?:{_AM_PM})$")
MERIDIEM = re.compile(rf"(?i)^(?:{_AM_PM}|o'clock|oclock)$")  # the same, or "o'clock"
# One separator kind (not "5.5/10"); a month and a year ("since 9/2016").
DATE_SHAPE = re.compile(r"^(?:\d{1,4}([./-])\d{1,2}\1\d{1,4}|\d{1,2}/\d{1,2}|(?:0?[1-9]|1[0-2])/(?:19|20)\d\d)$")
# A number glued to a unit: "24hours", "7months", "20mins", "2wks".
GLUED_DURATION = re.compile(r"(?i)^\d+(?:\.\d+)?\+?(?:hours?|hrs?|h|mins?|minutes?|days?|weeks?|wks?|months?|"
                            r"years?|yrs?)$")
YEAR = re.compile(r"^(?:19|20)\d{2}s?$|^'\d{2}s?$")
ORDINAL_DAY = re.compile(r"(?i)^(?:[12]?\d|3[01])(?:st|nd|rd|th)$")
# Children of a time word that belong to its phrase: "this morning", "every day", "a few hours", "two weeks".
MODIFIER_DEPS = frozenset({"det", "amod", "nummod", "quantmod", "advmod", "predet", "compound", "npadvmod", "poss"})
MODIFIER_WORDS = frozenset("this last next every each the a an one few couple several some all early late past "
                           "coming following previous entire whole other same that these those more right "
                           "first second third fourth fifth final mid half".split())
ORDINAL = re.compile(r"(?i)^\d+(?:st|nd|rd|th)$")


FUTURE_PAST = frozenset({"future", "past"})
# Hashtags that name a time ("#tbt": throwback Thursday), besides the time words themselves.
HASHTAG_TIMES = frozenset("tbt fbf tgif throwbackthursday flashbackfriday".split())
HASHTAG_YEAR = re.compile(r"^([a-z]+)((?:19|20)?\d\d)$")  # a time word's year: "#summer2017", "#summer17"
HASHTAG_CLOCK = re.compile(r"^(?:[1-9]|1[0-2])(?:am|pm)[a-z]+$")  # "#5amworkout": a clock time in the tag
# A year in a hashtag is 1950-2039 ("#Team1000", "#Top2000" name no year), glued to words: "#2017polaris" first,
# "#vbs2017", "#SuccessDinnerGetTogether2015", "#F1Singapore2015" last, "#Class2016Reunion" inside (a letter on
# both sides: "#B2B", "#MP4", "#Web3", "#RTX2080Ti" are codes).
_HASHTAG_YEAR = r"(?:19[5-9]\d|20[0-3]\d)"
HASHTAG_YEAR_FIRST = re.compile(rf"^{_HASHTAG_YEAR}[a-z]{{3,}}$")
HASHTAG_YEAR_LAST = re.compile(rf"^([a-z](?:[a-z0-9]*[a-z])?){_HASHTAG_YEAR}$")
HASHTAG_YEAR_INSIDE = re.compile(rf"^([a-z](?:[a-z0-9]*[a-z])?){_HASHTAG_YEAR}[a-z]{{2,}}$")
# An edition or a class by its short year ("#Kscope17", "#EdCon17", "#HailState21", "#BB19"): an event of that year,
# tied to it as "#vbs2017" is (a round-11 reader: "#Kscope17 ... a dated conference hashtag with its year"); not a
# name with a number ("#Catch22", "#TB12", "#Top10").
HASHTAG_SHORT_YEAR_LAST = re.compile(r"^([a-z]{2,})(?:1\d|2\d|3\d)$")
NUMBERED_NAMES = frozenset("catch tb top area goes hyper chapter windows iphone galaxy ps xbox route highway hwy i "
                           "us sr cr apollo star studio room suite gate pier exit covid sars mers team".split())
# A broadcast or a season's event by its name ("#PLLFinale", "#PLLEndGame", "#SeasonPremiere", "#OpeningDay").
HASHTAG_EVENT_WORDS = ("finale", "premiere", "endgame", "openingday", "openingnight")
# A date in a hashtag: "#July4", "#4thofJuly", "#june28th".
HASHTAG_DATE = re.compile(r"^(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\d{1,2}(?:st|nd|rd|th)?"
                          r"|\d{1,2}(?:st|nd|rd|th)?(?:of)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*)$")
DEICTIC_DAYS = frozenset("today tonight tomorrow yesterday now".split())
POSSESSIVE_WORDS = frozenset("my your his her our their ur".split())
SEASONS = frozenset("spring summer autumn fall winter".split())
# Words before "a day", "a year" that make a rate or a frequency ("twice a day", "a billion dollars a year").
RATE_WORDS = frozenset("dollars dollar bucks grand k mil million billion miles times once twice thrice cents "
                       "euros pounds".split())
# Words that judge a time rather than place it ("have a great day", "it's been a long day"): no date.
EVALUATIVE_WORDS = frozenset("good great nice fun bad long new busy lovely beautiful wonderful amazing crazy rough "
                             "tough hard perfect awesome productive lazy fabulous fantastic blessed happy relaxing "
                             "exhausting terrible horrible sad slow chill boring stressful weird dope".split())
# What a day or week of a routine is for ("cheat day", "leg day", "spirit week"): no date.
ROUTINE_WORDS = frozenset("cheat leg legs arm arms chest back shoulder shoulders cardio rest lazy sick snow hair "
                          "laundry spirit shark".split())
# Books of the Bible as verses are cited in posts ("James 5:13", "Ps 5:10"): the number after them is no clock.
SCRIPTURE_BOOKS = frozenset("""genesis gen exodus ex exod leviticus lev numbers num deuteronomy deut joshua josh judges
judg ruth samuel sam kings chronicles chron ezra nehemiah neh esther esth job psalm psalms ps psa proverbs prov
ecclesiastes eccl song isaiah isa jeremiah jer lamentations lam ezekiel ezek daniel dan hosea hos joel amos obadiah
jonah micah mic nahum habakkuk hab zephaniah zeph haggai hag zechariah zech malachi mal matthew matt mt mark mk luke lk
john jn acts romans rom corinthians cor galatians gal ephesians eph philippians phil colossians col thessalonians thess
timothy tim titus philemon hebrews heb james jas peter pet jude revelation rev didache sirach wisdom tobit""".split())
MAKE_FORMS = frozenset("make made makes making".split())
SCHOOL_YEARS = frozenset("senior junior sophomore freshman freshmen".split())
# Season words that are verbs too; as verbs they are not a time.
SEASON_VERBS = frozenset("fall spring".split())
# Units of an age ("a 16 year old", "18 and 19 year olds", "his 12yr old ass"): an age says nothing of when.
AGE_UNITS = frozenset("year years yr yrs month months week weeks day days".split())
GLUED_AGE = re.compile(r"(?i)^\d+(?:years?|yrs?|months?|weeks?|wks?|days?)$")
# Multiword times that are not holidays: "public holiday", "in a bit".
PHRASES = ("black friday", "cyber monday", "small business saturday", "memorial day weekend", "labor day weekend",
           "public holiday", "public holidays", "school holiday", "school holidays", "hari raya",
           "chinese new year", "lunar new year", "new year", "new year's eve", "new year's day", "christmas eve",
           "christmas day", "april fools' day", "april fool's day", "april fools day", "april fools", "mid autumn",
           "mid-autumn festival", "national day", "valentine's day", "eid mubarak")
# Holiday calendars of the `holidays` package read for their English names (countries tweets in English
# come from), with a few spellings tweets use.
HOLIDAY_COUNTRIES = ("SG", "MY", "US", "GB", "AU", "IN", "CA", "PH", "HK", "NZ", "IE", "ID", "ZA", "TH")


@cache
def holiday_phrases() -> dict[str, frozenset[tuple[str, ...]]]:
    """Lower-case token sequences of holiday names, by their first token. Built once, on first use, from the
    `holidays` package (offline: its calendars are code); without the package, from ``PHRASES`` alone."""
    names = set(PHRASES)
    try:
        import holidays
    except ImportError:  # pragma: no cover - the package is pinned in requirements.txt
        holidays = None
    if holidays is not None:
        for country in HOLIDAY_COUNTRIES:
            try:
                languages = [lang for lang in holidays.country_holidays(country).supported_languages
                             if lang.startswith("en")] or [None]
                for language in languages:
                    calendar = holidays.country_holidays(country, years=range(2013, 2017), language=language)
                    for name in calendar.values():
                        names.update(part.strip() for part in name.split(";"))
            except (NotImplementedError, KeyError, AttributeError):  # pragma: no cover
                continue
    table: dict[str, set[tuple[str, ...]]] = {}
    for name in names:
        name = re.sub(r"\s*\(.*?\)", "", name).strip().lower()
        words = tuple(_NAME_TOKEN.findall(name))
        # Long official names ("... Establishment Day") and the election days are not what posts say.
        if not words or len(words) > 5 or any(w in ("election", "anniversary", "additional", "the") for w in words):
            continue
        if len(words) == 1 and words[0] not in TIME_WORDS:
            continue  # one-word names that are not in the lexicon ("Holi", "Ashura") are words or names too
        table.setdefault(words[0], set()).add(words)
    return {first: frozenset(seqs) for first, seqs in table.items()}


_NAME_TOKEN = re.compile(r"'s|\w+|[^\w\s]")


def is_link(token: Any) -> bool:
    """URLs, @mentions and #hashtags: the parser attaches them anywhere; they never describe a time."""
    return bool(token.like_url) or token.text[:1] in "@#"


ORDINAL_TIME_WORDS = frozenset({"second"})
# "raya" alone is Hari Raya after these words or before those ("duit raya", "for raya", "raya holidays").
RAYA_BEFORE = frozenset("duit selamat for during on this last next after before till until balik celebrate "
                        "celebrating celebrated happy".split())
RAYA_AFTER = frozenset("holiday holidays eve break mood season cookies goodies visiting haji puasa".split())
# Prepositions that make "my bday" the date of what the post tells ("celebrating on my bday"). Not "until", "before":
# "4 days until my birthday" loses its count and keeps the birthday ("not long until my birthday"), and "it" after
# it needs the birthday to refer to.
BIRTHDAY_DATING = frozenset({"on"})
HOLIDAYS = frozenset("christmas xmas halloween easter thanksgiving valentine valentines newyear".split())
# Entity words that are no time on their own ("the past", "annual" in "$7700 annual out-of-pocket": a rate).
_NOT_ALONE = frozenset("past the few several annual".split())
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
    # A capitalized abbreviation after the number: "12 Oct", "2 Dec." (before it, "Jun 2" may be a name).
    after = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if after is not None and after.text[:1].isupper() and after.lower_.rstrip(".") in MONTH_ABBREVIATIONS:
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
# What stays unless asked otherwise (issue 46's decision): "now" words (now, rn, currently, lately, soon, these
# days) say nothing beyond the post's own timestamp, and cutting them only damages the sentence.
DEFAULT_KEEP_KINDS = frozenset({"now"})
PART_OF_DAY = frozenset("goodnight goodnite gnight goodmorning gmorning "
                        "morning mornings afternoon afternoons evening evenings night nights noon midnight dawn dusk "
                        "sunrise sunset daylight daybreak nightfall overnight nightly".split())
PRESENT = frozenset("now currently recently lately soon later earlier right".split())
PERIOD = frozenset("week weeks weekend weekends month months year years decade decades century fortnight spring "
                   "summer autumn fall winter semester season weekly monthly yearly annually".split())
DURATION_WORDS = frozenset("hour hours minute minutes second seconds hourly".split())


def kind_of(token: Any) -> str | None:
    """The granularity of a time token (None for the words around it: determiners, numbers, modifiers)."""
    lower, text = token.lower_.lstrip("#"), token.text.lstrip("#")
    if lower in FUTURE_PAST or lower in HASHTAG_TIMES:
        return "now" if lower in FUTURE_PAST else "day"
    if MILITARY.match(text) and token.i and token.nbor(-1).lower_ in _CLOCK_CONTEXT:
        return "clock"
    if CLOCK.match(text) or MERIDIEM.match(text):
        return "clock"
    if lower in PART_OF_DAY:
        return "part_of_day"
    if lower in PRESENT or lower == "nowadays" or (lower == "days" and token.i and token.nbor(-1).lower_ == "these"):
        return "now"  # "these days" is "now" too
    if GLUED_DURATION.match(text) or lower in DURATION_WORDS or lower in UNIT_ABBREVIATIONS:
        return "duration"
    if lower in PERIOD or (YEAR.match(text) is not None):
        return "period" if lower in PERIOD else "day"
    if lower in TIME_WORDS or lower in WEEKDAYS or lower in MONTHS or lower in ABBREVIATIONS or lower == "may" \
            or DATE_SHAPE.match(text) or ORDINAL_DAY.match(text):
        return "day"
    return None


# What ranges and lists are made of, and what joins them: "10-12 October", "13 Apr - 15 Apr", "mon, wed, thur".
_RANGE_WORDS = frozenset("- – — ~ to through thru till until and & or".split())
_DATE_CATEGORIES = frozenset({"number", "month", "weekday", "year", "date"})
_TIME_ZONES = frozenset("sgt gmt utc est edt cst cdt mst mdt pst pdt cet cest bst ist jst hkt aest wib myt et ct pt mt"
                        .split())
# Words TimeML keeps in front of (or behind) the time word; any other word before it describes it ("a long
# weekend", "about 2 hours", "the good old days") and stays out of the TimeML span.
_TIMEX_KEEP = MODIFIER_WORDS | frozenset("ago more than less of + mid early late another recent upcoming single"
                                         .split())
# Nouns naming a part of a time ("the start of spring", "the rest of the week"): with it they make one expression.
PART_OF_HEADS = frozenset("start end beginning middle rest part half mid".split())
_OF_HEADS = PART_OF_HEADS | {"couple"}  # "a couple of days" too
_NOT_TIMEX_ALONE = frozenset("soon later season seasons".split())


def hashtag_word(token: Any) -> str | None:
    """The word of a hashtag: "#friday" as one token, or "Friday" right after a "#" (spaCy splits most)."""
    if token.text.startswith("#") and len(token.text) > 1:
        return token.text[1:].lower()
    if token.i and token.nbor(-1).text == "#" and not token.nbor(-1).whitespace_:
        return token.lower_
    return None


# Round 17: a month, a season or a holiday opening or closing a hashtag dates the post as the word alone does.
# Not "fall" ("#waterfall"), "spring" at the end ("#offspring") or first ("#springfield"), "may", "march"
# ("#womensmarch"), the months that are names ("#aprilryan", "#augustalsina"), "winter" first ("#winterfell").
HASHTAG_OPENERS = ("january", "february", "september", "october", "november", "december", "summer", "autumn",
                   "christmas", "xmas", "halloween", "thanksgiving", "newyear", "happynewyear")
HASHTAG_CLOSERS = ("january", "february", "april", "june", "july", "august", "september", "october", "november",
                   "december", "summer", "winter", "autumn", "christmas", "xmas", "halloween", "easter",
                   "thanksgiving", "newyear", "newyears", "newyearseve", "twitteranniversary")


def _is_time_hashtag(word: str) -> bool:
    """"#friday", "#tbt", "#summer2017", "#june2017", "#tiredtuesday", "#mondaymotivation": a time word, a time word
    with its year, or a weekday opening or closing the tag."""
    if word in TIME_WORDS or word in WEEKDAYS or word in MONTHS or word in HASHTAG_TIMES:
        return True
    short_year = HASHTAG_SHORT_YEAR_LAST.match(word)
    if short_year and short_year.group(1) not in NUMBERED_NAMES:
        return True  # "#Kscope17"
    if word.endswith(HASHTAG_EVENT_WORDS) or word.startswith(HASHTAG_EVENT_WORDS):
        return True  # "#PLLFinale"
    if HASHTAG_YEAR_FIRST.match(word) or HASHTAG_DATE.match(word) or YEAR.match(word):  # "#2017"
        return True
    glued = HASHTAG_YEAR_LAST.match(word) or HASHTAG_YEAR_INSIDE.match(word)
    if glued and sum(c.isalpha() for c in glued.group(1)) >= 2 and glued.group(1) not in NUMBERED_NAMES:
        return True  # "#vbs2017", "#SuccessDinnerGetTogether2015", "#Class2016Reunion": an event of that year
    if word.startswith("national") and word.endswith(("day", "week", "month")) and len(word) > 14:
        return True  # "#NationalPineappleDay"
    dated = HASHTAG_YEAR.match(word)
    if dated and (dated.group(1) in TIME_WORDS or dated.group(1) in MONTHS):
        return True  # "#summer2017", "#summer17"
    if HASHTAG_CLOCK.match(word):
        return True  # "#5amworkout"
    if word.startswith(HASHTAG_OPENERS) or word.endswith(HASHTAG_CLOSERS) or word in ("12days", "12daysofchristmas"):
        return True  # "#hatefebruary", "#purplesummer", "#HappyNewYear", "#MyTwitterAnniversary", "#12days"
    return any(word.startswith(day) or word.endswith((day, day + "s")) for day in WEEKDAYS if len(word) > len(day))


def _category(token: Any) -> str | None:
    """What a part of a range or list is: a weekday, a month, a day number, a clock time, a year, a date."""
    text, lower = token.text, token.lower_.rstrip(".")
    if lower in WEEKDAYS or (lower in ABBREVIATIONS and lower not in MONTH_ABBREVIATIONS and text[:1].isupper()):
        return "weekday"
    if lower in MONTHS or (lower in MONTH_ABBREVIATIONS and text[:1].isupper()) or text == "May":
        return "month"
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    previous = token.doc[token.i - 1] if token.i else None
    military = MILITARY.match(text) and previous is not None and \
        (previous.lower_ in _CLOCK_CONTEXT or previous.text == ",")
    if CLOCK.match(text) or MERIDIEM.match(text) or military or \
            (token.like_num and following is not None and MERIDIEM.match(following.text)):
        return "clock"
    if YEAR.match(text):
        return "year"
    if DAY_NUMBER.match(text) or ORDINAL_DAY.match(text):
        return "number"
    if DATE_SHAPE.match(text):
        return "date"
    if lower in PART_OF_DAY or lower in ("today", "tonight", "tomorrow", "yesterday"):
        return "part_of_day"
    return None


def _joins(connector: Any, left: Any, right: Any) -> bool:
    """Whether ``connector`` between two parts makes one range or list of them."""
    a, b = _category(left), _category(right)
    if a is None or b is None:
        return False
    if connector.text == ",":
        return a == b or (a in ("weekday", "part_of_day") and b == "clock") or (a, b) == ("number", "year")
    if connector.lower_ in ("and", "&", "or"):
        return a == b or {a, b} <= {"number", "month"}
    return (a in _DATE_CATEGORIES and b in _DATE_CATEGORIES) or {a, b} <= {"clock", "number"} or a == b


def _sentence_start(token: Any) -> bool:
    return token.i == 0 or token.doc[token.i - 1].text in (".", "!", "?", "...", "..")


def not_a_time(token: Any) -> bool:
    """A time word that says no time where it stands: part of a name, a title, an idiom, a rate, a verse, a
    person's day. Checked for the lexicon's words and again over the entity recognizer's (which sees
    "Man of the year", "made my day" as dates)."""
    lower = token.lower_
    doc = token.doc
    previous = doc[token.i - 1] if token.i else None
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if lower in TITLE_UNITS and token.i >= 3 and previous.lower_ == "the" and doc[token.i - 2].lower_ == "of" \
            and _title_head(doc[token.i - 3]):
        return True  # "Man of the year", "Quote of the Day", "Song of the Summer": a title ("27th book of the year"
        # counts this year's books)
    if lower == "mayday":
        return True  # "Mayday Parade" (a band), "Mayday!" (a call for help); May Day is two words
    if lower in ("tuesday", "morning") and _tuesday_morning_store(token):
        return True  # "Shopping at Tuesday Morning": a store ("on Tuesday morning" is a date)
    if token.text == "Morning" and previous is not None and previous.text == "Good" and following is not None \
            and following.text in SHOWS_AFTER_GOOD_MORNING:
        return True  # "Good Morning America": a show
    if lower in TIME_WORDS and previous is not None and previous.lower_ in ("per", "/", "a-"):
        return True  # "$174 per month", "60 miles per hour": a rate says nothing of when
    if lower in ("day", "week") and previous is not None and previous.lower_ in ROUTINE_WORDS:
        return True  # "cheat day", "Leg day", "spirit week": a routine, not which day
    if lower in ("day", "days", "week", "weekend", "year", "month") and token.i >= 2 \
            and previous.lower_ in POSSESSIVE_WORDS and doc[token.i - 2].lower_ in MAKE_FORMS:
        return True  # "made my day", "IT WOULD MAKE MY WEEK": an idiom ("Made my night" says when: round 9)
    if lower == "day" and following is not None and following.lower_ in ("made", "=", "made.") \
            and (previous is None or previous.is_punct or previous.text in ("...", "..")):
        return True  # "... Day made 🙌": the idiom
    if lower == "year" and following is not None and following.lower_ in ("round", "-round", "around") \
            and previous is not None and previous.lower_ in ("all", "the"):
        return True  # "sell fireworks all year round": always
    if lower == "year" and previous is not None and previous.lower_ in SCHOOL_YEARS:
        return True  # "my senior year": a grade, not a date
    if lower == "day" and previous is not None and previous.lower_ == "lucky" and token.i >= 2 \
            and doc[token.i - 2].lower_ in POSSESSIVE_WORDS | {"a", "the"}:
        return True  # "Must be my lucky day!"
    if lower == "day" and previous is not None and previous.lower_ in POSSESSIVE_WORDS \
            and not (token.i + 1 < len(doc) and doc[token.i + 1].lower_ == "of"):
        return True  # "how my day is going", "have a great day": a person's day, no date
    if lower in ("days", "weeks", "hours", "minutes", "months") and token.i >= 3 and previous.lower_ == "the" \
            and doc[token.i - 2].lower_ == "down" and doc[token.i - 3].lower_.startswith("count"):
        return True  # "counting down the weeks & days till CHWC": how long, not when
    if lower == "hour" and previous is not None and previous.lower_ == "happy":
        return True  # "Happy Hour": an event, not a greeting
    if lower == "day" and token.i >= 3 and previous.lower_ == "the" and doc[token.i - 2].lower_ == "in" \
            and doc[token.i - 3].lower_ == "back":
        return True  # "back in the day": long ago, no date
    if lower == "day" and token.i >= 2 and previous.lower_ == "new" and doc[token.i - 2].lower_ in ("a", "another"):
        return True  # "Tomorrow is a new day": an idiom
    if lower == "day" and token.i >= 2 and previous.lower_ == "another" and doc[token.i - 2].lower_ in ("see", "live"):
        return True  # "Grateful to see another day"
    book = previous
    if previous is not None and previous.text == "." and token.i >= 2:
        book = doc[token.i - 2]  # "2 Cor. 4:18"
    if ":" in token.text and book is not None and book.lower_.rstrip(".") in SCRIPTURE_BOOKS \
            and book.text[:1].isupper():
        return True  # "Job 41:22", "James 5:13": a verse, not a clock
    if re.match(r"^0+/0+$|^\d{1,2}/0+$|^0+/\d{1,2}$", token.text):
        return True  # "hard to find 00/0 in stores": a size or a code; no month or day is 0
    if re.match(r"^\d(?:/\d)+$", token.text) and following is not None and following.lower_ == "of":
        return True  # "1/3 of the time", "the 3/4/5 of #WhiteSox lineup": a fraction, a batting order
    thread = re.match(r"^(\d{1,2})/(\d{1,2})$", token.text)
    if thread and 0 < int(thread.group(1)) <= int(thread.group(2)) <= 20 and (
            (previous is not None and previous.text == "(")
            or (following is not None and following.text in (":", ")", ".")
                and all(t.text.startswith("@") or t.is_punct for t in doc[:token.i]))):
        return True  # "(1/2)", "@user 2/4: And ...": the parts of a thread
    after_next = doc[token.i + 2] if token.i + 2 < len(doc) else None
    if lower in ("season", "seasons") and following is not None and following.lower_ == "of" \
            and after_next is not None and (after_next.pos_ == "PROPN" or after_next.text.startswith(("@", "#"))):
        return True  # "the new season of @user", "season of The Bachelorette": a show's season
    if lower in ("season", "minute", "episode") and following is not None and following.like_num \
            and not (previous is not None and previous.like_num):
        return True  # "season 2. episode 1. minute 37.": a place in a show
    if lower in ("night", "day", "morning", "evening", "graveyard") and following is not None \
            and following.lower_ in ("shift", "shifts", "mode"):
        return True  # "night shift": a kind of work; "night mode": a setting
    if lower in SEASON_VERBS and following is not None \
            and following.lower_ in ("asleep", "apart", "down", "off", "behind", "back", "into"):
        return True  # "Tryna fall asleep": the verb
    if lower in ("day", "days") and following is not None and following.lower_ == "off" and previous is not None \
            and previous.lower_ in POSSESSIVE_WORDS:
        return True  # "after my days off"
    if lower == "day" and token.i >= 2 and previous.lower_ == "another" and doc[token.i - 2].lower_ == "just":
        return True  # "Just another day getting covered in concrete"
    if lower in ("hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "night") \
            and previous is not None and previous.lower_ in ("a", "an") and token.i >= 2 and (
            doc[token.i - 2].like_num or "$" in doc[token.i - 2].text or doc[token.i - 2].text[:1].isdigit()
            or doc[token.i - 2].lower_ in RATE_WORDS):
        return True  # "8$ an hour", "a billion dollars a year", "twice a day": a rate or a frequency
    if lower in ("years", "days", "weeks", "months", "times", "nights") and token.i + 3 < len(doc) \
            and [t.lower_ for t in doc[token.i + 1:token.i + 4]] == ["in", "a", "row"]:
        return True  # "5 years in a row": a count
    if lower == "hour" and following is not None and following.like_num:
        return True  # "on hour 38 of no sleep": how long, not when
    if lower in ("day", "days") and token.i + 3 < len(doc) and doc[token.i + 1].lower_ == "of" \
            and doc[token.i + 2].lower_ in POSSESSIVE_WORDS and doc[token.i + 3].lower_ in ("life", "lives"):
        return True  # "the longest day of my life"
    judged = doc[token.i - 2] if previous is not None and previous.lower_ in ("ass", "af") and token.i >= 2 \
        else previous  # "a CHILL ass day"
    if lower == "day" and judged is not None and judged.lower_ in EVALUATIVE_WORDS and judged.i >= 1 \
            and doc[judged.i - 1].lower_ in ("a", "an", "such", "what"):
        return True  # "have a great day", "such a long day": how the day is, not which
    if lower == "day" and previous is not None and previous.lower_ in ("first", "last") and token.i >= 2 \
            and doc[token.i - 2].lower_ in POSSESSIVE_WORDS \
            and not (following is not None and following.lower_ == "of"):
        return True  # "Monday is my first day": a milestone of the writer's, no date
    if lower in ("weekend", "day", "week", "season") and following is not None \
            and following.lower_ in ("pass", "passes", "ticket", "tickets"):
        return True  # "Buy one weekend pass": a kind of ticket
    if lower == "tomorrow" and token.i >= 2 and previous.lower_ == "always" \
            and doc[token.i - 2].lower_ in ("'s", "is", "’s"):
        return True  # "There's always tomorrow": a saying
    if (CLOCK.match(token.text) or MERIDIEM.match(token.text)) and following is not None \
            and following.lower_ == "somewhere":
        return True  # "It's 5 pm somewhere": a saying
    if lower == "days" and previous is not None and previous.lower_ in EVALUATIVE_WORDS | {"better", "best", "worse"} \
            and not (token.i >= 2 and doc[token.i - 2].like_num):
        return True  # "take advantage of your good days", "better days": how days go, not which
    if lower == "day" and following is not None and following.lower_ in ("one", "1") \
            and not (previous is not None and previous.like_num):
        return True  # "since day one", "This was day one": from the start, no date
    if lower == "now" and previous is not None and previous.lower_ == "what" and (
            following is None or following.is_punct or EMOJI_ONLY.match(following.text)):
        return True  # "to see what now??": a shrug, not the present
    if lower == "yesterday" and token.i >= 3 and previous.lower_ in ("was", "were") \
            and doc[token.i - 2].lower_ == "it" and doc[token.i - 3].lower_ in ("like", "if"):
        return True  # "I remember it like it was yesterday": vividly, no date ("It was yesterday that ..." is one)
    if re.match(r"^[A-Z]{2,}\d{1,3}$", token.text) and token.text[:3].lower() not in ABBREVIATIONS \
            and hashtag_word(token) is None:  # a hashtag's short year is read by _is_time_hashtag ("#IAAE17")
        return True  # "into ABC5": a station or a model, not a time
    if re.match(r"^\d:\d{2}:\d{2}$", token.text) and not (previous is not None and previous.lower_ in ("at", "@")) \
            and not (following is not None and following.lower_ in _TIME_ZONES):
        return True  # "Hit abt 1:35:10 for 21km": a race time, how long
    if ":" in token.text and following is not None and following.lower_ in ("pace", "mile", "miles", "km", "k"):
        return True  # "at constant 4:30 pace": a pace
    if YEAR.match(token.text) and previous is not None and previous.lower_ == "a" and token.i >= 2 \
            and doc[token.i - 2].lower_ not in ("in", "of", "since", "from", "by") \
            and not (following is not None and following.pos_ in ("NOUN", "PROPN")):
        return True  # "drive a 2008": a car's model year
    if lower == "future" and previous is not None and previous.lower_ in ("bright", "brighter", "better", "great",
                                                                          "good", "own", "whole"):
        return True  # "bright future": a hope, no date
    if lower == "future" and following is not None and following.pos_ in ("NOUN", "PROPN") and following.is_alpha \
            and not (previous is not None and previous.lower_ in ("the", "near", "distant", "in")):
        return True  # "some future graffiti artists": who they will be, no date
    if lower in PERSON_MONTHS and token.text[:1].isupper() and following is not None and (
            following.lower_ in ("name", "names") or (token.dep_ == "nsubj" and following.lower_ in SPEECH_VERBS)):
        return True  # "June said she's painting me", "call April name first": a person
    if lower == "day" and previous is not None and previous.lower_ == "happy" and token.i >= 2:
        return True  # "Send happy day to @user": a wish, no date (a post opening "Happy day!" greets)
    if DATE_SHAPE.match(token.text) and "/" in token.text and previous is not None \
            and previous.lower_ in ("only", "like", "rated", "rate", "solid", "straight"):
        return True  # "YOU CANT LIKE ONLY 4/5", "a solid 8/10": a share or a score
    if lower in ("tonight", "today", "daily", "weekly", "monthly") and token.text[:1].isupper() and token.i \
            and not _sentence_start(token) and previous.lower_ not in ("and", "&", "or", ",") \
            and following is not None and following.text[:1].isupper() \
            and following.is_alpha and kind_of(following) is None and not following.is_upper:
        return True  # "England wants Tonight Dough", "in Daily Caller": a name
    if lower in ("morning", "night") and following is not None and following.lower_ in ("person", "people", "owl"):
        return True  # "I'm slowly becoming a morning person": a trait
    if lower == "night" and ((following is not None and following.lower_ == "night")
                             or (previous is not None and previous.lower_ == "night")):
        first = token.i - 1 if previous is not None and previous.lower_ == "night" else token.i
        before = doc[first - 1] if first else None
        # 'say "night night"': the bedtime word mentioned; as the writer's own goodnight ("... night night
        # #birchersbitches", round 17) it tells a reader it is bedtime, as "goodnight" does.
        return before is not None and (before.lower_ in SPEECH_VERBS | {"say", "saying", "sang", "sing"}
                                       or before.text in ('"', "'", "“", "‘"))
    if lower == "march" and token.text == "march" and previous is not None \
            and previous.lower_ in ("the", "that", "a", "this", "our", "women's") \
            and not (following is not None and (following.like_num or ORDINAL_DAY.match(following.text))):
        return True  # "how that march will work": a protest
    if (previous is not None and previous.text == "$" and token.like_num) or token.text.startswith("$"):
        return True  # "$200 later": money
    if token.text in ("10/10", "5/5", "100/100"):
        return True  # "i would have 10/10 took them": a score
    if lower == "night" and previous is not None and previous.lower_ in ("one", "1") and following is not None \
            and following.lower_ in ("stand", "stands"):
        return True  # "not a one night stand"
    if lower == "minute" and previous is not None and previous.lower_ == "hot":
        return True  # "It's been a hot minute since": a long while, no date
    if lower in ("day", "year") and previous is not None and previous.lower_ == "another" and (
            token.i < 2 or doc[token.i - 2].lower_ in ("see", "seeing", "saw", "live", "living")
            or doc[token.i - 2].is_punct or _sentence_start(doc[token.i - 1])
            or doc[token.i - 2].lower_ in ("well", "just", "oh")):
        return True  # "Another day another afternoon arguing", "Blessed to see another year": a saying
    if lower == "tomorrow" and previous is not None and previous.lower_ in ("promised", "guaranteed"):
        return True  # "You're not promised tomorrow": a saying
    if lower == "today" and previous is not None and previous.lower_ == "not" and (
            following is None or not following.is_alpha or following.lower_ in ("baby", "satan", "bro", "sis")):
        return True  # "not today baby ! Not today !": a refusal
    if lower == "year" and following is not None and following.lower_ == "of" and after_next is not None \
            and after_next.lower_ in ("college", "school", "highschool", "university", "uni", "grad", "law", "med"):
        return True  # "my last year of college": a stage of life, like "my senior year"
    if lower in ("mornings", "nights", "evenings", "afternoons") and not any(
            c.dep_ in ("det", "poss", "amod", "nummod") for c in token.children) \
            and (previous is None or (previous.lower_ not in ("on", "at", "in", "these", "those")
                                      and kind_of(previous) is None and not previous.lower_.startswith("#"))):
        return True  # "Why are mornings a thing": mornings in general
    if lower in ("spring", "springs") and previous is not None and previous.lower_ in ("hot", "thermal", "mineral"):
        return True  # "this hot spring": water, not a season
    if lower in ("late", "early") and token.dep_ in ("acomp", "advmod") and token.head.pos_ in ("AUX", "VERB") \
            and not any(c.like_num for c in token.children):
        return True  # "when it's late at night": "late" is what it is; "at night" is the time
    return _named_or_generic_not_a_time(token, lower, previous, following)


# Round 17 (issue 46): the kinds of names, titles, idioms and distances the readers found cut without a time.
# Nouns that follow a time word in a Title Case name ("Saturday Kitchen", "Night Garden", "High Noon Saloon") and
# those that make it a dated thing after all ("Sunday Funday", "Friday Night", "Monday Blues" say which day it is).
DATING_TITLE_NOUNS = frozenset("""funday fun blues motivation motivations feeling feels vibes vibe mood mornings
nights night evening afternoon morning service services mass market brunch lunch dinner breakfast special specials
sale sales deal deals meeting meetings class classes practice game games match matches session sessions party
parties plans plan shift shifts school church worship workout run ride reads read selfie selfies funk talk talks
update updates news quiz lecture lectures seminar seminars""".split())
# Time words that open such a name: weekdays and parts of the day.
_TITLE_OPENERS = WEEKDAYS | frozenset("night noon midnight morning evening afternoon dawn dusk sunset sunrise".split())
# Words before a weekday that make it the day of something ("on Saturday Kitchen" is not a name).
_TITLE_BLOCKERS = _DATE_CONTEXT | frozenset("happy at see for by until till til about to of in".split())
_PART_TITLE_BLOCKERS = frozenset("good gd last every each tomorrow tonight yesterday today at in on by for until till "
                                 "til all one".split())
# Places a count of minutes or hours is how far from ("a town 18 hours from mine", "the shop is 5 minutes away").
PLACE_NOUNS = frozenset("""town towns city cities village house houses home place places shop shops store stores
school work office campus beach airport station hospital restaurant restaurants bar bars gym park mall apartment
hotel lake farm cabin state country border coast drive walk ride flight""".split())
_FAR_FROM = frozenset("mine yours his hers ours theirs here there home".split())
_DISTANCE_UNITS = frozenset("minute minutes min mins hour hours hr hrs".split())
# A work schedule in a job ad: "(FT/40 Hours)", "PT/20 hrs".
WORK_HOURS = re.compile(r"(?i)^(?:ft|pt|full-?time|part-?time)/\d{1,2}$")
_JOB_WORDS = frozenset("job jobs hiring positions position shifts vacancy vacancies required apply".split())


def _headline(doc: Any, name: range) -> bool:
    """Most words outside the ``name`` capitalized (not "I", not acronyms): a headline, where Title Case says nothing
    of a name."""
    words = [t for t in doc if t.is_alpha and not is_link(t) and t.i not in name and t.text != "I" and not t.is_upper]
    return len(words) >= 3 and sum(t.text[:1].isupper() for t in words) > 0.6 * len(words)


def _named_or_generic_not_a_time(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A time word inside a name, a title, a kind of thing, an idiom or a distance (round 17 of issue 46): "Goal of
    Season", "Saturday Kitchen", "the midnight train", "last minute gig", "18 hours from mine"."""
    doc = token.doc
    after_next = doc[token.i + 2] if token.i + 2 < len(doc) else None
    if lower in TITLE_UNITS and previous is not None and previous.lower_ == "of" and token.text[:1].isupper() \
            and token.i >= 2 and doc[token.i - 2].text[:1].isupper() and _title_head(doc[token.i - 2]):
        return True  # "Goal of Season", "Player of Month": a title written without its "the"
    if lower in _TITLE_OPENERS and token.text[:1].isupper() and not token.is_upper and following is not None \
            and following.is_alpha and following.text[:1].isupper() and not following.is_upper \
            and kind_of(following) is None and following.lower_ not in DATING_TITLE_NOUNS \
            and following.lower_ not in MONTHS and following.pos_ in ("PROPN", "NOUN") \
            and not (previous is not None and previous.lower_ in (_TITLE_BLOCKERS if lower in WEEKDAYS
                                                                  else _PART_TITLE_BLOCKERS)) \
            and not _headline(doc, range(token.i - 2, token.i + 2)) \
            and not (previous is not None and kind_of(previous) is not None) \
            and not (previous is None or _sentence_start(token)):
        return True  # "watching Saturday Kitchen", "this Night Garden", "High Noon Saloon": a show or a venue
    if lower == "midnight" and following is not None and following.lower_ == "train":
        return True  # "the midnight train going anywhere": a song's train, no date
    if lower in ("night", "day") and following is not None and following.lower_ == "time" and after_next is not None \
            and after_next.pos_ == "NOUN" and kind_of(after_next) is None and token.i >= 1 \
            and previous.lower_ in ("a", "an", "any", "other", "no"):
        return True  # "after a night time fight", "any other night time dramas": a kind of fight, no date
    if lower == "time" and previous is not None and previous.lower_ in ("night", "day") and following is not None \
            and following.pos_ == "NOUN" and kind_of(following) is None and token.i >= 2 \
            and doc[token.i - 2].lower_ in ("a", "an", "any", "other", "no"):
        return True  # the "time" of "a night time fight"
    if lower in ("night", "nights", "days", "weekends") and previous is not None and previous.text == "," \
            and any(t.lower_.lstrip("#") in _JOB_WORDS for t in doc):
        return True  # "positions, night... #Jobs": a shift in a job ad's list
    if token.text == "minute" and previous is not None and previous.lower_ == "last" and following is not None \
            and following.pos_ in ("NOUN", "PROPN") and following.is_lower and kind_of(following) is None:
        return True  # "Last minute gig addition": a late change, no date ("Last Minute Travel" is a name the
        # SynTime annotators marked; it stays a time)
    if lower == "last" and following is not None and following.text == "minute" and after_next is not None \
            and after_next.pos_ in ("NOUN", "PROPN") and after_next.is_lower and kind_of(after_next) is None:
        return True
    if lower == "spring" and following is not None and following.lower_ in ("clean", "cleaning", "cleaned"):
        return True  # "Spring clean in January": the chore, not the season
    if lower in ("night", "day") and previous is not None and previous.lower_ == "of" and token.i >= 2 \
            and doc[token.i - 2].lower_ == "time" and not (token.i >= 3 and doc[token.i - 3].lower_ in
                                                           ("this", "that", "at", "same")):
        return True  # "My b time of night**": the phrase corrected, no date
    if lower in _DISTANCE_UNITS and following is not None and token.i >= 1 and previous.like_num:
        counted_from = doc[previous.i - 1] if previous.i >= 1 else None
        beyond = after_next
        if following.lower_ == "from" and beyond is not None and (
                beyond.lower_ in _FAR_FROM or beyond.lower_ in POSSESSIVE_WORDS
                or (counted_from is not None and counted_from.lower_ in PLACE_NOUNS)):
            return True  # "a town 18 hours from mine", "5 minutes from my house": how far
        if following.lower_ == "away" and (
                (counted_from is not None and counted_from.lower_ in PLACE_NOUNS)
                or any(c.dep_ == "nsubj" and c.lower_ in PLACE_NOUNS for c in following.head.children)
                or any(c.dep_ == "nsubj" and c.lower_ in PLACE_NOUNS for c in token.head.children)):
            return True  # "The shop is 5 minutes away": how far ("Christmas is 30 days away" counts down)
    if lower in ("hours", "hrs", "hour") and previous is not None and WORK_HOURS.match(previous.text):
        return True  # "(FT/40 Hours)": a work schedule
    if WORK_HOURS.match(token.text):
        return True
    return False


# Time words that close a title "<Noun> of the <unit>" ("Player of the Month", "Song of the Summer").
TITLE_UNITS = frozenset("year day week month season night decade century weekend".split()) | SEASONS
# "Good Morning America", "Good Morning Britain": shows, not greetings.
SHOWS_AFTER_GOOD_MORNING = frozenset("America Britain Football".split())


def _title_head(head: Any) -> bool:
    """Whether ``head`` opens a title "<Noun> of the <unit>": a noun, or a capitalized word (the parser takes "Quote"
    of "Quote of the Day" for a verb), that is no part of a time ("the end of the year"), no time itself ("the
    best time of the year", "the last day of the month") and not counted ("27th book of the year")."""
    lower = head.lower_
    if not head.is_alpha or lower in _OF_HEADS or lower in TIME_WORDS or lower == "time":
        return False
    if not (head.pos_ in ("NOUN", "PROPN") or (head.text[:1].isupper() and not head.is_upper)):
        return False
    return not any(ORDINAL.match(c.text) or c.like_num for c in head.children)


def _tuesday_morning_store(token: Any) -> bool:
    doc = token.doc
    first = token.i if token.text == "Tuesday" else token.i - 1
    return token.text in ("Tuesday", "Morning") and first >= 1 and first + 1 < len(doc) \
        and doc[first].text == "Tuesday" and doc[first + 1].text == "Morning" \
        and doc[first - 1].lower_ in ("at", "from", "@")


class TimeTagger:
    """Marks the tokens of a parsed Doc that express a time. ``use_entities`` / ``use_lexicon`` switch the two
    sources (to measure what each contributes).

    Two views: :meth:`tag` / :meth:`spans` give whole units for removal (a range "10-12 October", a list
    "every mon, wed, thur", "a very long day" with its describing words, "Today's", time hashtags);
    :meth:`timex_spans` gives TimeML TIMEX3 spans for recognition and scoring (ranges and lists split, describing
    words, possessives and hashtags left out)."""

    def __init__(self, *, use_entities: bool = True, use_lexicon: bool = True) -> None:
        self.use_entities = use_entities
        self.use_lexicon = use_lexicon

    def _lexical(self, token: Any) -> bool:
        lower = token.lower_
        doc = token.doc
        previous = doc[token.i - 1] if token.i else None
        if lower in ORDINAL_TIME_WORDS:  # "a second account", "the second time": an ordinal, not a duration
            return token.pos_ == "NOUN" and token.i > 0 and token.nbor(-1).like_num
        if lower == "future":  # "the future", "a bright future"; not "future plans"
            return not not_a_time(token) and (
                (previous is not None and previous.lower_ in ("the", "near", "distant"))
                or (token.pos_ in ("NOUN", "PROPN") and token.dep_ not in ("amod", "compound")))
        if lower == "past":  # "the past", "a colonial past"; not "past the station", "the past week" (a modifier)
            nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
            followed = nxt is not None and nxt.pos_ in ("NOUN", "PROPN", "NUM", "ADJ")
            return not followed and ((previous is not None and previous.lower_ == "the") or
                                     (token.pos_ == "NOUN" and token.dep_ not in ("amod", "compound", "prep")))
        if lower in SEASON_VERBS and token.pos_ in ("VERB", "AUX"):
            return False  # "Let them fall", "fall asleep", "spring into action"
        if not_a_time(token):
            return False
        if lower in TIME_WORDS or lower in WEEKDAYS or lower in MONTHS:
            return True
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if lower == "raya" and previous is not None and previous.lower_ != "hari" and (
                previous.lower_ in RAYA_BEFORE or (following is not None and following.lower_ in RAYA_AFTER)):
            return True  # "duit raya", "balik kampung for raya", "raya holidays": Hari Raya (not "Raya" the name)
        if lower in ("birthday", "bday") and previous is not None and previous.lower_ in ("my", "our") \
                and token.i >= 2 and doc[token.i - 2].lower_ in BIRTHDAY_DATING:
            return True  # "on my bday": the writer's own date ("Happy bday", "bday party", "sorry I ruined the
            # basement on your birthday" date nothing, a round-6 reader judged)
        if lower.endswith(".") and lower[:-1] in MONTH_ABBREVIATIONS:  # "Aug."
            lower = lower[:-1]
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if lower in WEEKDAY_ABBREVIATIONS and following is not None and following.lower_ in PARTS_AFTER_A_DAY:
            return True  # "did so good sat night": a weekday however it is written
        if lower in ABBREVIATIONS or lower == "may":
            # "Sat", "Jun", "May" are also names and words ("Sun Yanzi", "Jia Jun", "May Allah"): only next to a
            # number, another date word or a preposition/determiner of time, and not after a name.
            after_name = token.i > 0 and token.nbor(-1).pos_ == "PROPN" and token.nbor(-1).lower_ not in TIME_WORDS \
                and not DAY_NUMBER.match(token.nbor(-1).text)
            month_in = lower in MONTH_ABBREVIATIONS and token.i > 0 and token.nbor(-1).lower_ in ("in", "and", ",")
            if lower in ("sun", "sat") and token.dep_ in ("nsubj", "nsubjpass"):
                return False  # "Sun will rise", "Sat down"
            year_after = token.i + 1 < len(doc) and YEAR.match(doc[token.i + 1].text) is not None
            return token.text[:1].isupper() and token.tag_ != "MD" and (_near_date(token) or month_in) \
                and (not after_name or (year_after and lower in MONTH_ABBREVIATIONS))
        if lower in UNIT_ABBREVIATIONS:
            return token.i > 0 and token.nbor(-1).like_num
        text = token.text
        if QUARTER.match(text):  # "Q3"
            return True
        if re.match(r"^'?\d{2}$", text) and previous is not None and (previous.lower_ in SEASONS or (
                previous.lower_ == "of" and token.i >= 2 and doc[token.i - 2].lower_ in SEASONS)):
            return True  # "All summer 17", "fall of 18": the season's year
        if DAY_NUMBER.match(text) and _next_to_month(token):  # "26 April 2014", "May 5", "12 Oct"
            return True
        if token.i > 0 and token.nbor(-1).text in ("#", ":") and not token.nbor(-1).whitespace_:  # "#1:18": a scale
            return False
        if ":" in text and not_a_time(token):
            return False
        if MILITARY.match(text) and previous is not None and previous.lower_ in _CLOCK_CONTEXT:  # "at 1435"
            return True
        if CLOCK.match(text) or DATE_SHAPE.match(text) or YEAR.match(text) or GLUED_DURATION.match(text):
            return True
        if ORDINAL_DAY.match(text):  # "14th" next to a month
            neighbours = [token.doc[j] for j in (token.i - 1, token.i + 1, token.i + 2) if 0 <= j < len(token.doc)]
            if token.i >= 2 and previous.lower_ == "the" and doc[token.i - 2].lower_ in _DATE_CONTEXT | {
                    "to", "til", "'s", "’s", "is", "was"} \
                    and not (token.i + 1 < len(doc) and (doc[token.i + 1].pos_ in ("NOUN", "PROPN")
                                                         or doc[token.i + 1].like_num)):
                return True  # "changed to the 29th", "on the 4th"; not "on the 4th floor"
            return any(t.lower_ in MONTHS or t.lower_ in ABBREVIATIONS for t in neighbours)
        if MERIDIEM.match(text) and token.i and token.nbor(-1).like_num:
            return True
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if re.match(r"^(?:[01]?\d|2[0-4])$", text) and following is not None and following.text.isupper() \
                and following.lower_ in _TIME_ZONES:
            return True  # "at 4 CET"
        return token.like_num and token.i + 1 < len(token.doc) and MERIDIEM.match(token.nbor(1).text) is not None

    def _phrases(self, doc: Any) -> list[tuple[int, int]]:
        """Holiday names and other multiword times ("Hari Raya Puasa", "Good Friday", "public holiday")."""
        table = holiday_phrases()
        found = []
        lowers = [t.lower_.replace("’", "'") for t in doc]
        i = 0
        while i < len(doc):
            best = 0
            for words in table.get(lowers[i], ()):
                n = len(words)
                if n > best and tuple(lowers[i:i + n]) == words:
                    best = n
            if not best and doc[i].text == "National":
                # "National Orange Blossom Day", "National Pineapple Week": days of the calendar.
                n = i + 1
                while n < len(doc) and n - i <= 5 and doc[n].text[:1].isupper() and doc[n].is_alpha \
                        and doc[n].lower_ not in ("day", "week", "month"):
                    n += 1
                if n < len(doc) and n > i + 1 and doc[n].lower_ in ("day", "week", "month") \
                        and doc[n].text[:1].isupper():
                    best = n + 1 - i
            if best and (best > 1 or doc[i].text[:1].isupper()):
                found.append((i, i + best))
                i += best
            else:
                i += 1
        return found

    def tag(self, doc: Any, *, removal: bool = True) -> list[bool]:
        """For each token, whether it is part of a time expression (whole units, for removal). With ``removal``
        (the default), "the future" alone is none: TimeML marks it ("the future of batteries"), but it tells
        nothing of when a post was written ("The future of our youth", "think about the future"; a reader found
        its removal a change without a time); "the near future" (soon) stays a time. ``removal=False`` is the
        TimeML view :meth:`timex_spans` cuts up."""
        marked = self._tag(doc)
        if removal:
            for start, end in runs(marked):
                heads = [j for j in range(start, end) if kind_of(doc[j]) is not None]
                if heads and all(doc[j].lower_ == "future" for j in heads) and not any(
                        doc[j].lower_ in ("near", "distant", "immediate", "foreseeable")
                        for j in range(max(start - 1, 0), end)):
                    marked[start:end] = [False] * (end - start)
        return marked

    def _tag(self, doc: Any) -> list[bool]:
        marked = [False] * len(doc)
        if self.use_entities:
            for ent in doc.ents:
                # A bare number is a time only when it looks like a year ("T 1150", "past three" are not).
                if ent.label_ in TIME_LABELS and not all((t.like_num and not YEAR.match(t.text)) or t.lower_ in
                                                         _NOT_ALONE for t in ent):
                    start, end = ent.start, ent.end
                    # A conjunction at the entity's edge joins clauses, not times ("did last night & probably
                    # will"): a range or list of times is joined again by _join.
                    while end > start and (doc[end - 1].pos_ == "CCONJ" or doc[end - 1].is_punct):
                        end -= 1
                    while start < end and (doc[start].pos_ == "CCONJ" or doc[start].is_punct):
                        start += 1
                    if start + 1 < end and start and doc[start].like_num and YEAR.match(doc[start].text) is None \
                            and doc[start - 1].pos_ in ("NOUN", "PROPN") and doc[start - 1].text[:1].isupper() \
                            and doc[start - 1].lower_ not in TIME_WORDS and doc[start - 1].lower_ not in MONTHS:
                        start += 1  # "Game 2 tonight": the number belongs to the game
                    for i in range(start, end):
                        marked[i] = True
        if self.use_lexicon:
            for token in doc:
                if not marked[token.i] and self._lexical(token):
                    marked[token.i] = True
            for start, end in self._phrases(doc):
                marked[start:end] = [True] * (end - start)
            self._take_in_modifiers(doc, marked)
            self._join(doc, marked)
        self._drop_ages(doc, marked)
        for token in doc:
            if marked[token.i] and EMOJI_ONLY.match(token.text):
                marked[token.i] = False  # the recognizer sometimes labels an emoji ("😴") a TIME
        for token in doc:
            if marked[token.i] and not_a_time(token):
                marked[token.i] = False  # "Man of the year", "James 5:13": also where the recognizer saw a time
                # The rest of its run goes too unless another time word is in it ("the" of "of the year",
                # "Cookie family" of "Cookie family day").
                start = end = token.i
                while start > 0 and marked[start - 1]:
                    start -= 1
                while end + 1 < len(doc) and marked[end + 1]:
                    end += 1
                rest = range(start, end + 1)
                if not any(kind_of(doc[j]) is not None or YEAR.match(doc[j].text) for j in rest if j != token.i):
                    for j in rest:
                        marked[j] = False
        # A run left with determiners only ("Another" of "Another day another afternoon", its day no time) is none.
        for start, end in runs(marked):
            if all((doc[j].lower_ in MODIFIER_WORDS | POSSESSIVE_WORDS | {"another"} and kind_of(doc[j]) is None)
                   or doc[j].lower_ in ORDINAL_MODIFIERS for j in range(start, end)):
                marked[start:end] = [False] * (end - start)
        return marked

    @staticmethod
    def _drop_ages(doc: Any, marked: list[bool]) -> None:
        """An age ("A 16 year old", "18 and 19 year olds", "12yr old") is a duration by its words, but says
        nothing of when: the run it belongs to is not a time."""
        for token in doc:
            if token.lower_ not in ("old", "olds") or token.i == 0:
                continue
            j = token.i - 1
            while j > 0 and doc[j].text == "-":
                j -= 1
            unit = doc[j]
            if unit.lower_ not in AGE_UNITS and not GLUED_AGE.match(unit.text):
                continue
            start = j
            while start > 0 and marked[start - 1]:
                start -= 1
            age = set(range(start, token.i + 1))
            # Its article and modifiers hanging from it ("A fucking 16 year old") go with it.
            age |= {t.i for t in doc if marked[t.i] and t.head.i in age and t.dep_ in ("det", "predet", "amod",
                                                                                     "nummod", "quantmod")}
            for k in age:
                marked[k] = False

    @staticmethod
    def _take_in_modifiers(doc: Any, marked: list[bool]) -> None:
        """Modifiers of a time word belong to the phrase ("this morning", "every day", "a few hours", "right
        now", "1st year")."""
        todo = [t for t in doc if marked[t.i]]
        while todo:
            token = todo.pop()
            for child in token.children:
                if marked[child.i] or is_link(child):
                    continue
                keep = child.dep_ in MODIFIER_DEPS and (child.lower_ in MODIFIER_WORDS or child.like_num or
                                                        ORDINAL.match(child.text) is not None)
                if keep and child.like_num and child.i > token.i and token.lower_ in DEICTIC_DAYS:
                    keep = False  # "Rain today 0.00 in": the amount after "today" is not part of it
                # Describing words ("a very long day") are not taken in: the anonymizer keeps them and
                # generalizes the time word ("a long time"), which reads better than losing them.
                if keep:
                    marked[child.i] = True
                    todo.append(child)

    @staticmethod
    def _join(doc: Any, marked: list[bool]) -> None:
        """Ranges and lists as one unit, "Today's" with its "'s", time hashtags ("#Friday"), "in a bit",
        "day 2"."""
        n = len(doc)
        changed = True
        while changed:
            changed = False
            for i in range(1, n - 1):
                connector = doc[i]
                if marked[i] or not (connector.text == "," or connector.lower_ in _RANGE_WORDS):
                    continue
                if not (marked[i - 1] or marked[i + 1]) or not _joins(connector, doc[i - 1], doc[i + 1]):
                    continue
                marked[i - 1] = marked[i] = marked[i + 1] = changed = True
        for token in doc:
            i = token.i
            if token.text in ("'s", "’s") and i and marked[i - 1] and kind_of(doc[i - 1]) is not None \
                    and token.pos_ not in ("AUX", "VERB"):  # not the verb of "tonight's gonna be"
                marked[i] = True  # "Today's"
            word = hashtag_word(token)
            if word is not None and _is_time_hashtag(word):
                marked[i] = True
                if token.text[:1] != "#":
                    marked[i - 1] = True
            if token.lower_ == "time" and i >= 2 and doc[i - 1].text in ("'s", "’s") and marked[i - 1]:
                marked[i] = True  # "in a week's time"
            if token.lower_ == "here" and i + 1 < n and marked[i + 1] and doc[i + 1].lower_ == "lately":
                marked[i] = True  # "Here lately": recently
            if token.lower_ == "bit" and i >= 2 and doc[i - 1].lower_ == "a" and doc[i - 2].lower_ == "in" and \
                    (i + 1 == n or doc[i + 1].lower_ != "of"):
                marked[i - 1] = marked[i] = True  # "in a bit"
            if marked[i] and token.lower_ in ("day", "week") and i + 1 < n and DAY_NUMBER.match(doc[i + 1].text):
                marked[i + 1] = True  # "Day 2"
            if marked[i] and _category(token) == "month" and i + 1 < n and not marked[i + 1] \
                    and (DAY_NUMBER.match(doc[i + 1].text) or ORDINAL_DAY.match(doc[i + 1].text)):
                marked[i + 1] = True  # "Jun 28 UV index", "July 4 recess": the month was taken, its day goes too
            if (token.lower_ in _TIME_ZONES or token.lower_ == "sharp") and i and marked[i - 1] \
                    and (kind_of(doc[i - 1]) == "clock" or (doc[i - 1].like_num and token.text.isupper())):
                marked[i] = True  # "1.10pm SGT", "at 5am sharp"
            if token.lower_ in ("this", "last", "next", "every", "each") and i + 1 < n and marked[i + 1] \
                    and not marked[i] and kind_of(doc[i + 1]) is not None:
                marked[i] = True  # "2-0 this evening": the parser hung "this" elsewhere
            if token.lower_ == "time" and i and marked[i - 1] and kind_of(doc[i - 1]) in ("part_of_day", "period") \
                    and doc[i - 1].lower_ in PART_OF_DAY | SEASONS | {"day"}:
                marked[i] = True  # "in the night time", "winter time"
            if (ORDINAL.match(token.text) or token.lower_ in ("first", "second", "third")) and i + 1 < n and \
                    marked[i + 1] and not marked[i]:
                marked[i] = True  # "1st Year", "2nd last day"
            if token.lower_ == "of" and i + 1 < n and i >= 1 and doc[i - 1].lower_ in _OF_HEADS and \
                    (marked[i + 1] or (i + 2 < n and doc[i + 1].lower_ in ("the", "this") and marked[i + 2])):
                marked[i - 1:i + 2] = [True] * 3  # "the start of spring", "end of the month"
                if i >= 2 and doc[i - 2].lower_ in ("the", "a", "an"):
                    marked[i - 2] = True
            if MILITARY.match(token.text) and i >= 2 and doc[i - 1].text == "," and marked[i - 2] and \
                    not marked[i]:
                marked[i - 1] = marked[i] = True  # "this Fri night, 2359"
            if re.match(r"^(?:[1-9]|1[0-2])(?:[:.][0-5]\d)?$", token.text) and i >= 2 and not marked[i] \
                    and doc[i - 1].lower_ in ("@", "at") and marked[i - 2] \
                    and _category(doc[i - 2]) in ("weekday", "part_of_day") \
                    and not (i + 1 < n and doc[i + 1].pos_ in ("NOUN", "PROPN") and kind_of(doc[i + 1]) is None):
                marked[i - 1] = marked[i] = True  # "thurs @ 8", "tonight at 7": the hour of that day
        for token in doc:
            i = token.i
            if marked[i] or not AM_PM.match(token.text) or i < 1:
                continue
            if i >= 2 and doc[i - 1].lower_ == "the" and doc[i - 2].lower_ == "in":
                marked[i - 2:i + 1] = [True] * 3  # "tomorrow in the a.m!": the morning of that day
            elif "." in token.text and (marked[i - 1] or _category(doc[i - 1]) == "weekday"):
                marked[i] = True  # "Monday a.m."

    def spans(self, doc: Any) -> list[tuple[int, int]]:
        """Runs of marked tokens as (start, end) token indices: the units the anonymizer removes."""
        return runs(self.tag(doc))

    def timex_spans(self, doc: Any) -> list[tuple[int, int]]:
        """TimeML TIMEX3 spans (token start, end): ranges split at "-", "to" ("10", "12 October"), lists split
        at commas between items of one kind ("this Friday", "Saturday"; but "this Sat, 7pm" is one), no
        trailing "'s", no describing words in front ("a long weekend" -> "weekend", "about 2 hours" -> "2
        hours"), no hashtags, and no spans of determiners or modifiers alone."""
        out = []
        phrase_tokens = {i for start, end in self._phrases(doc) for i in range(start, end)} if self.use_lexicon \
            else set()
        timeml = runs(self.tag(doc, removal=False))
        is_head = [kind_of(t) is not None or t.i in phrase_tokens or QUARTER.match(t.text) is not None
                   for t in doc]
        for start, end in timeml:
            run_has_head = any(is_head[start:end])
            for s, e in _split(doc, start, end, is_head):
                s, e = _trim(doc, s, e, is_head)
                if s >= e:
                    continue
                tokens = doc[s:e]
                if any(is_head[s:e]):
                    if all(t.lower_ in _NOT_TIMEX_ALONE or not is_head[t.i] for t in tokens):
                        continue
                elif not (run_has_head and all(t.like_num or ORDINAL.match(t.text) for t in tokens)):
                    continue  # "a", "the", "this" alone; numbers only as a part of a range ("10" of "10-12 May")
                out.append((s, e))
        return out


def _is_hashtag(token: Any) -> bool:
    return token.text == "#" or hashtag_word(token) is not None


def _split(doc: Any, start: int, end: int, is_head: list[bool]) -> list[tuple[int, int]]:
    pieces, s = [], start
    for i in range(start, end):
        token = doc[i]
        cut = _is_hashtag(token) or (token.is_punct and token.text not in ("'s", "’s", "+", ",")) or \
            token.lower_ in _RANGE_WORDS
        if token.text == "+" and not (token.whitespace_ and i and doc[i - 1].whitespace_):
            cut = False  # "1+ hr", "10:12+"
        if token.text == ",":
            left_day = any(_category(doc[j]) in ("weekday", "part_of_day") for j in range(s, i))
            cut = not (left_day and i + 1 < end and _category(doc[i + 1]) == "clock")
        of_time = i + 1 < end and (is_head[i + 1] or (doc[i + 1].lower_ in ("the", "this") and i + 2 < end and
                                                      is_head[i + 2]))
        after_head = i > start and (doc[i - 1].lower_ in _OF_HEADS or is_head[i - 1])
        if token.lower_ == "of" and not (after_head and of_time):
            cut = True  # "3rd semester of college"; not "start of spring"
        other = not is_head[i] and token.lower_ not in _TIMEX_KEEP and not token.like_num and \
            not ORDINAL.match(token.text)
        if not cut and token.text != "," and other and s < i and any(is_head[s:i]) and i + 1 < end:
            cut = True  # a word that is not a time inside the run: "Last Minute Street Crew", "2 days mc"
        if cut:
            pieces.append((s, i))
            s = i + 1
    pieces.append((s, end))
    return [(a, b) for a, b in pieces if a < b]


def _trim(doc: Any, s: int, e: int, is_head: list[bool]) -> tuple[int, int]:
    def keeps(t: Any) -> bool:
        return is_head[t.i] or t.lower_ in _TIMEX_KEEP or t.like_num or ORDINAL.match(t.text) is not None

    while e > s and (doc[e - 1].text in ("'s", "’s") or doc[e - 1].is_punct or
                     not (keeps(doc[e - 1]) or doc[e - 1].lower_ in _TIME_ZONES) or
                     (doc[e - 1].lower_ == "later" and e - 1 > s and kind_of(doc[e - 2]) == "duration") or
                     doc[e - 1].lower_ in ("of", "than", "the", "a", "an", "more", "+")):
        e -= 1
    heads = [i for i in range(s, e) if is_head[i]]
    first = heads[0] if heads else e
    describing = [i for i in range(s, first) if not keeps(doc[i]) or
                  (doc[i].lower_ == "right" and not (i + 1 < e and doc[i + 1].lower_ == "now"))]
    if describing:
        s = describing[-1] + 1
    while s < e and (doc[s].is_punct or doc[s].text == "+"):
        s += 1
    if s + 1 < e and doc[s].lower_ in ("a", "an") and doc[s + 1].like_num:
        s += 1  # "an 15 hours"
    return s, e


def runs(flags: Iterable[bool]) -> list[tuple[int, int]]:
    """(start, end) of every run of true flags."""
    found, start = [], None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            found.append((start, i))
            start = None
    return found
