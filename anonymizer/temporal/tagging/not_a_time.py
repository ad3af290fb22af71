"""Time words that say no time where they stand (:func:`not_a_time`): part of a name, a title, an idiom, a rate,
a verse, a person's day, a distance."""

from __future__ import annotations

import re
from typing import Any

from anonymizer.recognize.time_words import (
    MONTHS,
    PERSON_MONTHS,
    SPEECH_VERBS,
    TIME_WORDS,
    WEEKDAYS,
)
from anonymizer.temporal.normalize import EMOJI_ONLY
from anonymizer.temporal.tagging.words import (
    ABBREVIATIONS,
    CLOCK,
    DATE_CONTEXT,
    DATE_SHAPE,
    EVALUATIVE_WORDS,
    MAKE_FORMS,
    MERIDIEM,
    OF_HEADS,
    ORDINAL,
    ORDINAL_DAY,
    POSSESSIVE_WORDS,
    RATE_WORDS,
    ROUTINE_WORDS,
    SCHOOL_YEARS,
    SCRIPTURE_BOOKS,
    SEASON_VERBS,
    SEASONS,
    TIME_ZONES,
    YEAR,
    hashtag_word,
    is_link,
    kind_of,
    sentence_start,
)


def not_a_time(token: Any) -> bool:
    """A time word that says no time where it stands: part of a name, a title, an idiom, a rate, a verse, a
    person's day. Checked for the lexicon's words and again over the entity recognizer's (which sees
    "Man of the year", "made my day" as dates)."""
    lower = token.lower_
    doc = token.doc
    previous = doc[token.i - 1] if token.i else None
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if any(check(token, lower, previous, following) for check in FIRST_CHECKS):
        return True
    if lower == "night" and ((following is not None and following.lower_ == "night")
                             or (previous is not None and previous.lower_ == "night")):
        first = token.i - 1 if previous is not None and previous.lower_ == "night" else token.i
        before = doc[first - 1] if first else None
        # 'say "night night"': the bedtime word mentioned; as the writer's own goodnight ("... night night
        # #birchersbitches", round 17) it tells a reader it is bedtime, as "goodnight" does.
        return before is not None and (before.lower_ in SPEECH_VERBS | {"say", "saying", "sang", "sing"}
                                       or before.text in ('"', "'", "“", "‘"))
    return any(check(token, lower, previous, following) for check in LAST_CHECKS)


def _a_name_or_a_show(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A title ("Man of the year"), a band, a store or a show named with a time word."""
    doc = token.doc
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
    return False


def _a_rate_routine_or_idiom(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A rate ("per month"), a routine ("cheat day") or an idiom of a person's day ("made my day",
    "back in the day", "a new day")."""
    doc = token.doc
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
    return False


def _a_verse_fraction_or_thread(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A verse ("Job 41:22"), a size, a fraction or the parts of a thread ("(1/2)")."""
    doc = token.doc
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
    return False


def _a_count_show_or_milestone(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A place in a show, a shift, a verb, a count or a frequency ("twice a day", "5 years in a row"), a
    judged day ("have a great day"), a milestone or a ticket."""
    doc = token.doc
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
    return False


def _a_saying_score_or_name(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A saying ("It's 5 pm somewhere"), a score, a race time, a pace, a model year, a hope, a person or a
    name ("Tonight Dough"), a trait ("a morning person")."""
    doc = token.doc
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
            and hashtag_word(token) is None:  # a hashtag's short year is read by is_time_hashtag ("#IAAE17")
        return True  # "into ABC5": a station or a model, not a time
    if re.match(r"^\d:\d{2}:\d{2}$", token.text) and not (previous is not None and previous.lower_ in ("at", "@")) \
            and not (following is not None and following.lower_ in TIME_ZONES):
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
            and not sentence_start(token) and previous.lower_ not in ("and", "&", "or", ",") \
            and following is not None and following.text[:1].isupper() \
            and following.is_alpha and kind_of(following) is None and not following.is_upper:
        return True  # "England wants Tonight Dough", "in Daily Caller": a name
    if lower in ("morning", "night") and following is not None and following.lower_ in ("person", "people", "owl"):
        return True  # "I'm slowly becoming a morning person": a trait
    return False


def _a_protest_money_or_saying(token: Any, lower: str, previous: Any, following: Any) -> bool:
    """A protest ("that march"), money, a score, a saying ("not promised tomorrow"), a stage of life,
    mornings in general, a hot spring, "late" as what something is."""
    doc = token.doc
    after_next = doc[token.i + 2] if token.i + 2 < len(doc) else None
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
            or doc[token.i - 2].is_punct or sentence_start(doc[token.i - 1])
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
    return False


# The checks of not_a_time, in order: the first that finds no time decides ("night night" decides between them).
FIRST_CHECKS = (_a_name_or_a_show, _a_rate_routine_or_idiom, _a_verse_fraction_or_thread, _a_count_show_or_milestone,
                _a_saying_score_or_name)


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
_TITLE_BLOCKERS = DATE_CONTEXT | frozenset("happy at see for by until till til about to of in".split())
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
            and not (previous is None or sentence_start(token)):
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


LAST_CHECKS = (_a_protest_money_or_saying, _named_or_generic_not_a_time)

# Time words that close a title "<Noun> of the <unit>" ("Player of the Month", "Song of the Summer").
TITLE_UNITS = frozenset("year day week month season night decade century weekend".split()) | SEASONS
# "Good Morning America", "Good Morning Britain": shows, not greetings.
SHOWS_AFTER_GOOD_MORNING = frozenset("America Britain Football".split())


def _title_head(head: Any) -> bool:
    """Whether ``head`` opens a title "<Noun> of the <unit>": a noun, or a capitalized word (the parser takes "Quote"
    of "Quote of the Day" for a verb), that is no part of a time ("the end of the year"), no time itself ("the
    best time of the year", "the last day of the month") and not counted ("27th book of the year")."""
    lower = head.lower_
    if not head.is_alpha or lower in OF_HEADS or lower in TIME_WORDS or lower == "time":
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
