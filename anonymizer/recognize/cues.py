"""Organisations and venues named after a cue (ORG), street grids and named streets (FAC).

Organisations by cue. After a lower-case cue word, mid-sentence, one space on:
``from``, ``at``, ``with``, ``joined`` / ``join``, ``attend(s|ed|ing)``, ``work(s|ed|ing) for|at|with``,
``stud(y|ies|ied|ying) at``, ``teach(es|ing) at`` / ``taught at``, ``intern(ed|ing) at|for``, ``employed by``,
``hired by``, ``go(es|ing) to`` / ``went to`` / ``transferred to`` / ``applied to``; and ``Go Bills!``:

* a run of capitalised words (up to five; "of", "&", "'s" inside: "Long John Silver's", "Bank of Montreal")
  that is not ordinary in that position: a capitalised word mid-sentence is a name unless it is a word people
  capitalise anyway (God, Mom, Church, School, Mass, Uni, the subjects), a month, a weekday, a holiday, a
  function word ("with Him"), or, alone, a common English word ("at Target" is lost, "at Church", "at Work",
  "from Heaven" stay); "I secured one with Enterprise" and "at Strummers" are taken;
* an acronym: two to five capitals that are no common word shouted ("from RGS", "at NUS"; not "at ALL"),
  or, after ``from``, ``at``, ``joined`` and the work and study cues, three to five lower-case letters without
  a vowel that are no chat abbreviation ("she was from rgs!", "at klcc"; not "at sch", "from tmr", "ppl").

Lower-case words after a cue stay ("from home", "at work", "with love", "from my mom", "joined the army"), as do
numbers ("at 5") and everything after a capitalised cue ("Greetings From Asbury Park" is a title). A candidate
after a capitalised word that is not the first of its sentence is skipped as Title Case ("Dinner At Home"). The
spans fill gaps: spaCy's entities and the lexicons' names and places win where they overlap.

Streets (FAC, strong: they replace the spaCy spans they contain, "5th" tagged ORDINAL): numbered streets and
avenues ("5th Ave", "42nd St.", "West 4th Street", "Fifth Avenue"), lettered avenues ("Ave B", "Avenue A"),
and capitalised names before a street word ("Loony-Bin Lane", "Main Street", "Elm St."), not idioms
("Memory Lane", "Easy Street").
"""

from __future__ import annotations

import re
from functools import lru_cache

from anonymizer.recognize.frequency import word_frequency
from anonymizer.recognize.time_words import MONTHS, WEEKDAYS

#: One capitalised word alone after a cue is a name only when it is rarer than this as a word ("Enterprise"
#: 5,537, "Starbucks" 420; "Target" 68,096, "Church" 72,884 stay).
COMMON_FREQUENCY = 10_000
#: Function words ("The", "My", "His") are never a name.
FUNCTION_FREQUENCY = 400_000
#: A lower-case acronym must be rarer than this as a word ("sky", "gym", "myth" are words).
RARE_FREQUENCY = 100
#: Longest run of capitalised words taken after a cue.
MAX_RUN = 5

# Cues, lower case: one word, or a verb and a preposition. "Strong" ones also take a lower-case acronym after them.
_STRONG_CUES = frozenset("from at joined join joining joins attend attends attended attending".split())
_WEAK_CUES = frozenset(["with"])
_VERB_CUES = {      # preposition -> verbs before it that make it a cue (strong: True)
    **{prep: {v: True for v in "work works worked working intern interns interned interning volunteer volunteers "
                               "volunteered volunteering".split()} for prep in ("for", "with")},
    "at": {},
    "in": {v: True for v in "study studies studied studying teach teaches teaching taught enrolled enroll".split()},
    "by": {v: True for v in "employed hired sponsored powered hosted provided owned operated published you".split()},
    "to": {v: False for v in "go goes going went gone transferred transfer applied apply accepted admitted".split()},
}
# A capitalised word: letters, one apostrophe or hyphen or "&" + capitals inside ("O'Brien", "Wal-Mart", "AT&T"),
# not glued to a digit ("PS2") and not running into "&nbsp;" or "..." (kept out of the span).
_CAP_WORD = r"[A-Z](?:[A-Za-z]|['’-](?=[A-Za-z])|&(?=[A-Z]))*[A-Za-z](?![\w&-])"
# A lower-case word before a capitalised word or a lower-case acronym: the cue is checked against the tables
# in code (re scans for a literal space fast; an alternation of 40 cue words would be tried at every space).
_CANDIDATE = re.compile(r"[ ]([a-z]{2,9})[ ](?:urlLink[ ])?(?:(The)[ ])?"
                        r"(?=[A-Z]|[b-df-hj-np-tv-z]{3,5}(?:[\s.,!?;:)]|$))")
_NAME_AFTER_CUE = re.compile(
    rf"(?P<word>{_CAP_WORD}|[b-df-hj-np-tv-z]{{3,5}}(?=[\s.,!?;:)]|$))"
    rf"(?P<rest>(?:[ ](?:(?:of|the|&|de|du|la|le)[ ])?{_CAP_WORD}){{0,4}})")
_WORD_BEFORE = re.compile(r"(?<![A-Za-z])([a-z]+)[ ]$")
_CAP_WORDS = re.compile(_CAP_WORD)
_GO_TEAM = re.compile(r"\b(?:[Gg]o|GO)[ ](?P<word>[A-Z][a-z]+(?:[ ][A-Z][a-z]+)?)(?=!)")
# Capitalised words that are no name after a cue: what people capitalise anyway, and the school subjects.
_NOT_NAMES = frozenset("""
god jesus christ lord him his he she her me you we us they them it i allah buddha heaven hell satan mom mum dad
mommy mummy daddy mother father grandma grandpa granny nana papa gran grandmother grandfather auntie uncle
sis bro brother sister church school work home mass uni college university class camp prom practice office
temple mosque synagogue chapel bible internet web net email mail online tv radio love life peace hope faith
joy truth death fate nature earth world mankind humanity christianity islam judaism buddhism catholicism
english french spanish german chinese japanese math maths algebra geometry calculus biology chemistry physics
science history geography art music drama gym pe economics psychology sociology philosophy literature
latin band choir orchestra chorus lunch dinner breakfast supper recess break detention summer winter spring
autumn fall christmas xmas easter thanksgiving halloween lent ramadan passover valentine valentines mr mrs ms
miss dr sir madam lady mister master sergeant captain coach president senator governor king queen prince
princess army navy marines air force police hospital mall gym library park beach airport station cafeteria
hall dorm dorms lab labs the a an all none nobody everybody everyone someone anyone ok okay yes no
""".split())
# Titles and kin words before a name: the name after them is a person (``people``), not an organisation.
_TITLES = frozenset("""
mr mrs ms miss mx dr prof professor sir dame rev reverend mister madam mdm aunt auntie uncle cousin grandma grandpa
granny nana coach president senator sen governor gov pastor father sister brother saint st general captain
""".split())
# Lower-case letters without a vowel that are chat and SMS words, not acronyms of an organisation.
_CHAT_WORDS = frozenset("""
sch skl tmr tmrw tmw tml ytd ytdy tdy tnt ppl pls plz plzz thx thnx thnks thks bcz bcs cz nt dnt wht wt wth wtf
hrs mth mths wks wknd yrs msg msgs sms txt hmwk hwk bks bkt ths tht brb ttyl lmk smh tbh nvm gtg ftw fml
mrt lrt bff bbq dvd mtg mgmt dept govt bldg blvd hmm hmmm mmm mmmm grr grrr grrrr shh shhh psst brr pfft tsk
hrm nth pst cst mst gmt pdt cdt edt www xxx zzz zzzz sht fck frm wrk hme nxt lst bcoz thn wid wnt cnt dnt
pwn pwnd pwnt rly srsly sry prty prbly prob jst mn ths sth smth smthg nthg nthn mga dgn tdk blm sdh jgn krn
skrg bgt bnr gmn ngn http https www html xml mr mrs ms dr
""".split())
# Capitals that are no organisation: what people write in capitals anyway.
_NOT_ACRONYMS = frozenset("""
tv pc cd dvd ok am pm lol omg btw wtf asap fyi im aim atm ad bc ap sat gpa er icu usa uk us eu un cst pst est
gmt edt pdt id ii iii iv vi mp pe rip diy aka faq bbq hq cv hiv aids std uv gps hr os ps ee usd sgd idr rm php
eur gbp aud cad jpy rmb ms add adhd ocd ptsd dna rna cpu ram rom usb lcd dsl isp ip url pdf jpg ceo cfo cto
vp pr
""".split())

_STREET_WORDS = (r"Street|St\.?|Avenue|Ave\.?|Av\.|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Parkway|Pkwy\.?"
                 r"|Highway|Hwy\.?|Terrace|Crescent")
_NUMBER_WORDS = ("First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth|Eleventh|Twelfth"
                 "|Thirteenth|Fourteenth|Fifteenth|Sixteenth|Seventeenth|Eighteenth|Nineteenth|Twentieth")
_GRID_PATTERN = re.compile(
    r"(?<![\w.'’-])(?:"
    rf"(?:(?:[NSEW]\.?|North|South|East|West)[ ])?(?:\d{{1,3}}(?:st|nd|rd|th)|{_NUMBER_WORDS})[ ](?:{_STREET_WORDS})"
    r"|(?:Ave\.?|Avenue)[ ][A-D](?![\w'’])"
    r")(?![\w'’-]|\.\w)")
_STREET_PATTERN = re.compile(
    r"(?<![\w.'’-])(?P<named>[A-Z][a-z]+(?:[-'’][A-Za-z]+)?(?:[ ][A-Z][a-z]+(?:[-'’][A-Za-z]+)?)?)"
    rf"[ ](?P<head>{_STREET_WORDS})(?![\w'’-]|\.\w)")
# Bare web site names: generic top-level domains only ("index.html", "Node.js", "e.g." are no site).
_DOMAIN_TLDS = (".com", ".org", ".net", ".edu", ".gov", ".info", ".biz")
_DOMAIN_LABEL = r"[A-Za-z0-9](?:[\w\-]*[A-Za-z0-9])?"
_DOMAIN_NAME_BEFORE = re.compile(rf"(?<![\w@/.:\-]){_DOMAIN_LABEL}(?:\.{_DOMAIN_LABEL})*$")
# Every street has one of these words: the patterns run only when one is in the text.
_STREET_GATE = re.compile(rf"(?:{_STREET_WORDS})(?![a-z])")
# Street words after which a name of common words is still a street ("Main Street", "Park Avenue"); after the
# others it must be rarer or follow a house number ("Fast Lane", "Test Drive", "Open Road" are no streets).
_PLAIN_STREET_WORDS = frozenset("Street St Avenue Ave Av Boulevard Blvd".split())
# Words before a street name that are not part of it.
_NOT_STREET_NAMES = frozenset("the a an my our your this that on in at down up off from to of".split())
# Street names that are idioms or titles far more often than streets.
_STREET_IDIOMS = frozenset("""
memory lane|easy street|sesame street|lovers lane|lover's lane|penny lane|abbey road|electric avenue
|yellow brick road|the street|the road|the lane|the avenue|this street|this road|that street|that road|my street
|our street|main road|open road|high road|low road|long road|rocky road|dead end street|one way street
|two way street|wrong road|right road|the drive|a drive|test drive|hard drive|flash drive|disk drive
|thumb drive|zip drive|sex drive|cd drive|dvd drive|floppy drive|blood drive|food drive|toy drive
""".replace("\n", "").split("|"))


_PREV_WORD = re.compile(r"([A-Za-z'’]+)[ ]$")
# "living with HIV", "died from AIDS": a disease after the cue.
_DISEASE_BEFORE = re.compile(r"\b(?:living|live|lives|suffering|suffers|died|dying|dies|infected|diagnosed|sick|ill"
                             r"|cured|recovering)[ ]\w+[ ]?$|\b(?:living|suffering|died|dying|infected|diagnosed|sick"
                             r"|ill|cured|recovering)[ ]$")
# "looked at Connelly", "smiled at Dom": a person after "at".
_LOOK_BEFORE = re.compile(r"\b(?:look|looks|looked|looking|stare|stares|stared|staring|glance|glanced|glances"
                          r"|smile|smiled|smiles|smiling|grin|grinned|wink|winked|laugh|laughed|laughing|yell|yelled"
                          r"|yelling|shout|shouted|point|points|pointed|pointing|nod|nodded|wave|waved|waving)[ ]$")
# Words after a hyphen that make the capitalised word an adjective: "Web-based", "Christ-like".
_SUFFIX_WORD = re.compile(r"-(?:based|related|like|style|oriented|friendly|free|only|type|ish|centric|savvy)$")


@lru_cache(maxsize=100_000)
def _freq(word: str) -> int:
    return word_frequency(word.lower())


def _title_case_before(text: str, start: int) -> bool:
    """The word before the cue is a common word capitalised mid-sentence: a title ("Breakfast at Tiffany's",
    "Greetings from ..." after a lower-case word), not a name ("I met Sarah at Starbucks")."""
    m = _PREV_WORD.search(text, max(0, start - 40), start)
    if m is None or not m.group(1)[0].isupper() or m.group(1) == "I":
        return False
    before = text[max(0, m.start() - 3):m.start()].rstrip()
    if not before or before[-1] in ".!?:;\"“(*-\n":
        return False                                    # the first word of its sentence
    return _freq(m.group(1)) >= COMMON_FREQUENCY


def _without_possessive(text: str, end: int) -> int:
    """The end of a name without its "'s" ("at Wendy's" -> "Wendy"), so that the name lists decide its type."""
    return end - 2 if text[end - 2:end] in ("'s", "’s") else end


def _disease_before(text: str, start: int) -> bool:
    return _DISEASE_BEFORE.search(text, max(0, start - 14), start) is not None


def _is_name(word: str, *, alone: bool) -> bool:
    """Whether one capitalised word after a cue can be (part of) a name."""
    bare = re.sub(r"['’]s$", "", word).rstrip(".")
    low = bare.lower()
    if not bare or low in _NOT_NAMES or low in WEEKDAYS or low in MONTHS or low in ("may", "march"):
        return False
    freq = _freq(low)
    if freq >= FUNCTION_FREQUENCY:
        return False
    if len(bare) > 1 and (bare.isupper() or (bare[:-1].isupper() and bare[-1] == "s" and len(bare) > 2)):
        return low not in _NOT_ACRONYMS and low.rstrip("s") not in _NOT_ACRONYMS and freq < COMMON_FREQUENCY
    if alone and low.endswith("s") and _freq(low[:-1]) >= COMMON_FREQUENCY:
        return False                                    # "with Seniors", "to Presidents": a plural
    return not alone or freq < COMMON_FREQUENCY


def _cue_kind(text: str, m: re.Match[str]) -> tuple[bool, int] | None:
    """(strong, start of the cue) when the candidate's lower-case word is a cue, else None."""
    word = m.group(1)
    if word in _STRONG_CUES or word in _WEAK_CUES:
        if word == "at" or word == "with":
            verb = _WORD_BEFORE.search(text, max(0, m.start() - 14), m.start() + 1)
            if verb is not None and verb.group(1) in _VERB_CUES["for"]:
                return True, verb.start()
        return word in _STRONG_CUES, m.start() + 1
    verbs = _VERB_CUES.get(word)
    if verbs:
        verb = _WORD_BEFORE.search(text, max(0, m.start() - 14), m.start() + 1)
        if verb is not None and verb.group(1) in verbs:
            return verbs[verb.group(1)], verb.start()
    return None


def cue_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "ORG") spans of organisations and venues named after a cue, sorted, non-overlapping."""
    found: list[tuple[int, int, str]] = []
    for candidate in _CANDIDATE.finditer(text):
        kind = _cue_kind(text, candidate)
        if kind is None:
            continue
        strong, cue_start = kind
        m = _NAME_AFTER_CUE.match(text, candidate.end())
        if m is None:
            continue
        word = m.group("word")
        if word.islower():
            if not strong or candidate.group(2) or word in _CHAT_WORDS or len(set(word)) == 1 \
                    or _freq(word) >= RARE_FREQUENCY:
                continue                                # "at sch", "from sky to sky", "zzz"
            found.append((*m.span("word"), "ORG"))
            continue
        if _title_case_before(text, cue_start):
            continue
        if _disease_before(text, cue_start) or _SUFFIX_WORD.search(word):
            continue                                    # "living with HIV", "Web-based"
        label = "PERSON" if candidate.group(1) == "at" and not word.isupper() and not m.group("rest") \
            and _LOOK_BEFORE.search(text, max(0, cue_start - 10), cue_start) else "ORG"
        start = m.start("word")
        run = [(start, m.end("word"))] + [w.span() for w in _CAP_WORDS.finditer(text, m.start("rest"), m.end("rest"))]
        while len(run) > 1 and _freq(text[run[-1][0]:run[-1][1]]) >= FUNCTION_FREQUENCY:
            run.pop()                                   # "Six Apart This goes ...": a new sentence
        words = [text[s:e] for s, e in run]
        if len(words) > 1 and words[0].lower().rstrip(".") in _TITLES:
            continue                                    # "from Mrs Tang", "with Uncle Henry": people's business
        if any(_freq(w) >= FUNCTION_FREQUENCY for w in words[1:]):
            continue                                    # Title Case: "Dinner at Home With Friends"
        if len(words) > 1:
            # a run is a name when one word is not a word people capitalise anyway ("Long John Silver's")
            generic = all(_freq(w) >= COMMON_FREQUENCY for w in words) and any(
                w.lower() in _NOT_NAMES for w in words)
            if not generic and any(_is_name(w, alone=False) for w in words):   # not "Community College"
                found.append((start, _without_possessive(text, run[-1][1]), label))
                continue
        if _is_name(word, alone=True) and word not in ("I", "A"):
            if word.isupper() and not 2 <= len(word) <= 5:
                continue
            found.append((start, _without_possessive(text, run[0][1]), label))
    for m in (_GO_TEAM.finditer(text) if "Go " in text or "go " in text or "GO " in text else ()):
        words = m.group("word").split()
        if all(w.lower() not in _NOT_NAMES and _freq(w) < FUNCTION_FREQUENCY for w in words) \
                and words[0].lower() not in ("away", "figure", "team", "now", "ahead", "home", "back", "on"):
            found.append((*m.span("word"), "ORG"))
    found.sort()
    return _drop_overlaps(found)


def domain_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "ORG") spans of bare web site names: "Coffeeresearch.org", "BlogPatrol.com" (a URL with a
    path or "www." and an e-mail address are the rules' business; only generic top-level domains, so that file
    names and "Node.js" stay)."""
    found: list[tuple[int, int, str]] = []
    low = text.lower()
    for tld in _DOMAIN_TLDS:
        i = low.find(tld)
        while i >= 0:
            end = i + len(tld)
            if end == len(text) or not (text[end].isalnum() or text[end] in "/@-_"):
                name = _DOMAIN_NAME_BEFORE.search(text, max(0, i - 64), i)
                if name is not None and not name.group().lower().startswith("www.") and any(
                        c.isalpha() for c in name.group()):
                    found.append((name.start(), end, "ORG"))
            i = low.find(tld, end)
    found.sort()
    return found


def grid_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "FAC") spans of numbered and lettered streets: "5th Ave", "West 4th Street", "Ave B"."""
    if _STREET_GATE.search(text) is None:
        return []
    return [(m.start(), m.end(), "FAC") for m in _GRID_PATTERN.finditer(text)]


def street_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "FAC") spans of named streets: "Loony-Bin Lane", "Main Street"; sorted, non-overlapping."""
    found: list[tuple[int, int, str]] = []
    if _STREET_GATE.search(text) is None:
        return found
    for m in _STREET_PATTERN.finditer(text):
        name, head = m.group("named"), m.group("head")
        whole = f"{name} {head}".lower().rstrip(".")
        if whole in _STREET_IDIOMS or any(whole.endswith(" " + idiom) for idiom in _STREET_IDIOMS):
            continue
        start = m.start()
        words = name.split()
        if words[0].lower() in _NOT_STREET_NAMES:
            if len(words) == 1:
                continue
            start += len(words[0]) + 1
            words = words[1:]
        if head.startswith("St") and re.match(r"\.?[ ][A-Z]", text[m.end("head") - head.endswith("."):]):
            continue                                    # "St. Louis", "St Mary": a saint before a name
        if head.rstrip(".") not in _PLAIN_STREET_WORDS and all(_freq(w) >= COMMON_FREQUENCY for w in words) and (
                not _after_number(text, start) or re.match(r"[ ][A-Z]", text[m.end():m.end() + 2])):
            continue                                    # "Fast Lane", "Test Drive" without a house number,
                                                        # "224 Please Drive Carefully" (Title Case)
        found.append((start, m.end(), "FAC"))
    return found


def _after_number(text: str, start: int) -> bool:
    """A house number before the street name: "6 Loony-Bin Lane"."""
    return re.search(r"\d[A-Za-z]?,?\s$", text[max(0, start - 8):start]) is not None


def _drop_overlaps(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and span[0] < out[-1][1]:
            if span[1] - span[0] > out[-1][1] - out[-1][0]:
                out[-1] = span
            continue
        out.append(span)
    return out
