"""Person names, formal and informal: the PERSON part of the lexicon recognizers (``lexicons``).

Names come from the US Census 1990 first-name and surname lists shipped by the PyPI package ``names`` 0.3.0
(MIT; read by ``lexicons._data``, nothing is copied); how common a word is comes from pyspellchecker's English
frequencies (``anonymizer.recognize.frequency``). Every rule is a look-up in a precompiled set or dict per
token, over the tokens ``lexicons._tokens`` made once: no regex runs per token over the text.

Capitalised names (as before):
* a first name and, one space on, a surname (a Census surname or first name, or a word too rare to be an
  English one; an initial or a particle such as "van" may stand between): "Will Smith", "John F. Kennedy";
* the capitalised words after a title ("Mr. Smith", "Dr Kovacs", "President Bush"; the title is left out);
* a first name alone, unless it is a common word ("Will", "May", "Mark": ``COMMON_NAME_RATIO``), which needs a
  surname, a title, or to stand mid-sentence after a lower-case word ("I told Grace"). No first name after an
  article ("a Gita"), inside a longer capitalised name ("Olive Garden") or after St / Fort / Lake.

Informal posts (issue 44) write names in lower case, after honorifics in any case, with possessives and in
parentheses. These rules take a word only where the context says person:
* honorifics in any case, with or without a dot: "mr wong", "ms ng", "Mr hang", "MDM TAN", "auntie mary".
  After mr/mrs/ms/mdm/dr/mx/prof any word but a function word is taken ("Mr hang"); after the ambiguous ones
  (miss, madam, auntie, uncle, sir, coach, military ranks) only a name or a word too rare to be English
  ("miss ng", never "miss you", "miss home");
* a lower-case first name followed by a lower-case surname that is no English word ("clay aiken");
* a Chinese, Korean or Vietnamese name: a surname and one or two romanised syllables that are no English
  words ("lin yi qin", "Lim Wei Kit");
* a lower-case first name (no common word) in person context: a possessive ("amelia's", "maya's", and "erics"
  for eric's), in parentheses ("(amelia)"), a chat label at a line start ("sam: hi"), after a word that takes
  a person ("with", "told", "hate", "hey", ...) or before a verb of speech or "and i" ("eli said",
  "kristy was", "leigh and i"). A first name that is also an everyday word in lower case ("amber", "frank",
  "jack", "heather") or more frequent than ``LOWER_PLAIN_FREQUENCY`` needs the stronger contexts only
  (personal verbs, a vocative, speech);
* a capitalised word mid-sentence joined by "and" / "&" to a person ("convince Cat and Kurt"), and a
  capitalised common-word first name mid-sentence in person context ("with Bill", "Grace said");
* second round (2026-12-05): runs of capitalised first names ("Matt Dustin Zack Lynn", Title Case lines too), a
  first name with an "s" glued on ("Jims parents"), a nickname before the name it stands for ("grimes (Jake)"),
  kin words and "wit" before lower-case names ("sister eva"), an initial after a friend or kin word ("my friend
  T."), "Mr T", lower-case towns after to/in/from ("out to elyria") and rare surnames as shops after "at"
  ("at kroger");
* an alias the text uses as a name: a capitalised word that is no everyday word (or a word too rare to be
  English, any case) before a verb of speech ("Pogo says"), as a sign-off at the end of the post ("- Pogo",
  "your only, sporko.") or as an attribution after a dash ("-evasivecolin"). Chat interjections ("lol",
  "haha", "Hmmmm") never.

The informal spans are *strong*: the recognizer lets them replace a spaCy span that they extend ("lin" ->
"lin yi qin") or that only adds connectors and titles to them (ORG "Cat and Kurt" -> PERSON "Cat", PERSON
"Kurt"; ORG "mdm tan" -> PERSON "tan"): see :func:`prefer_people`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Protocol

from anonymizer.recognize.time_words import MONTHS, WEEKDAYS

if TYPE_CHECKING:
    from anonymizer.recognize.lexicons import _Tok
    from anonymizer.recognize.word_lists import WordData

#: Bump when a rule, a threshold or a table below changes (part of ``lexicons.data_version``).
PEOPLE_VERSION = "4"   # 4: name runs, "Jims", "grimes (Jake)", kin words, towns and shops in lower case, initials

#: pyspellchecker's frequency above which a word is a common English word ("mark" 50,334, "grace" 24,102,
#: "mobile" 19,649; "kurt" 460, "omaha" 95).
COMMON_FREQUENCY = 10_000
#: A first name is a common word also when its word frequency is this many times its Census share in 1/10,000
#: ("rose" 9.3, "sue" 22, "olive" 31, "bill" 36 vs "mary" 0.24, "emily" 6.8, "lucas" 6.1).
COMMON_NAME_RATIO = 20.0
#: A common-word first name alone in the middle of a sentence only below this frequency ("Mark", "Grace";
#: never "Will", "May", "Hope").
SOLO_MAX_FREQUENCY = 60_000
#: ... and below this COMMON_NAME_RATIO ("Bill" 36, "Joy" 37; not "Spring" 2,384, "Page" 1,603).
SOLO_MAX_RATIO = 40.0
#: A word this frequent is a function word, never a name ("in", "my", "so", "see" are in the Census lists).
FUNCTION_FREQUENCY = 400_000
#: A surname that is neither in the Census list nor a name must be rarer than this ("Cobain"; not "Enchanted",
#: "Reef", "Granola", which are ordinary words although not common ones).
RARE_FREQUENCY = 100
#: A lower-case first name more frequent than this as a word needs a strong context ("eli" 545, "kristy" 53
#: take "with eli"; "eric" 3,671, "sam" 5,033 need "told sam", "sam said", "sam's", "hey sam,").
LOWER_PLAIN_FREQUENCY = 1_000
#: A capitalised alias ("Pogo" 646) must be rarer than this as a word: "Mom says", "Everyone said" are no names.
ALIAS_MAX_FREQUENCY = 1_000
#: A place this big is no person joined to one by "and" ("Kurt and Boston"; "Cat" has 15,556 people in Turkey),
#: and a lower-case first name that is such a place needs a strong context ("go to dallas"; "with teresa").
BIG_PLACE_POPULATION = 100_000
#: Below this word-per-name ratio a lower-case first name frequent in subtitles still reads as a name ("amanda"
#: 0.31, "eva" 0.77, "sara" 0.73; "joey" 3.5, "matt" 5.9, "jake" 19.7).
PLAIN_NAME_RATIO = 2.0

# Titles before a person's name (the title is not part of the PERSON span, as in OntoNotes).
_TITLES = frozenset("""
mr mrs ms miss mx dr prof professor sir dame rev reverend mister madam mdm aunt auntie uncle coach president
senator sen governor gov pastor
""".split())
# Titles after which any word but a function word is a name, in any case: "Mr hang", "ms ng".
_SURE_TITLES = frozenset("mr mrs ms mx mdm dr prof mister".split())
# Military ranks: a title only before a name ("General Reinwald"), never before a word ("General Motors").
_RANKS = frozenset("general colonel col captain capt major lieutenant lt sergeant sgt admiral corporal".split())
# Words after a title that are no name: "Mr. Right", "mr nice guy", "Dr. Who".
_NOT_AFTER_TITLE = frozenset("right wrong nice big perfect know clean happy grumpy sunshine who".split())
# Particles inside a name: "Ludwig van Beethoven", "Leonardo da Vinci".
PARTICLES = frozenset("van von de da del della di du der den le la bin al".split())
# First names never taken as such (the Census lists have demonyms, religions and place names).
_NOT_FIRST_NAMES = frozenset("""
german irish christian america china santa easter sunday genesis conception august april june
jesus christ god lord ima
""".split())
# Words after a title that are part of the title ("Mrs. Vice President John Edwards").
_ROLES = frozenset("vice president general captain chief deputy senior junior acting assistant".split())
# Words before a name that make it a place ("St. Lawrence", "Fort Wayne", "Lake Tahoe").
_PLACE_HEADS = frozenset("st saint ft fort mt mount lake port cape san santa".split())
# Articles before a first name: "a Gita", "the Troy" are no people.
_ARTICLES = frozenset("a an the this that these those every each no".split())
# Never a surname after a first name ("May Day", "Merry Christmas").
_NOT_SURNAMES = frozenset("""
day days night nights morning mornings afternoon evening evenings week weekend month year time times
christmas xmas easter thanksgiving halloween eve street avenue road boulevard lane drive
""".split())
# Words before which a first name that is a common word is no name: "the Will", "Top of Page".
_DETERMINERS = frozenset("the a an my your our his her their this that these those its no every each of".split())

# First names that are everyday words in lower case although rare as capitalised words: "with amber", "be
# frank", "a jack", "heather". In lower case they need a strong context.
_WORD_NAMES = frozenset("""
amber ruby robin frank jean daisy iris violet misty jack dale glen carol heather hazel sandy fern ebony aurora
crystal gene basil ivy melody holly dean lance pearl brandy garland marshall max roman reed sterling india asia
florida venice venus marina laurel earnest christen penny candy ginger jade opal sage dawn summer rusty dusty
chase chance hunter king major guy art buck cliff drew herb pat rob ray rod sue ted bob don sal mac dee kay jan
mai lee kim page miles price young bishop parker mason carter walker porter baker cook taylor jackson colt
sunny stormy joy faith hope grace mark bill will may rose
""".split())
# Lower-case words before a first name that say person ("talking with eli", "i hate kristy", "as for yama").
_PERSON_BEFORE = frozenset("""
with without and n told tell tells telling asked ask asks asking met meet meeting called call calling texted
text emailed messaged hate hates hated love loves loved miss missed misses convinced convince thank thanks thx
dear hey hi hello bye saw visited invited hugged hug kissed kiss dating dated married marry like for to from
about except than unlike as behind beside wit wif sister brother sis bro cousin princess prince bestie buddy pal
""".split())
# The subset that says person even before a first name that is also a word ("told jack", "hey frank").
_STRONG_BEFORE = frozenset("""
told tell tells asked ask asks met meet called call texted emailed messaged hugged kissed dating dated married
marry thank thanks thx dear hey hi hello bye convinced invited
""".split())
# Words after a first name that say person: a verb of speech, "was", "and i" ("eli said", "kristy was").
_SPEECH = frozenset("""
said says say told tells asked asks mentioned replied replies wrote writes thinks thought texted called
emailed laughed yelled shouted screamed whispered answered agreed admitted explained promised
""".split())
# What a lower-case word that is no first name must be followed by to be taken as a name: "mir mentioned".
_SPEECH_PAST = frozenset("said says mentioned told asked replied wrote screamed yelled shouted".split())
# Subjects before such a word: "i wud say", "she coyly asked", "what ppl say", "they havent asked".
_SUBJECTS = frozenset("i you he she it we they who what which that there ppl people".split())
# Verbs after which a capitalised everyday word mid-sentence is a person ("then Cat said"; not "Nature says").
_SAID = frozenset("said asked told replied mentioned yelled screamed shouted whispered".split())
# Words before a place: "in Tahoe and I" is no person.
_AT_PLACE = frozenset("in at to from near into on of around through".split())
_PERSON_AFTER = _SPEECH | frozenset("is was has had came comes went goes got gets wants wanted likes liked".split())
# After "and" / "&" / "n": "leigh and i", "eli n me".
_AND = frozenset(("and", "n", "&"))
_ME = frozenset(("i", "me"))
# Chat words and interjections: never an alias or a syllable of a name ("lol", "lah" in Singapore English).
_CHAT = frozenset("""
lol lols lolz lmao lmfao rofl haha hahaha hehe hehehe heh hah hoho hihi yay yey woot omg omfg wtf brb ttyl ttfn bbl
gtg xoxo xo hugs jk nvm idk imo imho btw fyi ok okay kk thx ty np xd xp lah leh lor meh sia liao hor mah wah ah
oh eh hmm hm argh ugh yeah yea yup nope pfft psst blah bleh woohoo yippee muah mwah ciao bye cya ish etc
ya yo da ur u k la le eh aw aww ooh ahh oops ooo yah nah ha he hi ho yes no yall gnite nite nuff merci danke
gracias adios cheers www http https com org net html urllink dun noe yeh neva wat jus dat da den sucka dawg
ive youve weve theyve hes shes im id ill dont cant wont didnt doesnt isnt wasnt arent thats whats theres
""".split())
# Romanised Chinese (Mandarin, Cantonese, Hokkien, Teochew), Korean and Vietnamese surnames: the head of "lin yi
# qin", "tan ah kow", "Lim Wei Kit" (the Census list has them too, but also "ba", "sa", "pa", "ano", ...).
_EAST_ASIAN_SURNAMES = frozenset("""
wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo zheng liang xie song tang han
feng deng cao peng zeng xiao tian dong yuan pan cai jiang yu du ye cheng wei su lu ding ren shen yao jin qin qiu
hou meng xiong bai fan fang shi dai cui tan lai zou mo duan lei hao kong gong wan xue yan gu kang niu lian yi qi
wong chan cheung leung lau lee ng ho yip kwok tse chow chung fung lam mak tsang kwan lo chu choi poon yeung siu
tsui szeto tong lui mok fong luk ko hui yuen cheuk chiu lim ong goh teo tay koh chua chia chew chong foo heng
khoo kok kuek neo quek seah sim soh toh wee yap yeo yeoh yong ang aw boey chee chin chng eng gan hoe kee khor koo
kwek leong liew loh lum oei ooi pang phua poh seow sia tee teh thio tiong yeow hong quah kim park jung jeong cho
yoon yun jang seo shin kwon hwang ahn moon ryu bae baek heo yoo nam noh roh kwak sung cha joo woo min nguyen
tran le pham hoang huynh phan vu vo dang bui duong truong dinh trinh luong
""".split())
# Romanised words that are no names: "feng shui", "hong kong", "kung fu", "tai chi", "dim sum".
_NOT_ASIAN_NAMES = frozenset(("feng shui", "hong kong", "kung fu", "tai chi", "dim sum", "wan chai", "mong kok",
                              "ang moh", "lim peh", "ah beng", "ah lian"))
# Interjections written with repeated letters: "Hmmmm", "UGHHHH", "Wahahah", "hahahaha", "Ahhhh".
_INTERJECTION = re.compile(r"(?:w?a?(?:h+a+)+h*|(?:h+e+)+h*|h+m+|m+h*|u+g+h+|a+r*g+h+|a+h+|o+h+|e+r+m*|z+)", re.I)
# A romanised syllable of a Chinese, Korean or Vietnamese given name: "yi", "qin", "wei", "kit", "hwee".
_SYLLABLE = re.compile(r"[b-df-hj-np-tv-z]{0,3}[aeiouy][aeiouwy]{0,2}(?:ng|n|m|k|t|p|h|r)?", re.I)
# Words before a signature at the end of a post: "your only, sporko", "love, jen".
_SIGN_GAPS = ("-", "~", "—", "–", ",", "\n")
# Not aliases: family words, pronouns and what speaks without being a person ("Mom says", "Everyone said").
_NOT_ALIASES = frozenset("""
mom mum dad mommy daddy mama papa mother father grandma grandpa granny nana sis bro god jesus lord everyone
everybody someone somebody nobody anyone he she they it people teacher
""".split())


@cache
def _frequencies():
    from anonymizer.recognize.frequency import word_frequency

    return lru_cache(maxsize=200_000)(word_frequency)


def freq(word: str) -> int:
    """pyspellchecker's English frequency of a lower-case word (cached)."""
    return _frequencies()(word)


class PlaceFinder(Protocol):
    """What the name loop asks the place recognizers (``lexicons.Lexicons``)."""

    types: frozenset[str]

    def multiword_place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> tuple[int, int, str] | None: ...

    def place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> tuple[int, int, str] | None: ...

    def names_a_place(self, text: str, toks: list[_Tok], i: int, data: WordData) -> bool: ...


# How a found name may replace spaCy's spans (see prefer_people): not at all; only a spaCy PERSON span inside it
# ("Lyle" -> "Lyle Lovett"); any spaCy span it extends or splits ("lin" -> "lin yi qin", ORG "Cat and Kurt").
WEAK, EXTENDS, REPLACES = 0, 1, 2
# A found name: first token, last token, label, strength.
_Found = tuple[int, int, str, int]


def name_spans(text: str, toks: list[_Tok], data: WordData, places: PlaceFinder) -> list[tuple[int, int, str, int]]:
    """(start, end, label, strength) of PERSON, GPE and LOC names, sorted and non-overlapping."""
    want_person = "PERSON" in places.types
    want_place = bool(places.types & {"GPE", "LOC"})
    found: list[_Found] = []
    i, n = 0, len(toks)
    while i < n:
        tok = toks[i]
        hit: _Found | None = None
        if tok.cap:
            if want_person:
                hit = _title_person(text, toks, i, data) or _asian_name(toks, i, data)
            if hit is None and want_place:
                hit = _weak(places.multiword_place(text, toks, i, data))
            if hit is None and want_person:
                hit = (_person(text, toks, i, data, places) or _alias(text, toks, i, data)
                       or _name_run(toks, i, data) or _glued_possessive(toks, i, data)
                       or _paren_alias(text, toks, i, data))
            if hit is None and want_place:
                hit = _weak(places.place(text, toks, i, data))
        else:
            if want_person:
                hit = (_title_person(text, toks, i, data) or _asian_name(toks, i, data)
                       or _lower_person(text, toks, i, data) or _alias(text, toks, i, data)
                       or _paren_alias(text, toks, i, data) or _initial_after_kin(text, toks, i))
            if hit is None and want_place:
                hit = _lower_place(toks, i, data)
        if hit is None:
            i += 1
            continue
        found.append(hit)
        i = hit[1] + 1
    if want_person and found:
        found = _coordinated(toks, found, data)
    return [(toks[a].start, toks[b].end, label, strength) for a, b, label, strength in found]


def _weak(hit: tuple[int, int, str] | None) -> _Found | None:
    return None if hit is None else (hit[0], hit[1], hit[2], WEAK)


# ------------------------------------------------------------------------------------------ capitalised names

def surname_at(text: str, toks: list[_Tok], j: int, data: WordData, *, strict: bool) -> int | None:
    """Index of the last token of the surname that follows a first name at token j - 1, or None. An
    initial ("John F. Kennedy") or a particle ("Ludwig van Beethoven") may come first; a second surname
    ("Sarah Jessica Parker") is taken in. strict: the surname must not be a common word."""
    n = len(toks)
    if j >= n or not toks[j].spaced or toks[j - 1].end != toks[j].start - 1:
        return None                               # one space after the first name: not "Amy's Song"
    k = j
    word = toks[k].word
    if len(word) == 1 and word.isupper():                        # an initial: "F. " or "F "
        if k + 1 >= n or text[toks[k].end:toks[k + 1].start] not in (". ", " "):
            return None
        k += 1
    elif toks[k].low in PARTICLES:
        if k + 1 >= n or not toks[k + 1].spaced:
            return None
        k += 1
    if not _is_surname(toks[k], data, strict=strict):
        return None
    if k + 1 < n and toks[k + 1].spaced \
            and toks[k + 1].low in data.surnames and _is_surname(toks[k + 1], data, strict=True):
        k += 1
    return k


def _is_surname(tok: _Tok, data: WordData, *, strict: bool) -> bool:
    low = tok.low
    if not tok.cap or low in WEEKDAYS or low in MONTHS or low in _NOT_SURNAMES or low in _TITLES:
        return False
    word_freq = freq(low)
    if word_freq >= FUNCTION_FREQUENCY:
        return False
    place = data.places.get(low)
    if place is not None and place.area:
        return False                              # "Jordan Canada", "Kurt America"
    if word_freq >= COMMON_FREQUENCY and (strict or low not in data.surnames):
        return False
    return low in data.surnames or low in data.first or word_freq < RARE_FREQUENCY


def first_name_kind(low: str, data: WordData) -> str | None:
    """"plain" (a name, not a common word), "common" (also a common word) or None (not a first name)."""
    share = data.first.get(low)
    if share is None or low in _NOT_FIRST_NAMES:
        return None
    word_freq = freq(low)
    if word_freq >= FUNCTION_FREQUENCY and low not in ("will", "may"):
        return None
    ratio = name_ratio(low, data)
    if len(low) <= 2 and ratio >= COMMON_NAME_RATIO:
        return None                               # "ha", "ma", "le", "mi" in the Census lists
    if word_freq >= COMMON_FREQUENCY * 2 or ratio >= COMMON_NAME_RATIO:
        return "common"
    return "plain"


def name_ratio(low: str, data: WordData) -> float:
    """Word frequency per Census share in 1/10,000 of a first name: high for words, low for names."""
    return freq(low) / (data.first.get(low, 0.0) * 10_000 + 1)


def _title_person(text: str, toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """"Mr. Smith", "Dr Kovacs", "mr wong", "Mr hang", "MS NG", "General Reinwald": the words after a title,
    without it."""
    title = toks[i].low
    rank = title in _RANKS
    if (title not in _TITLES and not rank) or i + 1 >= len(toks):
        return None
    nxt = toks[i + 1]
    if text[toks[i].end:nxt.start] not in (" ", ". "):
        return None
    low = nxt.low
    if title in _SURE_TITLES and toks[i].cap and len(nxt.word) == 1 and nxt.word.isupper() \
            and not _INITIAL_THEN_NAME.match(text, nxt.end):
        return i + 1, i + 1, "PERSON", REPLACES       # "Mr T", "Mr. T says"; "Mr. T. Smith" goes on below
    if freq(low) >= FUNCTION_FREQUENCY or low in WEEKDAYS or low in MONTHS or low in _TITLES or low in _ROLES \
            or low in _NOT_AFTER_TITLE or low in _CHAT or not nxt.word.isalpha():
        return None
    name = low in data.surnames or low in data.first
    if rank and not (nxt.cap or nxt.word.isupper()):
        return None                                   # "general doom befalls you"
    if nxt.cap and not rank:
        if _is_common(low) and not name:
            return None                               # "Mr. Right", "Miss You"
    elif title in _SURE_TITLES and not rank:
        if len(low) < 2 or (freq(low) >= COMMON_FREQUENCY and low.endswith(("ing", "ed", "ly"))):
            return None                               # any other word: "Mr hang", "ms ng", "MR TAN"; not
                                                      # "(Dr. meaning Darth)"
    elif not ((name and freq(low) < COMMON_FREQUENCY) or freq(low) < RARE_FREQUENCY) or len(low) < 2:
        return None                                   # "miss ng", "uncle bob", "General Reinwald"; "miss home"
    last = surname_at(text, toks, i + 2, data, strict=False) if nxt.cap and i + 2 < len(toks) else None
    if last is None and not nxt.cap and i + 2 < len(toks) and toks[i + 2].spaced and toks[i + 2].word.islower() \
            and toks[i + 2].low in data.surnames and freq(toks[i + 2].low) < RARE_FREQUENCY:
        last = i + 2                                  # "auntie mary tan"
    return i + 1, last if last is not None else i + 1, "PERSON", REPLACES


def _person(text: str, toks: list[_Tok], i: int, data: WordData, places: PlaceFinder) -> _Found | None:
    tok = toks[i]
    kind = first_name_kind(tok.low, data)
    if kind is None:
        return None
    if tok.spaced:
        prev = toks[i - 1]
        if prev.low in _PLACE_HEADS:
            return None                           # "St. Lawrence", "Fort Wayne", "Lake Louise"
        if prev.cap and not prev.starts_sentence and prev.low not in _TITLES:
            return None                           # inside a longer name: "Top of Page X", "Pink Floyd"
    elif i and tok.starts_sentence and toks[i - 1].low in _PLACE_HEADS and tok.start == toks[i - 1].end + 2 \
            and text[toks[i - 1].end] == ".":
        return None
    last = surname_at(text, toks, i + 1, data, strict=kind == "common")
    if last is not None:
        return i, last, "PERSON", EXTENDS         # "Lyle Lovett" where spaCy has "Lyle"
    if places.names_a_place(text, toks, i, data):
        return None                               # "Jordan", "in Austin", "Lincoln, NE": a place
    if i and not tok.starts_sentence and toks[i - 1].low in _ARTICLES:
        return None                               # "a Gita", "watch the Troy"
    if i + 1 < len(toks) and toks[i + 1].spaced and toks[i + 1].cap \
            and text[tok.end:tok.end + 2] not in _POSSESSIVES:
        return None                               # part of a longer name: "Olive Garden"; not "Joey's Pictures"
    if i + 2 < len(toks) and toks[i + 1].low == "of" and toks[i + 2].cap:
        return None                               # "Bill of Rights", "Rose of Sharon"
    if kind == "plain":
        if len(tok.low) <= 2 and tok.starts_sentence:
            return None                           # "Un frickin' believable"; "Ed said" is taken
        return i, i, "PERSON", WEAK
    if tok.after_lower and toks[i - 1].low not in _DETERMINERS and tok.low not in ("will", "may"):
        if freq(tok.low) < SOLO_MAX_FREQUENCY and name_ratio(tok.low, data) < SOLO_MAX_RATIO:
            return i, i, "PERSON", WEAK          # "I told Mark", never "Will you come?"
        if _person_context(text, toks, i, i, strong=True):
            return i, i, "PERSON", REPLACES           # "with Hope and I", "told Joy"
    return None


def _is_common(word: str) -> bool:
    return freq(word) >= COMMON_FREQUENCY


# ------------------------------------------------------------------------------------------ informal names

def _asian_name(toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """A surname and one or two romanised syllables that are no English words: "lin yi qin", "Lim Wei Kit"."""
    tok = toks[i]
    low = tok.low
    if low not in _EAST_ASIAN_SURNAMES or freq(low) >= COMMON_FREQUENCY:
        return None
    lower = tok.word.islower()
    if not lower and not tok.cap:
        return None
    last = i
    for k in (i + 1, i + 2):
        if k >= len(toks) or not toks[k].spaced:
            break
        nxt = toks[k]
        # the first syllable is no English word ("yi", "wei"); a second may be a rare one if a name ("kit")
        limit = COMMON_FREQUENCY if k == i + 2 and (nxt.low in data.first or nxt.low in data.surnames) \
            else LOWER_PLAIN_FREQUENCY
        if (not nxt.word.islower() if lower else not nxt.cap) or not 2 <= len(nxt.low) <= 5 \
                or freq(nxt.low) >= limit or nxt.low in _CHAT or not _SYLLABLE.fullmatch(nxt.low):
            break
        last = k
    if last == i:
        return None
    if last == i + 1 and toks[last].low not in data.surnames and toks[last].low not in data.first:
        return None                               # one syllable: only a known one ("lin yi"), not "tan ah"
    if f"{low} {toks[i + 1].low}" in _NOT_ASIAN_NAMES:
        return None
    return i, last, "PERSON", REPLACES


def _lower_person(text: str, toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """Lower-case first names: "clay aiken", "amelia's", "erics computer", "(amelia)", "sam: hi", "with eli"."""
    tok = toks[i]
    low = tok.low
    if not tok.word.islower() or len(low) < 3:
        return None
    kind = first_name_kind(low, data)
    n = len(toks)
    if kind is None:
        # "erics computer": eric's without the apostrophe (the word itself is no English word)
        if low[-1] == "s" and first_name_kind(low[:-1], data) == "plain" and low[:-1] not in _WORD_NAMES \
                and freq(low) < RARE_FREQUENCY and low not in data.surnames and i + 1 < n and toks[i + 1].spaced \
                and toks[i + 1].word.islower() and freq(toks[i + 1].low) < FUNCTION_FREQUENCY:
            return i, i, "PERSON", REPLACES
        return None
    nxt = toks[i + 1] if i + 1 < n else None
    if nxt is not None and nxt.spaced and nxt.word.islower() and nxt.low in data.surnames \
            and freq(nxt.low) < RARE_FREQUENCY and len(nxt.low) >= 4 and nxt.low not in _CHAT \
            and freq(low) < FUNCTION_FREQUENCY and name_ratio(low, data) < SOLO_MAX_RATIO:
        return i, i + 1, "PERSON", REPLACES           # "clay aiken", "will smith"
    if kind != "plain":
        if kind == "common" and low not in ("will", "may") and before_is(toks, i, _VOCATIVES) \
                and text[tok.end:tok.end + 1] in (",", "!"):
            return i, i, "PERSON", REPLACES           # "hey bill, whats up"
        return None
    # frequent in subtitles but still mostly a name ('amanda' 0.3, 'sara' 0.7 per Census share): weak contexts do
    word_like = low in _WORD_NAMES or (freq(low) >= LOWER_PLAIN_FREQUENCY and name_ratio(low, data) >= PLAIN_NAME_RATIO)
    place = data.places.get(low)
    if place is not None and (place.area or place.population >= BIG_PLACE_POPULATION):
        word_like = True                          # "go to dallas", "from norman to stillwater"
    if (text[tok.end:tok.end + 2] in _POSSESSIVES and low not in _WORD_NAMES) or (
            text[tok.start - 1:tok.start] == "(" and text[tok.end:tok.end + 1] == ")" and not word_like):
        return i, i, "PERSON", REPLACES               # "amelia's blog", "(amelia)"
    if text[tok.end:tok.end + 2] in (": ", ":\n") or text[tok.end:] == ":":
        return i, i, "PERSON", REPLACES               # a chat label: "sam: what's up?" (no "john 3:16")
    if _person_context(text, toks, i, i, strong=word_like):
        return i, i, "PERSON", REPLACES
    return None


_POSSESSIVES = frozenset(("'s", "’s", "\x92s"))
_VOCATIVES = frozenset(("hey", "hi", "hello", "dear", "bye", "thanks", "thx"))


def before_is(toks: list[_Tok], i: int, words: frozenset[str]) -> bool:
    """The word right before token i, one space away, is one of ``words``."""
    return i > 0 and toks[i].spaced and toks[i - 1].low in words


def _person_context(text: str, toks: list[_Tok], first: int, last: int, *, strong: bool) -> bool:
    """The words around tokens first..last say person: "with eli", "eli said", "leigh and i", "hey frank,"."""
    n = len(toks)
    before = toks[first - 1] if first and toks[first].spaced else None
    if before is not None and before.word.islower():
        if before.low in (_STRONG_BEFORE if strong else _PERSON_BEFORE):
            if before.low not in ("hey", "hi", "hello", "dear", "bye") or not strong \
                    or text[toks[last].end:toks[last].end + 1] in (",", "!", "\n", ""):
                return True                       # the vocative only with a comma after: "hey frank,"
    if last + 1 < n and toks[last + 1].spaced:
        after = toks[last + 1]
        if after.low in (_SPEECH if strong else _PERSON_AFTER) and after.word.islower():
            return True
        if after.low in _AND and last + 2 < n and toks[last + 2].low in _ME and toks[last + 2].spaced:
            return True                           # "leigh and i", "eli n me"
    return False


def _is_chat(low: str) -> bool:
    return low in _CHAT or _INTERJECTION.fullmatch(low) is not None


def _alias(text: str, toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """A word the text uses as a name: "Pogo says", "- Pogo" at the end, "your only, sporko.", "-evasivecolin",
    "the items mir mentioned"."""
    tok = toks[i]
    n = len(toks)
    speech = i + 1 < n and toks[i + 1].low in _SPEECH and toks[i + 1].spaced and toks[i + 1].word.islower()
    and_i = i + 2 < n and toks[i + 1].low in _AND and toks[i + 2].low in _ME and toks[i + 1].spaced \
        and toks[i + 2].spaced
    dash = text[tok.start - 1:tok.start] in ("-", "~")
    if not (speech or and_i or dash or i + 1 == n):
        return None                                   # the cheap test first: most words are none of these
    low = tok.low
    lower = tok.word.islower()
    if len(low) < 3 or not (tok.cap or lower) or not tok.word.isalpha() or low in _NOT_ALIASES or low in _TITLES \
            or low in WEEKDAYS or low in MONTHS or _is_chat(low):
        return None
    word_freq = freq(low)
    rare = word_freq < RARE_FREQUENCY
    if (and_i or (speech and toks[i + 1].low in _SAID)) and tok.cap and tok.after_lower \
            and toks[i - 1].low not in _DETERMINERS and toks[i - 1].low not in _AT_PLACE \
            and word_freq < FUNCTION_FREQUENCY and not _big_place(data, low):
        return i, i, "PERSON", REPLACES               # a capitalised word mid-sentence: "then Cat said", "Cat and I"
    if speech:
        if tok.cap and (tok.starts_sentence or not toks[i - 1].cap) and (rare or (
                word_freq < ALIAS_MAX_FREQUENCY and data.places.get(low) is None)):
            return i, i, "PERSON", REPLACES           # "Pogo says", "then Pogo said"
        if lower and (rare or (low in data.surnames and word_freq < LOWER_PLAIN_FREQUENCY)) \
                and toks[i + 1].low in _SPEECH_PAST and (i == 0 or (toks[i - 1].low not in _DETERMINERS
                                                                    and toks[i - 1].low not in _SUBJECTS)):
            return i, i, "PERSON", REPLACES           # "the items mir mentioned"; not "i wud say", "she coyly asked"
    if not (rare or (tok.cap and word_freq < ALIAS_MAX_FREQUENCY and data.places.get(low) is None)):
        return None
    before = text[toks[i - 1].end if i else 0:tok.start]
    if i + 1 == n and text[tok.end:].strip(" \t\r\n.!") == "" and before.strip(" \t")[-1:] in _SIGN_GAPS:
        return i, i, "PERSON", REPLACES               # a sign-off at the end: "- Pogo", "your only, sporko."
    if dash and before[-2:-1] in (" ", "\n", '"', "") and len(low) >= 4 and text[tok.end:tok.end + 1] not in ("-", "~"):
        return i, i, "PERSON", REPLACES               # an attribution: '." -evasivecolin'
    return None


def _coordinated(toks: list[_Tok], found: list[_Found], data: WordData) -> list[_Found]:
    """A capitalised word mid-sentence joined by "and" / "&" to a person is a person: "convince Cat and Kurt",
    "Kurt and Cat went"."""
    taken = {k for a, b, _, _ in found for k in range(a, b + 1)}
    extra: list[_Found] = []
    strong: set[int] = set()
    for a, b, label, _ in found:
        if label != "PERSON":
            continue
        for x, link in ((a - 2, a - 1), (b + 2, b + 1)):
            if not 0 <= x < len(toks) or x in taken or toks[link].low not in _AND or not toks[link].spaced:
                continue
            cand = toks[x]
            if not cand.cap or not (toks[x].spaced and toks[link].spaced if x > a else toks[a].spaced):
                continue
            if x < a and (cand.starts_sentence or not cand.after_lower):
                continue                          # "Cat and Kurt" only mid-sentence: "convince Cat and Kurt"
            if x + 1 < len(toks) and x > b and toks[x + 1].spaced and toks[x + 1].cap:
                continue                          # "Kurt and Pink Floyd"
            low = cand.low
            if not cand.word.isalpha() or not cand.word[1:].islower() or _is_common(toks[a].low):
                continue                          # "Gwen and I've", "WalMart and Sarah", "Constitution and Bill"
            if freq(low) >= FUNCTION_FREQUENCY or low in _TITLES or low in WEEKDAYS or low in MONTHS \
                    or low in _NOT_FIRST_NAMES or low in _NOT_ALIASES or _is_chat(low) \
                    or _big_place(data, low):
                continue
            extra.append((x, x, "PERSON", REPLACES))
            taken.add(x)
            strong.add(a)
    if not extra:
        return found
    merged = [(a, b, label, REPLACES if a in strong else s) for a, b, label, s in found] + extra
    merged.sort()
    return merged


def _name_run(toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """Two or more capitalised first names in a row, one space apart, none of them a common word: a list of
    people written without commas, also in a Title Case line ("... Goes Out To Matt Dustin Zack Lynn And")."""
    if not _plain_capitalised(toks[i], data):
        return None
    last = i
    while last + 1 < len(toks) and toks[last + 1].spaced and _plain_capitalised(toks[last + 1], data):
        last += 1
    if last == i:
        return None
    return i, last, "PERSON", EXTENDS


def _plain_capitalised(tok: _Tok, data: WordData) -> bool:
    return tok.cap and tok.word.isalpha() and tok.low not in _WORD_NAMES and first_name_kind(tok.low, data) == "plain"


def _glued_possessive(toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """A capitalised first name with an "s" glued on before a lower-case word: "Jims parents", "Erics car"
    (a surname such as "Williams" or "Roberts" is left to the surname rules)."""
    tok = toks[i]
    low = tok.low
    if len(low) < 4 or low[-1] != "s" or not tok.word.isalpha() or low in data.surnames \
            or freq(low) >= RARE_FREQUENCY or low[:-1] in _WORD_NAMES or first_name_kind(low[:-1], data) != "plain":
        return None
    if i + 1 >= len(toks) or not toks[i + 1].spaced or not toks[i + 1].word.islower() \
            or freq(toks[i + 1].low) >= FUNCTION_FREQUENCY:
        return None
    return i, i, "PERSON", REPLACES


# Words that stand before a name in parentheses without being the name: "my sister (Jane)", "the band (Muse)".
_NOT_PAREN_ALIASES = _NOT_ALIASES | frozenset("""
sister brother cousin friend friends boyfriend girlfriend bf gf husband wife son daughter boss teacher kid kids
band singer guy girl man woman name named aka alias
""".split())
# " (Name)" right after a word: the name a nickname stands for ("shout out to grimes (Jake)", "eek (Erik)").
_PAREN_NAME = re.compile(r" ?\(([A-Z][a-z]+)\)")


def _paren_alias(text: str, toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """A nickname followed by the first name it stands for in parentheses: "grimes (Jake)", "eek (Erik)"."""
    tok = toks[i]
    if text[tok.end:tok.end + 1] not in (" ", "(") or tok.end + 3 >= len(text):
        return None
    m = _PAREN_NAME.match(text, tok.end)
    if m is None or first_name_kind(m.group(1).lower(), data) is None:
        return None
    low = tok.low
    if len(low) < 2 or not tok.word.isalpha() or low in _NOT_PAREN_ALIASES or low in _TITLES or _is_chat(low) \
            or low in WEEKDAYS or low in MONTHS or freq(low) >= LOWER_PLAIN_FREQUENCY:
        return None
    return i, i, "PERSON", REPLACES


# Words before a friend named by an initial: "my ex-best friend T.", "my boyfriend J and I".
_KIN_BEFORE_INITIAL = frozenset("""
friend friends bf gf boyfriend girlfriend sister brother cousin roommate roomie buddy bestie pal crush ex
""".split())


def _initial_after_kin(text: str, toks: list[_Tok], i: int) -> _Found | None:
    """A capital letter alone after a friend or kin word: "my ex-best friend T.", "my bf J and I"."""
    tok = toks[i]
    if len(tok.word) != 1 or not tok.word.isupper() or tok.word in ("I", "A") \
            or not before_is(toks, i, _KIN_BEFORE_INITIAL):
        return None
    if text[tok.end:tok.end + 1] not in ("", " ", ".", ",", "!", "?", ")", "\n", ":", ";"):
        return None
    return i, i, "PERSON", REPLACES


# Words after which a lower-case town is where someone goes or is: "ran out to elyria", "back in omaha".
_TO_PLACE = frozenset("to in at from near outside visit visiting visited".split())


def _lower_place(toks: list[_Tok], i: int, data: WordData) -> _Found | None:
    """A town of the gazetteer written in lower case after "to", "in", "from", ...: "ran out to elyria". The
    town must be no English word ("reading", "mobile", "bath" stay) and no first name."""
    tok = toks[i]
    low = tok.low
    if len(low) < 4 or not tok.word.isalpha() or not tok.word.islower() or not before_is(toks, i, _TO_PLACE):
        return None
    place = data.places.get(low)
    if place is None and before_is(toks, i, _AT) and low in data.surnames and freq(low) < RARE_FREQUENCY \
            and low not in data.first and not _is_chat(low) and not _street_after(toks, i):
        return i, i, "ORG", WEAK                          # a diner or a shop named after someone: "at perkins"
    if place is None or not (place.area or place.population >= _LOWER_PLACE_POPULATION):
        return None
    if freq(low) >= RARE_FREQUENCY or low in data.first or _is_chat(low):
        return None
    return i, i, place.label, WEAK


_AT = frozenset(("at",))


def _street_after(toks: list[_Tok], i: int) -> bool:
    """A street word follows ("at kroger street"): a street, which the street rules take, not a shop."""
    return i + 1 < len(toks) and toks[i + 1].low in ("street", "st", "road", "rd", "avenue", "ave", "lane")


#: Population from which a town written in lower case after "to" / "in" is taken as a place.
_LOWER_PLACE_POPULATION = 15_000
# An initial that goes on with a name: "Mr. T. Smith", "Mr T Smith".
_INITIAL_THEN_NAME = re.compile(r"\.? [A-Z][a-z]")


def _big_place(data: WordData, low: str) -> bool:
    """A country, a state or a city of BIG_PLACE_POPULATION: "Kurt and Texas"; not Cat (a Turkish town)."""
    place = data.places.get(low)
    return place is not None and (place.area or place.population >= BIG_PLACE_POPULATION)


# ------------------------------------------------------------------------------------------ merging

_CONNECTORS = frozenset(("and", "&", "n"))


def prefer_people(ner: list[tuple[int, int, str]], strong: Iterable[tuple[int, int, str, int]],
                  text: str) -> list[tuple[int, int, str]]:
    """spaCy's spans with the strong names put in. A spaCy span is replaced by the REPLACES names that overlap
    it when they extend it ("lin" -> "lin yi qin") or when what they leave of it is only connectors, titles
    and punctuation (ORG "Cat and Kurt" -> "Cat", "Kurt"; ORG "mdm tan" -> "tan"); a spaCy PERSON span also by
    an EXTENDS name that contains it ("Lyle" -> "Lyle Lovett"). A strong name that still overlaps a spaCy span
    is left out here (``recognizer._fill`` adds the lexicons' spans that overlap none)."""
    strong = sorted(strong)
    if not strong or not ner:
        return ner
    kept: list[tuple[int, int, str]] = []
    used: set[tuple[int, int, str, int]] = set()
    j = 0
    for span in ner:
        start, end, label = span
        while j < len(strong) and strong[j][1] <= start:
            j += 1
        inside = []
        k = j
        while k < len(strong) and strong[k][0] < end:
            inside.append(strong[k])
            k += 1
        if inside and all(s[3] == REPLACES for s in inside) and _only_connectors(text, start, end, inside):
            used.update(inside)
            continue
        if len(inside) == 1 and label == "PERSON" and inside[0][0] <= start and end <= inside[0][1]:
            used.update(inside)
            continue
        kept.append(span)
    if not used:
        return ner
    starts = [s for s, _, _ in kept]
    added: list[tuple[int, int, str]] = []
    for span in strong:
        if span not in used:
            continue
        i = bisect_right(starts, span[1] - 1) - 1
        if i >= 0 and kept[i][1] > span[0]:
            continue
        added.append(span[:3])
    return sorted(kept + added)


def _only_connectors(text: str, start: int, end: int, inside: list[tuple[int, int, str, int]]) -> bool:
    pos = start
    rest = []
    for s, e, _, _ in inside:
        if s > pos:
            rest.append(text[pos:s])
        pos = max(pos, e)
    if pos < end:
        rest.append(text[pos:end])
    for piece in rest:
        for word in re.findall(r"\w+", piece.lower()):
            if word not in _CONNECTORS and word not in _TITLES:
                return False
    return True
