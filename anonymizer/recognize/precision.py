"""Precision: spaCy spans that are ordinary English words, not names, are not terms.

The small English model tags many ordinary words of informal posts: interjections and laughter ("Heh" PERSON,
"Mmmm" GPE, "hahaha"), contractions written without an apostrophe ("Ill" = I'll as GPE, "Im", "dont"),
everyday nouns, adjectives and verbs ("creepy", "sob", "crawfish", "Rainy" weather, "FREE" beer), and lines of
poems or lyrics as DATE. Masked, and then recoded wherever the string occurs in the dataset, each of them costs
text and protects nothing. :func:`drop_ordinary_spans` removes such spaCy spans before the lexicons fill the gaps
(a dropped "Today" tagged ORG comes back from the lexicons as the DATE it is).

A span is dropped when every word of it is *ordinary* and nothing around it says name:

* ordinary: an interjection, laughter or a contraction without apostrophe (``FILLERS``, ``_FILLER_SHAPES``;
  letters repeated three times or more count once: "UGHHHH", "Mmmm"), or a word frequent in English by wordfreq
  (``ORDINARY_ZIPF``) that is also common in pyspellchecker's list of the spoken language, which leaves out most
  proper names (``WORD_SHARE``: "weather" 0.62, "creepy" 1.45; "Google" 0.028, "London" 0.006, "Obama" 0.003);
* never ordinary: a known name in context: a Census 1990 first name or surname (the ``names`` package, as in
  `lexicons`) that is not far more often a word (``NAME_RATIO``: "Rose", "Bill", "Smith", "Wong"; not "Will",
  "May", "King"), a gazetteer place that is no common word ("Paris", "Enterprise"; not "Nice", "Mobile"), a
  word with a digit, an acronym of two or three capitals ("AIM", "PAS"), a word of rare letters ("Strummers");
* names by context: a word capitalised in the middle of a sentence after a word that a name often follows
  ("with Grace", "went to Boot Camp", "watch Survivor"; not "Today was Creepy"), two capitalised words ("Nip
  Tuck", "Adult Swim": a title or a name), a first name in parentheses ("the reader (bill)"), quotes around a
  capitalised span ("Toxic"), a PERSON addressed at the start of a post or a line ("Bagel, congratulations"),
  a name next to it in a list ("Kaila, Rob, Elizabeth"), a title before the span ("Mr"), a verb of speech or
  "and I" after it ("Rose told me", "Bill and I"). A capital at the start of a sentence, of a line or after a
  quote says nothing. Family words ("Mom", "Daddy") and fillers take no cue but a title ("Mr Ha").

DATE and TIME spans are dropped when no word of them names a time (a line of a poem: no digit, weekday, month,
holiday or time word such as "day", "tonight", "ago"), or when they are a vague stretch of time that dates nothing:
a bare plural unit ("for hours", "days"), a unit after a possessive ("my morning", "My day") or after "a" and a
word that is no number ("a long day", "a hectic night"). "a week", "the weekend", "last night", "3 hours" stay.

Rule and custom-entity matches are never touched (they are not spaCy's spans), nor spans of the numeric types.

Data: wordfreq 3.1.1 (code Apache-2.0; its word lists CC-BY-SA 4.0, from Wikipedia, subtitles, news, books,
web text, Twitter and Reddit, see its README), pyspellchecker's English frequency list (MIT) through
`frequency`, the US Census 1990 name lists of the ``names`` package (MIT) and the project's gazetteer (GeoNames,
CC-BY 4.0), all read from installed packages. Bump ``PRECISION_VERSION`` whenever a rule, a list or a
threshold here changes: it is part of the recognizer's fingerprint.

Measured on the reader's dev sample (bench/bench_kanon_recall.py, seed 20261201, 60 posts): see that bench.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from anonymizer.recognize import word_lists
from anonymizer.recognize.time_words import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    SPEECH_VERBS,
    TIME_SLANG,
    TIME_WORDS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from anonymizer.recognize.word_lists import census_shares

#: Bump when a rule, a list or a threshold below changes (the recognizer's fingerprint includes it).
PRECISION_VERSION = "7"

#: Labels whose spaCy spans may be dropped as ordinary words (the numeric types are left alone: their spans
#: hold a number, and whether a number identifies is for the code recognizers).
NAME_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                         "LANGUAGE"})
TIME_LABELS = frozenset({"DATE", "TIME"})

#: wordfreq Zipf frequency (log10 of occurrences per billion words) from which a word is frequent English
#: ("crawfish" 2.65, "argh" 2.95, "sob" 3.27; "Xanga" 1.52, "Luxx" 1.31).
ORDINARY_ZIPF = 2.5
#: pyspellchecker count per wordfreq occurrence per billion words from which a frequent word is an ordinary word
#: and not a name: subtitles, the source of pyspellchecker's list, seldom spell out names and places.
WORD_SHARE = 0.1
#: A Census first name or surname is a name (not a word) when its pyspellchecker count per Census share in
#: 1/10,000 is below this ("rose" 9.3, "bill" 36, "smith" 0.1, "brown" 5.3, "bush" 22; "will", "may", "king" 68,
#: "young" 223): the ``SOLO_MAX_RATIO`` of `lexicons`.
NAME_RATIO = 40.0
#: A place of the gazetteer, or a name written in lower case, is a name when its pyspellchecker count is below
#: this ("paris" 1,081, "enterprise" 5,537, "eric" 3,671; "mobile" 19,649, "nice", "cat", "bell" 42,577,
#: "rose" 27,460): `lexicons`' ``COMMON_FREQUENCY``.
COMMON_WORD_FREQUENCY = 10_000

# Contractions written without their apostrophe, and chat abbreviations: never names.
_CONTRACTIONS = frozenset("""
im ive ill id youre youve youll youd hes shes theyre theyve theyll theyd were weve well wed thats whats wheres
whos theres heres lets dont doesnt didnt cant couldnt wont wouldnt shouldnt isnt arent wasnt werent hasnt havent
hadnt aint mustnt neednt gonna wanna gotta kinda sorta dunno lemme gimme outta lotta ya yall ur u r thx tho cuz
coz ppl pls plz cya
""".split())
# Interjections and chat words (after repeated letters are cut to two: "hmmmm" -> "hmm").
_INTERJECTIONS = frozenset("""
heh hehe hah ha haha hoho hee hmm hm mm mmm uh uhh um umm er erm ah ahh aah oh ohh ooh oo ow oww ouch ugh ughh
argh arg agh aargh grr gah bah meh blah bleh eh ehh huh duh doh d'oh pfft pff psh pshh shh ssh tsk whoa woah wow
woo woot yay yey yippee hooray hurray huzzah woohoo yeehaw yikes yuck eww ew gosh geez jeez gee golly
dang darn damn dammit crap hey hi hello bye byebye yo oi oy yeah yea yep yup nope nah naw ok okay okey alright
aww aw awe okie okies kk lol lmao lmfao rofl roflmao omg omfg wtf btw brb bbl ttyl imo imho fyi jk idk nvm gtg
hehehe hahaha
amen alas oops whoops uhoh mwah xoxo
lah leh lor sia liao meh hor mah wah lar yeh yah anywho anywhoo anyhoo sux
""".split())
FILLERS = _CONTRACTIONS | _INTERJECTIONS
# Singapore and Malaysia English particles: fillers in lower case only ("so hurtful sia"; "Sia sang").
_LOWER_CASE_ONLY = frozenset("lah leh lor sia liao meh hor mah wah lar".split())
# Acronyms of everyday things, not of an organisation a reader could look up ("our ISP", "RSS feeds", "BBQ").
_COMMON_ACRONYMS = frozenset("""
isp rss bbq faq html http www url pc pcs tv dvd dvds cd cds mp3 mp3s asap aka diy fyi ps pps im sms gps usb atm
ceo cfo iq id pin ufo vip dj djs mc rip byo od er icu pe pms adhd hiv std stds gpa sat sats ot pda lcd
""".split())
# Laughter and drawn-out sounds of any length: "bwahahaha", "wahahah", "hehehe", "mmm", "hmmmm", "arghhh".
_FILLER_SHAPES = re.compile(r"(?:[bmw]?u?a?(?:ha|ah)+h?|(?:he)+h?|(?:hi){2,}|(?:ho){2,}|(?:lo)+l|l[oe]l+z?|"
                            r"m+|h+m+|u+h*m+|a+r+g+h*|u+g+h+|e+w+|o+h+|a+h+|o+o+h*|w+o+w+|y+a+y+|z+|s+h+|p+f+t*)")
# Cut letters repeated three or more times to two: "Hmmmm" -> "hmm", "UGHHHH" -> "ugh" (then FILLERS has it).
_REPEATS = re.compile(r"(.)\1{2,}")
# A number of one or two digits alone, which spaCy sometimes calls DATE ("it was [34]").
_BARE_NUMBER = re.compile(r"\d{1,2}")
# Words: letters with inner apostrophes or hyphens; a token with a digit is never ordinary.
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\w*\d\w*")
# HTML entities the posts carry ("&nbsp;", "&amp;", "&#39;"): no words.
_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#\d{1,5});?")
# What separates sentences (or lines, list items, quotes): a capital after it says nothing.
_BOUNDARY = re.compile(r"[.!?…:;\n\r\"“”()\[\]{}*•|<>~=_#–—]|(?:^|\s)-")
_TITLES = frozenset("""
mr mrs ms miss mx dr prof professor sir dame rev reverend mister madam aunt auntie uncle coach president
senator sen governor gov pastor
""".split())
# Words after a span that say it is a person: verbs of speech, "and I", "and me".
_NAME_AFTER = SPEECH_VERBS | frozenset("replied shouted yelled whispered laughed smiled agreed".split())
# Words that make a DATE or TIME a time at all (beside digits, weekdays, months and TIME_WORDS).
# The time slang of the recognition core ("tmr", "2nite", "ytd") counts too.
_TIME_ANCHORS = (TIME_WORDS | frozenset(TIME_SLANG) | WEEKDAYS | MONTHS | MONTH_ABBREVIATIONS | WEEKDAY_ABBREVIATIONS
                 | frozenset("""
ago eve am pm o'clock oclock nite tonite 2nite tmrw tomoro tomorow tommorow tommorrow tomorrows yesterdays
todays hrs hr min mins sec secs yr yrs wk wks mo mos era eras age ages ages period periods term terms quarter
quarters holiday holidays vacation vacations break breaks birthday birthdays anniversary anniversaries
jubilee past future present once twice lifetime while moment moments instant kwanzaa passover lent advent
eid hanukkah chanukah solstice equinox may annual annually biannual quarterly
one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen twenty thirty forty fifty sixty hundred thousand
""".split()))
# Misspelt and run-together time words still name a time: "yestaday", "bufday", "PAYDAY", "2nite".
_TIME_PIECES = re.compile(r"day|night|nite|week|month|year|hour|morn|noon|yest|tmr|2moro|tomor|tonit")
# Units that date nothing on their own: "a long day", "my morning", "for hours".
_VAGUE_UNITS = frozenset("""
day days night nights morning mornings afternoon afternoons evening evenings hour hours minute minutes
while time times weekend weekends
""".split())
_BARE_PLURALS = frozenset("days nights mornings evenings hours minutes seconds weeks months years ages".split())
_POSSESSIVES = frozenset("my your his her our their its".split())
# Words before a vague unit that leave it vague: "your [weekend]", "any minute", "another crap day".
_VAGUE_BEFORE = _POSSESSIVES | frozenset("a an any another".split())
# Words that make the stretch a measure ("a few days", "our two hours"): those stay.
_MEASURES = frozenset("""
few couple several dozen half full whole single one two three four five six seven eight nine ten eleven twelve
twenty fifty hundred fortnight first second third fourth fifth last next past coming following previous
""".split())
# Nationalities, religions, political groups and languages (NORP, LANGUAGE): names although written in lower
# case and common in speech ("chinese food", "my spanish test").
GROUP_WORDS = frozenset("""
american americans canadian canadians mexican mexicans cuban cubans brazilian brazilians argentine argentinian
colombian venezuelan chilean peruvian latino latina latinos hispanic hispanics british brit brits english irish
scottish scots welsh french german germans italian italians spanish spaniard dutch swedish swede swedes
norwegian danish finnish russian russians polish greek greeks portuguese swiss austrian belgian czech hungarian
romanian ukrainian serbian croatian bosnian european europeans icelandic chinese japanese korean koreans indian
indians pakistani pakistanis vietnamese filipino filipinos filipina thai indonesian malaysian malay malays
singaporean taiwanese tibetan mongolian bangladeshi nepalese lankan asian asians arab arabs arabic iraqi iraqis
iranian iranians persian israeli israelis palestinian palestinians afghan afghans saudi saudis turkish turk
turks kurdish kurds lebanese syrian egyptian egyptians jordanian kuwaiti african africans nigerian kenyan
ethiopian somali ghanaian sudanese moroccan algerian australian australians aussie aussies kiwi kiwis maori
hawaiian texan texans californian californians southern southerner southerners yankee yankees cantonese
mandarin hokkien tamil hindi urdu latin hebrew yiddish swahili tagalog
christian christians catholic catholics protestant protestants muslim muslims moslem islamic jewish jew jews
buddhist buddhists hindu hindus mormon mormons baptist baptists methodist methodists lutheran lutherans
evangelical evangelicals orthodox sikh sikhs atheist atheists agnostic pagan pagans wiccan presbyterian
episcopal anglican puritan puritans quaker quakers amish
democrat democrats democratic republican republicans gop liberal liberals conservative conservatives
libertarian libertarians socialist socialists communist communists marxist fascist fascists nazi nazis tory
tories labour neocon neocons
""".split())


# ------------------------------------------------------------------------------------------ word data

@cache
def _zipf():
    from wordfreq import zipf_frequency

    return lru_cache(maxsize=200_000)(lambda word: zipf_frequency(word, "en"))


@cache
def _spell():
    from anonymizer.recognize.frequency import word_frequency

    return lru_cache(maxsize=200_000)(word_frequency)


@cache
def _names() -> tuple[dict[str, float], dict[str, float]]:
    """Census 1990 first-name shares (max of male and female) and surname shares, in percent."""
    first: dict[str, float] = {}
    for list_name in ("dist.male.first", "dist.female.first"):
        for name, share in census_shares(list_name).items():
            first[name] = max(first.get(name, 0.0), share)
    return first, census_shares("dist.all.last")


@cache
def _places():
    return word_lists.word_data().places


def data_version() -> str:
    """What the results depend on besides the code: the wordfreq version."""
    from importlib import metadata

    try:
        return f"{PRECISION_VERSION}+wordfreq-{metadata.version('wordfreq')}"
    except metadata.PackageNotFoundError:     # pragma: no cover
        return f"{PRECISION_VERSION}+wordfreq-none"


def squeeze(word: str) -> str:
    """Lower case with letters repeated three or more times cut to two: "Hmmmm" -> "hmm"."""
    return _REPEATS.sub(r"\1\1", word.lower())


def _strip_possessive(low: str) -> str:
    return low[:-2] if low.endswith(("'s", "’s")) and len(low) > 3 else low


@lru_cache(maxsize=200_000)    # a word's answer never changes, and words repeat
def is_filler(word: str) -> bool:
    """An interjection, laughter or a contraction without its apostrophe ("Heh", "hahaha", "Ill", "dont")."""
    if len(word) == 1:
        return word in "ur"                        # "u", "r"; a capital alone is an initial ("Z. said")
    low = squeeze(word).replace("’", "'")
    if low in _LOWER_CASE_ONLY and not word.islower():
        return False
    if low in FILLERS or _FILLER_SHAPES.fullmatch(low):
        return True
    single = _REPEATS.sub(r"\1", word.lower())     # "ughhh" -> "ugh", "yaaay" -> "yay"
    return single in FILLERS or _FILLER_SHAPES.fullmatch(single) is not None


@lru_cache(maxsize=200_000)    # a word's answer never changes, and words repeat
def is_name(word: str) -> bool:
    """A Census first name or surname, or a gazetteer place, that is not far more often an ordinary word; also
    such a name with an "s" stuck on ("erics")."""
    low = _strip_possessive(word.lower().replace("’", "'"))
    if len(low) < 3 and not (word[:1].isupper() and len(low) == 2):
        return False                                 # "u", "ur"; "Ng", "Wu" written with a capital count
    if word.islower() and _spell()(low) >= COMMON_WORD_FREQUENCY:
        return False                                 # "the bell rang", "a rose"; not "kurt", "eric"
    return _known_name(low) or (len(low) > 3 and low.endswith("s") and not _is_word(low) and _known_name(low[:-1]))


def is_first_name(word: str) -> bool:
    """A Census 1990 first name (male or female; a possessive "'s" is ignored): "Nicole", "Willie's"."""
    return _strip_possessive(word.lower().replace("’", "'")) in _names()[0]


@lru_cache(maxsize=100_000)
def _known_name(low: str) -> bool:
    first, surnames = _names()
    spell = _spell()(low)
    for share in (first.get(low), surnames.get(low)):
        if share is not None and spell / (share * 10_000 + 1) < NAME_RATIO:
            return True
    place = _places().get(low)
    return place is not None and len(low) > 2 and (place.area or spell < COMMON_WORD_FREQUENCY)


@lru_cache(maxsize=200_000)
def _is_word(low: str) -> bool:
    """Frequent in English and common in the spoken language (so not mostly a name)."""
    zipf = _zipf()(low)
    if zipf < ORDINARY_ZIPF:
        return False
    spell = _spell()(low)
    if spell and spell / 10 ** zipf < WORD_SHARE and low.endswith("s") and len(low) > 4:
        # pyspellchecker has fewer plurals: "sciences" 0.066, "science" 0.25
        return _is_word(low[:-2] if low.endswith("es") and _zipf()(low[:-2]) > _zipf()(low[:-1]) else low[:-1])
    # Not in pyspellchecker's list at all: slang and spellings it leaves out ("intro", "realy"), but also names
    # its subtitles lack ("Aerosmith", "ESPN"): the caller asks for lower case then.
    return spell == 0 or spell / 10 ** zipf >= WORD_SHARE


# A name written in camel case: "iPod", "eBay", "EventHandler", "McDonald".
_CAMEL = re.compile(r"(?:[ie]|Ma?c|[A-Z][a-z]{2,})(?:[A-Z][a-z]{2,})+s?")


@lru_cache(maxsize=200_000)    # a word's answer never changes, and words repeat
def is_ordinary(word: str) -> bool:
    """An interjection, a contraction or a frequent ordinary English word, and no known name. Capitalised or
    upper-case words must also be in pyspellchecker's list ("Aerosmith", "ESPN", "WWII" are not)."""
    if any(c.isdigit() for c in word):
        return False
    if is_filler(word):
        return True
    if len(word) == 1 or (word.isupper() and len(word) <= 3) or _CAMEL.fullmatch(word):
        return False                                 # an initial, an acronym ("AIM", "PAS"), "iPod"
    if is_name(word):
        return False
    low = _strip_possessive(squeeze(word).replace("’", "'"))
    if low in GROUP_WORDS or (low.endswith("s") and low[:-1] in GROUP_WORDS):
        return False
    if not _is_word(low):
        return False
    return word.islower() or _spell()(low) > 0 or (word.isupper() and len(word) >= 5)   # "FUCKIN"; not "ESPN"


# ------------------------------------------------------------------------------------------ context

def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not word.isupper()


def _previous_word(text: str, pos: int) -> tuple[int, str, str] | None:
    """The word before ``pos`` (its start, the word, the gap up to ``pos``) within 80 characters, or None."""
    offset = max(0, pos - 80)
    window = _ENTITY.sub(lambda m: " " * len(m.group()), text[offset:pos])
    matches = list(_WORD.finditer(window))
    if not matches:
        return None
    last = matches[-1]
    return offset + last.start(), last.group(), window[last.end():]


# Lower-case words after which a capitalised word is a name ("with Grace", "at Enterprise", "watch Survivor",
# "the Post"); after others a capital says little ("Today was Creepy", "reaching Biblical portions").
_NAME_BEFORE = frozenset("""
with and or to at from for by of on in into onto about like than via near between the a an called named
nicknamed
watch watched watching saw see seen read reading listen listened listening play played playing met meet meeting
visit visited visiting told tell telling ask asked asking call calling text texted email emailed join joined
invite invited thank thanks love loved miss missed marry married dated hug hugged kiss kissed said says
replied urllink if when because since but that until unless while whether though although after before where
cuz coz suppose guess wish friend friends buddy pal sister brother cousin boyfriend girlfriend husband wife son
daughter mother father roommate teacher boss coworker neighbor neighbour dog cat puppy kitten bassist guitarist
drummer singer actor actress author director band
""".split())
# Family words: what a post calls a parent is no name even where one would stand ("my Mom", "Dad's car").
_KIN = frozenset("""
mom mum mommy mummy momma mama ma dad daddy papa pa pop grandma grandpa granny grandmother grandfather nana
nanna gramps hubby babe baby honey sweetie sis bro
""".split())


def mid_sentence(text: str, pos: int, depth: int = 3) -> bool:
    """The word at ``pos`` follows, in the same sentence, a lower-case word after which a name is likely
    (``_NAME_BEFORE``: "went to Boot", "watch Survivor"), or a capitalised word that does ("from The Panel")."""
    before = _previous_word(text, pos)
    if before is None:
        return False
    start, word, gap = before
    if _BOUNDARY.search(gap) or any(c.isdigit() for c in gap) or gap.strip(" ,"):
        return False
    if word[:1].islower() or word == "The":
        return word.lower() in _NAME_BEFORE and (word != "The" or mid_sentence(text, start, depth - 1))
    return depth > 1 and _capitalised(word) and len(word) > 1 and mid_sentence(text, start, depth - 1)


# Between two names of a list: "Kaila, Kimbrell, Rob, Elizabeth", "David, Cam and Matt", "Crosby, Stills".
_LIST_GAP = re.compile(r"\s*(?:,|&|/|and|or|, and|, or)\s*", re.IGNORECASE)


def _listed_with_name(word: str, gap: str, span: str) -> bool:
    """``word``, across a list separator ``gap`` from the span, makes the span a name: it is a known name, or
    both are capitalised and the word is not ordinary ("Kimbrell", "Morello", "IMF")."""
    if not gap.strip() or not _LIST_GAP.fullmatch(gap) or is_filler(word):
        return False
    return is_name(word) or (word[:1].isupper() and span[:1].isupper() and not is_ordinary(word))


def _name_cue(text: str, start: int, end: int, *, filler: bool = False) -> bool:
    """Context that says name: a title right before the span ("Mr Wong"), a name's possessive before a
    capitalised span ("Ryan's Steakhouse"), a verb of speech or "and I" right after it ("Rose told me", "Bill
    and I"), a name next to it in a list ("Kaila, Rob, Elizabeth"), or quotes around a capitalised span (a
    title: "Toxic"). For a ``filler`` ("Heh", "Mom") only a title counts ("Mr Ha")."""
    span = text[start:end]
    before = _previous_word(text, start)
    if before is not None:
        _, word, gap = before
        low = word.lower()
        if low in _TITLES and gap in (" ", ". "):
            return True
        if filler:
            return False
        if gap == " " and span[:1].isupper() and low.endswith(("'s", "’s")) and is_name(word[:-2]):
            return True
        if _listed_with_name(word, gap, span):
            return True
    if filler:
        return False
    after = text[end:end + 60]
    m = re.match(r"(?:['’]s)?\s+([^\W\d_]+)(?:\s+([^\W\d_]+))?", after)
    if m:
        first, second = m.group(1).lower(), (m.group(2) or "").lower()
        if first in _NAME_AFTER or (first == "and" and second in ("i", "me")):
            return True
    m = re.match(r"([\s,&/]*(?:(?:and|or)\s+)?)([^\W\d_]+)", after, re.IGNORECASE)
    if m and _listed_with_name(m.group(2), m.group(1), span):
        return True
    if span[:1].isupper():
        opening = text[max(0, start - 1):start]
        closing = text[end:end + 2]
        if opening in _QUOTES and any(c in _QUOTES for c in closing):
            return True
    return False


_QUOTES = frozenset("\"“”'‘’«»")
# A handle, a file or a domain inside the span: "nine_inches_limp", "news.com.au".
_HANDLE = re.compile(r"[^\W_]_[^\W_]|[^\W_]\.[^\W\d_]{2,}|@\w")


# ------------------------------------------------------------------------------------------ spans

def ordinary_reason(text: str, start: int, end: int, label: str) -> str | None:
    """Why the spaCy span ``text[start:end]`` of type ``label`` is no term ("filler", "ordinary words",
    "no time word", "vague time", "no words"), or None when it stays."""
    if label in TIME_LABELS:
        return _time_reason(text, start, end)
    if label not in NAME_LABELS:
        return None
    span = text[start:end]
    cleaned = _ENTITY.sub(lambda m: " " * len(m.group()), span)
    words = [(m.start() + start, m.group()) for m in _WORD.finditer(cleaned)]
    if not words:
        return "no words" if not any(c.isalnum() for c in cleaned) else None
    if _HANDLE.search(cleaned):
        return None
    compact = cleaned.replace(".", "").strip()
    if compact.isupper() and compact.lower() in _COMMON_ACRONYMS:
        return "common acronym"                      # "our [ISP]", "reading [RSS] feeds", "any [BBQ]", "[O.D.]"
    if all(is_filler(w) for _, w in words):
        return None if _name_cue(text, start, end, filler=True) else "filler"
    if all(w.lower() in _KIN for _, w in words) and not _name_cue(text, start, end, filler=True):
        return "ordinary words"                      # "Mom and I", "Daddy says": no name whatever follows
    if label == "PERSON" and len(words) == 1 and _capitalised(span) and text[end:end + 1] == "," \
            and not text[:start].rstrip(" \t")[-1:].strip():
        return None                                  # someone addressed at the start of a post or line: "Stu, stop"
    capitals = 0
    for pos, word in words:
        if not is_ordinary(word):
            return None
        if text[pos - 1:pos] == "(" and text[pos + len(word):pos + len(word) + 1] == ")" \
                and word.lower() in _names()[0]:
            return None                              # a first name in parentheses: "the reader (bill)"
        if _capitalised(word) and not is_filler(word) and word.lower() not in _KIN:
            capitals += 1
            if mid_sentence(text, pos):
                return None
            if text[pos + len(word):pos + len(word) + 2] in ("'s", "’s") and _previous_word(text, pos) \
                    and not _BOUNDARY.search(_previous_word(text, pos)[2]):
                return None                          # "brought up Will's name", "Buddy's father"
    if capitals >= 2:
        return None                                  # a title or a name in Title Case: "Adult Swim", "Nip Tuck"
    if _name_cue(text, start, end):
        return None
    return "ordinary words"


def _time_reason(text: str, start: int, end: int) -> str | None:
    span = _ENTITY.sub(" ", text[start:end])
    if _BARE_NUMBER.fullmatch(span.strip()):
        return "bare number"                                             # "he put [31]": a count, no date
    if any(c.isdigit() for c in span):
        return None
    words = [_strip_possessive(w.lower().replace("’", "'")) for w in _WORD.findall(span)]
    if not words:
        return "no words" if not any(c.isalnum() for c in span) else None
    if not any(w in _TIME_ANCHORS or w.rstrip("s") in _TIME_ANCHORS or _TIME_PIECES.search(w) for w in words):
        return "no time word"
    *head, unit = words
    if unit not in _VAGUE_UNITS and unit not in _BARE_PLURALS:
        return None
    if not head:
        if unit in _BARE_PLURALS:
            return "vague time"                                          # "hours"; not "morning"
        previous = _previous_word(text, start)
        if previous is not None and previous[1].lower() in _VAGUE_BEFORE and not _BOUNDARY.search(previous[2]):
            return "vague time"                                          # "your [weekend]"
        return None
    if head == ["the"] and unit == "day":
        return "vague time"                                              # "rest in the day"; "the weekend" stays
    if head[0] in _POSSESSIVES and all(w not in _TIME_ANCHORS and w not in _MEASURES for w in head[1:]):
        return "vague time"                                              # "my morning", "her long day"
    if ((head[0] in ("a", "an") and len(head) >= 2) or head[0] in ("any", "another")) and all(
            w not in _MEASURES and w not in _TIME_ANCHORS and _is_word(w) for w in head[1:]):
        return "vague time"                                              # "a long day"; not "a few days"
    return None


def drop_ordinary_spans(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spaCy spans (start, end, label) of ``text`` minus those that are ordinary words (see the module)."""
    return [span for span in spans if ordinary_reason(text, *span) is None]
