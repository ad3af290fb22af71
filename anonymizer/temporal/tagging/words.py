"""The words and shapes of times the tagger reads: the lexicon, clock and date shapes, hashtag times,
the kinds of time words (:func:`kind_of`) and what joins the parts of a range or a list."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from anonymizer.recognize.time_words import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    TIME_WORDS,
    WEEKDAYS,
)
from anonymizer.texts import gettext_noop

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
CLOCK_CONTEXT = frozenset("at till until til by from before after around abt about @ ~ to - since".split())
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
# Entity words that are no time on their own ("the past", "annual" in "$7700 annual out-of-pocket": a rate).
NOT_ALONE = frozenset("past the few several annual".split())
UNIT_ABBREVIATIONS = frozenset("min mins sec secs hr hrs wk wks yr yrs".split())
DATE_CONTEXT = frozenset("on this next last every by till until since from before after".split())


DAY_NUMBER = re.compile(r"^(?:0?[1-9]|[12]\d|3[01])$")


def next_to_month(token: Any) -> bool:
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


def near_date(token: Any) -> bool:
    doc = token.doc
    for j in (token.i - 2, token.i - 1, token.i + 1, token.i + 2):
        if 0 <= j < len(doc):
            other = doc[j]
            if other.like_num or other.lower_ in MONTHS or other.lower_ in WEEKDAYS or ORDINAL_DAY.match(other.text):
                return True
            if other.lower_ in TIME_WORDS and other.lower_ not in ("may",):
                return True
    return token.i > 0 and doc[token.i - 1].lower_ in DATE_CONTEXT


#: The granularity of a time word, for keeping coarse expressions ("in the morning") while cutting precise ones.
#: The granularities of time words, with what each covers (the option to keep some of them).
#: Shown translated (gettext(label)) in the web app.
KIND_LABELS = {"clock": gettext_noop("clock times (9AM)"),
               "part_of_day": gettext_noop("parts of the day (in the morning)"),
               "day": gettext_noop("days and dates (on Monday)"), "period": gettext_noop("weeks, months, seasons"),
               "duration": gettext_noop("durations (for 2 hours)"), "now": gettext_noop("now, soon, later")}
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
    if MILITARY.match(text) and token.i and token.nbor(-1).lower_ in CLOCK_CONTEXT:
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
RANGE_WORDS = frozenset("- – — ~ to through thru till until and & or".split())
_DATE_CATEGORIES = frozenset({"number", "month", "weekday", "year", "date"})
TIME_ZONES = frozenset("sgt gmt utc est edt cst cdt mst mdt pst pdt cet cest bst ist jst hkt aest wib myt et ct pt mt"
                        .split())
# Words TimeML keeps in front of (or behind) the time word; any other word before it describes it ("a long
# weekend", "about 2 hours", "the good old days") and stays out of the TimeML span.
TIMEX_KEEP = MODIFIER_WORDS | frozenset("ago more than less of + mid early late another recent upcoming single"
                                         .split())
# Nouns naming a part of a time ("the start of spring", "the rest of the week"): with it they make one expression.
PART_OF_HEADS = frozenset("start end beginning middle rest part half mid".split())
OF_HEADS = PART_OF_HEADS | {"couple"}  # "a couple of days" too
NOT_TIMEX_ALONE = frozenset("soon later season seasons".split())


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


def is_time_hashtag(word: str) -> bool:
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


def category(token: Any) -> str | None:
    """What a part of a range or list is: a weekday, a month, a day number, a clock time, a year, a date."""
    text, lower = token.text, token.lower_.rstrip(".")
    if lower in WEEKDAYS or (lower in ABBREVIATIONS and lower not in MONTH_ABBREVIATIONS and text[:1].isupper()):
        return "weekday"
    if lower in MONTHS or (lower in MONTH_ABBREVIATIONS and text[:1].isupper()) or text == "May":
        return "month"
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    previous = token.doc[token.i - 1] if token.i else None
    military = MILITARY.match(text) and previous is not None and \
        (previous.lower_ in CLOCK_CONTEXT or previous.text == ",")
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


def joins(connector: Any, left: Any, right: Any) -> bool:
    """Whether ``connector`` between two parts makes one range or list of them."""
    a, b = category(left), category(right)
    if a is None or b is None:
        return False
    if connector.text == ",":
        return a == b or (a in ("weekday", "part_of_day") and b == "clock") or (a, b) == ("number", "year")
    if connector.lower_ in ("and", "&", "or"):
        return a == b or {a, b} <= {"number", "month"}
    return (a in _DATE_CATEGORIES and b in _DATE_CATEGORIES) or {a, b} <= {"clock", "number"} or a == b


def sentence_start(token: Any) -> bool:
    return token.i == 0 or token.doc[token.i - 1].text in (".", "!", "?", "...", "..")
