"""The time tagger: marks the tokens of a parsed post that express a time (the entity recognizer and the
lexicon), joined into units for removal (:meth:`TimeTagger.tag`) or split into TimeML spans."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from anonymizer.recognize.time_words import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    ORDINAL_MODIFIERS,
    PARTS_AFTER_A_DAY,
    TIME_WORDS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from anonymizer.temporal.normalize import EMOJI_ONLY
from anonymizer.temporal.tagging.not_a_time import not_a_time
from anonymizer.temporal.tagging.words import (
    ABBREVIATIONS,
    AGE_UNITS,
    AM_PM,
    BIRTHDAY_DATING,
    CLOCK,
    CLOCK_CONTEXT,
    DATE_CONTEXT,
    DATE_SHAPE,
    DAY_NUMBER,
    DEICTIC_DAYS,
    GLUED_AGE,
    GLUED_DURATION,
    MERIDIEM,
    MILITARY,
    MODIFIER_DEPS,
    MODIFIER_WORDS,
    NOT_ALONE,
    NOT_TIMEX_ALONE,
    OF_HEADS,
    ORDINAL,
    ORDINAL_DAY,
    ORDINAL_TIME_WORDS,
    PART_OF_DAY,
    POSSESSIVE_WORDS,
    QUARTER,
    RANGE_WORDS,
    RAYA_AFTER,
    RAYA_BEFORE,
    SEASON_VERBS,
    SEASONS,
    TIME_LABELS,
    TIME_ZONES,
    TIMEX_KEEP,
    UNIT_ABBREVIATIONS,
    YEAR,
    category,
    hashtag_word,
    holiday_phrases,
    is_link,
    is_time_hashtag,
    joins,
    kind_of,
    near_date,
    next_to_month,
)


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
            return token.text[:1].isupper() and token.tag_ != "MD" and (near_date(token) or month_in) \
                and (not after_name or (year_after and lower in MONTH_ABBREVIATIONS))
        if lower in UNIT_ABBREVIATIONS:
            return token.i > 0 and token.nbor(-1).like_num
        text = token.text
        if QUARTER.match(text):  # "Q3"
            return True
        if re.match(r"^'?\d{2}$", text) and previous is not None and (previous.lower_ in SEASONS or (
                previous.lower_ == "of" and token.i >= 2 and doc[token.i - 2].lower_ in SEASONS)):
            return True  # "All summer 17", "fall of 18": the season's year
        if DAY_NUMBER.match(text) and next_to_month(token):  # "26 April 2014", "May 5", "12 Oct"
            return True
        if token.i > 0 and token.nbor(-1).text in ("#", ":") and not token.nbor(-1).whitespace_:  # "#1:18": a scale
            return False
        if ":" in text and not_a_time(token):
            return False
        if MILITARY.match(text) and previous is not None and previous.lower_ in CLOCK_CONTEXT:  # "at 1435"
            return True
        if CLOCK.match(text) or DATE_SHAPE.match(text) or YEAR.match(text) or GLUED_DURATION.match(text):
            return True
        if ORDINAL_DAY.match(text):  # "14th" next to a month
            neighbours = [token.doc[j] for j in (token.i - 1, token.i + 1, token.i + 2) if 0 <= j < len(token.doc)]
            if token.i >= 2 and previous.lower_ == "the" and doc[token.i - 2].lower_ in DATE_CONTEXT | {
                    "to", "til", "'s", "’s", "is", "was"} \
                    and not (token.i + 1 < len(doc) and (doc[token.i + 1].pos_ in ("NOUN", "PROPN")
                                                         or doc[token.i + 1].like_num)):
                return True  # "changed to the 29th", "on the 4th"; not "on the 4th floor"
            return any(t.lower_ in MONTHS or t.lower_ in ABBREVIATIONS for t in neighbours)
        if MERIDIEM.match(text) and token.i and token.nbor(-1).like_num:
            return True
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if re.match(r"^(?:[01]?\d|2[0-4])$", text) and following is not None and following.text.isupper() \
                and following.lower_ in TIME_ZONES:
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
                                                         NOT_ALONE for t in ent):
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
                if marked[i] or not (connector.text == "," or connector.lower_ in RANGE_WORDS):
                    continue
                if not (marked[i - 1] or marked[i + 1]) or not joins(connector, doc[i - 1], doc[i + 1]):
                    continue
                marked[i - 1] = marked[i] = marked[i + 1] = changed = True
        for token in doc:
            i = token.i
            if token.text in ("'s", "’s") and i and marked[i - 1] and kind_of(doc[i - 1]) is not None \
                    and token.pos_ not in ("AUX", "VERB"):  # not the verb of "tonight's gonna be"
                marked[i] = True  # "Today's"
            word = hashtag_word(token)
            if word is not None and is_time_hashtag(word):
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
            if marked[i] and category(token) == "month" and i + 1 < n and not marked[i + 1] \
                    and (DAY_NUMBER.match(doc[i + 1].text) or ORDINAL_DAY.match(doc[i + 1].text)):
                marked[i + 1] = True  # "Jun 28 UV index", "July 4 recess": the month was taken, its day goes too
            if (token.lower_ in TIME_ZONES or token.lower_ == "sharp") and i and marked[i - 1] \
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
            if token.lower_ == "of" and i + 1 < n and i >= 1 and doc[i - 1].lower_ in OF_HEADS and \
                    (marked[i + 1] or (i + 2 < n and doc[i + 1].lower_ in ("the", "this") and marked[i + 2])):
                marked[i - 1:i + 2] = [True] * 3  # "the start of spring", "end of the month"
                if i >= 2 and doc[i - 2].lower_ in ("the", "a", "an"):
                    marked[i - 2] = True
            if MILITARY.match(token.text) and i >= 2 and doc[i - 1].text == "," and marked[i - 2] and \
                    not marked[i]:
                marked[i - 1] = marked[i] = True  # "this Fri night, 2359"
            if re.match(r"^(?:[1-9]|1[0-2])(?:[:.][0-5]\d)?$", token.text) and i >= 2 and not marked[i] \
                    and doc[i - 1].lower_ in ("@", "at") and marked[i - 2] \
                    and category(doc[i - 2]) in ("weekday", "part_of_day") \
                    and not (i + 1 < n and doc[i + 1].pos_ in ("NOUN", "PROPN") and kind_of(doc[i + 1]) is None):
                marked[i - 1] = marked[i] = True  # "thurs @ 8", "tonight at 7": the hour of that day
        for token in doc:
            i = token.i
            if marked[i] or not AM_PM.match(token.text) or i < 1:
                continue
            if i >= 2 and doc[i - 1].lower_ == "the" and doc[i - 2].lower_ == "in":
                marked[i - 2:i + 1] = [True] * 3  # "tomorrow in the a.m!": the morning of that day
            elif "." in token.text and (marked[i - 1] or category(doc[i - 1]) == "weekday"):
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
                    if all(t.lower_ in NOT_TIMEX_ALONE or not is_head[t.i] for t in tokens):
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
            token.lower_ in RANGE_WORDS
        if token.text == "+" and not (token.whitespace_ and i and doc[i - 1].whitespace_):
            cut = False  # "1+ hr", "10:12+"
        if token.text == ",":
            left_day = any(category(doc[j]) in ("weekday", "part_of_day") for j in range(s, i))
            cut = not (left_day and i + 1 < end and category(doc[i + 1]) == "clock")
        of_time = i + 1 < end and (is_head[i + 1] or (doc[i + 1].lower_ in ("the", "this") and i + 2 < end and
                                                      is_head[i + 2]))
        after_head = i > start and (doc[i - 1].lower_ in OF_HEADS or is_head[i - 1])
        if token.lower_ == "of" and not (after_head and of_time):
            cut = True  # "3rd semester of college"; not "start of spring"
        other = not is_head[i] and token.lower_ not in TIMEX_KEEP and not token.like_num and \
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
        return is_head[t.i] or t.lower_ in TIMEX_KEEP or t.like_num or ORDINAL.match(t.text) is not None

    while e > s and (doc[e - 1].text in ("'s", "’s") or doc[e - 1].is_punct or
                     not (keeps(doc[e - 1]) or doc[e - 1].lower_ in TIME_ZONES) or
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
