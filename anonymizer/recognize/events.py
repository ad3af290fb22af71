"""Dated events (DATE): phrases that pin a post to a day as surely as the date itself.

"today is the 70th anniversary of the abolition of prohibition" dates a post to 5 December 2003 while its date
column is released as [2002-2004]. Only patterns that pin a date are taken:

* an anniversary of something: ``the 70th anniversary of the abolition of prohibition``, ``the one-year
  anniversary of his death``, ``the anniversary of the moon landing`` (up to eight words after "of", to the
  end of the clause: a comma, a full stop, "and", "but", "today", ...);
* the day (night, morning, week, year) a named someone or something died, was born, was elected, ...:
  ``the day Reagan died``, ``the night Kurt Cobain died``, ``the day the Berlin Wall fell`` (a capitalised
  name: "the day my dog died" pins nothing anyone else knows);
* the day (night, eve) of a capitalised event: ``the night of the Oscars``, ``the day of the Super Bowl``.

The spans are strong: they replace spaCy's entities inside them ("70th" ORDINAL, "the day" DATE, "Reagan"
PERSON), since what must go is the whole phrase.
"""

from __future__ import annotations

import re

from anonymizer.recognize.time_words import MONTHS, WEEKDAYS

_ORDINAL = (r"(?:\d{1,3}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
            r"|eleventh|twelfth|fifteenth|twentieth|twenty-fifth|thirtieth|fortieth|fiftieth|sixtieth"
            r"|seventieth|seventy-fifth|eightieth|ninetieth|hundredth|one[- ]year|two[- ]year|\d{1,3}[- ]year"
            r"|(?:ten|five|twenty|fifty|hundred)[- ]year|centennial|bicentennial)")
_PERIOD = r"(?:day|night|morning|afternoon|evening|week|weekend|month|year|summer|winter|spring|fall|autumn)"
_NAME_WORD = r"(?:[A-Z][\w'’.-]*|of|the|de|van|von)"
_VERBS = (r"died|passed away|was born|were born|was killed|were killed|was shot|got shot|was assassinated"
          r"|was elected|got elected|was re-elected|was inaugurated|was sworn in|was arrested|was executed"
          r"|was captured|was buried|was crowned|was released|resigned|fell|came down|exploded|crashed|sank"
          r"|collapsed|landed|was attacked|were attacked|was bombed|invaded|surrendered|got married|was married"
          r"|married|divorced|won the|lost the|retired|shot himself|killed himself")
# Where the event's description ends: punctuation, or a word that starts a new clause.
_CLAUSE_END = frozenset("""
and but or so because since which that who whom whose when where while if though although as is was are were
will would today tonight yesterday tomorrow now this i we you he she they it there here
""".split())

_EVENT_PATTERN = re.compile(
    r"(?<![\w'’-])(?:"
    rf"(?P<anniversary>(?:[Tt]he|[Oo]ur|[Mm]y|[Hh]is|[Hh]er|[Tt]heir|[Ii]ts)[ ](?:{_ORDINAL}[ ])?anniversary[ ]of[ ])"
    rf"|(?P<died>[Tt]he[ ]{_PERIOD}[ ](?:that[ ]|when[ ])?(?:the[ ])?[A-Z][\w'’.-]*(?:[ ]{_NAME_WORD}){{0,3}}"
    rf"[ ](?:{_VERBS})(?![\w'’-]))"
    rf"|(?P<of>[Tt]he[ ](?:day|night|eve|morning|evening)[ ]of[ ]the[ ][A-Z][\w'’.-]*(?:[ ][A-Z][\w'’.-]*){{0,3}})"
    r")")
# Capitalised words before the verb that name no public someone.
_NOT_PUBLIC = frozenset("""
i we he she they it my our his her their your mom mum dad mommy daddy mother father grandma grandpa granny nana
papa grandmother grandfather aunt auntie uncle sis bro brother sister god jesus
""".split())
_WORD = re.compile(r"[\w'’-]+")
# Every event but an anniversary has "he day ", "he night of " ...: a literal re finds fast.
_GATE = re.compile(rf"he[ ](?:{_PERIOD}|eve)[ ]")
#: Most words taken after "anniversary of".
MAX_DESCRIPTION_WORDS = 8


def event_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "DATE") spans of dated events, sorted and non-overlapping."""
    found: list[tuple[int, int, str]] = []
    if "anniversary" not in text and _GATE.search(text) is None:
        return found
    for m in _EVENT_PATTERN.finditer(text):
        if m.group("anniversary"):
            end = _description_end(text, m.end())
            if end is None:
                continue
            start = m.start()
            if not text[start:start + 3].lower() == "the" and not re.search(_ORDINAL, m.group("anniversary")):
                continue                                # "our anniversary of dating": personal, no date
            found.append((start, end, "DATE"))
        elif m.group("died"):
            span = m.group("died")
            name = re.sub(rf"^[Tt]he[ ]{_PERIOD}[ ](?:that[ ]|when[ ])?", "", span)
            if name.split()[0].lower() in _NOT_PUBLIC:
                continue                                # "the day I died", "the day Mom died": no public date
            found.append((m.start(), m.end(), "DATE"))
        else:
            found.append((m.start(), m.end(), "DATE"))
    return found


def _description_end(text: str, start: int) -> int | None:
    """End of what an anniversary is "of": up to the clause's end, at most MAX_DESCRIPTION_WORDS words."""
    end = None
    pos = start
    for count in range(MAX_DESCRIPTION_WORDS):
        m = _WORD.match(text, pos)
        if m is None:
            break
        word = m.group().lower()
        if count and word in _CLAUSE_END:
            break
        end = m.end()
        gap = re.match(r"[ ]+(?=[\w'’])", text[end:end + 3])
        if gap is None:
            break
        pos = end + gap.end()
    return end


# ------------------------------------------------------------------------------------------ named events

# The last word of an event's name: "Winter Madness Weekend", "the 4th Winter Madness weekend", "Spring Fling
# Prom", "Relay for Life" is not taken (no head word). The head may be lower case after capitalised words.
_EVENT_HEADS = (r"[Ww]eekend|[Nn]ight|[Ff]estival|[Ff]est|[Pp]arty|[Bb]all|[Pp]rom|[Cc]amp|[Rr]etreat|[Cc]oncert"
                r"|[Tt]ournament|[Cc]onference|[Cc]onvention|[Ee]xpo|[Ff]air|[Pp]arade|[Mm]arathon|[Rr]eunion|[Gg]ala"
                r"|[Jj]amboree|[Ss]howcase|[Cc]hampionships?|[Ii]nvitational|[Bb]ash|[Rr]ally|[Ss]ummit|[Cc]arnival"
                r"|[Tt]our|[Gg]ames")
_NAMED_EVENT = re.compile(
    r"(?<![\w'’&-])(?:(?:\d{1,3}(?:st|nd|rd|th)|[Aa]nnual) )?"
    r"(?P<name>[A-Z][\w'’&-]*(?: [A-Z][\w'’&-]*){0,3}) "
    rf"(?:{_EVENT_HEADS})(?![\w'’-])")
# Capitalised words that name no event by themselves: "Friday Night", "This Weekend", "Christmas Party".
_NOT_EVENT_NAMES = frozenset("""
this that last next every each the a an my our his her their your its one some any all
weekend tonight tomorrow yesterday today good great big fun long late early
christmas xmas halloween easter thanksgiving birthday bday new year years year's night day i it we he she they
""".split())
_GATE_HEADS = re.compile(rf"(?:{_EVENT_HEADS})(?![\w'’-])")


def named_event_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "EVENT") of named events: capitalised words and an event word ("Winter Madness Weekend",
    "the 4th Winter Madness weekend"), not inside a Title Case line and not made of time words alone."""
    if _GATE_HEADS.search(text) is None:
        return []
    found: list[tuple[int, int, str]] = []
    for m in _NAMED_EVENT.finditer(text):
        words = [w.lower().strip("'’") for w in m.group("name").split()]
        if all(w in _NOT_EVENT_NAMES or w in WEEKDAYS or w in MONTHS or w == "may" for w in words) \
                or any(w in _FUNCTION_WORDS for w in words):
            continue                                    # "Friday Night"; "It Was A Great Party" (Title Case)
        before = text[:m.start()].rstrip(" ")
        previous = re.search(r"([\w'’-]+)\W*$", before)
        if previous and previous.group(1)[:1].isupper() and before.endswith(previous.group(1)):
            continue                                    # inside a Title Case line: "Had A Great Party"
        found.append((m.start(), m.end(), "EVENT"))
    return found


_FUNCTION_WORDS = frozenset("""
a an the is was are were be been am had has have do did does to of and or in on at for with it i my we you he
she they this that what so but if as our your their his her
""".split())

